//! Running a profile, in the order [`profile_with_progress`] reads: the kernel parsed once
//! ([`Kernel`]), what can be checked before the device runs anything (`prepare.rs`), the
//! resources made and filled (`bind.rs`, `textures/`), the instrumented kernel run once,
//! counting (`counted.rs`; again from fresh resources with the cap halved where llvmpipe's own
//! loop limit ran out first), the report of that run (`finished.rs`), the outputs of that run
//! against the kernel alone (`agreement.rs`), and the kernel timed alone and instrumented
//! (`timing.rs`). What to run is a [`Request`] (`request.rs`).

mod agreement;
mod bind;
mod cost;
mod counted;
mod finished;
mod outputs;
mod prepare;
mod request;
mod textures;
mod timing;

use crate::Result;
use crate::experiments::Lab;
use crate::gpu::{Dispatch, GpuContext, LLVMPIPE_LOOP_ITERATIONS};
use crate::profile::Error as ProfileError;
use crate::profile::kernel::Kernel;

use self::bind::{Resources, pipeline, timed_resources};
use self::counted::{Run, counted_run};
pub use self::finished::Finished;
pub use self::outputs::{InputPreview, TextureImage};
use self::prepare::{Prepared, cap_ceiling, check_dispatch, check_workgroup, prepare};
pub use self::request::{
    Counts, DEFAULT_LOOP_CAP, DEFAULT_REPS, DEFAULT_TIME_BUDGET, MIN_REPS, Request, Stage,
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
    let compiled_before = lab.gpu.compile_time();
    let mut finished = run_profile(lab, request, on_stage)?;
    let compiling = lab.gpu.compile_time().saturating_sub(compiled_before);
    finished.profile.compile_s = Some(compiling.as_secs_f64());
    Ok(finished)
}

/// The profile's steps, in order.
fn run_profile(lab: &Lab, request: &Request, on_stage: &mut dyn FnMut(Stage)) -> Result<Finished> {
    let gpu = &lab.gpu;
    on_stage(Stage::Preparing);
    let per_dimension = gpu.limits().max_compute_workgroups_per_dimension;
    check_dispatch(request.dispatch, per_dimension)?;
    let entry = request.entry.as_deref();
    let kernel = Kernel::parse(&request.file, &request.source, &request.overrides, entry)?;
    check_workgroup(&kernel.interface, &gpu.limits())?;
    let (prepared, resources, counted, run) =
        count_under_driver_limit(gpu, &kernel, request, on_stage)?;
    let counters_group = prepared.instrumented.options.counters_group;
    let by_subgroup = prepared.instrumented.options.subgroups;
    let settled_cap = prepared.loop_cap;
    let mut finished = finished::finished(lab, request, &kernel, prepared, &resources, run);
    let cost_top = request.cost_top.filter(|_| by_subgroup);
    if request.cost_top.is_some() && cost_top.is_none() {
        finished.profile.notes.push(if gpu.caps.subgroups {
            "--cost: not measured, --counts invocations counts no divergence to price".to_owned()
        } else {
            "--cost: not measured, this adapter has no subgroup operations to count \
             divergence with"
                .to_owned()
        });
    }
    if finished.cap_hit.is_some() {
        if cost_top.is_some() {
            let why = "--cost: not measured, the run hit the loop cap (the kernel is not timed)";
            finished.profile.notes.push(why.to_owned());
        }
        return Ok(finished);
    }
    // What the counted run wrote, before `--cost`'s variants and the timing run on the same
    // resources again.
    let outputs = agreement::read_outputs(gpu, &kernel.interface, &resources)?;
    // The kernel ends on this input: time it alone and instrumented, interleaved, with the
    // variants `--cost` asks for.
    let profile = &finished.profile;
    let variants = match cost_top {
        Some(top) => {
            let (shared, group) = (&resources, (top, counters_group));
            // The variants count under the cap this run settled on.
            let settled = &Request {
                loop_cap: request.loop_cap.min(settled_cap),
                ..request.clone()
            };
            Some(cost::variants(
                gpu, settled, &kernel, profile, shared, group, on_stage,
            )?)
        }
        None => None,
    };
    let pairs = (variants.iter().flat_map(|v| &v.timed))
        .flat_map(|t| t.pairs.iter().cloned())
        .collect();
    // The source the kernel parsed, already validated: only the device compiles it again.
    let plain = pipeline(
        gpu,
        &kernel.file,
        &kernel.source,
        &kernel.interface.entry,
        &kernel.constants(),
        true,
    )?;
    on_stage(Stage::Comparing);
    finished.profile.outputs = Some(agreement::compare(gpu, request, &kernel, &plain, &outputs)?);
    let timed = timing(
        gpu,
        request,
        &kernel,
        &resources,
        (&plain, counted),
        pairs,
        on_stage,
    )?;
    finished.profile.timing = Some(timed.record);
    if let (Some(variants), Some(top)) = (variants, cost_top) {
        cost::apply(&mut finished.profile, variants, &timed.pairs, top);
    }
    Ok(finished)
}

/// Halvings of the loop cap tried where llvmpipe's own loop limit ran out before it fired.
const DRIVER_LIMIT_RETRIES: u32 = 4;

/// The kernel instrumented, its resources made and the counted run: again from fresh
/// resources with the cap halved, where the driver ended loops before the cap fired
/// ([`prepare::cap_ceiling`]), so that no count is of a run cut short where nothing says.
fn count_under_driver_limit(
    gpu: &GpuContext,
    kernel: &Kernel,
    request: &Request,
    on_stage: &mut dyn FnMut(Stage),
) -> Result<(Prepared, Resources, Dispatch, Run)> {
    let mut ceiling = cap_ceiling(gpu);
    for _ in 0..=DRIVER_LIMIT_RETRIES {
        let prepared = prepare(gpu, kernel, request, ceiling)?;
        // The resources before the pipelines: a texture format the adapter lacks is then named
        // as such, not as the pipeline's failure to compile.
        let resources = timed_resources(gpu, kernel, request)?;
        on_stage(Stage::Counting);
        let instrumented = &prepared.instrumented;
        let (counted, run) =
            counted_run(gpu, request, &kernel.interface, instrumented, &resources)?;
        if !run.counters.driver_loop_limit {
            return Ok((prepared, resources, counted, run));
        }
        ceiling = (prepared.loop_cap / 2).max(1);
    }
    Err(ProfileError::DriverLoopLimit {
        limit: LLVMPIPE_LOOP_ITERATIONS,
        cap: ceiling * 2,
    }
    .into())
}

#[cfg(test)]
mod tests;
