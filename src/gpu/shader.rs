//! Kernels: WGSL sources from `shaders/`, prepared for naga 30 in one place, compiled with errors
//! that name the file, line and column.

use crate::gpu::GpuContext;
use crate::shaders::ShaderFile;
pub use crate::shaders::{check_wgsl, prepare_for_naga};
use crate::{Error, Result};

/// Whether wgpu may inject runtime guards (bounds checks, loop-forever guards) into a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuntimeChecks {
    /// wgpu's default, safe for any source.
    Checked,
    /// No injected guards. Only for kernels whose loops are bounded by construction and whose
    /// indexing is in range by construction: the guards cost up to 7x on a timing kernel.
    UncheckedBoundedByConstruction,
}

/// A kernel: its name (also its pipeline label, `divlab.<name>`), source file and entry point.
#[derive(Clone, Copy, Debug)]
pub struct Kernel {
    /// Its pipeline label is `divlab.<name>`.
    pub name: &'static str,
    /// Where the source comes from, for messages: a file in `shaders/`, or what generated it.
    pub path: &'static str,
    /// The WGSL text, spec-valid (it keeps `enable subgroups;`).
    pub source: &'static str,
    /// The compute entry point.
    pub entry: &'static str,
    /// Whether wgpu may inject runtime checks.
    pub checks: RuntimeChecks,
}

impl Kernel {
    /// Entry point `entry` of a shipped file, named after the file.
    pub const fn of(file: &'static ShaderFile, entry: &'static str, checks: RuntimeChecks) -> Self {
        Self {
            name: file.name,
            path: file.path,
            source: file.source,
            entry,
            checks,
        }
    }

    /// The file the source came from, for error messages.
    pub fn file(&self) -> &'static str {
        self.path
    }

    /// Compiles the kernel's own source.
    pub fn compile(&self, gpu: &GpuContext) -> Result<wgpu::ShaderModule> {
        self.compile_source(gpu, self.source)
    }

    /// Compiles generated source that belongs to this kernel (same name, entry and checks).
    pub fn compile_source(&self, gpu: &GpuContext, source: &str) -> Result<wgpu::ShaderModule> {
        compile_wgsl(gpu, self.file(), source, self.checks)
    }

    /// Compiles the kernel and builds its compute pipeline with the given override constants.
    pub fn pipeline(
        &self,
        gpu: &GpuContext,
        source: &str,
        constants: &[(&str, f64)],
    ) -> Result<wgpu::ComputePipeline> {
        gpu.check_cancelled(self.name)?;
        let module = self.compile_source(gpu, source)?;
        let label = format!("divlab.{}", self.name);
        create_pipeline(gpu, &label, &module, self.entry, constants)
    }
}

/// The compute pipeline of `entry` in `module` with an automatic layout, under an error scope so
/// that what the device rejects comes back as an error, not a panic.
pub fn create_pipeline(
    gpu: &GpuContext,
    label: &str,
    module: &wgpu::ShaderModule,
    entry: &str,
    constants: &[(&str, f64)],
) -> Result<wgpu::ComputePipeline> {
    let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
    // The driver compiles here; a long kernel on a slow driver can take minutes.
    let _armed = super::watchdog::arm(&format!("compiling {label}"));
    let what = format!("pipeline {label}");
    let pipeline = super::translator::translating(&what, || {
        gpu.compiling(|| {
            gpu.device
                .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(label),
                    layout: None,
                    module,
                    entry_point: Some(entry),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants,
                        zero_initialize_workgroup_memory: true,
                    },
                    cache: None,
                })
        })
    });
    let scoped = pollster::block_on(scope.pop());
    let pipeline = pipeline?;
    if let Some(e) = scoped {
        return Err(Error::Wgpu {
            what,
            reason: e.to_string(),
        });
    }
    Ok(pipeline)
}

/// Compiles WGSL into a shader module: naga first (for located errors), then wgpu under an
/// error scope (for anything the device itself rejects, such as a missing feature).
pub fn compile_wgsl(
    gpu: &GpuContext,
    file: &str,
    source: &str,
    checks: RuntimeChecks,
) -> Result<wgpu::ShaderModule> {
    check_wgsl(file, source)?;
    compile_checked_wgsl(gpu, file, source, checks)
}

/// [`compile_wgsl`] for a source that [`check_wgsl`] has passed already (a kernel parsed once
/// by its caller): only the device's compiler reads it again.
pub fn compile_checked_wgsl(
    gpu: &GpuContext,
    file: &str,
    source: &str,
    checks: RuntimeChecks,
) -> Result<wgpu::ShaderModule> {
    let prepared = prepare_for_naga(source);
    let desc = wgpu::ShaderModuleDescriptor {
        label: Some(file),
        source: wgpu::ShaderSource::Wgsl(prepared.into()),
    };
    let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let _armed = super::watchdog::arm(&format!("compiling {file}"));
    let module = super::translator::translating(&format!("shader module {file}"), || {
        gpu.compiling(|| match checks {
            RuntimeChecks::Checked => gpu.device.create_shader_module(desc),
            // SAFETY: only kernels whose loops and indices are bounded by construction are
            // marked `UncheckedBoundedByConstruction`; see each kernel's definition.
            RuntimeChecks::UncheckedBoundedByConstruction => unsafe {
                gpu.device
                    .create_shader_module_trusted(desc, wgpu::ShaderRuntimeChecks::unchecked())
            },
        })
    });
    let scoped = pollster::block_on(scope.pop());
    let module = module?;
    if let Some(e) = scoped {
        let reason = e.to_string();
        if let Some(missing) = missing_capability(file, &reason) {
            return Err(missing);
        }
        return Err(Error::Wgpu {
            what: format!("shader module {file}"),
            reason,
        });
    }
    Ok(module)
}

/// A shader capability the device lacks, from wgpu's "Capability Capabilities(NAME) is
/// required" or naga's "requires the `naga::valid::Capabilities::NAME` flag", as
/// [`Error::Unsupported`] naming the feature to look for.
fn missing_capability(file: &str, reason: &str) -> Option<Error> {
    if let Some(extension) = missing_extension(reason) {
        return Some(Error::Unsupported {
            what: file.to_owned(),
            feature: match extension {
                "f16" => "16-bit floats (`enable f16;`; wgpu's SHADER_F16, which wgpu's GL \
                          backend lacks): profile it on an adapter that has it (`shader_f16` in \
                          `divlab adapters --json -`)"
                    .to_owned(),
                "subgroups" => "subgroup operations, which the kernel uses (`enable subgroups;`, \
                                wgpu's SUBGROUP; the `subgroups` column of `divlab adapters` \
                                shows which adapters have them)"
                    .to_owned(),
                other => format!("the WGSL extension `{other}` (`enable {other};`)"),
            },
        });
    }
    let name = ["Capabilities(", "Capabilities::"]
        .iter()
        .find_map(|opening| reason.split(opening).nth(1))?;
    let name: String = name
        .chars()
        .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
        .collect();
    if name.is_empty() {
        return None;
    }
    let feature = match name.as_str() {
        "SHADER_FLOAT32_ATOMIC" => "atomic<f32> (wgpu's SHADER_FLOAT32_ATOMIC; Vulkan's \
             VK_EXT_shader_atomic_float, Metal 3): profile it on an adapter that has it \
             (`divlab adapters`)"
            .to_owned(),
        "SUBGROUP" | "SUBGROUP_BARRIER" => format!(
            "subgroup operations, which the kernel uses (`enable subgroups;`, wgpu's {name}; \
             the `subgroups` column of `divlab adapters` shows which adapters have them)"
        ),
        "FLOAT64" => "64-bit floats (`f64`; wgpu's SHADER_F64, Vulkan's shaderFloat64, which \
             Metal and many mobile GPUs lack): profile it on an adapter that has it (`divlab \
             adapters`)"
            .to_owned(),
        "SHADER_INT64" | "SHADER_INT64_ATOMIC_MIN_MAX" | "SHADER_INT64_ATOMIC_ALL_OPS" => format!(
            "64-bit integers or their atomics (`i64`/`u64`; wgpu's {name}): profile it on an \
             adapter that has it (`divlab adapters`)"
        ),
        _ => format!("the shader capability {name}"),
    };
    Some(Error::Unsupported {
        what: file.to_owned(),
        feature,
    })
}

/// The `enable` extension naga's front end refused for this device: "the `f16` extension is
/// not supported in the current environment".
fn missing_extension(reason: &str) -> Option<&str> {
    let (before, _) =
        reason.split_once("` extension is not supported in the current environment")?;
    before.rsplit_once('`').map(|(_, name)| name)
}

#[cfg(test)]
mod tests {
    use super::missing_capability;
    use crate::Error;

    /// Both of wgpu's wordings of a missing capability become the feature to look for.
    #[test]
    fn a_missing_capability_names_the_feature() {
        let feature = |reason: &str| match missing_capability("k.wgsl", reason) {
            Some(Error::Unsupported { feature, .. }) => feature,
            other => panic!("{reason}: {other:?}"),
        };
        let naga = "Shader validation error: Type [0] '' is invalid\n = Using `f64` values \
                    requires the `naga::valid::Capabilities::FLOAT64` flag";
        assert!(
            feature(naga).starts_with("64-bit floats"),
            "{}",
            feature(naga)
        );
        let wgpu = "Capability Capabilities(SHADER_INT64_ATOMIC_ALL_OPS) is required";
        assert!(feature(wgpu).contains("SHADER_INT64_ATOMIC_ALL_OPS"));
        let subgroups = "Capability Capabilities(SUBGROUP) is required";
        assert!(feature(subgroups).starts_with("subgroup operations"));
        let f16 = "Shader 'k.wgsl' parsing error: the `f16` extension is not supported in the \
                   current environment\n  ┌─ wgsl:1:8";
        assert!(feature(f16).starts_with("16-bit floats (`enable f16;`"));
        assert!(missing_capability("k.wgsl", "Capabilities::lowercase").is_none());
        assert!(missing_capability("k.wgsl", "some other validation error").is_none());
    }
}
