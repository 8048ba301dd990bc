//! The parts of the loop on their own: the fabric's accounting for disciplines that drop
//! several packets at one arrival or mark at dequeue (one port driven by hand, no hosts), and
//! the header-feedback path through hosts and fabric.

use super::*;
use crate::packet::{HeaderExt, Packet, PacketKind};
use crate::queue::QueueDisc;
use crate::queue::{CodelParams, FqCodelParams};
use crate::schemes::{PacketScheme, QueueSpec};
use crate::transport::{Cc, TcpConfig};
use dctc_core::fabric::{dumbbell, DumbbellSpec};

fn topo() -> Topology {
    dumbbell(&DumbbellSpec {
        senders: 2,
        receivers: 1,
        host_rate_gbps: 10.0,
        bottleneck_rate_gbps: 10.0,
        link_delay_us: 1.0,
        host_delay_us: 1.0,
        buffer_bytes: 6_000,
    })
    .unwrap()
}

fn scheme(q: QueueSpec) -> PacketScheme {
    PacketScheme::assemble(
        "test",
        TcpConfig::pfabric_tuned(6_000),
        Cc::NewReno(Default::default()),
        q,
    )
}

/// A 1500 B data packet of flow hash `hash`, ECN-capable if `ect`.
fn packet(fab: &mut Fabric, hash: u64, ect: bool) -> PacketId {
    let mut p = Packet::new(0, PacketKind::Data, NodeId(0), NodeId(1));
    p.wire_bytes = 1500;
    p.hash = hash;
    p.ecn.ect = ect;
    fab.pool.alloc(p)
}

fn switch_port(fab: &Fabric) -> u32 {
    fab.ports.iter().position(|p| p.switch).unwrap() as u32
}

#[test]
fn packets_a_discipline_drops_at_enqueue_beyond_the_arrival_are_freed_and_counted_at_once() {
    let t = topo();
    let routing = Routing::new(&t).unwrap();
    let s = scheme(QueueSpec::FqCodel(FqCodelParams::default()));
    let mut fab = Fabric::new(&t, &routing, &s, 1).unwrap();
    let (mut ev, mut c) = (EventQueue::with_capacity(16), Counters::default());
    let now = SimTime::ZERO;
    let l = switch_port(&fab);
    // Keep the port busy so the packets wait in the discipline.
    fab.ports[l as usize].busy_until = SimTime(1_000_000_000);
    for _ in 0..4 {
        let p = packet(&mut fab, 9, false);
        fab.enqueue(l, p, now, &mut ev, &mut c);
    }
    assert_eq!(c.dropped_packets, 0);
    let live = fab.pool.live();
    // The fifth overflows the 6000 B buffer: FQ-CoDel drops from the one bucket until half
    // its 7500 B are gone, three packets.
    let p = packet(&mut fab, 9, false);
    fab.enqueue(l, p, now, &mut ev, &mut c);
    assert_eq!(c.dropped_packets, 3);
    assert_eq!(c.dropped_bytes, 4500);
    assert_eq!(fab.ports[l as usize].drops, 3);
    assert_eq!(fab.pool.live(), live + 1 - 3, "dropped packets are freed");
    assert_eq!(fab.ports[l as usize].queue.len(), 2);
}

#[test]
fn ce_marks_a_discipline_makes_at_dequeue_are_counted() {
    let t = topo();
    let routing = Routing::new(&t).unwrap();
    let s = scheme(QueueSpec::Codel(CodelParams {
        ecn: true,
        ..CodelParams::default()
    }));
    let mut fab = Fabric::new(&t, &routing, &s, 1).unwrap();
    let (mut ev, mut c) = (EventQueue::with_capacity(16), Counters::default());
    let l = switch_port(&fab);
    fab.ports[l as usize].busy_until = SimTime(1_000_000_000);
    for _ in 0..4 {
        let p = packet(&mut fab, 9, true);
        fab.enqueue(l, p, SimTime::ZERO, &mut ev, &mut c);
    }
    // Sojourn 200 us > target: CoDel starts its interval; 150 us later it is still above
    // target after a full interval, so it marks (ECT) instead of dropping.
    fab.start_tx(l, SimTime::from_delta(Delta::from_us(200)), &mut ev, &mut c);
    assert_eq!(c.ecn_marks, 0);
    fab.start_tx(l, SimTime::from_delta(Delta::from_us(350)), &mut ev, &mut c);
    assert_eq!(c.ecn_marks, 1);
    assert_eq!(fab.ports[l as usize].marks, 1);
    assert_eq!(c.dropped_packets, 0);
}

#[test]
fn header_fields_are_stamped_echoed_on_acks_and_a_probe_is_answered_before_data_flows() {
    use crate::transport::test_feedback::TestFeedback;
    use dctc_core::ids::FlowId;
    let t = topo();
    let routing = Routing::new(&t).unwrap();
    let s = PacketScheme::assemble(
        "test",
        TcpConfig::pfabric_tuned(6_000),
        Cc::TestFeedback(TestFeedback::default()),
        QueueSpec::DropTail,
    );
    let hosts = t.hosts();
    let size = 30_000;
    let wl = Workload {
        flows: vec![FlowSpec {
            id: FlowId(0),
            src: hosts[0],
            dst: hosts[2],
            size_bytes: Some(size),
            start: SimTime::ZERO,
            stop: None,
            coflow: None,
        }],
        incasts: Vec::new(),
    };
    let until = SimTime::from_delta(Delta::from_ms(10));
    let mut sim = Simulation::new(&t, &routing, &s, &wl, RunOptions::new(1, until)).unwrap();
    sim.schedule_start();
    sim.run_events(&mut |_| {});
    assert!(sim.hosts.flows[0].finish.is_some(), "the flow completes");
    let Cc::TestFeedback(c) = sim.hosts.flows[0].sender.cc() else {
        unreachable!()
    };
    let mss = s.tcp.mss;
    assert_eq!(c.probes, 1, "one probe before the first byte");
    assert_eq!(
        c.stamped,
        size.div_ceil(mss),
        "every data packet stamped once"
    );
    assert_eq!(c.bad_echo, 0, "every ACK echoes the stamped fields");
    assert_eq!(c.controls, 0, "nothing sends control packets to the sender");
    assert!(
        c.acks > size.div_ceil(2 * mss),
        "probe answer plus the data ACKs"
    );
    assert!(
        c.first_data >= c.first_feedback,
        "data waits for the probe's answer"
    );
    // The last ACK echoes the last data packet: remaining = its own length.
    assert_eq!(c.last_priority, size - (size.div_ceil(mss) - 1) * mss);
    // Control packets count as sent and delivered like any other.
    assert_eq!(sim.counters.sent_packets, sim.counters.delivered_packets);
}

#[test]
fn an_event_stays_eight_bytes() {
    // The wheel stores one per pending event; application timers must not widen it.
    assert_eq!(std::mem::size_of::<Event>(), 8);
}

#[test]
fn a_host_acks_data_in_order_and_reports_the_block_complete_only_when_all_bytes_arrived() {
    use super::host::{Endpoint, Hosts, Outbox};
    let tcp = TcpConfig {
        delayed_ack: None,
        ..TcpConfig::pfabric_tuned(100_000)
    };
    let (a, b) = (NodeId(0), NodeId(1));
    let sender = crate::transport::TcpSender::new(&tcp, Cc::NewReno(Default::default()));
    let ep = Endpoint::new(0, a, b, 7, 2_000, SimTime::ZERO, Delta::from_us(1), sender);
    let mut hosts = Hosts::new(vec![ep], Vec::new(), tcp.clone(), false, None);
    let (mut out, mut c) = (Outbox::default(), Counters::default());
    // The application starts the block: the sender sends both segments at once.
    hosts.start_block(0, 2_000, SimTime::ZERO, &mut out, &mut c);
    let sent: Vec<(u64, u32)> = out.pkts.iter().map(|p| (p.seq, p.payload)).collect();
    assert_eq!(
        sent,
        vec![(0, tcp.mss as u32), (tcp.mss, 2_000 - tcp.mss as u32)]
    );
    let (first, second) = (out.pkts[0], out.pkts[1]);
    out.clear();
    // The second segment arrives first: a duplicate ACK, block not complete.
    let t = SimTime::from_delta(Delta::from_us(5));
    let ext = HeaderExt::default();
    assert!(!hosts.deliver(b, &second, &ext, t, &mut out, &mut c));
    assert_eq!(out.pkts.len(), 1);
    assert_eq!((out.pkts[0].kind, out.pkts[0].seq), (PacketKind::Ack, 0));
    assert_eq!((out.pkts[0].src, out.pkts[0].dst), (b, a));
    // Nothing reached the application yet.
    assert_eq!((c.goodput_bytes, c.last_goodput_ps), (0, 0));
    out.clear();
    // The first fills the hole: a cumulative ACK of everything, and the block is done.
    let t2 = SimTime::from_delta(Delta::from_us(7));
    assert!(hosts.deliver(b, &first, &ext, t2, &mut out, &mut c));
    assert_eq!(out.pkts[0].seq, 2_000);
    assert_eq!(c.goodput_bytes, 2_000);
    assert_eq!(c.last_goodput_ps, t2.0);
    assert_eq!(hosts.flows[0].finish, Some(t2));
}

#[test]
fn a_scheme_buffer_replaces_the_fabric_buffer_on_switch_ports_only() {
    let t = topo();
    let routing = Routing::new(&t).unwrap();
    let mut s = scheme(QueueSpec::DropTail);
    s.switch_buffer_bytes = Some(150_000);
    let fab = Fabric::new(&t, &routing, &s, 1).unwrap();
    for p in &fab.ports {
        let want = if p.switch {
            150_000
        } else {
            crate::schemes::DEFAULT_NIC_BUFFER
        };
        assert_eq!(p.queue.capacity(), want);
    }
}
