use super::*;
use crate::queue::{DropTailParams, EcnParams, PFabricParams};
use crate::toml_table::TomlTable;
use dctc_core::fabric::preset;
use dctc_core::units::Delta;
use std::path::Path;

fn topo() -> Topology {
    preset("flowtune-144")
        .unwrap()
        .build(Path::new("."))
        .unwrap()
}

fn table(src: &str) -> TomlTable {
    TomlTable::new(src, "schemes[1]")
}

fn resolve(src: &str) -> Result<PacketScheme, KeyError> {
    resolve_scheme(
        &table(src),
        &PacketSettings::default(),
        &topo(),
        "schemes[1]",
    )
}

#[test]
fn pfabric_tuned_is_the_default_and_overrides_apply() {
    let s = resolve(
        r#"
        name = "dctcp"
        label = "DCTCP"
        tcp = { initial_cwnd_packets = 4 }
        "#,
    )
    .unwrap();
    assert_eq!(s.tcp.min_rto, Delta::from_us(45));
    assert_eq!(s.tcp.delayed_ack, Some(Delta::from_us(6)));
    assert_eq!(s.tcp.initial_cwnd_packets, 4);
    // 225 KB buffers: 150 packets, max cwnd 149.
    assert_eq!(s.tcp.max_cwnd_bytes, 149 * 1460);
    assert_eq!(s.ecn_k_bytes(), Some(97_500));
    assert!(s.tcp.ecn);
    assert!(!s.tcp.timestamps);
    assert!(!s.tcp.limited_transmit);
    assert_eq!(s.label, "DCTCP");
    assert_eq!(s.name, "dctcp");
    assert_eq!(s, {
        let mut d = PacketScheme::dctcp(s.tcp.clone(), 97_500);
        d.label = "DCTCP".into();
        d
    });
}

#[test]
fn bad_names_and_values_are_named() {
    let e = resolve(r#"name = "dctpc""#).unwrap_err();
    assert_eq!(e.path, "schemes[1].name");
    assert!(e.reason.contains("did you mean `dctcp`"), "{e}");
    let e = resolve("name = \"newreno\"\ntcp = { min_rto_us = -1.0 }").unwrap_err();
    assert_eq!(e.path, "schemes[1].tcp.min_rto_us");
    let e = resolve("name = \"newreno\"\ntcp = { preset = \"bsd\" }").unwrap_err();
    assert_eq!(e.path, "schemes[1].tcp.preset");
    let e = resolve("name = \"newreno\"\necn_k_bytes = 1000").unwrap_err();
    assert_eq!(e.path, "schemes[1].ecn_k_bytes");
    let e = resolve("name = \"dctcp\"\ndctcp_g = 1.5").unwrap_err();
    assert_eq!(e.path, "schemes[1].dctcp_g");
    let e = resolve("name = \"dctcp\"\necn_k_bytes = 0").unwrap_err();
    assert_eq!(e.path, "schemes[1].ecn_k_bytes");
    let e = resolve("name = \"dctcp\"\ntransport = \"dctpc\"").unwrap_err();
    assert_eq!(e.path, "schemes[1].transport");
    assert!(e.reason.contains("did you mean `dctcp`"), "{e}");
    let e = resolve("name = \"dctcp\"\nqueue = \"blue\"").unwrap_err();
    assert_eq!(e.path, "schemes[1].queue");
}

#[test]
fn each_scheme_rejects_keys_of_another() {
    // `dctcp_g` belongs to dctcp's module only.
    let e = resolve("name = \"newreno\"\ndctcp_g = 0.5").unwrap_err();
    assert_eq!(e.path, "schemes[1].dctcp_g");
    assert!(e.reason.contains("it is a key of scheme `dctcp`"), "{e}");
    let s = resolve("name = \"dctcp\"\ndctcp_g = 0.5").unwrap();
    assert_eq!(s.cc, Cc::Dctcp(crate::transport::Dctcp::new(0.5)));
}

#[test]
fn transport_and_queue_are_separate_axes() {
    // DCTCP over DropTail: DCTCP's controller, ECN-capable, nothing marks.
    let s = resolve("name = \"dctcp\"\nqueue = \"droptail\"").unwrap();
    assert_eq!(s.switch_queue, QueueSpec::DropTail(DropTailParams));
    assert_eq!(s.cc.name(), "dctcp");
    assert!(s.tcp.ecn);
    assert_eq!(s.name, "dctcp");
    // NewReno over an ECN threshold with its own K.
    let s = resolve("name = \"newreno\"\nqueue = \"ecn\"\necn_k_bytes = 30000").unwrap();
    assert_eq!(
        s.switch_queue,
        QueueSpec::Ecn(EcnParams { k_bytes: 30_000 })
    );
    assert_eq!(s.cc.name(), "newreno");
    assert!(!s.tcp.ecn);
    // A scheme's transport replaced: DCTCP's controller under the newreno scheme's queues.
    let s = resolve("name = \"newreno\"\ntransport = \"dctcp\"").unwrap();
    assert_eq!(s.cc, Cc::Dctcp(crate::transport::Dctcp::default()));
    assert_eq!(s.switch_queue, QueueSpec::DropTail(DropTailParams));
    assert!(s.tcp.ecn);
}

#[test]
fn the_registry_lists_every_scheme_and_transport_once() {
    let names: Vec<&str> = SCHEMES.iter().map(|s| s.0).collect();
    assert!(names.contains(&"newreno") && names.contains(&"dctcp"));
    for (i, n) in names.iter().enumerate() {
        assert!(!names[i + 1..].contains(n), "{n} registered twice");
        // Every registered scheme resolves with its defaults and writes its own name.
        let s = resolve(&format!("name = \"{n}\"")).unwrap();
        assert_eq!(s.name, *n);
        assert_eq!(s.label, *n);
    }
    for (t, _) in crate::transport::TRANSPORTS {
        assert_eq!(Cc::from_name(t).unwrap().name(), *t);
    }
}

#[test]
fn codel_family_schemes_resolve_with_datacenter_defaults() {
    let s = resolve("name = \"codel\"").unwrap();
    assert_eq!(s.cc, Cc::NewReno(Default::default()));
    let QueueSpec::Codel(p) = s.switch_queue else {
        panic!("{:?}", s.switch_queue)
    };
    assert_eq!(
        (p.target, p.interval),
        (Delta::from_us(5), Delta::from_us(100))
    );
    let s = resolve("name = \"fq-codel\"").unwrap();
    assert_eq!(s.cc, Cc::NewReno(Default::default()));
    let QueueSpec::FqCodel(p) = s.switch_queue else {
        panic!("{:?}", s.switch_queue)
    };
    assert_eq!((p.buckets, p.quantum), (1024, 1500));
    assert_eq!(p.codel.target, Delta::from_us(5));
    // The byte limit is the fabric's switch buffer.
    assert_eq!(p.limit_bytes, 225_000);
    let s = resolve("name = \"sfqcodel-cubic\"\nfq_buckets = 64\ncodel_target_us = 2.5").unwrap();
    assert!(matches!(s.cc, Cc::Cubic(_)));
    let QueueSpec::SfqCodel(p) = s.switch_queue else {
        panic!("{:?}", s.switch_queue)
    };
    assert_eq!((p.buckets, p.codel.target), (64, Delta::from_us_f64(2.5)));
    // The transport is a key, and any scheme may take a CoDel-family queue.
    let s = resolve("name = \"fq-codel\"\ntransport = \"dctcp\"\ncodel_ecn = true").unwrap();
    assert!(s.tcp.ecn);
    let QueueSpec::FqCodel(p) = s.switch_queue else {
        panic!()
    };
    assert!(p.codel.ecn);
    let s = resolve("name = \"dctcp\"\nqueue = \"pfabric\"").unwrap();
    assert_eq!(s.switch_queue, QueueSpec::PFabric(PFabricParams::default()));
    assert_eq!(s.switch_queue.name(), "pfabric");
}

#[test]
fn bad_codel_family_keys_name_the_key() {
    let err = |src: &str| resolve(src).unwrap_err();
    let e = err("name = \"fq-codel\"\nfq_buckets = 0");
    assert_eq!(e.path, "schemes[1].fq_buckets");
    assert!(e.reason.contains("in 1..=65536"), "{e}");
    let e = err("name = \"fq-codel\"\nfq_buckets = 70000");
    assert_eq!(e.path, "schemes[1].fq_buckets");
    let e = err("name = \"codel\"\ncodel_target_us = -5.0");
    assert_eq!(e.path, "schemes[1].codel_target_us");
    // QueueParamError's names map to the scenario keys.
    let e = err("name = \"codel\"\ncodel_target_us = 200.0");
    assert_eq!(e.path, "schemes[1].codel_target_us");
    assert!(e.reason.contains("shorter than interval"), "{e}");
    let e = err("name = \"fq-codel\"\nfq_quantum_bytes = -1");
    assert_eq!(e.path, "schemes[1].fq_quantum_bytes");
    // Keys a queue does not use.
    let e = err("name = \"sfqcodel-cubic\"\nfq_drop_batch = 8");
    assert_eq!(e.path, "schemes[1].fq_drop_batch");
    let e = err("name = \"newreno\"\ncodel_target_us = 5.0");
    assert_eq!(e.path, "schemes[1].codel_target_us");
    let e = err("name = \"codel\"\necn_k_bytes = 5000");
    assert_eq!(e.path, "schemes[1].ecn_k_bytes");
    let e = err("name = \"dctcp\"\nqueue = \"fq_codel\"");
    assert_eq!(e.path, "schemes[1].queue");
    assert!(e.reason.contains("did you mean `fq-codel`"), "{e}");
}

#[test]
fn port_seeds_are_reproducible_and_differ_between_ports_and_runs() {
    assert_eq!(QueueSpec::port_seed(7, 3), QueueSpec::port_seed(7, 3));
    assert_ne!(QueueSpec::port_seed(7, 3), QueueSpec::port_seed(7, 4));
    assert_ne!(QueueSpec::port_seed(7, 3), QueueSpec::port_seed(8, 3));
}

#[test]
fn buffer_packets_sets_the_switch_buffers_and_the_max_cwnd() {
    let s = resolve("name = \"dctcp\"\nbuffer_packets = 100").unwrap();
    assert_eq!(s.switch_buffer_bytes, Some(150_000));
    // pFabric-tuned: max cwnd = queue - 1 packets, of the scheme's buffer, not the fabric's.
    assert_eq!(s.tcp.max_cwnd_bytes, 99 * 1460);
    let s = resolve("name = \"dctcp\"\nbuffer_packets = 1000").unwrap();
    assert_eq!(s.switch_buffer_bytes, Some(1_500_000));
    assert_eq!(s.tcp.max_cwnd_bytes, 999 * 1460);
    assert_eq!(
        resolve("name = \"dctcp\"").unwrap().switch_buffer_bytes,
        None
    );
    // The FQ-CoDel queue's limit follows the scheme's buffer too.
    let s = resolve("name = \"fq-codel\"\nbuffer_packets = 20").unwrap();
    let QueueSpec::FqCodel(p) = s.switch_queue else {
        panic!("{:?}", s.switch_queue)
    };
    assert_eq!(p.limit_bytes, 30_000);
    for bad in ["0", "-5"] {
        let e = resolve(&format!("name = \"dctcp\"\nbuffer_packets = {bad}")).unwrap_err();
        assert_eq!(e.path, "schemes[1].buffer_packets");
        assert!(e.reason.contains("at least one 1500 B packet"), "{e}");
    }
}

#[test]
fn scheme_tcp_defaults_sit_below_packet_and_table_tcp() {
    // fq-codel's own default is the pFabric tuning table (the FQ-CoDel paper's Table 2).
    let linux = PacketSettings {
        tcp: crate::config::TcpKnobs {
            delayed_ack_us: Some(0.0),
            ..Default::default()
        },
        ..PacketSettings::default()
    };
    let s = resolve_scheme(&table("name = \"fq-codel\""), &linux, &topo(), "schemes[1]").unwrap();
    assert_eq!(s.tcp.min_rto, Delta::from_us(45));
    assert_eq!(s.tcp.initial_cwnd_packets, 12);
    // `[packet].tcp` replaces the key it sets...
    assert_eq!(s.tcp.delayed_ack, None);
    // ...and the table's own `tcp` replaces both.
    let s = resolve("name = \"fq-codel\"\ntcp = { preset = \"linux-like\" }").unwrap();
    assert_eq!(s.tcp.min_rto, Delta::from_ms(200));
    assert_eq!(s.tcp.small_queue_bytes, Some(131_072));
    assert!(s.tcp.cwnd_validation);
    // The host-stack limits turn off (0: no small-queue limit) or on by key.
    let s = resolve(
        "name = \"dctcp\"\ntcp = { preset = \"linux-like\", small_queue_bytes = 0, cwnd_validation = false }",
    )
    .unwrap();
    assert_eq!(
        (s.tcp.small_queue_bytes, s.tcp.cwnd_validation),
        (None, false)
    );
    let s =
        resolve("name = \"dctcp\"\ntcp = { small_queue_bytes = 30000, cwnd_validation = true }")
            .unwrap();
    assert_eq!(
        (s.tcp.small_queue_bytes, s.tcp.cwnd_validation),
        (Some(30_000), true)
    );
    assert_eq!(
        resolve("name = \"dctcp\"").unwrap().tcp.small_queue_bytes,
        None
    );
}

#[test]
fn pfabric_starts_at_the_fabric_bdp_with_a_fixed_rto_and_no_fast_retransmit() {
    let t = preset("fq-codel-32")
        .unwrap()
        .build(Path::new("."))
        .unwrap();
    // fq-codel-32 (pFabric's delays): 5 us of host delay and four 0.2 us links each way,
    // 10 Gb/s hosts, 40 Gb/s fabric: a full packet out (5.8 us + 2 x 1.2 us + 2 x 0.3 us)
    // and a 40 B ACK back (5.8 us + 2 x 32 ns + 2 x 8 ns): 14.68 us, 18,350 B at 10 Gb/s,
    // 12.2 packets: 12, pFabric's initial window; its 36 KB buffers are 24 packets.
    assert_eq!(pfabric::base_rtt(&t), Some(Delta::from_ns(14_680)));
    assert_eq!(pfabric::bdp_packets(&t), Some(12));
    // Nearest, not down: flowtune-144's 19.08 us make 23,850 B, 15.9 packets, 16.
    let ft = preset("flowtune-144")
        .unwrap()
        .build(Path::new("."))
        .unwrap();
    assert_eq!(pfabric::bdp_packets(&ft), Some(16));
    let s = resolve_scheme(
        &table("name = \"pfabric\"\nbuffer_packets = 24"),
        &PacketSettings::default(),
        &t,
        "schemes[1]",
    )
    .unwrap();
    assert_eq!(s.cc.name(), "pfabric");
    assert_eq!(s.switch_queue, QueueSpec::PFabric(PFabricParams::default()));
    assert_eq!(s.switch_buffer_bytes, Some(36_000));
    assert_eq!(s.tcp.initial_cwnd_packets, 12);
    assert_eq!(s.tcp.max_cwnd_bytes, 12 * 1460);
    assert_eq!(s.tcp.dupack_threshold, u32::MAX);
    assert_eq!(
        (s.tcp.min_rto, s.tcp.max_rto, s.tcp.initial_rto),
        (Delta::from_us(45), Delta::from_us(45), Delta::from_us(45))
    );
    assert_eq!(s.tcp.delayed_ack, None);
    assert_eq!(s.tcp.probe_after_timeouts, Some(5));
    assert!(!s.tcp.ecn);
    let e = resolve("name = \"pfabric\"\nfq_buckets = 8").unwrap_err();
    assert_eq!(e.path, "schemes[1].fq_buckets");
}

#[test]
fn nic_queue_switch_puts_the_switch_discipline_and_buffer_on_host_nics() {
    let s = resolve("name = \"dctcp\"\nbuffer_packets = 100\nnic_queue = \"switch\"").unwrap();
    assert_eq!(s.host_queue, s.switch_queue);
    assert_eq!(s.nic_buffer_bytes, 150_000);
    let s = resolve("name = \"dctcp\"\nnic_queue = \"droptail\"").unwrap();
    assert_eq!(s.host_queue, QueueSpec::DropTail(DropTailParams));
    assert_eq!(s.nic_buffer_bytes, crate::sim::DEFAULT_NIC_BUFFER);
    let e = resolve("name = \"dctcp\"\nnic_queue = \"swich\"").unwrap_err();
    assert_eq!(e.path, "schemes[1].nic_queue");
    assert!(e.reason.contains("did you mean `switch`"), "{e}");
}

/// A long-lived flow `id` from host `src` to the dumbbell's receiver (its last host), starting
/// at `start_us`: the schemes' tests on one bottleneck build their flows with it.
pub(super) fn long_flow(
    t: &dctc_core::topology::Topology,
    id: u32,
    src: usize,
    start_us: u64,
) -> dctc_core::spec::FlowSpec {
    let receiver = *t.hosts().last().expect("a dumbbell has hosts");
    dctc_core::spec::FlowSpec {
        id: dctc_core::ids::FlowId(id),
        src: t.hosts()[src],
        dst: receiver,
        size_bytes: None,
        start: dctc_core::units::SimTime::from_delta(Delta::from_us(start_us)),
        stop: None,
        coflow: None,
    }
}

/// The median over 100 us intervals of the least bottleneck backlog, as a sojourn time in
/// us, of two long flows of the scheme table `src` (CoDel target 5 us, interval 100 us) over
/// 40 ms on a 10 Gb/s dumbbell with a 10 us RTT, the conformance suite's `queueing` case.
fn least_sojourn_per_interval(src: &str) -> f64 {
    use crate::sim::{RunOptions, Simulation, Workload};
    use dctc_core::fabric::{dumbbell, DumbbellSpec};
    use dctc_core::routing::Routing;
    use dctc_core::units::SimTime;
    let t = dumbbell(&DumbbellSpec {
        senders: 2,
        receivers: 1,
        host_rate_gbps: 40.0,
        bottleneck_rate_gbps: 10.0,
        link_delay_us: 1.0,
        host_delay_us: 1.0,
        buffer_bytes: 60_000,
    })
    .unwrap();
    let (left, right) = (
        t.node_by_name("left").unwrap(),
        t.node_by_name("right").unwrap(),
    );
    let bn = t
        .links()
        .iter()
        .position(|l| l.from == left && l.to == right)
        .unwrap() as u32;
    let full = format!("{src}\ncodel_interval_us = 100.0\ncodel_target_us = 5.0");
    let table = TomlTable::new(&full, "schemes[0]");
    let mut s = resolve_scheme(&table, &PacketSettings::default(), &t, "schemes[0]").unwrap();
    s.tcp.min_rto = Delta::from_us(45);
    s.tcp.initial_rto = Delta::from_us(45);
    let end_us = 40_000;
    let flows = (0..2)
        .map(|i| long_flow(&t, i, i as usize, u64::from(i) * 2_000))
        .collect();
    let wl = Workload {
        flows,
        incasts: Vec::new(),
    };
    let mut opts = RunOptions::new(1, SimTime::from_delta(Delta::from_us(end_us)));
    opts.queue_sample = Some(Delta::from_us(1));
    opts.sample_links = vec![bn];
    let routing = Routing::new(&t).unwrap();
    let r = Simulation::new(&t, &routing, &s, &wl, opts)
        .unwrap()
        .run(&mut |_| {});
    let ps_per_us = 1_000_000;
    let mut minima: Vec<f64> = (end_us / 200..end_us / 100)
        .filter_map(|k| {
            let (from, to) = (k * 100 * ps_per_us, (k + 1) * 100 * ps_per_us);
            let q = r.queue_samples.iter().filter(|q| q.link == bn);
            q.filter(|q| q.time_ps >= from && q.time_ps < to)
                .map(|q| q.bytes)
                .min()
        })
        .map(|b| b as f64 * 8.0 / 10e9 * 1e6)
        .collect();
    minima.sort_by(f64::total_cmp);
    minima[minima.len() / 2]
}

#[test]
fn per_flow_codel_holds_its_target_with_newreno_and_a_packet_above_it_with_cubic() {
    // The conformance suite's SFQ_ABOVE_TARGET: sfqCoDel with CUBIC holds the least sojourn
    // per interval a packet (1.2 us) above target + 1 packet. The queue is not the cause:
    // with NewReno the same sfqCoDel holds it, and FQ-CoDel (the same per-bucket CoDel) with
    // CUBIC sits where sfqCoDel does. A drop in a flow's own bucket cuts that flow's window,
    // all of the bucket's backlog: by 30% (CUBIC, beta = 0.7) the bucket keeps more of its
    // queue than by 50% (Reno).
    let bound = 5.0 + 1.2;
    let sfq_reno = least_sojourn_per_interval("name = \"sfqcodel-cubic\"\ntransport = \"newreno\"");
    let sfq_cubic = least_sojourn_per_interval("name = \"sfqcodel-cubic\"");
    let fq_reno = least_sojourn_per_interval("name = \"fq-codel\"");
    let fq_cubic = least_sojourn_per_interval("name = \"fq-codel\"\ntransport = \"cubic\"");
    eprintln!(
        "least sojourn per interval (median, us): sfqCoDel NewReno {sfq_reno:.1} CUBIC \
         {sfq_cubic:.1}; FQ-CoDel NewReno {fq_reno:.1} CUBIC {fq_cubic:.1}"
    );
    assert!(
        sfq_reno <= bound && fq_reno <= bound,
        "{sfq_reno} {fq_reno}"
    );
    assert!(
        sfq_cubic > bound && fq_cubic > bound,
        "{sfq_cubic} {fq_cubic}"
    );
    assert!(sfq_cubic > sfq_reno && fq_cubic > fq_reno);
}
