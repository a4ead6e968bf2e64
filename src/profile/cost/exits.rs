//! The `else` an `if` that leaves its block writes without the word: `if c { continue; } rest`
//! runs `rest` where `c` fails, as `if c {} else { rest }` would (and with an `else`, `rest` is
//! that path's). So `rest` (to the end of the loop body it continues, or of the function it
//! returns from) is the branch's work: a subgroup whose first lane decides runs it with all its
//! lanes or with none, and no work outside the branch moves. A `break` has none here: it also
//! changes the loop's trips, as a divergent loop does, which a variant whose lanes agree cannot
//! leave as they were.

use std::ops::Range;

use super::chain::{first_word, statement_start};
use super::variant::{BranchText, if_blocks, line_of, matching_brace};
use crate::shaders::mask_comments;

/// How an `if`'s block leaves what holds it; a `return` leaves more.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Exit {
    Continue,
    Return,
}

/// The code an `if` skips where it is taken.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImplicitElse {
    /// 1-based lines, from the line after the `if` to the end of the loop body or function.
    pub lines: Range<u32>,
    /// The statement that leaves.
    pub by: Exit,
}

impl ImplicitElse {
    /// What it is, in words: its lines, the statement that skips them, and whose work they are.
    pub fn describe(&self) -> String {
        let keyword = match self.by {
            Exit::Continue => "continue",
            Exit::Return => "return",
        };
        format!(
            "lines {} to {}, skipped by its `{keyword}`, count as its work",
            self.lines.start,
            self.lines.end - 1
        )
    }
}

/// The lines an `if` (`branch`, in `source`) skips on the paths whose block ends in `continue`
/// or `return`: from the line after the statement to the end of the loop body it continues or
/// the function it returns from (a `return` on any path: the function's). The other paths run
/// them, so they are those paths' work. `None` where no block of the statement leaves.
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
    let mut blocks = enclosing_blocks(&code, branch.condition.end);
    let held_by = match exit {
        Exit::Continue => blocks.find(|&brace| opens_loop(&code, brace))?,
        Exit::Return => blocks.last()?,
    };
    let end = line_of(&code, matching_brace(&code, held_by)?) + 1;
    let start = line_of(&code, close) + 1;
    (start < end).then_some(ImplicitElse {
        lines: start..end,
        by: exit,
    })
}

/// Whether `block` (a block's statements, without its braces) ends in `continue` or `return`.
fn last_statement_exit(block: &str) -> Option<Exit> {
    let body = block.trim_end().strip_suffix(';')?;
    match first_word(body, statement_start(body, body.len())) {
        "continue" => Some(Exit::Continue),
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
        // An `if` whose block does not end by leaving, and one that breaks.
        assert_eq!(rest(13), None);
        assert_eq!(rest(20), None);
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
