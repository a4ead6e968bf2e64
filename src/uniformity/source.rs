//! The source as written and the text naga parses (`prepare_for_naga`'s output with
//! statement-level `@diagnostic` attributes blanked), the offset map between them, and what
//! messages need from the text: locations, snippets, where a call's arguments are written.

use std::collections::HashMap;
use std::ops::Range;

use super::filters::{Filter, scan_filters};
// Defined in `rule.rs`; named here as before.
pub(crate) use super::rule::{Rule, Severity};
use crate::shaders::prepare_for_naga;

/// What `prepare_for_naga` puts where the source says `subgroupElect()`.
const ELECT: &str = "subgroupElect()";

/// One source line: where it starts in both texts, and how `subgroupElect()` was rewritten.
#[derive(Clone, Debug)]
struct LineMap {
    prepared_start: usize,
    original_start: usize,
    original_len: usize,
    /// `None` when the line is unchanged. Otherwise pairs of line-relative ranges
    /// (prepared, original) for each rewritten `subgroupElect()`; an empty list means the line
    /// changed in another way (an `enable` directive), and everything on it maps to its start.
    rewrites: Option<Vec<(Range<usize>, Range<usize>)>>,
}

/// The source text, what naga parses, and the filters in force.
#[derive(Clone, Debug)]
pub(crate) struct Source {
    /// The name used in messages.
    pub name: String,
    /// The text as written.
    pub original: String,
    /// What naga parses: [`prepare_for_naga`]'s output with statement attributes blanked.
    pub prepared: String,
    lines: Vec<LineMap>,
    filters: Vec<Filter>,
    /// Where each line of `original` starts: locations by binary search, not by counting from
    /// the start of the text at every call (quadratic on a long file).
    original_lines: Vec<usize>,
    /// The offsets of `let NAME` in the prepared text, by `NAME`: `locate_lets` looks a name up
    /// here instead of scanning the text from its function's start for each `let`.
    lets: HashMap<String, Vec<usize>>,
}

impl Source {
    /// Prepares `original` for naga and reads its diagnostic filters.
    pub fn new(name: &str, original: &str) -> Self {
        // Lone CRs as line feeds: every line below is then the line naga and an editor count.
        let normalized = crate::shaders::normalize_line_breaks(original);
        let original: &str = &normalized;
        let prepared = prepare_for_naga(original);
        let lines = map_lines(original, &prepared);
        let (filters, blank) = scan_filters(&prepared);
        let prepared = crate::shaders::blanked(&prepared, blank);
        let original_lines = std::iter::once(0)
            .chain(original.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        let lets = index_lets(&prepared);
        Self {
            name: name.to_owned(),
            original: original.to_owned(),
            prepared,
            lines,
            filters,
            original_lines,
            lets,
        }
    }

    /// The offsets (in the prepared text, ascending) of each `let` whose name is `name`: the
    /// `l` of `let`, which follows no ASCII letter or digit, with `name` as the whole identifier
    /// after it. Only for a name made of alphanumeric characters and `_`.
    pub fn let_offsets(&self, name: &str) -> &[usize] {
        self.lets.get(name).map_or(&[], Vec::as_slice)
    }

    /// The severity a builtin call at `offset` (in the prepared text) gets for `rule`: the
    /// nearest enclosing filter's, else the rule's default (error). `None` is `off`.
    pub fn severity_at(&self, rule: Rule, offset: usize) -> Option<Severity> {
        self.filters
            .iter()
            .filter(|f| f.rule == rule && f.range.contains(&offset))
            .min_by_key(|f| f.range.len())
            .map_or(Some(Severity::Error), |f| f.severity)
    }

    /// The original-text offset of a prepared-text offset.
    pub fn original_offset(&self, prepared: usize) -> usize {
        let i = self
            .lines
            .partition_point(|l| l.prepared_start <= prepared)
            .saturating_sub(1);
        let Some(line) = self.lines.get(i) else {
            return 0;
        };
        let rel = prepared - line.prepared_start;
        let mapped = match &line.rewrites {
            None => rel,
            Some(rewrites) if rewrites.is_empty() => 0,
            Some(rewrites) => {
                let mut shift: isize = 0;
                let mut mapped = None;
                for (p, o) in rewrites {
                    if rel < p.start {
                        break;
                    }
                    if rel < p.end {
                        mapped = Some(o.start);
                        break;
                    }
                    shift = o.end as isize - p.end as isize;
                }
                mapped.unwrap_or((rel as isize + shift).max(0) as usize)
            }
        };
        line.original_start + mapped.min(line.original_len)
    }

    /// Whether a prepared-text offset lies inside a rewritten `subgroupElect()`.
    pub fn is_elect(&self, prepared: usize) -> bool {
        let i = self
            .lines
            .partition_point(|l| l.prepared_start <= prepared)
            .saturating_sub(1);
        self.lines.get(i).is_some_and(|line| {
            let rel = prepared - line.prepared_start;
            line.rewrites
                .iter()
                .flatten()
                .any(|(p, _)| p.contains(&rel))
        })
    }

    /// 1-based line and byte column (as naga counts) of an original-text offset.
    pub fn line_col(&self, original: usize) -> (u32, u32) {
        let clamped = original.min(self.original.len());
        // Lines starting at or before the offset: one more than the line breaks before it.
        let line = self.original_lines.partition_point(|&s| s <= clamped);
        let start = self.original_lines[line - 1];
        (line as u32, (original - start) as u32 + 1)
    }

    /// 1-based line and column of a prepared-text offset, in the original text.
    pub fn location(&self, prepared: usize) -> (u32, u32) {
        let original = self.original_offset(prepared).min(self.original.len());
        self.line_col(original)
    }

    /// The original-text range of a prepared-text span.
    pub fn original_range(&self, span: naga::Span) -> Range<usize> {
        let r = span.to_range().unwrap_or(0..0);
        let start = self.original_offset(r.start);
        let mut end = self.original_offset(r.end).max(start);
        if end == start && self.is_elect(r.start) {
            // A span inside the rewrite of `subgroupElect()` stands for the whole call.
            end = (start + ELECT.len()).min(self.original.len());
        }
        start..end
    }

    /// The span of argument `index` of the call at `call`, read from the text: naga gives an
    /// argument that names a parameter or `let` the span of its declaration, not of its use.
    pub fn argument_span(&self, call: naga::Span, index: usize) -> Option<naga::Span> {
        let r = call.to_range()?;
        // naga's span of a builtin call may cover only its name: read on to the `)`.
        let text = self.prepared.get(r.start..)?;
        let open = text.find('(')?;
        if !text[..open]
            .trim()
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_')
        {
            return None;
        }
        let (mut depth, mut arg, mut start) = (0usize, 0usize, open + 1);
        for (i, c) in text[open..].char_indices().map(|(i, c)| (open + i, c)) {
            match c {
                '(' | '[' => depth += 1,
                ')' | ']' if depth == 1 && c == ')' => {
                    return (arg == index).then(|| trimmed(text, r.start, start, i));
                }
                ')' | ']' => depth = depth.saturating_sub(1),
                ',' if depth == 1 => {
                    if arg == index {
                        return Some(trimmed(text, r.start, start, i));
                    }
                    arg += 1;
                    start = i + 1;
                }
                _ => {}
            }
        }
        None
    }

    /// The span of the text between `keyword` and the first `{` of the statement at `stmt`:
    /// an `if` condition or `switch` selector as written.
    pub fn header_span(&self, stmt: naga::Span, keyword: &str) -> Option<naga::Span> {
        let r = stmt.to_range()?;
        let text = self.prepared.get(r.clone())?;
        let body = text.strip_prefix(keyword)?;
        let brace = body.find('{')?;
        let start = keyword.len();
        Some(trimmed(text, r.start, start, start + brace))
    }

    /// The original text of a prepared-text span, on one line and shortened, for messages.
    pub fn snippet(&self, span: naga::Span) -> String {
        let text = &self.original[self.original_range(span)];
        // The words of `text` one space apart, read only as far as the 49th character: a chain
        // of 20,000 operators has as many nested spans, each as long as the chain so far.
        let mut one_line = String::new();
        let mut count = 0;
        for word in text.split_whitespace() {
            for c in (!one_line.is_empty())
                .then_some(' ')
                .into_iter()
                .chain(word.chars())
            {
                one_line.push(c);
                count += 1;
                if count > 48 {
                    return one_line.chars().take(45).collect::<String>() + "...";
                }
            }
        }
        one_line
    }
}

/// Every `let NAME` of the text by `NAME` (see [`Source::let_offsets`]).
fn index_lets(text: &str) -> HashMap<String, Vec<usize>> {
    let mut out: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, _) in text.match_indices("let ") {
        if i > 0 && text.as_bytes()[i - 1].is_ascii_alphanumeric() {
            continue;
        }
        let rest = text[i + 4..].trim_start();
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if end > 0 {
            out.entry(rest[..end].to_owned()).or_default().push(i);
        }
    }
    out
}

/// `text[from..to]` without surrounding whitespace, as a span of the whole text.
fn trimmed(text: &str, base: usize, from: usize, to: usize) -> naga::Span {
    let part = &text[from..to];
    let lead = part.len() - part.trim_start().len();
    let len = part.trim().len();
    naga::Span::from(base + from + lead..base + from + lead + len)
}

/// Pairs each original line with its prepared line. `prepare_for_naga` keeps the line count.
fn map_lines(original: &str, prepared: &str) -> Vec<LineMap> {
    let mut out = Vec::new();
    let (mut o_start, mut p_start) = (0, 0);
    let mut p_lines = prepared.split('\n');
    for o_line in original.split('\n') {
        let o_line_clean = o_line.strip_suffix('\r').unwrap_or(o_line);
        let p_line = p_lines.next().unwrap_or_default();
        let rewrites = if o_line_clean == p_line || o_line == p_line {
            None
        } else if o_line_clean.contains(ELECT)
            && o_line_clean.replace(ELECT, elect_replacement()) == p_line
        {
            Some(elect_rewrites(o_line_clean))
        } else {
            Some(Vec::new())
        };
        out.push(LineMap {
            prepared_start: p_start,
            original_start: o_start,
            original_len: o_line.len(),
            rewrites,
        });
        o_start += o_line.len() + 1;
        p_start += p_line.len() + 1;
    }
    out
}

/// The text `prepare_for_naga` substitutes for `subgroupElect()`, found by asking it, so the
/// two never disagree.
fn elect_replacement() -> &'static str {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| prepare_for_naga(ELECT))
}

/// (prepared, original) line-relative ranges of each `subgroupElect()` on a line.
fn elect_rewrites(line: &str) -> Vec<(Range<usize>, Range<usize>)> {
    let replacement = elect_replacement().len();
    let mut out = Vec::new();
    let mut shift = 0usize;
    for (o, _) in line.match_indices(ELECT) {
        let p = o + shift;
        out.push((p..p + replacement, o..o + ELECT.len()));
        shift += replacement - ELECT.len().min(replacement);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elect_offsets_map_back() {
        let src = "fn f() {\n  let a = subgroupElect(); let b = 1u;\n}\n";
        let s = Source::new("t.wgsl", src);
        let b_prepared = s.prepared.find("let b").unwrap();
        assert_eq!(s.original_offset(b_prepared), src.find("let b").unwrap());
        let call = s.prepared.find("subgroupExclusiveAdd").unwrap();
        assert!(s.is_elect(call));
        assert_eq!(s.original_offset(call), src.find("subgroupElect").unwrap());
        assert_eq!(s.location(b_prepared), (2, 28));
    }
}
