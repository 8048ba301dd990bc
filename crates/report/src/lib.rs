//! dctc-report (being built).
