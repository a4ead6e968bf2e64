//! What divlab says when native code in its process faults. The driver compiles every kernel
//! inside divlab's process (and a CPU adapter runs it there too), so a driver bug ends divlab:
//! lavapipe from Mesa 22.3 corrupts its own memory compiling some kernels (valgrind: a use after
//! free inside `vkCreateComputePipelines`), and divlab then died of SIGSEGV or SIGABRT with no
//! word of why. The handler names the signal and the GPU step it came in ([`super::watchdog`]
//! records them), says where such a fault comes from and what to try, and exits 3 (the device
//! failed, docs/exit-codes.md). It writes with `write(2)` alone: after a fault the heap may be
//! the thing that is broken.
//!
//! A stack overflow in divlab's own code stays Rust's to report: a SIGSEGV or SIGBUS goes to the
//! handler that was there before (the standard library's, which names the thread that overflowed
//! and aborts) and is this handler's only where that one returns.

#![cfg_attr(not(unix), allow(unused))]

use std::ffi::CString;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock, TryLockError};

use super::watchdog::{EXIT_TIMEOUT, steps_now};

/// The signals a fault in native code ends the process with.
const SIGNALS: [(libc::c_int, &str); 5] = [
    (libc::SIGSEGV, "SIGSEGV (a memory fault)"),
    (libc::SIGBUS, "SIGBUS (a memory fault)"),
    (libc::SIGILL, "SIGILL (an illegal instruction)"),
    (libc::SIGFPE, "SIGFPE (an arithmetic fault)"),
    (libc::SIGABRT, "SIGABRT (an abort)"),
];

/// The handler each signal had before, as `sigaction` gave it (0: none to call).
static PREVIOUS: [AtomicUsize; SIGNALS.len()] = [const { AtomicUsize::new(0) }; SIGNALS.len()];
/// Whether the previous handler's flags included `SA_SIGINFO`.
static PREVIOUS_SIGINFO: [AtomicBool; SIGNALS.len()] =
    [const { AtomicBool::new(false) }; SIGNALS.len()];
/// Set while the previous SIGSEGV/SIGBUS handler runs: the abort it ends a stack overflow with
/// is its report, not a fault to explain.
static IN_PREVIOUS: AtomicBool = AtomicBool::new(false);
/// A file that also gets the message (the app's, read at its next start).
static REPORT: OnceLock<CString> = OnceLock::new();
/// The device made last, as the message names it: the driver a fault most likely came from.
static DEVICE: Mutex<String> = Mutex::new(String::new());

/// Records the device just made, for the message: its name, backend and driver.
pub fn note_device(info: &wgpu::AdapterInfo) {
    let named = format!(
        "{} ({}, {} {})",
        info.name,
        info.backend.to_str(),
        info.driver,
        info.driver_info
    );
    *DEVICE.lock().unwrap_or_else(|e| e.into_inner()) = named;
}

/// Installs the handler for the process; the first call wins. With `report`, the message is
/// also written to that file, for a caller that has no terminal (the app).
pub fn install(report: Option<&Path>) {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    if INSTALLED.set(()).is_err() {
        return;
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt as _;
        if let Some(path) = report.and_then(|p| CString::new(p.as_os_str().as_bytes()).ok()) {
            let _ = REPORT.set(path);
        }
        for (at, (signal, _)) in SIGNALS.iter().enumerate() {
            // SAFETY: a zeroed `sigaction` is a valid empty one; the handler is async-signal-safe
            // (atomics, `write`, `open`, `_exit`, and a lock it only tries).
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_fault as *const () as usize;
                action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut action.sa_mask);
                let mut previous: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(*signal, &action, &mut previous) == 0
                    && previous.sa_sigaction != libc::SIG_DFL
                    && previous.sa_sigaction != libc::SIG_IGN
                {
                    PREVIOUS[at].store(previous.sa_sigaction, Ordering::Relaxed);
                    let siginfo = previous.sa_flags & libc::SA_SIGINFO != 0;
                    PREVIOUS_SIGINFO[at].store(siginfo, Ordering::Relaxed);
                }
            }
        }
    }
    #[cfg(not(unix))]
    let _ = report;
}

#[cfg(unix)]
extern "C" fn on_fault(
    signal: libc::c_int,
    info: *mut libc::siginfo_t,
    context: *mut libc::c_void,
) {
    let Some(at) = SIGNALS.iter().position(|(s, _)| *s == signal) else {
        return;
    };
    if signal == libc::SIGABRT && IN_PREVIOUS.load(Ordering::Relaxed) {
        // The standard library's report of a stack overflow ends in an abort: let it.
        // SAFETY: restoring the default action; `abort` raises the signal again after this.
        unsafe { libc::signal(signal, libc::SIG_DFL) };
        return;
    }
    let previous = PREVIOUS[at].load(Ordering::Relaxed);
    if previous != 0 && (signal == libc::SIGSEGV || signal == libc::SIGBUS) {
        IN_PREVIOUS.store(true, Ordering::Relaxed);
        // SAFETY: `previous` is the handler `sigaction` returned, called as its flags say.
        unsafe {
            if PREVIOUS_SIGINFO[at].load(Ordering::Relaxed) {
                let handler = std::mem::transmute::<
                    usize,
                    extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void),
                >(previous);
                handler(signal, info, context);
            } else {
                let handler = std::mem::transmute::<usize, extern "C" fn(libc::c_int)>(previous);
                handler(signal);
            }
        }
        IN_PREVIOUS.store(false, Ordering::Relaxed);
    }
    let file = REPORT.get().map_or(-1, |path| {
        // SAFETY: `open` is async-signal-safe; the path was made before any fault.
        unsafe {
            libc::open(
                path.as_ptr(),
                libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC | libc::O_CLOEXEC,
                0o644,
            )
        }
    });
    let say = |text: &str| {
        for fd in [2, file] {
            write_all(fd, text.as_bytes());
        }
    };
    say("\nerror: divlab ended on ");
    say(SIGNALS[at].1);
    let named = steps_now(|armed, last| {
        let mut any = false;
        for what in armed {
            say(if any { "; `" } else { " during `" });
            say(what);
            say("`");
            any = true;
        }
        if !any {
            say(" while no GPU step was in progress");
            if let Some(last) = last {
                say(" (the last to end: `");
                say(last);
                say("`)");
            }
        }
    });
    if named.is_none() {
        // Another thread held the record (or this one did, arming a step).
        say(" (which GPU step was in progress could not be read)");
    }
    let device = match DEVICE.try_lock() {
        Ok(device) => Some(device),
        Err(TryLockError::Poisoned(e)) => Some(e.into_inner()),
        Err(TryLockError::WouldBlock) => None,
    };
    if let Some(device) = device.filter(|d| !d.is_empty()) {
        say(", on ");
        say(&device);
    }
    say(if signal == libc::SIGABRT {
        ". An abort here is most often the C library finding its memory corrupted (it prints \
         a line such as `malloc(): ... corrupted` first)"
    } else {
        ""
    });
    say(
        ". divlab's own code is memory-safe Rust: a fault like this comes from native code in \
         its process, above all the GPU driver, which compiles every kernel there (and, on a \
         CPU adapter such as llvmpipe, runs it there too); lavapipe from Mesa 22.3 corrupts its \
         memory compiling some kernels. A fault can surface after the step that caused it, where \
         the broken memory is next used, and come and go between runs of the same kernel. No \
         result file is left half-written. Try another adapter or backend (`divlab adapters`) or \
         a newer driver; the kernel is worth reporting to the driver's maintainers.\n",
    );
    if file >= 0 {
        // SAFETY: closing the descriptor opened above.
        unsafe { libc::close(file) };
    }
    // SAFETY: `_exit` ends the process at once, running nothing that could touch a broken heap.
    unsafe { libc::_exit(EXIT_TIMEOUT) }
}

/// Writes `bytes` to `fd` whole, as far as `write(2)` lets it; nothing for a negative `fd`.
#[cfg(unix)]
fn write_all(fd: libc::c_int, mut bytes: &[u8]) {
    while fd >= 0 && !bytes.is_empty() {
        // SAFETY: `bytes` is a live slice; `write` is async-signal-safe.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if n <= 0 {
            return;
        }
        bytes = &bytes[n as usize..];
    }
}
