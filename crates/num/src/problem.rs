//! A NUM problem in structure-of-arrays form, editable online.
//!
//! Links have capacities; flows have one or more paths (each path is a *subflow*; the flow's
//! utility is of the subflows' total, HOLNET eq. 10), a [`Utility`], and optional minimum and
//! maximum rates (theta, Theta; HOLNET eq. 11). Flows come and go ([`Problem::add_flow`],
//! [`Problem::remove_flow`]) and capacities change ([`Problem::set_capacity`]) without touching
//! solver state: solvers keep their per-link prices in a [`crate::solver::State`] that survives
//! every edit (Flowtune §3: new flows take their rates from the current prices).
//!
//! Internally every rate is divided by [`Problem::rate_unit`] (b/s), so capacities and rates are
//! O(1) and Flowtune's "prices start at 1" is a sensible start; results are reported in b/s.

use crate::csr::Csr;
use crate::lp::{Cmp, Lp, Outcome};
use crate::utility::{Scaled, Utility};
use std::collections::BTreeMap;

/// How far above its line rate a flow's demand may count in price updates.
pub const DEMAND_CAP: f64 = 4.0;

/// A flow's stable handle: survives other flows' removal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FlowKey(pub u64);

/// A flow of a NUM problem to add: its path and utility (named apart from the workload
/// flows of `dctc_core::spec::FlowSpec`).
#[derive(Clone, Debug, PartialEq)]
pub struct NumFlow {
    /// Name used in error messages and output.
    pub name: String,
    /// One or more paths, each a list of link indices.
    pub paths: Vec<Vec<usize>>,
    /// The flow's utility of its total rate.
    pub utility: Utility,
    /// Minimum total rate theta, b/s (0 for none).
    pub min_bps: f64,
    /// Maximum total rate Theta, b/s (`f64::INFINITY` for none).
    pub max_bps: f64,
}

impl NumFlow {
    /// A single-path flow with no rate bounds.
    pub fn new(name: impl Into<String>, path: Vec<usize>, utility: Utility) -> NumFlow {
        NumFlow {
            name: name.into(),
            paths: vec![path],
            utility,
            min_bps: 0.0,
            max_bps: f64::INFINITY,
        }
    }
}

/// Bad input to a [`Problem`]; every variant names the flow or link.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ProblemError {
    /// A link capacity that is not positive and finite.
    #[error("link `{link}`: capacity must be positive and finite, got {capacity}")]
    BadCapacity {
        /// Link name.
        link: String,
        /// The capacity given.
        capacity: f64,
    },
    /// Two links with one name.
    #[error("link `{link}` is defined twice")]
    DuplicateLink {
        /// Link name.
        link: String,
    },
    /// Two flows with one name.
    #[error("flow `{flow}` is defined twice")]
    DuplicateFlow {
        /// Flow name.
        flow: String,
    },
    /// A flow with no path.
    #[error("flow `{flow}` has no path")]
    NoPath {
        /// Flow name.
        flow: String,
    },
    /// A path with no links.
    #[error("flow `{flow}`: path {path} has no links")]
    EmptyPath {
        /// Flow name.
        flow: String,
        /// Path index.
        path: usize,
    },
    /// A path naming a link that does not exist.
    #[error("flow `{flow}`: unknown link `{link}`")]
    UnknownLink {
        /// Flow name.
        flow: String,
        /// The link as written.
        link: String,
    },
    /// A path crossing one link twice.
    #[error("flow `{flow}`: path {path} crosses link `{link}` twice")]
    RepeatedLink {
        /// Flow name.
        flow: String,
        /// Path index.
        path: usize,
        /// Link name.
        link: String,
    },
    /// A utility weight that is not positive and finite.
    #[error("flow `{flow}`: weight must be positive and finite, got {weight}")]
    BadWeight {
        /// Flow name.
        flow: String,
        /// The weight given.
        weight: f64,
    },
    /// Another utility parameter out of range.
    #[error("flow `{flow}`: utility parameter `{parameter}` out of range: {value}")]
    BadUtility {
        /// Flow name.
        flow: String,
        /// Which parameter.
        parameter: String,
        /// Its value.
        value: f64,
    },
    /// A negative or non-finite minimum, or a NaN/non-positive maximum.
    #[error("flow `{flow}`: bad rate bound {what} = {value}")]
    BadBound {
        /// Flow name.
        flow: String,
        /// `min_bps` or `max_bps`.
        what: &'static str,
        /// The value.
        value: f64,
    },
    /// theta > Theta.
    #[error("flow `{flow}`: minimum rate {min_bps} b/s exceeds maximum {max_bps} b/s")]
    MinAboveMax {
        /// Flow name.
        flow: String,
        /// theta.
        min_bps: f64,
        /// Theta.
        max_bps: f64,
    },
    /// The minimum rates of the flows that must cross a link exceed its capacity.
    #[error("link `{link}`: minimum rates of its flows need {required_bps} b/s but capacity is {capacity_bps} b/s (first flow over: `{flow}`)")]
    InfeasibleMinimum {
        /// Link name.
        link: String,
        /// The flow whose minimum tipped it over.
        flow: String,
        /// Sum of minima.
        required_bps: f64,
        /// Usable capacity.
        capacity_bps: f64,
    },
    /// Minimum rates of multipath flows that no split over their paths fits: the links named
    /// cannot carry the minimums of the flows named together (a linear-programming
    /// certificate: pricing those links, every path of those flows costs more than the links
    /// can earn).
    #[error(
        "minimum rates cannot all be met: links `{}` cannot carry the minimums of flows `{}` \
         over any split of their paths (at most {fraction} of each minimum fits; first flow \
         over: `{flow}`)",
        .links.join("`, `"),
        .flows.join("`, `")
    )]
    InfeasibleMinimumCut {
        /// The links of the cut (those with a positive dual price).
        links: Vec<String>,
        /// The flows whose minimums overload the cut.
        flows: Vec<String>,
        /// The flow being added (or the link being shrunk) when it was found.
        flow: String,
        /// The largest fraction of every minimum that fits at once.
        fraction: f64,
    },
    /// A flow key that is not (or no longer) in the problem.
    #[error("no flow with key {key}")]
    UnknownFlow {
        /// The key.
        key: u64,
    },
    /// A link index that is out of range.
    #[error("no link with index {index}")]
    UnknownLinkIndex {
        /// The index.
        index: usize,
    },
}

/// A NUM problem (see the module docs).
#[derive(Clone, Debug)]
pub struct Problem {
    unit: f64,
    /// `ln` of the utility gain (see [`Problem::autoscale`]); 0 = gain 1.
    ln_gain: f64,
    capacity_factor: f64,
    link_name: Vec<String>,
    link_index: BTreeMap<String, usize>,
    capacity_bps: Vec<f64>,
    /// Sum of minima (b/s) of flows all of whose paths cross the link.
    min_load_bps: Vec<f64>,
    /// Flows with several paths and a minimum rate (their feasibility needs the LP check).
    multipath_min: usize,

    flow_key: Vec<FlowKey>,
    flow_name: Vec<String>,
    utility: Vec<Utility>,
    scaled: Vec<Scaled>,
    min_bps: Vec<f64>,
    max_bps: Vec<f64>,
    /// Subflows of flow `f`: `sub_start[f]..sub_start[f + 1]`.
    sub_start: Vec<u32>,
    sub_flow: Vec<u32>,
    sub_paths: Csr,
    /// Share of its flow's rate each subflow carries (multipath; 1 for single-path flows).
    split: Vec<f64>,
    /// Proximal centre of each subflow (rate units; NaN until a solver sets it), for the
    /// multipath rate update (see [`crate::solver`]).
    centre: Vec<f64>,
    /// Rate last sent to each flow (b/s), for the update threshold; NaN when never sent.
    notified_bps: Vec<f64>,
    key_index: BTreeMap<FlowKey, usize>,
    next_key: u64,

    // Derived, rebuilt by `prepare` after edits.
    dirty: bool,
    by_link: Csr,
    cap_scaled: Vec<f64>,
    min_scaled: Vec<f64>,
    max_scaled: Vec<f64>,
    demand_cap: Vec<f64>,
    single_path: bool,
}

impl Problem {
    /// An empty problem whose internal rate unit is `rate_unit_bps` (typically the largest link
    /// capacity).
    pub fn new(rate_unit_bps: f64) -> Problem {
        assert!(rate_unit_bps > 0.0 && rate_unit_bps.is_finite());
        Problem {
            unit: rate_unit_bps,
            ln_gain: 0.0,
            capacity_factor: 1.0,
            link_name: Vec::new(),
            link_index: BTreeMap::new(),
            capacity_bps: Vec::new(),
            min_load_bps: Vec::new(),
            multipath_min: 0,
            flow_key: Vec::new(),
            flow_name: Vec::new(),
            utility: Vec::new(),
            scaled: Vec::new(),
            min_bps: Vec::new(),
            max_bps: Vec::new(),
            sub_start: vec![0],
            sub_flow: Vec::new(),
            sub_paths: Csr::new(),
            split: Vec::new(),
            centre: Vec::new(),
            notified_bps: Vec::new(),
            key_index: BTreeMap::new(),
            next_key: 0,
            dirty: true,
            by_link: Csr::new(),
            cap_scaled: Vec::new(),
            min_scaled: Vec::new(),
            max_scaled: Vec::new(),
            demand_cap: Vec::new(),
            single_path: true,
        }
    }

    /// The internal rate unit, b/s.
    pub fn rate_unit(&self) -> f64 {
        self.unit
    }

    /// `ln` of the utility gain: solvers see every utility multiplied by `exp(ln_gain)`
    /// (0 unless [`Problem::autoscale`] or [`Problem::set_ln_utility_gain`] set it).
    pub fn ln_utility_gain(&self) -> f64 {
        self.ln_gain
    }

    /// Prices in the scaled unit per unscaled price (utility per b/s): `gain x rate unit`.
    /// Divide a solver's price by this to get utility per b/s (may under- or overflow f64 for
    /// utilities that are extreme in b/s, e.g. alpha = 100; the scaled prices do not).
    pub fn price_unit(&self) -> f64 {
        (self.ln_gain + self.unit.ln()).exp()
    }

    /// Sets the utility gain (as its `ln`) and rescales every flow's utility. Prices held in a
    /// solver state for the old gain are off by the ratio of the gains.
    pub fn set_ln_utility_gain(&mut self, ln_gain: f64) {
        assert!(ln_gain.is_finite(), "utility gain must be finite");
        self.ln_gain = ln_gain;
        for (s, u) in self.scaled.iter_mut().zip(&self.utility) {
            *s = u.scaled_with_gain(self.unit, ln_gain);
        }
    }

    /// Picks the utility gain that puts the flows' marginal utilities on the order of 1 in the
    /// scaled unit, and applies it ([`Problem::set_ln_utility_gain`]): the gain is the inverse
    /// of the geometric mean over flows of `Ũ'_f(z_f)` at a typical rate `z_f`, the flow's
    /// equal share of the narrowest link on its widest path (in rate units, so the choice does
    /// not depend on the unit the problem is written in). Rates in rate units are already
    /// O(1); without the gain an alpha-fair utility in b/s has marginals of order
    /// `unit^(1-alpha)` (1e-10 for alpha = 2 on 10 Gb/s links), so prices starting at 1 are
    /// off by that factor and step-size rules tuned for O(1) marginals stall. One common factor
    /// on the objective leaves the optimum unchanged; it is a no-op for a problem with no
    /// flows. Returns the `ln` of the gain.
    pub fn autoscale(&mut self) -> f64 {
        self.prepare();
        let nf = self.flows();
        if nf == 0 {
            return self.ln_gain;
        }
        let cap = self.capacity_scaled().to_vec();
        let count: Vec<f64> = (0..self.links())
            .map(|l| self.by_link.row(l).len().max(1) as f64)
            .collect();
        let mut sum = 0.0;
        for f in 0..nf {
            let z = self
                .subflows(f)
                .map(|s| {
                    self.sub_paths
                        .row(s)
                        .iter()
                        .map(|&l| cap[l as usize] / count[l as usize])
                        .fold(f64::INFINITY, f64::min)
                })
                .fold(0.0, f64::max);
            sum += self.utility[f].ln_scaled_marginal(self.unit, z);
        }
        let ln_gain = -sum / nf as f64;
        if ln_gain.is_finite() {
            self.set_ln_utility_gain(ln_gain);
        }
        self.ln_gain
    }

    /// Adds a link and returns its index.
    pub fn add_link(
        &mut self,
        name: impl Into<String>,
        capacity_bps: f64,
    ) -> Result<usize, ProblemError> {
        let name = name.into();
        if !(capacity_bps.is_finite() && capacity_bps > 0.0) {
            return Err(ProblemError::BadCapacity {
                link: name,
                capacity: capacity_bps,
            });
        }
        if self.link_index.contains_key(&name) {
            return Err(ProblemError::DuplicateLink { link: name });
        }
        let i = self.link_name.len();
        self.link_index.insert(name.clone(), i);
        self.link_name.push(name);
        self.capacity_bps.push(capacity_bps);
        self.min_load_bps.push(0.0);
        self.dirty = true;
        Ok(i)
    }

    /// Changes a link's capacity; refused if the minimum rates crossing it would no longer fit.
    pub fn set_capacity(&mut self, link: usize, capacity_bps: f64) -> Result<(), ProblemError> {
        if link >= self.capacity_bps.len() {
            return Err(ProblemError::UnknownLinkIndex { index: link });
        }
        if !(capacity_bps.is_finite() && capacity_bps > 0.0) {
            return Err(ProblemError::BadCapacity {
                link: self.link_name[link].clone(),
                capacity: capacity_bps,
            });
        }
        let usable = capacity_bps * self.capacity_factor;
        if self.min_load_bps[link] > usable * (1.0 + 1e-12) {
            return Err(ProblemError::InfeasibleMinimum {
                link: self.link_name[link].clone(),
                flow: String::new(),
                required_bps: self.min_load_bps[link],
                capacity_bps: usable,
            });
        }
        if self.multipath_min > 0 && capacity_bps < self.capacity_bps[link] {
            let mut caps = self.capacity_bps.clone();
            caps[link] = capacity_bps;
            self.check_minimums(&caps, None, &self.link_name[link])?;
        }
        self.capacity_bps[link] = capacity_bps;
        self.dirty = true;
        Ok(())
    }

    /// Scales every capacity by `factor` in (0, 1] (Flowtune §6.4: with an update threshold of
    /// 0.01, allocate 99% of each link).
    pub fn set_capacity_factor(&mut self, factor: f64) {
        assert!(factor > 0.0 && factor <= 1.0, "capacity factor in (0, 1]");
        self.capacity_factor = factor;
        self.dirty = true;
    }

    /// The capacity factor.
    pub fn capacity_factor(&self) -> f64 {
        self.capacity_factor
    }

    /// Checks a flow against the links and returns its error, if any (nothing is changed).
    pub fn check_flow(&self, spec: &NumFlow) -> Result<(), ProblemError> {
        let flow = || spec.name.clone();
        if spec.paths.is_empty() {
            return Err(ProblemError::NoPath { flow: flow() });
        }
        for (pi, path) in spec.paths.iter().enumerate() {
            if path.is_empty() {
                return Err(ProblemError::EmptyPath {
                    flow: flow(),
                    path: pi,
                });
            }
            for (j, &l) in path.iter().enumerate() {
                if l >= self.link_name.len() {
                    return Err(ProblemError::UnknownLink {
                        flow: flow(),
                        link: format!("#{l}"),
                    });
                }
                if path[..j].contains(&l) {
                    return Err(ProblemError::RepeatedLink {
                        flow: flow(),
                        path: pi,
                        link: self.link_name[l].clone(),
                    });
                }
            }
        }
        let w = spec.utility.weight();
        let is_dba = matches!(spec.utility, Utility::Dba { .. });
        let weight_ok = is_dba || (w.is_finite() && w > 0.0);
        if !weight_ok {
            return Err(ProblemError::BadWeight {
                flow: flow(),
                weight: w,
            });
        }
        if let Err((parameter, value)) = spec.utility.check() {
            return Err(ProblemError::BadUtility {
                flow: flow(),
                parameter: parameter.to_string(),
                value,
            });
        }
        if !(spec.min_bps.is_finite() && spec.min_bps >= 0.0) {
            return Err(ProblemError::BadBound {
                flow: flow(),
                what: "min_bps",
                value: spec.min_bps,
            });
        }
        if spec.max_bps.is_nan() || spec.max_bps <= 0.0 {
            return Err(ProblemError::BadBound {
                flow: flow(),
                what: "max_bps",
                value: spec.max_bps,
            });
        }
        if spec.min_bps > spec.max_bps {
            return Err(ProblemError::MinAboveMax {
                flow: flow(),
                min_bps: spec.min_bps,
                max_bps: spec.max_bps,
            });
        }
        if spec.min_bps > 0.0 {
            for l in must_cross(&spec.paths) {
                let need = self.min_load_bps[l] + spec.min_bps;
                let usable = self.capacity_bps[l] * self.capacity_factor;
                if need > usable * (1.0 + 1e-12) {
                    return Err(ProblemError::InfeasibleMinimum {
                        link: self.link_name[l].clone(),
                        flow: flow(),
                        required_bps: need,
                        capacity_bps: usable,
                    });
                }
            }
            if spec.paths.len() > 1 || self.multipath_min > 0 {
                self.check_minimums(&self.capacity_bps, Some(spec), &spec.name)?;
            }
        }
        Ok(())
    }

    /// The exact minimum-rate feasibility check (see [`ProblemError::InfeasibleMinimumCut`]):
    /// a linear program over the subflows of the flows with a minimum (those of the problem
    /// and `extra`), at capacities `caps` (b/s, before the capacity factor): maximize `z`
    /// with every flow's paths carrying at least `z theta_f` in total, every link within its
    /// capacity, `z <= 1`. Feasible iff `z = 1` (to a relative 1e-12, the tolerance of the
    /// per-link check). Otherwise the links and flows with positive duals are the cut.
    fn check_minimums(
        &self,
        caps: &[f64],
        extra: Option<&NumFlow>,
        culprit: &str,
    ) -> Result<(), ProblemError> {
        // (name, theta in rate units, paths) of every flow with a minimum.
        let mut flows: Vec<(&str, f64, Vec<Vec<usize>>)> = Vec::new();
        for f in 0..self.flow_key.len() {
            if self.min_bps[f] > 0.0 {
                let paths = self
                    .subflows(f)
                    .map(|s| self.sub_paths.row(s).iter().map(|&l| l as usize).collect())
                    .collect();
                flows.push((&self.flow_name[f], self.min_bps[f] / self.unit, paths));
            }
        }
        if let Some(spec) = extra {
            flows.push((&spec.name, spec.min_bps / self.unit, spec.paths.clone()));
        }
        let subflows: usize = flows.iter().map(|f| f.2.len()).sum();
        let z = subflows;
        let mut lp = Lp {
            vars: subflows + 1,
            objective: vec![(z, 1.0)],
            rows: Vec::new(),
        };
        let mut on_link: Vec<Vec<(usize, f64)>> = vec![Vec::new(); caps.len()];
        let mut var = 0;
        for (_, theta, paths) in &flows {
            let mut row = vec![(z, *theta)];
            for path in paths {
                row.push((var, -1.0));
                for &l in path {
                    on_link[l].push((var, 1.0));
                }
                var += 1;
            }
            lp.rows.push((row, Cmp::Le, 0.0));
        }
        let mut link_row = Vec::new();
        for (l, coef) in on_link.into_iter().enumerate() {
            if !coef.is_empty() {
                link_row.push(l);
                let usable = caps[l] * self.capacity_factor / self.unit;
                lp.rows.push((coef, Cmp::Le, usable));
            }
        }
        lp.rows.push((vec![(z, 1.0)], Cmp::Le, 1.0));
        let Outcome::Optimal(opt) = lp.solve() else {
            return Ok(()); // cannot happen (0 is feasible, z <= 1); let the solvers see it
        };
        if opt.value >= 1.0 - 1e-12 {
            return Ok(());
        }
        let nf = flows.len();
        let top = opt.duals.iter().copied().fold(0.0, f64::max);
        let positive = |d: f64| d > 1e-9 * top;
        let links = link_row
            .iter()
            .enumerate()
            .filter(|&(i, _)| positive(opt.duals[nf + i]))
            .map(|(_, &l)| self.link_name[l].clone())
            .collect();
        let names = flows
            .iter()
            .enumerate()
            .filter(|&(i, _)| positive(opt.duals[i]))
            .map(|(_, f)| f.0.to_string())
            .collect();
        Err(ProblemError::InfeasibleMinimumCut {
            links,
            flows: names,
            flow: culprit.to_string(),
            fraction: opt.value,
        })
    }

    /// Adds a flow after [`Problem::check_flow`]; returns its key.
    pub fn add_flow(&mut self, spec: NumFlow) -> Result<FlowKey, ProblemError> {
        self.check_flow(&spec)?;
        if spec.min_bps > 0.0 {
            for l in must_cross(&spec.paths) {
                self.min_load_bps[l] += spec.min_bps;
            }
        }
        if spec.min_bps > 0.0 && spec.paths.len() > 1 {
            self.multipath_min += 1;
        }
        let key = FlowKey(self.next_key);
        self.next_key += 1;
        let f = self.flow_key.len();
        self.key_index.insert(key, f);
        self.flow_key.push(key);
        self.flow_name.push(spec.name);
        self.utility.push(spec.utility);
        self.scaled
            .push(spec.utility.scaled_with_gain(self.unit, self.ln_gain));
        self.min_bps.push(spec.min_bps);
        self.max_bps.push(spec.max_bps);
        let share = 1.0 / spec.paths.len() as f64;
        for path in &spec.paths {
            let row: Vec<u32> = path.iter().map(|&l| l as u32).collect();
            self.sub_paths.push_row(&row);
            self.sub_flow.push(f as u32);
            self.split.push(share);
            self.centre.push(f64::NAN);
        }
        self.sub_start.push(self.sub_flow.len() as u32);
        self.notified_bps.push(f64::NAN);
        self.dirty = true;
        Ok(key)
    }

    /// Removes a flow.
    pub fn remove_flow(&mut self, key: FlowKey) -> Result<(), ProblemError> {
        self.remove_flows(&[key])
    }

    /// Removes several flows in one pass (O(flows + subflow links)).
    pub fn remove_flows(&mut self, keys: &[FlowKey]) -> Result<(), ProblemError> {
        let mut gone = vec![false; self.flow_key.len()];
        for k in keys {
            match self.key_index.get(k) {
                Some(&f) => gone[f] = true,
                None => return Err(ProblemError::UnknownFlow { key: k.0 }),
            }
        }
        for (f, &g) in gone.iter().enumerate() {
            if g && self.min_bps[f] > 0.0 {
                let paths: Vec<Vec<usize>> = self
                    .subflows(f)
                    .map(|s| self.sub_paths.row(s).iter().map(|&l| l as usize).collect())
                    .collect();
                for l in must_cross(&paths) {
                    self.min_load_bps[l] = (self.min_load_bps[l] - self.min_bps[f]).max(0.0);
                }
                if paths.len() > 1 {
                    self.multipath_min -= 1;
                }
            }
        }
        let old_start = std::mem::take(&mut self.sub_start);
        let old_paths = std::mem::take(&mut self.sub_paths);
        let old_split = std::mem::take(&mut self.split);
        let old_centre = std::mem::take(&mut self.centre);
        self.sub_start = vec![0];
        self.sub_paths = Csr::new();
        self.sub_flow.clear();
        let mut w = 0;
        for f in 0..gone.len() {
            if gone[f] {
                self.key_index.remove(&self.flow_key[f]);
                continue;
            }
            self.flow_key[w] = self.flow_key[f];
            self.flow_name.swap(w, f);
            self.utility[w] = self.utility[f];
            self.scaled[w] = self.scaled[f];
            self.min_bps[w] = self.min_bps[f];
            self.max_bps[w] = self.max_bps[f];
            self.notified_bps[w] = self.notified_bps[f];
            self.key_index.insert(self.flow_key[w], w);
            for s in old_start[f] as usize..old_start[f + 1] as usize {
                self.sub_paths.push_row(old_paths.row(s));
                self.sub_flow.push(w as u32);
                self.split.push(old_split[s]);
                self.centre.push(old_centre[s]);
            }
            self.sub_start.push(self.sub_flow.len() as u32);
            w += 1;
        }
        self.flow_key.truncate(w);
        self.flow_name.truncate(w);
        self.utility.truncate(w);
        self.scaled.truncate(w);
        self.min_bps.truncate(w);
        self.max_bps.truncate(w);
        self.notified_bps.truncate(w);
        self.dirty = true;
        Ok(())
    }

    /// Rebuilds derived arrays after edits (cheap when nothing changed). Solvers call it.
    pub fn prepare(&mut self) {
        if !self.dirty {
            return;
        }
        self.by_link = self.sub_paths.transpose(self.link_name.len());
        self.cap_scaled = self
            .capacity_bps
            .iter()
            .map(|&c| c * self.capacity_factor / self.unit)
            .collect();
        self.single_path = self.sub_flow.len() == self.flow_key.len();
        self.min_scaled = self.min_bps.iter().map(|&m| m / self.unit).collect();
        self.max_scaled.clear();
        self.demand_cap.clear();
        for f in 0..self.flow_key.len() {
            // Safeguard: a flow never gets more than its paths' line rates (sum of each path's
            // narrowest link), so a zero path price cannot give an infinite rate.
            let mut line = 0.0;
            for s in self.subflows(f) {
                let narrow = self
                    .sub_paths
                    .row(s)
                    .iter()
                    .map(|&l| self.cap_scaled[l as usize])
                    .fold(f64::INFINITY, f64::min);
                line += narrow;
            }
            let user = self.max_bps[f] / self.unit;
            self.max_scaled.push(user.min(line).max(self.min_scaled[f]));
            self.demand_cap
                .push(user.min(DEMAND_CAP * line).max(self.min_scaled[f]));
        }
        self.dirty = false;
    }

    /// Number of links.
    pub fn links(&self) -> usize {
        self.link_name.len()
    }
    /// Number of flows.
    pub fn flows(&self) -> usize {
        self.flow_key.len()
    }
    /// Number of subflows (paths over all flows).
    pub fn subflow_count(&self) -> usize {
        self.sub_flow.len()
    }
    /// Whether every flow has exactly one path (after [`Problem::prepare`]).
    pub fn is_single_path(&self) -> bool {
        self.single_path
    }
    /// Subflow indices of flow `f`.
    pub fn subflows(&self, f: usize) -> std::ops::Range<usize> {
        self.sub_start[f] as usize..self.sub_start[f + 1] as usize
    }
    /// The flow a subflow belongs to.
    pub fn subflow_owner(&self, s: usize) -> usize {
        self.sub_flow[s] as usize
    }
    /// Subflow -> links.
    pub fn paths(&self) -> &Csr {
        &self.sub_paths
    }
    /// Link -> subflows (valid after [`Problem::prepare`]).
    pub fn by_link(&self) -> &Csr {
        &self.by_link
    }
    /// Usable capacities in rate units (capacity x factor / unit; after `prepare`).
    pub fn capacity_scaled(&self) -> &[f64] {
        &self.cap_scaled
    }
    /// Link capacities, b/s (as given, without the capacity factor).
    pub fn capacity_bps(&self) -> &[f64] {
        &self.capacity_bps
    }
    /// Minimum rates in rate units (after `prepare`).
    pub fn min_scaled(&self) -> &[f64] {
        &self.min_scaled
    }
    /// Minimum rates theta as given, b/s (0 for none).
    pub fn min_bps(&self) -> &[f64] {
        &self.min_bps
    }
    /// Maximum rates Theta as given, b/s (`f64::INFINITY` for none).
    pub fn max_bps(&self) -> &[f64] {
        &self.max_bps
    }
    /// Effective maximum rates in rate units, capped at line rate (after `prepare`).
    pub fn max_scaled(&self) -> &[f64] {
        &self.max_scaled
    }
    /// The cap on the rate a flow *asks for* in price updates (rate units, after `prepare`):
    /// the user's maximum, or [`DEMAND_CAP`] times the line rate. Price updates see this demand,
    /// not the line-rate-capped rate, so a link whose flows all want more than line rate still
    /// sees its true excess (see [`crate::solver`]).
    pub fn demand_cap(&self) -> &[f64] {
        &self.demand_cap
    }
    /// Utilities in rate units.
    pub fn scaled_utilities(&self) -> &[Scaled] {
        &self.scaled
    }
    /// Utilities as given.
    pub fn utilities(&self) -> &[Utility] {
        &self.utility
    }
    /// Subflow split shares.
    pub fn split(&self) -> &[f64] {
        &self.split
    }
    /// Subflow split shares, for solvers that move them.
    pub fn split_mut(&mut self) -> &mut [f64] {
        &mut self.split
    }
    /// Split shares and proximal centres (rate units, NaN when unset) of the subflows, for
    /// the multipath rate update.
    pub fn split_and_centre_mut(&mut self) -> (&mut [f64], &mut [f64]) {
        (&mut self.split, &mut self.centre)
    }
    /// Flow keys in index order.
    pub fn keys(&self) -> &[FlowKey] {
        &self.flow_key
    }
    /// The index of a flow key.
    pub fn index_of(&self, key: FlowKey) -> Option<usize> {
        self.key_index.get(&key).copied()
    }
    /// Flow names in index order.
    pub fn flow_names(&self) -> &[String] {
        &self.flow_name
    }
    /// Link names.
    pub fn link_names(&self) -> &[String] {
        &self.link_name
    }
    /// The index of a link name.
    pub fn link_by_name(&self, name: &str) -> Option<usize> {
        self.link_index.get(name).copied()
    }
    /// Per-flow rates last notified (b/s, NaN = never), for [`crate::normalize::Notifier`].
    pub fn notified_mut(&mut self) -> &mut [f64] {
        &mut self.notified_bps
    }

    /// `sum_s U_s(x_s)` for flow rates in b/s.
    pub fn objective(&self, flow_rate_bps: &[f64]) -> f64 {
        self.utility
            .iter()
            .zip(flow_rate_bps)
            .map(|(u, &x)| u.value(x))
            .sum()
    }

    /// Per-link load (b/s) of subflow rates given in b/s.
    pub fn link_load_bps(&self, sub_rate_bps: &[f64]) -> Vec<f64> {
        let mut load = vec![0.0; self.links()];
        for (s, &x) in sub_rate_bps.iter().enumerate() {
            for &l in self.sub_paths.row(s) {
                load[l as usize] += x;
            }
        }
        load
    }

    /// The largest amount (b/s) by which any link's load exceeds its capacity (as given, before
    /// the capacity factor); 0 when none does.
    pub fn max_overload_bps(&self, sub_rate_bps: &[f64]) -> f64 {
        self.link_load_bps(sub_rate_bps)
            .iter()
            .zip(&self.capacity_bps)
            .map(|(&x, &c)| x - c)
            .fold(0.0, f64::max)
    }
}

/// Links every path of a flow crosses (the links a flow's minimum must fit on).
fn must_cross(paths: &[Vec<usize>]) -> Vec<usize> {
    let mut out: Vec<usize> = paths[0].clone();
    for p in &paths[1..] {
        out.retain(|l| p.contains(l));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_links() -> Problem {
        let mut p = Problem::new(1e9);
        p.add_link("a", 10e9).unwrap();
        p.add_link("b", 10e9).unwrap();
        p
    }

    fn log() -> Utility {
        Utility::Log { weight: 1.0 }
    }

    #[test]
    fn add_remove_keeps_keys_and_paths() {
        let mut p = two_links();
        let k0 = p.add_flow(NumFlow::new("f0", vec![0, 1], log())).unwrap();
        let k1 = p.add_flow(NumFlow::new("f1", vec![1], log())).unwrap();
        let mut multi = NumFlow::new("f2", vec![0], log());
        multi.paths.push(vec![1]);
        let k2 = p.add_flow(multi).unwrap();
        p.remove_flow(k0).unwrap();
        p.prepare();
        assert_eq!(p.flows(), 2);
        assert_eq!(p.index_of(k1), Some(0));
        assert_eq!(p.index_of(k2), Some(1));
        assert_eq!(p.paths().row(0), &[1]);
        assert_eq!(p.subflows(1), 1..3);
        assert_eq!(p.by_link().row(1), &[0, 2]);
        assert!(!p.is_single_path());
        assert_eq!(
            p.remove_flow(k0),
            Err(ProblemError::UnknownFlow { key: k0.0 })
        );
    }

    #[test]
    fn error_no_path() {
        let mut p = two_links();
        let mut s = NumFlow::new("x", vec![0], log());
        s.paths.clear();
        assert_eq!(
            p.add_flow(s),
            Err(ProblemError::NoPath { flow: "x".into() })
        );
    }

    #[test]
    fn error_empty_path() {
        let mut p = two_links();
        let s = NumFlow::new("x", vec![], log());
        assert!(matches!(
            p.add_flow(s),
            Err(ProblemError::EmptyPath { path: 0, .. })
        ));
    }

    #[test]
    fn error_unknown_link() {
        let mut p = two_links();
        let s = NumFlow::new("x", vec![0, 7], log());
        assert!(
            matches!(p.add_flow(s), Err(ProblemError::UnknownLink { ref flow, .. }) if flow == "x")
        );
    }

    #[test]
    fn error_repeated_link() {
        let mut p = two_links();
        let s = NumFlow::new("x", vec![0, 1, 0], log());
        assert!(
            matches!(p.add_flow(s), Err(ProblemError::RepeatedLink { ref link, .. }) if link == "a")
        );
    }

    #[test]
    fn error_bad_capacity() {
        let mut p = two_links();
        assert!(
            matches!(p.add_link("c", 0.0), Err(ProblemError::BadCapacity { ref link, .. }) if link == "c")
        );
        assert!(matches!(
            p.set_capacity(0, -1.0),
            Err(ProblemError::BadCapacity { .. })
        ));
        assert!(matches!(
            p.set_capacity(9, 1.0),
            Err(ProblemError::UnknownLinkIndex { index: 9 })
        ));
    }

    #[test]
    fn error_duplicate_link() {
        let mut p = two_links();
        assert!(matches!(
            p.add_link("a", 1.0),
            Err(ProblemError::DuplicateLink { .. })
        ));
    }

    #[test]
    fn error_bad_weight() {
        let mut p = two_links();
        let s = NumFlow::new("x", vec![0], Utility::Log { weight: 0.0 });
        assert!(
            matches!(p.add_flow(s), Err(ProblemError::BadWeight { ref flow, .. }) if flow == "x")
        );
    }

    #[test]
    fn error_bad_utility() {
        let mut p = two_links();
        let s = NumFlow::new(
            "x",
            vec![0],
            Utility::Alpha {
                weight: 1.0,
                alpha: -1.0,
            },
        );
        assert!(
            matches!(p.add_flow(s), Err(ProblemError::BadUtility { ref parameter, .. }) if parameter == "alpha")
        );
    }

    #[test]
    fn error_bad_bound() {
        let mut p = two_links();
        let mut s = NumFlow::new("x", vec![0], log());
        s.min_bps = -1.0;
        assert!(matches!(
            p.add_flow(s),
            Err(ProblemError::BadBound {
                what: "min_bps",
                ..
            })
        ));
    }

    #[test]
    fn error_min_above_max() {
        let mut p = two_links();
        let mut s = NumFlow::new("x", vec![0], log());
        s.min_bps = 5e9;
        s.max_bps = 4e9;
        assert!(matches!(
            p.add_flow(s),
            Err(ProblemError::MinAboveMax { .. })
        ));
    }

    #[test]
    fn error_infeasible_minimum() {
        let mut p = two_links();
        let mut s = NumFlow::new("x", vec![0, 1], log());
        s.min_bps = 6e9;
        p.add_flow(s.clone()).unwrap();
        s.name = "y".into();
        s.paths = vec![vec![1]];
        let e = p.add_flow(s).unwrap_err();
        assert!(
            matches!(e, ProblemError::InfeasibleMinimum { ref link, ref flow, .. } if link == "b" && flow == "y"),
            "{e}"
        );
        // Shrinking a link under its minima is refused too.
        assert!(matches!(
            p.set_capacity(0, 5e9),
            Err(ProblemError::InfeasibleMinimum { .. })
        ));
    }

    /// The gain puts marginals at equal shares on the order of 1, and the same problem in b/s
    /// and in Gb/s (alpha weights times s^(alpha - 1)) has the same scaled utilities, even
    /// at alpha = 100 where `U'` in b/s underflows f64.
    #[test]
    fn autoscale_is_unit_free() {
        let scaled = |s: f64, alpha: f64| {
            let mut p = Problem::new(1e10 * s);
            p.add_link("l", 1e10 * s).unwrap();
            for (i, w) in [1.0, 4.0].into_iter().enumerate() {
                let weight = w * s.powf(alpha - 1.0);
                let u = Utility::Alpha { weight, alpha };
                p.add_flow(NumFlow::new(format!("f{i}"), vec![0], u))
                    .unwrap();
            }
            p.autoscale();
            let u = p.scaled_utilities();
            [
                u[0].marginal(0.5),
                u[1].marginal(0.5),
                u[0].rate_at_price(1.0),
            ]
        };
        for alpha in [2.0, 5.0, 100.0] {
            let bps = scaled(1.0, alpha);
            // Geometric mean of the two marginals at the equal share 0.5 is 1.
            assert!(
                (bps[0] * bps[1] - 1.0).abs() < 1e-9,
                "alpha {alpha}: {bps:?}"
            );
            assert!(bps.iter().all(|v| v.is_finite() && *v > 0.0), "{bps:?}");
            if alpha < 10.0 {
                // (At alpha = 100 the Gb/s weights, 1e-9^99, do not fit f64.)
                let gbps = scaled(1e-9, alpha);
                for (a, b) in bps.iter().zip(&gbps) {
                    assert!(
                        (a - b).abs() <= 1e-9 * a.abs(),
                        "alpha {alpha}: {bps:?} {gbps:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn line_rate_caps() {
        let mut p = two_links();
        p.set_capacity(1, 4e9).unwrap();
        let mut multi = NumFlow::new("m", vec![0], log());
        multi.paths.push(vec![1]);
        p.add_flow(multi).unwrap();
        p.add_flow(NumFlow::new("s", vec![0, 1], log())).unwrap();
        p.prepare();
        assert_eq!(p.max_scaled(), &[14.0, 4.0]);
    }
}
