//! dctc-flow (being built).
