//! dctc-packet (being built).
