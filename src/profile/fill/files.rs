//! `file:` fills held against their buffer from the file's size alone, before a byte is read:
//! a file larger than the adapter can bind is refused with advice that can work (not a `--len`
//! the binding limit then refuses), and a file shorter than its buffer gets a note that the
//! rest is zeros.

use super::{Fill, Resolved};
use crate::profile::error::{Error, Flag, Result};
use crate::profile::kernel::{Binding, BufferSize, KernelInterface};

/// The length of a runtime-sized array whose buffer holds `bytes` bytes (the fewest elements
/// that cover them); `None` for a fixed size.
pub(super) fn elements_for(size: BufferSize, bytes: u64) -> Option<u64> {
    match size {
        BufferSize::RuntimeArray { base, stride, .. } => {
            Some(bytes.saturating_sub(base).div_ceil(stride.max(1)))
        }
        BufferSize::Fixed(_) => None,
    }
}

/// The size of a `file:` fill's file, where it is a regular file (others are refused when the
/// fill is read, with their own message).
fn file_len(fill: &Fill) -> Option<u64> {
    match fill {
        Fill::File(path) => crate::user_file::check_regular(path).ok().map(|m| m.len()),
        _ => None,
    }
}

/// Refuses a `file:` fill of a runtime-sized array whose file needs more than `max` bytes, the
/// binding limit named `limit`: no `--len` can fit it, so the message says what can.
pub(super) fn check_file_limit(
    binding: &Binding,
    fill: &Fill,
    limit: &str,
    max: u64,
) -> Result<()> {
    let (Some(len), Fill::File(path)) = (file_len(fill), fill) else {
        return Ok(());
    };
    let Some(n) = elements_for(binding.size, len) else {
        // A fixed size: the fill's read says the file is larger than the type.
        return Ok(());
    };
    if binding.size.bytes(n) <= max {
        return Ok(());
    }
    let fits = binding.size.len_for(max);
    Err(Error::BadFill {
        flag: Some(Flag::Buffer),
        binding: Some(binding.slot()),
        why: format!(
            "file:{} has {len} bytes, more than {} can hold on this adapter ({limit} is {max} \
             bytes: {fits} elements); give a file of at most {max} bytes, or profile on an \
             adapter with larger limits (`divlab adapters`)",
            path.display(),
            binding.label()
        ),
    })
}

/// Notes for the report: each `file:` fill shorter than its buffer, where the rest of the
/// buffer is zeros, and how to size a runtime-sized array to the file. `resolved` is
/// [`super::resolve`]'s; `default_len`, a runtime-sized array's length without `--len`.
pub fn file_notes(
    interface: &KernelInterface,
    resolved: &[Resolved],
    default_len: u64,
) -> Vec<String> {
    resolved
        .iter()
        .filter_map(|r| {
            let binding = &interface.bindings[r.index];
            let len = file_len(&r.fill)?;
            let bytes = binding.size.bytes(r.len.unwrap_or(default_len));
            (len < bytes).then(|| short_file_note(binding, &r.fill, len, bytes))
        })
        .collect()
}

/// The note for a `file:` fill of `len` bytes in a buffer of `bytes`. The `--len` hint is left
/// out where the array is already the shortest that holds the file (its size is no multiple of
/// the stride).
fn short_file_note(binding: &Binding, fill: &Fill, len: u64, bytes: u64) -> String {
    let hint = match elements_for(binding.size, len) {
        Some(n) if n > 0 && binding.size.bytes(n) < bytes => format!(
            "; pass --len {}={n} to size the array to the file",
            binding.name
        ),
        _ => String::new(),
    };
    format!(
        "{} takes {bytes} bytes and {fill} holds {len}: the last {} bytes are zeros{hint}",
        binding.label(),
        bytes - len
    )
}
