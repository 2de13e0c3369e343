//! Running the real binary under a watchdog, with its exit, output, time and peak memory
//! (`ru_maxrss` from `wait4`): a hang or a runaway allocation fails a test instead of stalling it.
//! Neither std nor rustix wraps `wait4` with the child's resource usage, hence the `unsafe` here,
//! the only `unsafe` in the repository.
#![expect(
    unsafe_code,
    reason = "wait4 and kill on the child's own pid, as the SAFETY notes say"
)]

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

pub struct Watched {
    /// The exit code, or `None` when a signal ended the process (the watchdog's, or a crash's).
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
    pub peak_kb: i64,
}

/// Runs `command`, killing it once `limit` has passed.
pub fn run(mut command: Command, limit: Duration) -> Watched {
    let started = Instant::now();
    #[allow(clippy::zombie_processes)] // reaped by wait4 below
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let streams = [
        Box::new(child.stdout.take().unwrap()) as Box<dyn Read + Send>,
        Box::new(child.stderr.take().unwrap()),
    ];
    let readers = streams.map(|mut stream| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = stream.read_to_end(&mut bytes);
            bytes
        })
    });
    let finished = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let finished = finished.clone();
        std::thread::spawn(move || {
            while started.elapsed() < limit {
                if finished.load(Ordering::SeqCst) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            // SAFETY: the child is not reaped until wait4 returns, which sets `finished` only
            // afterwards, so the pid is still ours.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        })
    };
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let elapsed = started.elapsed();
    finished.store(true, Ordering::SeqCst);
    watchdog.join().unwrap();
    assert_eq!(waited, pid);
    let [stdout, stderr] = readers.map(|reader| {
        // A reader whose pipe a leftover process still holds is not waited for.
        let deadline = Instant::now() + Duration::from_secs(5);
        while !reader.is_finished() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        if reader.is_finished() {
            String::from_utf8_lossy(&reader.join().unwrap()).into_owned()
        } else {
            "(output still held open by a leftover process)".into()
        }
    });
    Watched {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        stdout,
        stderr,
        elapsed,
        peak_kb: usage.ru_maxrss,
    }
}
