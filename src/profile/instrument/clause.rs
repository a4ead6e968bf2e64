//! The clauses of short-circuit `&&`/`||` chains. naga's front end makes an `if` of each
//! operator (`var t; if a { t = b; } else { t = false; }`, `!a` and `true` for `||`) on the
//! line of the chain, so a condition `a && b && c` is three `if`s on one line: each tests the
//! chain up to one clause. This names the clause each such `if`, and the `if` whose condition
//! is a whole chain, stops at, so that the report can tell the rows apart.

use std::collections::HashMap;
use std::ops::Range;

use naga::{Block, Expression, Function, Handle, Literal, LocalVariable, Span, Statement};

use crate::shaders::mask_comments;
use crate::source_map::SourceMap;

/// The clause an `if` tests the chain up to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClauseSite {
    /// The clause as the source writes it (`center >= filterOffset`).
    pub text: String,
    /// Its 1-based line.
    pub line: u32,
    /// Its 1-based column (in bytes, as naga's locations count).
    pub column: u32,
    /// `&&` or `||` for an `if` naga made of that operator after the clause (it decides
    /// whether the chain goes on to the next clause); `None` for the `if` whose condition is
    /// the whole chain (the clause is its last).
    pub operator: Option<&'static str>,
}

/// The chains seen so far in one function: the result variable of each short-circuit `if`,
/// with the byte range of its right-hand clause.
#[derive(Default)]
pub(super) struct Chains {
    right: HashMap<Handle<LocalVariable>, Range<usize>>,
}

impl Chains {
    /// The clause of the `if` at `span` with `condition`, `accept` and `reject`, where it is
    /// one naga made of a `&&`/`||` or its condition is the result of one; records the chain.
    pub fn clause(
        &mut self,
        function: &Function,
        lines: &SourceMap<'_>,
        (condition, accept, reject): (Handle<Expression>, &Block, &Block),
        span: Span,
    ) -> Option<ClauseSite> {
        let made = short_circuit(function, accept, reject);
        let tested = match (made, &function.expressions[condition]) {
            (Some((_, true)), &Expression::Unary { expr, .. }) => expr,
            _ => condition,
        };
        let from_chain = match function.expressions[tested] {
            Expression::Load { pointer } => match function.expressions[pointer] {
                Expression::LocalVariable(v) => self.right.get(&v).cloned(),
                _ => None,
            },
            _ => None,
        };
        let whole = span.to_range();
        let clause = match (made, whole) {
            (Some((result, or)), Some(whole)) => {
                // The right side runs from its first token to the operator's end (its own span
                // may be the call's name alone: `all` of `all(x < y)`).
                let value = stored_value(accept)?;
                let right = function.expressions.get_span(value).to_range()?.start..whole.end;
                self.right.insert(result, right.clone());
                let operator = if or { "||" } else { "&&" };
                // The left side: the chain before this operator, or its first clause.
                let left = from_chain.unwrap_or(whole.start..right.start);
                (left, Some(operator))
            }
            _ => (from_chain?, None),
        };
        site(lines, clause)
    }
}

/// The clause in `range` (trimmed of blanks and of a trailing operator) as a site.
fn site(
    lines: &SourceMap<'_>,
    (range, operator): (Range<usize>, Option<&'static str>),
) -> Option<ClauseSite> {
    let mut range = range;
    // Take in the opening parentheses a span left out (`(a || b)` whose span is `a || b)`).
    while let Some(text) = lines.slice(range.clone())
        && text.matches(')').count() > text.matches('(').count()
        && range.start > 0
    {
        range.start -= 1;
    }
    // A comment inside the clause is not its text: blanked, each byte keeping its place.
    let raw = &mask_comments(lines.slice(range.clone())?);
    let start = range.start + (raw.len() - raw.trim_start().len());
    let mut text = raw.trim();
    // And leave out the opening parentheses of the next clause (`(a) && (b)`: the left side
    // runs up to `b`, its span's start).
    while text.ends_with('(') && text.matches('(').count() > text.matches(')').count() {
        text = text[..text.len() - 1].trim_end();
    }
    let text = text
        .strip_suffix("&&")
        .or_else(|| text.strip_suffix("||"))
        .unwrap_or(text)
        .trim_end();
    if text.is_empty() {
        return None;
    }
    let (line, column) = lines.line_col(start);
    Some(ClauseSite {
        text: text.split_whitespace().collect::<Vec<_>>().join(" "),
        line,
        column,
        operator,
    })
}

/// Whether the `if` is one naga made of a `&&`/`||`: its reject side only stores a `bool`
/// literal (`false` for `&&`, `true` for `||`) into an unnamed local, which its accept side
/// ends by storing the right-hand clause into. The local and whether it is `||`.
fn short_circuit(
    function: &Function,
    accept: &Block,
    reject: &Block,
) -> Option<(Handle<LocalVariable>, bool)> {
    let [Statement::Store { pointer, value }] = &reject[..] else {
        return None;
    };
    let Expression::Literal(Literal::Bool(or)) = function.expressions[*value] else {
        return None;
    };
    let Expression::LocalVariable(result) = function.expressions[*pointer] else {
        return None;
    };
    if function.local_variables[result].name.is_some() {
        return None;
    }
    match accept.last() {
        Some(&Statement::Store { pointer: p, .. }) if p == *pointer => Some((result, or)),
        _ => None,
    }
}

/// The value the last statement of `accept` stores.
fn stored_value(accept: &Block) -> Option<Handle<Expression>> {
    match accept.last() {
        Some(&Statement::Store { value, .. }) => Some(value),
        _ => None,
    }
}
