//! Rate allocation kernels shared by the policies: dctc-num's water-filling
//! ([`WaterFill`]) and strict-priority ([`greedy`]) kernels, the one implementation of each.

pub use dctc_num::waterfill::{greedy, WaterFill};
