//! Writes an example report to `/tmp/report-example.html` (or the path given as the first
//! argument) and its charts as SVG files beside it, to look at the renderer's output.

use dctc_report::{write_svg_files, Cell, Chart, Report, Section, Series, Table};

fn main() -> std::io::Result<()> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "/tmp/report-example.html".to_string());
    let report = example();
    std::fs::write(&path, report.to_html())?;
    let dir = std::path::Path::new(&path)
        .parent()
        .unwrap_or(std::path::Path::new("."))
        .join("report-example-svg");
    std::fs::create_dir_all(&dir)?;
    for (name, svg) in write_svg_files(&report) {
        std::fs::write(dir.join(name), svg)?;
    }
    print!("{}", report.to_text());
    Ok(())
}

fn example() -> Report {
    let schemes = [
        "DCTCP",
        "pFabric",
        "PIAS",
        "a scheme with a rather long name",
    ];
    let loads = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
    let mut table = Table::new(
        "FCT slowdown at 60% load",
        ["scheme", "flows", "mean", "p50", "p99", "small p99", "note"],
    );
    let mut line = Chart::line("FCT slowdown p99 vs load", "load", "p99 slowdown");
    let mut bars = Chart::bars(
        "p99 slowdown by flow size",
        "flow size",
        "p99 slowdown",
        ["(0, 100KB]", "(100KB, 10MB]", "(10MB, inf)"],
    );
    for (i, s) in schemes.iter().enumerate() {
        let k = 1.0 + i as f64 * 0.7;
        let pts: Vec<(f64, f64)> = loads
            .iter()
            .map(|&l| (l, 1.0 + k * l * l / (1.0 - l * 0.9)))
            .collect();
        table.push_row(vec![
            Cell::from(*s),
            Cell::from(100_000usize + i * 1234),
            Cell::from(1.0 + k * 0.4),
            Cell::from(1.0 + k * 0.1234),
            Cell::from(pts[5].1),
            Cell::from(0.0001234 * k),
            Cell::from(if i == 1 { "priorities, \"ideal\"" } else { "" }),
        ]);
        line.push_series(Series::new(*s, pts));
        bars.push_series(Series::from_values(*s, &[3.0 * k, 2.0 + k, 1.1 + 0.1 * k]));
    }
    let cdf_pts = |scale: f64| -> Vec<(f64, f64)> {
        (0..=40)
            .map(|i| {
                let x = 10f64.powf(1.5 + i as f64 * 0.12) * scale;
                (x, 1.0 - (-x / (2e4 * scale)).exp())
            })
            .chain(std::iter::once((0.0, 0.0)))
            .collect()
    };
    let cdf = Chart::step("flow size CDF", "flow size (bytes)", "CDF")
        .with_log(true, false)
        .with_series(Series::new("web search", cdf_pts(1.0)))
        .with_series(Series::new("data mining", cdf_pts(30.0)));
    let loglog = Chart::line("queue length tail", "queue (packets)", "P(Q > q)")
        .with_log(true, true)
        .with_series(Series::new(
            "DCTCP",
            (0..200)
                .map(|i| (i as f64 + 1.0, (-(i as f64) / 20.0).exp()))
                .collect(),
        ))
        .with_series(Series::new("empty", vec![]));
    let many = Chart::bars(
        "throughput per host",
        "host",
        "Gb/s",
        (0..24).map(|i| format!("host-{i:02}-rack-{}", i / 8)),
    )
    .with_series(Series::from_values(
        "TCP",
        &(0..24)
            .map(|i| 9.0 + (i % 5) as f64 * 0.2)
            .collect::<Vec<_>>(),
    ));
    let flat = Chart::line("all equal", "time (ms)", "rate (b/s)").with_series(Series::new(
        "a",
        vec![(0.0, 4e10), (1.0, 4e10), (2.0, 4e10)],
    ));
    let mut twelve = Chart::line(
        "twelve series with a long title that goes on and on to test truncation of titles in charts",
        "time (s)",
        "goodput (b/s)",
    );
    for i in 0..12 {
        twelve.push_series(Series::new(
            format!("flow {i}"),
            (0..30)
                .map(|t| {
                    (
                        t as f64 * 1e-6,
                        1e9 * (1.0 + i as f64 + (t as f64 * 0.3).sin()),
                    )
                })
                .collect(),
        ));
    }
    let neg = Chart::bars("change vs baseline", "scheme", "delta (%)", ["A", "B", "C"])
        .with_series(Series::from_values("p50", &[-12.0, 3.5, 0.0]))
        .with_series(Series::from_values("p99", &[-30.0, 18.0, -2.0]));
    let hosts = Chart::bars(
        "per-host load (144 hosts)",
        "host",
        "load",
        (0..144).map(|i| format!("h{i}")),
    )
    .with_series(Series::from_values(
        "load",
        &(0..144).map(|i| 0.5 + 0.003 * i as f64).collect::<Vec<_>>(),
    ));
    let narrow = Chart::line("sub-decade log axis", "x", "y")
        .with_log(true, true)
        .with_series(Series::new(
            "s",
            vec![(20.0, 30.0), (40.0, 45.0), (80.0, 70.0)],
        ));
    Report::new(
        "Example report <demo>",
        "leaf-spine 144 hosts, seed 1, web search workload",
    )
    .with_section(
        Section::new("Flow completion times")
            .with_paragraph("Slowdown is FCT divided by the ideal FCT on an empty network.")
            .with_paragraph("Escaped: <script>alert(1)</script> & friends.")
            .with_table(table)
            .with_chart(line)
            .with_chart(bars),
    )
    .with_section(
        Section::new("Workloads and queues")
            .with_chart(cdf)
            .with_chart(loglog)
            .with_chart(many)
            .with_chart(flat),
    )
    .with_section(
        Section::new("Edge cases")
            .with_chart(twelve)
            .with_chart(neg)
            .with_chart(hosts)
            .with_chart(narrow),
    )
}
