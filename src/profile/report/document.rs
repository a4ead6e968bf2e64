//! The profile document (`--json`, described in docs/profile.md): what one profile of one
//! kernel found, as serde structs.

use serde::{Deserialize, Serialize};

use super::{BranchCost, OutputsRecord};
use crate::report::AdapterRecord;
use crate::report::units::format_ns;

/// The profile document's format version.
pub const PROFILE_SCHEMA_VERSION: u32 = 3;

/// The counters are subgroup operations themselves: said once in every profile.
pub const OBSERVER_NOTE: &str = "the counters are subgroup operations (ballots, votes, \
     reductions), so a compiler may reconverge differently around them than around the kernel \
     alone: the profile is of the instrumented kernel. In a loop, the sides of an `if` are \
     counted from the vote before it, and a loop that leaves only by its test from each lane's \
     trips: as if the lanes that take a path together run it together";

/// The `$id` of the profile document's JSON Schema, which every profile names in `$schema`
/// (`schemas/profile.schema.json` in the repository, or `divlab schema profile`).
pub fn profile_schema_id() -> String {
    format!("urn:divlab:schema:profile:v{PROFILE_SCHEMA_VERSION}")
}

/// One profile of one kernel on one adapter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Profile {
    /// The JSON Schema the document follows, named by its `$id`
    /// (`urn:divlab:schema:profile:v3`, the file `schemas/profile.schema.json`). Absent in
    /// documents written before it was recorded.
    #[serde(rename = "$schema", default, skip_serializing_if = "String::is_empty")]
    pub schema: String,
    /// The format version, `PROFILE_SCHEMA_VERSION`; `--import` reads no other.
    #[schemars(range(min = PROFILE_SCHEMA_VERSION, max = PROFILE_SCHEMA_VERSION))]
    pub schema_version: u32,
    /// The divlab that wrote it, as result documents record it: version, commit, wgpu, naga.
    pub divlab_version: String,
    /// When the profile ran: UTC, RFC 3339, to the second.
    pub created: String,
    /// The adapter, as `--bench` records it.
    pub adapter: AdapterRecord,
    /// What ran.
    pub kernel: KernelRecord,
    /// What was asked, in the command line's own forms.
    pub request: RequestRecord,
    /// The kernel's WGSL as it was profiled; `None` with `--no-source`.
    pub source: Option<String>,
    /// The pipeline's subgroup width W, against which efficiency is taken. `None` without
    /// subgroup operations.
    pub subgroup_size: Option<u32>,
    /// The most lanes any ballot showed at the kernel's entry (at most W). `None` without
    /// subgroup operations.
    pub widest_ballot: Option<u32>,
    /// Σ active lanes / (Σ executions × W) over every executed block; `None` without subgroup
    /// operations.
    pub control_flow_efficiency: Option<f64>,
    /// 1 − Σ divergent / Σ evaluations over the branches with measured evaluations (Nsight's
    /// and nvprof's `branch_efficiency`); `None` when there are none.
    pub branch_efficiency: Option<f64>,
    /// One entry per source line that belongs to an instrumented block, in line order.
    pub lines: Vec<LineProfile>,
    /// One entry per `if`, `switch` and loop, in line order.
    pub branches: Vec<BranchProfile>,
    /// Whether an invocation ran into the loop cap (the profile is then of a cut-short run).
    pub loop_cap_hit: bool,
    /// The line of the first loop that hit the cap.
    pub loop_cap_line: Option<u32>,
    /// The loop cap: the most loop iterations one invocation runs, of all its loops together.
    pub loop_cap: u32,
    /// The kernel's time alone and with its counters; absent when the run hit the loop cap.
    pub timing: Option<TimingRecord>,
    /// Seconds of wall time this profile spent compiling, in no timed run: creating the shader
    /// modules and pipelines (the kernel alone, instrumented, `--cost`'s variants), and on
    /// llvmpipe, which compiles a pipeline when it first runs it, the first runs and the timing's
    /// warm-up runs. Absent in documents written before divlab recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compile_s: Option<f64>,
    /// The outputs of the counted run against a run of the kernel alone; absent where the run
    /// hit the loop cap, and in documents written before divlab compared them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outputs: Option<OutputsRecord>,
    /// Remarks a user should read: the observer effect, why a figure is absent, cross-checks
    /// between the static analysis and what ran.
    pub notes: Vec<String>,
    /// `--lanes LINE`: the ballot of every subgroup execution at the line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lanes: Option<LaneCapture>,
}

/// What `--lanes LINE` recorded: one entry per subgroup execution of the block holding the line,
/// in the order the subgroups got there.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LaneCapture {
    /// The line asked for.
    pub line: u32,
    /// Subgroup executions at it (it may exceed the records kept).
    pub executions: u64,
    /// The first executions, at most `profile::instrument::LANE_RECORDS` of them.
    pub records: Vec<LaneExecution>,
}

/// One subgroup execution at the `--lanes` line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LaneExecution {
    /// The active lanes, bit i for `subgroup_invocation_id` i (four words, low first).
    pub ballot: [u32; 4],
    /// The subgroup's `workgroup_id`.
    pub workgroup: [u32; 3],
    /// `local_invocation_index` of the lowest active lane (in a 2-D or 3-D workgroup: the
    /// smallest local index among the active lanes).
    pub first_local_index: u32,
    /// 2-D and 3-D workgroups: the invocations that were the active lanes, by local index.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invocations: Option<Vec<LaneInvocation>>,
    /// 2-D and 3-D workgroups: `false` when some active lane's local index was 128 or more
    /// past `first_local_index`, so `invocations` lists only those before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invocations_complete: Option<bool>,
}

/// One active lane of a 2-D or 3-D workgroup's subgroup execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LaneInvocation {
    /// Its `local_invocation_id`.
    pub local_id: [u32; 3],
    /// Its lane (`subgroup_invocation_id`, the ballot's bit), where every active lane of the
    /// execution checked, by a shuffle, that it is lane `lowest + (local index −
    /// first_local_index)`; `None` where that check failed (the lanes are not contiguous in
    /// local index) and only the set of invocations is known.
    pub lane: Option<u32>,
}

impl Profile {
    /// The `compile:` line of the report: how long the driver spent building this profile's
    /// pipelines, outside every timed run, and where that was most of the wait, why a second
    /// profile of the kernel is quicker. `None` in documents that do not record it.
    pub fn compile_text(&self) -> Option<String> {
        let seconds = self.compile_s?;
        let pipelines = if self.request.cost_top.is_some() {
            "alone, instrumented and --cost's variants"
        } else {
            "alone and instrumented"
        };
        let when = if self.adapter.is_llvmpipe() {
            ", at their first runs as llvmpipe compiles then"
        } else {
            ""
        };
        let cached = if seconds >= LONG_COMPILE_S {
            "; drivers keep what they compile on disk (Mesa in ~/.cache/mesa_shader_cache, NVIDIA \
             in ~/.cache/nvidia), so profiling this kernel again with the same options compiles \
             little"
        } else {
            ""
        };
        Some(format!(
            "compile: {}, in no timed run: the driver building the kernel's pipelines \
             ({pipelines}){when}{cached}",
            format_ns(seconds * 1e9)
        ))
    }
}

/// A compile this long (seconds) is most of a profile's wait: the report says why a second
/// profile is quicker.
const LONG_COMPILE_S: f64 = 10.0;

impl LaneExecution {
    /// The lowest active lane (the ballot's lowest set bit), or 0 for an empty ballot.
    pub fn lowest_lane(&self) -> u32 {
        (0..4)
            .find(|&w| self.ballot[w] != 0)
            .map_or(0, |w| w as u32 * 32 + self.ballot[w].trailing_zeros())
    }

    /// The local index of the subgroup's lane 0 (lane `i` is this + `i`), where the lanes'
    /// places are known: in a 1-D workgroup, by the linear mapping every device seen so far
    /// uses; in a 2-D or 3-D one, where every active lane checked its place by a shuffle.
    /// `None` where they are not known, or where the lowest lane's local index is below its
    /// lane id (no contiguous layout puts it there).
    pub fn subgroup_base(&self) -> Option<u32> {
        let placed = match &self.invocations {
            None => true,
            Some(lanes) => {
                lanes.iter().all(|l| l.lane.is_some()) && self.invocations_complete != Some(false)
            }
        };
        placed
            .then(|| self.first_local_index.checked_sub(self.lowest_lane()))
            .flatten()
    }

    /// Whether this execution contradicts the linear mapping (lane = local index mod
    /// `subgroup_size`) that the lane and dispatch maps place lanes by where a record does not
    /// place them itself: its base is not a whole number of subgroups, its lowest lane's local
    /// index is below its lane id, or (2-D and 3-D) its lanes failed the shuffle check that
    /// they are contiguous in local index.
    pub fn contradicts_linear_mapping(&self, subgroup_size: u32) -> bool {
        match (self.subgroup_base(), &self.invocations) {
            (Some(base), _) => base % subgroup_size.max(1) != 0,
            (None, None) => true,
            // A list cut short (lanes 128 or more past the first) is no evidence either way.
            (None, Some(lanes)) => lanes.iter().any(|l| l.lane.is_none()),
        }
    }
}

/// What the profile was asked to do, each option in the form the command line takes, so that
/// a reader can run it again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RequestRecord {
    /// `--entry`, as given (`kernel.entry` is the one that ran).
    pub entry: Option<String>,
    /// `--dispatch`: workgroups in x, y, z.
    pub dispatch: [u32; 3],
    /// Every `--buffer`, as `BINDING=FILL`; a binding not named here got the default fill
    /// (`random`, but the dispatch's invocations in a uniform buffer's integer fields).
    pub buffers: Vec<String>,
    /// Every `--len`, as `BINDING=N`.
    pub lens: Vec<String>,
    /// Every `--override`, as `NAME=VALUE`.
    pub overrides: Vec<String>,
    /// Every `--texture`, `--size`, `--format`, `--sampler` and `--save`, as written (the
    /// notes say what each texture and sampler was made as).
    #[serde(default)]
    pub textures: Vec<String>,
    /// `--reps`: the most timed repetitions.
    pub reps: usize,
    /// `--time-budget`, in seconds.
    pub time_budget_s: f64,
    /// `--loop-cap`, as asked.
    pub loop_cap: u32,
    /// `--lanes LINE`.
    pub lanes: Option<u32>,
    /// `--counts invocations`: each invocation's passes were counted with no subgroup
    /// operation (no efficiency or divergence). Absent for the default, `subgroups`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counts: Option<String>,
    /// `--cost-top N` (with `--cost`): how many divergent branches got a variant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_top: Option<usize>,
    /// `--cost-placements N` (with `--cost`): the sets of buffers each pair was timed on;
    /// absent in documents from before it, which timed one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_placements: Option<usize>,
}

/// The profiled kernel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct KernelRecord {
    /// The file as given.
    pub file: String,
    /// The entry point.
    pub entry: String,
    /// `@workgroup_size`.
    pub workgroup_size: [u32; 3],
    /// Workgroups dispatched.
    pub dispatch: [u32; 3],
}

/// One source line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LineProfile {
    /// 1-based line of the user's file.
    pub line: u32,
    /// Subgroup-level executions of the block the line belongs to (invocations without
    /// subgroup operations).
    pub executions: u64,
    /// Σ active lanes over those executions; `None` without subgroup operations.
    pub active_lanes: Option<u64>,
    /// active_lanes / (executions × subgroup size); `None` when not executed or without
    /// subgroup operations.
    pub efficiency: Option<f64>,
    /// The static verdict at subgroup scope: `uniform`, `non-uniform` or `not-executed`.
    #[serde(rename = "static")]
    pub static_verdict: Option<String>,
}

/// One `if`, `switch` or loop.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BranchProfile {
    /// 1-based line.
    pub line: u32,
    /// `if`, `switch` or `loop`.
    pub kind: String,
    /// Subgroup executions that evaluated it (a loop: evaluations of its `for`/`while` test; a
    /// bare `loop`: body executions). Without subgroup operations: the invocations that
    /// reached its line (a loop's: its entries).
    pub executions: u64,
    /// Of those, how many had lanes disagree (for a loop: body executions with fewer lanes
    /// than the subgroup, the trips some lanes sat out).
    pub divergent: u64,
    /// divergent / executions.
    pub divergent_fraction: Option<f64>,
    /// Lane slots the subgroup paid for but left idle inside it: Σ (executions × SG − active
    /// lanes) over the blocks it opens.
    pub wasted_lane_slots: Option<u64>,
    /// A loop: subgroup executions of its body, its trips.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trips: Option<u64>,
    /// A loop: Σ active lanes over its trips, the lane-trips that ran (with subgroups).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lane_trips: Option<u64>,
    /// A loop with a `break` or `return` in a branch inside it: whether some of its lanes left
    /// by one while others went on (a branch that holds one diverged); its test's divergence is
    /// `divergent`. `None` for a loop with no such branch, and where it cannot be told: a `break
    /// if`, no subgroup operations, or a document from before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left_early: Option<bool>,
    /// An `if`: Σ over its evaluations of the lanes that took its `then` side (invocations
    /// without subgroups).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub taken: Option<u64>,
    /// An `if`: likewise, the lanes that took the other side, its `else` written or not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_taken: Option<u64>,
    /// `--cost`: what the branch's divergence costs on this adapter (schema 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<BranchCost>,
    /// A branch that never diverged but idled lane slots: the line of the innermost branch or
    /// loop around it, in its function, that did. Those slots are the lanes that one left out,
    /// its cost, which it does not count itself. 0 where none around it diverged: the lanes
    /// were idle before it (an earlier `return` or `break`, a branch in a caller, a partial
    /// subgroup). `None` on other rows, and in documents from before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inherited_from: Option<u32>,
    /// An `if` that tests a short-circuit `&&`/`||` chain up to one of its clauses (naga makes
    /// an `if` of each operator, on the chain's line), or whose condition is a whole chain:
    /// that clause, so that the rows of one line can be told apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clause: Option<Clause>,
}

/// The clause of a short-circuit chain that a branch row tests the chain up to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Clause {
    /// The clause as the source writes it (blanks collapsed).
    pub text: String,
    /// Its 1-based line (a chain may span lines; the row is at the chain's first).
    pub line: u32,
    /// Its 1-based column, in bytes as naga counts them.
    pub column: u32,
    /// `&&` or `||` for the `if` naga made of that operator after the clause: its `then`
    /// side is the lanes that go on to the next clause (for `&&`, those for which every clause
    /// so far held; for `||`, those for which every one failed). Absent for the `if` whose
    /// condition is the whole chain, whose clause is the chain's last.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operator: Option<String>,
}

impl Clause {
    /// `` `a` && (col 9) ``, `` `c`, the whole condition (line 70, col 11) ``: the clause, its
    /// column (and line, where it is not `row_line`) and what the row tests.
    pub fn label(&self, row_line: u32) -> String {
        let at = if self.line == row_line {
            format!("col {}", self.column)
        } else {
            format!("line {}, col {}", self.line, self.column)
        };
        match &self.operator {
            Some(op) => format!("`{}` {op} ({at})", self.text),
            None => format!("`{}`, the whole condition ({at})", self.text),
        }
    }
}

impl BranchProfile {
    /// The row's kind with its clause, where it has one: `` if `a` && (col 9) ``.
    pub fn kind_label(&self) -> String {
        match &self.clause {
            Some(c) => format!("{} {}", self.kind, c.label(self.line)),
            None => self.kind.clone(),
        }
    }

    /// An `if`: the share of the lanes that reached it that took its `then` side.
    pub fn taken_share(&self) -> Option<f64> {
        let (taken, not_taken) = (self.taken?, self.not_taken?);
        let reached = taken + not_taken;
        (reached > 0).then(|| taken as f64 / reached as f64)
    }

    /// [`Self::taken_share`] and its complement as whole percents, where a side that some
    /// lanes took never reads 0% (`<1%`) and one that not all took never 100% (`>99%`).
    pub fn taken_percents(&self) -> Option<(String, String)> {
        let percent = |share: f64| match share {
            s if s > 0.0 && s < 0.01 => "<1%".to_owned(),
            s if s < 1.0 && s > 0.99 => ">99%".to_owned(),
            s => format!("{:.0}%", s * 100.0),
        };
        self.taken_share().map(|t| (percent(t), percent(1.0 - t)))
    }

    /// An `if`'s taken share in words: `then side taken by 25% of lanes`, or on a row of a
    /// `&&`/`||` chain what its `then` side is there (for `||`, the lanes for which every
    /// clause so far failed).
    pub fn taken_phrase(&self) -> Option<String> {
        let (t, _) = self.taken_percents()?;
        let goes_on = "of lanes, which go on to the next clause";
        Some(match self.clause.as_ref().map(|c| c.operator.as_deref()) {
            None => format!("then side taken by {t} of lanes"),
            Some(None) => format!("held for {t} of lanes"),
            Some(Some("||")) => format!("the chain up to it failed for {t} {goes_on}"),
            Some(Some(_)) => format!("the chain up to it held for {t} {goes_on}"),
        })
    }

    /// A loop's lane slots over its trips: the lane-trips that ran, and the trips × the
    /// subgroup size they paid for. `None` for a branch, or without subgroups.
    pub fn trip_slots(&self, subgroup_size: Option<u32>) -> Option<(u64, u64)> {
        let trips = self.trips.filter(|_| self.kind == "loop")?;
        Some((self.lane_trips?, trips * u64::from(subgroup_size?)))
    }

    /// Whether the idle lane slots inside it are its own: it diverged at its test, lanes left
    /// it early by a `break` or `return` ([`Self::left_early`]), or it is a loop without a test
    /// whose way out cannot be told. A branch that never diverged holds only slots a branch or
    /// loop around it left idle (which that one does not count: a lone lane's loop inside an
    /// `if` is the `if`'s cost).
    pub fn diverged(&self) -> bool {
        let unknown_exits =
            self.kind == "loop" && self.divergent_fraction.is_none() && self.left_early.is_none();
        self.divergent > 0 || self.left_early == Some(true) || unknown_exits
    }

    /// Whether it never diverged yet idled lane slots: lanes left out before it reached it.
    pub fn inherits_idle_slots(&self) -> bool {
        !self.diverged() && self.wasted_lane_slots.is_some_and(|w| w > 0)
    }

    /// Why a branch that never diverged has idle slots, as a clause that follows "never
    /// diverged: "; `None` where it diverged or idled none. `branches` is the profile's, to
    /// name the branch or loop it inherits them from.
    pub fn inherited_reason(&self, branches: &[BranchProfile]) -> Option<String> {
        if !self.inherits_idle_slots() {
            return None;
        }
        Some(match self.inherited_from {
            // A document from before the field: what it knew.
            None => {
                "a branch or loop around it, or an earlier return, left those lanes out".to_owned()
            }
            Some(0) => "its lanes were idle before it (an earlier return or break, a branch in \
                        a caller, or a partial subgroup)"
                .to_owned(),
            Some(line) => {
                let kind = branches
                    .iter()
                    .find(|b| b.line == line && b.diverged())
                    .map_or("branch", |b| b.kind.as_str());
                format!("its idle slots are lanes the {kind} at line {line} around it left out")
            }
        })
    }

    /// A loop's figures in words that add up: its trips, the lane-trips that ran of the lane
    /// slots its trips paid for, the slots left idle by lanes not in the loop (they left it, or
    /// never entered it: a loop inside a branch runs with that side's lanes), and the tests at
    /// which lanes left. `None` for a branch, or a loop without trip counts.
    pub fn loop_figures(&self, subgroup_size: Option<u32>) -> Option<String> {
        let trips = self.trips.filter(|_| self.kind == "loop")?;
        let mut parts = vec![format!("{trips} trips")];
        if let Some((ran, slots)) = self.trip_slots(subgroup_size) {
            let share = if slots > 0 {
                format!(" ({:.0}%)", ran as f64 * 100.0 / slots as f64)
            } else {
                String::new()
            };
            parts.push(format!("{ran} of {slots} lane slots ran{share}"));
            parts.push(format!(
                "{} left idle by lanes not in the loop",
                slots.saturating_sub(ran)
            ));
        }
        if self.divergent_fraction.is_some() {
            parts.push(format!(
                "lanes left on {} of {} tests",
                self.divergent, self.executions
            ));
        }
        parts.extend(self.left_early.map(|early| {
            if early {
                "lanes left early by a break or return"
            } else {
                "no lane left early by a break or return"
            }
            .to_owned()
        }));
        Some(parts.join(", "))
    }
}

/// Run-to-run spread above which the times get a note.
const NOISY_CV: f64 = 0.2;

/// Timings, medians of `reps` interleaved runs: at least 3 (or `--reps`, if fewer) and at most
/// `--reps`, as many as fitted the time budget.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TimingRecord {
    /// The uninstrumented kernel.
    #[serde(deserialize_with = "f64_or_nan")]
    #[schemars(with = "Option<f64>")]
    pub kernel_ns: f64,
    /// The instrumented kernel.
    #[serde(deserialize_with = "f64_or_nan")]
    #[schemars(with = "Option<f64>")]
    pub instrumented_ns: f64,
    /// instrumented / kernel.
    #[serde(deserialize_with = "f64_or_nan")]
    #[schemars(with = "Option<f64>")]
    pub overhead: f64,
    /// Repetitions behind each median: those that ran.
    pub reps: usize,
    /// The time budget the repetitions had, in seconds (warm-up included).
    pub time_budget_s: f64,
    /// `gpu_timestamp` or `cpu_wall_clock`.
    pub source: crate::report::TimingSource,
    /// The 95% bootstrap interval of `overhead` (schema 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead_interval: Option<[f64; 2]>,
    /// The kernel's run-to-run spread: the coefficient of variation of its times (schema 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_cv: Option<f64>,
    /// With `--cost`: an empty kernel's time over the same workgroups (median), the fixed cost
    /// of a dispatch that the cost model's price per lane slot leaves out (schema 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub floor_ns: Option<f64>,
    /// With `--cost`: the 95% bootstrap interval of the kernel's time above the floor
    /// (`kernel_ns` − `floor_ns`, never below 0), which the cost model's predictions are priced
    /// from (schema 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub above_floor_interval_ns: Option<[f64; 2]>,
}

impl TimingRecord {
    /// Notes on times that could mislead: an instrumented kernel faster than the kernel alone
    /// beyond noise, and times that vary a lot between runs. Derived from the record, so they
    /// come with the times (the text report prints them after the `time:` line) and not among
    /// the profile's notes, which say the same on every run.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if let Some([_, high]) = self.overhead_interval
            && high < 1.0
        {
            notes.push(format!(
                "the instrumented kernel ran faster than the kernel alone ({:.2}x), beyond \
                 noise. Both ran the same dispatch on the same resources, interleaved, after a \
                 warm-up each, so the work and the first-run costs are the same: the compiler \
                 made different code of the two (the instrumented one is naga's rewrite of the \
                 kernel, with counters that can change how it unrolls, schedules or allocates). \
                 The counts are not affected; the time alone is the kernel's",
                self.overhead
            ));
        }
        if let Some(cv) = self.kernel_cv.filter(|&cv| cv > NOISY_CV) {
            notes.push(format!(
                "the kernel's times vary by {:.0}% (coefficient of variation) between runs: the \
                 machine is busy or the clock changes; medians and intervals allow for it, but \
                 --reps more or a quieter machine narrows them",
                cv * 100.0
            ));
        }
        if let Some(above) = (self.above_floor_interval_ns)
            .filter(|[low, _]| *low <= 0.0)
            .and(self.above_floor_text())
        {
            notes.push(format!(
                "the kernel's time cannot be told from an empty kernel's over the same \
                 workgroups ({above}): beside a dispatch's fixed cost its work is too little for \
                 --cost to tell a branch's saving from noise; more workgroups (--dispatch) or \
                 more work per invocation lengthen it"
            ));
        }
        notes
    }

    /// The kernel's time above an empty dispatch's (`floor_ns`, where it was timed), never
    /// below zero: what the cost model spreads over the lane slots.
    pub fn above_floor_ns(&self) -> f64 {
        (self.kernel_ns - self.floor_ns.unwrap_or(0.0)).max(0.0)
    }

    /// What the cost predictions price, in words: `the 280 ns above it (95% interval 0 ns to
    /// 6.09 µs)`; `None` without a floor's interval.
    pub fn above_floor_text(&self) -> Option<String> {
        let [low, high] = self.above_floor_interval_ns?;
        Some(format!(
            "the {} above it (95% interval {} to {})",
            format_ns(self.above_floor_ns()),
            format_ns(low),
            format_ns(high)
        ))
    }

    /// The overhead as the report prints it: never a figure below 1 without its reason.
    pub fn overhead_text(&self) -> String {
        if !self.overhead.is_finite() {
            return "overhead not measured".to_owned();
        }
        let ratio = format!("{:.2}x", self.overhead);
        match self.overhead_interval {
            Some([low, high]) if self.overhead < 1.0 && high >= 1.0 => {
                format!("{ratio}, the same within noise: 95% interval {low:.2}x to {high:.2}x")
            }
            Some([low, high]) if self.overhead < 1.0 => format!(
                "{ratio}, 95% interval {low:.2}x to {high:.2}x: the instrumented kernel ran \
                 faster; see the note"
            ),
            _ if self.overhead < 1.0 => format!("{ratio}, too few runs to tell it from noise"),
            _ => ratio,
        }
    }
}

/// Now, as `created` records it: UTC, RFC 3339, to the second.
pub fn created_now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

/// The document as `--json` writes it: pretty JSON with a trailing newline.
pub fn json_bytes(profile: &Profile) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(profile).expect("a profile serializes");
    bytes.push(b'\n');
    bytes
}

/// serde_json writes a NaN or infinite time (a pass too short for the timestamps) as `null`;
/// reading it back gives NaN, so that such a document still imports.
fn f64_or_nan<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

#[cfg(test)]
mod timing_tests {
    use super::*;

    /// A kernel of 24.8 µs alone, its empty kernel's time `floor_ns`, and the interval of the
    /// time above it.
    fn timing(floor_ns: Option<f64>, above_floor_interval_ns: Option<[f64; 2]>) -> TimingRecord {
        TimingRecord {
            kernel_ns: 24_800.0,
            instrumented_ns: 32_800.0,
            overhead: 32.8 / 24.8,
            reps: 41,
            time_budget_s: 5.0,
            source: crate::report::TimingSource::GpuTimestamp,
            overhead_interval: None,
            kernel_cv: None,
            floor_ns,
            above_floor_interval_ns,
        }
    }

    /// The cost model prices the time above the empty kernel's, and a floor measured above
    /// the kernel (noise) leaves nothing rather than a negative time.
    #[test]
    fn the_time_above_the_floor_is_never_negative() {
        assert_eq!(timing(None, None).above_floor_ns(), 24_800.0);
        assert_eq!(timing(Some(21_700.0), None).above_floor_ns(), 3_100.0);
        assert_eq!(timing(Some(26_000.0), None).above_floor_ns(), 0.0);
    }

    /// A kernel whose time above the floor may be nothing is too small for `--cost`: a note says
    /// so, and one clear of the floor gets none.
    #[test]
    fn a_kernel_no_longer_than_an_empty_one_is_noted() {
        let too_little = |interval| {
            let t = timing(Some(23_700.0), interval);
            t.notes().iter().any(|n| n.contains("too little"))
        };
        assert!(too_little(Some([0.0, 6_460.0])));
        assert!(!too_little(Some([450.0, 1_700.0])));
        assert!(!too_little(None));
    }
}
