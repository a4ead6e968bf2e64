//! The kernel's resources on the device, its pipelines, and the dispatches that bind them.

use crate::Result;
use crate::gpu::{
    Dispatch, GpuContext, Restore, RuntimeChecks, Written, buffer_with, compile_checked_wgsl,
    compile_wgsl, create_pipeline,
};
use crate::profile::Error as ProfileError;
use crate::profile::explain::{Fills, TexelBound};
use crate::profile::fill::{self, Resolved};
use crate::profile::kernel::{self, Kernel, KernelInterface};
use crate::shaders::bounds::{Unclamped, clamp_indices};

use super::Request;
use super::outputs::InputPreview;
use super::textures::{Texture, make_samplers, make_textures};

/// Everything the kernel binds, made and filled as asked.
pub(super) struct Resources {
    /// One per binding of the interface, in its order; `None` for the immediates block.
    pub buffers: Vec<Option<wgpu::Buffer>>,
    /// The immediates' bytes (empty for none).
    pub immediates: Vec<u8>,
    /// One per texture of the interface, in its order.
    pub textures: Vec<Texture>,
    /// One per sampler of the interface, in its order.
    pub samplers: Vec<wgpu::Sampler>,
    /// What each buffer and the immediates were filled with, for the app.
    pub inputs: Vec<super::outputs::InputPreview>,
    /// Each binding's fill, as the request resolves it.
    pub resolved: Vec<Resolved>,
    /// The dispatch's invocations (the default length of a runtime-sized array).
    pub invocations: u64,
    /// What the kernel reads and writes (`feeds_back`), with copies as filled, in a set that is
    /// timed ([`timed_resources`]; empty otherwise): each timed run starts from the inputs the
    /// counted run ended on, not from what the runs before it left.
    pub restores: Vec<Restore>,
}

impl Resources {
    /// The fills, for what the user is told of them.
    pub fn fills(&self) -> Fills<'_> {
        Fills {
            resolved: &self.resolved,
            invocations: self.invocations,
        }
    }

    /// The bytes the buffers and textures hold (a texture's first mip level), with the
    /// copies of those the kernel reads and writes, where the set is timed.
    pub fn bytes(&self) -> u64 {
        let buffers = self.buffers.iter().flatten().map(wgpu::Buffer::size);
        let textures = (self.textures.iter()).map(Texture::bytes);
        let copies = self.restores.iter().map(Restore::bytes);
        buffers.chain(textures).chain(copies).sum()
    }
}

/// The kernel's buffers, immediates, textures and samplers, filled as asked.
pub(super) fn resources(gpu: &GpuContext, kernel: &Kernel, request: &Request) -> Result<Resources> {
    let interface = &kernel.interface;
    let mut resolved = fill::resolve(interface, &request.buffers, &request.lens)?;
    let invocations = fill::invocations(interface.workgroup_size, request.dispatch);
    let texel_bounds = crate::profile::explain::infer(kernel, &mut resolved, invocations);
    // A size a field was taken for is the texture's, as made, or the array's length.
    let textures = make_textures(gpu, interface, request, &texel_bounds)?;
    let lens: Vec<(String, u64)> = (resolved.iter())
        .map(|r| {
            let b = &interface.bindings[r.index];
            let len = b.size.len_for(b.size.bytes(r.len_or(invocations)));
            (b.name.clone(), len)
        })
        .collect();
    for inferred in resolved.iter_mut().flat_map(|r| r.inferred.iter_mut()) {
        if let fill::Inferred::Size {
            texture,
            dim,
            array,
            value,
            ..
        } = inferred
        {
            *value = if *array {
                (lens.iter()).find(|(n, _)| n == texture).map(|&(_, l)| l)
            } else {
                (textures.iter())
                    .find(|t| interface.textures[t.index].name == *texture)
                    .and_then(|t| t.extent.get(*dim as usize))
                    .map(|&n| u64::from(n))
            };
        }
    }
    // An array's length that is the dispatch's invocations (no --len) is what the rule gives
    // anyway: the rule and its note stand.
    for r in &mut resolved {
        r.inferred.retain(|i| {
            !matches!(i, fill::Inferred::Size { array: true, value: Some(v), .. } if *v == invocations)
        });
    }
    fill::check_limits(interface, &resolved, invocations, &gpu.limits())?;
    let mut immediates = Vec::new();
    let mut buffers = Vec::with_capacity(resolved.len());
    let mut inputs = Vec::with_capacity(resolved.len());
    for r in &resolved {
        let binding = &interface.bindings[r.index];
        let contents = fill::initial(binding, r, invocations)?;
        let uniform_default = !r.given && binding.access == kernel::Access::Uniform;
        inputs.push(super::outputs::InputPreview {
            label: binding.label(),
            fill: if r.given {
                r.fill.to_string()
            } else if uniform_default {
                format!(
                    "{} (default; integer fields: the dispatch's invocations{})",
                    r.fill,
                    inferred_preview(r)
                )
            } else {
                format!("{} (default{})", r.fill, inferred_preview(r))
            },
            bytes: contents.len() as u64,
            first: fill::first_values(binding, &contents),
        });
        let usage = match binding.access {
            kernel::Access::Immediate => {
                immediates = immediate_bytes(gpu, binding, contents)?;
                buffers.push(None);
                continue;
            }
            kernel::Access::Uniform => wgpu::BufferUsages::UNIFORM,
            _ => wgpu::BufferUsages::STORAGE,
        } | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        buffers.push(Some(buffer_with(gpu, &binding.name, &contents, usage)));
    }
    inputs.extend(textures.iter().map(|made| texture_preview(interface, made)));
    Ok(Resources {
        buffers,
        immediates,
        restores: Vec::new(),
        textures,
        samplers: make_samplers(gpu, interface, request),
        inputs,
        resolved,
        invocations,
    })
}

/// [`resources`] for runs that are timed: with copies, as filled, of what the kernel reads and
/// writes, which each timed run puts back first. A set that is only counted or compared runs
/// once and needs none.
pub(super) fn timed_resources(
    gpu: &GpuContext,
    kernel: &Kernel,
    request: &Request,
) -> Result<Resources> {
    let mut made = resources(gpu, kernel, request)?;
    let interface = &kernel.interface;
    let written: Vec<Written<'_>> = (interface.bindings.iter())
        .zip(&made.buffers)
        .filter(|(b, _)| b.feeds_back)
        .filter_map(|(_, buffer)| buffer.as_ref().map(Written::Buffer))
        .chain(
            (made.textures.iter())
                .filter(|t| interface.textures[t.index].feeds_back())
                .map(|t| Written::Texture(&t.texture)),
        )
        .collect();
    made.restores = gpu.keep_filled(&kernel.file, &written)?;
    Ok(made)
}

/// The immediates block's bytes, if the device takes immediates of that size.
fn immediate_bytes(
    gpu: &GpuContext,
    binding: &kernel::Binding,
    contents: Vec<u8>,
) -> Result<Vec<u8>> {
    if !gpu.caps.immediates {
        return Err(crate::Error::Unsupported {
            what: format!("{}, line {}", binding.label(), binding.line),
            feature: "immediates (push constants: wgpu Features::IMMEDIATES, which Vulkan, \
                      Metal and DX12 drivers offer); profile the kernel on such an adapter, or \
                      make the block a `var<uniform>`"
                .to_owned(),
        });
    }
    let max = gpu.limits().max_immediate_size;
    if contents.len() as u64 > u64::from(max) {
        return Err(ProfileError::BadFill {
            flag: None,
            binding: Some(binding.slot()),
            why: format!(
                "{} takes {} bytes, and this adapter's `max_immediate_size` is {max}; make the \
                 block smaller or a `var<uniform>`",
                binding.label(),
                contents.len()
            ),
        }
        .into());
    }
    Ok(contents)
}

/// A dispatch of `pipeline` with the user's resources at their own slots and, where given,
/// divlab's own (the counters, then the lane records) at `@group(counters.0) @binding(0, 1, ..)`.
pub(super) fn dispatch(
    gpu: &GpuContext,
    pipeline: &wgpu::ComputePipeline,
    interface: &KernelInterface,
    resources: &Resources,
    counters: Option<(u32, &[&wgpu::Buffer])>,
    workgroups: [u32; 3],
) -> Dispatch {
    let groups = interface
        .groups()
        .map(|g| g + 1)
        .chain(counters.map(|(g, _)| g + 1))
        .max()
        .unwrap_or(0);
    let bind_groups = (0..groups)
        .map(|group| {
            let buffers = interface
                .bindings
                .iter()
                .zip(&resources.buffers)
                .filter_map(|(b, buffer)| Some((b, buffer.as_ref()?)))
                .filter(|(b, _)| b.group == group)
                .map(|(b, buffer)| wgpu::BindGroupEntry {
                    binding: b.binding,
                    resource: buffer.as_entire_binding(),
                });
            let textures = resources
                .textures
                .iter()
                .map(|t| (&interface.textures[t.index], t))
                .filter(|(t, _)| t.group == group)
                .map(|(t, made)| wgpu::BindGroupEntry {
                    binding: t.binding,
                    resource: wgpu::BindingResource::TextureView(&made.view),
                });
            let samplers = interface
                .samplers
                .iter()
                .zip(&resources.samplers)
                .filter(|(s, _)| s.group == group)
                .map(|(s, sampler)| wgpu::BindGroupEntry {
                    binding: s.binding,
                    resource: wgpu::BindingResource::Sampler(sampler),
                });
            let mut entries: Vec<wgpu::BindGroupEntry<'_>> =
                buffers.chain(textures).chain(samplers).collect();
            if let Some((g, ours)) = counters
                && g == group
            {
                for (binding, buffer) in ours.iter().enumerate() {
                    entries.push(wgpu::BindGroupEntry {
                        binding: binding as u32,
                        resource: buffer.as_entire_binding(),
                    });
                }
            }
            gpu.bind_entries(
                "divlab.profile",
                &pipeline.get_bind_group_layout(group),
                &entries,
            )
        })
        .collect();
    Dispatch {
        pipeline: pipeline.clone(),
        bind_groups,
        workgroups,
        immediates: resources.immediates.clone(),
        restores: resources.restores.clone(),
    }
}

/// The compute pipeline of `entry` in `wgsl`, which naga has validated already where `checked`
/// (the user's own source, in its [`Kernel`](crate::profile::kernel::Kernel)); else naga checks
/// it first, for errors at their line.
pub(super) fn pipeline(
    gpu: &GpuContext,
    file: &str,
    wgsl: &str,
    entry: &str,
    constants: &[(&str, f64)],
    checked: bool,
) -> Result<wgpu::ComputePipeline> {
    // User kernels keep wgpu's injected guards: nothing about their loops or indices is known.
    // wgpu's GL backend injects no index guards, so divlab clamps the indices itself there.
    let clamped;
    let wgsl = if gpu.info.backend == wgpu::Backend::Gl {
        clamped = match clamp_indices(wgsl) {
            Ok(text) => text,
            // The compile below says where naga rejects it.
            Err(Unclamped::Invalid) => wgsl.to_owned(),
            Err(Unclamped::NotBracketed { line }) => {
                return Err(ProfileError::UnboundedIndexOnGl {
                    file: file.to_owned(),
                    line,
                }
                .into());
            }
        };
        clamped.as_str()
    } else {
        wgsl
    };
    // On GL the clamped text is new to naga: check it like any other.
    let module = if checked && gpu.info.backend != wgpu::Backend::Gl {
        compile_checked_wgsl(gpu, file, wgsl, RuntimeChecks::Checked)?
    } else {
        compile_wgsl(gpu, file, wgsl, RuntimeChecks::Checked)?
    };
    gpu.check_cancelled(file)?;
    create_pipeline(gpu, file, &module, entry, constants)
}

/// A texture's input preview: its fill, format and size (its texels are in the pictures).
fn texture_preview(interface: &KernelInterface, made: &Texture) -> InputPreview {
    let t = &interface.textures[made.index];
    let fill = match (made.given, &made.bound) {
        (true, _) => made.fill.to_string(),
        (false, None) => format!("{} (default)", made.fill),
        (false, Some(_)) => format!(
            "{} (default{})",
            made.fill,
            counts_preview(TexelBound::LARGEST, &fill::Steps::Cut)
        ),
    };
    let [w, h, d] = made.extent;
    InputPreview {
        label: format!("{} (texture)", t.label()),
        fill: format!("{fill}, {} {w}×{h}×{d}", kernel::format_name(made.format)),
        bytes: made.bytes(),
        first: Vec::new(),
    }
}

/// What [`fill::Inferred`] changed in `r`'s default, for an input's preview: `; flags: .value
/// = 0`.
fn inferred_preview(r: &fill::Resolved) -> String {
    let inferred = &r.inferred;
    let flags: Vec<String> = inferred
        .iter()
        .filter_map(|i| match i {
            fill::Inferred::Flag { path, value, .. }
            | fill::Inferred::Bound { path, value, .. }
            | fill::Inferred::Size {
                path,
                value: Some(value),
                ..
            } => Some(format!("{path} = {value}")),
            fill::Inferred::Size { value: None, .. }
            | fill::Inferred::Bits { .. }
            | fill::Inferred::Counts { .. } => None,
        })
        .collect();
    let mut out = String::new();
    if !flags.is_empty() {
        out.push_str(&format!(", but from the kernel: {}", flags.join(", ")));
    }
    if inferred
        .iter()
        .any(|i| matches!(i, fill::Inferred::Bits { .. }))
    {
        out.push_str("; integers cut to 0 and 1: cells");
    }
    if let Some((largest, steps)) = r.counts() {
        out.push_str(&counts_preview(largest, steps));
    }
    out
}

/// How a buffer's or texture's loop bounds hold their integers, for an input's preview: `;
/// integers cut to 0..7: loop bounds`.
fn counts_preview(largest: u64, steps: &fill::Steps) -> String {
    match steps {
        fill::Steps::Cut => format!("; integers cut to 0..{largest}: loop bounds"),
        fill::Steps::Ascending => format!("; integers ascending by 0..{largest}: loop bounds"),
        fill::Steps::StartsOf { ends } => {
            format!("; integers ascending by 0..{largest}: starts of ranges that `{ends}` ends")
        }
        fill::Steps::EndsOf { starts, .. } => {
            format!("; integers each 0..{largest} past `{starts}`'s: ends of its ranges")
        }
    }
}
