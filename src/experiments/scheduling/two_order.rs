//! The two-order capped-spin probes (`forward_progress`, `handshake`): one kernel with an entry
//! point per order, run alternately in both orders, recorded per subgroup (or block). What the
//! two share lives here: the probe type, the run, the setup params, the opening verdict and the
//! lane grid; each probe says only what differs ([`TwoOrder`]).

use std::collections::BTreeMap;
use std::marker::PhantomData;

use super::{Grouping, SpinParams, WORKGROUP_SIZE, WORKGROUPS};
use crate::Result;
use crate::experiments::{Lab, Progress, RunConfig, RunContext};
use crate::gpu::{Dispatch, GpuContext};
use crate::report::{ExperimentInfo, ExperimentResult, LaneRecord, VerdictStatus};
use crate::shaders::ShaderFile;

/// The two orders of a probe: which side of the branch takes which role.
pub trait ProbeOrder: Copy + PartialEq + 'static {
    /// Both orders, in run order.
    const ALL: [Self; 2];

    /// Per order, in [`ProbeOrder::ALL`] order: the entry point with subgroups (also the
    /// order's name in metrics) and its `_no_sg` twin.
    const ENTRIES: [(&'static str, &'static str); 2];

    /// Its index in [`ProbeOrder::ALL`].
    fn index(self) -> usize {
        usize::from(self != Self::ALL[0])
    }

    /// The entry point with subgroups, also the order's name in metrics.
    fn entry(self) -> &'static str {
        Self::ENTRIES[self.index()].0
    }

    /// The entry point for `grouping`.
    fn entry_for(self, grouping: Grouping) -> &'static str {
        let (subgroups, blocks) = Self::ENTRIES[self.index()];
        grouping.pick(subgroups, blocks)
    }
}

/// What one two-order probe is: its kernel, how its records fold, and what it reports.
pub trait TwoOrder: 'static {
    /// The orders.
    type Order: ProbeOrder;
    /// One invocation's record.
    type Record: bytemuck::Pod;
    /// What one subgroup (or block) showed in one dispatch.
    type Subgroup: Default;
    /// What the experiment declares; its one shader is the probe's kernel.
    const INFO: ExperimentInfo;
    /// Zeroed `u32` flags per invocation.
    const FLAGS: u64;
    /// The check of the opening verdict: every lane finished whatever the other side did.
    const FINISHED: &'static str;

    /// The key and check of the second verdict: the flags after each dispatch agree with the
    /// lanes' records, as atomics guarantee.
    const FLAGS_VERDICT: (&'static str, &'static str);

    /// Whether a subgroup's (or block's) flags agree with its lanes' records; `None` where
    /// the verdict does not count it.
    fn flags_ok(subgroup: &Self::Subgroup) -> Option<bool>;

    /// The flag verdict's detail: `bad` of the `total` counted subgroups (or blocks) disagree.
    fn flags_detail(bad: usize, total: usize, grouping: Grouping) -> String;

    /// Which lanes take the then-branch, with subgroups and with blocks.
    fn split() -> [String; 2];

    /// The slot of the subgroup (or block) a record belongs to; `None` where its lane never
    /// wrote it.
    fn slot(record: &Self::Record) -> Option<u32>;

    /// Adds one lane's record, and the dispatch's `flags`, to its subgroup's (or block's) entry.
    fn absorb(subgroup: &mut Self::Subgroup, record: &Self::Record, flags: &[u32]);

    /// The verdicts and metrics after the opening one.
    fn report(runs: &Runs<Self>, result: &mut ExperimentResult)
    where
        Self: Sized;

    /// A record as the lane grid shows it; `None` where the lane wrote none.
    fn cell(record: &Self::Record) -> Option<SpinCell>;
}

/// One dispatch of a two-order probe.
pub struct Run<P: TwoOrder> {
    /// Which order it ran.
    pub order: P::Order,
    /// The cap it ran with.
    pub cap: u32,
    /// Per subgroup (or block), by slot.
    pub subgroups: BTreeMap<u32, P::Subgroup>,
    /// Invocations that never wrote their record (0 unless a lane vanished).
    pub unrecorded: usize,
    /// The dispatch's time in nanoseconds (GPU timestamps where the device has them).
    pub time_ns: f64,
    /// Every invocation's record.
    pub records: Vec<P::Record>,
}

impl<P: TwoOrder> Run<P> {
    /// Folds one dispatch's records and flags into one entry per subgroup (or block), by slot
    /// ([`TwoOrder::absorb`]), counting the records that were never written.
    pub fn fold(
        order: P::Order,
        cap: u32,
        time_ns: f64,
        flags: &[u32],
        records: Vec<P::Record>,
    ) -> Self {
        let mut subgroups: BTreeMap<u32, P::Subgroup> = BTreeMap::new();
        let mut unrecorded = 0;
        for r in &records {
            match P::slot(r) {
                Some(slot) => P::absorb(subgroups.entry(slot).or_default(), r, flags),
                None => unrecorded += 1,
            }
        }
        Self {
            order,
            cap,
            subgroups,
            unrecorded,
            time_ns,
            records,
        }
    }
}

/// Every dispatch of one run of a probe, by order, and what they ran with.
pub struct Runs<P: TwoOrder> {
    /// The runs of each order, in [`ProbeOrder::ALL`] order.
    pub by_order: [Vec<Run<P>>; 2],
    /// The cap of every spin.
    pub cap: u32,
    /// What the records are per.
    pub grouping: Grouping,
}

impl<P: TwoOrder> Runs<P> {
    /// Each order with its runs folded by `tally`, in [`ProbeOrder::ALL`] order.
    pub fn tallied<T>(&self, tally: impl Fn(&[Run<P>]) -> T) -> [(P::Order, T); 2] {
        let [first, second] = P::Order::ALL;
        let [a, b] = &self.by_order;
        [(first, tally(a)), (second, tally(b))]
    }
}

/// The compiled probe: one pipeline per order.
pub struct Probe<P> {
    kernel: SpinKernel,
    probe: PhantomData<P>,
}

impl<P: TwoOrder> Probe<P> {
    /// Compiles both entry points for the device's grouping ([`Grouping::of`]).
    pub fn new(gpu: &GpuContext) -> Result<Self> {
        Self::with_grouping(gpu, Grouping::of(gpu))
    }

    /// Compiles both entry points for `grouping` (blocks run on any device).
    pub fn with_grouping(gpu: &GpuContext, grouping: Grouping) -> Result<Self> {
        let entries = P::Order::ALL.map(|o| o.entry_for(grouping));
        let kernel = SpinKernel::new(gpu, (P::INFO.id, P::INFO.shaders[0]), entries, grouping)?;
        Ok(Self {
            kernel,
            probe: PhantomData,
        })
    }

    /// What the probe's records are per.
    pub fn grouping(&self) -> Grouping {
        self.kernel.grouping()
    }

    /// Runs one dispatch of `WORKGROUPS` workgroups with fresh (zero) flags, within the
    /// device's timeout, and folds what every subgroup (or block) did.
    pub fn run(&self, gpu: &GpuContext, order: P::Order, cap: u32) -> Result<Run<P>> {
        let shape = (cap, WORKGROUP_SIZE, P::FLAGS);
        let (time_ns, flags, records) = self.kernel.run::<P::Record>(gpu, order.index(), shape)?;
        Ok(Run::fold(order, cap, time_ns, &flags, records))
    }
}

/// Flag checks per spin on a CPU device: lavapipe runs a subgroup's lanes as one vector, so a
/// spinner that comes first checks the full cap; 512 subgroups x 4096 checks took 0.12-0.24 s
/// per dispatch on 2 shared cores.
pub const CAP_CPU: u32 = 1 << 12;
/// Flag checks per spin on a GPU: 65536 atomic loads of ~0.5 us each (an L2 round trip) is
/// ~33 ms, the whole dispatch when every spinner runs to the cap, since 32 workgroups are resident
/// at once.
pub const CAP_GPU: u32 = 1 << 16;

/// The cap for this device: [`CAP_CPU`] or [`CAP_GPU`].
pub fn default_cap(gpu: &GpuContext) -> u32 {
    if gpu.info.device_type == wgpu::DeviceType::Cpu {
        CAP_CPU
    } else {
        CAP_GPU
    }
}

/// The whole run of probe `P`: both orders alternately, the setup, the opening verdict, the
/// probe's own report and (with subgroups) the lane grid.
pub(crate) fn run<P: TwoOrder>(ctx: RunContext<'_>) -> Result<ExperimentResult> {
    let (lab, config, progress) = ctx.parts();
    let gpu = &lab.gpu;
    let probe = Probe::<P>::new(gpu)?;
    let grouping = probe.grouping();
    let cap = default_cap(gpu);
    let (runs, by_order) = SpinSetup::both_orders(config, progress, |order| {
        probe.run(gpu, P::Order::ALL[order], cap)
    })?;
    let mut result = P::INFO.new_result();
    let setup = SpinSetup {
        cap,
        runs,
        workgroup_size: WORKGROUP_SIZE,
        split: P::split(),
    };
    setup.record(lab, grouping, &mut result)?;
    let all = || by_order.iter().flatten();
    finished_verdict(
        &mut result,
        P::FINISHED,
        (all().count(), all().map(|r| r.unrecorded).sum()),
        all().map(|r| r.time_ns),
    );
    let counted: Vec<bool> = all()
        .flat_map(|r| r.subgroups.values())
        .filter_map(P::flags_ok)
        .collect();
    let bad = counted.iter().filter(|ok| !**ok).count();
    let (key, check) = P::FLAGS_VERDICT;
    let detail = P::flags_detail(bad, counted.len(), grouping);
    result.verdict(key, check, VerdictStatus::held_if(bad == 0), detail);
    let runs = Runs {
        by_order,
        cap,
        grouping,
    };
    P::report(&runs, &mut result);
    // Without ballots the lane grid would show every lane as never reached.
    if grouping == Grouping::Subgroups {
        let first = runs
            .by_order
            .each_ref()
            .map(|runs| runs.first().map(|r| r.records.as_slice()));
        result.lanes = spin_lane_records(first, WORKGROUP_SIZE, P::cell);
    }
    Ok(result)
}

/// How a two-order spin probe (forward_progress, handshake) ran: its cap, its runs per order,
/// its workgroup size, and which lanes take the then-branch with subgroups and with blocks.
struct SpinSetup {
    cap: u32,
    runs: u32,
    workgroup_size: u32,
    split: [String; 2],
}

impl SpinSetup {
    /// Runs both orders `runs` times (2 with `--quick`, else 8), alternating, so drift hits
    /// both alike. `run(order)` runs order 0 or 1 once.
    fn both_orders<R>(
        config: &RunConfig,
        progress: Progress<'_>,
        mut run: impl FnMut(usize) -> Result<R>,
    ) -> Result<(u32, [Vec<R>; 2])> {
        let runs = if config.quick { 2 } else { 8 };
        let mut by_order = [Vec::new(), Vec::new()];
        for r in 0..runs {
            for (order, runs) in by_order.iter_mut().enumerate() {
                runs.push(run(order)?);
            }
            progress(f64::from(r + 1) / f64::from(runs));
        }
        Ok((runs, by_order))
    }

    /// Records the setup as params.
    fn record(&self, lab: &Lab, grouping: Grouping, result: &mut ExperimentResult) -> Result<()> {
        result.param("workgroup_size", self.workgroup_size);
        result.param("workgroups", WORKGROUPS);
        result.param("cap", self.cap);
        result.param("runs_per_order", self.runs);
        result.param("host_timeout_s", lab.gpu.timeout.as_secs_f64());
        let [with_subgroups, with_blocks] = &self.split;
        match grouping {
            Grouping::Subgroups => {
                result.param("split", with_subgroups.as_str());
                result.param("subgroup_size_probe", lab.subgroup()?.size);
            }
            Grouping::Blocks => result.param("split", with_blocks.as_str()),
        }
        grouping.record(result);
        Ok(())
    }
}

/// The verdict both spin probes hold first: every capped spin ended on its own, so every
/// invocation wrote its record, however the other side behaved.
fn finished_verdict(
    result: &mut ExperimentResult,
    check: &str,
    (dispatches, unrecorded): (usize, usize),
    times_ns: impl Iterator<Item = f64>,
) {
    let slowest_ms = times_ns.fold(0.0_f64, f64::max) / 1e6;
    result.verdict(
        "finished",
        check,
        VerdictStatus::held_if(unrecorded == 0),
        format!(
            "{dispatches} dispatches finished, slowest {slowest_ms:.2} ms; {unrecorded} \
             invocations left no record"
        ),
    );
}

/// One lane of a spin probe as the lane grid shows it: its subgroup (or block) slot, its lane,
/// `local_invocation_index`, in-branch ballot and value.
pub type SpinCell = (u32, u32, u32, [u32; 4], u32);

/// Per order (`point` 0 and 1), the first workgroup of the order's first run: one lane record
/// per subgroup, lanes in order. `cell` reads a record, `None` where the lane wrote none.
fn spin_lane_records<R>(
    first_runs: [Option<&[R]>; 2],
    workgroup_size: u32,
    cell: impl Fn(&R) -> Option<SpinCell>,
) -> Vec<LaneRecord> {
    let mut out = Vec::new();
    for (point, records) in (0u32..).zip(first_runs) {
        let Some(records) = records else { continue };
        let mut groups: BTreeMap<u32, Vec<SpinCell>> = BTreeMap::new();
        for c in records
            .iter()
            .filter_map(&cell)
            .filter(|c| c.0 < workgroup_size)
        {
            groups.entry(c.0).or_default().push(c);
        }
        for (subgroup, mut lanes) in (0u32..).zip(groups.into_values()) {
            lanes.sort_by_key(|c| c.1);
            out.push(LaneRecord {
                point,
                subgroup,
                local_index: lanes.iter().map(|c| c.2).collect(),
                ballot: lanes.iter().map(|c| c.3).collect(),
                value: lanes.iter().map(|c| c.4).collect(),
            });
        }
    }
    out
}

/// The two entry points (one per order) of a capped-spin kernel, compiled for one grouping, and
/// the dispatch both spin probes share: [`SpinParams`] at binding 0, zeroed `u32` flags at 1,
/// one record per invocation at 2, `WORKGROUPS` workgroups, timed, within the device's timeout.
struct SpinKernel {
    name: &'static str,
    pipelines: [wgpu::ComputePipeline; 2],
    grouping: Grouping,
    timer: crate::gpu::GpuTimer,
}

impl SpinKernel {
    /// Compiles `entries` (order 0, order 1) of `file` for `grouping`, for experiment `id`. The
    /// spins are bounded by `cap` on their own; wgpu's injected guards stay on because nothing
    /// here is timed against a model.
    fn new(
        gpu: &GpuContext,
        (id, file): (&str, &'static ShaderFile),
        entries: [&'static str; 2],
        grouping: Grouping,
    ) -> Result<Self> {
        if grouping == Grouping::Subgroups {
            gpu.require_subgroups(id)?;
        }
        let prepared = grouping.source(file.source);
        let pipeline = |entry| {
            crate::gpu::Kernel::of(file, entry, crate::gpu::RuntimeChecks::Checked).pipeline(
                gpu,
                &prepared,
                &[],
            )
        };
        Ok(Self {
            name: file.name,
            pipelines: [pipeline(entries[0])?, pipeline(entries[1])?],
            grouping,
            timer: crate::gpu::GpuTimer::new(gpu),
        })
    }

    /// What the records are per.
    fn grouping(&self) -> Grouping {
        self.grouping
    }

    /// Runs entry `order` once with fresh flags (`flags_per_invocation` each) and returns the
    /// dispatch time in ns, the flags and every invocation's record.
    fn run<R: bytemuck::Pod>(
        &self,
        gpu: &GpuContext,
        order: usize,
        (cap, workgroup_size, flags_per_invocation): (u32, u32, u64),
    ) -> Result<(f64, Vec<u32>, Vec<R>)> {
        use crate::gpu::{read_buffer, read_only_buffer, storage_buffer};
        let pipeline = &self.pipelines[order];
        let invocations = u64::from(WORKGROUPS * workgroup_size);
        let label = format!("divlab.{}", self.name);
        let params = read_only_buffer(
            gpu,
            &format!("{label}.params"),
            &SpinParams { cap, pad: [0; 3] },
        );
        let flags = storage_buffer(
            gpu,
            &format!("{label}.flags"),
            invocations * flags_per_invocation * 4,
        );
        let records = storage_buffer(
            gpu,
            &format!("{label}.records"),
            invocations * size_of::<R>() as u64,
        );
        let dispatch = Dispatch::new(
            gpu,
            &label,
            pipeline,
            &[&params, &flags, &records],
            WORKGROUPS,
        );
        let time_ns = self.timer.time(gpu, &label, &[dispatch])?;
        let flag_values = read_buffer(gpu, &label, &flags)?;
        let records = read_buffer(gpu, &label, &records)?;
        Ok((time_ns, flag_values, records))
    }
}
