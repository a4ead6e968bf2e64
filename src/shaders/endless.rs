//! A function with a return type whose body ends in a loop that only a `return` leaves is valid
//! WGSL: such a loop never falls through (its behaviour has no Next), so nothing runs past it,
//! and Chrome's Tint accepts it. naga 30, which wgpu compiles with, rejects it ("The `return`
//! expression None does not match the declared return type"): its front end ends every
//! function with a bare `return` and does not see that the loop never gets there. Such a
//! kernel runs in a browser and not in wgpu; [`close_endless_functions`] writes the `return`
//! naga wants, which never runs, on the function's last line.

use naga::common::wgsl::TypeContext;
use naga::{Block, Module, Span, Statement};

/// A `return` divlab wrote at the end of a function for naga.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AddedReturn {
    /// The function's name.
    pub function: String,
    /// The 1-based line of its closing brace, where the `return` went.
    pub line: u32,
    /// The statement, e.g. `return u32();`: the type's zero value.
    pub statement: String,
    /// The byte offset of the brace in the text as written.
    pub offset: usize,
}

impl AddedReturn {
    /// Why it was added, in a sentence: the function, what WGSL allows and naga rejects, and
    /// the statement a wgpu program needs.
    pub fn describe(&self) -> String {
        format!(
            "`{}` returns a value and ends in a loop only `return` leaves: valid WGSL (nothing \
             runs past the loop; Chrome takes it) that naga 30, and so wgpu, rejects; a wgpu \
             program needs `{}` before its closing brace",
            self.function, self.statement
        )
    }
}

/// `source` (the text `module` was parsed from, [prepared](super::prepare_for_naga) or not: the
/// offsets are the same) with `return T();` written before the closing brace of each function
/// that returns a `T` and ends in a loop with no `break` or `break if` of its own (or in an `if`
/// or `switch` each of whose arms ends in such a loop or a `return`), and those functions. Lines stay where they were; on each closing brace's line, the brace moves right.
pub fn close_endless_functions(module: &Module, source: &str) -> (String, Vec<AddedReturn>) {
    let mut added = Vec::new();
    for (handle, function) in module.functions.iter() {
        let Some(result) = function
            .result
            .as_ref()
            .filter(|_| ends_in_endless_loop(&function.body))
        else {
            continue;
        };
        let Some(offset) = (module.functions.get_span(handle).to_range())
            .map(|range| range.end.saturating_sub(1))
            .filter(|&at| source.as_bytes().get(at) == Some(&b'}'))
        else {
            continue;
        };
        added.push(AddedReturn {
            function: function.name.clone().unwrap_or_default(),
            line: source[..offset].matches('\n').count() as u32 + 1,
            statement: format!("return {}();", module.to_ctx().type_to_string(result.ty)),
            offset,
        });
    }
    // naga lowers callees before their callers, not in the order they are written.
    added.sort_by_key(|a| a.offset);
    (with_added_returns(source, &added), added)
}

/// `text` with the `added` returns written in: the same text as the one they were found in, or
/// another with the same offsets (the source before its [preparation](super::prepare_for_naga)
/// or with its statement filters).
pub fn with_added_returns(text: &str, added: &[AddedReturn]) -> String {
    let mut text = text.to_owned();
    // From the last brace back, so that each offset still points at its brace.
    for a in added.iter().rev() {
        text.insert_str(a.offset, &format!("{} ", a.statement));
    }
    text
}

/// Takes the `return`s of `added` out of `module`'s source map: each, with what it evaluates,
/// gets no span, so that nothing maps it to the line of the brace it was written before (the
/// line would show a statement that never ran).
pub fn unmap_added_returns(module: &mut Module, added: &[AddedReturn]) {
    for (_, function) in module.functions.iter_mut() {
        if !(added.iter()).any(|a| function.name.as_deref() == Some(a.function.as_str())) {
            continue;
        }
        let Some(ty) = function.result.as_ref().map(|r| r.ty) else {
            continue;
        };
        let zero = (function.expressions).append(naga::Expression::ZeroValue(ty), Span::UNDEFINED);
        unmap_tail(&mut function.body, zero);
    }
}

/// Unmaps the `return` that ends `block` (or its last inner block) and the `Emit` before it,
/// the `return` now of `zero`.
fn unmap_tail(block: &mut Block, zero: naga::Handle<naga::Expression>) {
    if let Some(Statement::Block(inner)) = block.last_mut() {
        return unmap_tail(inner, zero);
    }
    let skip = block.len().saturating_sub(2);
    let tail: Vec<_> = block.span_iter_mut().skip(skip).collect();
    for (statement, span) in tail.into_iter().rev() {
        match statement {
            Statement::Return { value } => *value = Some(zero),
            Statement::Emit(_) => {}
            _ => break,
        }
        if let Some(span) = span {
            *span = Span::UNDEFINED;
        }
    }
}

/// Whether `body` ends, on some path, in a loop that only `return` leaves, and on the others in
/// a `return`: naga's front end has put a bare `return` after each such loop.
fn ends_in_endless_loop(body: &Block) -> bool {
    ending(body) == Ending::Endless
}

/// How a block ends, as naga's front end left it: it appends a bare `return` where the code
/// may fall off a function's end, in the arms of its last `if` or `switch` too. Ordered from
/// the best to the worst ending, so that a statement with arms ends as its worst arm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ending {
    /// In a `return` of a value (or a `discard`).
    Returns,
    /// In a loop that only `return` leaves, with naga's bare `return` after it.
    Endless,
    /// By falling off the end: invalid WGSL, which naga rightly rejects.
    Falls,
}

fn ending(block: &Block) -> Ending {
    let mut tail = block.iter().rev();
    match tail.next() {
        Some(Statement::Block(inner)) => ending(inner),
        Some(Statement::If { accept, reject, .. }) => ending(accept).max(ending(reject)),
        // A `case 1u, 2u:` is naga's empty case falling through to the next.
        Some(Statement::Switch { cases, .. }) => (cases.iter())
            .filter(|case| !case.fall_through)
            .map(|case| ending(&case.body))
            .max()
            .unwrap_or(Ending::Falls),
        Some(Statement::Return { value: Some(_) } | Statement::Kill) => Ending::Returns,
        Some(Statement::Return { value: None }) => match tail.next() {
            Some(Statement::Loop {
                body,
                break_if: None,
                ..
            }) if !breaks_out(body) => Ending::Endless,
            _ => Ending::Falls,
        },
        _ => Ending::Falls,
    }
}

/// Whether `block` holds a `break` that leaves the loop it is the body of: one outside any
/// inner loop or `switch` (whose `break` leaves the `switch`).
fn breaks_out(block: &Block) -> bool {
    block.iter().any(|statement| match statement {
        Statement::Break => true,
        Statement::Block(inner) => breaks_out(inner),
        Statement::If { accept, reject, .. } => breaks_out(accept) || breaks_out(reject),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn closed(source: &str) -> (String, Vec<AddedReturn>) {
        let module = naga::front::wgsl::parse_str(source).expect("parses");
        close_endless_functions(&module, source)
    }

    const ENDLESS: &str = "struct Pair { a: u32, b: u32 }
fn steps(n0: u32) -> u32 {
    var n = n0;
    var i = 0u;
    loop {
        if n <= 1u { return i; }
        switch n % 2u { case 0u: { n /= 2u; break; } default: { n = 3u * n + 1u; } }
        loop { if i > 0u { break; } i += 1u; }
        i += 1u;
    }
}
fn pair(x: u32) -> Pair {
    for (var k = x; ; k++) {
        if k % 7u == 0u { return Pair(k, x); }
    }
}
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(1) fn main() { out[0] = steps(out[0]) + pair(3u).a; }
";

    /// Both functions get a `return` on their last line, which naga then accepts; the
    /// `break`s of the inner loop and the `switch` do not leave the outer loop.
    #[test]
    fn a_loop_only_return_leaves_gets_the_return_naga_wants() {
        assert!(crate::shaders::check_wgsl("k.wgsl", ENDLESS).is_err());
        let (text, added) = closed(ENDLESS);
        let found: Vec<_> = (added.iter())
            .map(|a| (a.function.as_str(), a.line, a.statement.as_str(), a.offset))
            .collect();
        let brace_before = |next: &str| ENDLESS.find(&format!("}}\n{next}")).unwrap();
        assert_eq!(
            found,
            [
                ("steps", 11, "return u32();", brace_before("fn pair")),
                ("pair", 16, "return Pair();", brace_before("@group")),
            ]
        );
        assert_eq!(text.lines().count(), ENDLESS.lines().count());
        assert_eq!(text.lines().nth(10), Some("return u32(); }"));
        crate::shaders::check_wgsl("k.wgsl", &text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    }

    /// naga lowers a callee before its caller: the `return`s still go in the order of the
    /// text, each before its own function's brace.
    #[test]
    fn a_caller_written_before_its_callee_gets_its_return_in_place() {
        let source =
            "fn a() -> i32 { loop { return b(); } }\nfn b() -> i32 { loop { return 1; } }\n";
        let (text, added) = closed(source);
        assert_eq!(
            text,
            "fn a() -> i32 { loop { return b(); } return i32(); }\n\
             fn b() -> i32 { loop { return 1; } return i32(); }\n"
        );
        let names: Vec<&str> = added.iter().map(|a| a.function.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
    }

    /// A function whose last `if` or `switch` ends each arm in a `return` or in such a loop
    /// gets its `return` too (Tint takes these); one with an arm that falls off the end does
    /// not (Tint rejects it).
    #[test]
    fn arms_that_end_in_a_return_or_such_a_loop_get_the_return_too() {
        for (source, mended) in [
            (
                "fn f(c: bool) -> u32 { if c { return 1u; } else { loop { return 2u; } } }",
                true,
            ),
            (
                "fn f(x: u32) -> u32 { switch x { case 0u, 1u: { return 1u; } \
                 default: { loop { if x > 3u { return x; } } } } }",
                true,
            ),
            (
                "fn f(c: bool) -> u32 { { if c { return 1u; } else { loop { return 2u; } } } }",
                true,
            ),
            (
                "fn f(c: bool) -> u32 { if c { loop { return 1u; } } }",
                false,
            ),
            (
                "fn f(c: bool) -> u32 { if c { loop { return 1u; } } else { } }",
                false,
            ),
        ] {
            let (text, added) = closed(source);
            assert_eq!(added.len(), usize::from(mended), "{source}");
            if mended {
                assert!(text.ends_with(" return u32(); }"), "{text}");
                crate::shaders::check_wgsl("k.wgsl", &text)
                    .unwrap_or_else(|e| panic!("{e}\n{text}"));
            }
        }
    }

    /// A loop with a way out (a `break`, a `break if`, a `while` condition) falls through, and
    /// a function with no result needs no value: left as written (naga judges them).
    #[test]
    fn a_loop_that_can_end_is_left_alone() {
        for source in [
            "fn f() -> u32 { loop { if true { break; } } }",
            "fn f() -> u32 { var i = 0u; loop { continuing { i++; break if i > 3u; } } }",
            "fn f() -> u32 { while true { return 1u; } }",
            "fn f() -> u32 { for (var i = 0u; i < 3u; i++) { return i; } }",
            "fn f() { loop { return; } }",
            "fn f() -> u32 { return 1u; }",
        ] {
            assert_eq!(closed(source), (source.to_owned(), Vec::new()), "{source}");
        }
    }
}
