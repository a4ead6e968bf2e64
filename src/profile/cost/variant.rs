//! The counterfactual kernels of one branch, written into the user's text so that every line
//! keeps its number: the timed kernel (`Timed`), in which a control buffer picks the branch's
//! decision, the subgroup's first active lane's ([`Control::Uniform`]) or each lane's own
//! ([`Control::Placebo`]), and the first lane's decision without the buffer, for the counted
//! run (`Counted`).
//!
//! The timed pair is one pipeline dispatched with two control buffers: the compiler cannot see
//! the value (`divlab_ctl[0] == 0u`), so it must compile a branch on a value that may differ
//! between lanes, and the two dispatches run the same machine code, so their difference is the
//! divergence's cost, not the probe's nor where the driver placed two pipelines' code (two
//! pipelines differing only in a `select`'s operands moved a few timer steps between
//! processes on the H200: docs/findings.md).

use std::ops::Range;

use crate::shaders::mask_comments;

/// Which counterfactual to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// The control buffer picks whose decision each lane follows.
    Timed,
    /// [`Control::Uniform`]'s decision without the control buffer: what the counted
    /// (instrumented) run executes.
    Counted,
}

/// The value of the timed kernel's control buffer (`divlab_ctl[0]`): whose decision its lanes
/// follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// Each subgroup takes the path its first active lane takes.
    Uniform = 0,
    /// Each lane takes its own path, through the same instructions.
    Placebo = 1,
}

/// A branch found in the text: the keyword, its condition or selector, and the lines the
/// statement spans (its blocks and any `else`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BranchText {
    /// `if` or `switch`.
    pub keyword: &'static str,
    /// Byte range of the condition or selector, between the keyword and the `{`.
    pub condition: Range<usize>,
    /// 1-based lines from the keyword to the statement's last `}`.
    pub lines: Range<u32>,
    /// Whether the first line holds the header alone (nothing after the `{` but a comment, and
    /// the blocks on later lines): that line's counts are then the evaluations of the condition
    /// or selector, which the branch's own decision does not change unless it steers how often
    /// it is reached (a `return` inside a loop changes the loop's trips).
    pub header_alone: bool,
}

/// Why a branch has no variant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoVariant {
    /// No `if`/`switch` keyword of that kind on the line (a loop's test, or a branch naga made
    /// of a short-circuit operator).
    NotInText,
    /// More than one on the line: which one the counts belong to is not known.
    Several,
}

/// The module-scope declarations a timed variant appends: the control buffer at `group`.
pub(super) fn control_binding(group: u32) -> String {
    format!("\n@group({group}) @binding(0) var<storage, read> divlab_ctl: array<u32>;\n")
}

/// The helper an `if` calls, by form (its parameter evaluates the condition once).
fn if_helper(form: Form) -> String {
    let decide = decision("c", "subgroupBroadcastFirst(u32(c)) != 0u", form);
    format!("\nfn divlab_decide(c: bool) -> bool {{\n    return {decide};\n}}\n")
}

/// A `switch` selector's replacement: `select` is generic over `i32` and `u32`, so the text
/// needs no type; the selector is evaluated twice, in both forms alike.
fn switch_selector(selector: &str, form: Form) -> String {
    let first = format!("subgroupBroadcastFirst({selector})");
    decision(&format!("({selector})"), &first, form)
}

/// The `select` between each lane's own decision (`own`) and its subgroup's first lane's
/// (`first`): the counted form returns `first`, the timed form whichever the control buffer
/// names ([`Control`]).
fn decision(own: &str, first: &str, form: Form) -> String {
    let uniform = match form {
        Form::Timed => format!("divlab_ctl[0] == {}u", Control::Uniform as u32),
        Form::Counted => "true".to_owned(),
    };
    format!("select({own}, {first}, {uniform})")
}

/// `source` with the branch at `branch` rewritten as `form`; timed forms bind the control
/// buffer at `@group(control_group) @binding(0)`.
pub fn write(source: &str, branch: &BranchText, form: Form, control_group: u32) -> String {
    // The condition without its comments, on one line.
    let code = mask_comments(source);
    let condition = &code[branch.condition.clone()];
    let flat = flat(condition);
    let replaced = match branch.keyword {
        "if" => format!(" divlab_decide({flat}) "),
        _ => format!(" {} ", switch_selector(&flat, form)),
    };
    let mut out = String::with_capacity(source.len() + 256);
    out.push_str(&source[..branch.condition.start]);
    // Newlines inside the condition stay, so that the lines after it keep their numbers.
    let breaks = condition.matches('\n').count();
    out.push_str(&replaced);
    out.push_str(&"\n".repeat(breaks));
    out.push_str(&source[branch.condition.end..]);
    if branch.keyword == "if" {
        out.push_str(&if_helper(form));
    }
    if form != Form::Counted {
        out.push_str(&control_binding(control_group));
    }
    out
}

/// The `keyword` (`if` or `switch`) statement that starts on `line` (1-based) of `source`.
pub fn find(source: &str, line: u32, keyword: &'static str) -> Result<BranchText, NoVariant> {
    let code = mask_comments(source);
    let start = line_start(&code, line).ok_or(NoVariant::NotInText)?;
    let end = code[start..].find('\n').map_or(code.len(), |n| start + n);
    let hits: Vec<usize> = keyword_positions(&code[start..end], keyword)
        .into_iter()
        .map(|at| start + at)
        .collect();
    let at = match hits.as_slice() {
        [] => return Err(NoVariant::NotInText),
        [one] => *one,
        _ => return Err(NoVariant::Several),
    };
    let after = at + keyword.len();
    let open = top_level_brace(&code, after).ok_or(NoVariant::NotInText)?;
    let close = if keyword == "if" {
        if_end(&code, open)
    } else {
        matching_brace(&code, open)
    };
    let close = close.ok_or(NoVariant::NotInText)?;
    let rest_of_line = code[open + 1..].split('\n').next().unwrap_or("");
    let lines = line..line_of(&code, close) + 1;
    Ok(BranchText {
        keyword,
        condition: after..open,
        header_alone: lines.len() > 1 && rest_of_line.trim().is_empty(),
        lines,
    })
}

/// `text` on one line, its blanks collapsed.
pub(super) fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub(super) fn line_start(text: &str, line: u32) -> Option<usize> {
    if line == 0 {
        return None;
    }
    let mut at = 0;
    for _ in 1..line {
        at += text[at..].find('\n')? + 1;
    }
    Some(at)
}

pub(super) fn line_of(text: &str, offset: usize) -> u32 {
    1 + text[..offset].matches('\n').count() as u32
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn starts_word(text: &str, at: usize, word: &str) -> bool {
    let bytes = text.as_bytes();
    text[at.min(text.len())..].starts_with(word)
        && bytes.get(at + word.len()).is_none_or(|&b| !is_word_byte(b))
        && (at == 0 || !is_word_byte(bytes[at - 1]))
}

fn keyword_positions(line: &str, keyword: &str) -> Vec<usize> {
    line.match_indices(keyword)
        .map(|(at, _)| at)
        .filter(|&at| starts_word(line, at, keyword))
        .collect()
}

pub(super) fn skip_space(text: &str, mut at: usize) -> usize {
    let bytes = text.as_bytes();
    while at < bytes.len() && bytes[at].is_ascii_whitespace() {
        at += 1;
    }
    at
}

/// The first `{` at or after `from` outside parentheses and brackets (a WGSL expression holds
/// none, so this ends a condition or selector).
fn top_level_brace(text: &str, from: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (i, b) in text.bytes().enumerate().skip(from) {
        match b {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'{' if depth == 0 => return Some(i),
            b';' | b'}' => return None,
            _ => {}
        }
    }
    None
}

/// The blocks of the `if` whose first block opens at `open`, each as its `{` and `}`: the
/// `then` block, then each `else if`'s and `else`'s (up to one that does not read).
pub(super) fn if_blocks(code: &str, open: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut next = Some(open);
    std::iter::from_fn(move || {
        let open = next.take()?;
        let close = matching_brace(code, open)?;
        let after = skip_space(code, close + 1);
        if starts_word(code, after, "else") {
            next = top_level_brace(code, after + 4);
        }
        Some((open, close))
    })
}

/// The last `}` of the `if` whose first block opens at `open`: its `else if` and `else` blocks
/// belong to the statement (where one does not read, the last that does ends it).
pub(super) fn if_end(code: &str, open: usize) -> Option<usize> {
    if_blocks(code, open).last().map(|(_, close)| close)
}

pub(super) fn matching_brace(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (i, b) in text.bytes().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const KERNEL: &str = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var x = 0u; // if this were code { it would count }
    if (lid % 2u == 0u &&
        lid > 3u) { /* } */
        x = 1u;
    } else if lid == 1u {
        x = 2u;
    } else {
        x = 3u;
    }
    switch lid % 4u {
        case 0u: { x += 1u; }
        default: { x += 2u; }
    }
    out[lid] = x;
}
";

    #[test]
    fn a_header_alone_on_its_line_is_told_from_one_that_holds_a_side() {
        let source = "fn f(x: u32) -> u32 {\n    if (x > 1u) { // big\n        return 1u;\n    }\n    \
                      if (x > 2u) { return 2u; }\n    if (x > 3u) { let y = 1u;\n        return y;\n    }\n    return 0u;\n}\n";
        let alone = |line| find(source, line, "if").unwrap().header_alone;
        assert!(alone(2));
        assert!(!alone(5), "one line: the header's line is the side's too");
        assert!(!alone(6), "a side's statement on the header's line");
    }

    #[test]
    fn an_if_spans_its_else_chain_and_a_condition_over_two_lines() {
        let branch = find(KERNEL, 5, "if").unwrap();
        assert_eq!(branch.lines, 5..13);
        assert_eq!(
            &KERNEL[branch.condition.clone()],
            " (lid % 2u == 0u &&\n        lid > 3u) "
        );
        // `else if` on line 8 is its own `if`, in the first one's chain.
        assert_eq!(find(KERNEL, 8, "if").unwrap().lines, 8..13);
        let switch = find(KERNEL, 13, "switch").unwrap();
        assert_eq!(switch.lines, 13..17);
        assert_eq!(&KERNEL[switch.condition], " lid % 4u ");
    }

    #[test]
    fn comments_loops_and_missing_keywords_have_no_variant() {
        assert_eq!(find(KERNEL, 4, "if"), Err(NoVariant::NotInText));
        assert_eq!(find(KERNEL, 99, "if"), Err(NoVariant::NotInText));
        let two = "fn f(a: u32) {\n if a > 1u { } if a > 2u { }\n}\n";
        assert_eq!(find(two, 2, "if"), Err(NoVariant::Several));
    }

    #[test]
    fn variants_keep_every_line_and_parse() {
        for (line, keyword) in [(5, "if"), (8, "if"), (13, "switch")] {
            let branch = find(KERNEL, line, keyword).unwrap();
            for form in [Form::Timed, Form::Counted] {
                let text = write(KERNEL, &branch, form, 1);
                let original: Vec<&str> = KERNEL.lines().collect();
                let lines: Vec<&str> = text.lines().collect();
                // Every line after the branch's condition is where it was.
                assert_eq!(lines[13..18], original[13..18], "{form:?} {line}");
                naga::front::wgsl::parse_str(&text)
                    .unwrap_or_else(|e| panic!("{form:?} line {line}: {e}\n{text}"));
                assert_eq!(text.contains("divlab_ctl"), form != Form::Counted);
            }
        }
    }

    /// What a compiler may assume follows WGSL's uniformity rules: in the uniform variant, the
    /// branch's body is still in non-uniform control flow, so no compiler can make it a
    /// uniform branch (the decision goes through a buffer it cannot read at compile time).
    #[test]
    fn the_uniform_variant_is_still_a_branch_the_compiler_must_treat_as_divergent() {
        for (line, keyword, body) in [(5, "if", 7), (13, "switch", 14)] {
            let branch = find(KERNEL, line, keyword).unwrap();
            let text = write(KERNEL, &branch, Form::Timed, 1);
            let analysis = crate::uniformity::analyze_source("variant.wgsl", &text).unwrap();
            let verdict = analysis.line(body).unwrap();
            assert_eq!(
                verdict.subgroup,
                crate::uniformity::Verdict::NonUniform,
                "line {body} of\n{text}"
            );
        }
    }

    #[test]
    fn the_control_value_picks_the_first_lanes_decision_or_each_lanes_own() {
        let branch = find(KERNEL, 13, "switch").unwrap();
        let timed = write(KERNEL, &branch, Form::Timed, 1);
        let counted = write(KERNEL, &branch, Form::Counted, 1);
        // select(f, t, c) is t where c holds: 0 in the buffer takes the first lane's.
        assert!(
            timed.contains(
                "select((lid % 4u), subgroupBroadcastFirst(lid % 4u), divlab_ctl[0] == 0u)"
            )
        );
        assert!(counted.contains("select((lid % 4u), subgroupBroadcastFirst(lid % 4u), true)"));
    }
}
