//! A walk over the statements of naga's IR, for the reads that look at every statement of a
//! function whatever block it sits in (the profiler's cap message and call graph).

use naga::{Block, Function, Handle, Module, Span, Statement};

/// Calls `visit` on every statement of `block` and of the blocks nested in it, each statement
/// before the blocks it holds.
pub(crate) fn each_statement<'a>(block: &'a Block, visit: &mut impl FnMut(&'a Statement)) {
    each_spanned(block, &mut |statement, _| visit(statement));
}

/// [`each_statement`], with each statement's span.
pub(crate) fn each_spanned<'a>(block: &'a Block, visit: &mut impl FnMut(&'a Statement, Span)) {
    for (statement, span) in block.span_iter() {
        visit(statement, *span);
        match statement {
            Statement::Block(inner) => each_spanned(inner, visit),
            Statement::If { accept, reject, .. } => {
                each_spanned(accept, visit);
                each_spanned(reject, visit);
            }
            Statement::Switch { cases, .. } => {
                for case in cases {
                    each_spanned(&case.body, visit);
                }
            }
            Statement::Loop {
                body, continuing, ..
            } => {
                each_spanned(body, visit);
                each_spanned(continuing, visit);
            }
            _ => {}
        }
    }
}

/// The functions of `module` reachable by calls from `entry`, in arena order.
pub(crate) fn reachable_functions(module: &Module, entry: &Function) -> Vec<Handle<Function>> {
    let mut seen = vec![false; module.functions.len()];
    let mut stack = Vec::new();
    calls(&entry.body, &mut stack);
    while let Some(h) = stack.pop() {
        if !std::mem::replace(&mut seen[h.index()], true) {
            calls(&module.functions[h].body, &mut stack);
        }
    }
    (module.functions.iter())
        .map(|(h, _)| h)
        .filter(|h| seen[h.index()])
        .collect()
}

/// The functions that `block` calls, once per call statement, pushed onto `out`.
pub(crate) fn calls(block: &Block, out: &mut Vec<Handle<Function>>) {
    each_statement(block, &mut |statement| {
        if let Statement::Call { function, .. } = *statement {
            out.push(function);
        }
    });
}
