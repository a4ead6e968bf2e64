//! A finished profile: the document (its figures, notes and timing), what the user is told
//! where a loop hit the cap, the instrumented WGSL, the textures and the inputs. [`finished`]
//! is the one place that makes it from a counted run.

use crate::bench::adapter_record;
use crate::experiments::Lab;
use crate::profile::explain;
use crate::profile::fill::file_notes;
#[cfg(doc)]
use crate::profile::instrument;
use crate::profile::kernel::Kernel;
use crate::profile::report::{self, Inputs, KernelRecord, PROFILE_SCHEMA_VERSION, Profile};

use super::bind::Resources;
use super::counted::Run;
use super::outputs::{InputPreview, TextureImage};
use super::prepare::Prepared;
use super::{Request, textures};

/// A finished profile.
#[derive(Debug)]
pub struct Finished {
    /// The profile.
    pub profile: Profile,
    /// Where an invocation ran into the loop cap: what to tell the user (the profile is then of
    /// the cut-short run, and untimed).
    pub cap_hit: Option<String>,
    /// The instrumented kernel's WGSL, as it ran, with the directives a browser needs too
    /// ([`instrument::Instrumented::portable_wgsl`]).
    pub instrumented_wgsl: String,
    /// The width of the pipeline's subgroups, the `subgroup_size` builtin as the instrumented
    /// kernel saw it ([`instrument::Counters::subgroup_width`]); `None` without subgroups.
    pub subgroup_width: Option<u32>,
    /// The textures after the counted run, where [`Request::keep_images`] asked for them.
    pub images: Vec<TextureImage>,
    /// What each buffer (and the immediates) held when the kernel started.
    pub inputs: Vec<InputPreview>,
}

/// The profile of the counted run (untimed: the caller times a kernel that ends within the cap)
/// and everything said about it.
pub(super) fn finished(
    lab: &Lab,
    request: &Request,
    kernel: &Kernel,
    prepared: Prepared,
    resources: &Resources,
    run: Run,
) -> Finished {
    let counts = &run.counters;
    let instrumented = &prepared.instrumented;
    let subgroups = instrumented.options.subgroups;
    let workgroup_size = kernel.interface.workgroup_size;
    let widest_ballot = counts.max_active_lanes.filter(|_| subgroups);
    // Efficiency is against the width the pipeline runs with (the `subgroup_size` builtin), so
    // a workgroup smaller than a subgroup shows the lanes it leaves empty.
    let subgroup_size = counts.subgroup_width.filter(|_| subgroups);
    let (lines, branches, cross_checks) = report::lines_and_branches(&Inputs {
        instrumented,
        counters: counts,
        subgroup_size,
        widest_ballot,
        workgroup_size,
        analysis: Some(&kernel.analysis),
        conditions: &explain::condition_sources(kernel),
    });
    let cap_hit = counts.cap_hit.map(|lp| {
        let site = &instrumented.loops[lp];
        let held_down = prepared.loop_cap < request.loop_cap;
        let cap = (prepared.loop_cap, held_down);
        explain::cap_message(kernel, resources.fills(), site, cap)
    });
    let mut notes = prepared.notes;
    notes.extend(textures::describe(
        &kernel.interface,
        request,
        &resources.textures,
    ));
    notes.extend(explain::default_notes(kernel, resources.fills()));
    notes.extend(file_notes(
        &kernel.interface,
        &resources.resolved,
        resources.invocations,
    ));
    notes.extend(explain::added_returns_note(kernel.analysis.added_returns()));
    notes.extend(explain::uniformity_note(&kernel.analysis));
    if lab.gpu.is_llvmpipe() {
        notes.extend(explain::llvmpipe_nesting_note(kernel));
    }
    notes.extend(report::width_note(
        workgroup_size,
        subgroup_size,
        widest_ballot,
    ));
    notes.extend(report::loop_lines_note(&lines, &branches, subgroups));
    notes.extend(explain::entry_check(
        instrumented,
        counts,
        &kernel.interface,
        request.dispatch,
    ));
    notes.extend(explain::exit_check(instrumented, counts, &kernel.interface));
    // The cross-checks compare the counts with a whole run; a capped one was cut short.
    if cap_hit.is_none() {
        notes.extend(cross_checks);
    } else {
        notes.extend(report::capped_fixed_loops_note(&instrumented.loops));
    }
    let cap_line = counts.cap_hit.map(|l| instrumented.loops[l].line);
    let profile = Profile {
        schema: report::profile_schema_id(),
        schema_version: PROFILE_SCHEMA_VERSION,
        divlab_version: crate::report::build::version_record(),
        created: report::created_now(),
        adapter: adapter_record(lab),
        kernel: KernelRecord {
            file: request.file.clone(),
            entry: kernel.interface.entry.clone(),
            workgroup_size,
            dispatch: request.dispatch,
        },
        request: request.record(),
        source: Some(request.source.clone()),
        subgroup_size,
        widest_ballot,
        control_flow_efficiency: report::control_flow_efficiency(counts, subgroup_size),
        branch_efficiency: report::branch_efficiency(&branches),
        lines,
        branches,
        loop_cap_hit: cap_line.is_some(),
        loop_cap_line: cap_line,
        loop_cap: prepared.loop_cap,
        timing: None,
        compile_s: None,
        outputs: None,
        notes,
        lanes: run.lanes,
    };
    Finished {
        profile,
        cap_hit,
        instrumented_wgsl: prepared.instrumented.portable_wgsl(),
        subgroup_width: counts.subgroup_width,
        images: run.images,
        inputs: resources.inputs.clone(),
    }
}
