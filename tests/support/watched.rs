//! Running the real binary under a watchdog, with its exit, output, time and peak memory
//! (`ru_maxrss` from `wait4`, through the `wait4` crate's safe wrapper): a hang or a runaway
//! allocation fails a test instead of stalling it.

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
    let pid = rustix::process::Pid::from_child(&child);
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
            // The child is reaped only after this thread is joined, so the pid is still the
            // child's (at worst a zombie's) and the kill cannot reach another process.
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        })
    };
    // Waited for without reaping it (`waitid` with `WNOWAIT`), so that the watchdog is stopped
    // while the pid is still the child's; `wait4` then reaps it and reads its peak memory.
    let exited = rustix::process::WaitIdOptions::EXITED | rustix::process::WaitIdOptions::NOWAIT;
    while let Err(errno) = rustix::process::waitid(rustix::process::WaitId::Pid(pid), exited) {
        assert_eq!(errno, rustix::io::Errno::INTR, "waitid failed");
    }
    let elapsed = started.elapsed();
    finished.store(true, Ordering::SeqCst);
    watchdog.join().unwrap();
    let used = wait4::Wait4::wait4(&mut child).unwrap();
    // Every process maps some memory: a zero would make each memory limit below pass unread.
    assert!(used.rusage.maxrss > 0, "wait4 reported no peak memory");
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
        code: used.status.code(),
        stdout,
        stderr,
        elapsed,
        peak_kb: i64::try_from(used.rusage.maxrss / 1024).unwrap_or(i64::MAX),
    }
}
