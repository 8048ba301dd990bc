//! The pull layout: paths split into a head and a tail *half*, flows arranged head by head in
//! sliced-ELLPACK order, links renumbered.
//!
//! Every path of one to four links is split into a head (its first `ceil(n / 2)` links) and a
//! tail (the rest), each padded to two links with the dummy link (price 0, F-NORM ratio
//! infinite). Equal heads are shared, and so are equal tails: a flow's path price is the sum
//! of its head's and its tail's price sums, and its F-NORM factor the smaller of their ratios.
//! Nothing here depends on the topology; flow sets whose paths share few halves only lose the
//! sharing (the paper's Clos with `n` hosts and 4 spines has at most `5n` heads and `5n`
//! tails for any number of flows).
//!
//! Flow positions: heads are sorted by their number of flows and cut into slices of [`W`];
//! slice `k` holds rows `rows[k]..rows[k + 1]`, and row `r` holds in lane `j` the next flow of
//! head `k * W + j` (or padding: weight and line rate 0, so rate, demand and slope are 0).
//! A row is `W` flows of `W` different heads: the head's price and ratio are per lane and
//! constant over the slice, and its sums of rate, demand and slope are *pulled* into per-lane
//! registers with no scatter and no branch per flow. Only the tail needs gathers (its two
//! links' prices and ratios, stored beside the flow) and a scatter (its sums, 16 bytes).
//!
//! Links are numbered by how many halves contain them and cut into slices of `W` as well, so
//! the link pass sums `W` links' halves side by side (sliced ELLPACK again).

use super::FlowSet;
use std::collections::BTreeMap;

/// Lanes: flows of different heads processed side by side, and links summed side by side.
pub const W: usize = 8;

/// A sliced-ELLPACK incidence: lane `j` of slice `k` is row `k * W + j` of the sparse matrix;
/// slice `k`'s columns are `idx[rows[k]..rows[k + 1]]`, one entry per lane, padded with a
/// column whose value is always zero.
#[derive(Clone, Debug, Default)]
pub struct Sell {
    /// Slice `k` holds entries `rows[k]..rows[k + 1]`.
    pub rows: Vec<u32>,
    /// Entries, one per lane.
    pub idx: Vec<[u32; W]>,
}

impl Sell {
    /// From one list per row (`lists.len()` a multiple of `W`), padding with `pad`.
    fn new(lists: &[Vec<u32>], pad: u32) -> Sell {
        let mut rows = vec![0u32];
        let mut idx = Vec::new();
        for lanes in lists.chunks(W) {
            let len = lanes.iter().map(Vec::len).max().unwrap_or(0);
            for r in 0..len {
                let mut e = [pad; W];
                for (j, u) in lanes.iter().enumerate() {
                    if let Some(&p) = u.get(r) {
                        e[j] = p;
                    }
                }
                idx.push(e);
            }
            rows.push(idx.len() as u32);
        }
        Sell { rows, idx }
    }

    /// Slices.
    pub fn slices(&self) -> usize {
        self.rows.len() - 1
    }

    /// The same rows keeping only the entries for which `keep` holds (each row padded with
    /// `pad` to its slice's new longest row; a slice may end up with no entries).
    pub fn filtered(&self, keep: impl Fn(u32) -> bool, pad: u32) -> Sell {
        let mut lists = Vec::with_capacity(self.slices() * W);
        for k in 0..self.slices() {
            let entries = &self.idx[self.rows[k] as usize..self.rows[k + 1] as usize];
            for j in 0..W {
                lists.push(
                    entries
                        .iter()
                        .map(|e| e[j])
                        .filter(|&c| c != pad && keep(c))
                        .collect(),
                );
            }
        }
        Sell::new(&lists, pad)
    }
}

/// Flows arranged head by head, paths split into shared halves, links renumbered (see the
/// module docs).
#[derive(Clone, Debug)]
pub struct Layout {
    /// Flows.
    pub flows: usize,
    /// Head slice `k` holds position rows `rows[k]..rows[k + 1]`.
    pub rows: Vec<u32>,
    /// Per position row: the original flow index in each lane (`u32::MAX`: padding).
    pub flow_at: Vec<[u32; W]>,
    /// Per position row: the tail of each lane (padding: tail 0, contributing zeros).
    pub tail_at: Vec<[u32; W]>,
    /// Per position row: the two internal links of each lane's tail (padding: the dummy), so
    /// the flow pass takes a tail's price and ratio straight from the link table.
    pub tail_links_at: Vec<[[u32; 2]; W]>,
    /// Per head (slice order, padding heads included): its two internal link ids.
    pub heads: Vec<[u32; 2]>,
    /// Per tail: its two internal link ids.
    pub tails: Vec<[u32; 2]>,
    /// Internal link -> heads containing it; padding column `heads.len()` (always zero).
    pub link_heads: Sell,
    /// Internal link -> tails containing it; padding column `tails.len()` (always zero).
    pub link_tails: Sell,
    /// Internal link id -> the flow set's link index (padding links: `u32::MAX`).
    pub link_of: Vec<u32>,
    /// The dummy link's internal id.
    pub dummy: usize,
}

/// Why a flow set does not fit the pull layout.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum LayoutError {
    /// Arrays of the flow set whose lengths disagree.
    #[error("flow set: {0}")]
    Shape(String),
    /// A weight or line rate that is not positive and finite.
    #[error("flow {flow}: {what} {value} is not positive and finite")]
    BadFlow {
        /// The flow.
        flow: usize,
        /// `weight` or `line rate`.
        what: &'static str,
        /// The value.
        value: f64,
    },
    /// A flow whose four link slots are all the dummy.
    #[error("flow {0} has no link")]
    EmptyPath(usize),
    /// A link index past the dummy.
    #[error("flow {flow}: link {link} does not exist ({links} links)")]
    UnknownLink {
        /// The flow.
        flow: usize,
        /// Its link.
        link: u32,
        /// Links without the dummy.
        links: usize,
    },
}

/// Distinct pairs numbered by count, descending (ties by links): a deterministic order.
fn number(pairs: impl Iterator<Item = [u32; 2]>) -> (BTreeMap<[u32; 2], u32>, Vec<[u32; 2]>) {
    let mut count: BTreeMap<[u32; 2], u32> = BTreeMap::new();
    for p in pairs {
        *count.entry(p).or_default() += 1;
    }
    let mut by_count: Vec<([u32; 2], u32)> = count.into_iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let list: Vec<[u32; 2]> = by_count.iter().map(|x| x.0).collect();
    let id = list
        .iter()
        .enumerate()
        .map(|(i, p)| (*p, i as u32))
        .collect();
    (id, list)
}

impl Layout {
    /// The layout of `set` (any flow set with up to four links per flow).
    pub fn new(set: &FlowSet) -> Result<Layout, LayoutError> {
        let dummy = set.dummy as u32;
        let n = set.flows();
        if set.links.len() != 4 * n || set.line.len() != n || set.capacity.len() != set.dummy + 1 {
            return Err(LayoutError::Shape(format!(
                "{n} weights, {} line rates, {} link slots (want 4 per flow), {} capacities \
                 for {} links and the dummy",
                set.line.len(),
                set.links.len(),
                set.capacity.len(),
                set.dummy
            )));
        }
        for f in 0..n {
            for (what, value) in [("weight", set.weight[f]), ("line rate", set.line[f])] {
                if !(value > 0.0 && value.is_finite()) {
                    return Err(LayoutError::BadFlow {
                        flow: f,
                        what,
                        value,
                    });
                }
            }
        }
        // Split every path into (head, tail) link pairs.
        let mut split: Vec<([u32; 2], [u32; 2])> = Vec::with_capacity(n);
        for f in 0..n {
            let path: Vec<u32> = set.links[4 * f..4 * f + 4]
                .iter()
                .copied()
                .filter(|&l| l != dummy)
                .collect();
            if let Some(&link) = path.iter().find(|&&l| l > dummy) {
                return Err(LayoutError::UnknownLink {
                    flow: f,
                    link,
                    links: set.dummy,
                });
            }
            if path.is_empty() {
                return Err(LayoutError::EmptyPath(f));
            }
            let k = path.len().div_ceil(2);
            let pair = |s: &[u32]| [*s.first().unwrap_or(&dummy), *s.get(1).unwrap_or(&dummy)];
            split.push((pair(&path[..k]), pair(&path[k..])));
        }
        let (head_id, head_list) = number(split.iter().map(|s| s.0));
        let (tail_id, tail_list) = number(split.iter().map(|s| s.1));
        // Internal link order: by number of halves, descending; the dummy is in none.
        // Sorted by head degree, then tail degree, so that neither ELLPACK pads the other
        // (a Clos's up links are in heads only, its down links in tails only).
        let mut degree = vec![(0u32, 0u32); set.dummy + 1];
        for (pairs, side) in [(&head_list, 0), (&tail_list, 1)] {
            for pair in pairs {
                for &l in pair {
                    if l != dummy {
                        let d = &mut degree[l as usize];
                        if side == 0 {
                            d.0 += 1;
                        } else {
                            d.1 += 1;
                        }
                    }
                }
            }
        }
        let mut link_of: Vec<u32> = (0..=dummy).collect();
        link_of.sort_by(|&a, &b| degree[b as usize].cmp(&degree[a as usize]).then(a.cmp(&b)));
        link_of.resize(link_of.len().div_ceil(W) * W, u32::MAX);
        let mut internal = vec![0u32; set.dummy + 1];
        for (i, &l) in link_of.iter().enumerate() {
            if l != u32::MAX {
                internal[l as usize] = i as u32;
            }
        }
        let idummy = internal[set.dummy];
        let nh = head_list.len().div_ceil(W) * W;
        let mut heads = vec![[idummy, idummy]; nh];
        for (i, p) in head_list.iter().enumerate() {
            heads[i] = p.map(|l| internal[l as usize]);
        }
        let tails: Vec<[u32; 2]> = tail_list
            .iter()
            .map(|p| p.map(|l| internal[l as usize]))
            .collect();
        // Flows of each head, in flow order.
        let mut of_head: Vec<Vec<u32>> = vec![Vec::new(); nh];
        for (f, (h, _)) in split.iter().enumerate() {
            of_head[head_id[h] as usize].push(f as u32);
        }
        let sell = Sell::new(&of_head, u32::MAX);
        let tail_at: Vec<[u32; W]> = sell
            .idx
            .iter()
            .map(|row| {
                row.map(|f| match f {
                    u32::MAX => 0,
                    f => tail_id[&split[f as usize].1],
                })
            })
            .collect();
        let tail_links_at = sell
            .idx
            .iter()
            .map(|row| {
                row.map(|f| match f {
                    u32::MAX => [idummy, idummy],
                    f => split[f as usize].1.map(|l| internal[l as usize]),
                })
            })
            .collect();
        // Internal link -> heads / tails.
        let incidence = |halves: &[[u32; 2]]| {
            let mut per_link: Vec<Vec<u32>> = vec![Vec::new(); link_of.len()];
            for (h, pair) in halves.iter().enumerate() {
                for &l in pair {
                    if l != idummy {
                        per_link[l as usize].push(h as u32);
                    }
                }
            }
            Sell::new(&per_link, halves.len() as u32)
        };
        Ok(Layout {
            flows: n,
            rows: sell.rows,
            flow_at: sell.idx,
            tail_at,
            tail_links_at,
            link_heads: incidence(&heads),
            link_tails: incidence(&tails),
            heads,
            tails,
            link_of,
            dummy: idummy as usize,
        })
    }

    /// Head slices.
    pub fn slices(&self) -> usize {
        self.rows.len() - 1
    }

    /// Internal links (padding included).
    pub fn links(&self) -> usize {
        self.link_of.len()
    }

    /// The flow set's dummy link index (its number of links).
    pub fn dummy_external(&self) -> usize {
        self.link_of[self.dummy] as usize
    }

    /// Positions (padding included) per flow: 1 without padding.
    pub fn positions_per_flow(&self) -> f64 {
        (self.flow_at.len() * W) as f64 / self.flows.max(1) as f64
    }
}
