//! End-to-end checks of the SVG and HTML renderers.

use dctc_report::{
    nice_ticks, write_svg_files, Cell, Chart, ChartKind, Report, Section, Series, Table,
};

/// Parses `svg` as XML and returns the document's element count; panics with the parse
/// error and the text when it is not well-formed.
fn parse_svg(svg: &str) -> usize {
    let doc = roxmltree::Document::parse(svg)
        .unwrap_or_else(|e| panic!("SVG is not well-formed XML: {e}\n{svg}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(
        root.tag_name().namespace(),
        Some("http://www.w3.org/2000/svg")
    );
    doc.descendants().filter(|n| n.is_element()).count()
}

/// No non-finite number may leak into any attribute.
fn assert_numbers_clean(svg: &str) {
    let doc = roxmltree::Document::parse(svg).expect("well-formed");
    for node in doc.descendants().filter(|n| n.is_element()) {
        for a in node.attributes() {
            let v = a.value();
            if matches!(
                a.name(),
                "d" | "x" | "y" | "cx" | "cy" | "width" | "height" | "r"
            ) {
                assert!(
                    !v.contains("NaN") && !v.contains("inf"),
                    "non-finite number in {}={v:?}",
                    a.name()
                );
            }
        }
    }
}

fn series_elements(svg: &str, element: &str) -> usize {
    let doc = roxmltree::Document::parse(svg).expect("well-formed");
    doc.descendants()
        .filter(|n| n.has_tag_name(element))
        .filter(|n| {
            n.ancestors()
                .any(|a| a.attribute("class") == Some("series"))
        })
        .count()
}

fn cdf() -> Vec<(f64, f64)> {
    vec![(0.0, 0.0), (1e3, 0.2), (1e4, 0.5), (1e5, 0.9), (1e6, 1.0)]
}

fn all_kinds() -> Vec<Chart> {
    let line = Chart::line("p99 slowdown vs load", "load", "slowdown")
        .with_series(Series::new(
            "dctcp",
            vec![(0.2, 1.5), (0.5, 3.0), (0.8, 9.5)],
        ))
        .with_series(Series::new(
            "pfabric",
            vec![(0.2, 1.1), (0.5, 1.6), (0.8, 2.9)],
        ));
    let step = Chart::step("flow size CDF", "bytes", "fraction")
        .with_log(true, false)
        .with_series(Series::new("web search", cdf()));
    let bars = Chart::bars(
        "slowdown by size",
        "size",
        "p99",
        ["<100KB", "100KB-10MB", ">10MB"],
    )
    .with_series(Series::from_values("dctcp", &[4.0, 2.5, 1.2]))
    .with_series(Series::from_values("pfabric", &[1.3, 2.0, 1.5]));
    vec![line, step, bars]
}

#[test]
fn svg_is_well_formed_for_every_kind() {
    for chart in all_kinds() {
        let svg = chart.to_svg();
        assert!(
            parse_svg(&svg) > 20,
            "suspiciously small SVG for {}",
            chart.title
        );
        assert_numbers_clean(&svg);
        assert!(svg.contains(&chart.title));
    }
}

#[test]
fn line_chart_draws_one_path_and_markers_per_series() {
    let svg = all_kinds()[0].to_svg();
    assert_eq!(series_elements(&svg, "path"), 2);
    assert_eq!(series_elements(&svg, "circle"), 6);
    // Distinct colors for the two series.
    assert!(svg.contains("#0072B2") && svg.contains("#D55E00"));
}

fn series_path_data(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).expect("well-formed");
    doc.descendants()
        .filter(|n| n.has_tag_name("path"))
        .filter(|n| {
            n.ancestors()
                .any(|a| a.attribute("class") == Some("series"))
        })
        .filter_map(|n| n.attribute("d").map(str::to_string))
        .collect()
}

#[test]
fn step_is_a_staircase_sorted_by_x_and_line_keeps_order() {
    let mut c = Chart::step("cdf", "x", "y");
    // Unsorted input: the staircase is drawn in x order.
    c.push_series(Series::new("s", vec![(3.0, 1.0), (1.0, 0.25), (2.0, 0.5)]));
    let d = series_path_data(&c.to_svg());
    assert_eq!(d.len(), 1);
    let [h, v, l] = ["H", "V", "L"].map(|k| d[0].matches(k).count());
    assert_eq!((h, v, l), (2, 2, 0), "{}", d[0]);
    let xs: Vec<f64> = d[0]
        .split(['M', 'H', 'V', ' '])
        .filter(|t| !t.is_empty())
        .map(|t| t.parse().unwrap())
        .collect();
    // M x0 y0 H x1 V y1 H x2 V y2: x at indices 0, 2, 4 increase; y (px) decreases.
    assert!(xs[0] < xs[2] && xs[2] < xs[4], "{xs:?}");
    assert!(xs[1] > xs[3] && xs[3] > xs[5], "{xs:?}");

    let mut l = Chart::line("l", "x", "y");
    l.push_series(Series::new("s", vec![(3.0, 1.0), (1.0, 0.25), (2.0, 0.5)]));
    let d = series_path_data(&l.to_svg());
    assert_eq!(d[0].matches('L').count(), 2, "{}", d[0]);
}

#[test]
fn bars_draw_one_rect_per_series_per_category() {
    let svg = all_kinds()[2].to_svg();
    assert_eq!(series_elements(&svg, "rect"), 6);
    for cat in ["&lt;100KB", "100KB-10MB", "&gt;10MB"] {
        assert!(svg.contains(cat), "missing category {cat}");
    }
}

#[test]
fn log_axes_skip_zero_and_negative_values() {
    // The CDF starts at x = 0, which a log x axis cannot show; y = 0 likewise on log y.
    for kind in [
        ChartKind::Line,
        ChartKind::Step,
        ChartKind::Bars {
            categories: vec!["a".into(), "b".into()],
        },
    ] {
        let mut c = Chart::new(kind.clone(), "log", "x", "y").with_log(true, true);
        c.push_series(Series::new(
            "s",
            vec![(0.0, 0.0), (1.0, 5.0), (-3.0, 2.0), (10.0, 50.0)],
        ));
        c.push_series(Series::new("empty", vec![]));
        let svg = c.to_svg();
        parse_svg(&svg);
        assert_numbers_clean(&svg);
        let expected = match kind {
            // (1,5) and (10,50) are drawable; bars: index 1 -> 5 is in range, 10 is not,
            // index 0 has y = 0 (skipped), -3 out of range.
            ChartKind::Bars { .. } => ("rect", 1),
            ChartKind::Line => ("circle", 2),
            ChartKind::Step => ("path", 1),
        };
        assert_eq!(series_elements(&svg, expected.0), expected.1, "{kind:?}");
        // Decade labels present on the y axis.
        assert!(
            svg.contains(">10</text>"),
            "{kind:?}: no decade label\n{svg}"
        );
    }
}

#[test]
fn degenerate_inputs_render_without_nan() {
    let cases = vec![
        Chart::line("no series", "x", "y"),
        Chart::line("empty series", "x", "y").with_series(Series::new("a", vec![])),
        Chart::line("one point", "x", "y").with_series(Series::new("a", vec![(3.0, 4.0)])),
        Chart::step("all equal", "x", "y")
            .with_series(Series::new("a", vec![(2.0, 7.0), (2.0, 7.0), (2.0, 7.0)])),
        Chart::line("zeros", "x", "y").with_series(Series::new("a", vec![(0.0, 0.0), (0.0, 0.0)])),
        Chart::line("non-finite", "x", "y").with_series(Series::new(
            "a",
            vec![(f64::NAN, 1.0), (1.0, f64::INFINITY), (2.0, 3.0)],
        )),
        Chart::line("only log-invalid", "x", "y")
            .with_log(true, true)
            .with_series(Series::new("a", vec![(0.0, 0.0), (-1.0, 5.0)])),
        Chart::bars("no categories", "x", "y", Vec::<String>::new())
            .with_series(Series::from_values("a", &[1.0, 2.0])),
        Chart::bars("empty bars", "x", "y", Vec::<String>::new()),
        Chart::bars("equal bars", "x", "y", ["a", "b"])
            .with_series(Series::from_values("a", &[0.0, 0.0])),
    ];
    for c in cases {
        let svg = c.to_svg();
        parse_svg(&svg);
        assert_numbers_clean(&svg);
        assert!(!svg.contains("NaN"), "{}: NaN in output", c.title);
    }
    let empty = Chart::line("no series", "x", "y").to_svg();
    assert!(empty.contains("no data"));
    let one = Chart::line("one point", "x", "y")
        .with_series(Series::new("a", vec![(3.0, 4.0)]))
        .to_svg();
    assert_eq!(series_elements(&one, "circle"), 1);
}

#[test]
fn nice_ticks_public_api() {
    assert_eq!(
        nice_ticks(0.0, 97.0, 5),
        vec![0.0, 20.0, 40.0, 60.0, 80.0, 100.0]
    );
    // The axis of a chart over 0..97 uses the same nice ticks.
    let svg = Chart::line("t", "x", "y")
        .with_series(Series::new("a", vec![(0.0, 0.0), (97.0, 97.0)]))
        .to_svg();
    for label in ["0", "20", "40", "60", "80", "100"] {
        assert!(
            svg.contains(&format!(">{label}</text>")),
            "missing tick {label}"
        );
    }
    assert!(!svg.contains(">120</text>"));
}

fn sample_report() -> Report {
    let mut t = Table::new("summary <b>", ["scheme", "p99"]);
    t.push_row(vec![Cell::from("dctcp"), Cell::from(12.345678)]);
    t.push_row(vec![
        Cell::from("<script>alert(1)</script>"),
        Cell::from(f64::NAN),
    ]);
    let [line, step, bars] = <[Chart; 3]>::try_from(all_kinds()).unwrap();
    Report::new("Run <script>alert('x')</script>", "seed 1 & leaf-spine")
        .with_section(
            Section::new("Overview")
                .with_paragraph("Paragraph with <script>evil()</script> & ampersand.")
                .with_table(t)
                .with_chart(line),
        )
        .with_section(
            Section::new("Distributions")
                .with_chart(step)
                .with_chart(bars),
        )
        .with_section(Section::new("Overview"))
}

#[test]
fn html_escapes_script_tags() {
    let html = sample_report().to_html();
    assert!(!html.contains("<script"), "unescaped script tag:\n{html}");
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(html.contains("Paragraph with &lt;script&gt;evil()&lt;/script&gt; &amp; ampersand."));
    assert!(html.contains("seed 1 &amp; leaf-spine"));
    // Titles in SVG are escaped too.
    let svg = Chart::line("<script>x</script>", "<a>", "b&c").to_svg();
    assert!(!svg.contains("<script") && !svg.contains("<a>"));
    parse_svg(&svg);
}

#[test]
fn html_has_every_heading_chart_and_table() {
    let r = sample_report();
    let html = r.to_html();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("<style>"));
    for s in &r.sections {
        assert!(
            html.contains(&format!(">{}</h2>", s.heading)),
            "missing {}",
            s.heading
        );
    }
    // Duplicate headings get distinct anchors, all linked from the contents.
    for id in ["overview", "distributions", "overview-2"] {
        assert!(html.contains(&format!("id=\"{id}\"")), "no section id {id}");
        assert!(
            html.contains(&format!("href=\"#{id}\"")),
            "no toc link {id}"
        );
    }
    assert_eq!(html.matches("<svg ").count(), 3);
    for c in r.charts() {
        assert!(html.contains(&format!("<title>{}</title>", c.title)));
    }
    assert!(html.contains("<td class=\"num\" title=\"12.345678\">12.35</td>"));
    assert!(html.contains("<td class=\"num\" title=\"NaN\">-</td>"));
    // Offline: nothing fetched from anywhere.
    for bad in ["http://", "https://", "<link", "src="] {
        let hits = html.matches(bad).count();
        let allowed = if bad == "http://" { 3 } else { 0 }; // SVG xmlns only
        assert_eq!(hits, allowed, "{bad} appears {hits} times");
    }
}

#[test]
fn output_is_deterministic() {
    let a = sample_report();
    let b = sample_report();
    assert_eq!(a.to_html().as_bytes(), b.to_html().as_bytes());
    for c in all_kinds() {
        assert_eq!(c.to_svg(), c.clone().to_svg());
    }
    assert_eq!(write_svg_files(&a), write_svg_files(&b));
}

#[test]
fn svg_file_names_are_unique_slugs() {
    let mut r = Report::new("r", "");
    let c = Chart::line("FCT slowdown (p99)", "x", "y");
    r.push_section(
        Section::new("a")
            .with_chart(c.clone())
            .with_chart(c.clone())
            .with_chart(Chart::line("", "x", "y"))
            .with_chart(Chart::line("fct slowdown p99 2", "x", "y")),
    );
    let names: Vec<String> = write_svg_files(&r).into_iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        vec![
            "fct-slowdown-p99.svg",
            "fct-slowdown-p99-2.svg",
            "chart.svg",
            "fct-slowdown-p99-2-2.svg"
        ]
    );
}

#[test]
fn serializes_to_json() {
    let r = sample_report();
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["sections"][0]["heading"], "Overview");
    assert_eq!(
        v["sections"][0]["tables"][0]["rows"][0][1]["Num"],
        12.345678
    );
}

#[test]
fn long_series_are_thinned_but_keep_their_extremes() {
    // 200k points of a sawtooth between 0 and 100: far more points than pixels.
    let pts: Vec<(f64, f64)> = (0..200_000)
        .map(|i| (i as f64, if i % 2 == 0 { 0.0 } else { 100.0 }))
        .collect();
    let mut c = Chart::line("big", "x", "y");
    c.push_series(Series::new("saw", pts));
    let svg = c.to_svg();
    parse_svg(&svg);
    assert!(svg.len() < 200_000, "SVG not thinned: {} bytes", svg.len());
    let d = &series_path_data(&svg)[0];
    let ys: Vec<f64> = d
        .split(['M', 'L'])
        .filter(|t| !t.is_empty())
        .map(|t| t.split(' ').nth(1).unwrap().parse().unwrap())
        .collect();
    // Both the top and the bottom of the band are still drawn.
    let (lo, hi) = ys
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &y| (a.min(y), b.max(y)));
    assert!(hi - lo > 200.0, "extremes lost: {lo}..{hi}");
    // A short series is drawn point for point.
    let mut small = Chart::line("small", "x", "y");
    small.push_series(Series::new(
        "s",
        (0..100).map(|i| (i as f64, (i % 7) as f64)).collect(),
    ));
    let d = &series_path_data(&small.to_svg())[0];
    assert_eq!(d.matches('L').count(), 99);
}

#[test]
fn without_column_drops_the_header_and_every_cell_of_it() {
    let mut t = Table::new("t", ["a", "wall s", "b"]);
    t.push_row(vec![Cell::from("x"), Cell::from(1.5), Cell::from(2.0)]);
    let u = t.without_column("wall s");
    assert_eq!(u.columns, vec!["a".to_string(), "b".to_string()]);
    assert_eq!(u.rows[0], vec![Cell::from("x"), Cell::from(2.0)]);
    assert_eq!(t.without_column("nope"), t);
}

#[test]
fn reference_lines_are_drawn_inside_the_axis_range() {
    // The reference value lies above every data point: the axis must grow to show it.
    let c = Chart::line("p99 vs load", "load", "slowdown")
        .with_series(Series::new("ours", vec![(0.2, 1.0), (0.8, 3.0)]))
        .with_ref("paper: 9.5", 9.5);
    let svg = c.to_svg();
    parse_svg(&svg);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let g = doc
        .descendants()
        .find(|n| n.attribute("class") == Some("ref"))
        .expect("a ref group");
    let path = g.children().find(|n| n.has_tag_name("path")).unwrap();
    let d = path.attribute("d").unwrap();
    let y: f64 = d.split(['M', ' ', 'H']).nth(2).unwrap().parse().unwrap();
    // Inside the plot: below the title band, above the x axis.
    assert!(y > 44.0 && y < 400.0, "{d}");
    assert!(g.descendants().any(|n| n.text() == Some("paper: 9.5")));
}

#[test]
fn report_meta_line_is_shown_in_html_and_text() {
    let mut r = Report::new("T", "sub");
    r.meta = "seed 7 · dctc 0.1.0 (commit abc1234)".into();
    let html = r.to_html();
    assert!(html.contains("<p class=\"meta\">seed 7 · dctc 0.1.0 (commit abc1234)</p>"));
    assert!(r.to_text().lines().nth(2) == Some("seed 7 · dctc 0.1.0 (commit abc1234)"));
}
