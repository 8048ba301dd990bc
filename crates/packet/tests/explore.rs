//! Exploration (ignored): prints incast trends.
//! Integration tests.
mod common;
use common::*;
use dctc_packet::transport::TcpConfig;
use dctc_packet::Scheme;

#[test]
#[ignore]
fn incast_trend() {
    for n in [1, 4, 8, 12, 16, 24, 32, 48, 64, 96] {
        let nr = incast_goodput(&Scheme::newreno(TcpConfig::linux_like()), n, 20);
        let dc = incast_goodput(&Scheme::dctcp(TcpConfig::linux_like(), 32_000), n, 20);
        eprintln!(
            "n={n:3} newreno {:.3} Gb/s ({} TO)  dctcp {:.3} Gb/s ({} TO)",
            nr.0, nr.1, dc.0, dc.1
        );
    }
}
