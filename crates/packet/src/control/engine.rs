//! The engine's side of the control plane (see [`crate::control`]): flowlet detection at
//! senders, control connections as packets, and the agent's periodic iteration.

use super::app::Net;
use super::{Event, Simulation};
use crate::control::Msg;
use crate::packet::{HeaderExt, Packet, PacketKind};
use dctc_core::units::{Delta, SimTime};

impl Simulation<'_> {
    /// Flowlet checks for the flows whose application supplied or stopped data.
    #[inline]
    pub(crate) fn flowlet_touched(&mut self) {
        if self.ctrl.is_none() {
            self.hosts.touched.clear();
            return;
        }
        while let Some(f) = self.hosts.touched.pop() {
            self.flowlet_check(f);
        }
    }

    /// After any event of data flow `f`: a flowlet starts when the application supplied bytes
    /// and none was open; it becomes idle when every supplied byte has been sent, and ends
    /// when it stays idle for the threshold ([`Simulation::on_flowlet_idle`]).
    #[inline]
    pub(crate) fn flowlet_check(&mut self, f: u32) {
        // Runs after every event of every flow: the common case (no control plane) inlines.
        if self.ctrl.is_some() {
            self.flowlet_check_ctrl(f);
        }
    }

    fn flowlet_check_ctrl(&mut self, f: u32) {
        let now = self.now;
        let Some(cp) = self.ctrl.as_mut() else {
            return;
        };
        let fl = &self.hosts.flows[f as usize];
        let st = &mut cp.flowlets[f as usize];
        let end = fl.sender.supplied();
        let mut start = false;
        if end > st.seen_end {
            st.seen_end = end;
            st.idle_at = SimTime::NEVER;
            if !st.active {
                st.active = true;
                start = true;
            }
        }
        if st.active && st.idle_at == SimTime::NEVER && fl.sender.unsent() == 0 {
            if let Some(idle) = self.scheme.cc.allocator_spec().map(|s| s.flowlet_idle) {
                st.idle_at = now + idle;
                self.events.push(st.idle_at, Event::FlowletIdle(f));
            }
        }
        if start {
            cp.stats.flowlets += 1;
            let src = self
                .topo
                .host_index(fl.src)
                .expect("flows run between hosts");
            self.ctrl_msg(2 * src, Msg::FlowletStart { flow: f });
        }
    }

    /// The idle threshold of flow `f`'s flowlet may have passed: tell the allocator it ended.
    pub(crate) fn on_flowlet_idle(&mut self, f: u32) {
        let now = self.now;
        let Some(cp) = self.ctrl.as_mut() else {
            return;
        };
        let st = &mut cp.flowlets[f as usize];
        if !st.active || st.idle_at != now {
            return;
        }
        st.active = false;
        st.idle_at = SimTime::NEVER;
        let src = self.hosts.flows[f as usize].src;
        let src = self.topo.host_index(src).expect("flows run between hosts");
        self.ctrl_msg(2 * src, Msg::FlowletEnd { flow: f });
    }

    /// Writes `m` on control connection `c` and sends what its window allows.
    fn ctrl_msg(&mut self, c: usize, m: Msg) {
        let cp = self.ctrl.as_mut().expect("control plane");
        cp.conns[c].push(m, self.now);
        self.ctrl_send(c);
    }

    /// Sends what connection `c`'s sender allows and its receiver owes, and rearms its timer.
    fn ctrl_send(&mut self, c: usize) {
        let now = self.now;
        let cp = self.ctrl.as_mut().expect("control plane");
        let mut segs = std::mem::take(&mut cp.seg_buf);
        let mut acks = std::mem::take(&mut cp.ack_buf);
        let cfg = &cp.cfg;
        let conn = &mut cp.conns[c];
        conn.sender.send(cfg, now, &mut segs);
        let (from, to, hash) = (conn.from, conn.to, conn.hash);
        let id = cp.base + c as u32;
        let header = cfg.header;
        let to_agent = to == cp.node;
        let mut p = Packet::new(id, PacketKind::Control, from, to);
        p.hash = hash;
        p.ts = now;
        let mut bytes = 0u64;
        for s in segs.drain(..) {
            p.seq = s.seq;
            p.payload = s.len as u32;
            p.wire_bytes = (s.len + header) as u32;
            bytes += p.wire_bytes as u64;
            #[cfg(test)]
            if !to_agent && self.ctrl.as_ref().is_some_and(|c| c.drop_from_agent > 0) {
                // Lost on the wire: sent and dropped, as a full buffer would.
                self.ctrl.as_mut().expect("control plane").drop_from_agent -= 1;
                self.counters.sent_packets += 1;
                self.counters.sent_bytes += p.wire_bytes as u64;
                self.counters.dropped_packets += 1;
                self.counters.dropped_bytes += p.wire_bytes as u64;
                continue;
            }
            self.fabric
                .inject(&p, None, now, &mut self.events, &mut self.counters);
        }
        // ACKs of this connection travel the other way.
        let mut a = Packet::new(id, PacketKind::Ack, to, from);
        a.hash = hash;
        a.wire_bytes = header as u32;
        let mut back = 0u64;
        for x in acks.drain(..) {
            a.seq = x.ack;
            a.ts = x.ts_echo;
            back += header;
            self.fabric
                .inject(&a, None, now, &mut self.events, &mut self.counters);
        }
        let cp = self.ctrl.as_mut().expect("control plane");
        cp.seg_buf = segs;
        cp.ack_buf = acks;
        if to_agent {
            cp.stats.to_agent_bytes += bytes;
            cp.stats.from_agent_bytes += back;
        } else {
            cp.stats.from_agent_bytes += bytes;
            cp.stats.to_agent_bytes += back;
        }
        let conn = &mut cp.conns[c];
        let t = conn.sender.poll_at().min(conn.receiver.poll_at());
        if t < conn.timer_at {
            conn.timer_at = t;
            self.events.push(t, Event::FlowTimer(cp.base + c as u32));
        }
    }

    /// A control connection's timer (RTO or delayed ACK).
    pub(crate) fn ctrl_timer(&mut self, c: usize) {
        let now = self.now;
        let cp = self.ctrl.as_mut().expect("control plane");
        let conn = &mut cp.conns[c];
        if conn.timer_at != now {
            return;
        }
        conn.timer_at = SimTime::NEVER;
        conn.sender.on_timer(&cp.cfg, now, &mut cp.seg_buf);
        conn.receiver.on_timer(now, &mut cp.ack_buf);
        self.ctrl_send(c);
    }

    /// A packet of a control connection reached its destination: data goes to the stream's
    /// receiver (whose complete messages then take effect), an ACK to its sender.
    pub(crate) fn ctrl_deliver(&mut self, p: Packet) {
        let now = self.now;
        let cp = self.ctrl.as_mut().expect("control plane");
        let c = (p.flow - cp.base) as usize;
        let conn = &mut cp.conns[c];
        match p.kind {
            PacketKind::Ack => {
                let ack = crate::transport::AckOut {
                    ack: p.seq,
                    ece: false,
                    ts_echo: p.ts,
                };
                conn.sender.on_ack(&cp.cfg, now, &ack, &mut cp.seg_buf);
            }
            _ => {
                conn.receiver.on_data(
                    &cp.cfg,
                    now,
                    p.seq,
                    p.payload as u64,
                    false,
                    p.ts,
                    &mut cp.ack_buf,
                );
                while let Some((m, at)) =
                    self.ctrl.as_mut().expect("control plane").conns[c].pop_arrived()
                {
                    self.on_ctrl_msg(m, at);
                }
            }
        }
        self.ctrl_send(c);
    }

    /// A message took effect at its receiver.
    fn on_ctrl_msg(&mut self, m: Msg, written: SimTime) {
        let now = self.now;
        match m {
            Msg::FlowletStart { flow } => {
                let cp = self.ctrl.as_mut().expect("control plane");
                cp.allocator.start(flow, &cp.paths[flow as usize]);
                if cp.tick_at == SimTime::NEVER {
                    // Iterations run on a fixed grid of the interval.
                    let dt = self
                        .scheme
                        .cc
                        .allocator_spec()
                        .map_or(1, |s| s.interval.0.max(1));
                    cp.tick_at = SimTime((now.0 / dt + 1) * dt);
                    self.events.push(cp.tick_at, Event::AgentTick);
                }
            }
            Msg::FlowletEnd { flow } => {
                let cp = self.ctrl.as_mut().expect("control plane");
                cp.allocator.end(flow);
            }
            Msg::RateUpdate { flow, rate } => {
                let cp = self.ctrl.as_mut().expect("control plane");
                cp.stats.updates_applied += 1;
                let delay = now.0 - written.0;
                cp.stats.update_delay_sum_ps += delay;
                cp.stats.update_delay_max_ps = cp.stats.update_delay_max_ps.max(delay);
                // The rate reaches the endpoint as a control packet whose rate field holds it
                // (the endpoint opens its window, paces, and sends what that allows).
                let ext = HeaderExt {
                    window: rate.0,
                    ..HeaderExt::default()
                };
                let fl = &self.hosts.flows[flow as usize];
                let p = Packet::new(flow, PacketKind::Control, fl.dst, fl.src);
                let src = fl.src;
                self.hosts
                    .deliver(src, &p, &ext, now, &mut self.outbox, &mut self.counters);
                net!(self).send_outbox();
                self.hosts.rearm(flow, &mut self.events);
                self.flowlet_check(flow);
            }
        }
    }

    /// The agent's iteration: rate updates go out on the connections to the flows' senders.
    pub(crate) fn on_agent_tick(&mut self) {
        let now = self.now;
        let mut out = std::mem::take(&mut self.update_buf);
        let cp = self.ctrl.as_mut().expect("control plane");
        if cp.tick_at != now {
            self.update_buf = out;
            return;
        }
        cp.allocator.iterate(now, &mut out);
        cp.stats.iterations += 1;
        cp.stats.updates += out.len() as u64;
        if cp.allocator.busy() {
            let dt = self
                .scheme
                .cc
                .allocator_spec()
                .map_or(1, |s| s.interval.0.max(1));
            cp.tick_at = now + Delta(dt);
            self.events.push(cp.tick_at, Event::AgentTick);
        } else {
            cp.tick_at = SimTime::NEVER;
        }
        // One send per connection after all of this iteration's updates are written (in
        // connection order, so same-seed runs repeat).
        let mut touched = std::mem::take(&mut cp.touched);
        for &(flow, rate) in &out {
            let src = self.hosts.flows[flow as usize].src;
            let h = self.topo.host_index(src).expect("flows run between hosts");
            let cp = self.ctrl.as_mut().expect("control plane");
            cp.conns[2 * h + 1].push(Msg::RateUpdate { flow, rate }, now);
            touched.push(2 * h + 1);
        }
        touched.sort_unstable();
        touched.dedup();
        for &c in &touched {
            self.ctrl_send(c);
        }
        touched.clear();
        out.clear();
        self.ctrl.as_mut().expect("control plane").touched = touched;
        self.update_buf = out;
    }
}

#[cfg(test)]
mod tests {
    use crate::metrics::PacketRun as RunResult;
    use crate::queue::{DropTailParams, QueueSpec};
    use crate::sim::PacketScheme;
    use crate::sim::{RunOptions, Simulation, Workload};
    use crate::transport::flowtune::{AllocatorSpec, Flowtune};
    use crate::transport::{Cc, TcpConfig};
    use dctc_core::fabric::{attach_allocator, leaf_spine, LeafSpineSpec};
    use dctc_core::ids::FlowId;
    use dctc_core::routing::Routing;
    use dctc_core::spec::FlowSpec;
    use dctc_core::topology::Topology;
    use dctc_core::units::{Delta, SimTime};

    /// Two racks of three 10 Gb/s hosts, two spines at 40 Gb/s, the allocator on both spines.
    fn fabric(allocator_gbps: f64) -> Topology {
        let mut t = leaf_spine(&LeafSpineSpec {
            racks: 2,
            hosts_per_rack: 3,
            spines: 2,
            host_rate_gbps: 10.0,
            fabric_rate_gbps: 40.0,
            oversubscription: None,
            host_link_delay_us: 1.5,
            fabric_link_delay_us: 1.5,
            host_delay_us: 2.0,
            buffer_bytes: 225_000,
            spine_buffer_bytes: None,
        })
        .unwrap();
        attach_allocator(&mut t, allocator_gbps).unwrap();
        t
    }

    fn scheme(spec: AllocatorSpec) -> PacketScheme {
        let mut tcp = TcpConfig::pfabric_tuned(225_000);
        // Before its first rate a flow is plain TCP; ns-2's initial window of 2 packets (the
        // paper's simulator) keeps that start from flooding a link the allocator has given
        // away at 99%.
        tcp.initial_cwnd_packets = 2;
        PacketScheme::assemble(
            crate::schemes::flowtune::NAME,
            tcp,
            Cc::Flowtune(Flowtune::new(spec)),
            QueueSpec::DropTail(DropTailParams),
        )
    }

    fn us(x: u64) -> SimTime {
        SimTime::from_delta(Delta::from_us(x))
    }

    /// Long-lived flows from h0 and h1 to h5 (the bottleneck is h5's downlink), the second
    /// starting at `second_us`.
    fn two_flows(t: &Topology, second_us: u64) -> Workload {
        let flow = |id: u32, src: usize, start: u64| FlowSpec {
            id: FlowId(id),
            src: t.hosts()[src],
            dst: t.hosts()[5],
            size_bytes: None,
            start: us(start),
            stop: None,
            coflow: None,
        };
        Workload {
            flows: vec![flow(0, 0, 0), flow(1, 1, second_us)],
            incasts: Vec::new(),
        }
    }

    /// The port feeding h5.
    fn bottleneck(t: &Topology) -> u32 {
        let h5 = t.hosts()[5];
        t.link_between(t.edge_switch(h5).unwrap(), h5).unwrap().0
    }

    fn run(t: &Topology, s: &PacketScheme, wl: &Workload, end_us: u64, fault: u32) -> RunResult {
        let routing = Routing::new(t).unwrap();
        let mut opts = RunOptions::new(1, us(end_us));
        opts.throughput_bin = Some(Delta::from_us(10));
        opts.queue_sample = Some(Delta::from_us(1));
        opts.sample_links = vec![bottleneck(t)];
        let mut sim = Simulation::new(t, &routing, s, wl, opts).unwrap();
        sim.ctrl.as_mut().unwrap().drop_from_agent = fault;
        let r = sim.run(&mut |_| {});
        // Invariant: every byte sent was delivered, dropped or is still in flight.
        let c = &r.counters;
        assert_eq!(
            c.sent_bytes,
            c.delivered_bytes + c.dropped_bytes + c.in_flight_bytes
        );
        r
    }

    /// Gb/s of flow `id` in the 10 us bins `[from, to)` (us).
    fn gbps(r: &RunResult, id: u32, from_us: u64, to_us: u64) -> f64 {
        let bins = &r.throughput.iter().find(|x| x.0 == id).unwrap().1;
        let (a, b) = ((from_us / 10) as usize, (to_us / 10) as usize);
        let bytes: u64 = (a..b).map(|i| bins.get(i).copied().unwrap_or(0)).sum();
        bytes as f64 * 8.0 / ((to_us - from_us) as f64 * 1e-6) / 1e9
    }

    #[test]
    fn two_flows_share_a_bottleneck_within_100us_with_a_short_queue() {
        let t = fabric(40.0);
        let s = scheme(AllocatorSpec::default());
        let r = run(&t, &s, &two_flows(&t, 1000), 2000, 0);
        // Alone, the first flow gets the link (99% of it, payload of 1500 B packets).
        let alone = gbps(&r, 0, 500, 1000);
        assert!(alone > 0.95 * 9.9 * 1460.0 / 1500.0, "alone {alone}");
        // From 100 us after the second flow's start, each within 5% of half the link
        // (payload rate: 1460 of every 1500 wire bytes).
        let half = 5.0 * 1460.0 / 1500.0;
        for id in [0, 1] {
            for from in (1100..2000).step_by(100) {
                let g = gbps(&r, id, from, from + 100);
                assert!(
                    (g - half).abs() < 0.05 * half,
                    "flow {id} at {from} us: {g}"
                );
            }
        }
        // The queue stays short once rates are set.
        let q = r
            .queue_samples
            .iter()
            .filter(|x| x.time_ps >= us(1100).0)
            .map(|x| x.bytes)
            .max()
            .unwrap();
        assert!(q < 10_000, "queue {q}");
        assert!(r.counters.rate_updates_applied >= 3);
        assert_eq!(r.counters.flowlets, 2);
    }

    #[test]
    fn updates_over_a_congested_control_path_arrive_late_and_the_old_rate_holds() {
        // The allocator's links at 20 Mb/s: a 60 B update takes 24 us per hop to serialize,
        // and the start notifications and updates queue behind each other.
        let fast = fabric(40.0);
        let slow = fabric(0.02);
        let s = scheme(AllocatorSpec::default());
        let rf = run(&fast, &s, &two_flows(&fast, 1000), 2000, 0);
        let rs = run(&slow, &s, &two_flows(&slow, 1000), 2000, 0);
        // The lag: updates take effect much later over the congested path.
        let mean_us = |r: &RunResult| {
            let c = &r.counters;
            c.rate_update_delay_sum_ps as f64 / c.rate_updates_applied.max(1) as f64 / 1e6
        };
        let q_at = |r: &RunResult, t: u64| {
            r.queue_samples
                .iter()
                .find(|x| x.time_ps == us(t).0)
                .unwrap()
                .bytes
        };
        assert!(
            mean_us(&rs) > 3.0 * mean_us(&rf),
            "{} {}",
            mean_us(&rs),
            mean_us(&rf)
        );
        // Until its update arrives the first flow keeps its old (full) rate: from 40 to 60 us
        // after the second start it still delivers near line rate on the slow control path,
        // half of it on the fast one, and the bottleneck queue grows meanwhile.
        let (f_slow, f_fast) = (gbps(&rs, 0, 1040, 1060), gbps(&rf, 0, 1040, 1060));
        assert!(f_slow > 1.5 * f_fast, "slow {f_slow} fast {f_fast}");
        assert!(q_at(&rs, 1070) > q_at(&rf, 1070) + 5000);
        // Once the updates are in, the shares are the same.
        assert!((gbps(&rs, 0, 1600, 2000) - gbps(&rs, 1, 1600, 2000)).abs() < 0.5);
    }

    #[test]
    fn a_lost_update_is_retransmitted_and_takes_effect() {
        let t = fabric(40.0);
        let s = scheme(AllocatorSpec::default());
        let r0 = run(&t, &s, &two_flows(&t, 1000), 2000, 0);
        let r = run(&t, &s, &two_flows(&t, 1000), 2000, 1);
        assert_eq!(r.counters.dropped_packets, 1);
        assert_eq!(r0.counters.dropped_packets, 0);
        // Every update sent still took effect, the lost one after a control RTO (20-30 us).
        assert_eq!(r.counters.rate_updates, r.counters.rate_updates_applied);
        assert!(r.counters.rate_updates_applied > 0);
        // The lost one took at least the control connection's minimum RTO (20 us) to take
        // effect; without the loss no update takes longer than 10 us.
        assert!(r.counters.rate_update_delay_max_ps >= Delta::from_us(20).0);
        assert!(r0.counters.rate_update_delay_max_ps < Delta::from_us(10).0);
        // The first flow started alone at line rate only once its (retransmitted) update
        // arrived: its first 20 us are slower than without the loss.
        assert!(gbps(&r, 0, 20, 60) <= gbps(&r0, 0, 20, 60));
        let half = 5.0 * 1460.0 / 1500.0;
        assert!((gbps(&r, 0, 1200, 2000) - half).abs() < 0.05 * half);
    }

    /// Long-lived flows `(src, dst)` (host indices), all starting at 0.
    fn long_flows(t: &Topology, pairs: &[(usize, usize)]) -> Workload {
        let flows = pairs
            .iter()
            .enumerate()
            .map(|(i, &(src, dst))| FlowSpec {
                id: FlowId(i as u32),
                src: t.hosts()[src],
                dst: t.hosts()[dst],
                size_bytes: None,
                start: us(0),
                stop: None,
                coflow: None,
            })
            .collect();
        Workload {
            flows,
            incasts: Vec::new(),
        }
    }

    /// Pins what makes Flowtune's host downlinks queue at high load
    /// (`scenarios/flowtune/README.md`, "Flowtune's queueing at 0.8 load: traffic outside the
    /// allocation"): the allocator shares `1 - threshold` (99%) of each link among the data
    /// flowlets it knows, and nothing else. The ACKs of the flows a host sends come back over
    /// its downlink beside the data it receives, outside the allocation. h1 -> h5 alone keeps
    /// h5's downlink queue within a packet; add h5 -> h0, whose ACKs leave h0 and reach h5
    /// over that downlink, and it carries 99% data plus the ACKs (40 B per two 1500 B
    /// packets with pFabric's 6 us delayed ACK, about 1.3%; per packet with every segment
    /// acknowledged, ns-2's TCPSink, 2.7%): over 100%, so its queue grows for as long as both
    /// flows run, faster the more ACKs there are. With threshold 0.05 (95% allocated) the
    /// same pair leaves room for the ACKs and the queue stays within a packet.
    #[test]
    fn reverse_acks_outside_the_allocation_overload_a_downlink_allocated_at_99_percent() {
        let t = fabric(40.0);
        let with_acks = |spec, every_segment: bool| {
            let mut s = scheme(spec);
            if every_segment {
                s.tcp.delayed_ack = None;
            }
            s
        };
        let coarse = AllocatorSpec {
            threshold: 0.05,
            ..AllocatorSpec::default()
        };
        let one_way = long_flows(&t, &[(1, 5)]);
        let both = long_flows(&t, &[(1, 5), (5, 0)]);
        let q_at = |r: &RunResult, at: u64| {
            r.queue_samples
                .iter()
                .find(|x| x.time_ps == us(at).0)
                .unwrap()
                .bytes
        };
        let max_after_500us = |r: &RunResult| {
            r.queue_samples
                .iter()
                .filter(|x| x.time_ps >= us(500).0)
                .map(|x| x.bytes)
                .max()
                .unwrap()
        };
        // Bytes the downlink's queue gains per millisecond, from 1 ms to 3 ms.
        let growth = |r: &RunResult| {
            let (q1, q2, q3) = (q_at(r, 1000), q_at(r, 2000), q_at(r, 3000));
            assert!(q1 < q2 && q2 < q3, "{q1} {q2} {q3}");
            (q3 - q1) / 2
        };
        for every_segment in [false, true] {
            let fine = with_acks(AllocatorSpec::default(), every_segment);
            let alone = run(&t, &fine, &one_way, 3000, 0);
            assert!(
                max_after_500us(&alone) <= 1500,
                "{}",
                max_after_500us(&alone)
            );
            let wide = run(
                &t,
                &with_acks(coarse.clone(), every_segment),
                &both,
                3000,
                0,
            );
            assert!(max_after_500us(&wide) <= 1500, "{}", max_after_500us(&wide));
        }
        // 0.3% and 1.7% of 10 Gb/s over 1 ms are 3.75 KB and 21 KB.
        let delayed = growth(&run(
            &t,
            &with_acks(AllocatorSpec::default(), false),
            &both,
            3000,
            0,
        ));
        let each = growth(&run(
            &t,
            &with_acks(AllocatorSpec::default(), true),
            &both,
            3000,
            0,
        ));
        assert!(delayed > 2500, "{delayed} B/ms");
        assert!(each > 3 * delayed, "{each} vs {delayed} B/ms");
    }

    /// 60 sized flows (1 to 200 packets) between random hosts over 600 us.
    fn sized_flows(t: &Topology) -> Workload {
        use rand::Rng;
        let mut rng = dctc_core::rng::component_rng(3, dctc_core::rng::streams::WORKLOAD);
        let flows = (0..60u32)
            .map(|i| {
                let src = rng.random_range(0..6);
                let dst = (src + rng.random_range(1..6)) % 6;
                FlowSpec {
                    id: FlowId(i),
                    src: t.hosts()[src],
                    dst: t.hosts()[dst],
                    size_bytes: Some(1460 * rng.random_range(1..200u64)),
                    start: us(10 * i as u64),
                    stop: None,
                    coflow: None,
                }
            })
            .collect();
        Workload {
            flows,
            incasts: Vec::new(),
        }
    }

    #[test]
    fn sized_flows_finish_as_one_flowlet_each_repeatably_and_a_coarser_threshold_sends_less() {
        let t = fabric(40.0);
        let wl = sized_flows(&t);
        let fine = scheme(AllocatorSpec::default());
        let coarse = scheme(AllocatorSpec {
            threshold: 0.05,
            ..AllocatorSpec::default()
        });
        let a = run(&t, &fine, &wl, 5000, 0);
        let b = run(&t, &fine, &wl, 5000, 0);
        let c = run(&t, &coarse, &wl, 5000, 0);
        assert_eq!(a.records, b.records, "same seed, same records");
        assert_eq!(a.counters, b.counters);
        for r in [&a, &c] {
            assert!(
                r.records.iter().all(|x| x.fct_us.is_some()),
                "all flows finish"
            );
            assert!(r.records.iter().all(|x| x.slowdown.unwrap() >= 1.0 - 1e-9));
            assert_eq!(r.counters.flowlets, 60);
            assert!(r.counters.control_to_agent_bytes > 0);
            assert!(r.counters.control_from_agent_bytes > 0);
        }
        assert!(
            c.counters.rate_updates < a.counters.rate_updates,
            "0.05: {} updates, 0.01: {}",
            c.counters.rate_updates,
            a.counters.rate_updates
        );
    }
}
