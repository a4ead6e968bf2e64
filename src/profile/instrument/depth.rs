//! Keeps the instrumented module's WGSL within naga's reader: naga writes an expression tree
//! inline, a parenthesis per operator, and its WGSL reader stops at 200 nested levels, so a
//! chain of 200 `+`s the user wrote without parentheses (which naga reads fine) could not be
//! read back. An expression that would sit [`MAX_INLINE_DEPTH`] levels deep is named instead,
//! which the writer turns into a `let`: the same value, and the text stays shallow.

use naga::{Expression, Function, Handle, Module};

/// The deepest expression nesting written inline; well under the reader's 200.
const MAX_INLINE_DEPTH: u32 = 64;

/// Names every expression of `module`'s functions that would be written deeper than
/// [`MAX_INLINE_DEPTH`]. A module without such chains is left as it is.
pub(super) fn name_deep_expressions(module: &mut Module) {
    for (_, function) in module.functions.iter_mut() {
        name_in(function);
    }
    for entry_point in &mut module.entry_points {
        name_in(&mut entry_point.function);
    }
}

fn name_in(function: &mut Function) {
    // Operands always have lower handles than the expressions they feed.
    let mut depth = vec![0u32; function.expressions.len()];
    let mut named = Vec::new();
    for (handle, expression) in function.expressions.iter() {
        let mut deepest = 0;
        for_each_operand(expression, |operand| {
            if !function.named_expressions.contains_key(&operand) {
                deepest = deepest.max(depth[operand.index()]);
            }
        });
        let d = deepest + 1;
        if d >= MAX_INLINE_DEPTH && !expression.needs_pre_emit() {
            named.push(handle);
            depth[handle.index()] = 0;
        } else {
            depth[handle.index()] = d;
        }
    }
    for handle in named {
        function
            .named_expressions
            .insert(handle, format!("divlab_part{}", handle.index()));
    }
}

/// Calls `visit` on each expression `e` is written with.
fn for_each_operand(e: &Expression, mut visit: impl FnMut(Handle<Expression>)) {
    use Expression as E;
    let mut one = |h: Option<Handle<Expression>>| h.into_iter().for_each(&mut visit);
    match *e {
        E::Access { base, index } => {
            one(Some(base));
            one(Some(index));
        }
        E::AccessIndex { base: h, .. }
        | E::Splat { value: h, .. }
        | E::Swizzle { vector: h, .. }
        | E::Load { pointer: h }
        | E::Unary { expr: h, .. }
        | E::As { expr: h, .. }
        | E::Relational { argument: h, .. }
        | E::Derivative { expr: h, .. }
        | E::ArrayLength(h) => one(Some(h)),
        E::Binary { left, right, .. } => {
            one(Some(left));
            one(Some(right));
        }
        E::Select {
            condition,
            accept,
            reject,
        } => [condition, accept, reject]
            .into_iter()
            .for_each(|h| one(Some(h))),
        E::Math {
            arg,
            arg1,
            arg2,
            arg3,
            ..
        } => [Some(arg), arg1, arg2, arg3].into_iter().for_each(one),
        E::Compose { ref components, .. } => components.iter().for_each(|&h| one(Some(h))),
        E::ImageSample {
            coordinate,
            array_index,
            offset,
            depth_ref,
            ..
        } => [Some(coordinate), array_index, offset, depth_ref]
            .into_iter()
            .for_each(one),
        E::ImageLoad {
            coordinate,
            array_index,
            sample,
            level,
            ..
        } => [Some(coordinate), array_index, sample, level]
            .into_iter()
            .for_each(one),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_chain_is_cut_into_lets_that_naga_reads_back() {
        let chain = " + 1u".repeat(300);
        let source = format!(
            "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
             @compute @workgroup_size(1) fn main() {{ out[0] = out[1]{chain}; }}\n"
        );
        let mut module = naga::front::wgsl::parse_str(&source).unwrap();
        name_deep_expressions(&mut module);
        let info = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .unwrap();
        let wgsl =
            naga::back::wgsl::write_string(&module, &info, naga::back::wgsl::WriterFlags::empty())
                .unwrap();
        assert!(wgsl.contains("let divlab_part"), "{wgsl}");
        naga::front::wgsl::parse_str(&wgsl).expect("naga reads the module back");
    }

    #[test]
    fn a_short_chain_is_left_inline() {
        let source = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
             @compute @workgroup_size(1) fn main() { out[0] = out[1] + 1u + 2u; }\n";
        let mut module = naga::front::wgsl::parse_str(source).unwrap();
        let before = module.entry_points[0].function.named_expressions.len();
        name_deep_expressions(&mut module);
        assert_eq!(
            module.entry_points[0].function.named_expressions.len(),
            before
        );
    }
}
