//! Engine accounting for disciplines that drop several packets at one arrival or mark at
//! dequeue (a child of `sim`, so it can drive one port by hand).

use super::*;
use crate::packet::{Packet, PacketKind};
use crate::queue::{CodelParams, FqCodelParams};
use crate::schemes::PacketScheme;
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
fn packet(sim: &mut Simulation, hash: u64, ect: bool) -> PacketId {
    let mut p = Packet::new(0, PacketKind::Data, NodeId(0), NodeId(1));
    p.wire_bytes = 1500;
    p.hash = hash;
    p.ecn.ect = ect;
    sim.pool.alloc(p)
}

fn switch_port(sim: &Simulation) -> u32 {
    sim.ports.iter().position(|p| p.switch).unwrap() as u32
}

#[test]
fn packets_a_discipline_drops_at_enqueue_beyond_the_arrival_are_freed_and_counted_at_once() {
    let t = topo();
    let routing = Routing::new(&t).unwrap();
    let s = scheme(QueueSpec::FqCodel(FqCodelParams::default()));
    let wl = Workload {
        flows: Vec::new(),
        incasts: Vec::new(),
    };
    let mut sim = Simulation::new(&t, &routing, &s, &wl, RunOptions::new(1, SimTime(1))).unwrap();
    let l = switch_port(&sim);
    // Keep the port busy so the packets wait in the discipline.
    sim.ports[l as usize].busy_until = SimTime(1_000_000_000);
    for _ in 0..4 {
        let p = packet(&mut sim, 9, false);
        sim.enqueue(l, p);
    }
    assert_eq!(sim.counters.dropped_packets, 0);
    let live = sim.pool.live();
    // The fifth overflows the 6000 B buffer: FQ-CoDel drops from the one bucket until half
    // its 7500 B are gone, three packets.
    let p = packet(&mut sim, 9, false);
    sim.enqueue(l, p);
    assert_eq!(sim.counters.dropped_packets, 3);
    assert_eq!(sim.counters.dropped_bytes, 4500);
    assert_eq!(sim.ports[l as usize].drops, 3);
    assert_eq!(sim.pool.live(), live + 1 - 3, "dropped packets are freed");
    assert_eq!(sim.ports[l as usize].queue.len(), 2);
}

#[test]
fn ce_marks_a_discipline_makes_at_dequeue_are_counted() {
    let t = topo();
    let routing = Routing::new(&t).unwrap();
    let s = scheme(QueueSpec::Codel(CodelParams {
        ecn: true,
        ..CodelParams::default()
    }));
    let wl = Workload {
        flows: Vec::new(),
        incasts: Vec::new(),
    };
    let mut sim = Simulation::new(&t, &routing, &s, &wl, RunOptions::new(1, SimTime(1))).unwrap();
    let l = switch_port(&sim);
    sim.ports[l as usize].busy_until = SimTime(1_000_000_000);
    for _ in 0..4 {
        let p = packet(&mut sim, 9, true);
        sim.enqueue(l, p);
    }
    // Sojourn 200 us > target: CoDel starts its interval; 150 us later it is still above
    // target after a full interval, so it marks (ECT) instead of dropping.
    sim.now = SimTime::from_delta(Delta::from_us(200));
    sim.start_tx(l);
    assert_eq!(sim.counters.ecn_marks, 0);
    sim.now = SimTime::from_delta(Delta::from_us(350));
    sim.start_tx(l);
    assert_eq!(sim.counters.ecn_marks, 1);
    assert_eq!(sim.ports[l as usize].marks, 1);
    assert_eq!(sim.counters.dropped_packets, 0);
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
    assert!(sim.flows[0].finish.is_some(), "the flow completes");
    let Cc::TestFeedback(c) = sim.flows[0].sender.cc() else {
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
