//! wgpu runs naga inside `create_shader_module` and `create_compute_pipeline`, and naga 30
//! panics on some valid kernels: its SPIR-V writer reaches `unreachable!` ("Expression [N] is
//! not cached") for a pointer to a local array's element passed to a function. A panic would
//! end the command with exit 101, or in the app leave a worker that never reports. Here it
//! becomes [`Error::Wgpu`], and the panic hook stays quiet about a panic caught this way.

use std::any::Any;
use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

use crate::{Error, Result};

thread_local! {
    /// Whether this thread is inside [`translating`], whose panic is reported as an error.
    static TRANSLATING: Cell<bool> = const { Cell::new(false) };
}

/// Runs `call`, a wgpu call that translates a shader (`what` names it for the message), and
/// turns a panic inside it into [`Error::Wgpu`].
pub(super) fn translating<T>(what: &str, call: impl FnOnce() -> T) -> Result<T> {
    quiet_hook();
    let outer = TRANSLATING.replace(true);
    // wgpu's locks are released as the panic unwinds; the device is not used for this kernel
    // again, since the error ends the run.
    let outcome = catch_unwind(AssertUnwindSafe(call));
    TRANSLATING.set(outer);
    outcome.map_err(|payload| Error::Wgpu {
        what: what.to_owned(),
        reason: format!(
            "naga, wgpu's shader translator, hit an internal error on this kernel (a panic, \
             caught: {}). The kernel is valid WGSL that naga could not translate for this \
             backend: a bug in naga (report it to gfx-rs/wgpu with the kernel). Another backend translates it another way \
             (`--backend gl` or `vulkan`), or write the construct another way (naga 30 fails on \
             a pointer to a local array's element passed to a function)",
            panic_message(payload.as_ref())
        ),
    })
}

/// The text a panic was raised with.
fn panic_message(payload: &(dyn Any + Send)) -> &str {
    (payload.downcast_ref::<&str>().copied())
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("no message")
}

/// Installs, once, a panic hook that stays quiet for a panic [`translating`] catches and
/// reports, and hands every other panic to the hook that was there.
fn quiet_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let earlier = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !TRANSLATING.with(Cell::get) {
                earlier(info);
            }
        }));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_inside_becomes_an_error_that_quotes_it() {
        let e = translating("pipeline p", || panic!("Expression [69] is not cached!"))
            .expect_err("caught");
        let text = e.to_string();
        assert!(text.contains("Expression [69] is not cached!"), "{text}");
        assert!(text.contains("pipeline p"), "{text}");
        assert_eq!(translating("x", || 5).unwrap(), 5);
        assert!(!TRANSLATING.with(Cell::get));
    }
}
