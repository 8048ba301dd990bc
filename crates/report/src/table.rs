//! Console text and CSV rendering of [`Table`].

use crate::{Cell, Table};

/// Column gap in text tables.
const GAP: &str = "  ";

impl Table {
    /// Renders the table as aligned plain text for a console: the caption (if any) on its
    /// own line, a header row, a dashed rule, then the rows. Numbers are formatted with
    /// [`crate::format_num`] and right-aligned (as is the header of an all-number column);
    /// text is left-aligned. Lines carry no trailing spaces and end with `\n`.
    pub fn to_text(&self) -> String {
        let width = self.width();
        let header: Vec<String> = (0..width)
            .map(|c| one_line(self.columns.get(c).map_or("", String::as_str)))
            .collect();
        let body: Vec<Vec<(String, bool)>> = self
            .rows
            .iter()
            .map(|row| {
                (0..width)
                    .map(|c| match row.get(c) {
                        Some(Cell::Num(v)) => (crate::format_num(*v), true),
                        Some(Cell::Text(s)) => (one_line(s), false),
                        None => (String::new(), false),
                    })
                    .collect()
            })
            .collect();
        let numeric: Vec<bool> = (0..width).map(|c| self.column_is_numeric(c)).collect();
        let widths: Vec<usize> = (0..width)
            .map(|c| {
                body.iter()
                    .map(|r| text_width(&r[c].0))
                    .chain(std::iter::once(text_width(&header[c])))
                    .max()
                    .unwrap_or(0)
            })
            .collect();

        let mut out = String::new();
        if !self.caption.is_empty() {
            out.push_str(&one_line(&self.caption));
            out.push('\n');
        }
        if width == 0 {
            return out;
        }
        let header_cells: Vec<(String, bool)> = header
            .iter()
            .zip(&numeric)
            .map(|(h, &n)| (h.clone(), n))
            .collect();
        push_line(&mut out, &header_cells, &widths);
        let rule: Vec<(String, bool)> = widths.iter().map(|&w| ("-".repeat(w), false)).collect();
        push_line(&mut out, &rule, &widths);
        for row in &body {
            push_line(&mut out, row, &widths);
        }
        out
    }

    /// Renders the table as CSV: a header row, then one line per row, `\n` line ends.
    /// Numbers keep full precision (Rust's shortest round-trip form, `NaN`/`inf` as is);
    /// fields containing a comma, a quote, CR or LF are quoted with inner quotes doubled
    /// (RFC 4180). The caption is not included.
    pub fn to_csv(&self) -> String {
        let width = self.width();
        let mut out = String::new();
        let header: Vec<String> = (0..width)
            .map(|c| csv_field(self.columns.get(c).map_or("", String::as_str)))
            .collect();
        out.push_str(&header.join(","));
        out.push('\n');
        for row in &self.rows {
            let fields: Vec<String> = (0..width)
                .map(|c| {
                    row.get(c)
                        .map_or(String::new(), |cell| csv_field(&cell.raw()))
                })
                .collect();
            out.push_str(&fields.join(","));
            out.push('\n');
        }
        out
    }

    /// True when column `c` has at least one number and nothing but numbers and blanks.
    pub(crate) fn column_is_numeric(&self, c: usize) -> bool {
        let mut any = false;
        for row in &self.rows {
            match row.get(c) {
                Some(Cell::Num(_)) => any = true,
                Some(Cell::Text(s)) if !s.trim().is_empty() => return false,
                _ => {}
            }
        }
        any
    }
}

fn push_line(out: &mut String, cells: &[(String, bool)], widths: &[usize]) {
    let mut line = String::new();
    for (i, ((s, right), &w)) in cells.iter().zip(widths).enumerate() {
        if i > 0 {
            line.push_str(GAP);
        }
        let pad = w.saturating_sub(text_width(s));
        if *right {
            line.push_str(&" ".repeat(pad));
            line.push_str(s);
        } else {
            line.push_str(s);
            line.push_str(&" ".repeat(pad));
        }
    }
    out.push_str(line.trim_end());
    out.push('\n');
}

/// Display width in characters (one column per `char`; good enough for the ASCII and
/// Latin text used here).
fn text_width(s: &str) -> usize {
    s.chars().count()
}

/// Newlines and tabs become spaces so a cell stays on one console line.
fn one_line(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Table {
        let mut t = Table::new("FCT slowdown", ["scheme", "p50", "p99", "note"]);
        t.push_row(vec![
            "dctcp".into(),
            1.5.into(),
            12345.6.into(),
            "ok".into(),
        ]);
        t.push_row(vec![
            "pfabric".into(),
            std::f64::consts::PI.into(),
            0.0001234.into(),
            "".into(),
        ]);
        t.push_row(vec!["x".into(), f64::NAN.into(), f64::INFINITY.into()]);
        t
    }

    #[test]
    fn text_table_is_aligned_and_formatted() {
        let want = "\
FCT slowdown
scheme     p50       p99  note
-------  -----  --------  ----
dctcp      1.5     12346  ok
pfabric  3.142  1.234e-4
x            -       inf
";
        assert_eq!(sample().to_text(), want);
    }

    #[test]
    fn text_table_all_lines_same_width_up_to_trailing_text() {
        let text = sample().to_text();
        let lines: Vec<&str> = text.lines().skip(1).collect();
        // Every right-aligned numeric column ends at the same character offset.
        let p99_end = lines[0].find("p99").unwrap() + 3;
        for l in &lines[2..] {
            let c = l.as_bytes()[p99_end - 1];
            assert_ne!(c, b' ', "column p99 not right-aligned in {l:?}");
        }
    }

    #[test]
    fn csv_quotes_commas_and_quotes() {
        let mut t = Table::new("", ["name", "value"]);
        t.push_row(vec![Cell::from("a, \"b\""), Cell::from(0.1 + 0.2)]);
        t.push_row(vec![Cell::from("plain"), Cell::from(1e-7)]);
        assert_eq!(
            t.to_csv(),
            "name,value\n\"a, \"\"b\"\"\",0.30000000000000004\nplain,0.0000001\n"
        );
    }

    #[test]
    fn ragged_rows_are_padded() {
        let mut t = Table::new("", ["a"]);
        t.push_row(vec![1.0.into(), "extra".into()]);
        t.push_row(vec![]);
        assert_eq!(t.to_csv(), "a,\n1,extra\n,\n");
        assert_eq!(t.to_text(), "a\n-  -----\n1  extra\n\n");
    }
}
