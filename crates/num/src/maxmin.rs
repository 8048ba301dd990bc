//! Weighted max-min fair rates by water-filling.
//!
//! Every unfrozen flow `f` gets `w_f * level`; the level rises until a link fills (its flows
//! freeze at the current level) or a flow reaches its cap (it freezes alone). The result is the
//! unique weighted max-min fair allocation: no flow can grow without shrinking a flow whose
//! normalized rate `x_f / w_f` is no larger.

use crate::csr::Csr;

/// Relative tolerance for "this link is full at this level".
const TIE: f64 = 1e-12;

/// Weighted max-min fair rates.
///
/// - `capacity[l]`: capacity of link `l` (b/s, >= 0).
/// - `routes.row(f)`: the links flow `f` crosses (a flow with no links is limited only by its
///   cap).
/// - `weight[f] > 0`.
/// - `cap[f]`: the flow's own maximum rate (`f64::INFINITY` for none).
///
/// A flow with no links and no cap gets `f64::INFINITY`.
pub fn weighted_max_min(capacity: &[f64], routes: &Csr, weight: &[f64], cap: &[f64]) -> Vec<f64> {
    let n = routes.rows();
    assert_eq!(weight.len(), n, "one weight per flow");
    assert_eq!(cap.len(), n, "one cap per flow");
    let by_link = routes.transpose(capacity.len());
    let mut rate = vec![0.0f64; n];
    let mut frozen = vec![false; n];
    let mut remaining: Vec<f64> = capacity.to_vec();
    // Sum of weights of unfrozen flows per link.
    let mut active_weight = vec![0.0f64; capacity.len()];
    // Unfrozen flows per link: a link whose flows are all frozen has weight exactly 0 (the
    // running sum of weights can keep a rounding residue, which once stalled the loop).
    let mut active_count = vec![0u32; capacity.len()];
    for (f, &w) in weight.iter().enumerate() {
        debug_assert!(w > 0.0, "weights must be positive");
        for &l in routes.row(f) {
            active_weight[l as usize] += w;
            active_count[l as usize] += 1;
        }
    }
    let mut unfrozen = n;
    while unfrozen > 0 {
        // The lowest level at which a link fills or a flow hits its cap.
        let mut level = f64::INFINITY;
        for l in 0..capacity.len() {
            if active_weight[l] > 0.0 {
                level = level.min(remaining[l].max(0.0) / active_weight[l]);
            }
        }
        for f in 0..n {
            if !frozen[f] {
                level = level.min(cap[f] / weight[f]);
            }
        }
        if level.is_infinite() {
            // Only unconstrained flows are left.
            for f in 0..n {
                if !frozen[f] {
                    rate[f] = f64::INFINITY;
                    frozen[f] = true;
                }
            }
            break;
        }
        let threshold = level * (1.0 + TIE) + f64::MIN_POSITIVE;
        let mut to_freeze = Vec::new();
        for l in 0..capacity.len() {
            if active_weight[l] > 0.0 && remaining[l].max(0.0) / active_weight[l] <= threshold {
                for &f in by_link.row(l) {
                    if !frozen[f as usize] {
                        to_freeze.push(f as usize);
                    }
                }
            }
        }
        for f in 0..n {
            if !frozen[f] && cap[f] / weight[f] <= threshold {
                to_freeze.push(f);
            }
        }
        let to_freeze_was_empty = to_freeze.iter().all(|&f| frozen[f]);
        for f in to_freeze {
            if frozen[f] {
                continue;
            }
            frozen[f] = true;
            unfrozen -= 1;
            rate[f] = (weight[f] * level).min(cap[f]);
            for &l in routes.row(f) {
                let l = l as usize;
                remaining[l] -= rate[f];
                active_count[l] -= 1;
                active_weight[l] = if active_count[l] == 0 {
                    0.0
                } else {
                    (active_weight[l] - weight[f]).max(0.0)
                };
            }
        }
        if to_freeze_was_empty {
            // Nothing froze at this level (only possible through rounding): freeze the flows
            // of the tightest link so the loop always makes progress.
            let tightest = (0..capacity.len())
                .filter(|&l| active_count[l] > 0)
                .min_by(|&a, &b| {
                    let ra = remaining[a].max(0.0) / active_weight[a];
                    let rb = remaining[b].max(0.0) / active_weight[b];
                    ra.total_cmp(&rb)
                });
            match tightest {
                Some(l) => {
                    for &f in by_link.row(l) {
                        let f = f as usize;
                        if !frozen[f] {
                            frozen[f] = true;
                            unfrozen -= 1;
                            rate[f] = (weight[f] * level).min(cap[f]);
                            for &m in routes.row(f) {
                                let m = m as usize;
                                remaining[m] -= rate[f];
                                active_count[m] -= 1;
                                active_weight[m] = if active_count[m] == 0 {
                                    0.0
                                } else {
                                    (active_weight[m] - weight[f]).max(0.0)
                                };
                            }
                        }
                    }
                }
                None => {
                    for f in 0..n {
                        if !frozen[f] {
                            frozen[f] = true;
                            unfrozen -= 1;
                            rate[f] = (weight[f] * level).min(cap[f]);
                        }
                    }
                }
            }
        }
    }
    rate
}

/// Unweighted max-min fair rates with no caps.
pub fn max_min(capacity: &[f64], routes: &Csr) -> Vec<f64> {
    let n = routes.rows();
    weighted_max_min(capacity, routes, &vec![1.0; n], &vec![f64::INFINITY; n])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn n_flows_share_one_link_equally() {
        let routes = Csr::from_rows((0..4).map(|_| vec![0u32]));
        let r = max_min(&[10.0], &routes);
        assert!(r.iter().all(|&x| close(x, 2.5)), "{r:?}");
    }

    #[test]
    fn parking_lot() {
        // Links 0 and 1 of capacity 1; flow 0 crosses both, flows 1 and 2 one each, flow 3
        // also on link 1: link 1 has three flows -> 1/3 each, flow 1 takes the rest of link 0.
        let routes = Csr::from_rows(vec![vec![0u32, 1], vec![0], vec![1], vec![1]]);
        let r = max_min(&[1.0, 1.0], &routes);
        let want = [1.0 / 3.0, 2.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0];
        for (x, w) in r.iter().zip(want) {
            assert!(close(*x, w), "{r:?}");
        }
    }

    #[test]
    fn weights_and_caps() {
        let routes = Csr::from_rows(vec![vec![0u32], vec![0], vec![0]]);
        // Weights 1:2:1 on capacity 8 -> 2, 4, 2; cap flow 1 at 3 -> 2.5, 3, 2.5.
        let r = weighted_max_min(&[8.0], &routes, &[1.0, 2.0, 1.0], &[f64::INFINITY; 3]);
        assert!(
            close(r[0], 2.0) && close(r[1], 4.0) && close(r[2], 2.0),
            "{r:?}"
        );
        let r = weighted_max_min(
            &[8.0],
            &routes,
            &[1.0, 2.0, 1.0],
            &[f64::INFINITY, 3.0, f64::INFINITY],
        );
        assert!(
            close(r[0], 2.5) && close(r[1], 3.0) && close(r[2], 2.5),
            "{r:?}"
        );
    }

    #[test]
    fn pathless_flows_take_their_cap() {
        let routes = Csr::from_rows(vec![Vec::<u32>::new(), vec![]]);
        let r = weighted_max_min(&[], &routes, &[1.0, 1.0], &[5.0, f64::INFINITY]);
        assert_eq!(r, vec![5.0, f64::INFINITY]);
    }
}
