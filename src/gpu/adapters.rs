//! Finding adapters on every backend, listing them, and picking the one the user asked for.

use crate::{Error, Result};

/// A backend the user can name on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendChoice {
    /// Vulkan (Linux, Windows, Android; MoltenVK on macOS).
    Vulkan,
    /// Metal (macOS, iOS).
    Metal,
    /// Direct3D 12 (Windows).
    Dx12,
    /// OpenGL / OpenGL ES (no subgroups: experiments that need them report `unsupported`; the
    /// divergence study and the scheduling probes run variants without them).
    Gl,
}

impl BackendChoice {
    /// Parses `vulkan|metal|dx12|gl` (case-insensitive; `vk`, `mtl`, `d3d12`, `gles` also work).
    pub fn parse(name: &str) -> Result<Self> {
        match name.trim().to_ascii_lowercase().as_str() {
            "vulkan" | "vk" => Ok(Self::Vulkan),
            "metal" | "mtl" => Ok(Self::Metal),
            "dx12" | "d3d12" => Ok(Self::Dx12),
            "gl" | "gles" | "opengl" => Ok(Self::Gl),
            _ => Err(Error::UnknownBackend(name.to_owned())),
        }
    }

    /// The wgpu backend set for this choice.
    pub fn backends(self) -> wgpu::Backends {
        match self {
            Self::Vulkan => wgpu::Backends::VULKAN,
            Self::Metal => wgpu::Backends::METAL,
            Self::Dx12 => wgpu::Backends::DX12,
            Self::Gl => wgpu::Backends::GL,
        }
    }
}

/// Which adapter to use: the CLI's `--backend` / `--adapter`, or `WGPU_BACKEND` / `WGPU_ADAPTER_NAME`.
#[derive(Clone, Debug, Default)]
pub struct AdapterSelector {
    /// Restrict the search to one backend.
    pub backend: Option<BackendChoice>,
    /// An index into the adapter list, or a case-insensitive name substring.
    pub adapter: Option<String>,
}

/// One adapter as `divlab adapters` shows it.
#[derive(Clone, Debug)]
pub struct AdapterEntry {
    /// Position in the list; `--adapter <index>` refers to it.
    pub index: usize,
    /// wgpu's description of the adapter.
    pub info: wgpu::AdapterInfo,
    /// Whether the adapter offers `Features::SUBGROUP`.
    pub subgroups: bool,
    /// Whether the adapter offers `Features::TIMESTAMP_QUERY`.
    pub timestamps: bool,
    /// Whether divlab picks this adapter when none is named.
    pub is_default: bool,
    /// Every feature the adapter offers (`divlab adapters --json`).
    pub features: wgpu::Features,
    /// The adapter's limits (`divlab adapters --json`).
    pub limits: wgpu::Limits,
}

/// Creates a wgpu instance over the given backends (all when `None`).
pub fn create_instance(backend: Option<BackendChoice>) -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    desc.backends = backend.map_or(wgpu::Backends::all(), BackendChoice::backends);
    wgpu::Instance::new(desc)
}

/// Lists every adapter on the selector's backends in a stable order, marking the default.
pub fn list_adapters(
    instance: &wgpu::Instance,
    backend: Option<BackendChoice>,
) -> Vec<(AdapterEntry, wgpu::Adapter)> {
    let backends = backend.map_or(wgpu::Backends::all(), BackendChoice::backends);
    let mut adapters = pollster::block_on(instance.enumerate_adapters(backends));
    adapters.sort_by_key(|a| {
        let info = a.get_info();
        (
            preference_rank(&info, a.features()),
            info.backend as u32,
            info.name,
        )
    });
    adapters
        .into_iter()
        .enumerate()
        .map(|(index, adapter)| {
            let features = adapter.features();
            let entry = AdapterEntry {
                index,
                info: adapter.get_info(),
                subgroups: features.contains(wgpu::Features::SUBGROUP),
                timestamps: features.contains(wgpu::Features::TIMESTAMP_QUERY),
                is_default: index == 0,
                features,
                limits: adapter.limits(),
            };
            (entry, adapter)
        })
        .collect()
}

/// Lower is better. divlab prefers real GPUs, then native APIs with subgroups; it does not use
/// wgpu's own default because that may pick a GL adapter, which has no subgroups.
fn preference_rank(info: &wgpu::AdapterInfo, features: wgpu::Features) -> (u8, u8, u8) {
    let device = match info.device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Cpu => 3,
        wgpu::DeviceType::Other => 4,
    };
    let subgroups = u8::from(!features.contains(wgpu::Features::SUBGROUP));
    let native = u8::from(info.backend == wgpu::Backend::Gl);
    (subgroups, device, native)
}

/// Picks the adapter the selector names, or the default.
pub fn select_adapter(selector: &AdapterSelector) -> Result<(AdapterEntry, wgpu::Adapter)> {
    let instance = create_instance(selector.backend);
    let mut adapters = list_adapters(&instance, selector.backend);
    if adapters.is_empty() {
        let backends = selector
            .backend
            .map(|b| format!(" on backend {b:?}"))
            .unwrap_or_default();
        let others = list_adapters(&create_instance(None), None);
        let available = if others.is_empty() {
            String::new()
        } else {
            format!(
                ".\nAdapters on other backends:\n{}",
                format_adapter_table(others.iter().map(|(e, _)| e))
            )
        };
        return Err(Error::NoAdapter {
            backends,
            available,
        });
    }
    let position = match selector.adapter.as_deref().map(str::trim) {
        None | Some("") => {
            if let Some(warning) = gl_fallback_warning(selector, &adapters[0].0) {
                eprintln!("warning: {warning}");
            }
            Some(0)
        }
        Some(wanted) => find_adapter(&adapters, wanted),
    };
    match position {
        Some(position) => Ok(adapters.swap_remove(position)),
        None => Err(Error::UnknownAdapter {
            wanted: selector.adapter.clone().unwrap_or_default(),
            available: format_adapter_table(adapters.iter().map(|(e, _)| e)),
        }),
    }
}

/// Why the default adapter is GL where the user pointed the Vulkan loader at a driver
/// (`VK_DRIVER_FILES`, `VK_ICD_FILENAMES`): a path that does not load leaves the loader with no
/// device, and wgpu falls back to GL (no subgroups) without a word.
fn gl_fallback_warning(selector: &AdapterSelector, chosen: &AdapterEntry) -> Option<String> {
    if selector.backend.is_some() || chosen.info.backend != wgpu::Backend::Gl {
        return None;
    }
    let (variable, value) = ["VK_DRIVER_FILES", "VK_ICD_FILENAMES"]
        .into_iter()
        .find_map(|v| Some((v, std::env::var(v).ok()?)))?;
    Some(format!(
        "{variable}={value} names a Vulkan driver, but the Vulkan loader found no adapter, so \
         divlab uses GL's `{}`, which has no subgroup operations. Check that the file exists \
         and that its library loads (`VK_LOADER_DEBUG=all`), or unset {variable}",
        chosen.info.name
    ))
}

fn find_adapter(adapters: &[(AdapterEntry, wgpu::Adapter)], wanted: &str) -> Option<usize> {
    if let Ok(index) = wanted.parse::<usize>() {
        return (index < adapters.len()).then_some(index);
    }
    let wanted = wanted.to_lowercase();
    adapters
        .iter()
        .position(|(e, _)| e.info.name.to_lowercase().contains(&wanted))
}

/// Formats adapters as the table `divlab adapters` prints: plain columns (comfy-table, which
/// pads by display width, so wide characters in driver-supplied names keep the columns aligned).
/// Nothing is cut: two drivers may differ only at the end of their version strings.
pub fn format_adapter_table<'a>(entries: impl IntoIterator<Item = &'a AdapterEntry>) -> String {
    let mut table = comfy_table::Table::new();
    table
        .load_preset(comfy_table::presets::NOTHING)
        .set_header([
            "#",
            "",
            "name",
            "backend",
            "type",
            "driver",
            "subgroup",
            "subgroups",
            "timestamps",
        ]);
    for e in entries {
        let driver = format!("{} {}", e.info.driver, e.info.driver_info);
        table.add_row([
            e.index.to_string(),
            if e.is_default { "*" } else { "" }.to_owned(),
            e.info.name.clone(),
            e.info.backend.to_str().to_owned(),
            format!("{:?}", e.info.device_type),
            driver.trim().to_owned(),
            format!("{}..{}", e.info.subgroup_min_size, e.info.subgroup_max_size),
            yes_no(e.subgroups).to_owned(),
            yes_no(e.timestamps).to_owned(),
        ]);
    }
    let mut out: String = table
        .lines()
        .map(|l| l.trim_end().to_owned() + "\n")
        .collect();
    if out.is_empty() {
        out.push('\n');
    }
    out
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}
