//! The GPU harness on a real device: adapters, features, the subgroup probe, the timer and
//! located WGSL errors.

use divlab::Error;
use divlab::experiments::fma_chain::FmaChain;
use divlab::experiments::subgroup_size;
use divlab::gpu::adapters::{create_instance, list_adapters};
use divlab::gpu::{Budget, GpuTimer, RuntimeChecks, TimingSource, check_wgsl, compile_wgsl};

use crate::util;
use crate::util::{expected_subgroup_size, gpu};

#[test]
fn adapter_list_has_a_vulkan_adapter_with_subgroups() {
    let _gpu = util::gpu_shared();
    let adapters = list_adapters(&create_instance(None), None);
    let table = divlab::gpu::adapters::format_adapter_table(adapters.iter().map(|(e, _)| e));
    assert!(
        !adapters.is_empty(),
        "wgpu found no adapter on any backend. Run `scripts/setup` to install Mesa's lavapipe"
    );
    assert!(
        adapters
            .iter()
            .any(|(e, _)| e.info.backend == wgpu::Backend::Vulkan && e.subgroups),
        "no Vulkan adapter with subgroups among:\n{table}\nlavapipe (`mesa-vulkan-drivers`) has one"
    );
    let defaults: Vec<usize> = adapters
        .iter()
        .filter(|(e, _)| e.is_default)
        .map(|(e, _)| e.index)
        .collect();
    assert_eq!(
        defaults,
        [0],
        "exactly the first adapter is the default:\n{table}"
    );
    for (position, (entry, _)) in adapters.iter().enumerate() {
        assert_eq!(entry.index, position, "indices follow list order:\n{table}");
    }
}

#[test]
fn default_device_has_subgroups() {
    let _gpu = util::gpu_shared();
    let gpu = gpu();
    assert!(
        gpu.caps.subgroups,
        "the default adapter `{}` ({:?}) created a device without Features::SUBGROUP: {:?}",
        gpu.info.name,
        gpu.info.backend,
        gpu.device.features()
    );
    assert!(gpu.require_subgroups("this test").is_ok());
}

#[test]
fn observed_subgroup_size_is_expected_with_linear_mapping() {
    let _gpu = util::gpu_shared();
    let gpu = gpu();
    let expected = expected_subgroup_size();
    let obs = subgroup_size::observe(&gpu)
        .unwrap_or_else(|e| panic!("the subgroup probe failed on `{}`: {e}", gpu.info.name));
    let context = format!(
        "adapter `{}` (reports {}..{}); set DIVLAB_EXPECT_SUBGROUP_SIZE if this device differs \
         from lavapipe's default of 8",
        gpu.info.name, gpu.info.subgroup_min_size, gpu.info.subgroup_max_size
    );
    assert_eq!(obs.size, expected, "ballot popcount on {context}");
    assert_eq!(
        obs.builtin_sizes,
        [expected],
        "subgroup_size builtin on {context}"
    );
    assert!(
        obs.linear_mapping,
        "mapping is not sid = lid % {expected} on {context}"
    );
    let (full, total) = obs.full_subgroups;
    let invocations = obs.records.len();
    let workgroup = subgroup_size::WORKGROUP_SIZE as usize;
    assert!(
        invocations > 0 && invocations.is_multiple_of(workgroup),
        "{invocations} records are not whole workgroups of {workgroup}"
    );
    assert_eq!(
        total,
        invocations / expected as usize,
        "subgroup count on {context}"
    );
    assert_eq!(
        full, total,
        "subgroups with every lane active at entry on {context}"
    );
    for r in &obs.records {
        assert_eq!(
            r.subgroup_invocation_id,
            r.local_index % expected,
            "record {r:?} on {context}"
        );
        assert_eq!(
            r.subgroup_first_index,
            r.local_index - r.local_index % expected,
            "record {r:?}"
        );
    }
}

/// Medians of `reps` interleaved timings of each kernel, after one warm-up each.
fn median_times(gpu: &divlab::gpu::GpuContext, kernels: &[&FmaChain], reps: usize) -> Vec<f64> {
    let timer = GpuTimer::new(gpu);
    assert_eq!(
        timer.source(),
        TimingSource::GpuTimestamp,
        "`{}` has no timestamp queries; lavapipe has them",
        gpu.info.name
    );
    let dispatches: Vec<_> = kernels.iter().map(|k| k.dispatch().clone()).collect();
    timer
        .interleave(
            gpu,
            "fma_chain",
            &dispatches,
            Budget::rounds(reps),
            &mut |_| {},
        )
        .unwrap_or_else(|e| panic!("timing failed: {e}"))
        .into_iter()
        .map(|mut s| {
            assert!(s.iter().all(|t| *t > 0.0), "a pass took no time: {s:?} ns");
            s.sort_by(f64::total_cmp);
            s[s.len() / 2]
        })
        .collect()
}

#[test]
fn timer_is_positive_and_grows_with_work() {
    let _gpu = util::gpu_exclusive();
    let gpu = gpu();
    let workgroups = 64;
    let small = FmaChain::new(&gpu, workgroups, 64).expect("fma_chain compiles");
    let large = FmaChain::new(&gpu, workgroups, 8 * 64).expect("fma_chain compiles");
    let medians = median_times(&gpu, &[&small, &large], 5);
    let (t_small, t_large) = (medians[0], medians[1]);
    let ratio = t_large / t_small;
    // 8x the FMAs should take about 8x the time; 2x leaves room for a loaded 2-core machine.
    assert!(
        ratio > 2.0,
        "8x the work took only {ratio:.2}x the time ({t_small:.0} ns -> {t_large:.0} ns) on `{}`",
        gpu.info.name
    );
    assert!(
        t_small > 1_000.0,
        "{t_small} ns is too short for {} flops: the timer is not measuring the pass",
        small.flops()
    );
}

/// Line 1 is `enable subgroups;`, which divlab strips before naga sees the source: errors must
/// still point at the line in the file.
const BAD_SYNTAX: &str = "enable subgroups;

fn helper(x: u32) -> u32 {
    return x * 2u;
}

fn broken() -> u32 {
    return 1u +;
}
";
const BAD_SYNTAX_LINE: u32 = 8;

const BAD_TYPE: &str = "enable subgroups;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    let half = 0.5;
    out[lid] = lid + half;
}
";
const BAD_TYPE_LINE: u32 = 7;

#[track_caller]
fn assert_located(result: Result<impl std::fmt::Debug, Error>, file: &str, expected_line: u32) {
    match result {
        Err(e @ Error::InvalidWgsl { .. }) => {
            let shown = e.to_string();
            let Error::InvalidWgsl {
                file: f,
                line,
                column,
                ..
            } = e
            else {
                unreachable!()
            };
            assert_eq!(f, file, "file in {shown}");
            assert_eq!(line, expected_line, "line in {shown}");
            assert!(column >= 1, "column in {shown}");
            // The first line, not just naga's report underneath, must say where.
            let headline = shown.lines().next().unwrap_or_default();
            assert!(
                headline.contains(&format!("{file}:{expected_line}:")),
                "the message's first line does not say `{file}:{expected_line}:`: {shown}"
            );
        }
        other => panic!("expected Error::InvalidWgsl at {file}:{expected_line}, got {other:?}"),
    }
}

#[test]
fn invalid_wgsl_names_its_line() {
    let _gpu = util::gpu_shared();
    assert_located(
        check_wgsl("bad_syntax.wgsl", BAD_SYNTAX),
        "bad_syntax.wgsl",
        BAD_SYNTAX_LINE,
    );
    assert_located(
        check_wgsl("bad_type.wgsl", BAD_TYPE),
        "bad_type.wgsl",
        BAD_TYPE_LINE,
    );
    // The same through the device path that kernels take.
    let gpu = gpu();
    for checks in [
        RuntimeChecks::Checked,
        RuntimeChecks::UncheckedBoundedByConstruction,
    ] {
        assert_located(
            compile_wgsl(&gpu, "bad_type.wgsl", BAD_TYPE, checks),
            "bad_type.wgsl",
            BAD_TYPE_LINE,
        );
    }
    // And a valid kernel compiles, so the errors above are about the source, not the device.
    let good = BAD_TYPE.replace("lid + half", "lid * 2u");
    compile_wgsl(&gpu, "good.wgsl", &good, RuntimeChecks::Checked)
        .unwrap_or_else(|e| panic!("valid WGSL was rejected: {e}"));
}

/// The timer runs a dispatch again and again: with its restores, each run starts from the
/// contents as filled; without, from what the run before it left.
#[test]
fn a_timed_dispatch_starts_each_run_from_what_was_filled() {
    use divlab::gpu::{Dispatch, Written, buffer_with, create_pipeline, read_buffer};
    let _gpu = util::gpu_shared();
    let gpu = gpu();
    let wgsl = "@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) gid: vec3u) {
    data[gid.x] += 1u;
}
";
    let module = compile_wgsl(&gpu, "adds_one.wgsl", wgsl, RuntimeChecks::Checked).unwrap();
    let pipeline = create_pipeline(&gpu, "adds_one.wgsl", &module, "main", &[]).unwrap();
    let usage =
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
    let data = buffer_with(&gpu, "data", bytemuck::cast_slice(&[1u32, 2, 3, 4]), usage);
    let mut dispatch = Dispatch::new(&gpu, "adds_one.wgsl", &pipeline, &[&data], 1);
    dispatch.restores = (gpu.keep_filled("adds_one.wgsl", &[Written::Buffer(&data)])).unwrap();
    let timer = GpuTimer::new(&gpu);
    let run = |dispatch: &Dispatch| {
        for _ in 0..3 {
            timer
                .time(&gpu, "adds_one.wgsl", std::slice::from_ref(dispatch))
                .unwrap();
        }
        read_buffer::<u32>(&gpu, "data", &data).unwrap()
    };
    assert_eq!(run(&dispatch), [2, 3, 4, 5]);
    dispatch.restores.clear();
    assert_eq!(run(&dispatch), [5, 6, 7, 8]);
}
