//! dctc-num (being built).
