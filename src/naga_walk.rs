//! A walk over the statements of naga's IR, for the reads that look at every statement of a
//! function whatever block it sits in (the profiler's cap message and call graph).

use naga::{Block, Statement};

/// Calls `visit` on every statement of `block` and of the blocks nested in it, each statement
/// before the blocks it holds.
pub(crate) fn each_statement<'a>(block: &'a Block, visit: &mut impl FnMut(&'a Statement)) {
    for statement in block.iter() {
        visit(statement);
        match statement {
            Statement::Block(inner) => each_statement(inner, visit),
            Statement::If { accept, reject, .. } => {
                each_statement(accept, visit);
                each_statement(reject, visit);
            }
            Statement::Switch { cases, .. } => {
                for case in cases {
                    each_statement(&case.body, visit);
                }
            }
            Statement::Loop {
                body, continuing, ..
            } => {
                each_statement(body, visit);
                each_statement(continuing, visit);
            }
            _ => {}
        }
    }
}
