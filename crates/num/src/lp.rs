//! A small dense linear program solver (two-phase tableau simplex, Bland's rule), for the
//! exact minimum-rate feasibility check of multipath problems ([`crate::problem`]) and the
//! reference solver's search for the face its barrier method works on
//! ([`crate::reference`]). Sizes are those of the flows that carry minimum rates, not of whole
//! problems; dense `O(rows x columns)` pivots are fine there.

/// How a row compares its left side with its right side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cmp {
    /// `a x <= b`.
    Le,
    /// `a x >= b`.
    Ge,
    /// `a x = b`.
    Eq,
}

/// One row: sparse coefficients `(column, a)`, comparison, right side.
pub(crate) type Row = (Vec<(usize, f64)>, Cmp, f64);

/// `maximize c x` subject to rows `a_i x (<=, >=, =) b_i` and `x >= 0`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Lp {
    /// Number of variables.
    pub(crate) vars: usize,
    /// Objective coefficients (sparse).
    pub(crate) objective: Vec<(usize, f64)>,
    /// Rows: sparse coefficients, comparison, right side.
    pub(crate) rows: Vec<Row>,
}

/// An optimal solution.
#[derive(Clone, Debug)]
pub(crate) struct Optimum {
    /// The variables.
    pub(crate) x: Vec<f64>,
    /// `c x`.
    pub(crate) value: f64,
    /// Row duals `y_i` (the objective's rate of change per unit of `b_i`): `>= 0` for `<=`
    /// rows, `<= 0` for `>=` rows.
    pub(crate) duals: Vec<f64>,
    /// Reduced costs `y A_j - c_j` of the variables (`>= 0`; positive ones are at 0 in every
    /// optimum).
    pub(crate) reduced: Vec<f64>,
}

/// How a solve ended.
#[derive(Clone, Debug)]
pub(crate) enum Outcome {
    /// Optimal.
    Optimal(Optimum),
    /// No point satisfies the rows.
    Infeasible,
    /// The objective is unbounded.
    Unbounded,
}

/// Pivot tolerance (the callers scale their data to O(1)).
const EPS: f64 = 1e-11;

impl Lp {
    /// Solves the program.
    pub(crate) fn solve(&self) -> Outcome {
        let m = self.rows.len();
        let n = self.vars;
        // Columns: the variables, then one slack or surplus per inequality row, then one
        // artificial per `>=` or `=` row (right sides made non-negative first).
        let mut sign = vec![1.0; m];
        let mut cmp = Vec::with_capacity(m);
        for (i, (_, c, b)) in self.rows.iter().enumerate() {
            let flip = *b < 0.0;
            sign[i] = if flip { -1.0 } else { 1.0 };
            cmp.push(match (c, flip) {
                (Cmp::Le, false) | (Cmp::Ge, true) => Cmp::Le,
                (Cmp::Ge, false) | (Cmp::Le, true) => Cmp::Ge,
                (Cmp::Eq, _) => Cmp::Eq,
            });
        }
        let slacks = cmp.iter().filter(|&&c| c != Cmp::Eq).count();
        let artificials = cmp.iter().filter(|&&c| c != Cmp::Le).count();
        let cols = n + slacks + artificials;
        let width = cols + 1; // last column: right side
        let mut t = vec![0.0; (m + 1) * width];
        let mut basis = vec![0usize; m];
        // The column that starts as row i's basic variable (its dual's column).
        let mut unit_col = vec![0usize; m];
        let (mut next_slack, mut next_art) = (n, n + slacks);
        for i in 0..m {
            let (coef, _, b) = &self.rows[i];
            let r = (i + 1) * width;
            for &(j, a) in coef {
                t[r + j] += sign[i] * a;
            }
            t[r + cols] = sign[i] * b;
            match cmp[i] {
                Cmp::Le => {
                    t[r + next_slack] = 1.0;
                    basis[i] = next_slack;
                    unit_col[i] = next_slack;
                    next_slack += 1;
                }
                Cmp::Ge => {
                    t[r + next_slack] = -1.0;
                    next_slack += 1;
                    t[r + next_art] = 1.0;
                    basis[i] = next_art;
                    unit_col[i] = next_art;
                    next_art += 1;
                }
                Cmp::Eq => {
                    t[r + next_art] = 1.0;
                    basis[i] = next_art;
                    unit_col[i] = next_art;
                    next_art += 1;
                }
            }
        }
        let is_art = |j: usize| j >= n + slacks && j < cols;
        // Phase 1: maximize -(sum of artificials); objective row = reduced costs.
        if artificials > 0 {
            let mut cost = vec![0.0; cols];
            for (j, c) in cost.iter_mut().enumerate() {
                if is_art(j) {
                    *c = -1.0;
                }
            }
            set_objective(&mut t, width, m, &basis, &cost);
            if !run(&mut t, width, m, cols, &mut basis, &|_| true) {
                return Outcome::Unbounded; // cannot happen: phase 1 is bounded
            }
            if t[cols] < -1e-9 * scale_of(&self.rows) {
                return Outcome::Infeasible;
            }
            // Drive artificials still basic (at 0) out of the basis where a real column can
            // replace them; rows where none can are redundant and keep them at 0.
            for i in 0..m {
                if is_art(basis[i]) {
                    let r = (i + 1) * width;
                    if let Some(j) = (0..n + slacks).find(|&j| t[r + j].abs() > EPS) {
                        pivot(&mut t, width, m, i, j);
                        basis[i] = j;
                    }
                }
            }
        }
        // Phase 2.
        let mut cost = vec![0.0; cols];
        for &(j, c) in &self.objective {
            cost[j] += c;
        }
        set_objective(&mut t, width, m, &basis, &cost);
        if !run(&mut t, width, m, cols, &mut basis, &|j| !is_art(j)) {
            return Outcome::Unbounded;
        }
        let mut x = vec![0.0; n];
        for i in 0..m {
            if basis[i] < n {
                x[basis[i]] = t[(i + 1) * width + cols].max(0.0);
            }
        }
        let value = self.objective.iter().map(|&(j, c)| c * x[j]).sum();
        let duals = (0..m)
            .map(|i| {
                // Reduced cost of row i's starting unit column = (c_B B^-1)_i (its cost is 0
                // in phase 2); a flipped row's dual changes sign.
                sign[i] * t[unit_col[i]]
            })
            .collect();
        let reduced = t[..n].to_vec();
        Outcome::Optimal(Optimum {
            x,
            value,
            duals,
            reduced,
        })
    }
}

fn scale_of(rows: &[Row]) -> f64 {
    rows.iter().map(|r| r.2.abs()).fold(1.0, f64::max)
}

/// Writes the reduced costs `c_B B^-1 A_j - c_j` of `cost` into row 0.
fn set_objective(t: &mut [f64], width: usize, m: usize, basis: &[usize], cost: &[f64]) {
    for j in 0..width {
        t[j] = if j < cost.len() { -cost[j] } else { 0.0 };
    }
    for i in 0..m {
        let cb = cost[basis[i]];
        if cb != 0.0 {
            let r = (i + 1) * width;
            for j in 0..width {
                t[j] += cb * t[r + j];
            }
        }
    }
}

/// Simplex iterations with Bland's rule over the columns `allowed`; false when unbounded.
fn run(
    t: &mut [f64],
    width: usize,
    m: usize,
    cols: usize,
    basis: &mut [usize],
    allowed: &dyn Fn(usize) -> bool,
) -> bool {
    loop {
        let Some(enter) = (0..cols).find(|&j| allowed(j) && t[j] < -EPS) else {
            return true;
        };
        let mut leave: Option<usize> = None;
        let mut best = f64::INFINITY;
        for i in 0..m {
            let a = t[(i + 1) * width + enter];
            if a > EPS {
                let ratio = t[(i + 1) * width + cols] / a;
                let better = match leave {
                    None => true,
                    Some(k) => {
                        ratio < best - 1e-15 || (ratio <= best + 1e-15 && basis[i] < basis[k])
                    }
                };
                if better {
                    best = ratio;
                    leave = Some(i);
                }
            }
        }
        let Some(i) = leave else {
            return false;
        };
        pivot(t, width, m, i, enter);
        basis[i] = enter;
    }
}

/// Pivots on row `i` (0-based constraint row), column `j`.
fn pivot(t: &mut [f64], width: usize, m: usize, i: usize, j: usize) {
    let r = (i + 1) * width;
    let p = t[r + j];
    for k in 0..width {
        t[r + k] /= p;
    }
    t[r + j] = 1.0;
    for row in 0..=m {
        if row == i + 1 {
            continue;
        }
        let q = row * width;
        let f = t[q + j];
        if f != 0.0 {
            for k in 0..width {
                t[q + k] -= f * t[r + k];
            }
            t[q + j] = 0.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn optimal(lp: &Lp) -> Optimum {
        match lp.solve() {
            Outcome::Optimal(o) => o,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn textbook_maximum_and_duals() {
        // max 3x + 5y: x <= 4, 2y <= 12, 3x + 2y <= 18 -> (2, 6), 36; duals (0, 3/2, 1).
        let lp = Lp {
            vars: 2,
            objective: vec![(0, 3.0), (1, 5.0)],
            rows: vec![
                (vec![(0, 1.0)], Cmp::Le, 4.0),
                (vec![(1, 2.0)], Cmp::Le, 12.0),
                (vec![(0, 3.0), (1, 2.0)], Cmp::Le, 18.0),
            ],
        };
        let o = optimal(&lp);
        assert!((o.x[0] - 2.0).abs() < 1e-12 && (o.x[1] - 6.0).abs() < 1e-12);
        assert!((o.value - 36.0).abs() < 1e-12);
        for (d, w) in o.duals.iter().zip([0.0, 1.5, 1.0]) {
            assert!((d - w).abs() < 1e-12, "{:?}", o.duals);
        }
    }

    #[test]
    fn ge_and_eq_rows_need_phase_one() {
        // max -x - y (min x + y): x + y >= 2, x - y = 1 -> (1.5, 0.5), value -2; the >= row's
        // dual is -1 (raising its right side lowers the maximum).
        let lp = Lp {
            vars: 2,
            objective: vec![(0, -1.0), (1, -1.0)],
            rows: vec![
                (vec![(0, 1.0), (1, 1.0)], Cmp::Ge, 2.0),
                (vec![(0, 1.0), (1, -1.0)], Cmp::Eq, 1.0),
            ],
        };
        let o = optimal(&lp);
        assert!(
            (o.x[0] - 1.5).abs() < 1e-12 && (o.x[1] - 0.5).abs() < 1e-12,
            "{o:?}"
        );
        assert!((o.duals[0] + 1.0).abs() < 1e-12, "{:?}", o.duals);
        // Negative right sides are flipped: -x <= -3 is x >= 3.
        let lp = Lp {
            vars: 1,
            objective: vec![(0, -1.0)],
            rows: vec![(vec![(0, -1.0)], Cmp::Le, -3.0)],
        };
        let o = optimal(&lp);
        assert!(
            (o.x[0] - 3.0).abs() < 1e-12 && (o.duals[0] - 1.0).abs() < 1e-12,
            "{o:?}"
        );
    }

    #[test]
    fn infeasible_and_unbounded() {
        let lp = Lp {
            vars: 1,
            objective: vec![(0, 1.0)],
            rows: vec![
                (vec![(0, 1.0)], Cmp::Le, 1.0),
                (vec![(0, 1.0)], Cmp::Ge, 2.0),
            ],
        };
        assert!(matches!(lp.solve(), Outcome::Infeasible));
        let lp = Lp {
            vars: 1,
            objective: vec![(0, 1.0)],
            rows: vec![(vec![(0, 1.0)], Cmp::Ge, 2.0)],
        };
        assert!(matches!(lp.solve(), Outcome::Unbounded));
    }
}
