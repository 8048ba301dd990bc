//! What coupled multipath controllers (MPTCP's LIA, HOLNET's MCC) learn about the other
//! subflows of their connection. The engine fills it from every subflow's window and RTT
//! estimator before a subflow handles an ACK or a timer.

/// The state of all subflows of one multipath connection.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Coupling {
    /// Number of subflows.
    pub subflows: u32,
    /// Number of subflows with an RTT sample (those `sum_rate` covers).
    pub sampled: u32,
    /// Sum of the subflows' congestion windows, bytes.
    pub total_cwnd: u64,
    /// Sum over subflows of `cwnd_i / rtt_i`, bytes per second (subflows without an RTT
    /// sample yet are left out).
    pub sum_rate: f64,
    /// Max over subflows of `cwnd_i / rtt_i^2`, bytes per second squared (RFC 6356's
    /// numerator term).
    pub max_cwnd_over_rtt2: f64,
}
