//! DropTail: first in, first out; an arrival that does not fit in the byte buffer is dropped.

use super::fifo::{ArrivalFifo, ArrivalRule};
use super::{Context, Discipline, Offer};
use crate::engine::PacketPool;
use crate::keys::NoKeys;
use dctc_core::error::KeyError;
use dctc_core::units::Rate;

/// DropTail's arrival rule: accept whatever fits, unmarked.
#[derive(Debug, Default)]
pub struct Tail;

impl ArrivalRule for Tail {
    #[inline]
    fn accept(&mut self, _offer: &mut Offer, _pool: &mut PacketPool, _queued: u64, _cap: u64) -> bool {
        false
    }
}

/// A FIFO with a byte limit.
pub type DropTail = ArrivalFifo<Tail>;

impl DropTail {
    /// A queue holding at most `capacity` bytes.
    pub fn new(capacity: u64) -> Self {
        ArrivalFifo::with_rule(capacity, Tail)
    }
}

/// DropTail has no parameters: the port's buffer is its limit.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct DropTailParams;

impl Discipline for DropTailParams {
    const NAME: &'static str = "droptail";
    const ABOUT: &'static str = "FIFO, drops arrivals that do not fit the buffer";
    type Keys = NoKeys;
    type Queue = DropTail;
    fn resolve(_keys: &NoKeys, _ctx: &Context) -> Result<Self, KeyError> {
        Ok(DropTailParams)
    }
    fn build(&self, buffer_bytes: u64, _seed: u64, _rate: Rate) -> DropTail {
        DropTail::new(buffer_bytes)
    }
}
