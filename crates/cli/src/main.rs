//! The `dctc` binary: everything is in the library (`src/lib.rs`), shared with the Python
//! package.

#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    dctc_cli::main()
}
