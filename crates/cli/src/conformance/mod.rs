//! The conformance suite (`dctc conformance`): small scenarios whose right outcome is known
//! without the code (ns-3 validation tests and RFC test vectors in spirit), for every packet
//! scheme `dctc list` prints and every flow policy, each at the link rates, round trips and
//! flow counts where bugs hide.
//!
//! A [`Case`] states what it checks, the outcome it expects and why (an RFC, a paper, an
//! analysis), and measures it. One file per family of cases; every case runs from the command
//! (`dctc conformance [--scheme NAME] [--family NAME] [--quick]`, which prints a table) and the
//! quick ones as tests (`crates/cli/tests/conformance.rs`), from this one implementation.
//! Expected bands are derived from the reference, never tuned to what the code gives: a
//! correct implementation that misses one is a finding to report, not a band to widen.

mod bench;
mod cubic;
mod dctcp;
mod explicit;
mod fair;
mod fill;
mod flow_policies;
mod holnet;
mod multipath;
mod queueing;

use dctc_report::{Cell, Table};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// What a case measured and whether that is the expected outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct Measured {
    /// The measured figures, in the units the expectation names.
    pub value: String,
    /// Whether they meet the expectation.
    pub pass: bool,
}

impl Measured {
    /// `value` passing if `pass`.
    pub fn new(value: impl Into<String>, pass: bool) -> Measured {
        Measured {
            value: value.into(),
            pass,
        }
    }
}

/// The measurement a case runs.
type Run = Box<dyn Fn() -> Measured + Send + Sync>;

/// One conformance case.
pub struct Case {
    /// The family (one file of this module): `fill`, `fair`, `dctcp`, ...
    pub family: &'static str,
    /// What it checks, in a few words ("one flow fills the link").
    pub check: &'static str,
    /// The registered scheme or policy under test (`dctc list`).
    pub scheme: String,
    /// The setting: link rate, round trip, flow count.
    pub setting: String,
    /// The expected outcome, with its numbers.
    pub expected: String,
    /// Why that outcome is right: the RFC, paper or analysis it comes from.
    pub why: &'static str,
    /// Whether the case is in the quick set (`--quick`, and the tests CI runs).
    pub quick: bool,
    /// A failure this case exposes that is known and left to another change (the finding and
    /// where it is tracked): the case runs and reports `known` (failing) or `known, passes`
    /// but does not gate the suite, so whoever fixes the finding sees it and removes the mark.
    pub known_failure: Option<&'static str>,
    run: Run,
}

impl Case {
    /// A case of `family` checking `check` on `scheme` in `setting`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        family: &'static str,
        check: &'static str,
        scheme: &str,
        setting: impl Into<String>,
        expected: impl Into<String>,
        why: &'static str,
        quick: bool,
        run: impl Fn() -> Measured + Send + Sync + 'static,
    ) -> Case {
        Case {
            family,
            check,
            scheme: scheme.to_string(),
            setting: setting.into(),
            expected: expected.into(),
            why,
            quick,
            known_failure: None,
            run: Box::new(run),
        }
    }

    /// Marks the case as exposing a known failure, `finding` (see [`Case::known_failure`]).
    pub(crate) fn known(mut self, finding: &'static str) -> Case {
        self.known_failure = Some(finding);
        self
    }

    /// The verdict on `m`: `pass`, `FAIL`, `known` (a known failure) or `known, passes`.
    pub fn verdict(&self, m: &Measured) -> &'static str {
        match (m.pass, self.known_failure.is_some()) {
            (true, false) => "pass",
            (false, false) => "FAIL",
            (false, true) => "known",
            (true, true) => "known, passes",
        }
    }

    /// Whether `m` lets the suite pass: a pass, or any result of a known failure.
    pub fn as_expected(&self, m: &Measured) -> bool {
        m.pass || self.known_failure.is_some()
    }

    /// Runs the case.
    pub fn run(&self) -> Measured {
        (self.run)()
    }
}

/// Broken variants of quick cases, made from keys every user has (never shipped schemes):
/// each runs through its case's own measurement and checker, and each must fail, which
/// shows that the suite catches the breakage (`crates/cli/tests/conformance.rs`).
/// - DCTCP ignoring marks: the `dctcp` scheme with NewReno's controller
///   (`transport = "newreno"`), whose packets are not ECN-capable, so the ECN port never
///   marks them and the queue grows to the buffer instead of DCTCP's band around K.
/// - pFabric serving FIFO: pFabric's hosts over DropTail ports (`queue = "droptail"`),
///   which finish flows in arrival order, not shortest-remaining first.
/// - MPTCP without its coupling: the `mptcp` scheme with NewReno's controller on each
///   subflow (`transport = "newreno"`), two independent TCPs that take about twice the
///   single-path flow's share.
/// - Every flow policy's first case under a policy, or keys, that break its definition
///   (`flow_policies::sabotaged`: max-min served by the log-utility NUM, Varys serving FIFO,
///   Baraat never multiplexing, DBA with eq. (12) as printed, ...).
/// - HOLNET CC deaf to its flows' utilities (`holnet::sabotaged`: its `flows` table dropped),
///   which splits the CC-CoS link evenly instead of at the NUM optimum.
pub fn sabotaged() -> Vec<Case> {
    let dctcp = fill::Path::dumbbell(10.0, 1.0, 8);
    let pfabric = fill::Path::star(10.0, 1.0, 12);
    let mut v = vec![
        Case::new(
            "dctcp",
            "queue in DCTCP's band",
            "dctcp ignoring marks",
            dctcp.label(),
            "fails: the queue leaves the band",
            "sabotaged",
            true,
            move || dctcp::queue_band_with(dctcp, "transport = \"newreno\""),
        ),
        Case::new(
            "queueing",
            "shortest remaining first",
            "pfabric serving FIFO",
            pfabric.label(),
            "fails: completions not in size order or too slow",
            "sabotaged",
            true,
            move || queueing::srpt_with(pfabric, "queue = \"droptail\""),
        ),
        Case::new(
            "multipath",
            "no more than one TCP on a shared bottleneck",
            "mptcp with uncoupled NewReno subflows",
            "1 Gb/s bottleneck, 2 subflows over 2 spines vs 1 single-path flow",
            "fails: the connection takes about two TCPs",
            "sabotaged",
            true,
            || multipath::shared_bottleneck_with("mptcp", 1.0, "transport = \"newreno\""),
        ),
    ];
    v.extend(flow_policies::sabotaged());
    v.extend(holnet::sabotaged());
    v
}

/// Every case of the suite, family by family.
pub fn cases() -> Vec<Case> {
    let mut all = Vec::new();
    all.extend(fill::cases());
    all.extend(fair::cases());
    all.extend(dctcp::cases());
    all.extend(cubic::cases());
    all.extend(queueing::cases());
    all.extend(explicit::cases());
    all.extend(multipath::cases());
    all.extend(holnet::cases());
    all.extend(flow_policies::cases());
    all
}

/// The families, in suite order.
pub const FAMILIES: &[(&str, &str)] = &[
    ("fill", "one long flow fills the link"),
    (
        "fair",
        "N long flows on one bottleneck reach and keep their fair share",
    ),
    (
        "dctcp",
        "DCTCP's queue stays in the band of its analysis around K",
    ),
    ("cubic", "CUBIC's window follows W(t) = C (t - K)^3 + W_max"),
    (
        "queueing",
        "CoDel holds its target; FQ-CoDel serves sparse flows first; pFabric is SRPT",
    ),
    (
        "explicit",
        "XCP, TFC and Flowtune hand out the fair share with a near-empty queue",
    ),
    (
        "multipath",
        "MPTCP is no more aggressive than one TCP; balancers even their queues",
    ),
    ("holnet", "HOLNET's controllers reach their stated optima"),
    (
        "flow-policies",
        "each flow policy's rates equal its definition on a hand-solvable case",
    ),
];

/// Which cases to run.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// Only this scheme or policy.
    pub scheme: Option<String>,
    /// Only this family.
    pub family: Option<String>,
    /// Only the quick set.
    pub quick: bool,
}

impl Filter {
    /// Whether `c` is selected.
    pub fn selects(&self, c: &Case) -> bool {
        self.scheme.as_ref().is_none_or(|s| *s == c.scheme)
            && self.family.as_ref().is_none_or(|f| f == c.family)
            && (!self.quick || c.quick)
    }
}

/// Runs `cases` on `threads` threads; results in the cases' order. `done` hears each result
/// as it arrives (progress).
pub fn run_all(
    cases: &[&Case],
    threads: usize,
    done: &(dyn Fn(&Case, &Measured) + Sync),
) -> Vec<Measured> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Measured>>> = Mutex::new(vec![None; cases.len()]);
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(c) = cases.get(i) else { break };
                let m = c.run();
                done(c, &m);
                results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(m);
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|m| m.expect("every case ran"))
        .collect()
}

/// The results as a table: case, scheme, setting, expected, measured, result.
pub fn table(cases: &[&Case], results: &[Measured]) -> Table {
    let mut t = Table::new(
        "Conformance",
        [
            "family", "check", "scheme", "setting", "expected", "measured", "result",
        ],
    );
    for (c, m) in cases.iter().zip(results) {
        t.push_row(vec![
            Cell::Text(c.family.into()),
            Cell::Text(c.check.into()),
            Cell::Text(c.scheme.clone()),
            Cell::Text(c.setting.clone()),
            Cell::Text(c.expected.clone()),
            Cell::Text(m.value.clone()),
            Cell::Text(c.verdict(m).into()),
        ]);
    }
    t
}

/// The known failures among `cases`, one line each: the case and its finding.
pub fn known_failures(cases: &[&Case]) -> String {
    cases
        .iter()
        .filter_map(|c| {
            c.known_failure
                .map(|f| format!("- {} {} ({}): {f}\n", c.family, c.scheme, c.setting))
        })
        .collect()
}

/// Why each check expects what it does: one line per distinct check of `cases`.
pub fn reasons(cases: &[&Case]) -> String {
    let mut seen: Vec<(&str, &str, &str)> = Vec::new();
    for c in cases {
        if !seen.iter().any(|(f, k, _)| *f == c.family && *k == c.check) {
            seen.push((c.family, c.check, c.why));
        }
    }
    seen.iter()
        .map(|(f, k, w)| format!("- {f} / {k}: {w}\n"))
        .collect()
}

/// Every scheme and policy name some case covers.
pub fn covered() -> Vec<String> {
    let mut v: Vec<String> = cases().into_iter().map(|c| c.scheme).collect();
    v.sort();
    v.dedup();
    v
}
