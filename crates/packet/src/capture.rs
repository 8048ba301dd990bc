//! Packet captures (`[output] pcap`): what chosen points of the fabric saw, written as
//! standard nanosecond pcap files that tcpdump and Wireshark read.
//!
//! A capture point is a host (every packet leaving or reaching it, on each of its links) or a
//! switch port (every packet the port sends onto its link). Each point is one file, as a
//! capture on one interface of a real network would be (and as ns-3 writes one file per
//! device). A packet is stamped with the simulated time, to the nanosecond:
//!
//! - leaving a node (a host's NIC, a switch port): when the port starts to send it (with
//!   `[packet] send_jitter_us`, a host's stamp includes its packet's jitter);
//! - reaching a host: when its last bit arrives.
//!
//! Dropped packets are not in a port's capture (they never left it); a packet still on a link
//! when the run ends is in its sender's capture if it started leaving by then.
//!
//! The engine records only at captured links: a port carries a flag that the arrival of each
//! packet at the far end of its link tests, and a link that has recorded `max_packets` packets
//! clears its flag, so a run without captures (or past its captures' limit) does no capture
//! work at all beyond that test.
//!
//! # The frames
//!
//! Each packet becomes an Ethernet II / IPv4 / TCP frame of headers only (the snapshot length
//! is the 54 header bytes; the original length counts the payload):
//!
//! - **Addresses.** The node at position `i` of the fabric's node list (hosts, switches and
//!   Flowtune's allocator alike) has IPv4 address `10.0.0.0 + i + 1` (node 0 is `10.0.0.1`,
//!   node 255 is `10.0.1.0`) and MAC `02:00:` followed by `i + 1` in four bytes. IP addresses
//!   are the packet's sending and receiving hosts; MAC addresses are the link's two ends (the
//!   fabric is routed: a frame goes from one hop to the next). The run writes the addresses
//!   beside the captures in the `hosts` file format, which Wireshark can load for names.
//! - **Ports.** A flow with id `n` (its `id` in `flows.csv`) sends from TCP port
//!   `1024 + n mod 64512` to port `5001 + k`, where `k` is its subflow (0 but for multipath
//!   schemes); its ACKs go back between the same ports. Flowtune's allocator connections use
//!   port 6653 at both ends. An incast sender's connection keeps the id of its first block.
//! - **Sequence numbers** are the flow's byte offsets (the simulator models no handshake: the
//!   first data byte has sequence number 0), modulo 2^32 as TCP's are. A data segment carries
//!   `seq` = its first byte and no acknowledgment number; an ACK carries `ack` = the next byte
//!   its receiver expects and `seq` 0 (the receiver sends no data).
//! - **ECN.** The IP header's ECN field is ECT(0) on packets of an ECN-capable transport and
//!   CE once a switch marked them (as marked when the packet passed the point); an ACK's
//!   TCP ECE flag is its ECN echo. No scheme models TCP's CWR flag, so it is never set.
//! - **Other kinds.** A probe or control message (Flowtune's flowlet and rate messages, TFC
//!   and XCP probes) and an incast request are TCP segments with PSH set, between the ports
//!   of their flow; they carry no sequence information of their own.
//! - TTL 64, IP identification 0 with Don't Fragment (RFC 6864), window 65535, no TCP
//!   options; the TCP checksum is that of the segment with an all-zero payload (right for
//!   ACKs, which carry none; a reader cannot check a data segment whose payload is cut).

use crate::packet::{Ecn, PacketKind};
use dctc_core::ids::{LinkId, NodeId};
use dctc_core::units::SimTime;
use std::io::Write;

/// Where on a link a capture point sees a packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Side {
    /// At the port that sends it onto the link, as it starts to leave.
    Departure,
    /// At the link's far end (a host), as its last bit arrives.
    Arrival,
}

/// One link a capture point watches, and from which end.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Tap {
    /// The link.
    pub link: LinkId,
    /// Which end.
    pub side: Side,
}

/// One capture point: one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CapturePoint {
    /// The file's name without extension (a host's name, or `from-to` for a port).
    pub name: String,
    /// The links it watches.
    pub taps: Vec<Tap>,
}

impl CapturePoint {
    /// Every packet leaving or reaching `host`, on each of its links.
    pub fn host(topo: &dctc_core::topology::Topology, host: NodeId) -> CapturePoint {
        let mut taps: Vec<Tap> = (topo.out_links(host).iter())
            .map(|&link| Tap {
                link,
                side: Side::Departure,
            })
            .collect();
        for (i, l) in topo.links().iter().enumerate() {
            if l.to == host {
                taps.push(Tap {
                    link: LinkId::from_index(i),
                    side: Side::Arrival,
                });
            }
        }
        CapturePoint {
            name: topo.node(host).name.clone(),
            taps,
        }
    }

    /// Every packet the port feeding `link` sends.
    pub fn port(topo: &dctc_core::topology::Topology, link: LinkId) -> CapturePoint {
        let l = topo.link(link);
        CapturePoint {
            name: format!("{}-{}", topo.node(l.from).name, topo.node(l.to).name),
            taps: vec![Tap {
                link,
                side: Side::Departure,
            }],
        }
    }
}

/// What a run captures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureSpec {
    /// The points, one file each.
    pub points: Vec<CapturePoint>,
    /// Most packets in one point's file: its first ones in time.
    pub max_packets: u32,
}

/// A flow as its packets' TCP ports name it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FlowPorts {
    /// The flow's id (`flows.csv`).
    pub id: u32,
    /// Its subflow (0 for a single-path flow).
    pub subflow: u32,
}

/// One packet as a capture point saw it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Captured {
    /// When (see the module docs).
    pub time: SimTime,
    /// The link's near end (the frame's source MAC).
    pub hop_from: NodeId,
    /// The link's far end (the frame's destination MAC).
    pub hop_to: NodeId,
    /// Sending host.
    pub src: NodeId,
    /// Receiving host.
    pub dst: NodeId,
    /// Data, ACK, control or request.
    pub kind: PacketKind,
    /// Its flow; `None` for the allocator's control connections.
    pub flow: Option<FlowPorts>,
    /// First payload byte (data) or next byte expected (ACK).
    pub seq: u64,
    /// Payload bytes.
    pub payload: u32,
    /// ECN bits as the packet carried them at the point.
    pub ecn: Ecn,
}

/// One capture point's packets, in time order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureFile {
    /// The point's name (the file's, without extension).
    pub name: String,
    /// Its first packets, at most `max_packets`.
    pub packets: Vec<Captured>,
    /// Whether `max_packets` cut the capture short (the point saw more packets, or may have).
    pub capped: bool,
}

/// One packet recorded at a link, before it is assigned to points.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Raw {
    /// When it started to leave the link's port.
    pub(crate) sent: SimTime,
    /// When it reached the link's far end.
    pub(crate) arrived: SimTime,
    pub(crate) seq: u64,
    pub(crate) flow: u32,
    pub(crate) payload: u32,
    pub(crate) src: NodeId,
    pub(crate) dst: NodeId,
    pub(crate) kind: PacketKind,
    pub(crate) ecn: Ecn,
}

/// The packets recorded at each captured link of a run.
pub(crate) struct Recorder {
    /// Per link, its slot in `links` (`u32::MAX`: not captured).
    slot: Vec<u32>,
    /// Per captured link, its packets in the order they reached the far end.
    pub(crate) links: Vec<(LinkId, Vec<Raw>)>,
    max: usize,
}

impl Recorder {
    /// A recorder for the taps of `spec` on a fabric of `n_links` links.
    pub(crate) fn new(spec: &CaptureSpec, n_links: usize) -> Recorder {
        let mut slot = vec![u32::MAX; n_links];
        let mut links = Vec::new();
        for tap in spec.points.iter().flat_map(|p| &p.taps) {
            let s = &mut slot[tap.link.index()];
            if *s == u32::MAX {
                *s = links.len() as u32;
                links.push((tap.link, Vec::new()));
            }
        }
        Recorder {
            slot,
            links,
            max: spec.max_packets as usize,
        }
    }

    /// The captured links.
    pub(crate) fn captured_links(&self) -> impl Iterator<Item = LinkId> + '_ {
        self.links.iter().map(|(l, _)| *l)
    }

    /// Records `raw` at link `l`; false once the link holds `max_packets` packets (it
    /// records no more).
    pub(crate) fn record(&mut self, l: u32, raw: Raw) -> bool {
        let s = self.slot[l as usize];
        let Some((_, v)) = self.links.get_mut(s as usize) else {
            return false;
        };
        if v.len() < self.max {
            v.push(raw);
        }
        v.len() < self.max
    }

    /// Assigns the recorded packets to `spec`'s points up to `end`: each point's first
    /// `max_packets` in time, stamped by its side of each link, ties in tap order. `flow`
    /// names a flow index's ports; `ends` gives a link's two nodes.
    pub(crate) fn files(
        &self,
        spec: &CaptureSpec,
        end: SimTime,
        flow: &dyn Fn(u32) -> Option<FlowPorts>,
        ends: &dyn Fn(LinkId) -> (NodeId, NodeId),
    ) -> Vec<CaptureFile> {
        spec.points
            .iter()
            .map(|point| {
                let mut seen: Vec<(SimTime, usize, usize)> = Vec::new();
                let mut full = false;
                for (t, tap) in point.taps.iter().enumerate() {
                    let (_, raws) = &self.links[self.slot[tap.link.index()] as usize];
                    full |= raws.len() >= self.max;
                    for (k, r) in raws.iter().enumerate() {
                        let time = match tap.side {
                            Side::Departure => r.sent,
                            Side::Arrival => r.arrived,
                        };
                        if time <= end {
                            seen.push((time, t, k));
                        }
                    }
                }
                seen.sort_unstable();
                let capped = full || seen.len() > self.max;
                seen.truncate(self.max);
                let packets = seen
                    .into_iter()
                    .map(|(time, t, k)| {
                        let link = point.taps[t].link;
                        let r = &self.links[self.slot[link.index()] as usize].1[k];
                        let (hop_from, hop_to) = ends(link);
                        Captured {
                            time,
                            hop_from,
                            hop_to,
                            src: r.src,
                            dst: r.dst,
                            kind: r.kind,
                            flow: flow(r.flow),
                            seq: r.seq,
                            payload: r.payload,
                            ecn: r.ecn,
                        }
                    })
                    .collect();
                CaptureFile {
                    name: point.name.clone(),
                    packets,
                    capped,
                }
            })
            .collect()
    }
}

/// Bytes of the headers each frame holds: Ethernet II, IPv4 and TCP without options.
pub const SNAPLEN: u32 = 14 + 20 + 20;

/// The IPv4 address of the node at position `i` of the fabric (see the module docs).
pub fn ipv4_of(node: NodeId) -> [u8; 4] {
    (0x0a00_0000u32 + node.index() as u32 + 1).to_be_bytes()
}

/// The MAC address of the node at position `i` of the fabric (see the module docs).
pub fn mac_of(node: NodeId) -> [u8; 6] {
    let n = (node.index() as u32 + 1).to_be_bytes();
    [0x02, 0x00, n[0], n[1], n[2], n[3]]
}

/// The TCP port a flow sends from.
fn sender_port(f: Option<FlowPorts>) -> u16 {
    f.map_or(6653, |f| (1024 + f.id % 64512) as u16)
}

/// The TCP port a flow sends to.
fn receiver_port(f: Option<FlowPorts>) -> u16 {
    f.map_or(6653, |f| {
        5001u32.saturating_add(f.subflow).min(65535) as u16
    })
}

/// TCP flag bits.
const ACK: u8 = 0x10;
const PSH: u8 = 0x08;
const ECE: u8 = 0x40;

/// The internet checksum (RFC 1071) of `bytes`.
fn checksum(bytes: &[u8]) -> u16 {
    let mut sum: u32 = bytes
        .chunks(2)
        .map(|c| u32::from(c[0]) << 8 | u32::from(*c.get(1).unwrap_or(&0)))
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// The frame of `c`: its [`SNAPLEN`] header bytes and its length on the wire.
pub fn frame(c: &Captured) -> ([u8; SNAPLEN as usize], u32) {
    let mut f = [0u8; SNAPLEN as usize];
    // Ethernet II.
    f[0..6].copy_from_slice(&mac_of(c.hop_to));
    f[6..12].copy_from_slice(&mac_of(c.hop_from));
    f[12..14].copy_from_slice(&0x0800u16.to_be_bytes());
    // IPv4 (RFC 791; ECN field RFC 3168: ECT(0) = 10, CE = 11).
    let ip_len = 40u32.saturating_add(c.payload).min(65535);
    let ecn = match (c.ecn.ce, c.ecn.ect) {
        (true, _) => 0b11,
        (false, true) => 0b10,
        (false, false) => 0b00,
    };
    let ip = &mut f[14..34];
    ip[0] = 0x45;
    ip[1] = ecn;
    ip[2..4].copy_from_slice(&(ip_len as u16).to_be_bytes());
    ip[6] = 0x40; // Don't Fragment; identification 0 (RFC 6864)
    ip[8] = 64;
    ip[9] = 6; // TCP
    ip[12..16].copy_from_slice(&ipv4_of(c.src));
    ip[16..20].copy_from_slice(&ipv4_of(c.dst));
    let sum = checksum(ip);
    ip[10..12].copy_from_slice(&sum.to_be_bytes());
    // TCP (RFC 9293; ECE RFC 3168).
    let forward = matches!(c.kind, PacketKind::Data | PacketKind::Control);
    let (sport, dport) = if forward {
        (sender_port(c.flow), receiver_port(c.flow))
    } else {
        (receiver_port(c.flow), sender_port(c.flow))
    };
    let (seq, ack, flags) = match c.kind {
        PacketKind::Data => (c.seq as u32, 0, ACK),
        PacketKind::Ack => (0, c.seq as u32, ACK | if c.ecn.ece { ECE } else { 0 }),
        PacketKind::Control | PacketKind::Request => (0, 0, ACK | PSH),
    };
    let tcp = &mut f[34..54];
    tcp[0..2].copy_from_slice(&sport.to_be_bytes());
    tcp[2..4].copy_from_slice(&dport.to_be_bytes());
    tcp[4..8].copy_from_slice(&seq.to_be_bytes());
    tcp[8..12].copy_from_slice(&ack.to_be_bytes());
    tcp[12] = 5 << 4;
    tcp[13] = flags;
    tcp[14..16].copy_from_slice(&65535u16.to_be_bytes());
    // The checksum of the segment with an all-zero payload, which adds nothing to the sum:
    // right for ACKs (no payload), and what readers cannot check on a truncated data segment.
    let mut pseudo = [0u8; 12 + 20];
    pseudo[0..8].copy_from_slice(&f[26..34]);
    pseudo[9] = 6;
    pseudo[10..12].copy_from_slice(&((ip_len - 20) as u16).to_be_bytes());
    pseudo[12..].copy_from_slice(&f[34..54]);
    let sum = checksum(&pseudo);
    f[50..52].copy_from_slice(&sum.to_be_bytes());
    (f, 14 + ip_len)
}

/// Writes `file` as a pcap file (nanosecond timestamps, LINKTYPE_ETHERNET, little-endian).
pub fn write_pcap<W: Write>(file: &CaptureFile, w: W) -> Result<W, pcap_file::PcapError> {
    use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
    let header = PcapHeader {
        snaplen: SNAPLEN,
        datalink: pcap_file::DataLink::ETHERNET,
        ts_resolution: pcap_file::TsResolution::NanoSecond,
        endianness: pcap_file::Endianness::Little,
        ..PcapHeader::default()
    };
    let mut out = PcapWriter::with_header(w, header)?;
    for c in &file.packets {
        let (bytes, len) = frame(c);
        let at = std::time::Duration::from_nanos(c.time.0 / 1000);
        out.write_packet(&PcapPacket::new(at, len, &bytes))?;
    }
    Ok(out.into_writer())
}

/// The capture's addresses in the `hosts` file format (`10.0.0.1 h0`), one line per node.
pub fn hosts_file(topo: &dctc_core::topology::Topology) -> String {
    let mut s =
        String::from("# dctc: the IPv4 address of each node of the fabric in the captures\n");
    for (i, n) in topo.nodes().iter().enumerate() {
        let a = ipv4_of(NodeId::from_index(i));
        s.push_str(&format!(
            "{}.{}.{}.{}\t{}\n",
            a[0], a[1], a[2], a[3], n.name
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(seq: u64, payload: u32) -> Captured {
        Captured {
            time: SimTime(1_234_567_891),
            hop_from: NodeId(0),
            hop_to: NodeId(2),
            src: NodeId(0),
            dst: NodeId(1),
            kind: PacketKind::Data,
            flow: Some(FlowPorts { id: 7, subflow: 0 }),
            seq,
            payload,
            ecn: Ecn {
                ect: true,
                ce: true,
                ece: false,
            },
        }
    }

    #[test]
    fn a_data_frame_carries_its_addresses_ports_sequence_and_ecn() {
        let (f, len) = frame(&data(0x1_0000_0005, 1460));
        assert_eq!(len, 14 + 20 + 20 + 1460);
        assert_eq!(&f[0..6], &[2, 0, 0, 0, 0, 3]); // to node 2
        assert_eq!(&f[6..12], &[2, 0, 0, 0, 0, 1]); // from node 0
        assert_eq!(f[15], 0b11, "CE");
        assert_eq!(u16::from_be_bytes([f[16], f[17]]), 1500);
        assert_eq!(&f[26..30], &[10, 0, 0, 1]);
        assert_eq!(&f[30..34], &[10, 0, 0, 2]);
        // A header whose checksum is right sums to zero.
        assert_eq!(checksum(&f[14..34]), 0);
        assert_eq!(u16::from_be_bytes([f[34], f[35]]), 1024 + 7);
        assert_eq!(u16::from_be_bytes([f[36], f[37]]), 5001);
        // Sequence numbers wrap at 2^32, as TCP's do.
        assert_eq!(u32::from_be_bytes([f[38], f[39], f[40], f[41]]), 5);
        assert_eq!(f[47], ACK);
    }

    #[test]
    fn an_ack_goes_back_between_the_same_ports_with_its_echo() {
        let mut c = data(3000, 0);
        c.kind = PacketKind::Ack;
        c.ecn = Ecn {
            ect: false,
            ce: false,
            ece: true,
        };
        let (f, len) = frame(&c);
        assert_eq!(len, 54);
        assert_eq!(f[15], 0, "not ECN-capable");
        assert_eq!(u16::from_be_bytes([f[34], f[35]]), 5001);
        assert_eq!(u16::from_be_bytes([f[36], f[37]]), 1031);
        assert_eq!(u32::from_be_bytes([f[42], f[43], f[44], f[45]]), 3000);
        assert_eq!(f[47], ACK | ECE);
        // A whole segment's checksum, over the pseudo-header, sums to zero.
        let mut pseudo = f[26..34].to_vec();
        pseudo.extend([0, 6, 0, 20]);
        pseudo.extend(&f[34..54]);
        assert_eq!(checksum(&pseudo), 0);
    }

    #[test]
    fn a_pcap_file_has_the_nanosecond_magic_and_each_frame_its_lengths() {
        let file = CaptureFile {
            name: "h0".into(),
            packets: vec![data(0, 1000), data(1000, 1000)],
            capped: false,
        };
        let bytes = write_pcap(&file, Vec::new()).unwrap();
        assert_eq!(&bytes[0..4], &0xa1b2_3c4du32.to_le_bytes());
        assert_eq!(
            u32::from_le_bytes(bytes[16..20].try_into().unwrap()),
            SNAPLEN
        );
        assert_eq!(u32::from_le_bytes(bytes[20..24].try_into().unwrap()), 1);
        let rec = &bytes[24..40];
        // 1,234,567,891 ps = 0.001234567 s: the nanoseconds are kept, the picoseconds cut.
        assert_eq!(u32::from_le_bytes(rec[0..4].try_into().unwrap()), 0);
        assert_eq!(u32::from_le_bytes(rec[4..8].try_into().unwrap()), 1_234_567);
        assert_eq!(u32::from_le_bytes(rec[8..12].try_into().unwrap()), SNAPLEN);
        assert_eq!(u32::from_le_bytes(rec[12..16].try_into().unwrap()), 1054);
        assert_eq!(bytes.len(), 24 + 2 * (16 + SNAPLEN as usize));
    }

    #[test]
    fn a_point_keeps_its_first_packets_in_time_across_its_links() {
        let raw = |sent: u64, arrived: u64, seq: u64| Raw {
            sent: SimTime(sent),
            arrived: SimTime(arrived),
            seq,
            flow: 0,
            payload: 0,
            src: NodeId(0),
            dst: NodeId(1),
            kind: PacketKind::Data,
            ecn: Ecn::default(),
        };
        let point = CapturePoint {
            name: "h".into(),
            taps: vec![
                Tap {
                    link: LinkId(0),
                    side: Side::Departure,
                },
                Tap {
                    link: LinkId(1),
                    side: Side::Arrival,
                },
            ],
        };
        let spec = CaptureSpec {
            points: vec![point],
            max_packets: 3,
        };
        let mut rec = Recorder::new(&spec, 2);
        assert!(rec.record(0, raw(10, 50, 1)));
        assert!(rec.record(0, raw(30, 70, 2)));
        assert!(rec.record(1, raw(0, 20, 3)));
        assert!(rec.record(1, raw(40, 60, 4)));
        let flow = |_| None;
        let ends = |l: LinkId| (NodeId(l.0), NodeId(l.0 + 1));
        let files = rec.files(&spec, SimTime(1000), &flow, &ends);
        let seqs: Vec<u64> = files[0].packets.iter().map(|c| c.seq).collect();
        // Stamps: departures 10, 30; arrivals 20, 60.
        assert_eq!(seqs, [1, 3, 2]);
        assert!(files[0].capped, "four packets seen, three kept");
        assert_eq!(files[0].packets[1].time, SimTime(20));
        // Past the end of the run, an arrival is not seen.
        let files = rec.files(&spec, SimTime(25), &flow, &ends);
        assert_eq!(files[0].packets.len(), 2);
        assert!(!files[0].capped);
        // A link holding max_packets records no more.
        assert!(!rec.record(0, raw(31, 71, 5)), "the third fills the link");
        assert!(!rec.record(0, raw(32, 72, 6)));
        assert_eq!(rec.links[0].1.len(), 3);
    }
}
