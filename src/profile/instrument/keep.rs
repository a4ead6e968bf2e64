//! Keeps every binding the user's entry point uses in the instrumented kernel's interface.
//!
//! WGSL's `_ = &buffer;` makes a binding part of an entry point's interface without reading it
//! (kernels declare a shared layout that way). naga keeps the use in its IR, but its WGSL writer
//! drops a phony assignment of a pointer, so the instrumented text no longer uses the binding:
//! wgpu's layout for it then has one binding fewer than the bind group divlab makes from the
//! kernel's interface, and the pipeline is rejected. Each such binding gets its phony
//! assignment back at the top of the entry point's body.

use naga::{AddressSpace, Module, TypeInner};

/// `wgsl` (naga's text of `instrumented`, read back as `written`) with a phony assignment at the
/// top of entry point `written_entry` for each binding `instrumented` uses and `written` lost.
/// `None` when nothing was lost.
pub(super) fn restore_phony_uses(
    instrumented: (&Module, &naga::valid::ModuleInfo),
    written: (&Module, &naga::valid::ModuleInfo),
    wgsl: &str,
    written_entry: &str,
) -> Option<String> {
    let (module, info) = instrumented;
    let uses = info.get_entry_point(0);
    let (w_module, w_info) = written;
    let w_uses = w_info.get_entry_point(0);
    let mut phony = String::new();
    for (handle, var) in module.global_variables.iter() {
        let Some(binding) = &var.binding else {
            continue;
        };
        if uses[handle].is_empty() {
            continue;
        }
        // Entry points may share a slot between variables (a texture one reads, a storage
        // texture another writes): the slot is lost only where no variable at it is used, and
        // it is this variable's, by its name (naga's namer may append `_` to it).
        let at_slot: Vec<_> = (w_module.global_variables.iter())
            .filter(|(_, w)| w.binding.as_ref() == Some(binding))
            .collect();
        if at_slot.iter().any(|(h, _)| !w_uses[*h].is_empty()) {
            continue;
        }
        let own = |w: &naga::GlobalVariable| match (&w.name, &var.name) {
            (Some(w), Some(v)) => w == v || w.strip_suffix('_') == Some(v),
            _ => false,
        };
        let lost = at_slot.into_iter().find(|(_, w)| own(w));
        if let Some((_, w)) = lost {
            let name = w.name.as_deref().expect("filtered on a name");
            // Buffers are taken by pointer; textures and samplers are values a phony takes.
            let by_pointer = matches!(
                w.space,
                AddressSpace::Storage { .. } | AddressSpace::Uniform
            ) && !matches!(
                w_module.types[w.ty].inner,
                TypeInner::Image { .. } | TypeInner::Sampler { .. }
            );
            let at = if by_pointer { "&" } else { "" };
            phony.push_str(&format!(" _ = {at}{name};"));
        }
    }
    if phony.is_empty() {
        return None;
    }
    let open = body_start(wgsl, written_entry)?;
    Some(format!("{}{phony}{}", &wgsl[..open], &wgsl[open..]))
}

/// The byte offset just after the `{` that opens `fn name`'s body.
fn body_start(wgsl: &str, name: &str) -> Option<usize> {
    let header = format!("fn {name}(");
    let start = wgsl.find(&header)? + header.len();
    let mut depth = 1usize;
    let mut at = start;
    for (i, b) in wgsl[start..].bytes().enumerate() {
        match b {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    at = start + i;
                    break;
                }
            }
            _ => {}
        }
    }
    Some(at + wgsl[at..].find('{')? + 1)
}
