//! DRILL (Ghorbani et al., SIGCOMM 2017): micro load balancing at every switch, per packet.
//! For each packet a switch samples `d` of the equal-cost output ports at random, adds the `m`
//! least-loaded ports it remembers from its previous decisions, sends the packet to the one
//! with the smallest queue among them and remembers that one. DRILL's default is d = 2, m = 1
//! ("DRILL(2,1)"). It looks only at local queues, so it runs under any transport; it reorders
//! packets of a flow, which the receivers count (`Counters::reordered_packets`).

use super::{BalancerUnit, Build, LoadBalancer};
use crate::keys::At;
use crate::packet::Packet;
use dctc_core::error::KeyError;
use dctc_core::topology::Topology;
use dctc_core::ids::{LinkId, NodeId};
use dctc_core::rng::{component_rng, streams, SimRng};
use rand::Rng;

/// DRILL's settings.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DrillParams {
    /// Random samples per decision (DRILL's d), 1..=[`MAX_SAMPLES`].
    pub samples: u32,
    /// Remembered least-loaded ports per switch (DRILL's m), 0..=[`MAX_MEMORY`].
    pub memory: u32,
}

impl Default for DrillParams {
    /// DRILL(2, 1), the paper's choice.
    fn default() -> Self {
        DrillParams {
            samples: 2,
            memory: 1,
        }
    }
}

/// Most remembered ports per switch (bounds the per-node memory array).
pub const MAX_MEMORY: u32 = 8;
/// Most random samples per decision (the samples drawn are tracked in a fixed array).
pub const MAX_SAMPLES: u32 = 8;

/// DRILL(d, m) with one memory per switch.
#[derive(Debug, Clone)]
pub struct Drill {
    params: DrillParams,
    /// `memory[node * m .. node * m + m]`: the ports the node chose last (`u32::MAX` = empty),
    /// most recent first.
    memory: Vec<u32>,
    rng: SimRng,
}

impl Drill {
    /// DRILL for a fabric of `n_nodes` nodes, its samples drawn from the run's routing stream
    /// (past the word the ECMP salt uses, so adding DRILL shifts no other draw).
    pub fn new(n_nodes: usize, params: DrillParams, seed: u64) -> Self {
        let mut rng = component_rng(seed, streams::ROUTING);
        // The ECMP salt takes the stream's first word; DRILL starts far past it.
        rng.set_word_pos(1 << 40);
        let m = params.memory.min(MAX_MEMORY) as usize;
        Drill {
            params: DrillParams {
                memory: m as u32,
                ..params
            },
            memory: vec![u32::MAX; n_nodes * m],
            rng,
        }
    }
}

impl LoadBalancer for Drill {
    fn reads_backlog(&self) -> bool {
        true
    }

    fn pick(
        &mut self,
        at: NodeId,
        _pkt: &Packet,
        candidates: &[LinkId],
        queue_bytes: &dyn Fn(LinkId) -> u64,
    ) -> usize {
        let n = candidates.len();
        if n == 1 {
            return 0;
        }
        let mut best = usize::MAX;
        let mut best_q = u64::MAX;
        let mut consider = |i: usize, best: &mut usize| {
            let q = queue_bytes(candidates[i]);
            if q < best_q {
                best_q = q;
                *best = i;
            }
        };
        // d distinct random ports (all of them when d >= n), drawn by rejection against the
        // ones already taken (d < n, so each draw succeeds with probability >= 1/n).
        let d = (self.params.samples.clamp(1, MAX_SAMPLES) as usize).min(n);
        if d == n {
            for i in 0..n {
                consider(i, &mut best);
            }
        } else {
            let mut taken = [usize::MAX; MAX_SAMPLES as usize];
            let mut k = 0;
            while k < d {
                let i = self.rng.random_range(0..n);
                if taken[..k].contains(&i) {
                    continue;
                }
                taken[k] = i;
                consider(i, &mut best);
                k += 1;
            }
        }
        // The remembered ports that are among this packet's candidates.
        let m = self.params.memory as usize;
        let mem = &mut self.memory[at.index() * m..at.index() * m + m];
        for &l in mem.iter() {
            if l == u32::MAX {
                continue;
            }
            if let Some(i) = candidates.iter().position(|c| c.0 == l) {
                consider(i, &mut best);
            }
        }
        // Remember the chosen port, most recent first.
        if m > 0 {
            let chosen = candidates[best].0;
            if let Some(p) = mem.iter().position(|&x| x == chosen) {
                mem[..=p].rotate_right(1);
            } else {
                mem.rotate_right(1);
            }
            mem[0] = chosen;
        }
        best
    }
}

crate::unit_keys! {
    /// `[packet].drill`: DRILL's settings.
    pub struct DrillKnobs {
        /// Random samples per decision, DRILL's d, 1..=8 (default 2).
        samples: u32,
        /// Remembered ports per switch, DRILL's m, 0..=8 (default 1).
        memory: u32,
    }
}

crate::unit_keys! {
    /// DRILL's `[packet]` keys.
    pub struct Keys {
        /// `drill = { samples, memory }`.
        drill: DrillKnobs,
    }
}

impl BalancerUnit for Drill {
    const NAME: &'static str = "drill";
    const ABOUT: &'static str = "DRILL(d, m): per packet at every switch, the shortest of d random and m remembered queues ([packet].drill)";
    type Keys = Keys;
    type Params = DrillParams;
    fn resolve(keys: &Keys, _topo: &Topology) -> Result<DrillParams, KeyError> {
        let mut p = DrillParams::default();
        let Some(d) = &keys.drill else {
            return Ok(p);
        };
        let at = At("packet.drill");
        let n = |key, v: Option<u32>, lo: u32, hi: u32| at.count(key, v.map(i64::from), lo as i64, hi as i64);
        if let Some(s) = n("samples", d.samples, 1, MAX_SAMPLES)? {
            p.samples = s as u32;
        }
        if let Some(m) = n("memory", d.memory, 0, MAX_MEMORY)? {
            p.memory = m as u32;
        }
        Ok(p)
    }
    fn build(params: &DrillParams, ctx: &Build) -> Result<Self, String> {
        Ok(Drill::new(ctx.topo.nodes().len(), *params, ctx.seed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketKind;

    fn pkt() -> Packet {
        Packet::new(0, PacketKind::Data, NodeId(0), NodeId(1))
    }

    #[test]
    fn takes_the_shortest_of_all_ports_when_it_samples_them_all() {
        let links: Vec<LinkId> = (0..4).map(LinkId).collect();
        let mut d = Drill::new(
            3,
            DrillParams {
                samples: 4,
                memory: 0,
            },
            1,
        );
        let q = |l: LinkId| [9000u64, 3000, 100, 7000][l.index()];
        for _ in 0..50 {
            assert_eq!(d.pick(NodeId(1), &pkt(), &links, &q), 2);
        }
    }

    #[test]
    fn memory_keeps_the_least_loaded_port_found_so_far() {
        // One sample per decision: without memory a packet lands on a random port; with
        // m = 1 the switch keeps the empty port once it has seen it and never leaves it for
        // a longer queue.
        let links: Vec<LinkId> = (0..6).map(LinkId).collect();
        let q = |l: LinkId| if l.0 == 4 { 0 } else { 5000 + l.0 as u64 };
        let mut with = Drill::new(
            2,
            DrillParams {
                samples: 1,
                memory: 1,
            },
            7,
        );
        let picks: Vec<usize> = (0..200)
            .map(|_| with.pick(NodeId(1), &pkt(), &links, &q))
            .collect();
        let first = picks.iter().position(|&i| i == 4).expect("port 4 sampled");
        assert!(picks[first..].iter().all(|&i| i == 4), "{picks:?}");
        let mut without = Drill::new(
            2,
            DrillParams {
                samples: 1,
                memory: 0,
            },
            7,
        );
        let spread = (0..200)
            .map(|_| without.pick(NodeId(1), &pkt(), &links, &q))
            .filter(|&i| i != 4)
            .count();
        assert!(
            spread > 100,
            "memoryless single samples hit port 4 only ~1/6 of the time"
        );
    }

    #[test]
    fn two_samples_are_distinct_ports() {
        // With d = 2 over two ports both are always sampled, so the shorter always wins.
        let links = [LinkId(0), LinkId(1)];
        let mut d = Drill::new(1, DrillParams::default(), 3);
        for _ in 0..100 {
            assert_eq!(d.pick(NodeId(0), &pkt(), &links, &|l| 10 - l.0 as u64), 1);
        }
        // And over three ports, a port that is never shortest is never picked while two of
        // the others are always shorter.
        let links3 = [LinkId(0), LinkId(1), LinkId(2)];
        for _ in 0..100 {
            assert_ne!(
                d.pick(NodeId(0), &pkt(), &links3, &|l| [5, 5, 99][l.index()]),
                2
            );
        }
    }

    #[test]
    fn same_seed_same_choices() {
        let links: Vec<LinkId> = (0..5).map(LinkId).collect();
        let run = |seed| {
            let mut d = Drill::new(4, DrillParams::default(), seed);
            (0..300)
                .map(|k| {
                    d.pick(NodeId(k % 4), &pkt(), &links, &|l| {
                        (l.0 as u64 * 7 + k as u64) % 5
                    })
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(run(11), run(11));
        assert_ne!(run(11), run(12));
    }

    /// p99 of (largest - smallest) backlog, in packets, over four FIFO ports of one packet a
    /// time unit fed by this balancer: arrivals every 1/3.9 unit (load 0.975, as the
    /// conformance suite's 2:1 oversubscribed uplinks under DCTCP), backlogs read as unfinished
    /// work (the fabric's FIFO backlog: the packet in service counted by what is left of it),
    /// sampled once a unit after a warm-up.
    fn p99_spread(params: DrillParams) -> f64 {
        let links: Vec<LinkId> = (0..4).map(LinkId).collect();
        let mut d = Drill::new(1, params, 5);
        // Work ends, in 1/1000 of a packet time.
        let mut busy = [0u64; 4];
        let (step, mut next_sample) = (1000 * 10 / 39, 100_000u64);
        let mut spreads = Vec::new();
        for k in 0..400_000u64 {
            let now = k * step;
            while next_sample < now {
                let q = busy.map(|b| b.saturating_sub(next_sample));
                spreads.push((q.iter().max().unwrap() - q.iter().min().unwrap()) as f64 / 1000.0);
                next_sample += 1000;
            }
            let i = d.pick(NodeId(0), &pkt(), &links, &|l| busy[l.index()].saturating_sub(now));
            busy[i] = busy[i].max(now) + 1000;
        }
        spreads.sort_by(f64::total_cmp);
        spreads[spreads.len() * 99 / 100]
    }

    #[test]
    fn drill_2_1_keeps_four_uplinks_about_three_packets_apart_at_p99_and_sampling_all_one() {
        // Issue 25's conformance suite measured DRILL's sending-leaf uplinks 3.0 packets apart
        // at p99, against a band of 2. Fed at a steady 97.5% load, with no transport and no
        // fabric, DRILL(2, 1) itself gives more than the band (a Python model of the same
        // queues: 2.6 with these evenly spaced arrivals, 3.1 with Poisson ones, 2.6 with eight
        // paced hosts): the least-loaded port goes
        // unsampled for runs of decisions (half of them miss it, and memory keeps the port last
        // chosen). Sampling every port keeps the spread within the one packet a decision can
        // add. So the 3.0 is DRILL(2, 1)'s, not the fabric's backlog reading.
        let two_one = p99_spread(DrillParams::default());
        assert!(two_one > 2.0 && two_one <= 3.5, "DRILL(2,1) p99 spread {two_one}");
        let all = p99_spread(DrillParams {
            samples: 4,
            memory: 0,
        });
        assert!(all <= 1.0, "DRILL(4,0) p99 spread {all}");
    }
}
