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

use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Exit status of a command that gave up on the device (docs/exit-codes.md).
pub const EXIT_TIMEOUT: i32 = 3;

/// The installed watchdog: the bound, what to suggest, and the armed steps.
struct Watchdog {
    timeout: Duration,
    hint: String,
    armed: Mutex<Vec<(u64, Instant, String)>>,
    changed: Condvar,
}

static WATCHDOG: OnceLock<Watchdog> = OnceLock::new();

/// Installs the process's watchdog: a step armed with [`arm`] that runs past `timeout` ends the
/// process with exit 3 and `hint` (what works for this command). The first call wins.
pub fn install(timeout: Duration, hint: impl Into<String>) {
    let installed = WATCHDOG.set(Watchdog {
        timeout,
        hint: hint.into(),
        armed: Mutex::new(Vec::new()),
        changed: Condvar::new(),
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
pub struct Armed(Option<u64>);

/// Arms the watchdog for the step `what` (a no-op without one): it must end within the bound.
pub fn arm(what: &str) -> Armed {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let Some(w) = WATCHDOG.get() else {
        return Armed(None);
    };
    let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let deadline = Instant::now() + w.timeout;
    w.armed
        .lock()
        .unwrap()
        .push((id, deadline, what.to_owned()));
    w.changed.notify_all();
    Armed(Some(id))
}

impl Drop for Armed {
    fn drop(&mut self) {
        if let (Some(id), Some(w)) = (self.0, WATCHDOG.get()) {
            w.armed.lock().unwrap().retain(|(i, ..)| *i != id);
            w.changed.notify_all();
        }
    }
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
    let mut armed = w.armed.lock().unwrap();
    loop {
        let now = Instant::now();
        let first = armed
            .iter()
            .min_by_key(|(_, deadline, _)| *deadline)
            .cloned();
        match first {
            Some((_, deadline, what)) if deadline <= now => exit(w, &what),
            Some((_, deadline, _)) => {
                armed = w.changed.wait_timeout(armed, deadline - now).unwrap().0
            }
            None => armed = w.changed.wait(armed).unwrap(),
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
