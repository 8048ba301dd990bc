//! Reading the files a scenario names (scenario, fabric, CDF, flow list, trace, NUM
//! problem) with a bound on their size. A leaf module: fabric and workload code both read files.

use std::io::Read;
use std::path::Path;

/// Largest input file dctc reads (scenario, fabric, CDF, flow list, NUM problem): 64 MiB.
/// The largest real inputs (a day-long flow trace as CSV) are a few MiB; the cap keeps a wrong
/// path such as `/dev/zero` or a multi-GB log from being read whole into memory.
pub const MAX_INPUT_BYTES: u64 = 64 << 20;

/// Reads a text file of at most [`MAX_INPUT_BYTES`] without reading more than that from it.
/// The error names neither the file nor a key: callers add both.
pub fn read_input_file(path: &Path) -> std::io::Result<String> {
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    file.take(MAX_INPUT_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "larger than {} MiB; dctc reads input files up to that size (is this the right file?)",
                MAX_INPUT_BYTES >> 20
            ),
        ));
    }
    String::from_utf8(bytes)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text"))
}
