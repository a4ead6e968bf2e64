//! Running a profile, in the order [`profile_with_progress`] reads: the kernel parsed once
//! ([`Kernel`]), what can be checked before the device runs anything (`prepare.rs`), the
//! resources made and filled (`bind.rs`, `textures/`), the instrumented kernel run once,
//! counting (`counted.rs`), the report of that run (`finished.rs`), and the kernel timed alone
//! and instrumented (`timing.rs`). What to run is a [`Request`] (`request.rs`).

mod bind;
mod counted;
mod finished;
mod outputs;
mod prepare;
mod request;
mod textures;
mod timing;

use crate::Result;
use crate::experiments::Lab;
use crate::profile::kernel::Kernel;

use self::bind::resources;
use self::counted::counted_run;
pub use self::finished::Finished;
pub use self::outputs::{InputPreview, TextureImage};
use self::prepare::{check_dispatch, prepare};
pub use self::request::{
    DEFAULT_LOOP_CAP, DEFAULT_REPS, DEFAULT_TIME_BUDGET, MIN_REPS, Request, Stage,
};
use self::timing::timing;

/// Profiles `request` on the lab's device.
pub fn profile(lab: &Lab, request: &Request) -> Result<Finished> {
    profile_with_progress(lab, request, &mut |_| {})
}

/// [`profile`], telling `on_stage` what it is doing.
pub fn profile_with_progress(
    lab: &Lab,
    request: &Request,
    on_stage: &mut dyn FnMut(Stage),
) -> Result<Finished> {
    let gpu = &lab.gpu;
    on_stage(Stage::Preparing);
    let per_dimension = gpu.limits().max_compute_workgroups_per_dimension;
    check_dispatch(request.dispatch, per_dimension)?;
    let entry = request.entry.as_deref();
    let kernel = Kernel::parse(&request.file, &request.source, &request.overrides, entry)?;
    let prepared = prepare(gpu, &kernel, request)?;
    // The resources before the pipelines: a texture format the adapter lacks is then named as
    // such, not as the pipeline's failure to compile.
    let resources = resources(gpu, &kernel.interface, request)?;
    on_stage(Stage::Counting);
    let instrumented = &prepared.instrumented;
    let (counted, run) = counted_run(gpu, request, &kernel.interface, instrumented, &resources)?;
    let mut finished = finished::finished(lab, request, &kernel, prepared, &resources, run);
    if finished.cap_hit.is_none() {
        // The kernel ends on this input: time it alone and instrumented, interleaved.
        let timed = timing(gpu, request, &kernel, &resources, counted, on_stage)?;
        finished.profile.timing = Some(timed);
    }
    Ok(finished)
}

#[cfg(test)]
mod tests;
