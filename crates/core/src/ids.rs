//! Typed ids. They index dense arrays and carry no arithmetic.

use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        pub struct $name(pub u32);

        impl $name {
            /// The id as an index into a dense array.
            pub const fn index(self) -> usize {
                self.0 as usize
            }
            /// The id of the `i`-th element of a dense array.
            ///
            /// Panics if `i` does not fit in 32 bits: no fabric or workload is that large.
            pub fn from_index(i: usize) -> Self {
                Self(u32::try_from(i).expect(concat!(stringify!($name), " overflow")))
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

id_type!(
    /// A node of a fabric: host, switch or controller.
    NodeId,
    "n"
);
id_type!(
    /// A directed link of a fabric.
    LinkId,
    "l"
);
id_type!(
    /// A flow of a workload.
    FlowId,
    "f"
);
id_type!(
    /// A coflow (a group of flows whose last completion counts).
    CoflowId,
    "c"
);
