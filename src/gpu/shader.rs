//! Kernels: WGSL sources from `shaders/`, prepared for naga 30 in one place, compiled with errors
//! that name the file, line and column.

use crate::gpu::GpuContext;
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
    /// One name everywhere: `shaders/<name>.wgsl`, pipeline label `divlab.<name>`.
    pub name: &'static str,
    /// The WGSL text, spec-valid (it keeps `enable subgroups;`).
    pub source: &'static str,
    /// The compute entry point.
    pub entry: &'static str,
    /// Whether wgpu may inject runtime checks.
    pub checks: RuntimeChecks,
}

impl Kernel {
    /// The file the source came from, for error messages.
    pub fn file(&self) -> String {
        format!("shaders/{}.wgsl", self.name)
    }

    /// Compiles the kernel's own source.
    pub fn compile(&self, gpu: &GpuContext) -> Result<wgpu::ShaderModule> {
        self.compile_source(gpu, self.source)
    }

    /// Compiles generated source that belongs to this kernel (same name, entry and checks).
    pub fn compile_source(&self, gpu: &GpuContext, source: &str) -> Result<wgpu::ShaderModule> {
        compile_wgsl(gpu, &self.file(), source, self.checks)
    }

    /// Compiles the kernel and builds its compute pipeline with the given override constants.
    pub fn pipeline(
        &self,
        gpu: &GpuContext,
        source: &str,
        constants: &[(&str, f64)],
    ) -> Result<wgpu::ComputePipeline> {
        let module = self.compile_source(gpu, source)?;
        let label = format!("divlab.{}", self.name);
        let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let pipeline = gpu
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(&label),
                layout: None,
                module: &module,
                entry_point: Some(self.entry),
                compilation_options: wgpu::PipelineCompilationOptions {
                    constants,
                    zero_initialize_workgroup_memory: true,
                },
                cache: None,
            });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(Error::Wgpu {
                what: format!("pipeline {label}"),
                reason: e.to_string(),
            });
        }
        Ok(pipeline)
    }
}

/// naga 30 has no `subgroupElect()`. The lowest active invocation is the one whose exclusive
/// prefix count is zero, which is exactly what `subgroupElect()` returns.
const ELECT_REPLACEMENT: &str = "(subgroupExclusiveAdd(1u) == 0u)";

/// Turns spec-valid WGSL into what naga 30 accepts, keeping line numbers unchanged:
/// - `enable subgroups;` is rejected ("not yet supported"), so it becomes a blank line
///   (and `subgroups` is dropped from a combined `enable` list);
/// - `subgroupElect()` has no definition in naga 30, so it becomes [`ELECT_REPLACEMENT`].
pub fn prepare_for_naga(source: &str) -> String {
    let lines: Vec<String> = source
        .lines()
        .map(|line| {
            let code = line.split("//").next().unwrap_or_default();
            let trimmed = code.trim();
            if trimmed.starts_with("enable ") && trimmed.ends_with(';') {
                let names: Vec<&str> = trimmed["enable ".len()..trimmed.len() - 1]
                    .split(',')
                    .map(str::trim)
                    .filter(|n| !n.is_empty() && *n != "subgroups")
                    .collect();
                if names.is_empty() {
                    String::new()
                } else {
                    format!("enable {};", names.join(", "))
                }
            } else {
                line.replace("subgroupElect()", ELECT_REPLACEMENT)
            }
        })
        .collect();
    lines.join("\n")
}

/// Parses and validates WGSL with naga, the way wgpu will, and reports the first error with its
/// location. `file` names the source in the message.
pub fn check_wgsl(file: &str, source: &str) -> Result<naga::Module> {
    let prepared = prepare_for_naga(source);
    let module = naga::front::wgsl::parse_str(&prepared).map_err(|e| {
        let loc = e.location(&prepared);
        invalid(file, loc, e.emit_to_string_with_path(&prepared, file))
    })?;
    let mut validator = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    );
    validator.validate(&module).map_err(|e| {
        let loc = e.location(&prepared);
        invalid(file, loc, e.emit_to_string_with_path(&prepared, file))
    })?;
    Ok(module)
}

fn invalid(file: &str, loc: Option<naga::SourceLocation>, message: String) -> Error {
    let (line, column) = loc.map_or((0, 0), |l| (l.line_number, l.line_position));
    Error::InvalidWgsl {
        file: file.to_owned(),
        line,
        column,
        message: message.trim_end().to_owned(),
    }
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
    let prepared = prepare_for_naga(source);
    let desc = wgpu::ShaderModuleDescriptor {
        label: Some(file),
        source: wgpu::ShaderSource::Wgsl(prepared.into()),
    };
    let scope = gpu.device.push_error_scope(wgpu::ErrorFilter::Validation);
    let module = match checks {
        RuntimeChecks::Checked => gpu.device.create_shader_module(desc),
        // SAFETY: only kernels whose loops and indices are bounded by construction are marked
        // `UncheckedBoundedByConstruction`; see each kernel's definition.
        RuntimeChecks::UncheckedBoundedByConstruction => unsafe {
            gpu.device
                .create_shader_module_trusted(desc, wgpu::ShaderRuntimeChecks::unchecked())
        },
    };
    if let Some(e) = pollster::block_on(scope.pop()) {
        return Err(Error::Wgpu {
            what: format!("shader module {file}"),
            reason: e.to_string(),
        });
    }
    Ok(module)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enable_directive_becomes_blank_line() {
        let src = "enable subgroups;\nenable f16, subgroups;\nenable subgroups; // why\nfn f() {}";
        assert_eq!(prepare_for_naga(src), "\nenable f16;\n\nfn f() {}");
    }

    #[test]
    fn elect_is_rewritten() {
        let out = prepare_for_naga("if subgroupElect() { }");
        assert_eq!(out, format!("if {ELECT_REPLACEMENT} {{ }}"));
    }

    #[test]
    fn parse_error_names_line() {
        let src = "enable subgroups;\n\nfn f() -> u32 {\n  return 1u +;\n}\n";
        match check_wgsl("bad.wgsl", src) {
            Err(Error::InvalidWgsl { file, line, .. }) => {
                assert_eq!(file, "bad.wgsl");
                assert_eq!(line, 4);
            }
            other => panic!("expected InvalidWgsl, got {other:?}"),
        }
    }
}
