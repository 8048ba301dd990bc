//! SVG rendering of [`Chart`]: axes with nice or decade ticks, grid, legend, and line,
//! step or grouped-bar series. Deterministic: coordinates always have 2 decimals.

use std::fmt::Write;

use crate::format::{coord, escape_xml, format_num};
use crate::ticks::{
    decade_range, linear_labels, log_labels, log_ticks, minor_label, nice_ticks, pow10,
};
use crate::{Chart, ChartKind, Series};

/// Series colors, in order: the Okabe-Ito colorblind-safe palette (yellow swapped for a
/// grey that reads on white). Series beyond the palette reuse it with dashed lines.
pub const PALETTE: [&str; 8] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#7F7F7F",
];

/// Dash patterns for series past the palette (one per lap of the palette).
const DASHES: [&str; 3] = ["7 4", "2 3", "9 3 2 3"];

/// Default picture size in px.
const WIDTH: f64 = 760.0;
const HEIGHT: f64 = 440.0;
/// Approximate advance of one character of 11 px sans-serif text.
const CHAR_W: f64 = 6.6;
/// Line charts get point markers up to this many points per series.
const MARKER_MAX: usize = 50;
const FONT: &str = "system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif";
const LEGEND_MAX_CHARS: usize = 28;
/// Longest title (15 px bold) that fits across the picture.
const TITLE_MAX_CHARS: usize = 86;
const CATEGORY_MAX_CHARS: usize = 24;

macro_rules! w {
    ($dst:expr, $($arg:tt)*) => {
        // Writing into a String cannot fail.
        let _ = write!($dst, $($arg)*);
    };
}

/// One tick: value in data units, its label (empty for minor ticks), and whether it is a
/// major tick (longer tick mark, darker gridline), and whether it gets a gridline.
#[derive(Clone, Debug)]
struct Tick {
    value: f64,
    label: String,
    major: bool,
    grid: bool,
}

/// A numeric axis: domain in transformed units (log10 for log axes) and pixel range.
#[derive(Clone, Debug)]
struct Axis {
    log: bool,
    lo: f64,
    hi: f64,
    ticks: Vec<Tick>,
    px0: f64,
    px1: f64,
}

impl Axis {
    /// Builds an axis over `values` (already filtered to finite, and > 0 for log) with about
    /// `target` linear intervals.
    fn new(values: &[f64], log: bool, target: usize) -> Axis {
        let (min, max) = min_max(values);
        if log {
            let (min, max) = match (min, max) {
                (Some(a), Some(b)) => (a, b),
                _ => (1.0, 10.0),
            };
            let majors = log_ticks(min, max);
            let lo = majors.first().copied().unwrap_or(1.0);
            let hi = majors.last().copied().unwrap_or(10.0);
            let mut ticks: Vec<Tick> = majors
                .iter()
                .zip(log_labels(&majors))
                .map(|(&v, label)| Tick {
                    value: v,
                    label,
                    major: true,
                    grid: true,
                })
                .collect();
            let (e_lo, e_hi) = decade_range(lo, hi);
            let decades = e_hi - e_lo;
            // Minor ticks 2..9 x 10^e when every decade is shown and there are few of them;
            // with a single decade, label 2x and 5x too so the axis has more than 2 labels.
            if decades <= 6 && majors.len() as i32 == decades + 1 {
                for e in e_lo..e_hi {
                    for k in 2..=9 {
                        let v = k as f64 * pow10(e);
                        let label = if decades == 1 && (k == 2 || k == 5) {
                            minor_label(v)
                        } else {
                            String::new()
                        };
                        ticks.push(Tick {
                            value: v,
                            label,
                            major: false,
                            grid: decades <= 3,
                        });
                    }
                }
            }
            Axis {
                log,
                lo: lo.log10(),
                hi: hi.log10(),
                ticks,
                px0: 0.0,
                px1: 1.0,
            }
        } else {
            let (min, max) = match (min, max) {
                (Some(a), Some(b)) => (a, b),
                _ => (0.0, 1.0),
            };
            let values = nice_ticks(min, max, target);
            let labels = linear_labels(&values);
            let lo = values.first().copied().unwrap_or(0.0);
            let hi = values.last().copied().unwrap_or(1.0);
            Axis {
                log,
                lo,
                hi,
                ticks: values
                    .into_iter()
                    .zip(labels)
                    .map(|(value, label)| Tick {
                        value,
                        label,
                        major: true,
                        grid: true,
                    })
                    .collect(),
                px0: 0.0,
                px1: 1.0,
            }
        }
    }

    /// Pixel position of a data value, or `None` if it cannot be shown (non-finite, or
    /// <= 0 on a log axis).
    fn map(&self, v: f64) -> Option<f64> {
        if !v.is_finite() || (self.log && v <= 0.0) {
            return None;
        }
        let t = if self.log { v.log10() } else { v };
        let span = self.hi - self.lo;
        let span = if span.is_finite() && span > 0.0 {
            span
        } else {
            1.0
        };
        let p = self.px0 + (t - self.lo) / span * (self.px1 - self.px0);
        p.is_finite().then_some(p)
    }

    /// The widest tick label, in characters.
    fn max_label_chars(&self) -> usize {
        self.ticks
            .iter()
            .map(|t| t.label.chars().count())
            .max()
            .unwrap_or(0)
    }
}

fn min_max(values: &[f64]) -> (Option<f64>, Option<f64>) {
    let mut it = values.iter().copied();
    let Some(first) = it.next() else {
        return (None, None);
    };
    let (a, b) = it.fold((first, first), |(a, b), v| (a.min(v), b.max(v)));
    (Some(a), Some(b))
}

/// Color and dash pattern (empty for solid) of series `i`.
fn style(i: usize) -> (&'static str, &'static str) {
    let lap = i / PALETTE.len();
    let dash = if lap == 0 {
        ""
    } else {
        DASHES[(lap - 1) % DASHES.len()]
    };
    (PALETTE[i % PALETTE.len()], dash)
}

fn dash_attr(dash: &str) -> String {
    if dash.is_empty() {
        String::new()
    } else {
        format!(" stroke-dasharray=\"{dash}\"")
    }
}

/// Shortens `s` to at most `max` characters, ending with an ellipsis when cut.
fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('\u{2026}');
        t
    }
}

fn text_px(chars: usize) -> f64 {
    chars as f64 * CHAR_W
}

/// Plot-area box in px.
#[derive(Clone, Copy, Debug)]
struct Frame {
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
}

impl Chart {
    /// Renders the chart as a standalone SVG document (no XML prolog, so it can also be
    /// inlined into HTML). Same input, same bytes.
    pub fn to_svg(&self) -> String {
        let bars = matches!(self.kind, ChartKind::Bars { .. });
        // Legend: only when some series has a name.
        let show_legend = self.series.iter().any(|s| !s.name.trim().is_empty());
        let legend_chars = self
            .series
            .iter()
            .map(|s| truncate(&s.name, LEGEND_MAX_CHARS).chars().count())
            .max()
            .unwrap_or(0);
        let legend_w = if show_legend {
            text_px(legend_chars) + 40.0
        } else {
            0.0
        };
        let height = HEIGHT.max(60.0 + 20.0 * self.series.len() as f64 + 60.0);

        let top = if self.title.is_empty() { 20.0 } else { 44.0 };
        let right = WIDTH - 16.0 - legend_w;

        // y axis first (its labels set the left margin).
        let y_values: Vec<f64> = self
            .series
            .iter()
            .flat_map(|s| s.points.iter())
            .filter(|p| self.x_ok(p.0) || bars)
            .map(|p| p.1)
            .filter(|&y| y.is_finite() && (!self.y_log || y > 0.0))
            .chain((bars && !self.y_log).then_some(0.0))
            .chain(
                self.refs
                    .iter()
                    .map(|r| r.y)
                    .filter(|&y| y.is_finite() && (!self.y_log || y > 0.0)),
            )
            .collect();

        // Categories for bars, with the bottom margin they need.
        let categories = self.categories();
        let cat_chars = categories
            .iter()
            .map(|c| truncate(c, CATEGORY_MAX_CHARS).chars().count())
            .max()
            .unwrap_or(0);

        // Provisional plot width to decide whether category labels must be rotated.
        let provisional_w = right - 80.0;
        let rotate = bars
            && !categories.is_empty()
            && text_px(cat_chars) + 6.0 > provisional_w / categories.len() as f64;
        let bottom_margin = if rotate {
            // Labels at -40 degrees: vertical extent is sin(40) of their length.
            30.0 + text_px(cat_chars) * 0.643 + 22.0
        } else {
            54.0
        };
        let bottom = height - bottom_margin;
        let plot_h = bottom - top;
        let y_target = ((plot_h / 55.0).round() as usize).clamp(2, 10);
        let mut y_axis = Axis::new(&y_values, self.y_log, y_target);
        let y_label_room = if self.y_label.is_empty() { 0.0 } else { 22.0 };
        let left = 14.0 + y_label_room + text_px(y_axis.max_label_chars()) + 8.0;
        y_axis.px0 = bottom;
        y_axis.px1 = top;
        let frame = Frame {
            left,
            right,
            top,
            bottom,
        };
        let plot_w = right - left;

        let mut svg = String::new();
        w!(
            svg,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"{FONT}\" font-size=\"11\" role=\"img\" aria-label=\"{t}\">\n",
            w = format!("{WIDTH:.0}"),
            h = format!("{height:.0}"),
            t = escape_xml(&self.title),
        );
        w!(svg, "<title>{}</title>\n", escape_xml(&self.title));
        w!(
            svg,
            "<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n",
            coord(WIDTH),
            coord(height)
        );
        if !self.title.is_empty() {
            w!(
                svg,
                "<text x=\"{}\" y=\"26\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"600\" fill=\"#222222\">{}</text>\n",
                coord(WIDTH / 2.0),
                escape_xml(&truncate(&self.title, TITLE_MAX_CHARS))
            );
        }

        let drawn = if let ChartKind::Bars { .. } = &self.kind {
            self.draw_y_axis(&mut svg, &y_axis, frame);
            self.draw_bars(&mut svg, &y_axis, frame, &categories, rotate)
        } else {
            let x_values: Vec<f64> = self
                .series
                .iter()
                .flat_map(|s| s.points.iter())
                .filter(|p| p.1.is_finite() && (!self.y_log || p.1 > 0.0))
                .map(|p| p.0)
                .filter(|&x| self.x_ok(x))
                .collect();
            let x_axis = self.fit_x_axis(&x_values, plot_w, left, right);
            self.draw_y_axis(&mut svg, &y_axis, frame);
            self.draw_x_axis(&mut svg, &x_axis, frame);
            self.draw_lines(&mut svg, &x_axis, &y_axis)
        };
        if drawn == 0 {
            w!(
                svg,
                "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"13\" fill=\"#888888\">no data</text>\n",
                coord((left + right) / 2.0),
                coord((top + bottom) / 2.0)
            );
        }

        self.draw_refs(&mut svg, &y_axis, frame);

        // Axis lines on top of grid and bars.
        w!(
            svg,
            "<path d=\"M{l} {t}V{b}H{r}\" fill=\"none\" stroke=\"#333333\" stroke-width=\"1\"/>\n",
            l = coord(left),
            t = coord(top),
            b = coord(bottom),
            r = coord(right)
        );

        // Axis labels.
        if !self.x_label.is_empty() {
            w!(
                svg,
                "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"12\" fill=\"#222222\">{}</text>\n",
                coord((left + right) / 2.0),
                coord(height - 12.0),
                escape_xml(&truncate(&self.x_label, (plot_w / 7.0) as usize))
            );
        }
        if !self.y_label.is_empty() {
            let cy = (top + bottom) / 2.0;
            w!(
                svg,
                "<text x=\"18\" y=\"{cy}\" text-anchor=\"middle\" font-size=\"12\" fill=\"#222222\" transform=\"rotate(-90 18 {cy})\">{}</text>\n",
                escape_xml(&truncate(&self.y_label, (plot_h / 7.0) as usize)),
                cy = coord(cy)
            );
        }

        if show_legend {
            self.draw_legend(&mut svg, right + 16.0, top);
        }
        svg.push_str("</svg>\n");
        svg
    }

    /// Whether an x value can be placed on this chart's x axis.
    fn x_ok(&self, x: f64) -> bool {
        x.is_finite() && (!self.x_log || x > 0.0)
    }

    /// Category names for a bar chart: the given ones, or `0..n` from the largest index
    /// in the data when none are given. Empty for other kinds.
    fn categories(&self) -> Vec<String> {
        match &self.kind {
            ChartKind::Bars { categories } if !categories.is_empty() => categories.clone(),
            ChartKind::Bars { .. } => {
                let n = self
                    .series
                    .iter()
                    .flat_map(|s| s.points.iter())
                    .filter(|p| p.0.is_finite() && p.0 >= -0.5)
                    .map(|p| p.0.round().min(999.0) as usize + 1)
                    .max()
                    .unwrap_or(0);
                (0..n).map(|i| i.to_string()).collect()
            }
            _ => Vec::new(),
        }
    }

    /// Chooses the x tick count so labels do not overlap, then places the axis.
    fn fit_x_axis(&self, values: &[f64], plot_w: f64, left: f64, right: f64) -> Axis {
        let mut target = ((plot_w / 80.0).round() as usize).clamp(2, 10);
        loop {
            let mut axis = Axis::new(values, self.x_log, target);
            axis.px0 = left;
            axis.px1 = right;
            if target <= 2 || !labels_overlap(&axis) {
                return axis;
            }
            target -= 1;
        }
    }

    fn draw_y_axis(&self, svg: &mut String, axis: &Axis, f: Frame) {
        for t in &axis.ticks {
            let Some(y) = axis.map(t.value) else { continue };
            let (stroke, len) = if t.major {
                ("#e3e3e3", 5.0)
            } else {
                ("#f2f2f2", 3.0)
            };
            if t.grid {
                w!(
                    svg,
                    "<path d=\"M{l} {y}H{r}\" stroke=\"{stroke}\" stroke-width=\"1\"/>\n",
                    l = coord(f.left),
                    r = coord(f.right),
                    y = coord(y)
                );
            }
            w!(
                svg,
                "<path d=\"M{a} {y}H{l}\" stroke=\"#333333\" stroke-width=\"1\"/>\n",
                a = coord(f.left - len),
                l = coord(f.left),
                y = coord(y)
            );
            if !t.label.is_empty() {
                w!(
                    svg,
                    "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#444444\">{}</text>\n",
                    coord(f.left - 8.0),
                    coord(y + 4.0),
                    escape_xml(&t.label)
                );
            }
        }
    }

    fn draw_x_axis(&self, svg: &mut String, axis: &Axis, f: Frame) {
        for t in &axis.ticks {
            let Some(x) = axis.map(t.value) else { continue };
            let (stroke, len) = if t.major {
                ("#e3e3e3", 5.0)
            } else {
                ("#f2f2f2", 3.0)
            };
            if t.grid {
                w!(
                    svg,
                    "<path d=\"M{x} {t}V{b}\" stroke=\"{stroke}\" stroke-width=\"1\"/>\n",
                    x = coord(x),
                    t = coord(f.top),
                    b = coord(f.bottom)
                );
            }
            w!(
                svg,
                "<path d=\"M{x} {b}V{e}\" stroke=\"#333333\" stroke-width=\"1\"/>\n",
                x = coord(x),
                b = coord(f.bottom),
                e = coord(f.bottom + len)
            );
            if !t.label.is_empty() {
                w!(
                    svg,
                    "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#444444\">{}</text>\n",
                    coord(x),
                    coord(f.bottom + 18.0),
                    escape_xml(&t.label)
                );
            }
        }
    }

    /// Draws `Line` and `Step` series; returns how many points were drawn.
    fn draw_lines(&self, svg: &mut String, xa: &Axis, ya: &Axis) -> usize {
        let step = matches!(self.kind, ChartKind::Step);
        let mut drawn = 0;
        for (i, s) in self.series.iter().enumerate() {
            let (color, dash) = style(i);
            let mut pts = self.placed_points(s, xa, ya, step);
            let count = pts.iter().flatten().count();
            drawn += count;
            if count > DECIMATE_MIN {
                pts = decimate(&pts);
            }
            let mut d = String::new();
            let mut pen_down = false;
            for p in &pts {
                match p {
                    Some((x, y)) => {
                        if !pen_down {
                            w!(d, "M{} {}", coord(*x), coord(*y));
                            pen_down = true;
                        } else if step {
                            w!(d, "H{}V{}", coord(*x), coord(*y));
                        } else {
                            w!(d, "L{} {}", coord(*x), coord(*y));
                        }
                    }
                    None => pen_down = false,
                }
            }
            w!(
                svg,
                "<g class=\"series\" data-series=\"{i}\"><title>{}</title>\n",
                escape_xml(&s.name)
            );
            if !d.is_empty() {
                w!(
                    svg,
                    "<path d=\"{d}\" fill=\"none\" stroke=\"{color}\" stroke-width=\"2\" stroke-linejoin=\"round\"{}/>\n",
                    dash_attr(dash)
                );
            }
            let markers = if step {
                count == 1
            } else {
                count <= MARKER_MAX
            };
            if markers {
                for (x, y) in pts.iter().flatten() {
                    w!(
                        svg,
                        "<circle cx=\"{}\" cy=\"{}\" r=\"3\" fill=\"{color}\" stroke=\"#ffffff\" stroke-width=\"0.8\"/>\n",
                        coord(*x),
                        coord(*y)
                    );
                }
            }
            svg.push_str("</g>\n");
        }
        drawn
    }

    /// Pixel positions of a series' points; `None` marks a point that cannot be shown
    /// (it breaks a line). Step series are sorted by x and drop unshowable points.
    fn placed_points(
        &self,
        s: &Series,
        xa: &Axis,
        ya: &Axis,
        step: bool,
    ) -> Vec<Option<(f64, f64)>> {
        let mut pts: Vec<(f64, f64)> = s.points.clone();
        if step {
            pts.retain(|p| xa.map(p.0).is_some() && ya.map(p.1).is_some());
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        pts.iter()
            .map(|&(x, y)| Some((xa.map(x)?, ya.map(y)?)))
            .collect()
    }

    /// Draws grouped bars and category labels; returns how many bars were drawn.
    fn draw_bars(
        &self,
        svg: &mut String,
        ya: &Axis,
        f: Frame,
        categories: &[String],
        rotate: bool,
    ) -> usize {
        let n_cat = categories.len();
        if n_cat == 0 {
            return 0;
        }
        let band = (f.right - f.left) / n_cat as f64;
        let n_ser = self.series.len().max(1);
        let bar_w = band * 0.8 / n_ser as f64;
        let gap = if bar_w > 6.0 { 1.0 } else { 0.0 };
        let base_px = if ya.log {
            f.bottom
        } else {
            ya.map(0.0).unwrap_or(f.bottom)
        };
        let total_bars: usize = self.series.iter().map(|s| s.points.len()).sum();
        let value_labels = bar_w >= 26.0 && total_bars <= 60;

        // Category labels (every k-th when crowded).
        // Rotated labels need ~18 px between neighbours (11 px text at 40 degrees).
        let label_every = if rotate {
            ((18.0 / band).ceil() as usize).max(1)
        } else {
            1
        };
        for (j, c) in categories.iter().enumerate() {
            let cx = f.left + band * (j as f64 + 0.5);
            if band >= 8.0 {
                w!(
                    svg,
                    "<path d=\"M{x} {b}V{e}\" stroke=\"#333333\" stroke-width=\"1\"/>\n",
                    x = coord(f.left + band * j as f64),
                    b = coord(f.bottom),
                    e = coord(f.bottom + 5.0)
                );
            }
            if j % label_every != 0 {
                continue;
            }
            let label = escape_xml(&truncate(c, CATEGORY_MAX_CHARS));
            if rotate {
                let y = f.bottom + 14.0;
                w!(
                    svg,
                    "<text x=\"{x}\" y=\"{y}\" text-anchor=\"end\" fill=\"#444444\" transform=\"rotate(-40 {x} {y})\"><title>{}</title>{label}</text>\n",
                    escape_xml(c),
                    x = coord(cx + 3.0),
                    y = coord(y)
                );
            } else {
                w!(
                    svg,
                    "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#444444\">{label}</text>\n",
                    coord(cx),
                    coord(f.bottom + 18.0)
                );
            }
        }

        let mut drawn = 0;
        for (s_idx, s) in self.series.iter().enumerate() {
            let (color, dash) = style(s_idx);
            w!(
                svg,
                "<g class=\"series\" data-series=\"{s_idx}\" fill=\"{color}\">\n"
            );
            for &(i, y) in &s.points {
                if !i.is_finite() || i < -0.5 {
                    continue;
                }
                let j = i.round() as usize;
                if j >= n_cat {
                    continue;
                }
                let Some(py) = ya.map(y) else { continue };
                let x = f.left + band * j as f64 + band * 0.1 + bar_w * s_idx as f64;
                let (y0, h) = if py <= base_px {
                    (py, base_px - py)
                } else {
                    (base_px, py - base_px)
                };
                let stroke = if dash.is_empty() {
                    String::new()
                } else {
                    format!(" stroke=\"#ffffff\"{}", dash_attr(dash))
                };
                w!(
                    svg,
                    "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"{stroke}><title>{}: {}: {}</title></rect>\n",
                    coord(x + gap / 2.0),
                    coord(y0),
                    coord((bar_w - gap).max(0.5)),
                    coord(h),
                    escape_xml(&s.name),
                    escape_xml(&categories[j]),
                    escape_xml(&format_num(y))
                );
                if value_labels {
                    // Outside the bar's end; inside it (white) when that would leave the
                    // plot area.
                    let (ty, fill) = if py <= base_px {
                        if py - 14.0 >= f.top - 16.0 {
                            (py - 4.0, "#333333")
                        } else {
                            (py + 12.0, "#ffffff")
                        }
                    } else if py + 14.0 <= f.bottom {
                        (py + 12.0, "#333333")
                    } else {
                        (py - 4.0, "#ffffff")
                    };
                    w!(
                        svg,
                        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" font-size=\"10\" fill=\"{fill}\">{}</text>\n",
                        coord(x + bar_w / 2.0),
                        coord(ty),
                        escape_xml(&format_num(y))
                    );
                }
                drawn += 1;
            }
            svg.push_str("</g>\n");
        }
        drawn
    }

    /// Reference lines: dashed, dark, labelled at the right end inside the plot.
    fn draw_refs(&self, svg: &mut String, ya: &Axis, f: Frame) {
        for r in &self.refs {
            let Some(y) = ya.map(r.y) else { continue };
            w!(
                svg,
                "<g class=\"ref\"><path d=\"M{l} {y}H{r}\" stroke=\"#222222\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n<text x=\"{tx}\" y=\"{ty}\" text-anchor=\"end\" font-size=\"11\" fill=\"#222222\">{}</text></g>\n",
                escape_xml(&truncate(&r.label, 40)),
                l = coord(f.left),
                r = coord(f.right),
                y = coord(y),
                tx = coord(f.right - 4.0),
                ty = coord(y - 4.0)
            );
        }
    }

    fn draw_legend(&self, svg: &mut String, x: f64, top: f64) {
        let bars = matches!(self.kind, ChartKind::Bars { .. });
        svg.push_str("<g class=\"legend\">\n");
        for (i, s) in self.series.iter().enumerate() {
            let (color, dash) = style(i);
            let y = top + 8.0 + 20.0 * i as f64;
            if bars {
                w!(
                    svg,
                    "<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"10\" fill=\"{color}\"/>\n",
                    coord(x + 4.0),
                    coord(y - 5.0)
                );
            } else {
                w!(
                    svg,
                    "<path d=\"M{} {y}H{}\" stroke=\"{color}\" stroke-width=\"2\"{}/>\n",
                    coord(x),
                    coord(x + 22.0),
                    dash_attr(dash),
                    y = coord(y)
                );
            }
            let name = truncate(&s.name, LEGEND_MAX_CHARS);
            w!(
                svg,
                "<text x=\"{}\" y=\"{}\" fill=\"#222222\">{}",
                coord(x + 28.0),
                coord(y + 4.0),
                escape_xml(&name)
            );
            if name != s.name {
                w!(svg, "<title>{}</title>", escape_xml(&s.name));
            }
            svg.push_str("</text>\n");
        }
        svg.push_str("</g>\n");
    }
}

/// Series with more points than this are thinned per pixel column before drawing.
const DECIMATE_MIN: usize = 2000;

/// Thins a long run of placed points without changing the picture by more than a pixel:
/// consecutive points falling in the same half-pixel column are reduced to the first, the
/// lowest, the highest and the last of them, in their original order (the "M4" scheme).
/// Gaps (`None`) are kept.
fn decimate(pts: &[Option<(f64, f64)>]) -> Vec<Option<(f64, f64)>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < pts.len() {
        let Some((x0, _)) = pts[i] else {
            out.push(None);
            i += 1;
            continue;
        };
        let col = (x0 * 2.0).floor();
        let mut j = i + 1;
        while j < pts.len() && matches!(pts[j], Some((x, _)) if (x * 2.0).floor() == col) {
            j += 1;
        }
        // Run pts[i..j] shares one column.
        let run: Vec<(f64, f64)> = pts[i..j].iter().flatten().copied().collect();
        let last = run.len() - 1;
        let y_min = (0..run.len())
            .min_by(|&a, &b| run[a].1.total_cmp(&run[b].1))
            .unwrap_or(0);
        let y_max = (0..run.len())
            .max_by(|&a, &b| run[a].1.total_cmp(&run[b].1))
            .unwrap_or(0);
        let mut keep = vec![0, y_min, y_max, last];
        keep.sort_unstable();
        keep.dedup();
        out.extend(keep.into_iter().map(|k| Some(run[k])));
        i = j;
    }
    out
}

/// True when neighbouring labelled x ticks would overlap.
fn labels_overlap(axis: &Axis) -> bool {
    let mut placed: Vec<(f64, f64)> = axis
        .ticks
        .iter()
        .filter(|t| !t.label.is_empty())
        .filter_map(|t| {
            let x = axis.map(t.value)?;
            let half = text_px(t.label.chars().count()) / 2.0;
            Some((x - half, x + half))
        })
        .collect();
    placed.sort_by(|a, b| a.0.total_cmp(&b.0));
    placed.windows(2).any(|w| w[0].1 + 6.0 > w[1].0)
}
