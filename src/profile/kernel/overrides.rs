//! Overrides: the kernel's pipeline-overridable constants, resolved on the host with naga's
//! own `process_overrides` so that everything after sees plain constants.

use naga::{ArraySize, Handle, Module, Override, TypeInner};

use super::shape::scalar_name;
use super::validate;
use crate::profile::error::{Error as ProfileError, Flag, with_causes};
use crate::source_map::SourceMap;

/// `module` with its pipeline-overridable constants replaced by plain constants: `overrides`
/// gives values by name (or by `@id`), the rest keep their defaults. Uses naga's own
/// `process_overrides`, which also drops what no entry point reaches. An unknown name, a name
/// given twice, or an override with neither a default nor a value is an error that lists the
/// kernel's overridable constants.
pub fn apply_overrides(
    module: &Module,
    source: &str,
    overrides: &[(String, f64)],
) -> Result<Module, ProfileError> {
    let info = validate(module).map_err(|e| ProfileError::BadOverride {
        flag: None,
        constant: None,
        line: 0,
        why: format!("the kernel does not validate: {e}"),
    })?;
    let declared_on = |key: &str| declaration_line(module, source, key);
    let bad = |name: &str, why: String| ProfileError::BadOverride {
        flag: Some(Flag::Override),
        constant: Some(name.to_owned()),
        line: declared_on(name),
        why,
    };
    let mut constants = naga::back::PipelineConstants::default();
    for (name, value) in overrides {
        let Some((_, o)) = find_override(module, name) else {
            return Err(bad(
                name,
                format!(
                    "--override {name}=...: the kernel has no `override` constant `{name}`. {}",
                    list_overrides(module)
                ),
            ));
        };
        // naga keys an override by its @id when it has one, else by its name.
        let key = match (o.id, &o.name) {
            (Some(id), _) => id.to_string(),
            (None, Some(n)) => n.clone(),
            (None, None) => name.clone(),
        };
        if let Some(why) = value_misfit(&module.types[o.ty].inner, *value) {
            return Err(bad(name, format!("--override {name}={value}: {why}")));
        }
        if constants.insert(key, *value).is_some() {
            return Err(bad(
                name,
                format!("--override gives `{name}` twice; give each constant once"),
            ));
        }
    }
    let (resolved, _) =
        naga::back::pipeline_constants::process_overrides(module, &info, None, &constants)
            .map_err(|e| unresolved(module, source, e))?;
    let mut resolved = resolved.into_owned();
    fix_array_sizes(&mut resolved);
    // naga keeps the (now unreferenced) overrides, with their chosen values as defaults, for
    // override-sized arrays. Where no type needs them, drop them so that written WGSL declares
    // each value once, as a `const`.
    let pending = resolved.types.iter().any(|(_, ty)| {
        matches!(
            ty.inner,
            TypeInner::Array {
                size: ArraySize::Pending(_),
                ..
            } | TypeInner::BindingArray {
                size: ArraySize::Pending(_),
                ..
            }
        )
    });
    if !pending && !resolved.overrides.is_empty() {
        let mut plain = resolved.clone();
        plain.overrides = naga::Arena::new();
        if validate(&plain).is_ok() {
            resolved = plain;
        }
    }
    Ok(resolved)
}

/// Why `value` cannot be the value of an override of type `ty`, as naga converts it (an
/// integer type takes whole numbers in its range only); `None` when it can.
fn value_misfit(ty: &TypeInner, value: f64) -> Option<String> {
    let TypeInner::Scalar(scalar) = *ty else {
        return None;
    };
    let (low, high) = match (scalar.kind, scalar.width) {
        (naga::ScalarKind::Uint, 4) => (0.0, f64::from(u32::MAX)),
        (naga::ScalarKind::Sint, 4) => (f64::from(i32::MIN), f64::from(i32::MAX)),
        (naga::ScalarKind::Float, _) if !value.is_finite() => {
            return Some(format!(
                "the constant is a {}, which takes finite numbers only",
                scalar_name(scalar)
            ));
        }
        _ => return None,
    };
    (value.fract() != 0.0 || value < low || value > high).then(|| {
        format!(
            "the constant is a {}, which takes whole numbers from {low} to {high}",
            scalar_name(scalar)
        )
    })
}

/// The value of a `u32`, `i32` or abstract integer literal that fits a `u32` (a size, a
/// constant index).
pub(crate) fn literal_u32(e: &naga::Expression) -> Option<u32> {
    match *e {
        naga::Expression::Literal(naga::Literal::U32(n)) => Some(n),
        naga::Expression::Literal(naga::Literal::I32(n)) => u32::try_from(n).ok(),
        naga::Expression::Literal(naga::Literal::AbstractInt(n)) => u32::try_from(n).ok(),
        _ => None,
    }
}

/// Gives each override-sized array (`array<u32, THREADS>`, as workgroup tiles are declared)
/// its resolved size: naga 30's WGSL writer drops the element type of an array whose size is
/// still an override, so the instrumented module would not parse back. An array whose resolved
/// type the module already has keeps its pending size.
fn fix_array_sizes(module: &mut Module) {
    let value = |o: naga::Handle<naga::Override>| {
        let init = module.overrides[o].init?;
        literal_u32(&module.global_expressions[init]).and_then(std::num::NonZeroU32::new)
    };
    let fixes: Vec<(naga::Handle<naga::Type>, naga::Type)> = module
        .types
        .iter()
        .filter_map(|(handle, ty)| match ty.inner {
            TypeInner::Array {
                base,
                size: ArraySize::Pending(o),
                stride,
            } => Some((
                handle,
                naga::Type {
                    name: ty.name.clone(),
                    inner: TypeInner::Array {
                        base,
                        size: ArraySize::Constant(value(o)?),
                        stride,
                    },
                },
            )),
            _ => None,
        })
        .collect();
    for (handle, ty) in fixes {
        if module.types.get(&ty).is_none() {
            module.types.replace(handle, ty);
        }
    }
}

/// "Overridable constants: `a` (u32, default 4), ..." for messages.
fn list_overrides(module: &Module) -> String {
    if module.overrides.is_empty() {
        return "The kernel declares no `override` constants.".to_owned();
    }
    let items: Vec<String> = module
        .overrides
        .iter()
        .map(|(_, o)| {
            let name = o.name.as_deref().unwrap_or("(unnamed)");
            let id = o.id.map(|id| format!("@id({id}), ")).unwrap_or_default();
            let ty = match module.types[o.ty].inner {
                TypeInner::Scalar(s) => scalar_name(s),
                _ => "?".to_owned(),
            };
            let default = match o.init.map(|h| &module.global_expressions[h]) {
                None => "no default: required".to_owned(),
                Some(naga::Expression::Literal(l)) => format!("default {}", literal(l)),
                Some(_) => "default computed from other constants".to_owned(),
            };
            format!("`{name}` ({id}{ty}, {default})")
        })
        .collect();
    format!("Overridable constants: {}", items.join(", "))
}

/// naga's refusal to resolve the overrides, as the error that says which constant and what to
/// pass.
fn unresolved(
    module: &Module,
    source: &str,
    e: naga::back::pipeline_constants::PipelineConstantError,
) -> ProfileError {
    use naga::back::pipeline_constants::PipelineConstantError as E;
    let (constant, line, what) = match e {
        E::MissingValue(key) => {
            let (name, line) = (
                display_key(module, &key),
                declaration_line(module, source, &key),
            );
            let at = if line > 0 {
                format!(" (line {line})")
            } else {
                String::new()
            };
            let what = format!(
                "the `override` constant `{name}`{at} has no default value: pass --override \
                 {name}=VALUE"
            );
            (Some(name), line, what)
        }
        // An expression of the kernel that the values make invalid (a `% K` with K = 0 in a
        // constant expression, an array size of 0): naga's outer message names only the entry
        // point, its causes say what.
        other => (
            None,
            0,
            format!(
                "with these --override values the kernel is not valid WGSL: {}",
                with_causes(&other)
            ),
        ),
    };
    ProfileError::BadOverride {
        flag: None,
        constant,
        line,
        why: format!("{what}. {}", list_overrides(module)),
    }
}

/// The line of `source` that declares the override keyed `key` (its name or `@id`); 0 where
/// none does.
fn declaration_line(module: &Module, source: &str, key: &str) -> u32 {
    find_override(module, key)
        .and_then(|(handle, _)| SourceMap::new(source).span_line(module.overrides.get_span(handle)))
        .unwrap_or(0)
}

/// The override named `key`, or whose `@id` is `key`.
fn find_override<'m>(module: &'m Module, key: &str) -> Option<(Handle<Override>, &'m Override)> {
    (module.overrides.iter()).find(|(_, o)| {
        o.name.as_deref() == Some(key) || o.id.is_some_and(|id| id.to_string() == key)
    })
}

/// The override naga calls `key` (its @id or its name), by name where it has one.
fn display_key(module: &Module, key: &str) -> String {
    find_override(module, key)
        .and_then(|(_, o)| o.name.clone())
        .unwrap_or_else(|| key.to_owned())
}

fn literal(l: &naga::Literal) -> String {
    use naga::Literal as L;
    match *l {
        L::F64(v) | L::AbstractFloat(v) => v.to_string(),
        L::F32(v) => v.to_string(),
        L::F16(v) => v.to_string(),
        L::U16(v) => v.to_string(),
        L::I16(v) => v.to_string(),
        L::U32(v) => v.to_string(),
        L::I32(v) => v.to_string(),
        L::U64(v) => v.to_string(),
        L::I64(v) | L::AbstractInt(v) => v.to_string(),
        L::Bool(v) => v.to_string(),
    }
}
