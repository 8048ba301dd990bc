//! NewReno's window control is TCP's default: slow start, congestion avoidance, halving on
//! loss, all of which live in [`super::tcp`]. This controller adds nothing and ignores ECN.

use super::CongestionControl;

/// Plain NewReno.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NewReno;

impl CongestionControl for NewReno {}
