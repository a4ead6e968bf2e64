//! The device divlab runs on: created once, borrowed by every experiment.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::gpu::adapters::{AdapterSelector, select_adapter};
use crate::{Error, Result};

/// What the device can do, intersected from what divlab wants and what the adapter offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// `Features::SUBGROUP`: subgroup builtins in compute shaders.
    pub subgroups: bool,
    /// `Features::SUBGROUP_BARRIER`.
    pub subgroup_barrier: bool,
    /// `Features::TIMESTAMP_QUERY`: GPU timestamps at compute-pass boundaries.
    pub timestamps: bool,
    /// `Features::IMMEDIATES`: `var<immediate>` (push constants) in user kernels.
    pub immediates: bool,
}

impl Capabilities {
    /// The features divlab asks for when the adapter has them.
    pub const WANTED: wgpu::Features = LAB_FEATURES.union(USER_RESOURCES).union(USER_TYPES);

    /// Reads the capabilities off a device's enabled features.
    pub fn from_features(features: wgpu::Features) -> Self {
        Self {
            subgroups: features.contains(wgpu::Features::SUBGROUP),
            subgroup_barrier: features.contains(wgpu::Features::SUBGROUP_BARRIER),
            timestamps: features.contains(wgpu::Features::TIMESTAMP_QUERY),
            immediates: features.contains(wgpu::Features::IMMEDIATES),
        }
    }
}

/// What the lab's own kernels use: subgroup operations (ballots, votes, barriers) and GPU
/// timestamps at pass boundaries and inside passes.
const LAB_FEATURES: wgpu::Features = wgpu::Features::SUBGROUP
    .union(wgpu::Features::SUBGROUP_BARRIER)
    .union(wgpu::Features::TIMESTAMP_QUERY)
    .union(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS)
    .union(wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES);

/// What users' kernels bind beyond WebGPU (`divlab profile`): push constants, and the storage
/// formats the adapter has.
const USER_RESOURCES: wgpu::Features = wgpu::Features::IMMEDIATES
    .union(wgpu::Features::TEXTURE_ADAPTER_SPECIFIC_FORMAT_FEATURES)
    .union(wgpu::Features::TEXTURE_FORMAT_16BIT_NORM)
    .union(wgpu::Features::BGRA8UNORM_STORAGE);

/// The types users' kernels compute in beyond WebGPU: `f16` (ML code), `atomic<f32>`
/// (gradient accumulation, splatting), `f64` (scientific code), and `i64`/`u64` with their
/// atomics (64-bit keys and counters).
const USER_TYPES: wgpu::Features = wgpu::Features::SHADER_F16
    .union(wgpu::Features::SHADER_FLOAT32_ATOMIC)
    .union(wgpu::Features::SHADER_F64)
    .union(wgpu::Features::SHADER_INT64)
    .union(wgpu::Features::SHADER_INT64_ATOMIC_MIN_MAX)
    .union(wgpu::Features::SHADER_INT64_ATOMIC_ALL_OPS);

/// llvmpipe ends a shader's loops after this many iterations, counted over every loop of one
/// invocation together (gallivm's `LP_MAX_TGSI_LOOP_ITERATIONS`), and silently goes on.
pub const LLVMPIPE_LOOP_ITERATIONS: u32 = 65_535;

/// The loop iterations a lab kernel plans for one subgroup on llvmpipe, all its loops together:
/// [`LLVMPIPE_LOOP_ITERATIONS`] less some room for the iterations that test a loop's exit. Past
/// the limit llvmpipe ends the loops silently, and a time stops growing with the work.
pub const LLVMPIPE_LOOP_BUDGET: u32 = LLVMPIPE_LOOP_ITERATIONS - 1024;

/// A device, its queue and what divlab knows about them.
///
/// Experiments borrow it. The app can build one from eframe's device with [`GpuContext::from_device`].
#[derive(Clone)]
pub struct GpuContext {
    /// The wgpu device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// The adapter the device came from.
    pub info: wgpu::AdapterInfo,
    /// What divlab may use.
    pub caps: Capabilities,
    /// How long a single submission may take before divlab gives up on it.
    pub timeout: Duration,
    faults: Arc<Faults>,
    cancel: CancelToken,
    compiling: Arc<Mutex<Duration>>,
}

/// Cancels the work of a device from another thread: every later submission fails with
/// [`Error::Cancelled`], so a run stops within one dispatch, whichever experiment it is in.
#[derive(Clone, Debug, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    /// Asks the work to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether cancel was asked.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Errors wgpu reports outside an error scope, and device loss. The default wgpu handler panics;
/// divlab records them and turns them into errors at the next wait.
#[derive(Default)]
struct Faults {
    uncaptured: Mutex<Option<String>>,
    lost: Mutex<Option<String>>,
}

impl GpuContext {
    /// The default host timeout for one submission. Generous: lavapipe on 2 cores is slow.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

    /// Selects an adapter and creates a device with every wanted feature the adapter has.
    pub fn new(selector: &AdapterSelector) -> Result<Self> {
        let (_, adapter) = select_adapter(selector)?;
        Self::from_adapter(&adapter)
    }

    /// Creates a device on the given adapter.
    pub fn from_adapter(adapter: &wgpu::Adapter) -> Result<Self> {
        Self::from_adapter_without(adapter, wgpu::Features::empty())
    }

    /// Like [`GpuContext::new`], but leaves `withheld` features off even where the adapter has
    /// them: the paths divlab takes on adapters without subgroups or timestamps, tested on one
    /// that has them.
    pub fn new_without(selector: &AdapterSelector, withheld: wgpu::Features) -> Result<Self> {
        let (_, adapter) = select_adapter(selector)?;
        Self::from_adapter_without(&adapter, withheld)
    }

    /// Creates a device on the given adapter without the `withheld` features.
    pub fn from_adapter_without(adapter: &wgpu::Adapter, withheld: wgpu::Features) -> Result<Self> {
        let info = adapter.get_info();
        let features = adapter.features() & (Capabilities::WANTED - withheld);
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("divlab"),
            required_features: features,
            required_limits: adapter.limits(),
            ..Default::default()
        }))
        .map_err(|e| Error::RequestDevice {
            adapter: info.name.clone(),
            reason: e.to_string(),
        })?;
        Ok(Self::from_device(device, queue, info))
    }

    /// Wraps an existing device (eframe's, or a test harness's).
    pub fn from_device(device: wgpu::Device, queue: wgpu::Queue, info: wgpu::AdapterInfo) -> Self {
        super::fault::note_device(&info);
        let faults = Arc::new(Faults::default());
        let on_error = Arc::clone(&faults);
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            on_error
                .uncaptured
                .lock()
                .unwrap()
                .get_or_insert(e.to_string());
        }));
        let on_lost = Arc::clone(&faults);
        device.set_device_lost_callback(move |reason, message| {
            *on_lost.lost.lock().unwrap() = Some(format!("{reason:?}: {message}"));
        });
        let caps = Capabilities::from_features(device.features());
        Self {
            device,
            queue,
            info,
            caps,
            // The command line's `--timeout`, where it installed its watchdog.
            timeout: super::watchdog::timeout().unwrap_or(Self::DEFAULT_TIMEOUT),
            faults,
            cancel: CancelToken::default(),
            compiling: Arc::default(),
        }
    }

    /// The device's limits.
    pub fn limits(&self) -> wgpu::Limits {
        self.device.limits()
    }

    /// The features the device was created with.
    pub fn features(&self) -> wgpu::Features {
        self.device.features()
    }

    /// Whether this is Mesa's llvmpipe (lavapipe on Vulkan, llvmpipe on GL), which names itself in
    /// `driver` on Vulkan and in the adapter name on GL.
    pub fn is_llvmpipe(&self) -> bool {
        crate::report::is_llvmpipe(&self.info.driver, &self.info.name)
    }

    /// The label of a pipeline's first run: on llvmpipe, which compiles the pipeline then,
    /// [`super::watchdog::FIRST_RUN`] before it, so that a timeout says it may be the compile.
    pub fn first_run(&self, label: &str) -> String {
        if self.is_llvmpipe() {
            format!("{}{label}", super::watchdog::FIRST_RUN)
        } else {
            label.to_owned()
        }
    }

    /// The wall time this device has spent compiling so far: creating shader modules and
    /// pipelines, and on llvmpipe each pipeline's first run ([`Self::first_run`]), where it
    /// compiles. A profile reports its own share as the difference.
    pub fn compile_time(&self) -> Duration {
        *self.compiling.lock().unwrap()
    }

    /// Runs `step`, adding its wall time to [`Self::compile_time`].
    pub(crate) fn compiling<T>(&self, step: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = step();
        *self.compiling.lock().unwrap() += start.elapsed();
        out
    }

    /// Fails with `Unsupported` unless the device has subgroups.
    pub fn require_subgroups(&self, what: &str) -> Result<()> {
        if self.caps.subgroups {
            Ok(())
        } else {
            Err(Error::Unsupported {
                what: what.to_owned(),
                feature: "subgroup operations (wgpu Features::SUBGROUP; Vulkan, Metal and DX12 \
                          drivers provide them, wgpu's GL backend does not: the `subgroups` \
                          column of `divlab adapters` shows which adapters have them)"
                    .to_owned(),
            })
        }
    }

    /// Fails with [`Error::Cancelled`] once the device's [`CancelToken`] is cancelled: checked
    /// before every submission and every pipeline build, so a cancel lands within one of them.
    pub fn check_cancelled(&self, what: &str) -> Result<()> {
        if self.cancel.is_cancelled() {
            return Err(Error::Cancelled {
                what: what.to_owned(),
            });
        }
        Ok(())
    }

    /// Uses `token` to cancel this device's work, so a caller can hold it before the device
    /// exists (the app's worker creates the device on its own thread).
    pub fn with_cancel_token(mut self, token: CancelToken) -> Self {
        self.cancel = token;
        self
    }

    /// The token that cancels this device's work (shared by its clones).
    pub fn cancel_token(&self) -> CancelToken {
        self.cancel.clone()
    }

    /// Submits the encoder and waits for it, within [`Self::timeout`]. Fails with
    /// [`Error::Cancelled`] instead once the device's [`CancelToken`] is cancelled.
    pub fn submit_and_wait(&self, what: &str, encoder: wgpu::CommandEncoder) -> Result<()> {
        self.check_cancelled(what)?;
        // GL runs the work inside `submit`, and llvmpipe's GL compiles the kernel there too
        // (one took minutes in LLVM): the submission is part of the step.
        let _armed = super::watchdog::arm(what);
        let submit = || {
            let index = self.queue.submit([encoder.finish()]);
            self.wait(what, Some(index))
        };
        if what.starts_with(super::watchdog::FIRST_RUN) {
            self.compiling(submit)
        } else {
            submit()
        }
    }

    /// Waits for a submission (or all work) to finish. Turns timeouts, device loss and
    /// uncaptured errors into errors.
    pub fn wait(&self, what: &str, index: Option<wgpu::SubmissionIndex>) -> Result<()> {
        let armed = super::watchdog::arm(what);
        let polled = self.device.poll(wgpu::PollType::Wait {
            submission_index: index,
            timeout: Some(self.timeout),
        });
        drop(armed);
        self.check_faults(what)?;
        match polled {
            Ok(_) => Ok(()),
            Err(wgpu::PollError::Timeout) => {
                // The command line ends here rather than wait for the device as it drops.
                super::watchdog::give_up(what);
                Err(Error::Timeout {
                    what: what.to_owned(),
                    seconds: self.timeout.as_secs_f64(),
                })
            }
            Err(e) => Err(Error::DeviceLost {
                what: what.to_owned(),
                reason: e.to_string(),
            }),
        }
    }

    /// Reports device loss or an uncaptured wgpu error recorded since the last check.
    pub fn check_faults(&self, what: &str) -> Result<()> {
        if let Some(reason) = self.faults.lost.lock().unwrap().clone() {
            return Err(Error::DeviceLost {
                what: what.to_owned(),
                reason,
            });
        }
        if let Some(reason) = self.faults.uncaptured.lock().unwrap().take() {
            return Err(Error::Wgpu {
                what: what.to_owned(),
                reason,
            });
        }
        Ok(())
    }
}
