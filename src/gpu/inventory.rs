//! `divlab adapters --json`: every adapter with what tells two drivers apart (the full driver
//! string, vendor and device ids) and what divlab's kernels depend on (subgroup sizes, the
//! compute and buffer limits, the features its experiments and `profile` ask for).

use serde::Serialize;

use crate::report::{AdapterRecord, TimingSource};

use super::adapters::AdapterEntry;

/// The inventory's format version; a reader checks it before the fields.
pub const INVENTORY_SCHEMA_VERSION: u32 = 1;

/// The whole document.
#[derive(Clone, Debug, Serialize)]
pub struct Inventory {
    /// [`INVENTORY_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The divlab version that wrote the document.
    pub divlab_version: String,
    /// Every adapter on every backend (or on `--backend`'s), in `divlab adapters`' order.
    pub adapters: Vec<AdapterJson>,
}

/// One adapter.
#[derive(Clone, Debug, Serialize)]
pub struct AdapterJson {
    /// Position in the list; `--adapter INDEX` names it.
    pub index: usize,
    /// Whether divlab uses this adapter when none is named.
    pub default: bool,
    /// The adapter as a result document's `adapter` records it, before a run measured
    /// anything on it: `observed_subgroup_size` and `inferred_subgroup_width` are null.
    #[serde(flatten)]
    pub adapter: AdapterRecord,
    /// The features divlab uses, by name.
    pub features: FeaturesJson,
    /// The limits divlab's kernels meet.
    pub limits: LimitsJson,
}

/// Features that decide what divlab can run on an adapter.
#[derive(Clone, Debug, Serialize)]
pub struct FeaturesJson {
    /// Subgroup operations (`SUBGROUP`): every lane-level experiment and `profile`'s counts.
    pub subgroups: bool,
    /// `subgroupBarrier()` (`SUBGROUP_BARRIER`).
    pub subgroup_barrier: bool,
    /// Timestamp queries (`TIMESTAMP_QUERY`): GPU times rather than the CPU clock.
    pub timestamps: bool,
    /// Timestamps inside compute passes (`TIMESTAMP_QUERY_INSIDE_PASSES`).
    pub timestamps_inside_passes: bool,
    /// `f16` in shaders (`SHADER_F16`).
    pub shader_f16: bool,
    /// `atomic<f32>` (`SHADER_FLOAT32_ATOMIC`).
    pub float32_atomics: bool,
    /// `i64`/`u64` in shaders (`SHADER_INT64`).
    pub shader_int64: bool,
    /// Every feature the adapter offers, as wgpu names it.
    pub all: Vec<String>,
}

/// The compute and buffer limits a kernel meets first.
#[derive(Clone, Debug, Serialize)]
pub struct LimitsJson {
    pub max_compute_workgroups_per_dimension: u32,
    pub max_compute_invocations_per_workgroup: u32,
    pub max_compute_workgroup_size_x: u32,
    pub max_compute_workgroup_size_y: u32,
    pub max_compute_workgroup_size_z: u32,
    pub max_compute_workgroup_storage_size: u32,
    pub max_storage_buffer_binding_size: u64,
    pub max_uniform_buffer_binding_size: u64,
    pub max_buffer_size: u64,
    pub max_storage_buffers_per_shader_stage: u32,
    pub max_storage_textures_per_shader_stage: u32,
    pub max_bind_groups: u32,
    pub max_immediate_size: u32,
}

impl Inventory {
    /// The document for `entries`.
    pub fn new<'a>(entries: impl IntoIterator<Item = &'a AdapterEntry>) -> Self {
        Inventory {
            schema_version: INVENTORY_SCHEMA_VERSION,
            divlab_version: env!("CARGO_PKG_VERSION").to_owned(),
            adapters: entries.into_iter().map(AdapterJson::new).collect(),
        }
    }
}

impl AdapterJson {
    fn new(e: &AdapterEntry) -> Self {
        let has = |f: wgpu::Features| e.features.contains(f);
        let l = &e.limits;
        AdapterJson {
            index: e.index,
            default: e.is_default,
            adapter: describe_adapter(&e.info, e.subgroups, e.timestamps),
            features: FeaturesJson {
                subgroups: has(wgpu::Features::SUBGROUP),
                subgroup_barrier: has(wgpu::Features::SUBGROUP_BARRIER),
                timestamps: has(wgpu::Features::TIMESTAMP_QUERY),
                timestamps_inside_passes: has(wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES),
                shader_f16: has(wgpu::Features::SHADER_F16),
                float32_atomics: has(wgpu::Features::SHADER_FLOAT32_ATOMIC),
                shader_int64: has(wgpu::Features::SHADER_INT64),
                all: e
                    .features
                    .iter_names()
                    .map(|(name, _)| name.to_owned())
                    .collect(),
            },
            limits: LimitsJson {
                max_compute_workgroups_per_dimension: l.max_compute_workgroups_per_dimension,
                max_compute_invocations_per_workgroup: l.max_compute_invocations_per_workgroup,
                max_compute_workgroup_size_x: l.max_compute_workgroup_size_x,
                max_compute_workgroup_size_y: l.max_compute_workgroup_size_y,
                max_compute_workgroup_size_z: l.max_compute_workgroup_size_z,
                max_compute_workgroup_storage_size: l.max_compute_workgroup_storage_size,
                max_storage_buffer_binding_size: l.max_storage_buffer_binding_size,
                max_uniform_buffer_binding_size: l.max_uniform_buffer_binding_size,
                max_buffer_size: l.max_buffer_size,
                max_storage_buffers_per_shader_stage: l.max_storage_buffers_per_shader_stage,
                max_storage_textures_per_shader_stage: l.max_storage_textures_per_shader_stage,
                max_bind_groups: l.max_bind_groups,
                max_immediate_size: l.max_immediate_size,
            },
        }
    }
}

/// The inventory as pretty JSON with a final newline.
pub fn inventory_json<'a>(entries: impl IntoIterator<Item = &'a AdapterEntry>) -> String {
    let mut text =
        serde_json::to_string_pretty(&Inventory::new(entries)).expect("the inventory serializes");
    text.push('\n');
    text
}

/// The adapter `info` describes as a result document records it, with whether the device
/// offers subgroups and timestamps; nothing measured yet (the caller adds what it observes).
pub fn describe_adapter(
    info: &wgpu::AdapterInfo,
    subgroups: bool,
    timestamps: bool,
) -> AdapterRecord {
    AdapterRecord {
        name: info.name.clone(),
        vendor: info.vendor,
        device: info.device,
        driver: info.driver.clone(),
        driver_info: info.driver_info.clone(),
        backend: info.backend.to_str().to_owned(),
        device_type: format!("{:?}", info.device_type),
        subgroup_min_size: info.subgroup_min_size,
        subgroup_max_size: info.subgroup_max_size,
        observed_subgroup_size: None,
        inferred_subgroup_width: None,
        subgroups,
        timestamps,
        timing_source: TimingSource::of(timestamps),
    }
}
