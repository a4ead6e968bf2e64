//! The counterfactual of a clause of a short-circuit chain. naga makes an `if` of each `&&`/`||`
//! whose one side evaluates the next clause, so the lanes of a subgroup agree when all of them
//! evaluate it: the variant writes `&` for `&&` (`|` for `||`), whose sides WGSL evaluates
//! both, which leaves every result as it was where the next clause has no side effects. The
//! timed form computes the chain up to the next clause into a `bool` before its statement,
//! either way as the control buffer says; the counted form writes it inline. Both keep every
//! line where it was.

use std::ops::Range;

use naga::{Expression, Function, Handle, Module, Statement};

use super::variant::{
    Control, Form, control_binding, flat, if_end, line_of, line_start, matching_brace, skip_space,
};
use crate::naga_walk::each_statement;
use crate::shaders::{mask_comments, prepare_for_naga};

/// A clause row of a chain, where the source writes it (as the profile's `Clause` gives it).
#[derive(Clone, Copy, Debug)]
pub struct ClauseAt<'a> {
    /// 1-based line and column (bytes) of the clause.
    pub line: u32,
    pub column: u32,
    /// The clause, blanks collapsed.
    pub text: &'a str,
    /// `&&` or `||` after it.
    pub operator: &'a str,
}

/// The chain of one clause row, found in the text: `left operator right`, where `left` is the
/// chain up to the clause and `right` the next clause.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainText {
    /// `&&` or `||`.
    pub operator: &'static str,
    /// Byte range of the chain up to and including the clause.
    pub left: Range<usize>,
    /// Byte range of the next clause.
    pub right: Range<usize>,
    /// Where the timed form computes the chain before it is used.
    pub hoist: Hoist,
    /// 1-based lines from the chain's first to its next clause's last.
    pub lines: Range<u32>,
    /// The lines of the functions the next clause calls, whose work it is too.
    pub calls: Vec<Range<u32>>,
}

/// Where the timed form computes the chain up to the next clause, so that the control buffer
/// can pick either way of evaluating it before the condition reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Hoist {
    /// Before the statement that holds the chain, which starts at this byte.
    Before(usize),
    /// In a block that the `else` of an `else if` opens (after the `else`, at `open`), closed
    /// after the `if`'s last branch (at `close`): the condition is computed only where the
    /// `if`s before it failed, as written.
    InElse { open: usize, close: usize },
}

/// The chain of `clauses[at]` in `source`, or why no variant of it can be written; `clauses`
/// are the rows of `module`'s chains, so that the chain's first clause can be found.
pub fn find(
    source: &str,
    module: &Module,
    clauses: &[ClauseAt<'_>],
    at: usize,
) -> Result<ChainText, String> {
    let code = mask_comments(source);
    let sides: Vec<Option<Sides>> = clauses.iter().map(|c| sides(&code, c)).collect();
    let not_found = || "the clause was not found in the text".to_owned();
    let own = sides[at].clone().ok_or_else(not_found)?;
    // The chain's first clause: follow the clauses whose next clause starts where this does.
    let mut first = own.start;
    for _ in 0..clauses.len() {
        match sides.iter().flatten().find(|s| s.right.start == first) {
            Some(before) => first = before.start,
            None => break,
        }
    }
    let operator = if clauses[at].operator == "||" {
        "||"
    } else {
        "&&"
    };
    let statement = statement_start(&code, first);
    let (hoist, checked) = hoist(&code, statement, first..own.right.end)?;
    // The chain up to the next clause moves before what reads it, which then runs the rest
    // after it: all of that must be free of side effects, not only the clause evaluated in
    // more lanes.
    let right = &code[own.right.clone()];
    if let Some(call) = side_effect(module, &code[checked]) {
        return Err(format!(
            "its statement calls `{call}`, which writes memory or takes other lanes' values: \
             with the chain up to `{}` evaluated before it, and in other lanes, it would change \
             what the kernel computes",
            flat(right)
        ));
    }
    let chain = ChainText {
        operator,
        left: first..own.left_end,
        right: own.right.clone(),
        hoist,
        lines: line_of(&code, first)..line_of(&code, own.right.end) + 1,
        calls: called_lines(&code, module, right),
    };
    // What the text scan misread does not parse.
    let timed = prepare_for_naga(&write(source, &chain, Form::Timed, 0));
    naga::front::wgsl::parse_str(&timed)
        .map_err(|_| "the chain's statement could not be found in the text".to_owned())?;
    Ok(chain)
}

/// `source` with `chain` evaluated eagerly (`Counted`), or either way as the control buffer
/// at `@group(control_group) @binding(0)` says (`Timed`: [`Control::Uniform`] eagerly).
pub fn write(source: &str, chain: &ChainText, form: Form, control_group: u32) -> String {
    let code = mask_comments(source);
    let (left, right) = (
        flat(&code[chain.left.clone()]),
        flat(&code[chain.right.clone()]),
    );
    let eager = if chain.operator == "||" { "|" } else { "&" };
    let both = format!("({left}) {eager} ({right})");
    let span = chain.left.start..chain.right.end;
    let breaks = "\n".repeat(code[span.clone()].matches('\n').count());
    let eagerly = format!("({both})");
    let Form::Timed = form else {
        return [
            &source[..span.start],
            &eagerly,
            &breaks,
            &source[span.end..],
        ]
        .concat();
    };
    let uniform = Control::Uniform as u32;
    let short = format!("({left}) {} ({right})", chain.operator);
    let computed = format!(
        "var divlab_chain: bool; if divlab_ctl[0] == {uniform}u {{ divlab_chain = {both}; }} \
         else {{ divlab_chain = {short}; }}"
    );
    let read = ["divlab_chain", &breaks].concat();
    let timed = match &chain.hoist {
        Hoist::Before(statement) => [
            &source[..*statement],
            &computed,
            " ",
            &source[*statement..span.start],
            &read,
            &source[span.end..],
        ]
        .concat(),
        Hoist::InElse { open, close } => [
            &source[..*open],
            " { ",
            &computed,
            &source[*open..span.start],
            &read,
            &source[span.end..*close],
            " }",
            &source[*close..],
        ]
        .concat(),
    };
    timed + &control_binding(control_group)
}

/// Where the timed form computes the chain at `chain` of the statement at `statement`, and the
/// text that then runs after it, which must be free of side effects; or why it cannot.
fn hoist(
    code: &str,
    statement: usize,
    chain: Range<usize>,
) -> Result<(Hoist, Range<usize>), String> {
    let word = first_word(code, statement);
    let refused = |what: &str| {
        Err(format!(
            "the chain is in {what} (its statement starts `{word}`): divlab writes no variant there"
        ))
    };
    match word {
        "else" => {
            let open = statement + word.len();
            let condition = skip_space(code, open);
            if first_word(code, condition) != "if" {
                return refused("an `else` it cannot read");
            }
            let brace = statement_end(code, chain.end);
            let Some(close) = if_end(code, brace) else {
                return refused("an `else if` whose branches it cannot read");
            };
            Ok((
                Hoist::InElse {
                    open,
                    close: close + 1,
                },
                condition..brace,
            ))
        }
        "for" | "while" | "loop" | "continuing" | "switch" | "case" => {
            refused("a loop's or a switch's header")
        }
        // `break if` in a `continuing` block takes statements before it, as any other does.
        _ => Ok((
            Hoist::Before(statement),
            statement..statement_end(code, chain.end),
        )),
    }
}

/// Where a clause ends, and its next clause's range.
#[derive(Clone, Debug)]
struct Sides {
    start: usize,
    left_end: usize,
    right: Range<usize>,
}

/// The clause at its line and column in `code`: its end (matched against its text, blanks
/// aside), the operator after it, and the next clause, up to the chain's next operator or the
/// end of the expression that holds it.
fn sides(code: &str, clause: &ClauseAt<'_>) -> Option<Sides> {
    let start = offset(code, clause.line, clause.column)?;
    let bytes = code.as_bytes();
    let mut at = start;
    for c in clause.text.bytes().filter(|c| !c.is_ascii_whitespace()) {
        at = skip_space(code, at);
        if bytes.get(at) != Some(&c) {
            return None;
        }
        at += 1;
    }
    let left_end = at;
    let op = skip_space(code, at);
    if !code[op..].starts_with(clause.operator) {
        return None;
    }
    let from = skip_space(code, op + 2);
    let mut depth = 0i32;
    let mut end = from;
    while end < bytes.len() {
        match bytes[end] {
            b'(' | b'[' => depth += 1,
            b')' | b']' if depth == 0 => break,
            b')' | b']' => depth -= 1,
            b';' | b'{' | b'}' | b',' if depth == 0 => break,
            b'&' | b'|' if depth == 0 && bytes.get(end + 1) == Some(&bytes[end]) => break,
            _ => {}
        }
        end += 1;
    }
    let right_end = from + code[from..end].trim_end().len();
    (right_end > from).then_some(Sides {
        start,
        left_end,
        right: from..right_end,
    })
}

/// The start of the statement that holds the byte at `at`: after the `;`, `{` or `}` before
/// it, outside the brackets it is in.
pub(super) fn statement_start(code: &str, at: usize) -> usize {
    let bytes = code.as_bytes();
    let mut depth = 0i32;
    let mut i = at;
    while i > 0 {
        i -= 1;
        match bytes[i] {
            b')' | b']' => depth += 1,
            b'(' | b'[' => depth -= 1,
            b';' | b'{' | b'}' if depth <= 0 => return skip_space(code, i + 1),
            _ => {}
        }
    }
    skip_space(code, 0)
}

/// The end of the statement whose expression goes on at `at`: its `;`, or the `{` of the
/// block an `if` opens, outside brackets.
fn statement_end(code: &str, at: usize) -> usize {
    let bytes = code.as_bytes();
    let mut depth = 0i32;
    for (i, &b) in bytes.iter().enumerate().skip(at) {
        match b {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b';' | b'{' | b'}' if depth <= 0 => return i,
            _ => {}
        }
    }
    bytes.len()
}

/// The word that starts at `at` (`let`, `if`, a name), or `""`.
pub(super) fn first_word(code: &str, at: usize) -> &str {
    let rest = &code[at..];
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    &rest[..end]
}

/// The names `text` calls: each name followed by `(`.
fn call_names(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < bytes.len() {
            if !(bytes[at].is_ascii_alphabetic() || bytes[at] == b'_') || word_before(text, at) {
                at += 1;
                continue;
            }
            let name = first_word(text, at);
            at += name.len();
            if text[at..].trim_start().starts_with('(') {
                return Some(name);
            }
        }
        None
    })
}

fn word_before(text: &str, at: usize) -> bool {
    let before = text[..at].bytes().next_back();
    before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The module function named `name`.
fn function(module: &Module, name: &str) -> Option<Handle<Function>> {
    (module.functions.iter())
        .find(|(_, f)| f.name.as_deref() == Some(name))
        .map(|(h, _)| h)
}

/// A call in `text` that has side effects or reads other lanes: a module function that
/// writes memory outside its own variables (or calls one that does), takes a subgroup's values
/// or waits at a barrier; an atomic other than a load; a subgroup or quad operation.
fn side_effect(module: &Module, text: &str) -> Option<String> {
    call_names(text)
        .find(|&name| {
            let builtin = (name.starts_with("atomic") && name != "atomicLoad")
                || name.starts_with("subgroup")
                || name.starts_with("quad")
                || name.ends_with("Barrier");
            builtin || function(module, name).is_some_and(|h| impure(module, h, 0))
        })
        .map(str::to_owned)
}

/// The lines of the module functions `text` (a part of `code`, comments masked) calls, and of
/// those they call: their work is the work of the code that calls them.
fn called_lines(code: &str, module: &Module, text: &str) -> Vec<Range<u32>> {
    (calls(module, text))
        .filter_map(|name| function_lines(code, name))
        .collect()
}

/// The lines of the module functions that each range of `lines` of `source` calls (a branch's
/// statement: its condition or selector, and its sides; the code it skips), and of those they
/// call.
pub fn calls_in_lines<'a>(
    source: &str,
    module: &Module,
    lines: impl IntoIterator<Item = &'a Range<u32>>,
) -> Vec<Range<u32>> {
    // Comments masked, so that a name in one is no call.
    let code = mask_comments(source);
    let mut calls = Vec::new();
    for lines in lines {
        let start = line_start(&code, lines.start).unwrap_or(0);
        let end = line_start(&code, lines.end).unwrap_or(code.len());
        calls.extend(called_lines(&code, module, &code[start..end]));
    }
    calls
}

/// The module functions `clause` calls, and those they call, by name.
fn calls<'m>(module: &'m Module, clause: &str) -> impl Iterator<Item = &'m str> {
    let mut found: Vec<Handle<Function>> = Vec::new();
    for h in call_names(clause).filter_map(|name| function(module, name)) {
        if !found.contains(&h) {
            found.push(h);
        }
    }
    let mut at = 0;
    while at < found.len() {
        each_statement(&module.functions[found[at]].body, &mut |statement| {
            if let Statement::Call { function, .. } = *statement
                && !found.contains(&function)
            {
                found.push(function);
            }
        });
        at += 1;
    }
    found
        .into_iter()
        .filter_map(|h| module.functions[h].name.as_deref())
}

/// The lines of `fn name`'s declaration, to its body's closing brace.
fn function_lines(code: &str, name: &str) -> Option<Range<u32>> {
    let start = code
        .match_indices("fn ")
        .map(|(at, _)| at)
        .find(|&at| first_word(code, skip_space(code, at + 3)) == name && !word_before(code, at))?;
    let open = start + code[start..].find('{')?;
    let close = matching_brace(code, open)?;
    Some(line_of(code, start)..line_of(code, close) + 1)
}

/// Whether calling `function` writes memory other than its own local variables, uses atomics,
/// textures' stores, barriers or subgroup operations, or calls a function that does.
fn impure(module: &Module, function: Handle<Function>, depth: usize) -> bool {
    let f = &module.functions[function];
    let mut impure = depth > 32;
    each_statement(&f.body, &mut |statement| {
        impure |= match statement {
            Statement::Store { pointer, .. } => !is_local(f, *pointer),
            Statement::Call { function, .. } => self::impure(module, *function, depth + 1),
            // Blocks, branches and loops: their statements are visited in turn.
            Statement::Block(_)
            | Statement::If { .. }
            | Statement::Switch { .. }
            | Statement::Loop { .. }
            | Statement::Emit(_)
            | Statement::Break
            | Statement::Continue
            | Statement::Return { .. }
            | Statement::Kill => false,
            _ => true,
        };
    });
    impure
}

/// Whether `pointer` points into one of `f`'s own local variables.
fn is_local(f: &Function, mut pointer: Handle<Expression>) -> bool {
    loop {
        match f.expressions[pointer] {
            Expression::LocalVariable(_) => return true,
            Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => {
                pointer = base
            }
            _ => return false,
        }
    }
}

/// The byte at a 1-based line and column (bytes) of `code`.
fn offset(code: &str, line: u32, column: u32) -> Option<usize> {
    let at = line_start(code, line)? + usize::try_from(column.checked_sub(1)?).ok()?;
    (at < code.len()).then_some(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KERNEL: &str = "@group(0) @binding(0) var<storage, read_write> out: array<f32>;
var<private> seed: u32;
fn pure_test(x: f32) -> bool {
    var y = x;
    y = y * 2.0;
    return y > 1.0;
}
fn draws(x: f32) -> bool {
    seed = seed * 3u;
    return x > f32(seed);
}
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
    let x = out[gid.x];
    let hit = x > 0.5 && // a comment
              pure_test(x) &&
              x < 2.0;
    if (gid.x % 2u == 0u || draws(x)) {
        out[gid.x] = 1.0;
    } else if (x > 0.0 && x < 1.0) {
        out[gid.x] = 2.0;
    }
    for (var i = 0u; i < 4u && x > 0.0; i++) {
        out[gid.x] += 1.0;
    }
    out[gid.x] = select(x, 0.0, hit);
    let odd = draws(x) == (x > 3.0 && x < 4.0);
    var n = 0u;
    while (n < 3u &&
           x > 1.0) {
        n += 1u;
    }
    loop {
        n += 1u;
        continuing { break if n > 8u || x < 0.0; }
    }
    for (var i = 0u; i < 2u; i += u32(x > 9.0 && x < 10.0)) {}
}
";

    fn module() -> Module {
        naga::front::wgsl::parse_str(KERNEL).unwrap()
    }

    /// The rows of the `let`'s chain: `x > 0.5` && (line 15) and `pure_test(x)` && (line 16).
    fn let_chain() -> Vec<ClauseAt<'static>> {
        vec![
            ClauseAt {
                line: 15,
                column: 15,
                text: "x > 0.5",
                operator: "&&",
            },
            ClauseAt {
                line: 16,
                column: 15,
                text: "pure_test(x)",
                operator: "&&",
            },
        ]
    }

    #[test]
    fn a_clause_finds_its_chain_from_the_first_clause_to_the_next_one() {
        let clauses = let_chain();
        let second = find(KERNEL, &module(), &clauses, 1).unwrap();
        assert_eq!(
            flat(&mask_comments(KERNEL)[second.left.clone()]),
            "x > 0.5 && pure_test(x)"
        );
        assert_eq!(&KERNEL[second.right.clone()], "x < 2.0");
        assert_eq!(second.lines, 15..18);
        assert_eq!(second.hoist, Hoist::Before(KERNEL.find("let hit").unwrap()));
        let first = find(KERNEL, &module(), &clauses, 0).unwrap();
        assert_eq!(&KERNEL[first.left.clone()], "x > 0.5");
        assert_eq!(&KERNEL[first.right.clone()], "pure_test(x)");
        // The function the next clause calls is its work too.
        assert_eq!(first.calls.first(), Some(&(3..8)));
        assert!(second.calls.is_empty());
    }

    #[test]
    fn both_forms_keep_every_line_parse_and_evaluate_eagerly() {
        let clauses = let_chain();
        let chain = find(KERNEL, &module(), &clauses, 1).unwrap();
        for form in [Form::Timed, Form::Counted] {
            let text = write(KERNEL, &chain, form, 1);
            let (original, lines): (Vec<&str>, Vec<&str>) =
                (KERNEL.lines().collect(), text.lines().collect());
            assert_eq!(lines[17..27], original[17..27], "{form:?}\n{text}");
            naga::front::wgsl::parse_str(&text).unwrap_or_else(|e| panic!("{form:?}: {e}\n{text}"));
            assert!(
                text.contains("(x > 0.5 && pure_test(x)) & (x < 2.0)"),
                "{text}"
            );
        }
        let timed = write(KERNEL, &chain, Form::Timed, 1);
        assert!(
            timed.contains("if divlab_ctl[0] == 0u { divlab_chain = (x > 0.5 && pure_test(x)) & (x < 2.0); } else { divlab_chain = (x > 0.5 && pure_test(x)) && (x < 2.0); } let hit = divlab_chain"),
            "{timed}"
        );
    }

    fn at(line: u32, column: u32, text: &'static str, op: &'static str) -> Vec<ClauseAt<'static>> {
        vec![ClauseAt {
            line,
            column,
            text,
            operator: op,
        }]
    }

    #[test]
    fn side_effects_and_loop_tests_have_no_variant() {
        let or = at(18, 9, "gid.x % 2u == 0u", "||");
        let why = find(KERNEL, &module(), &or, 0).unwrap_err();
        assert!(why.contains("calls `draws`"), "{why}");
        // A pure chain in a statement that calls `draws` besides: it would run after the chain.
        let besides = at(27, 28, "x > 3.0", "&&");
        let why = find(KERNEL, &module(), &besides, 0).unwrap_err();
        assert!(why.contains("its statement calls `draws`"), "{why}");
        // A loop's test is the loop's, not its clauses': no row reaches here, but none is
        // written either (a `for` header's condition does not parse written before it).
        let while_test = at(29, 12, "n < 3u", "&&");
        let why = find(KERNEL, &module(), &while_test, 0).unwrap_err();
        assert!(why.contains("starts `while`"), "{why}");
        assert!(find(KERNEL, &module(), &at(23, 22, "i < 4u", "&&"), 0).is_err());
        assert!(find(KERNEL, &module(), &at(37, 39, "x > 9.0", "&&"), 0).is_err());
        assert!(find(KERNEL, &module(), &at(15, 16, "x > 0.5", "&&"), 0).is_err());
    }

    /// The timed form of the clause at `clause`, checked to keep every line and to parse.
    fn timed(clause: &[ClauseAt<'_>]) -> String {
        let chain = find(KERNEL, &module(), clause, 0).unwrap();
        let text = write(KERNEL, &chain, Form::Timed, 1);
        let (original, lines): (Vec<&str>, Vec<&str>) =
            (KERNEL.lines().collect(), text.lines().collect());
        assert_eq!(lines[original.len() - 1], "}", "{text}");
        assert_eq!(lines[25], original[25], "{text}");
        naga::front::wgsl::parse_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        text
    }

    #[test]
    fn an_else_if_computes_its_chain_where_the_ifs_before_it_failed() {
        let text = timed(&at(20, 16, "x > 0.0", "&&"));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[19],
            "    } else { var divlab_chain: bool; if divlab_ctl[0] == 0u { divlab_chain = (x > \
             0.0) & (x < 1.0); } else { divlab_chain = (x > 0.0) && (x < 1.0); } if \
             (divlab_chain) {"
        );
        assert_eq!(lines[21], "    } }");
    }

    #[test]
    fn a_break_if_computes_its_chain_in_its_continuing_block() {
        let text = timed(&at(35, 31, "n > 8u", "||"));
        assert!(
            text.contains(
                "continuing { var divlab_chain: bool; if divlab_ctl[0] == 0u { \
                           divlab_chain = (n > 8u) | (x < 0.0); } else { divlab_chain = (n > \
                           8u) || (x < 0.0); } break if divlab_chain; }"
            ),
            "{text}"
        );
    }

    #[test]
    fn a_kernel_that_enables_subgroups_is_read_as_naga_reads_it() {
        let kernel = "enable subgroups;
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(subgroup_invocation_id) lane: u32) {
    if (lane == 0u && out[0] < 4u) {
        out[1] = 1u;
    }
}
";
        let module = naga::front::wgsl::parse_str(&prepare_for_naga(kernel)).unwrap();
        let clause = [ClauseAt {
            line: 5,
            column: 9,
            text: "lane == 0u",
            operator: "&&",
        }];
        let chain = find(kernel, &module, &clause, 0).unwrap();
        assert_eq!(&kernel[chain.right], "out[0] < 4u");
    }
}
