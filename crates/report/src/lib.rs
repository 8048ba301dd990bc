//! Rendering of simulation results: aligned console tables, CSV, SVG charts and one
//! self-contained HTML report that opens offline (inline `<style>` and inline SVG, no
//! scripts, nothing fetched from the network).
//!
//! The data model is plain structs so call sites can build them with literals or with the
//! small builders below:
//!
//! ```
//! use dctc_report::{Cell, Chart, Report, Section, Series, Table};
//!
//! let mut t = Table::new("FCT slowdown", ["scheme", "p50", "p99"]);
//! t.push_row(vec![Cell::from("dctcp"), 1.5.into(), 12.25.into()]);
//! let chart = Chart::line("p99 slowdown vs load", "load", "slowdown")
//!     .with_series(Series::new("dctcp", vec![(0.2, 2.0), (0.5, 4.0), (0.8, 12.0)]));
//! let report = Report::new("Demo", "leaf-spine, 3 schemes").with_section(
//!     Section::new("Results").with_table(t).with_chart(chart),
//! );
//! assert!(report.to_html().contains("FCT slowdown"));
//! ```
//!
//! All output is deterministic: the same input gives the same bytes.

#![forbid(unsafe_code)]

mod chart;
mod format;
mod html;
mod table;
mod ticks;

pub use chart::PALETTE;
pub use format::{escape_xml, format_num};
pub use html::{slugify, write_svg_files};
pub use ticks::{log_ticks, nice_ticks};

use serde::{Deserialize, Serialize};

/// A whole report: a title, a subtitle and a list of sections.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Main title (the HTML `<title>` and `<h1>`).
    pub title: String,
    /// One line under the title (scenario, seed, fabric...); may be empty.
    pub subtitle: String,
    /// Provenance shown under the subtitle (seed, tool version); may be empty.
    #[serde(default)]
    pub meta: String,
    /// Sections in display order.
    pub sections: Vec<Section>,
}

/// One section of a report: heading, then paragraphs, then tables, then charts.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Section {
    /// Section heading (listed in the table of contents).
    pub heading: String,
    /// Plain-text paragraphs (escaped on output, not interpreted as HTML).
    pub paragraphs: Vec<String>,
    /// Tables in display order.
    pub tables: Vec<Table>,
    /// Charts in display order.
    pub charts: Vec<Chart>,
}

/// A table of cells with a caption and column headers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Table {
    /// Caption shown above the table (may be empty).
    pub caption: String,
    /// Column headers.
    pub columns: Vec<String>,
    /// Rows; a row shorter than `columns` is padded with empty cells, a longer one is
    /// shown in full (extra columns get empty headers).
    pub rows: Vec<Vec<Cell>>,
}

/// One table cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Cell {
    /// Text, shown as is (left-aligned).
    Text(String),
    /// A number: ~4 significant digits on the console and in HTML, full precision in CSV,
    /// right-aligned.
    Num(f64),
}

/// A chart with axes, a legend and one or more series.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Chart {
    /// Title drawn above the plot.
    pub title: String,
    /// Label of the x axis.
    pub x_label: String,
    /// Label of the y axis.
    pub y_label: String,
    /// Logarithmic x axis (points with x <= 0 are skipped). Ignored for [`ChartKind::Bars`].
    pub x_log: bool,
    /// Logarithmic y axis (points with y <= 0 are skipped).
    pub y_log: bool,
    /// How the series are drawn.
    pub kind: ChartKind,
    /// The data; each series gets its own color from a fixed colorblind-safe palette.
    pub series: Vec<Series>,
    /// Horizontal reference lines drawn across the plot (e.g. a paper's published value).
    #[serde(default)]
    pub refs: Vec<RefLine>,
}

/// A labelled horizontal line at a y value, drawn dashed across the plot area.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RefLine {
    /// Text drawn at the line's right end (e.g. "paper: 2.1").
    pub label: String,
    /// The y value, in the chart's data units.
    pub y: f64,
}

/// How a chart draws its series.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ChartKind {
    /// A polyline per series, with point markers when there are few points.
    Line,
    /// A step function per series (y holds until the next x), e.g. a CDF.
    Step,
    /// Grouped bars: `categories` along x; a series point `(i, y)` is the bar of that
    /// series in category `i` (rounded to the nearest index; out-of-range ones are skipped).
    Bars {
        /// Category names along the x axis.
        categories: Vec<String>,
    },
}

/// A named list of `(x, y)` points.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// Name shown in the legend.
    pub name: String,
    /// Points in drawing order (not sorted by the renderer, except for `Step`).
    pub points: Vec<(f64, f64)>,
}

impl Report {
    /// A report with no sections yet.
    pub fn new(title: impl Into<String>, subtitle: impl Into<String>) -> Self {
        Report {
            title: title.into(),
            subtitle: subtitle.into(),
            meta: String::new(),
            sections: Vec::new(),
        }
    }

    /// Appends a section (builder style).
    pub fn with_section(mut self, section: Section) -> Self {
        self.sections.push(section);
        self
    }

    /// Appends a section.
    pub fn push_section(&mut self, section: Section) {
        self.sections.push(section);
    }

    /// All charts of the report in display order.
    pub fn charts(&self) -> impl Iterator<Item = &Chart> {
        self.sections.iter().flat_map(|s| s.charts.iter())
    }
}

impl Section {
    /// An empty section with a heading.
    pub fn new(heading: impl Into<String>) -> Self {
        Section {
            heading: heading.into(),
            ..Section::default()
        }
    }

    /// Appends a paragraph (builder style).
    pub fn with_paragraph(mut self, text: impl Into<String>) -> Self {
        self.paragraphs.push(text.into());
        self
    }

    /// Appends a table (builder style).
    pub fn with_table(mut self, table: Table) -> Self {
        self.tables.push(table);
        self
    }

    /// Appends a chart (builder style).
    pub fn with_chart(mut self, chart: Chart) -> Self {
        self.charts.push(chart);
        self
    }

    /// Appends a paragraph.
    pub fn push_paragraph(&mut self, text: impl Into<String>) {
        self.paragraphs.push(text.into());
    }

    /// Appends a table.
    pub fn push_table(&mut self, table: Table) {
        self.tables.push(table);
    }

    /// Appends a chart.
    pub fn push_chart(&mut self, chart: Chart) {
        self.charts.push(chart);
    }
}

impl Table {
    /// The table without the column headed `name` (unchanged if there is none).
    pub fn without_column(&self, name: &str) -> Table {
        let Some(i) = self.columns.iter().position(|c| c == name) else {
            return self.clone();
        };
        let mut t = self.clone();
        t.columns.remove(i);
        for row in &mut t.rows {
            if i < row.len() {
                row.remove(i);
            }
        }
        t
    }

    /// An empty table with a caption and column headers.
    pub fn new<I, S>(caption: impl Into<String>, columns: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Table {
            caption: caption.into(),
            columns: columns.into_iter().map(Into::into).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends a row.
    pub fn push_row(&mut self, row: Vec<Cell>) {
        self.rows.push(row);
    }

    /// Appends a row (builder style).
    pub fn with_row(mut self, row: Vec<Cell>) -> Self {
        self.rows.push(row);
        self
    }

    /// Number of columns shown: the larger of the header count and the longest row.
    pub fn width(&self) -> usize {
        self.rows
            .iter()
            .map(Vec::len)
            .max()
            .unwrap_or(0)
            .max(self.columns.len())
    }
}

impl Cell {
    /// The number, if this is a numeric cell.
    pub fn as_num(&self) -> Option<f64> {
        match self {
            Cell::Num(v) => Some(*v),
            Cell::Text(_) => None,
        }
    }

    /// Display form for the console and HTML (numbers via [`format_num`]).
    pub fn display(&self) -> String {
        match self {
            Cell::Text(s) => s.clone(),
            Cell::Num(v) => format_num(*v),
        }
    }

    /// Full-precision form for CSV (numbers as Rust's shortest round-trip `{}`).
    pub fn raw(&self) -> String {
        match self {
            Cell::Text(s) => s.clone(),
            Cell::Num(v) => format!("{v}"),
        }
    }
}

impl Default for Cell {
    fn default() -> Self {
        Cell::Text(String::new())
    }
}

impl From<f64> for Cell {
    fn from(v: f64) -> Self {
        Cell::Num(v)
    }
}

impl From<f32> for Cell {
    fn from(v: f32) -> Self {
        Cell::Num(f64::from(v))
    }
}

impl From<u64> for Cell {
    fn from(v: u64) -> Self {
        Cell::Num(v as f64)
    }
}

impl From<u32> for Cell {
    fn from(v: u32) -> Self {
        Cell::Num(f64::from(v))
    }
}

impl From<i64> for Cell {
    fn from(v: i64) -> Self {
        Cell::Num(v as f64)
    }
}

impl From<i32> for Cell {
    fn from(v: i32) -> Self {
        Cell::Num(f64::from(v))
    }
}

impl From<usize> for Cell {
    fn from(v: usize) -> Self {
        Cell::Num(v as f64)
    }
}

impl From<&str> for Cell {
    fn from(s: &str) -> Self {
        Cell::Text(s.to_string())
    }
}

impl From<String> for Cell {
    fn from(s: String) -> Self {
        Cell::Text(s)
    }
}

impl From<&String> for Cell {
    fn from(s: &String) -> Self {
        Cell::Text(s.clone())
    }
}

impl Chart {
    /// An empty chart of the given kind with linear axes.
    pub fn new(
        kind: ChartKind,
        title: impl Into<String>,
        x_label: impl Into<String>,
        y_label: impl Into<String>,
    ) -> Self {
        Chart {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            x_log: false,
            y_log: false,
            kind,
            series: Vec::new(),
            refs: Vec::new(),
        }
    }

    /// An empty line chart.
    pub fn line(
        title: impl Into<String>,
        x_label: impl Into<String>,
        y_label: impl Into<String>,
    ) -> Self {
        Chart::new(ChartKind::Line, title, x_label, y_label)
    }

    /// An empty step chart (e.g. a CDF).
    pub fn step(
        title: impl Into<String>,
        x_label: impl Into<String>,
        y_label: impl Into<String>,
    ) -> Self {
        Chart::new(ChartKind::Step, title, x_label, y_label)
    }

    /// An empty grouped-bar chart over `categories`.
    pub fn bars<I, S>(
        title: impl Into<String>,
        x_label: impl Into<String>,
        y_label: impl Into<String>,
        categories: I,
    ) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let categories = categories.into_iter().map(Into::into).collect();
        Chart::new(ChartKind::Bars { categories }, title, x_label, y_label)
    }

    /// Sets logarithmic axes (builder style).
    pub fn with_log(mut self, x_log: bool, y_log: bool) -> Self {
        self.x_log = x_log;
        self.y_log = y_log;
        self
    }

    /// Appends a series (builder style).
    pub fn with_series(mut self, series: Series) -> Self {
        self.series.push(series);
        self
    }

    /// Adds a horizontal reference line at `y` labelled `label` (builder style).
    pub fn with_ref(mut self, label: impl Into<String>, y: f64) -> Self {
        self.refs.push(RefLine {
            label: label.into(),
            y,
        });
        self
    }

    /// Appends a series.
    pub fn push_series(&mut self, series: Series) {
        self.series.push(series);
    }
}

impl Series {
    /// A named series.
    pub fn new(name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Series {
            name: name.into(),
            points,
        }
    }

    /// A bar series: `values[i]` is the bar in category `i`.
    pub fn from_values(name: impl Into<String>, values: &[f64]) -> Self {
        Series {
            name: name.into(),
            points: values
                .iter()
                .enumerate()
                .map(|(i, &v)| (i as f64, v))
                .collect(),
        }
    }
}
