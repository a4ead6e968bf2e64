//! `scheduling.run_ahead`: half the lanes of every subgroup run a long path, half a short one,
//! and after the join the short lanes do independent memory work. The time of the whole against
//! its parts, timed round-robin, says how much of the post-join work overlapped the long path:
//!
//! overlap = (T_long + T_post − T_base − T_full) / min(T_long − T_base, T_post − T_base)
//!
//! where T_base is the kernel with short paths only, counted once. 0 means the short lanes
//! waited at the join (as under a reconvergence stack); 1 means their work hid completely under
//! the long path (run-ahead, seed 001).
//!
//! Without subgroups ([`Grouping::Blocks`]) the paths split by the parity of
//! `local_invocation_index`, in workgroups of [`WORKGROUP_SIZE_WITHOUT_SUBGROUPS`].

use crate::experiments::scheduling::Grouping;
use crate::experiments::{Progress, RunContext};
use crate::gpu::{
    Budget, Dispatch, GpuContext, GpuTimer, Kernel, LLVMPIPE_LOOP_BUDGET, LLVMPIPE_LOOP_ITERATIONS,
    RuntimeChecks, buffer_with, read_only_buffer, storage_buffer,
};
use crate::report::{
    ExperimentInfo, ExperimentResult, Family, Figure, Point, Series, VerdictStatus,
};
use crate::shaders;
pub use crate::shaders::scheduling::run_ahead::{AheadParams, TABLE_SIZE};
use crate::stats::{self, Summary};
use crate::{Error, Result};

/// The kernel with subgroups; [`kernel`] gives the one for a grouping. Its loops run host-set
/// counts kept under [`MAX_LONG_ITERS`] and [`MAX_POST_ITERS`], and every index is masked or
/// sized to the dispatch, so it needs no injected guards.
pub const KERNEL: Kernel = Kernel::of(
    &shaders::SCHEDULING_RUN_AHEAD,
    "main",
    RuntimeChecks::UncheckedBoundedByConstruction,
);

/// The kernel for `grouping`: [`KERNEL`], or its `main_no_sg` entry point. Compile it with
/// `grouping.source(KERNEL.source)`.
pub fn kernel(grouping: Grouping) -> Kernel {
    Kernel {
        entry: grouping.pick(KERNEL.entry, "main_no_sg"),
        ..KERNEL
    }
}

/// The workgroup without subgroups, where the subgroup size is unknown: NVIDIA's width, and in
/// WGSL's range. Narrower subgroups share a workgroup, each still split by parity; a wider one
/// runs the workgroup as a partial subgroup.
pub const WORKGROUP_SIZE_WITHOUT_SUBGROUPS: u32 = 32;
/// Workgroups of one subgroup each: fewer than a large GPU has multiprocessors, so no subgroup
/// hides another's wait; enough for both cores of a CPU device.
pub const WORKGROUPS: u32 = 32;
/// The long path's cap: 4M iterations of 4 dependent FMAs is ~35 ms on an H200 SM.
pub const MAX_LONG_ITERS: u32 = 1 << 22;
/// The post-join cap: 128k dependent loads of at most ~0.5 us is ~65 ms.
pub const MAX_POST_ITERS: u32 = 1 << 17;
/// The short path is this fraction of the long one.
pub const SHORT_DIVISOR: u32 = 16;
/// Seeds the table's permutation.
pub const TABLE_SEED: u64 = 0x7ab1e;

/// The four timed configurations, in [`Part`] order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// Short paths only: launch cost and the short path, counted once.
    Base,
    /// The long path, no post-join work.
    Long,
    /// The post-join work, no long path.
    Post,
    /// Both.
    Full,
}

impl Part {
    /// Every part, in series order.
    pub const ALL: [Self; 4] = [Self::Base, Self::Long, Self::Post, Self::Full];

    fn name(self) -> &'static str {
        match self {
            Self::Base => "base",
            Self::Long => "long",
            Self::Post => "post",
            Self::Full => "full",
        }
    }

    /// The parameters of this part for a long path of `long` and post-join work of `post`.
    pub fn params(self, long: u32, post: u32) -> AheadParams {
        let short = (long / SHORT_DIVISOR).max(1);
        let (long_iters, post_iters) = match self {
            Self::Base => (short, 0),
            Self::Long => (long, 0),
            Self::Post => (short, post),
            Self::Full => (long, post),
        };
        AheadParams {
            long_iters,
            short_iters: short,
            post_iters,
            post_parity: 1,
        }
    }
}

/// The overlap fraction of one round's times `[base, long, post, full]` (see the module docs);
/// `None` when a part took no measurable time.
pub fn overlap(t: [f64; 4]) -> Option<f64> {
    let [base, long, post, full] = t;
    let denominator = (long - base).min(post - base);
    (denominator > 0.0).then(|| (long + post - base - full) / denominator)
}

/// The compiled kernel and its buffers.
struct Bench {
    pipeline: wgpu::ComputePipeline,
    table: wgpu::Buffer,
    sink: wgpu::Buffer,
    timer: GpuTimer,
}

impl Bench {
    fn new(gpu: &GpuContext, grouping: Grouping, workgroup_size: u32) -> Result<Self> {
        let pipeline = kernel(grouping).pipeline(
            gpu,
            &grouping.source(KERNEL.source),
            &[("WORKGROUP_SIZE", f64::from(workgroup_size))],
        )?;
        let table = buffer_with(
            gpu,
            "divlab.scheduling_run_ahead.table",
            bytemuck::cast_slice(&single_cycle(TABLE_SIZE, TABLE_SEED)),
            wgpu::BufferUsages::STORAGE,
        );
        let sink = storage_buffer(
            gpu,
            "divlab.scheduling_run_ahead.sink",
            u64::from(WORKGROUPS * workgroup_size) * 4,
        );
        Ok(Self {
            pipeline,
            table,
            sink,
            timer: GpuTimer::new(gpu),
        })
    }

    /// A dispatch with `params`, ready to time.
    fn prepare(&self, gpu: &GpuContext, params: &AheadParams) -> Dispatch {
        let params = read_only_buffer(gpu, "divlab.scheduling_run_ahead.params", params);
        Dispatch::new(
            gpu,
            "divlab.scheduling_run_ahead",
            &self.pipeline,
            &[&params, &self.table, &self.sink],
            WORKGROUPS,
        )
    }

    /// What `part` takes beyond `base`: the fastest of four rounds of each, the two timed in
    /// turn, so that a burst of load on a shared machine falls on both (interruptions only add
    /// time).
    fn net(&self, gpu: &GpuContext, base: &AheadParams, part: &AheadParams) -> Result<f64> {
        let dispatches = [self.prepare(gpu, base), self.prepare(gpu, part)];
        let samples = self.timer.interleave(
            gpu,
            "divlab.scheduling_run_ahead",
            &dispatches,
            Budget::rounds(4),
            &mut |_| {},
        )?;
        let fastest = |s: &[f64]| s.iter().copied().fold(f64::INFINITY, f64::min);
        Ok(fastest(&samples[1]) - fastest(&samples[0]))
    }
}

/// A permutation of 0..n that is one cycle (Sattolo's algorithm), so a chase never settles
/// into a short loop that stays in cache.
pub fn single_cycle(n: usize, seed: u64) -> Vec<u32> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut next: Vec<u32> = (0..n as u32).collect();
    for i in (1..n).rev() {
        let j = rng.usize(..i);
        next.swap(i, j);
    }
    next
}

/// The most iterations of the long path and of the post-join work on `gpu`. On llvmpipe the
/// full part runs all three loops in one subgroup, so they share [`LLVMPIPE_LOOP_BUDGET`]: half
/// for the long path, the rest for the short path and the post-join work. Past it the full part
/// ran less post-join work than the post part, and the time it did not spend read as overlap
/// (0.79 on lavapipe SG 8 before this bound, 0.01 after).
pub fn max_iterations(gpu: &GpuContext) -> (u32, u32) {
    if gpu.is_llvmpipe() {
        let long = LLVMPIPE_LOOP_BUDGET / 2;
        (long, LLVMPIPE_LOOP_BUDGET - long - long / SHORT_DIVISOR)
    } else {
        (MAX_LONG_ITERS, MAX_POST_ITERS)
    }
}

/// Finds the long path and post-join work that each take about `target_ns` beyond the base, or
/// as near as [`max_iterations`] allows.
fn calibrate(
    gpu: &GpuContext,
    bench: &Bench,
    target_ns: f64,
    (max_long, max_post): (u32, u32),
) -> Result<(u32, u32)> {
    let (long, long_net) = fit_count(256, max_long, target_ns, &mut |long| {
        bench.net(
            gpu,
            &Part::Base.params(long, 0),
            &Part::Long.params(long, 0),
        )
    })?;
    let (post, _) = fit_count(64, max_post, long_net.max(1.0), &mut |post| {
        bench.net(
            gpu,
            &Part::Base.params(long, post),
            &Part::Post.params(long, post),
        )
    })?;
    Ok((long, post))
}

/// The count, from `start` up to `cap`, whose `net` time comes within 20% of `goal_ns` twice
/// in a row, and its last net time. Twice, because on a loaded machine one reading can land
/// near the goal by chance: a count settled that way was once far too small, so that no part
/// took measurable time in the run itself. Time is affine in the count, so rescaling converges
/// within a few readings. A reading changes the count at most 64x: on a noisy CPU device a small
/// part can measure as no time at all, and a jump straight to the cap would make one dispatch
/// take seconds.
fn fit_count(
    start: u32,
    cap: u32,
    goal_ns: f64,
    net: &mut dyn FnMut(u32) -> Result<f64>,
) -> Result<(u32, f64)> {
    let mut count = start;
    let mut near_before = false;
    let mut last = 0.0;
    for _ in 0..8 {
        last = net(count)?;
        let near = (last / goal_ns - 1.0).abs() < 0.2;
        if (near && near_before) || count == cap {
            break;
        }
        if !near {
            let factor = (goal_ns / last.max(1.0)).clamp(1.0 / 64.0, 64.0);
            count = (f64::from(count) * factor)
                .round()
                .clamp(16.0, f64::from(cap)) as u32;
        }
        near_before = near;
    }
    Ok((count, last))
}

/// The `scheduling.run_ahead` experiment.
pub struct RunAhead;

fn run(ctx: RunContext<'_>) -> Result<ExperimentResult> {
    let (lab, config, progress) = ctx.parts();
    let gpu = &lab.gpu;
    let grouping = Grouping::of(gpu);
    let workgroup_size = match grouping {
        Grouping::Subgroups => lab.subgroup()?.size,
        Grouping::Blocks => WORKGROUP_SIZE_WITHOUT_SUBGROUPS,
    };
    let bench = Bench::new(gpu, grouping, workgroup_size)?;
    let target_ns = if gpu.info.device_type == wgpu::DeviceType::Cpu {
        10e6
    } else {
        1e6
    };
    let (max_long, max_post) = max_iterations(gpu);
    let (long, post) = calibrate(gpu, &bench, target_ns, (max_long, max_post))?;
    progress(0.2);
    let reps = config.reps();
    let rounds = time_rounds(gpu, &bench, long, post, reps, &|f| progress(0.2 + 0.8 * f))?;
    let mut result = INFO.new_result();
    result.param("workgroup_size", workgroup_size);
    result.param("workgroups", WORKGROUPS);
    result.param("long_iters", long);
    result.param("short_iters", Part::Full.params(long, post).short_iters);
    result.param("post_iters", post);
    result.param("max_long_iters", max_long);
    result.param("max_post_iters", max_post);
    result.param("fmas_per_iter", 4);
    result.param("table_size", TABLE_SIZE);
    result.param("target_ns", target_ns);
    result.param("reps", reps);
    result.param(
        "timing_source",
        serde_json::to_value(bench.timer.source()).expect("enum serializes"),
    );
    let mut note = match grouping {
        Grouping::Subgroups => {
            result.param(
                "split",
                "even subgroup_invocation_id runs the long path; odd runs the short path, \
                 then the post-join work",
            );
            String::new()
        }
        Grouping::Blocks => {
            result.param(
                "split",
                "even local_invocation_index runs the long path; odd runs the short path, \
                 then the post-join work",
            );
            grouping.record(&mut result);
            format!(
                " [no subgroups on this adapter: paths split by the parity of \
                 local_invocation_index in workgroups of {workgroup_size}, assuming each \
                 pair (2i, 2i+1) lies in one subgroup, as subgroups are runs of consecutive \
                 local indices on every device seen so far]"
            )
        }
    };
    if gpu.is_llvmpipe() {
        let full = Part::Full.params(long, post);
        note.push_str(&format!(
            " [llvmpipe: a subgroup's loops run {} iterations in all, under the driver's silent \
             limit of {LLVMPIPE_LOOP_ITERATIONS}]",
            full.long_iters + full.short_iters + full.post_iters
        ));
    }
    report(&rounds, &note, &mut result)?;
    Ok(result)
}

/// Times every part `reps` times after a warm-up, in a fresh random order each round, and
/// returns each round's `[base, long, post, full]`.
fn time_rounds(
    gpu: &GpuContext,
    bench: &Bench,
    long: u32,
    post: u32,
    reps: usize,
    progress: Progress<'_>,
) -> Result<Vec<[f64; 4]>> {
    let dispatches: Vec<Dispatch> = Part::ALL
        .iter()
        .map(|p| bench.prepare(gpu, &p.params(long, post)))
        .collect();
    let samples = bench.timer.interleave(
        gpu,
        "divlab.scheduling_run_ahead",
        &dispatches,
        Budget::rounds(reps),
        &mut |round| progress(round as f64 / reps as f64),
    )?;
    Ok((0..reps)
        .map(|round| [0, 1, 2, 3].map(|part| samples[part][round]))
        .collect())
}

/// `note` ends the run-ahead verdict's detail: what the split assumes, where it assumes anything.
fn report(rounds: &[[f64; 4]], note: &str, result: &mut ExperimentResult) -> Result<()> {
    let no_numbers =
        || Error::InvalidSettings("run_ahead needs at least one repetition".to_owned());
    let parts: Vec<Summary> = (0..4)
        .map(|i| stats::summarize(&rounds.iter().map(|r| r[i]).collect::<Vec<_>>()))
        .collect::<Option<_>>()
        .ok_or_else(no_numbers)?;
    for (part, s) in Part::ALL.iter().zip(&parts) {
        result.metric(&format!("t_{}_ns", part.name()), s.median);
        result.metric(&format!("t_{}_cv", part.name()), s.cv);
    }
    result.series.push(Series {
        name: "time".to_owned(),
        x_label: "part (0 base, 1 long, 2 post, 3 full)".to_owned(),
        y_label: "time (ns)".to_owned(),
        points: (0..4)
            .map(|i| Point {
                x: i as f64,
                y: parts[i].median,
                y_min: Some(parts[i].min),
                y_max: Some(parts[i].max),
            })
            .collect(),
    });
    let overlaps: Vec<f64> = rounds.iter().filter_map(|&r| overlap(r)).collect();
    let [base, long, post, full] = [0, 1, 2, 3].map(|i| parts[i].median);
    let times = format!(
        "T_base {:.3} ms, T_long {:.3} ms, T_post {:.3} ms, T_full {:.3} ms (medians)",
        base / 1e6,
        long / 1e6,
        post / 1e6,
        full / 1e6
    );
    let Some(o) = stats::summarize(&overlaps) else {
        result.verdict(
            "run_ahead",
            "the short lanes run ahead of the join (not guaranteed)",
            VerdictStatus::NotGuaranteed,
            format!("observed: no part took measurable time beyond the base; {times}{note}"),
        );
        return Ok(());
    };
    // The quartiles as well as min/max: on a shared machine one disturbed dispatch throws its
    // round's fraction far out, and min/max then say little about the rest.
    let (q1, q3) = quartiles(&overlaps);
    let (low, high) =
        stats::median_interval(&overlaps).map_or((o.median, o.median), |i| (i.low, i.high));
    result.metrics([
        ("overlap_fraction", o.median),
        ("overlap_fraction_min", o.min),
        ("overlap_fraction_max", o.max),
        ("overlap_fraction_q1", q1),
        ("overlap_fraction_q3", q3),
        ("overlap_rounds", o.n as f64),
        ("overlap_fraction_ci_low", low),
        ("overlap_fraction_ci_high", high),
    ]);
    let reading = if o.median < 0.2 {
        "the short lanes waited at the join".to_owned()
    } else if o.median > 0.8 {
        "the short lanes ran ahead: their post-join work hid under the long path".to_owned()
    } else {
        format!(
            "the short lanes partly ran ahead: about {:.0}% of their post-join work overlapped \
             the long path",
            100.0 * o.median
        )
    };
    result.verdict(
        "run_ahead",
        "the short lanes run ahead of the join and overlap the long path (run-ahead; not \
         guaranteed)",
        VerdictStatus::NotGuaranteed,
        format!(
            "observed: overlap fraction {:.2} (median of {} rounds, 95% interval \
             {low:.2}..{high:.2}; quartiles {q1:.2}..{q3:.2}, min {:.2}, max {:.2}): {reading}; \
             {times}{note}",
            o.median, o.n, o.min, o.max
        ),
    );
    result.verdict(
        "parts_add_up",
        "the parts add up: max(T_long, T_post) <= T_full <= T_long + T_post - T_base (overlap \
         in [0, 1], within 0.15)",
        VerdictStatus::decided_by_interval(low, high, -0.15, 1.15),
        format!(
            "overlap fraction {:.2} (95% interval {low:.2}..{high:.2}); outside the range the \
             split into parts does not describe the run (noise, or interference from other work)",
            o.median
        ),
    );
    Ok(())
}

/// The first and third quartiles (linear interpolation between order statistics).
fn quartiles(values: &[f64]) -> (f64, f64) {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let at = |q: f64| {
        let pos = q * (sorted.len().max(1) - 1) as f64;
        let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
        match (sorted.get(lo), sorted.get(hi)) {
            (Some(a), Some(b)) => a + (b - a) * (pos - lo as f64),
            _ => f64::NAN,
        }
    };
    (at(0.25), at(0.75))
}

/// The key figure, on which `parts_add_up` is decided.
const OVERLAP: Figure = Figure::new("overlap_fraction", "overlap", 2, Some("parts_add_up"));

/// What `scheduling.run_ahead` declares.
pub const INFO: ExperimentInfo = ExperimentInfo {
    id: "scheduling.run_ahead",
    family: Family::Scheduling,
    title: "Scheduling: do the short lanes of an unbalanced branch run ahead of the join?",
    rule: "With per-lane program counters the short side of an unbalanced branch may run \
           ahead past the join and overlap the long side; under a reconvergence stack it \
           waits at the join and the time is the sum of the parts. Neither is guaranteed",
    source: "“Per-Lane Program Counters and Independent Thread Scheduling” (what it does to the cost model); “Independent Thread Scheduling”",
    shaders: &[&shaders::SCHEDULING_RUN_AHEAD],
    figures: &[OVERLAP],
    fit: None,
};

declare_experiment!(RunAhead, INFO, run);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlap_is_zero_for_a_sum_and_one_for_a_max() {
        // base 1, long 1 + 4, post 1 + 2.
        assert_eq!(overlap([1.0, 5.0, 3.0, 7.0]), Some(0.0));
        assert_eq!(overlap([1.0, 5.0, 3.0, 5.0]), Some(1.0));
        assert_eq!(overlap([1.0, 1.0, 3.0, 3.0]), None);
    }

    #[test]
    fn one_lucky_reading_does_not_settle_the_count() {
        // 10 ns a count, but the first reading lands on the goal by a burst of load.
        let mut readings = 0;
        let mut net = |count: u32| {
            readings += 1;
            Ok(if readings == 1 {
                1e6
            } else {
                10.0 * f64::from(count)
            })
        };
        let (count, last) = fit_count(256, 1 << 22, 1e6, &mut net).unwrap();
        assert!((80_000..=120_000).contains(&count), "{count}");
        assert!((last / 1e6 - 1.0).abs() < 0.2, "{last}");
        // A goal past the cap stops there.
        let (count, _) = fit_count(256, 4096, 1e9, &mut |c| Ok(f64::from(c))).unwrap();
        assert_eq!(count, 4096);
    }

    #[test]
    fn quartiles_interpolate() {
        assert_eq!(quartiles(&[4.0, 0.0, 2.0, 1.0, 3.0]), (1.0, 3.0));
        assert_eq!(quartiles(&[0.0, 1.0]), (0.25, 0.75));
        assert!(quartiles(&[]).0.is_nan());
    }

    #[test]
    fn the_table_is_one_cycle() {
        let next = single_cycle(1024, 7);
        let (mut at, mut steps) = (0usize, 0);
        loop {
            at = next[at] as usize;
            steps += 1;
            if at == 0 {
                break;
            }
        }
        assert_eq!(steps, 1024);
    }

    #[test]
    fn parts_differ_only_in_what_they_name() {
        let [base, long, post, full] = Part::ALL.map(|p| p.params(1600, 50));
        assert_eq!((base.long_iters, base.post_iters), (100, 0));
        assert_eq!((long.long_iters, long.post_iters), (1600, 0));
        assert_eq!((post.long_iters, post.post_iters), (100, 50));
        assert_eq!(
            (full.long_iters, full.post_iters, full.short_iters),
            (1600, 50, 100)
        );
    }
}
