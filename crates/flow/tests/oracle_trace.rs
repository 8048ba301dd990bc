//! Oracle tests of coflow-trace parsing (coflow-benchmark format: `<ports> <coflows>`, then
//! `<id> <arrival ms> <m> <mapper>*m <r> <reducer>:<MB>*r` per line): a malformed line is an
//! error naming the file, the line number and the reason, never a panic.

use dctc_flow::workload::{load_trace, parse_trace};
use std::path::PathBuf;

/// Writes `text` to a fresh file under the system temp dir and returns its path.
fn temp_trace(tag: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dctc-oracle-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(format!("{tag}.txt"));
    std::fs::write(&p, text).unwrap();
    p
}

/// `(case, text, line of the fault, a word the reason must contain)`.
const CASES: &[(&str, &str, usize, &str)] = &[
    // A shuffle size that is not a number, on the third line.
    (
        "size-nan",
        "10 2\n1 0 1 2 1 3:1.5\n2 5 1 4 1 6:abc\n",
        3,
        "abc",
    ),
    // A negative arrival time.
    ("neg-arrival", "10 1\n7 -5 1 2 1 3:1.0\n", 2, "-5"),
    // A reducer port beyond the header's port count.
    ("port-range", "10 1\n1 0 1 2 1 10:1.0\n", 2, "10"),
    // A mapper port beyond the header's port count.
    ("mapper-range", "10 1\n1 0 2 2 12 1 3:1.0\n", 2, "12"),
    // The line stops before its reducers.
    ("truncated", "10 1\n1 0 2 2 3 2 4:1.0\n", 2, "reducer"),
    // A reducer without its size.
    ("no-size", "10 1\n1 0 1 2 1 3\n", 2, "3"),
    // A non-numeric coflow id after a good line and a blank line (lines count physically).
    (
        "bad-id",
        "10 2\n1 0 1 2 1 3:1.0\n\nx9 0 1 2 1 3:1.0\n",
        4,
        "x9",
    ),
    // Windows line ends: still line 3.
    (
        "crlf",
        "10 2\r\n1 0 1 2 1 3:1.0\r\n2 0 one 2 1 3:1.0\r\n",
        3,
        "one",
    ),
    // A header that is not two whole numbers.
    ("header", "ten 1\n1 0 1 2 1 3:1.0\n", 1, "ten"),
];

#[test]
fn malformed_lines_name_file_line_and_reason() {
    for &(tag, text, line, word) in CASES {
        // From a file: the message starts with the path and the line.
        let path = temp_trace(tag, text);
        let e = load_trace(&path)
            .expect_err(&format!("{tag}: parsed a malformed trace"))
            .to_string();
        let prefix = format!("{}:{line}:", path.display());
        assert!(
            e.starts_with(&prefix),
            "{tag}: `{e}` should start `{prefix}`"
        );
        let reason = e[prefix.len()..].trim();
        assert!(reason.len() >= 8, "{tag}: no reason in `{e}`");
        assert!(
            reason.contains(word),
            "{tag}: reason `{reason}` lacks `{word}`"
        );
        // From text with a display name: the same.
        let e = parse_trace("fb.txt", text).unwrap_err().to_string();
        assert!(e.starts_with(&format!("fb.txt:{line}:")), "{tag}: `{e}`");
        let _ = std::fs::remove_file(&path);
    }
}

#[test]
fn well_formed_lines_parse_to_what_they_say() {
    let t = parse_trace(
        "ok.txt",
        "10 2\n1 0 2 2 3 1 4:1.5\n\n2 12.5 1 5 2 6:0.25 7:3\n",
    )
    .unwrap();
    assert_eq!(t.ports, 10);
    assert_eq!(t.coflows.len(), 2);
    assert_eq!(t.coflows[0].mappers, vec![2, 3]);
    assert_eq!(t.coflows[0].reducers, vec![(4, 1.5)]);
    assert_eq!(t.coflows[1].arrival_ms, 12.5);
    assert_eq!(t.coflows[1].reducers, vec![(6, 0.25), (7, 3.0)]);
}

#[test]
fn a_missing_file_is_named() {
    let p = std::env::temp_dir().join("dctc-oracle-no-such-trace.txt");
    let e = load_trace(&p).unwrap_err().to_string();
    assert!(e.contains(&p.display().to_string()), "{e}");
}
