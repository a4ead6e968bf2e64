//! One profile parses the user's source once: the instrumented module, the timing run, the
//! uniformity note, the default-fill notes and the cap message all come from one [`Kernel`].
//!
//! [`Kernel`]: crate::profile::kernel::Kernel

use super::{Request, profile};
use crate::experiments::Lab;
use crate::gpu::{AdapterSelector, GpuContext};
use crate::shaders::{parsed_texts, prepare_for_naga};

/// A loop bounded by a uniform the default fill sets (8, the dispatch's invocations), an
/// override, and a line for `--lanes`.
const KERNEL: &str = "\
struct Params { n: u32 }
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> data: array<u32>;
override SCALE: u32 = 1u;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var i = 0u;
    while (i < params.n) {
        data[gid.x] += i * SCALE;
        i += 1u;
    }
}
";

/// The times divlab's one parse function read `KERNEL` while profiling it as `request` asks.
///
/// Counted: every call of [`crate::shaders::parse_wgsl`] on this thread with the kernel's text
/// (the profile runs on its caller's thread). Not counted, because they are the device's
/// compile of the text it is given, not divlab reading the kernel: wgpu's own WGSL front end
/// in `create_shader_module` for the timing run. On the GL backend the index clamp
/// (`shaders::bounds`, a GL-only rewrite of that text) parses it once more through
/// `parse_wgsl`, a separate compile-time pass, so there the count is two.
fn parses(lab: &Lab, request: &Request) -> (usize, super::Finished) {
    let prepared = prepare_for_naga(KERNEL);
    parsed_texts();
    let finished = profile(lab, request).unwrap_or_else(|e| panic!("{e}"));
    let count = parsed_texts().iter().filter(|t| **t == prepared).count();
    (count, finished)
}

#[test]
fn one_profile_parses_the_source_once() {
    let gpu = GpuContext::new(&AdapterSelector::default())
        .unwrap_or_else(|e| panic!("no usable GPU device: {e}"));
    let once = if gpu.info.backend == wgpu::Backend::Gl {
        2
    } else {
        1
    };
    let lab = Lab::new(gpu);
    let mut request = Request::new("k.wgsl", KERNEL);
    request.overrides = vec![("SCALE".to_owned(), 2.0)];
    request.reps = 1;
    request.lanes_line = lab.gpu.caps.subgroups.then_some(9);
    // Run to the end: the instrumented run (twice instrumented with --lanes), the timing run
    // of the user's own source, the notes.
    let (count, finished) = parses(&lab, &request);
    assert!(finished.cap_hit.is_none() && finished.profile.timing.is_some());
    assert_eq!(count, once, "parses of the kernel in a whole profile");
    // Hit the cap: the message traces the loop's bound to `params.n` in the same kernel.
    request.loop_cap = 4;
    let (count, finished) = parses(&lab, &request);
    let message = finished.cap_hit.expect("the loop hits a cap of 4");
    assert!(message.contains("params.n"), "{message}");
    assert_eq!(count, once, "parses of the kernel in a capped profile");
}
