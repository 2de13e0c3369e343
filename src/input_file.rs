//! Reading an input file: into memory, or for a large regular file straight from the page cache.
//! Reading a 65,536-node spec (8.5 MiB) into a fresh buffer took 13 ms on one core before any
//! parsing: the kernel allocated, zeroed and faulted in 2,170 pages to copy the file into. Mapped,
//! the file's own cached pages are used, 16 to a fault: 0.8 ms (BENCHMARKS.md, "Start-up,
//! render's writes and large files mapped").
//!
//! A mapping reads what the file holds at each access, so a file cut short by another program
//! while hybridgen reads it would end the process with `SIGBUS`. [`Mapped::open`] installs a
//! handler that says so and exits with code 2 instead of dying without a word.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// From this size a regular file is mapped; smaller ones are read, which costs less than setting
/// up and tearing down a mapping.
pub const MAPPED_FROM: u64 = 1 << 20;

/// The bytes of one input file.
#[derive(Debug)]
pub enum FileBytes {
    Read(Vec<u8>),
    Mapped(Mapped),
}

impl From<Vec<u8>> for FileBytes {
    fn from(bytes: Vec<u8>) -> Self {
        FileBytes::Read(bytes)
    }
}

impl std::ops::Deref for FileBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Read(bytes) => bytes,
            FileBytes::Mapped(mapped) => mapped.bytes(),
        }
    }
}

/// Reads one input (`-` is standard input), at most one byte past `limit` so that the loader can
/// refuse it. A regular file from [`MAPPED_FROM`] up to the limit is mapped.
pub fn read(path: &Path, limit: usize) -> io::Result<FileBytes> {
    let limit = limit as u64 + 1;
    let mut bytes = Vec::new();
    if path == Path::new("-") {
        io::stdin().lock().take(limit).read_to_end(&mut bytes)?;
        return Ok(FileBytes::Read(bytes));
    }
    let file = File::open(path)?;
    let metadata = file.metadata()?;
    let size = metadata.len();
    if metadata.is_file() && (MAPPED_FROM..limit).contains(&size) {
        if let Ok(mapped) = Mapped::open(&file, usize::try_from(size).unwrap_or(0)) {
            return Ok(FileBytes::Mapped(mapped));
        }
    }
    // Sized up front: a growing buffer would hold up to twice the file.
    bytes.reserve_exact(usize::try_from(size.min(limit)).unwrap_or(0));
    file.take(limit).read_to_end(&mut bytes)?;
    Ok(FileBytes::Read(bytes))
}

/// A read-only, private mapping of a whole file.
#[derive(Debug)]
pub struct Mapped {
    start: *const u8,
    len: usize,
}

// SAFETY: the mapping is read-only and owned by this value alone; reading it from several
// threads is reading immutable memory.
unsafe impl Send for Mapped {}
// SAFETY: as above: no method writes through the pointer.
unsafe impl Sync for Mapped {}

impl Mapped {
    /// Maps `file`, `len` bytes long (its size as just read from its metadata; the kernel
    /// refuses an empty mapping).
    #[cfg(unix)]
    pub fn open(file: &File, len: usize) -> io::Result<Self> {
        use std::os::unix::io::AsRawFd;
        guard_against_truncation();
        // SAFETY: a new private read-only mapping of a descriptor this function borrows; the
        // kernel chooses the address, and the result is checked before use.
        let start = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_PRIVATE,
                file.as_raw_fd(),
                0,
            )
        };
        if start == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(Mapped {
            start: start.cast::<u8>(),
            len,
        })
    }

    #[cfg(not(unix))]
    pub fn open(_file: &File, _len: usize) -> io::Result<Self> {
        Err(io::Error::other("files are mapped on Unix only"))
    }

    /// Its text, when it is UTF-8; otherwise the mapping back, with the error.
    pub fn into_text(self) -> Result<MappedText, (Self, std::str::Utf8Error)> {
        match std::str::from_utf8(self.bytes()) {
            Ok(_) => Ok(MappedText(self)),
            Err(error) => Err((self, error)),
        }
    }

    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `start` is a live mapping of `len` readable bytes until `drop`, and nothing
        // writes to it (a private read-only mapping).
        unsafe { std::slice::from_raw_parts(self.start, self.len) }
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        #[cfg(unix)]
        // SAFETY: unmaps exactly the mapping `open` made; no borrow of it outlives `self`.
        unsafe {
            libc::munmap(self.start.cast_mut().cast(), self.len);
        }
    }
}

/// A mapped file known to be UTF-8.
#[derive(Debug)]
pub struct MappedText(Mapped);

impl MappedText {
    pub fn as_str(&self) -> &str {
        // SAFETY: `Mapped::into_text` checked these bytes are UTF-8. They stay so unless another
        // program rewrites the file in place while hybridgen runs: the risk every tool that maps
        // its inputs takes (clang maps source files the same way), taken here for large files
        // only. A file cut short ends the process in the SIGBUS handler before a read sees it.
        unsafe { std::str::from_utf8_unchecked(self.0.bytes()) }
    }
}

/// Installs, once, a `SIGBUS` handler for a mapped file cut short while it is read.
#[cfg(unix)]
fn guard_against_truncation() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        // SAFETY: a handler that only calls async-signal-safe functions, installed with a zeroed
        // sigaction whose mask is emptied by sigemptyset.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_bus_error as *const () as libc::sighandler_t;
            action.sa_flags = libc::SA_SIGINFO;
            libc::sigemptyset(&raw mut action.sa_mask);
            libc::sigaction(libc::SIGBUS, &raw const action, std::ptr::null_mut());
        }
    });
}

/// A read past the end of a mapped file (`BUS_ADRERR`) means the file shrank: said plainly, exit
/// code 2. Any other bus error is left to the default action.
#[cfg(unix)]
extern "C" fn on_bus_error(signal: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    const MESSAGE: &[u8] = b"error: an input file became shorter while hybridgen was reading it; \
run hybridgen again once the file is written in full\n";
    // SAFETY: `info` is the kernel's siginfo for this signal; write, signal and _exit are
    // async-signal-safe.
    unsafe {
        if !info.is_null() && (*info).si_code == libc::BUS_ADRERR {
            libc::write(2, MESSAGE.as_ptr().cast(), MESSAGE.len());
            libc::_exit(2);
        }
        libc::signal(signal, libc::SIG_DFL);
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::io::Write;

    const LIMIT: usize = crate::load::MAX_SPEC_BYTES;

    fn scratch(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let path =
            std::env::temp_dir().join(format!("hybridgen-input-{name}-{}", std::process::id()));
        std::fs::File::create(&path)
            .unwrap()
            .write_all(bytes)
            .unwrap();
        path
    }

    /// A large regular file is mapped, a small one read; either way the bytes are the file's,
    /// and decoding them gives the same text and the same error (here a byte that is not UTF-8
    /// past the first mebibyte).
    #[test]
    fn mapped_and_read_files_decode_alike() {
        let mut large = b"apiVersion: hybridgen/v1\n".repeat(50_000);
        assert!(large.len() as u64 > MAPPED_FROM);
        let path = scratch("large", &large);
        let read_back = read(&path, LIMIT).unwrap();
        assert!(matches!(read_back, FileBytes::Mapped(_)));
        assert_eq!(&read_back[..], &large[..]);
        let (mapped, ok) = crate::load::decode("large", read_back);
        assert!(ok.is_ok());
        assert_eq!(mapped.text().as_bytes(), &large[..]);

        large[1_100_000] = 0xff;
        std::fs::write(&path, &large).unwrap();
        let (mapped, mapped_error) = crate::load::decode("large", read(&path, LIMIT).unwrap());
        let (in_memory, read_error) = crate::load::decode("large", large.clone());
        assert_eq!(mapped.text(), in_memory.text());
        assert_eq!(
            format!("{mapped_error:?}"),
            format!("{read_error:?}"),
            "the same error at the same place"
        );
        assert!(mapped_error.is_err());
        std::fs::remove_file(&path).unwrap();

        let small = scratch("small", b"apiVersion: hybridgen/v1\n");
        assert!(matches!(read(&small, LIMIT).unwrap(), FileBytes::Read(_)));
        std::fs::remove_file(&small).unwrap();
    }

    /// A mapped file cut short under the reader ends the process with the handler's message and
    /// exit code 2. Run in a child process (this test binary again, the test below), since the
    /// handler exits.
    #[test]
    fn a_file_cut_short_while_mapped_is_said_plainly() {
        let path = scratch("cut", &vec![b'x'; 3 << 20]);
        let child = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "input_file::tests::cut_short_under_the_reader",
                "--ignored",
                "--nocapture",
            ])
            .env("HYBRIDGEN_CUT_SHORT", &path)
            .output()
            .unwrap();
        std::fs::remove_file(&path).unwrap();
        let stderr = String::from_utf8_lossy(&child.stderr);
        assert_eq!(child.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("an input file became shorter while hybridgen was reading it"),
            "{stderr}"
        );
    }

    #[test]
    #[ignore = "the child of a_file_cut_short_while_mapped_is_said_plainly"]
    fn cut_short_under_the_reader() {
        let path = std::env::var_os("HYBRIDGEN_CUT_SHORT").expect("run by the test above");
        let FileBytes::Mapped(mapped) = read(Path::new(&path), LIMIT).unwrap() else {
            panic!("not mapped");
        };
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(4096)
            .unwrap();
        let last = mapped.bytes()[(3 << 20) - 1];
        panic!("read {last} past the end of a file cut short");
    }
}
