//! Reading an input file into memory, within a size limit, so that a huge or endless input (a
//! device, a pipe that never closes) costs at most the limit.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// Reads one input (`-` is standard input), at most one byte past `limit` so that the loader can
/// tell the file is too large and say so.
pub fn read(path: &Path, limit: usize) -> io::Result<Vec<u8>> {
    let limit = limit as u64 + 1;
    let mut bytes = Vec::new();
    if path == Path::new("-") {
        io::stdin().lock().take(limit).read_to_end(&mut bytes)?;
    } else {
        let file = File::open(path)?;
        // Sized up front: a buffer grown by doubling would hold up to twice the limit.
        let size = file.metadata()?.len().min(limit);
        bytes.reserve_exact(usize::try_from(size).unwrap_or(0));
        file.take(limit).read_to_end(&mut bytes)?;
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_read_to_one_byte_past_the_limit() {
        let path = std::env::temp_dir().join(format!("hybridgen-read-{}", std::process::id()));
        std::fs::write(&path, b"0123456789").unwrap();
        assert_eq!(read(&path, 4).unwrap(), b"01234");
        assert_eq!(read(&path, 100).unwrap(), b"0123456789");
        std::fs::remove_file(&path).unwrap();
    }
}
