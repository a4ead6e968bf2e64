//! The result document: what a run produced, versioned, for every consumer.
//!
//! Keep `docs/results.md` in sync with this file, and bump [`SCHEMA_VERSION`] on any change that
//! an older reader would misread.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The schema version this build writes.
pub const SCHEMA_VERSION: u32 = 3;

/// Versions this build reads. Version 2 added the verdict status `inconclusive`; version 3 the
/// verdict `key`, the experiment status `cancelled` and the result's `error_kind`. An older
/// document reads as a version 3 document that never uses them (its verdicts have no key).
pub const READABLE_SCHEMA_VERSIONS: [u32; 3] = [1, 2, 3];

/// The `$id` of the result document's JSON Schema, which every result document names in
/// `$schema`: a name, not an address (`schemas/result.schema.json` in the repository, or
/// `divlab schema result`).
pub fn result_schema_id() -> String {
    format!("urn:divlab:schema:result:v{SCHEMA_VERSION}")
}

/// One run of divlab on one adapter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResultDocument {
    /// The JSON Schema the document follows, named by its `$id`
    /// (`urn:divlab:schema:result:v3`, the file `schemas/result.schema.json`). Absent in
    /// documents written before it was recorded.
    #[serde(rename = "$schema", default, skip_serializing_if = "String::is_empty")]
    pub schema: String,
    /// The document format version; readers reject versions they do not know.
    #[schemars(range(min = READABLE_SCHEMA_VERSIONS[0], max = SCHEMA_VERSION))]
    pub schema_version: u32,
    /// The divlab version that wrote the document.
    pub divlab_version: String,
    /// When the run started, RFC 3339 in UTC.
    pub created: String,
    /// The adapter the run used.
    pub adapter: AdapterRecord,
    /// One entry per experiment run.
    pub experiments: Vec<ExperimentResult>,
}

/// The adapter, as wgpu describes it plus what divlab observed on it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AdapterRecord {
    /// The adapter's name, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)".
    pub name: String,
    /// PCI vendor id (0 where the backend has none).
    pub vendor: u32,
    /// PCI device id (0 where the backend has none).
    pub device: u32,
    /// Driver name.
    pub driver: String,
    /// Driver version and details.
    pub driver_info: String,
    /// The backend: vulkan, metal, dx12 or gl.
    pub backend: String,
    /// DiscreteGpu, IntegratedGpu, VirtualGpu, Cpu or Other.
    pub device_type: String,
    /// The smallest subgroup size the adapter reports.
    pub subgroup_min_size: u32,
    /// The largest subgroup size the adapter reports.
    pub subgroup_max_size: u32,
    /// The subgroup size measured from a ballot's popcount; `None` when it could not be measured.
    pub observed_subgroup_size: Option<u32>,
    /// The subgroup width inferred from timing: the knee of the divergence study's F(k).
    /// `None` when the study did not run or showed no knee. Since schema 2.
    #[serde(default)]
    pub inferred_subgroup_width: Option<u32>,
    /// Whether the device had subgroup operations.
    pub subgroups: bool,
    /// Whether the device had GPU timestamps.
    pub timestamps: bool,
    /// Where this run's times come from.
    pub timing_source: TimingSource,
}

/// Where a time came from. Results record it, because the two are not comparable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TimingSource {
    /// Timestamp queries at the start and end of the compute pass.
    GpuTimestamp,
    /// Host wall time from submit to completion: includes submission and wake-up latency.
    CpuWallClock,
}

impl TimingSource {
    /// The snake_case name used in JSON and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::GpuTimestamp => "gpu_timestamp",
            Self::CpuWallClock => "cpu_wall_clock",
        }
    }

    /// GPU timestamps where the device has them, else the CPU clock.
    pub fn of(timestamps: bool) -> Self {
        if timestamps {
            Self::GpuTimestamp
        } else {
            Self::CpuWallClock
        }
    }
}

/// Whether an experiment ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ExperimentStatus {
    /// It ran; metrics and verdicts are valid.
    Ok,
    /// The adapter lacks something it needs; `status_detail` says what.
    Unsupported,
    /// It failed; `status_detail` has the error and `error_kind` its kind.
    Error,
    /// The run was cancelled before it finished. Since schema 3.
    Cancelled,
}

// `ErrorKind` lives with the error type it classifies; readers of `report::ErrorKind` keep
// compiling through this re-export.
pub use crate::error::ErrorKind;

/// The outcome of one check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum VerdictStatus {
    /// A guarantee, observed to hold.
    Held,
    /// A guarantee, observed broken: a driver or compiler bug.
    Violated,
    /// No guarantee; the detail records what was observed (portability information).
    NotGuaranteed,
    /// A model's claim (e.g. the cost model) agrees with the measurement.
    Consistent,
    /// A model's claim disagrees with the measurement.
    Inconsistent,
    /// The measurement's 95% interval straddles the claim's limit: more repetitions, or a
    /// quieter device, would decide it. Since schema version 2.
    Inconclusive,
}

/// The rule an experiment checks, with where it comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// The claim, in one sentence.
    pub text: String,
    /// Its source, e.g. "seed 004" or "WGSL §15.6.2".
    pub source: String,
}

/// One experiment's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExperimentResult {
    /// Stable id, e.g. `subgroup.size` or `divergence.switch`.
    pub id: String,
    /// Human title.
    pub title: String,
    /// The rule it checks.
    pub rule: Rule,
    /// Whether it ran.
    pub status: ExperimentStatus,
    /// Why it is `unsupported`, `error` or `cancelled`; empty when `ok`.
    #[serde(default)]
    pub status_detail: String,
    /// The kind of failure when it is not `ok`. Since schema 3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_kind: Option<ErrorKind>,
    /// The parameters it ran with.
    pub params: BTreeMap<String, serde_json::Value>,
    /// Named numbers; the name carries the unit suffix (`_ns`, `_gflops`, ...).
    pub metrics: BTreeMap<String, f64>,
    /// Named point series for charts.
    pub series: Vec<Series>,
    /// The checks against the rule.
    pub verdicts: Vec<Verdict>,
    /// Per-subgroup lane records, for experiments that record them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lanes: Vec<LaneRecord>,
}

/// A series of points for one curve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Series {
    /// Curve name, e.g. `t_div`.
    pub name: String,
    /// What x is, e.g. `k`.
    pub x_label: String,
    /// What y is, with its unit, e.g. `time (ns)`.
    pub y_label: String,
    /// The points, in x order.
    pub points: Vec<Point>,
}

/// One point, with the spread of its repetitions where it has one.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Point {
    /// x.
    pub x: f64,
    /// y (the median for timed points).
    pub y: f64,
    /// Smallest repetition, for whiskers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y_min: Option<f64>,
    /// Largest repetition, for whiskers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y_max: Option<f64>,
}

/// One check of an observation against a rule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Verdict {
    /// A stable key, unique within the experiment (e.g. `simt_model`): the check's wording may
    /// name device numbers ("F(32)"), the key does not. Empty in documents before schema 3.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub key: String,
    /// What was checked, e.g. `observed size is a power of two in [4, 128]`.
    pub check: String,
    /// The outcome.
    pub status: VerdictStatus,
    /// The numbers behind it.
    pub detail: String,
}

/// Per-invocation records of one subgroup at one record point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LaneRecord {
    /// The record point's number.
    pub point: u32,
    /// Workgroup-local subgroup number (`local_invocation_index / subgroup_size` where linear).
    pub subgroup: u32,
    /// `local_invocation_index` of each lane, indexed by `subgroup_invocation_id`.
    pub local_index: Vec<u32>,
    /// The ballot each lane observed, as four 32-bit words.
    pub ballot: Vec<[u32; 4]>,
    /// The value each lane recorded.
    pub value: Vec<u32>,
}

/// Whether an adapter is Mesa's llvmpipe (lavapipe on Vulkan, llvmpipe on GL), which names
/// itself in `driver` on Vulkan and in the adapter name on GL.
pub fn is_llvmpipe(driver: &str, name: &str) -> bool {
    driver == "llvmpipe" || name.starts_with("llvmpipe")
}

impl AdapterRecord {
    /// Whether this is Mesa's llvmpipe ([`is_llvmpipe`]).
    pub fn is_llvmpipe(&self) -> bool {
        is_llvmpipe(&self.driver, &self.name)
    }

    /// Whether `other` is the same adapter on the same backend, so results belong together.
    pub fn same_adapter(&self, other: &Self) -> bool {
        self.name == other.name && self.backend == other.backend
    }
}

impl ExperimentResult {
    /// A fresh `ok` result with no data yet.
    pub fn new(id: &str, title: &str, rule: Rule) -> Self {
        Self {
            id: id.to_owned(),
            title: title.to_owned(),
            rule,
            status: ExperimentStatus::Ok,
            status_detail: String::new(),
            error_kind: None,
            params: BTreeMap::new(),
            metrics: BTreeMap::new(),
            series: Vec::new(),
            verdicts: Vec::new(),
            lanes: Vec::new(),
        }
    }

    /// Records a metric. Non-finite values are dropped (JSON has no NaN), so readers can rely on
    /// every metric being a number.
    pub fn metric(&mut self, name: &str, value: f64) {
        if value.is_finite() {
            self.metrics.insert(name.to_owned(), value);
        }
    }

    /// The 95% interval recorded beside metric `key` (`<key>_ci_low`, `<key>_ci_high`).
    pub fn interval(&self, key: &str) -> Option<(f64, f64)> {
        let bound = |b: &str| self.metrics.get(&format!("{key}_ci_{b}")).copied();
        Some((bound("low")?, bound("high")?))
    }

    /// Records several metrics, as [`metric`](Self::metric) does each.
    pub fn metrics<'a>(&mut self, named: impl IntoIterator<Item = (&'a str, f64)>) {
        for (name, value) in named {
            self.metric(name, value);
        }
    }

    /// Records a parameter.
    pub fn param(&mut self, name: &str, value: impl Into<serde_json::Value>) {
        self.params.insert(name.to_owned(), value.into());
    }

    /// Records a verdict under its stable `key`.
    pub fn verdict(
        &mut self,
        key: impl Into<String>,
        check: impl Into<String>,
        status: VerdictStatus,
        detail: impl Into<String>,
    ) {
        self.verdicts.push(Verdict {
            key: key.into(),
            check: check.into(),
            status,
            detail: detail.into(),
        });
    }

    /// Whether any verdict is `violated`.
    pub fn has_violation(&self) -> bool {
        self.verdicts
            .iter()
            .any(|v| v.status == VerdictStatus::Violated)
    }
}

impl ExperimentStatus {
    /// The snake_case name used in JSON and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Unsupported => "unsupported",
            Self::Error => "error",
            Self::Cancelled => "cancelled",
        }
    }
}

impl VerdictStatus {
    /// Every status, in the order tables show their counts.
    pub const ALL: [VerdictStatus; 6] = [
        Self::Held,
        Self::Violated,
        Self::NotGuaranteed,
        Self::Consistent,
        Self::Inconsistent,
        Self::Inconclusive,
    ];

    /// `Consistent` when `ok`, else `Inconsistent`.
    pub fn consistent_if(ok: bool) -> Self {
        if ok {
            Self::Consistent
        } else {
            Self::Inconsistent
        }
    }

    /// A claim decided by an interval: `Consistent` when all of `[low, high]` lies within the
    /// claim's limits `[min, max]`, `Inconsistent` when none of it does, `Inconclusive` when it
    /// straddles a limit.
    pub fn decided_by_interval(low: f64, high: f64, min: f64, max: f64) -> Self {
        if low >= min && high <= max {
            Self::Consistent
        } else if high < min || low > max {
            Self::Inconsistent
        } else {
            Self::Inconclusive
        }
    }

    /// `Held` when `ok`, else `Violated`.
    pub fn held_if(ok: bool) -> Self {
        if ok { Self::Held } else { Self::Violated }
    }

    /// The snake_case name used in JSON and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Held => "held",
            Self::Violated => "violated",
            Self::NotGuaranteed => "not_guaranteed",
            Self::Consistent => "consistent",
            Self::Inconsistent => "inconsistent",
            Self::Inconclusive => "inconclusive",
        }
    }
}
