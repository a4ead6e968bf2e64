//! The site tables: every block, branch and loop the pass numbers, in counter order, with the
//! source lines a report attributes them to; and the calls between them.

use std::collections::HashMap;
use std::ops::RangeInclusive;

use naga::{Block, Function, Handle, Span, Statement};

use super::clause::ClauseSite;
pub use super::control::Exits;
use crate::shaders::span_is_borrowed;
use crate::source_map::SourceMap;

/// What kind of block a [`BlockSite`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlockKind {
    /// The body of the entry point or of a function it calls.
    FunctionBody,
    /// The `accept` side of an `if`.
    IfAccept,
    /// The `else` side of an `if` (empty when the source has no `else`).
    IfReject,
    /// The body of one `switch` case (a `case a, b:` list is one site).
    SwitchCase,
    /// The body of a loop (`loop`, `for`, `while`).
    LoopBody,
    /// A loop's `continuing` block (a `for` loop's update).
    LoopContinuing,
    /// The statements after one that can take lanes out of the block (an `if` with a `return`
    /// or a `break` inside): counted anew, so the lanes that left are not counted there.
    Continuation,
}

/// An instrumented block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockSite {
    /// What block it is.
    pub kind: BlockKind,
    /// The function it is in (the entry point's name for its body).
    pub function: String,
    /// 1-based source line the block is reported at: for a function body the line of its `fn`;
    /// otherwise the line of the block's first statement, or of its parent statement (the
    /// `if`, `switch` or loop) when the block has no statement with a source location.
    pub line: u32,
    /// The source lines the block's own statements cover, nested blocks excluded (a nested
    /// `if`/`switch`/loop contributes its first line). `line..=line` when the block is empty.
    pub lines: RangeInclusive<u32>,
    /// Whether the block has no statement with a source location (an implicit `else`, an empty
    /// case, the empty side of a `for` loop's exit test).
    pub empty: bool,
    /// The line of the statement that opens the block: its `if`, `switch` or loop (its `fn`
    /// for a function body).
    pub parent_line: u32,
    /// The site that opens the block.
    pub opener: Opener,
}

/// What opens a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Opener {
    /// A function body.
    Function,
    /// An arm of branch site `index` (an `if` side, a `switch` case).
    Branch(usize),
    /// The body or `continuing` of loop site `index`.
    Loop(usize),
}

/// What kind of branch a [`BranchSite`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BranchKind {
    /// An `if` (also the exit test naga puts at the top of a `for` or `while` body).
    If,
    /// A `switch`.
    Switch,
}

/// An instrumented `if` or `switch`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BranchSite {
    /// `if` or `switch`.
    pub kind: BranchKind,
    /// 1-based line of the statement (of the loop header for a loop's exit test).
    pub line: u32,
    /// The function it is in.
    pub function: String,
    /// An `if` naga made of a short-circuit `&&`/`||`, or one whose condition is such a
    /// chain: the clause it tests the chain up to.
    pub clause: Option<ClauseSite>,
    /// What opens the block it stands in: the branch or loop around it, or its function.
    pub enclosing: Opener,
    /// How its lanes may leave the loop around it: a `break` in a side, a `return`.
    pub exits: Exits,
}

/// An instrumented loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopSite {
    /// The branch site of its `for`/`while` condition, `if c {} else { break; }`, whose
    /// divergence is the loop's: the trips on which the subgroup's lanes disagreed about going
    /// on. `None` for a `loop` without a leading test.
    pub exit_test: Option<usize>,
    /// Every branch site of the condition: the exit test and the `if`s naga makes of a
    /// short-circuit `&&`/`||` in it.
    pub test_branches: std::ops::Range<usize>,
    /// 1-based line of the loop statement.
    pub line: u32,
    /// The function it is in.
    pub function: String,
    /// What opens the block it stands in: the branch or loop around it, or its function.
    pub enclosing: Opener,
    /// Whether its `continuing` ends in a `break if`, a way out that no branch site counts.
    pub break_if: bool,
    /// The trips every lane runs, where the host knows them (a counter from a constant to a
    /// constant by a constant step: `fixed.rs`): the loop is counted on the host from the
    /// block it stands in ([`Derived`]).
    pub fixed_trips: Option<u32>,
}

/// A count the host makes from others once the counters are read
/// ([`super::Instrumented::read_counters`]), in the order the pass found them: a count's
/// sources are complete when it is reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Derived {
    /// A function body whose every call sits in a counted block: the sum of those blocks' counts
    /// (one per call).
    Calls { block: usize, callers: Vec<usize> },
    /// A block of a loop of fixed trips (its body, counted `continuing` and exit `break`):
    /// `times` the counts of block `from`, where the loop stands.
    Scaled {
        block: usize,
        from: usize,
        times: u32,
    },
    /// A fixed loop's exit test: evaluated `times` (its trips + 1) per execution of block
    /// `from`, never divergent (every lane's counter holds the same value).
    ExitTest {
        branch: usize,
        from: usize,
        times: u32,
    },
}

/// The sites numbered so far, in counter order, and what the host derives from them.
#[derive(Default)]
pub(super) struct Sites {
    pub blocks: Vec<BlockSite>,
    pub branches: Vec<BranchSite>,
    pub loops: Vec<LoopSite>,
    /// Every call instrumented so far: the callee, the block whose count is the call's (`None`
    /// where no block's is: a loop's exit test, a `for` loop's update), and whether the call
    /// runs in a loop.
    pub call_sites: Vec<(Handle<Function>, Option<usize>, bool)>,
    /// See [`super::Instrumented::derived`].
    pub derived: Vec<Derived>,
}

impl Sites {
    /// Numbers a new block site.
    pub fn new_block(&mut self, site: BlockSite) -> usize {
        self.blocks.push(site);
        self.blocks.len() - 1
    }

    /// Numbers a new branch site, standing in a block that `enclosing` opens.
    pub fn new_branch(
        &mut self,
        kind: BranchKind,
        (line, function): (u32, &str),
        enclosing: Opener,
    ) -> usize {
        self.branches.push(BranchSite {
            kind,
            line,
            function: function.to_owned(),
            clause: None,
            enclosing,
            exits: Exits::default(),
        });
        self.branches.len() - 1
    }

    /// Numbers a new loop site, standing in a block that `enclosing` opens; its exit test is
    /// filled in when its body is walked.
    pub fn new_loop(&mut self, (line, function): (u32, &str), enclosing: Opener) -> usize {
        self.loops.push(LoopSite {
            exit_test: None,
            test_branches: 0..0,
            line,
            function: function.to_owned(),
            enclosing,
            break_if: false,
            fixed_trips: None,
        });
        self.loops.len() - 1
    }

    /// The calls of `callee` so far: each call's block (`None` where it has none) and whether
    /// it runs in a loop.
    pub fn calls_of(&self, callee: Option<Handle<Function>>) -> Vec<(Option<usize>, bool)> {
        self.call_sites
            .iter()
            .filter(|(c, ..)| Some(*c) == callee)
            .map(|&(_, block, hot)| (block, hot))
            .collect()
    }

    /// The block of a loop's exit-test `break`: the non-empty arm of branch `exit`.
    pub fn exit_break(&self, exit: usize) -> usize {
        (0..self.blocks.len())
            .find(|&b| self.blocks[b].opener == Opener::Branch(exit) && !self.blocks[b].empty)
            .expect("the exit test's `break`")
    }
}

/// The line of `fn name` in the source (entry points carry no span in naga's IR), skipping
/// line comments.
pub(super) fn decl_line(source: &str, lines: &SourceMap<'_>, name: &str) -> Option<u32> {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    source.match_indices("fn").find_map(|(at, _)| {
        let before = &source[..at];
        if before.chars().next_back().is_some_and(ident) {
            return None;
        }
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        if before[line_start..].contains("//") {
            return None;
        }
        let rest = &source[at + 2..];
        let trimmed = rest.trim_start();
        if trimmed.len() == rest.len() {
            return None;
        }
        let after = trimmed.strip_prefix(name)?;
        if after.chars().next().is_some_and(ident) {
            return None;
        }
        Some(lines.line(at))
    })
}

/// Where the `let`s of a function that naga gave a borrowed span are written
/// ([`span_is_borrowed`], [`crate::uniformity::let_spans`]): the line of `let v = *p;`.
pub(super) type LetSpans = HashMap<Handle<naga::Expression>, Span>;

/// The [`LetSpans`] of `function`, parsed from `source`; empty (and not searched for) where no
/// expression's span is borrowed.
pub(super) fn borrowed_let_spans(source: &str, function: &Function) -> LetSpans {
    let borrows = (function.expressions.iter()).any(|(h, _)| span_is_borrowed(function, h));
    if borrows {
        crate::uniformity::let_spans(source, function)
    } else {
        LetSpans::new()
    }
}

/// The first line and the line range of a block's own statements (recursing into plain
/// `{ }` blocks; a nested `if`/`switch`/loop contributes its first line). `function` holds the
/// block's expressions, `lets` where its `let`s are written.
pub(super) fn own_lines(
    lines: &SourceMap<'_>,
    (function, lets): (&Function, &LetSpans),
    block: &Block,
) -> Option<(u32, RangeInclusive<u32>)> {
    let mut first = None;
    let mut range: Option<(u32, u32)> = None;
    own_lines_into(lines, (function, lets), block, &mut first, &mut range);
    Some((first?, range.map(|(a, b)| a..=b)?))
}

fn own_lines_into(
    lines: &SourceMap<'_>,
    (function, lets): (&Function, &LetSpans),
    block: &Block,
    first: &mut Option<u32>,
    range: &mut Option<(u32, u32)>,
) {
    for (statement, span) in block.span_iter() {
        if let Statement::Block(ref inner) = *statement {
            own_lines_into(lines, (function, lets), inner, first, range);
            continue;
        }
        let span = match *statement {
            Statement::Emit(ref emitted) => emitted_span((function, lets), emitted.clone(), *span),
            _ => *span,
        };
        let Some((start, end)) = lines.span_lines(span) else {
            continue;
        };
        let end = match *statement {
            Statement::If { .. } | Statement::Switch { .. } | Statement::Loop { .. } => start,
            _ => end,
        };
        first.get_or_insert(start);
        *range = Some(match *range {
            None => (start, end),
            Some((a, b)) => (a.min(start), b.max(end)),
        });
    }
}

/// The span of the text an `Emit` evaluates: the statement's `span`, where an expression whose
/// span naga borrowed ([`span_is_borrowed`]) counts at its `let` (`let v = *p;`) or not at all,
/// since its borrowed span would stretch a branch's lines back to the value it reads and take
/// the lines in between from the block that runs them.
fn emitted_span(
    (function, lets): (&Function, &LetSpans),
    emitted: naga::Range<naga::Expression>,
    span: Span,
) -> Span {
    let borrowed = |h: Handle<naga::Expression>| span_is_borrowed(function, h);
    if !emitted.clone().any(borrowed) {
        return span;
    }
    let spans = &function.expressions;
    Span::total_span(emitted.filter_map(|h| {
        if borrowed(h) {
            lets.get(&h).copied()
        } else {
            Some(spans.get_span(h))
        }
    }))
}
