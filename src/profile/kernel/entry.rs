//! Which `@compute` entry point to profile.

use naga::{Module, ShaderStage};

use crate::profile::error::Error as ProfileError;

/// The index in `module.entry_points` of the compute entry point to profile.
pub(super) fn entry_index(
    module: &Module,
    file: &str,
    entry: Option<&str>,
) -> Result<usize, ProfileError> {
    let computes: Vec<(usize, &str)> = module
        .entry_points
        .iter()
        .enumerate()
        .filter(|(_, ep)| ep.stage == ShaderStage::Compute)
        .map(|(i, ep)| (i, ep.name.as_str()))
        .collect();
    let names = || {
        computes
            .iter()
            .map(|(_, n)| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match entry {
        Some(wanted) => {
            if let Some(&(i, _)) = computes.iter().find(|(_, n)| *n == wanted) {
                return Ok(i);
            }
            let other = module.entry_points.iter().find(|ep| ep.name == wanted);
            let what = match other {
                Some(ep) => format!("`{wanted}` is a {:?} entry point, not @compute", ep.stage),
                None => format!("{file} has no entry point `{wanted}`"),
            };
            Err(ProfileError::UnknownEntryPoint {
                wanted: wanted.to_owned(),
                why: if computes.is_empty() {
                    format!("{what}, and it has no @compute entry point at all")
                } else {
                    format!("{what}; its @compute entry points are {}", names())
                },
            })
        }
        None => match computes.as_slice() {
            [(i, _)] => Ok(*i),
            [] => Err(ProfileError::NoEntryPoint {
                file: file.to_owned(),
            }),
            _ => Err(ProfileError::SeveralEntryPoints {
                file: file.to_owned(),
                count: computes.len(),
                names: names(),
            }),
        },
    }
}
