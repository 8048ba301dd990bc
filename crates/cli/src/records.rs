//! The tables of a run (`flows.csv`, `ports.csv`, ...) as typed columns: the engines' records,
//! written to CSV by the command line ([`Records::to_csv`]) and handed column by column to other
//! front ends (the Python package builds Arrow arrays from them), so both read the same values
//! through one path.

use std::fmt::Write as _;

/// One column's values, one per row.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    /// Unsigned integers (ids, counts, bytes).
    UInt(Vec<u64>),
    /// Numbers; `None` where a record has none (an empty CSV field).
    Float {
        /// The values.
        values: Vec<Option<f64>>,
        /// Digits after the point in the CSV; `None`: Rust's shortest form that reads back
        /// to the same value. Other front ends get the values themselves.
        decimals: Option<usize>,
    },
    /// Booleans, written `true` and `false`.
    Bool(Vec<bool>),
    /// Text (labels, node names).
    Text(Vec<String>),
}

impl Values {
    /// How many rows the column has.
    pub fn len(&self) -> usize {
        match self {
            Values::UInt(v) => v.len(),
            Values::Float { values, .. } => values.len(),
            Values::Bool(v) => v.len(),
            Values::Text(v) => v.len(),
        }
    }

    /// Whether the column has no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends row `row`'s CSV field to `out`.
    fn write_field(&self, row: usize, out: &mut String) {
        // Writing to a String cannot fail.
        let _ = match self {
            Values::UInt(v) => write!(out, "{}", v[row]),
            Values::Float { values, decimals } => match (values[row], decimals) {
                (None, _) => Ok(()),
                (Some(x), None) => write!(out, "{x}"),
                (Some(x), Some(d)) => write!(out, "{x:.d$}"),
            },
            Values::Bool(v) => write!(out, "{}", v[row]),
            Values::Text(v) => {
                out.push_str(&v[row]);
                Ok(())
            }
        };
    }
}

/// A named column.
#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    /// The header, e.g. `fct_us`.
    pub name: String,
    /// The values.
    pub values: Values,
}

/// A table: columns of equal length, in CSV order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Records {
    columns: Vec<Column>,
    rows: usize,
}

impl Records {
    /// A table without columns.
    pub fn new() -> Self {
        Self::default()
    }

    /// The table with `values` appended as column `name`.
    ///
    /// # Panics
    /// When the column's length differs from the earlier columns' (an engine's bug).
    pub fn with(mut self, name: &str, values: Values) -> Self {
        if self.columns.is_empty() {
            self.rows = values.len();
        }
        assert_eq!(
            values.len(),
            self.rows,
            "column `{name}` has another number of rows than the columns before it"
        );
        self.columns.push(Column {
            name: name.to_string(),
            values,
        });
        self
    }

    /// Appends an integer column.
    pub(crate) fn uint(self, name: &str, values: impl IntoIterator<Item = u64>) -> Self {
        self.with(name, Values::UInt(values.into_iter().collect()))
    }

    /// Appends a number column, written in Rust's shortest round-trip form.
    pub(crate) fn float(self, name: &str, values: impl IntoIterator<Item = f64>) -> Self {
        self.opt_float(name, values.into_iter().map(Some))
    }

    /// Appends a number column with absent values (empty fields).
    pub(crate) fn opt_float(
        self,
        name: &str,
        values: impl IntoIterator<Item = Option<f64>>,
    ) -> Self {
        let values = values.into_iter().collect();
        self.with(
            name,
            Values::Float {
                values,
                decimals: None,
            },
        )
    }

    /// Appends a number column written with `decimals` digits after the point.
    pub(crate) fn fixed(
        self,
        name: &str,
        decimals: usize,
        values: impl IntoIterator<Item = f64>,
    ) -> Self {
        let values = values.into_iter().map(Some).collect();
        self.with(
            name,
            Values::Float {
                values,
                decimals: Some(decimals),
            },
        )
    }

    /// Appends a boolean column.
    pub(crate) fn flag(self, name: &str, values: impl IntoIterator<Item = bool>) -> Self {
        self.with(name, Values::Bool(values.into_iter().collect()))
    }

    /// Appends a text column.
    pub(crate) fn text<S: Into<String>>(
        self,
        name: &str,
        values: impl IntoIterator<Item = S>,
    ) -> Self {
        self.with(
            name,
            Values::Text(values.into_iter().map(Into::into).collect()),
        )
    }

    /// The columns, in order.
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// The column named `name`.
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// How many rows the table has.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The table as a CSV file, written with the csv crate: a header row, fields quoted only
    /// where they need it (a comma, quote or line break), lines ending in `\n`.
    pub fn to_csv(&self) -> Vec<u8> {
        let mut w = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(Vec::new());
        // Writing to memory cannot fail.
        w.write_record(self.columns.iter().map(|c| &c.name))
            .expect("writing to memory cannot fail");
        let mut field = String::new();
        for row in 0..self.rows {
            for c in &self.columns {
                field.clear();
                c.values.write_field(row, &mut field);
                w.write_field(&field)
                    .expect("writing to memory cannot fail");
            }
            w.write_record(None::<&[u8]>)
                .expect("writing to memory cannot fail");
        }
        w.into_inner().expect("writing to memory cannot fail")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_only_fields_that_need_it_and_writes_each_type_as_rust_prints_it() {
        let t = Records::new()
            .text("scheme", ["plain", "a,b", "say \"hi\""])
            .uint("n", [1, 20, u64::MAX])
            .opt_float("x", [Some(1.5), None, Some(0.1 + 0.2)])
            .float("whole", [3.0, -0.0, 1e21])
            .fixed("mean", 1, [2.26, 0.04, 7.0])
            .flag("switch", [true, false, true]);
        assert_eq!(t.rows(), 3);
        let text = String::from_utf8(t.to_csv()).unwrap();
        assert_eq!(
            text,
            "scheme,n,x,whole,mean,switch\n\
             plain,1,1.5,3,2.3,true\n\
             \"a,b\",20,,-0,0.0,false\n\
             \"say \"\"hi\"\"\",18446744073709551615,0.30000000000000004,1000000000000000000000,7.0,true\n"
        );
    }

    #[test]
    fn an_empty_table_is_its_header() {
        let t = Records::new()
            .text("scheme", Vec::<String>::new())
            .uint("id", []);
        assert_eq!(t.to_csv(), b"scheme,id\n");
        assert_eq!(t.column("id").map(|c| c.values.len()), Some(0));
        assert!(t.column("nope").is_none());
    }

    #[test]
    #[should_panic(expected = "column `b` has another number of rows")]
    fn columns_of_unequal_length_are_a_bug() {
        let _ = Records::new().uint("a", [1, 2]).uint("b", [1]);
    }
}
