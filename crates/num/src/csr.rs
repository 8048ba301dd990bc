//! Compressed sparse rows: row `i` is a slice of column indices. Used for flow -> links
//! (and link -> flows) incidence so solvers walk contiguous memory.

/// A list of index rows stored contiguously.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Csr {
    offsets: Vec<u32>,
    indices: Vec<u32>,
}

impl Csr {
    /// No rows.
    pub fn new() -> Csr {
        Csr {
            offsets: vec![0],
            indices: Vec::new(),
        }
    }

    /// Rows from an iterator of rows.
    pub fn from_rows<R, I>(rows: R) -> Csr
    where
        R: IntoIterator<Item = I>,
        I: IntoIterator<Item = u32>,
    {
        let mut c = Csr::new();
        for r in rows {
            c.indices.extend(r);
            c.offsets.push(c.indices.len() as u32);
        }
        c
    }

    /// Appends a row and returns its index.
    pub fn push_row(&mut self, row: &[u32]) -> usize {
        self.indices.extend_from_slice(row);
        self.offsets.push(self.indices.len() as u32);
        self.offsets.len() - 2
    }

    /// Row `i`.
    pub fn row(&self, i: usize) -> &[u32] {
        &self.indices[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Total number of entries.
    pub fn nnz(&self) -> usize {
        self.indices.len()
    }

    /// The transpose: row `j` of the result lists the rows of `self` that contain `j`.
    /// `columns` is the number of rows of the result.
    pub fn transpose(&self, columns: usize) -> Csr {
        let mut counts = vec![0u32; columns + 1];
        for &j in &self.indices {
            counts[j as usize + 1] += 1;
        }
        for j in 0..columns {
            counts[j + 1] += counts[j];
        }
        let mut fill = counts.clone();
        let mut indices = vec![0u32; self.indices.len()];
        for i in 0..self.rows() {
            for &j in self.row(i) {
                indices[fill[j as usize] as usize] = i as u32;
                fill[j as usize] += 1;
            }
        }
        Csr {
            offsets: counts,
            indices,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_and_transpose() {
        let c = Csr::from_rows(vec![vec![0u32, 2], vec![], vec![2, 1]]);
        assert_eq!(c.rows(), 3);
        assert_eq!(c.row(0), &[0, 2]);
        assert!(c.row(1).is_empty());
        let t = c.transpose(3);
        assert_eq!(t.row(0), &[0]);
        assert_eq!(t.row(1), &[2]);
        assert_eq!(t.row(2), &[0, 2]);
    }
}
