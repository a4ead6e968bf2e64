//! Calibrating trip counts: the shared k = 1 calibration and one per occupancy level, each
//! capped so that no dispatch can run away.

use super::compile::CompiledSet;
use super::kernels::{Compiled, Dispatch, DivergenceParams, Form, Mode, Sinks};
use super::plan::Plan;
use crate::Result;
use crate::experiments::{Lab, RunConfig};
use crate::gpu::{GpuContext, GpuTimer, LLVMPIPE_LOOP_BUDGET};
use crate::report::ExperimentResult;
use crate::stats;

/// Trip counts stay below this, so no loop can run away whatever the calibration measures. A
/// sparse occupancy level on a CPU device (one workgroup on one core) needs ~170k.
const MAX_TRIPS: u32 = 1 << 20;

/// Trips x invocations of one path stay below this: 10 ms of FMAs on an H200, so even a
/// calibration fooled by a broken timer cannot launch a dispatch that runs for minutes.
const MAX_LANE_TRIPS: u64 = 1 << 31;

/// The most trips a path may have: none of the study's dispatches of `invocations` may run for
/// long, and on llvmpipe a divergent subgroup, which runs up to `paths` paths' loops one after
/// another, must stay within the driver's loop iteration limit.
fn max_trips(gpu: &GpuContext, invocations: u32, paths: u32) -> u32 {
    let cap = MAX_LANE_TRIPS / u64::from(invocations.max(1));
    let cap = u32::try_from(cap).unwrap_or(MAX_TRIPS).clamp(1, MAX_TRIPS);
    // Past llvmpipe's loop limit a divergent subgroup's time stopped growing with its trips.
    if gpu.is_llvmpipe() {
        cap.min(LLVMPIPE_LOOP_BUDGET / paths.max(1))
    } else {
        cap
    }
}

/// The lab memo keys of the shared calibration; quick and full plans have different targets.
const CALIBRATION_KEY: &str = "divergence.calibration";
const CALIBRATION_KEY_QUICK: &str = "divergence.calibration.quick";

/// The trips per path of this form's run, recording how the calibration found them.
///
/// Every form's trip has the same body, so one calibration (on the branch-free kernel, taken
/// when the device is fresh) serves all forms of a run; taken later, right after another
/// form's run, it came out 2-4x low on the H200.
pub(super) fn shared_trips(
    (lab, config): (&Lab, &RunConfig),
    (sinks, compiled): (&Sinks, &CompiledSet),
    plan: &Plan,
    form: Form,
    result: &mut ExperimentResult,
) -> Result<u32> {
    let gpu = &lab.gpu;
    let predicated = compiled.get(Form::Predicated, plan.workgroup_size);
    let key = if config.quick {
        CALIBRATION_KEY_QUICK
    } else {
        CALIBRATION_KEY
    };
    let calibration = lab.memo(key, || {
        spin_up(gpu, sinks, predicated, plan.saturating_invocations)?;
        calibrate(
            gpu,
            sinks,
            predicated,
            (plan.saturating_invocations, plan.serialized_paths()),
            plan.target_ns,
            4,
        )
    })?;
    result.param("calibration", calibration.trace_json());
    // The loop form's control gives every subgroup the mean trip count (k + 1) / 2 * trips,
    // which is whole for even trips.
    Ok(if form == Form::Loop {
        (calibration.trips & !1).max(2)
    } else {
        calibration.trips
    })
}

/// Finds the trip count that makes a k = 1 dispatch of `compiled` over `invocations` take about
/// `target_ns`, starting from `start` trips. Time is affine in trips (launch overhead plus
/// work), so rescaling converges within a few rounds.
fn calibrate(
    gpu: &GpuContext,
    sinks: &Sinks,
    compiled: &Compiled,
    (invocations, paths): (u32, u32),
    target_ns: f64,
    start: u32,
) -> Result<Calibration> {
    let timer = GpuTimer::new(gpu);
    let cap = max_trips(gpu, invocations, paths);
    let mut trips = start.clamp(1, cap);
    let mut trace = Vec::new();
    for _ in 0..8 {
        let params = DivergenceParams::new(1, Mode::LaneDivergent, |_| trips);
        let dispatch = Dispatch::new(gpu, sinks, compiled, &params, invocations);
        dispatch.time(gpu, &timer)?; // Warm-up.
        let samples = (0..5)
            .map(|_| dispatch.time(gpu, &timer))
            .collect::<Result<Vec<_>>>()?;
        // The fastest sample: on a shared CPU interruptions only add time, and a slowed
        // calibration would set too few trips.
        let t = stats::summarize(&samples).map_or(0.0, |s| s.min).max(1.0);
        trace.push((trips, t));
        if (t / target_ns - 1.0).abs() < 0.1 || trips == cap {
            break;
        }
        let next = f64::from(trips) * target_ns / t;
        trips = next.round().clamp(1.0, f64::from(cap)) as u32;
    }
    Ok(Calibration { trips, trace })
}

/// Calibrates each occupancy level on its own, so that its k = 1 dispatch takes the study's
/// target whatever its size: with the main sweep's trip count, a sparse level's dispatch held
/// a few microseconds of work beside a similar fixed cost, and its ratio measured the floor.
pub(super) fn calibrate_levels(
    gpu: &GpuContext,
    sinks: &Sinks,
    compiled: &CompiledSet,
    plan: &Plan,
    form: Form,
    trips: u32,
) -> Result<Vec<Calibration>> {
    spin_up(
        gpu,
        sinks,
        compiled.get(form, plan.workgroup_size),
        plan.saturating_invocations,
    )?;
    plan.occupancy
        .iter()
        .map(|&(wg, invocations)| {
            // Work scales with invocations until the device is full: start from that guess.
            let guess = u64::from(trips) * u64::from(plan.saturating_invocations)
                / u64::from(invocations.max(1));
            let start = u32::try_from(guess).unwrap_or(u32::MAX);
            // Calibration accepts +-10%; aiming 15% high keeps every level at the target or above.
            let mut level = calibrate(
                gpu,
                sinks,
                compiled.get(form, wg),
                (invocations, plan.serialized_paths()),
                plan.target_ns * 1.15,
                start,
            )?;
            // The loop form's control at k = SG averages (k + 1) / 2 trips of each path: keep it whole.
            if form == Form::Loop {
                level.trips &= !1;
                level.trips = level.trips.max(2);
            }
            Ok(level)
        })
        .collect()
}

/// A calibrated trip count and how it was found: (trips, fastest ns) per round.
#[derive(Clone)]
pub(super) struct Calibration {
    pub(super) trips: u32,
    trace: Vec<(u32, f64)>,
}

impl Calibration {
    fn trace_json(&self) -> Vec<Vec<f64>> {
        self.trace
            .iter()
            .map(|&(n, t)| vec![f64::from(n), t])
            .collect()
    }
}

/// Keeps the device busy for a while before calibrating. A GPU that idled while kernels
/// compiled runs at idle clocks for its first dispatches (seen on the H200: 5x slower), and a
/// calibration taken then sets trip counts far too low.
fn spin_up(gpu: &GpuContext, sinks: &Sinks, compiled: &Compiled, invocations: u32) -> Result<()> {
    const SPIN_UP: std::time::Duration = std::time::Duration::from_millis(300);
    if gpu.info.device_type == wgpu::DeviceType::Cpu {
        return Ok(());
    }
    let timer = GpuTimer::new(gpu);
    let params = DivergenceParams::new(1, Mode::LaneDivergent, |_| 256);
    let dispatch = Dispatch::new(gpu, sinks, compiled, &params, invocations);
    let start = std::time::Instant::now();
    while start.elapsed() < SPIN_UP {
        dispatch.time(gpu, &timer)?;
    }
    Ok(())
}
