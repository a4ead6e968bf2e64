//! Where a loop stands in naga's IR: the loop statement on a line, and the loops around it or
//! around a call, for the bound trace (`bound.rs`), the spin (`spin.rs`) and the cap message.

use naga::{Block, Expression, Handle, Statement};

use crate::source_map::SourceMap;

/// The block that holds the first loop statement on `line`, and the loop's index in it.
fn loop_place<'a>(
    block: &'a Block,
    lines: &SourceMap<'_>,
    line: u32,
) -> Option<(&'a Block, usize)> {
    block
        .span_iter()
        .enumerate()
        .find_map(|(at, (statement, span))| match statement {
            Statement::Loop { .. } if lines.span_line(*span) == Some(line) => Some((block, at)),
            Statement::Loop {
                body, continuing, ..
            } => loop_place(body, lines, line).or_else(|| loop_place(continuing, lines, line)),
            Statement::Block(inner) => loop_place(inner, lines, line),
            Statement::If { accept, reject, .. } => {
                loop_place(accept, lines, line).or_else(|| loop_place(reject, lines, line))
            }
            Statement::Switch { cases, .. } => {
                cases.iter().find_map(|c| loop_place(&c.body, lines, line))
            }
            _ => None,
        })
}

/// The body, `continuing` and `break if` of the first loop statement on `line`.
pub(super) fn find_loop<'a>(
    block: &'a Block,
    lines: &SourceMap<'_>,
    line: u32,
) -> Option<(&'a Block, &'a Block, Option<Handle<Expression>>)> {
    let (holder, at) = loop_place(block, lines, line)?;
    match &holder[at] {
        Statement::Loop {
            body,
            continuing,
            break_if,
        } => Some((body, continuing, *break_if)),
        _ => None,
    }
}

/// The value stored to `local` by the last statement before the first loop statement on `line`
/// (the start of a `for`'s counter: `for (var j = row_ptr[i]; ...)`), `Emit`s passed over.
pub(super) fn stored_before_loop(
    block: &Block,
    lines: &SourceMap<'_>,
    line: u32,
    local: Handle<naga::LocalVariable>,
    expressions: &naga::Arena<Expression>,
) -> Option<Handle<Expression>> {
    let (holder, at) = loop_place(block, lines, line)?;
    let before = holder[..at]
        .iter()
        .rev()
        .find(|s| !matches!(s, Statement::Emit(_)))?;
    match *before {
        Statement::Store { pointer, value } => {
            matches!(expressions[pointer], Expression::LocalVariable(v) if v == local)
                .then_some(value)
        }
        _ => None,
    }
}

/// The lines of the loops around the first loop statement on `line`, innermost first; `None`
/// where no loop stands on `line`.
pub(super) fn enclosing_loops(block: &Block, lines: &SourceMap<'_>, line: u32) -> Option<Vec<u32>> {
    loops_around(block, lines, &|statement, at| {
        matches!(statement, Statement::Loop { .. }) && at == Some(line)
    })
}

/// The lines of the loops around the first statement that `is_it` picks (given the statement
/// and its line), innermost first; `None` where it picks none.
pub(super) fn loops_around(
    block: &Block,
    lines: &SourceMap<'_>,
    is_it: &dyn Fn(&Statement, Option<u32>) -> bool,
) -> Option<Vec<u32>> {
    block.span_iter().find_map(|(statement, span)| {
        let line = lines.span_line(*span);
        if is_it(statement, line) {
            return Some(Vec::new());
        }
        let inner = |blocks: &[&Block], around: Option<u32>| {
            blocks.iter().find_map(|b| {
                let mut found = loops_around(b, lines, is_it)?;
                found.extend(around);
                Some(found)
            })
        };
        match statement {
            Statement::Loop {
                body, continuing, ..
            } => inner(&[body, continuing], line),
            Statement::Block(b) => inner(&[b], None),
            Statement::If { accept, reject, .. } => inner(&[accept, reject], None),
            Statement::Switch { cases, .. } => {
                inner(&cases.iter().map(|c| &c.body).collect::<Vec<_>>(), None)
            }
            _ => None,
        }
    })
}

/// The condition of a loop's leading exit test (`if c {} else { break; }`, as naga writes
/// `for` and `while`, or `if c { break; }`), else its `break if`; and whether the loop runs
/// while it holds (the first form) or leaves when it does.
pub(super) fn exit_condition(
    body: &Block,
    break_if: Option<Handle<Expression>>,
) -> Option<(Handle<Expression>, bool)> {
    let is_break = |b: &Block| matches!(b.iter().collect::<Vec<_>>()[..], [Statement::Break]);
    let first = body.iter().find(|s| !matches!(s, Statement::Emit(_)));
    match first {
        Some(Statement::If {
            condition,
            accept,
            reject,
        }) if accept.is_empty() && is_break(reject) => Some((*condition, true)),
        Some(Statement::If {
            condition,
            accept,
            reject,
        }) if is_break(accept) && reject.is_empty() => Some((*condition, false)),
        _ => break_if.map(|c| (c, false)),
    }
}
