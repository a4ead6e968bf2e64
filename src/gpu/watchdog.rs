//! The command line's bound on the process: a GPU step (a shader compile, a pipeline, a
//! submission) that outlives `--timeout` ends the process with exit 3, whether or not the driver
//! ever returns.
//!
//! Returning an error is not enough there: a driver still busy with the timed-out work makes
//! dropping the device wait for it (lavapipe: 40–60 s more), and a compile has no timeout at
//! all (a 10,000-line kernel compiled for ten minutes). So the command line installs a watchdog,
//! each step arms it for its duration ([`arm`]), and a step that times out gives up at once
//! ([`give_up`]): the message, then `_exit(3)`, which runs no destructor and no driver's exit
//! handler. The app installs none, and gets [`crate::Error::Timeout`] as before.
//!
//! The steps are recorded with or without a watchdog: a fault in the driver
//! ([`super::fault`]) names the step it came in.

use std::sync::{Condvar, Mutex, OnceLock, TryLockError};
use std::time::{Duration, Instant};

/// Exit status of a command that gave up on the device (docs/exit-codes.md).
pub const EXIT_TIMEOUT: i32 = 3;

/// The installed watchdog: the bound and what to suggest.
struct Watchdog {
    timeout: Duration,
    hint: String,
}

static WATCHDOG: OnceLock<Watchdog> = OnceLock::new();

/// The GPU steps in progress, and the last one that ended.
struct Steps {
    armed: Vec<(u64, Instant, String)>,
    last: Option<String>,
}

static STEPS: Mutex<Steps> = Mutex::new(Steps {
    armed: Vec::new(),
    last: None,
});
static CHANGED: Condvar = Condvar::new();

/// Installs the process's watchdog: a step armed with [`arm`] that runs past `timeout` ends the
/// process with exit 3 and `hint` (what works for this command). The first call wins.
pub fn install(timeout: Duration, hint: impl Into<String>) {
    let installed = WATCHDOG.set(Watchdog {
        timeout,
        hint: hint.into(),
    });
    if installed.is_ok() {
        std::thread::Builder::new()
            .name("divlab-watchdog".to_owned())
            .spawn(watch)
            .expect("spawning the watchdog thread");
    }
}

/// The bound of the installed watchdog, if any.
pub fn timeout() -> Option<Duration> {
    WATCHDOG.get().map(|w| w.timeout)
}

/// A step in progress; dropping it disarms the step.
#[must_use = "the step is armed only while the guard lives"]
pub struct Armed(u64);

/// Records the step `what` while the guard lives; with a watchdog, it must end within the bound.
pub fn arm(what: &str) -> Armed {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut steps = STEPS.lock().unwrap_or_else(|e| e.into_inner());
    steps.armed.push((id, Instant::now(), what.to_owned()));
    CHANGED.notify_all();
    Armed(id)
}

impl Drop for Armed {
    fn drop(&mut self) {
        let mut steps = STEPS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(at) = steps.armed.iter().position(|(id, ..)| *id == self.0) {
            steps.last = Some(steps.armed.remove(at).2);
        }
        CHANGED.notify_all();
    }
}

/// The steps in progress, oldest first, and the last that ended, for a signal handler: no
/// allocation, and `None` where another thread holds the record (or the faulting one does).
pub(super) fn steps_now<T>(
    read: impl FnOnce(&mut dyn Iterator<Item = &str>, Option<&str>) -> T,
) -> Option<T> {
    let steps = match STEPS.try_lock() {
        Ok(steps) => steps,
        Err(TryLockError::Poisoned(e)) => e.into_inner(),
        Err(TryLockError::WouldBlock) => return None,
    };
    let mut armed = steps.armed.iter().map(|(.., what)| what.as_str());
    Some(read(&mut armed, steps.last.as_deref()))
}

/// With a watchdog installed, ends the process now for the step `what` that did not finish
/// within the bound; without one, returns, and the caller reports the timeout as an error.
pub fn give_up(what: &str) {
    if let Some(w) = WATCHDOG.get() {
        exit(w, what);
    }
}

fn watch() {
    let w = WATCHDOG.get().expect("installed before the thread starts");
    let mut steps = STEPS.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        let now = Instant::now();
        let first = (steps.armed.iter())
            .min_by_key(|(_, started, _)| *started)
            .map(|(_, started, what)| (*started + w.timeout, what.clone()));
        steps = match first {
            Some((deadline, what)) if deadline <= now => exit(w, &what),
            Some((deadline, _)) => {
                (CHANGED.wait_timeout(steps, deadline - now))
                    .unwrap_or_else(|e| e.into_inner())
                    .0
            }
            None => CHANGED.wait(steps).unwrap_or_else(|e| e.into_inner()),
        }
    }
}

/// What to suggest for a compile, which no option of a command makes shorter.
const COMPILE_HINT: &str = "The driver was still compiling the kernel: try a larger --timeout, \
     or another adapter (`divlab adapters`).";

/// The label prefix of a pipeline's first run on llvmpipe, which compiles it then.
pub const FIRST_RUN: &str = "first run of ";

/// The label suffix of a profile's instrumented kernel, whose compile can take many times the
/// kernel's own.
pub const INSTRUMENTED: &str = " (instrumented)";

/// Why a compile of the instrumented kernel can run long, as measured.
const INSTRUMENTED_HINT: &str = " The instrumented form counts in every block and loop of the \
     kernel and of each function it calls, so it can take many times the kernel's own compile: \
     on an H100, a 611-line kernel of short loops in functions called from loops compiled in \
     51 s alone and had not compiled instrumented after 400 s.";

fn exit(w: &Watchdog, what: &str) -> ! {
    // Said only in the two hints for a compile below.
    let instrumented = if what.ends_with(INSTRUMENTED) {
        INSTRUMENTED_HINT
    } else {
        ""
    };
    let hint = if what.starts_with("compiling ") {
        format!("{COMPILE_HINT}{instrumented}")
    } else if what.starts_with(FIRST_RUN) {
        format!(
            "llvmpipe compiles a kernel when it first runs it, which for a large kernel can \
             take minutes: try a larger --timeout, or another adapter (`divlab \
             adapters`).{instrumented} If it was the run: {}",
            w.hint
        )
    } else {
        w.hint.clone()
    };
    eprintln!(
        "error: `{what}` did not finish within {} (--timeout); divlab gave up on the device \
         without waiting for it. {hint}",
        humantime::format_duration(w.timeout),
    );
    // SAFETY: `_exit` ends the process at once; nothing after this line runs, no destructor
    // and no exit handler, which is the point: the driver may still be running the step.
    #[cfg(unix)]
    unsafe {
        libc::_exit(EXIT_TIMEOUT)
    }
    #[cfg(not(unix))]
    std::process::exit(EXIT_TIMEOUT)
}
