use super::*;
use crate::queue::fq_codel::tests::{distinct_hashes, drive, jain, Long, Sparse, PS_PER_BYTE};
use crate::queue::{FqCodel, FqCodelParams};

const US: u64 = 1_000_000;

#[test]
fn backlogged_flows_share_bytes_round_robin() {
    let mut q = SfqCodel::new(SfqCodelParams::default(), 3).unwrap();
    let h = distinct_hashes(4, |x| q.bucket_of(x));
    // Packet sizes 1500, 1000, 500: a packet round robin would split bytes 3:2:1.
    let longs = [1500, 1000, 500].map(|bytes| Long {
        hash: 0,
        bytes,
        window: 30_000 / bytes as usize,
    });
    let longs: Vec<Long> = longs
        .iter()
        .zip(&h)
        .map(|(l, &hash)| Long { hash, ..*l })
        .collect();
    let sparse = Sparse {
        hash: h[3],
        bytes: 200,
        period: 100 * US,
        start: 0,
    };
    let tr = drive(&mut q, &longs, sparse, 20_000 * US);
    let lb = &tr.long_bytes;
    let (lo, hi) = (
        *lb.iter().min().unwrap() as f64,
        *lb.iter().max().unwrap() as f64,
    );
    assert!(hi / lo < 1.05, "{lb:?}");
    assert!(jain(lb) >= 0.99, "{lb:?}");
}

#[test]
fn a_sparse_flow_gets_no_priority_unlike_fq_codel() {
    // Four backlogged 1500 B flows and one 200 B packet every 50 us, on both disciplines.
    let run = |q: &mut dyn FnMut(&[Long], Sparse) -> Vec<u64>, h: &[u64]| {
        let longs: Vec<Long> = h[..4]
            .iter()
            .map(|&hash| Long {
                hash,
                bytes: 1500,
                window: 10,
            })
            .collect();
        let sparse = Sparse {
            hash: h[4],
            bytes: 200,
            period: 50 * US,
            start: 20 * US + 100_000,
        };
        q(&longs, sparse)
    };
    let mut sfq = SfqCodel::new(SfqCodelParams::default(), 5).unwrap();
    let mut fq = FqCodel::new(FqCodelParams::default(), 5).unwrap();
    let h = distinct_hashes(5, |x| sfq.bucket_of(x));
    assert_eq!(sfq.bucket_of(h[0]), fq.bucket_of(h[0]));
    let sfq_waits = run(
        &mut |l, s| drive(&mut sfq, l, s, 10_000 * US).sparse_waits,
        &h,
    );
    let fq_waits = run(
        &mut |l, s| drive(&mut fq, l, s, 10_000 * US).sparse_waits,
        &h,
    );
    let one_packet = 1500 * PS_PER_BYTE;
    let mean = |w: &[u64]| w.iter().sum::<u64>() as f64 / w.len() as f64;
    // FQ-CoDel: the new-flows list lets it in after the packet on the wire.
    assert!(fq_waits.iter().all(|&w| w <= one_packet), "{fq_waits:?}");
    // sfqCoDel: it joins the tail of the round and waits for the four backlogged buckets
    // to send their quantum each (about 4 x 1.2 us, less the packet already on the wire).
    assert!(
        mean(&sfq_waits) > 3.0 * one_packet as f64,
        "mean sfq wait {} ps",
        mean(&sfq_waits)
    );
    assert!(sfq_waits.iter().all(|&w| w <= 5 * one_packet));
}
