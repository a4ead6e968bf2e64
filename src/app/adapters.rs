//! The adapters the picker offers, listed once per session (not per frame).

use crate::gpu::adapters;

/// One adapter of the picker.
#[derive(Clone, Debug)]
pub struct AdapterChoice {
    /// Its index (as `--adapter N`).
    pub index: usize,
    /// Name, backend, driver and subgroup sizes.
    pub label: String,
    /// Whether divlab picks it when none is named.
    pub is_default: bool,
}

/// Every adapter of every backend.
#[derive(Clone, Debug, Default)]
pub struct Adapters(Vec<AdapterChoice>);

impl Adapters {
    /// Lists the adapters of every backend.
    pub fn list() -> Self {
        let instance = adapters::create_instance(None);
        let choices = adapters::list_adapters(&instance, None)
            .into_iter()
            .map(|(e, _)| AdapterChoice {
                index: e.index,
                label: adapter_label(&e),
                is_default: e.is_default,
            })
            .collect();
        Self(choices)
    }

    /// Every choice, in index order.
    pub fn choices(&self) -> &[AdapterChoice] {
        &self.0
    }

    /// The adapter the picker's choice names, as a label.
    pub fn label(&self, choice: Option<usize>) -> String {
        let entry = match choice {
            None => self.0.iter().find(|a| a.is_default),
            Some(i) => self.0.iter().find(|a| a.index == i),
        };
        match (choice, entry) {
            (None, Some(a)) => format!("default: {}", a.label),
            (None, None) => "default".to_owned(),
            (Some(_), Some(a)) => a.label.clone(),
            (Some(i), None) => format!("#{i}"),
        }
    }
}

/// "#0 llvmpipe (LLVM 15.0.6, 256 bits) · vulkan, llvmpipe · SG 8"; a backend that names no
/// driver (GL) or reports no subgroup sizes says so instead of leaving a gap.
fn adapter_label(e: &adapters::AdapterEntry) -> String {
    let info = &e.info;
    let mut label = format!("#{} {} · {}", e.index, info.name, info.backend.to_str());
    if !info.driver.is_empty() {
        label += &format!(", {}", info.driver);
    }
    label += &match (e.subgroups, info.subgroup_min_size, info.subgroup_max_size) {
        (false, ..) => " · no subgroups".to_owned(),
        (true, min, max) if min == max => format!(" · SG {min}"),
        (true, min, max) => format!(" · SG {min}–{max}"),
    };
    label
}
