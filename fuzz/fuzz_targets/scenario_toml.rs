//! A scenario file: parsing and `validate` (every check `run` makes) never panic, whatever the
//! bytes. Relative paths in the scenario resolve against the working directory.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(s) = dctc_cli::api::parse(text, "<fuzz>", Path::new("."), None) {
        let _ = dctc_cli::api::validate(&s);
    }
});
