//! The `else` an `if` that leaves its block writes without the word: `if c { continue; } rest`
//! runs `rest` where `c` fails, as `if c {} else { rest }` would (and with an `else`, `rest` is
//! that path's). So `rest` (to the end of the loop body it continues, the `switch` clause it
//! breaks from, or the function it returns from) is the branch's work: a subgroup whose first
//! lane decides runs it with all its lanes or with none, and no work outside the branch moves.
//! A `break` out of a loop, or a `return` from inside one, also skips that loop's later trips,
//! the lines before the `if` included: the whole loop is the branch's work, since a subgroup
//! that follows its first lane leaves it on that lane's trip where the divergent one ran on
//! until its last lane left.

use std::ops::Range;

use super::chain::{first_word, statement_start};
use super::variant::{BranchText, if_blocks, line_of, matching_brace};
use crate::shaders::mask_comments;

/// How an `if`'s block leaves what holds it; each leaves more than the one before.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Exit {
    Continue,
    Break,
    Return,
}

impl Exit {
    /// The statement, as written.
    pub fn keyword(self) -> &'static str {
        match self {
            Exit::Continue => "continue",
            Exit::Break => "break",
            Exit::Return => "return",
        }
    }
}

/// The code an `if` skips where it is taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImplicitElse {
    /// 1-based lines, from the line after the `if` to the end of the loop body, `switch` clause
    /// or function it leaves; from the first line of the outermost loop it leaves, where it
    /// leaves one.
    pub lines: Range<u32>,
    /// The statement that leaves.
    pub by: Exit,
    /// Whether the exit ends a loop's trips (`lines` then holds that loop whole).
    pub ends_loop: bool,
}

impl ImplicitElse {
    /// What it is, in words: its lines, the statement that skips them, and whose work they are.
    pub fn describe(&self) -> String {
        let (first, last) = (self.lines.start, self.lines.end - 1);
        let keyword = self.by.keyword();
        let what = match (self.ends_loop, self.by) {
            (false, _) => format!("skipped by its `{keyword}`"),
            (true, Exit::Return) => {
                format!("the loop its `{keyword}` leaves and the rest of the function")
            }
            (true, _) => format!("the loop its `{keyword}` leaves"),
        };
        format!("lines {first} to {last}, {what}, count as its work")
    }
}

/// The lines an `if` (`branch`, in `source`) skips on the paths whose block ends in
/// `continue`, `break` or `return`: from the line after the statement to the end of the loop
/// body it continues, the `switch` clause it breaks from, or the function it returns from (the
/// exit that leaves the most, on any path), and the whole of the outermost loop it leaves. The
/// other paths run them, so they are those paths' work. `None` where no block of the statement
/// leaves.
pub fn implicit_else(source: &str, branch: &BranchText) -> Option<ImplicitElse> {
    if branch.keyword != "if" {
        return None;
    }
    let code = mask_comments(source);
    let blocks: Vec<(usize, usize)> = if_blocks(&code, branch.condition.end).collect();
    let (_, close) = *blocks.last()?;
    let exit = (blocks.iter())
        .filter_map(|&(open, close)| last_statement_exit(&code[open + 1..close]))
        .max()?;
    let holding: Vec<usize> = enclosing_blocks(&code, branch.condition.end).collect();
    let is_loop = |&&brace: &&usize| opens_loop(&code, brace);
    let (held_by, left_loop) = match exit {
        Exit::Continue => (*holding.iter().find(is_loop)?, None),
        Exit::Break => {
            let held_by = *(holding.iter())
                .find(|&&brace| opens_loop(&code, brace) || opens_clause(&code, brace))?;
            (held_by, opens_loop(&code, held_by).then_some(held_by))
        }
        // The function's body, and the outermost loop in it.
        Exit::Return => (
            *holding.last()?,
            holding.iter().rev().find(is_loop).copied(),
        ),
    };
    let end = line_of(&code, matching_brace(&code, held_by)?) + 1;
    let start = match left_loop {
        Some(brace) => line_of(&code, statement_start(&code, brace)),
        None => line_of(&code, close) + 1,
    };
    (start < end).then_some(ImplicitElse {
        lines: start..end,
        by: exit,
        ends_loop: left_loop.is_some(),
    })
}

/// Whether `block` (a block's statements, without its braces) ends in `continue`, `break` or
/// `return`.
fn last_statement_exit(block: &str) -> Option<Exit> {
    let body = block.trim_end().strip_suffix(';')?;
    match first_word(body, statement_start(body, body.len())) {
        "continue" => Some(Exit::Continue),
        "break" => Some(Exit::Break),
        "return" => Some(Exit::Return),
        _ => None,
    }
}

/// The `{` of each block that holds byte `at` of `code`, innermost first.
fn enclosing_blocks(code: &str, at: usize) -> impl Iterator<Item = usize> + '_ {
    let bytes = code.as_bytes();
    let mut at = at;
    std::iter::from_fn(move || {
        let mut depth = 0i32;
        while at > 0 {
            at -= 1;
            match bytes[at] {
                b'}' => depth += 1,
                b'{' if depth == 0 => return Some(at),
                b'{' => depth -= 1,
                _ => {}
            }
        }
        None
    })
}

/// Whether the `{` at `brace` opens a `for`, `while` or `loop` body: its statement's first
/// word (a `for` header's semicolons lie inside its parentheses).
fn opens_loop(code: &str, brace: usize) -> bool {
    matches!(
        first_word(code, statement_start(code, brace)),
        "for" | "while" | "loop"
    )
}

/// Whether the `{` at `brace` opens a `switch` clause, which a `break` inside it leaves.
fn opens_clause(code: &str, brace: usize) -> bool {
    matches!(
        first_word(code, statement_start(code, brace)),
        "case" | "default"
    )
}

#[cfg(test)]
mod tests {
    use super::super::variant::find;
    use super::*;

    const KERNEL: &str = "\
fn shade(x: f32) -> f32 {
    if (x < 0.0) {
        return 0.0;
    }
    let y = x * 2.0;
    return y;
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
    var c = 0.0;
    for (var i = 0u; i < 8u; i++) {
        if (i == gid.x) {
            if (gid.x > 4u) { continue; } // skip
            c += 1.0;
        }
        c += shade(f32(i));
    }
    loop {
        if c > 9.0 { break; }
        c += 1.0;
    }
    if (gid.x % 2u == 0u) {
        return;
    } else {
        c = 0.0;
    }
    c += 2.0;
}
";

    fn rest(line: u32) -> Option<Range<u32>> {
        implicit_else(KERNEL, &find(KERNEL, line, "if").unwrap()).map(|r| r.lines)
    }

    #[test]
    fn an_if_that_continues_or_returns_has_the_rest_of_its_loop_or_function_for_else() {
        // A `return` in a function: the rest of the function.
        assert_eq!(rest(2), Some(5..8));
        // A `continue` inside an inner `if`: the rest of the loop body, past that `if`.
        assert_eq!(rest(14), Some(15..19));
        let skipped = implicit_else(KERNEL, &find(KERNEL, 14, "if").unwrap()).unwrap();
        assert_eq!(
            skipped.describe(),
            "lines 15 to 18, skipped by its `continue`, count as its work"
        );
        // A `return` on one side of an `if` with an `else`: the rest of the function is the
        // other side's.
        assert_eq!(rest(23), Some(28..30));
        // An `if` whose block does not end by leaving.
        assert_eq!(rest(13), None);
    }

    const LOOPS: &str = "\
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3u) {
    var c = 0u;
    for (var i = 0u; i < 8u; i++) {
        c += 1u;
        loop {
            if c > 9u { break; }
            c += 2u;
        }
        switch c {
            case 1u: {
                if gid.x == 0u { break; }
                c = 0u;
            }
            default {}
        }
        if c == gid.x {
            c = 7u;
            return;
        }
        c += 3u;
    }
    c += 4u;
}
";

    #[test]
    fn a_break_or_a_return_out_of_a_loop_has_the_whole_loop_for_else() {
        let skipped = |line| implicit_else(LOOPS, &find(LOOPS, line, "if").unwrap()).unwrap();
        // A `break`: the loop it leaves, from its first line, and nothing after it.
        let ends_inner = skipped(7);
        assert_eq!((ends_inner.lines, ends_inner.by), (6..10, Exit::Break));
        assert_eq!(
            skipped(7).describe(),
            "lines 6 to 9, the loop its `break` leaves, count as its work"
        );
        // A `break` in a `switch` clause leaves the clause: the rest of it, as a `continue`.
        assert_eq!(skipped(12).lines, 13..15);
        assert!(!skipped(12).ends_loop);
        // A `return` in a loop: the outermost loop whole, and the rest of the function.
        assert_eq!(skipped(17).lines, 4..25);
        assert_eq!(
            skipped(17).describe(),
            "lines 4 to 24, the loop its `return` leaves and the rest of the function, count as \
             its work"
        );
    }

    #[test]
    fn loops_are_told_from_other_blocks() {
        let opens = |header: &str| {
            let code = format!("{header} {{ }}");
            opens_loop(&code, code.len() - 3)
        };
        assert!(opens("for (var i = 0u; i < n; i++)"));
        assert!(opens("while (i < n)"));
        assert!(opens("x = 1; while i < n"));
        assert!(opens("x = 1; loop"));
        assert!(!opens("if (i < n)"));
        assert!(!opens("switch (i)"));
        assert!(!opens("x = 1; continuing"));
        assert!(!opens("fn main(@builtin(global_invocation_id) gid: vec3u)"));
        assert!(!opens("fn wait_for(x: u32)"));
    }
}
