//! Keeps the instrumented module's WGSL within naga's reader: naga writes an expression tree
//! inline, a parenthesis per operator, and its WGSL reader stops at 200 nested levels, so a
//! chain of 200 `+`s the user wrote without parentheses (which naga reads fine) could not be
//! read back. An expression that would sit [`MAX_INLINE_DEPTH`] levels deep is named instead,
//! which the writer turns into a `let`: the same value, and the text stays shallow.
//!
//! Blocks nest deeper in naga's text than in the user's too: each `else if` is written as an
//! `else` block holding an `if`, and each `for` body as a block inside its `loop`. WGSL allows
//! [`MAX_BRACE_DEPTH`] nested braces, so a chain of about 125 `else if`s, or loops nested about
//! 60 deep, cannot be written back: [`deepest_braces`] finds that before the writer does, so
//! the user is told which line, not a divlab bug.

use naga::{Block, Expression, Function, Handle, Module, Statement};

use crate::source_map::SourceMap;

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

/// The most braces WGSL nests in a function (§ 2.4 Limits), which naga's reader enforces.
pub(super) const MAX_BRACE_DEPTH: u32 = 127;

/// The deepest brace nesting naga's writer gives any function of `module`, and the line of the
/// deepest statement that has one in `lines` (divlab's own statements have none).
pub(super) fn deepest_braces(module: &Module, lines: &SourceMap) -> (u32, Option<u32>) {
    let functions = (module.functions.iter().map(|(_, f)| f))
        .chain(module.entry_points.iter().map(|ep| &ep.function));
    let mut deepest = (0, None);
    for function in functions {
        // The function's own braces are the first level.
        braces_in(&function.body, 1, lines, &mut deepest);
    }
    deepest
}

/// Records in `deepest` how deep the statements of `block`, written `depth` braces deep, and
/// of the blocks they hold, sit.
fn braces_in(block: &Block, depth: u32, lines: &SourceMap, deepest: &mut (u32, Option<u32>)) {
    for (statement, span) in block.span_iter() {
        if let Some(line) = lines.span_line(*span)
            && (deepest.1.is_none() || depth > deepest.0)
        {
            deepest.1 = Some(line);
        }
        deepest.0 = deepest.0.max(depth);
        let mut inner =
            |block: &Block, levels: u32| braces_in(block, depth + levels, lines, deepest);
        match statement {
            Statement::Block(body) => inner(body, 1),
            Statement::If { accept, reject, .. } => {
                inner(accept, 1);
                inner(reject, 1);
            }
            // `switch x { case 0 { ... } }`
            Statement::Switch { cases, .. } => cases.iter().for_each(|c| inner(&c.body, 2)),
            // `loop { ... continuing { ... } }`
            Statement::Loop {
                body, continuing, ..
            } => {
                inner(body, 1);
                inner(continuing, 2);
            }
            _ => {}
        }
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
        let wgsl = written(&module);
        assert!(wgsl.contains("let divlab_part"), "{wgsl}");
        naga::front::wgsl::parse_str(&wgsl).expect("naga reads the module back");
    }

    /// naga's WGSL of `module`.
    fn written(module: &Module) -> String {
        let info = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(module)
        .unwrap();
        naga::back::wgsl::write_string(module, &info, naga::back::wgsl::WriterFlags::empty())
            .unwrap()
    }

    /// Whether naga reads back what it writes of `source`.
    fn round_trips(source: &str) -> bool {
        let module = naga::front::wgsl::parse_str(source).unwrap();
        naga::front::wgsl::parse_str(&written(&module)).is_ok()
    }

    fn braces(source: &str) -> (u32, Option<u32>) {
        let module = naga::front::wgsl::parse_str(source).unwrap();
        deepest_braces(&module, &SourceMap::new(source))
    }

    /// An `if` and `n` `else if`s, one a line from line 4.
    fn else_if_chain(n: u32) -> String {
        let mut s = String::from(
            "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
             @compute @workgroup_size(64)\n\
             fn main(@builtin(local_invocation_index) i: u32) {\n\
             if i == 0u { out[i] = 0u; }\n",
        );
        for k in 1..=n {
            s += &format!("else if i == {k}u {{ out[i] = {k}u; }}\n");
        }
        s + "}\n"
    }

    /// `n` nested `for` loops.
    fn loop_nest(n: u32) -> String {
        let mut s = String::from(
            "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
             @compute @workgroup_size(64)\n\
             fn main(@builtin(local_invocation_index) i: u32) {\n",
        );
        for k in 0..n {
            s += &format!("for (var v{k} = 0u; v{k} < out[i]; v{k}++) {{\n");
        }
        s += "out[i] += 1u;\n";
        s + &"}\n".repeat(n as usize + 1)
    }

    /// Where naga's writer goes past WGSL's limit, and only there, the count says so: checked
    /// against naga's reader on both sides of the limit.
    #[test]
    fn the_brace_count_matches_what_naga_reads_back() {
        for family in [
            (120..130).map(else_if_chain).collect::<Vec<_>>(),
            (60..67).map(loop_nest).collect(),
        ] {
            let mut read = Vec::new();
            for source in family {
                let (depth, line) = braces(&source);
                assert!(line.is_some());
                read.push(round_trips(&source));
                assert_eq!(
                    depth <= MAX_BRACE_DEPTH,
                    read[read.len() - 1],
                    "depth {depth}"
                );
            }
            assert!(
                read.contains(&true) && read.contains(&false),
                "the limit is crossed"
            );
        }
    }

    #[test]
    fn the_deepest_line_is_the_last_else_if() {
        assert_eq!(braces(&else_if_chain(3)), (5, Some(7)));
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
