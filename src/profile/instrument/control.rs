//! The pure control-flow checks the pass decides by: which statements can take lanes out of
//! a block, which loops can be counted after they end, where a `for`/`while` body's exit test
//! ends, and which functions the entry point reaches. They read the IR and change nothing.

use naga::{Arena, Block, Expression, Handle, Literal, LocalVariable, Module, Span, Statement};

use crate::naga_walk::calls;
use crate::source_map::SourceMap;

/// Whether `statement` can take some lanes out of the block it is in while others go on: a
/// `return` (or `kill`) anywhere in it, or a `break`/`continue` that leaves an enclosing loop
/// (not one of a loop or, for `break`, a `switch` nested in it). Only a branch lets some lanes
/// leave while others stay; a bare `return` ends the block for every lane.
pub(super) fn may_leave(statement: &Statement, in_loop: bool, in_switch: bool) -> bool {
    match statement {
        Statement::If { .. } | Statement::Switch { .. } | Statement::Loop { .. } => {
            escapes(statement, in_loop, in_switch, true)
        }
        _ => false,
    }
}

/// How an `if`'s sides let lanes out of the block it is in ([`may_leave`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Sides {
    /// Neither side lets a lane out: the lanes that reach the `if` run on after it.
    Stay,
    /// Every lane that takes the accept side (`true`) or the reject side (`false`) leaves (the
    /// side ends in a `break`, `continue` or `return`), and none of the other side does.
    Leave(bool),
    /// Anything else: some lanes of a side may leave.
    Other,
}

/// How the sides of `if c { accept } else { reject }` let lanes out.
pub(super) fn sides(accept: &Block, reject: &Block) -> Sides {
    let may = |b: &Block| b.iter().any(|s| escapes(s, false, false, true));
    let ends = |b: &Block| {
        let last = b.iter().rfind(|s| !matches!(s, Statement::Emit(_)));
        matches!(
            last,
            Some(
                Statement::Break | Statement::Continue | Statement::Return { .. } | Statement::Kill
            )
        )
    };
    match (may(accept), may(reject)) {
        (false, false) => Sides::Stay,
        (true, false) if ends(accept) => Sides::Leave(true),
        (false, true) if ends(reject) => Sides::Leave(false),
        _ => Sides::Other,
    }
}

/// How lanes that run `blocks` (an `if`'s sides, a `switch`'s cases) may leave the loop around
/// them: by a `break` of the innermost loop or `switch` around the statement (not one nested
/// in the blocks), and by a `return` or `kill` anywhere in them.
pub(super) fn exits(blocks: &[&Block], in_switch: bool) -> Exits {
    let any = |inside: (bool, bool), returns| {
        (blocks.iter()).any(|b| b.iter().any(|s| leaves(s, inside, (false, returns))))
    };
    Exits {
        // Returns left out, breaks alone; then as if in a loop and a switch, returns alone.
        breaks: any((false, in_switch), false),
        returns: any((true, true), true),
    }
}

/// What [`exits`] finds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Exits {
    /// A `break` that leaves the innermost loop or `switch` around the statement.
    pub breaks: bool,
    /// A `return` or `kill`.
    pub returns: bool,
}

/// Whether `statement` leaves the block it is in: a `return` or `kill` anywhere in it, a
/// `break` that is not of a loop or `switch` nested in it, and (when `continues`) a `continue`
/// that is not of a nested loop.
fn escapes(statement: &Statement, in_loop: bool, in_switch: bool, continues: bool) -> bool {
    leaves(statement, (in_loop, in_switch), (continues, true))
}

/// [`escapes`], with `return`s and `kill`s counted only when `returns`.
fn leaves(
    statement: &Statement,
    (in_loop, in_switch): (bool, bool),
    (continues, returns): (bool, bool),
) -> bool {
    let any = |block: &Block, in_loop, in_switch| {
        block
            .iter()
            .any(|s| leaves(s, (in_loop, in_switch), (continues, returns)))
    };
    match statement {
        Statement::Return { .. } | Statement::Kill => returns,
        Statement::Break => !in_loop && !in_switch,
        Statement::Continue => continues && !in_loop,
        Statement::Block(b) => any(b, in_loop, in_switch),
        Statement::If { accept, reject, .. } => {
            any(accept, in_loop, in_switch) || any(reject, in_loop, in_switch)
        }
        Statement::Switch { cases, .. } => cases.iter().any(|c| any(&c.body, in_loop, true)),
        Statement::Loop {
            body, continuing, ..
        } => any(body, true, in_switch) || any(continuing, true, in_switch),
        _ => false,
    }
}

/// Whether a loop's counts can be hoisted out of it (`hoist.rs`), and if so how many `&&` links
/// its test has: a `for`/`while` whose only way out is its exit test, `if c {} else { break; }`
/// after a chain of short-circuit `&&`s ([`and_links`]; no `||`, no call in the condition),
/// with no `break if`, and no `return` or `break` of it anywhere in its body or `continuing`.
/// Then a lane's trips are its exit-test evaluations less one, every lane that entered leaves
/// at the loop's end, and at every test but its last each of its `&&`s took its accept side.
pub(super) fn hoistable(
    body: &Block,
    continuing: &Block,
    break_if: Option<Handle<Expression>>,
    expressions: &Arena<Expression>,
    (lines, loop_line): (&SourceMap<'_>, u32),
) -> Option<usize> {
    let test = exit_test_len(body, lines, loop_line)?;
    let statements: Vec<&Statement> = body.iter().collect();
    let (test, rest) = statements.split_at(test);
    let (last, before) = test.split_last().expect("an exit test ends in an `if`");
    let leaves = |s: &&Statement| escapes(s, false, false, false);
    let Statement::If {
        condition, accept, ..
    } = last
    else {
        return None;
    };
    let links = and_links(before, expressions)?;
    let chained = match links.last() {
        None => true,
        Some(&local) => accept.is_empty() && loaded_local(*condition, expressions) == Some(local),
    };
    (break_if.is_none()
        && chained
        && !rest.iter().any(leaves)
        && !continuing.iter().any(|s| leaves(&s)))
    .then_some(links.len())
}

/// The locals of a test's chain of `&&`s, in order, when the statements before its exit `if`
/// are nothing else. naga makes `a && b` into `if a { l = b; } else { l = false; }` and reads
/// `l` after it; `a && b && c` into a second such `if` whose condition is that read of `l`. So
/// every link is evaluated at every test, and a lane that leaves took the reject side of each
/// link from the first operand that was false on.
fn and_links(
    before: &[&Statement],
    expressions: &Arena<Expression>,
) -> Option<Vec<Handle<LocalVariable>>> {
    let mut links: Vec<Handle<LocalVariable>> = Vec::new();
    for statement in before {
        match statement {
            Statement::Emit(_) => {}
            Statement::If {
                condition,
                accept,
                reject,
            } => {
                let local = and_link(accept, reject, expressions)?;
                if let Some(&previous) = links.last()
                    && loaded_local(*condition, expressions) != Some(previous)
                {
                    return None;
                }
                links.push(local);
            }
            _ => return None,
        }
    }
    Some(links)
}

/// The local `l` of `if a { l = b; } else { l = false; }` (the accept side: `Emit`s, then the
/// store).
fn and_link(
    accept: &Block,
    reject: &Block,
    expressions: &Arena<Expression>,
) -> Option<Handle<LocalVariable>> {
    let [Statement::Store { pointer, value }] = reject[..] else {
        return None;
    };
    let is_false = matches!(
        expressions[value],
        Expression::Literal(Literal::Bool(false))
    );
    let local = local_at(pointer, expressions).filter(|_| is_false)?;
    let (Statement::Store { pointer, .. }, before) = accept.split_last()? else {
        return None;
    };
    let only_emits = before.iter().all(|s| matches!(s, Statement::Emit(_)));
    (only_emits && local_at(*pointer, expressions) == Some(local)).then_some(local)
}

/// The local `condition` reads, when it is a plain read of one.
fn loaded_local(
    condition: Handle<Expression>,
    expressions: &Arena<Expression>,
) -> Option<Handle<LocalVariable>> {
    match expressions[condition] {
        Expression::Load { pointer } => local_at(pointer, expressions),
        _ => None,
    }
}

/// The local `pointer` points at, when it is one.
fn local_at(
    pointer: Handle<Expression>,
    expressions: &Arena<Expression>,
) -> Option<Handle<LocalVariable>> {
    match expressions[pointer] {
        Expression::LocalVariable(local) => Some(local),
        _ => None,
    }
}

/// How many statements of a loop body are its leading exit test (see [`split_exit_test`]).
fn exit_test_len(block: &Block, lines: &SourceMap<'_>, loop_line: u32) -> Option<usize> {
    let is_break = |b: &Block| matches!(b.iter().collect::<Vec<_>>()[..], [Statement::Break]);
    let is_exit = |s: &Statement| match s {
        Statement::If { accept, reject, .. } => {
            (accept.is_empty() && is_break(reject)) || (is_break(accept) && reject.is_empty())
        }
        _ => false,
    };
    let on_header = |span: &Span| lines.span_lines(*span).is_none_or(|(l, _)| l == loop_line);
    let header = block
        .span_iter()
        .take_while(|(_, span)| on_header(span))
        .count();
    let on_line: Vec<&Statement> = block.iter().take(header).collect();
    on_line.iter().rposition(|s| is_exit(s)).map(|i| i + 1)
}

/// Splits a loop body into its leading exit test and the rest. naga makes a `for`/`while`
/// condition into statements on the loop's own line (`Emit`s, an `if` per short-circuit `&&` or
/// `||`) ending in `if c {} else { break; }`; the test is the longest run of statements on
/// `loop_line` (or without a location) that ends in such an `if`. No such run: an empty test.
pub(super) fn split_exit_test(
    block: Block,
    lines: &SourceMap<'_>,
    loop_line: u32,
) -> (Block, Block) {
    let Some(split) = exit_test_len(&block, lines, loop_line) else {
        return (Block::new(), block);
    };
    let mut test = Block::new();
    let mut rest = Block::new();
    for (i, (statement, span)) in block.span_into_iter().enumerate() {
        if i < split {
            test.push(statement, span);
        } else {
            rest.push(statement, span);
        }
    }
    (test, rest)
}

/// The most times one invocation can enter a function of the module by calls, counted per call
/// statement, not per trip of a loop around it (a callee of a loop counts into private counts,
/// which [`super::Pass`] bounds by the loop cap): the number of call paths from the entry point
/// to it, saturating. WGSL has no recursion, and naga's arena holds a callee before its
/// callers, so one walk from the last function back sees every caller before its callees.
pub(super) fn call_paths(module: &Module) -> u64 {
    let mut paths = vec![0u64; module.functions.len()];
    let mut out = Vec::new();
    calls(&module.entry_points[0].function.body, &mut out);
    for callee in out.drain(..) {
        paths[callee.index()] = paths[callee.index()].saturating_add(1);
    }
    for (handle, function) in module.functions.iter().rev() {
        calls(&function.body, &mut out);
        let mine = paths[handle.index()];
        for callee in out.drain(..) {
            paths[callee.index()] = paths[callee.index()].saturating_add(mine);
        }
    }
    paths.into_iter().fold(1, u64::max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::naga_walk::reachable_functions;
    use crate::shaders::{check_wgsl, prepare_for_naga};

    const KERNEL: &str = "\
fn leaf(v: u32) -> u32 { return v + 1u; }
fn mid(v: u32) -> u32 { return leaf(v) * 2u; }
fn unused() -> u32 { return 0u; }
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var acc = mid(lid);
    if lid > 60u { return; }
    if lid > 50u { acc += 1u; }
    for (var i = 0u; i < lid % 4u; i++) { acc += i; }
    for (var i = 0u; i < lid % 4u; i++) { if acc > 9u { break; } acc += i; }
    for (var i = 0u; i < lid % 4u && acc < 9u; i++) { acc += i; }
    loop {
        if acc > 3u { break; }
        acc += 1u;
    }
    while (acc < 90u && lid > 2u && acc != 7u) { acc += 2u; }
    while (acc < 99u || lid > 2u) { acc += 3u; }
    while (acc < 199u && (lid > 2u || acc == 9u)) { acc += 4u; }
    out[lid] = acc;
}
";

    /// The module, its source map, and the entry point's statements that have a line, with it.
    fn entry() -> (Module, String) {
        let prepared = prepare_for_naga(KERNEL);
        (check_wgsl("k.wgsl", &prepared).unwrap(), prepared)
    }

    fn statement_at<'m>(module: &'m Module, map: &SourceMap<'_>, line: u32) -> &'m Statement {
        let body = &module.entry_points[0].function.body;
        body.span_iter()
            .find(|(s, span)| {
                !matches!(s, Statement::Emit(_)) && map.span_line(**span) == Some(line)
            })
            .map(|(s, _)| s)
            .unwrap_or_else(|| panic!("no statement on line {line}"))
    }

    #[test]
    fn only_a_branch_with_an_exit_lets_some_lanes_leave() {
        let (module, source) = entry();
        let map = SourceMap::new(&source);
        assert!(may_leave(statement_at(&module, &map, 8), false, false));
        assert!(!may_leave(statement_at(&module, &map, 9), false, false));
        // A `break` of the loop itself takes no lanes out of the block around the loop.
        assert!(!may_leave(statement_at(&module, &map, 11), false, false));
        let return_only = Statement::Return { value: None };
        assert!(
            !may_leave(&return_only, false, false),
            "a bare return ends the block"
        );
    }

    #[test]
    fn a_loop_is_hoisted_only_when_its_test_is_its_one_way_out() {
        let (module, source) = entry();
        let map = SourceMap::new(&source);
        let hoisted = |line: u32| match statement_at(&module, &map, line) {
            Statement::Loop {
                body,
                continuing,
                break_if,
            } => {
                let expressions = &module.entry_points[0].function.expressions;
                hoistable(body, continuing, *break_if, expressions, (&map, line))
            }
            other => panic!("line {line} is {other:?}"),
        };
        assert_eq!(hoisted(10), Some(0), "a plain `for`");
        assert_eq!(hoisted(11), None, "a `break` in the body");
        assert_eq!(hoisted(12), Some(1), "a short-circuit `&&` in the test");
        assert_eq!(hoisted(13), None, "a `loop` has no leading test");
        assert_eq!(hoisted(17), Some(2), "a chain of two `&&`s");
        assert_eq!(
            hoisted(18),
            None,
            "an `||`: a lane may go on after either side"
        );
        assert_eq!(hoisted(19), None, "an `&&` of an `||`");
    }

    #[test]
    fn a_for_body_splits_after_its_exit_test() {
        let (module, source) = entry();
        let map = SourceMap::new(&source);
        let Statement::Loop { body, .. } = statement_at(&module, &map, 10) else {
            panic!("line 10 is a loop");
        };
        let (test, rest) = split_exit_test(body.clone(), &map, 10);
        assert!(
            matches!(test.last(), Some(Statement::If { .. })),
            "{test:?}"
        );
        assert!(
            test.iter()
                .all(|s| matches!(s, Statement::Emit(_) | Statement::If { .. }))
        );
        assert_eq!(test.len() + rest.len(), body.len());
        assert!(!rest.is_empty());
        // A `loop` without a leading test has an empty one.
        let Statement::Loop { body, .. } = statement_at(&module, &map, 13) else {
            panic!("line 13 is a loop");
        };
        let (test, rest) = split_exit_test(body.clone(), &map, 13);
        assert!(test.is_empty());
        assert_eq!(rest.len(), body.len());
    }

    #[test]
    fn sides_say_which_lanes_leave() {
        let module = naga::front::wgsl::parse_str(
            "@compute @workgroup_size(64) fn main(@builtin(local_invocation_index) i: u32) {
                 var n = i;
                 loop {
                     if n > 3u { n -= 1u; } else { n += 2u; }
                     if n < 9u {} else { break; }
                     if n == 5u { n += 1u; continue; }
                     if n == 6u { if n > 2u { break; } }
                     n += 1u;
                 }
             }",
        )
        .unwrap();
        let body = &module.entry_points[0].function.body;
        let Some(Statement::Loop { body, .. }) =
            body.iter().find(|s| matches!(s, Statement::Loop { .. }))
        else {
            panic!("a loop");
        };
        let found: Vec<Sides> = body
            .iter()
            .filter_map(|s| match s {
                Statement::If { accept, reject, .. } => Some(sides(accept, reject)),
                _ => None,
            })
            .collect();
        assert_eq!(
            found,
            [
                Sides::Stay,
                Sides::Leave(false),
                Sides::Leave(true),
                Sides::Other
            ]
        );
    }

    #[test]
    fn call_paths_multiply_along_the_call_graph() {
        // `leaf` is called twice from `mid`, which main calls three times: six paths.
        let module = naga::front::wgsl::parse_str(
            "fn leaf() {}
             fn mid() { leaf(); leaf(); }
             fn other() {}
             @compute @workgroup_size(1) fn main() { mid(); mid(); mid(); other(); }",
        )
        .unwrap();
        assert_eq!(call_paths(&module), 6);
        let alone =
            naga::front::wgsl::parse_str("@compute @workgroup_size(1) fn main() {}").unwrap();
        assert_eq!(call_paths(&alone), 1);
    }

    #[test]
    fn reachable_functions_are_the_called_ones_in_arena_order() {
        let (module, _) = entry();
        let names: Vec<&str> = reachable_functions(&module, &module.entry_points[0].function)
            .into_iter()
            .map(|h| module.functions[h].name.as_deref().unwrap_or("?"))
            .collect();
        assert_eq!(names, ["leaf", "mid"]);
    }
}
