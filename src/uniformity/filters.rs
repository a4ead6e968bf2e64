//! Diagnostic filters read from the text: `diagnostic(severity, rule)` directives and
//! `@diagnostic(severity, rule)` attributes, each with the range of text it governs.
//!
//! naga 30 keeps module-level and function-level filters, but rejects `@diagnostic` on compound,
//! `if`, `switch` and loop statements ("not yet implemented at this parse site") and knows no
//! `subgroup_uniformity` rule. So divlab reads every filter from the text, and returns the
//! statement-level attributes' ranges so they can be blanked (with spaces, so offsets do not
//! move) before naga parses the text.

use std::ops::Range;

use super::source::{Rule, Severity};

/// One `diagnostic(severity, rule)` filter and the prepared-text range it governs.
#[derive(Clone, Debug)]
pub(crate) struct Filter {
    pub range: Range<usize>,
    pub rule: Rule,
    /// `None` is `off`.
    pub severity: Option<Severity>,
}

/// A minimal WGSL token scanner: identifiers, punctuation, skipping comments.
struct Scanner<'a> {
    text: &'a [u8],
    pos: usize,
}

impl<'a> Scanner<'a> {
    fn skip_trivia(&mut self) {
        loop {
            while self.pos < self.text.len() && self.text[self.pos].is_ascii_whitespace() {
                self.pos += 1;
            }
            if self.text[self.pos..].starts_with(b"//") {
                while self.pos < self.text.len() && self.text[self.pos] != b'\n' {
                    self.pos += 1;
                }
            } else if self.text[self.pos..].starts_with(b"/*") {
                // Block comments nest in WGSL.
                let mut depth = 0;
                while self.pos < self.text.len() {
                    if self.text[self.pos..].starts_with(b"/*") {
                        depth += 1;
                        self.pos += 2;
                    } else if self.text[self.pos..].starts_with(b"*/") {
                        depth -= 1;
                        self.pos += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        self.pos += 1;
                    }
                }
            } else {
                return;
            }
        }
    }

    /// The next token (an identifier or one byte of punctuation) and its start, after trivia.
    fn next(&mut self) -> Option<(usize, &'a str)> {
        self.skip_trivia();
        let start = self.pos;
        let &b = self.text.get(start)?;
        if b.is_ascii_alphanumeric() || b == b'_' {
            while self.pos < self.text.len()
                && (self.text[self.pos].is_ascii_alphanumeric() || self.text[self.pos] == b'_')
            {
                self.pos += 1;
            }
        } else {
            self.pos += 1;
        }
        let s = std::str::from_utf8(&self.text[start..self.pos]).unwrap_or("");
        Some((start, s))
    }

    fn peek(&mut self) -> Option<(usize, &'a str)> {
        let save = self.pos;
        let t = self.next();
        self.pos = save;
        t
    }

    /// Skips a balanced `( ... )` group when one comes next.
    fn skip_parens(&mut self) {
        if self.peek().map(|t| t.1) == Some("(") {
            self.skip_group("(", ")");
        }
    }

    /// Moves past the next `{ ... }` group and returns the offset just after its `}`.
    fn skip_braced(&mut self) -> usize {
        self.skip_group("{", "}")
    }

    /// Moves past the next balanced `open ... close` group; returns the offset just after it,
    /// or the end of the text when it does not close.
    fn skip_group(&mut self, open: &str, close: &str) -> usize {
        let mut depth = 0;
        while let Some((at, t)) = self.next() {
            if t == open {
                depth += 1;
            } else if t == close {
                depth -= 1;
                if depth == 0 {
                    return at + 1;
                }
            }
        }
        self.text.len()
    }
}

/// Reads `diagnostic(...)` directives and `@diagnostic(...)` attributes. Returns the filters
/// and the ranges of statement-level attributes that naga cannot parse.
pub(crate) fn scan_filters(text: &str) -> (Vec<Filter>, Vec<Range<usize>>) {
    let mut filters = Vec::new();
    let mut blank = Vec::new();
    let mut s = Scanner {
        text: text.as_bytes(),
        pos: 0,
    };
    let mut depth = 0usize;
    while let Some((at, tok)) = s.next() {
        match tok {
            "{" => depth += 1,
            "}" => depth = depth.saturating_sub(1),
            "diagnostic" if depth == 0 && s.peek().map(|t| t.1) == Some("(") => {
                if let Some((rule, severity)) = read_filter(&mut s) {
                    filters.push(Filter {
                        range: 0..text.len(),
                        rule,
                        severity,
                    });
                }
            }
            "@" if s.peek().map(|t| t.1) == Some("diagnostic") => {
                s.next();
                let parsed = read_filter(&mut s);
                let attr_end = s.pos;
                // What follows (after any further attributes) decides what the attribute covers.
                let mut look = Scanner {
                    text: s.text,
                    pos: s.pos,
                };
                while look.peek().map(|t| t.1) == Some("@") {
                    look.next();
                    look.next();
                    look.skip_parens();
                }
                let target = look.peek().map(|t| t.1).unwrap_or_default();
                let end = covered_end(&mut look, target);
                if target != "fn" {
                    blank.push(at..attr_end);
                }
                if let Some((rule, severity)) = parsed {
                    filters.push(Filter {
                        range: at..end,
                        rule,
                        severity,
                    });
                }
            }
            _ => {}
        }
    }
    (filters, blank)
}

/// `text` with its statement-level `@diagnostic(...)` attributes blanked with spaces (lines and
/// columns stay, line breaks inside an attribute too): valid WGSL that naga 30 rejects. A
/// filter changes only which diagnostics are reported, so the text runs the same without them;
/// the analysis reads them from the text as written.
pub fn blank_statement_filters(text: &str) -> String {
    crate::shaders::blanked(text, scan_filters(text).1)
}

/// The end of the construct an attribute applies to, `look` standing just before it.
fn covered_end(look: &mut Scanner<'_>, target: &str) -> usize {
    let end = look.skip_braced();
    if target != "if" {
        return end;
    }
    // An `if` statement includes its `else if` and `else` clauses.
    let mut end = end;
    while look.peek().map(|t| t.1) == Some("else") {
        look.next();
        end = look.skip_braced();
    }
    end
}

/// Parses `(severity, rule)` after `diagnostic`; `None` for rules divlab does not evaluate.
fn read_filter(s: &mut Scanner<'_>) -> Option<(Rule, Option<Severity>)> {
    let mut words = Vec::new();
    let start = s.pos;
    s.skip_parens();
    let inner = std::str::from_utf8(&s.text[start..s.pos]).unwrap_or("");
    let mut inner_scan = Scanner {
        text: inner.as_bytes(),
        pos: 0,
    };
    while let Some((_, t)) = inner_scan.next() {
        if t != "(" && t != ")" && t != "," {
            words.push(t.to_owned());
        }
    }
    let severity = match words.first()?.as_str() {
        "off" => None,
        "info" => Some(Severity::Info),
        "warning" => Some(Severity::Warning),
        "error" => Some(Severity::Error),
        _ => return None,
    };
    let rule = match words.get(1..)?.join("").as_str() {
        "subgroup_uniformity" => Rule::SubgroupUniformity,
        "derivative_uniformity" => Rule::DerivativeUniformity,
        _ => return None,
    };
    Some((rule, severity))
}

#[cfg(test)]
mod tests {
    use super::super::source::Source;
    use super::*;

    #[test]
    fn filters_nest_and_statement_attributes_are_blanked() {
        let src = "diagnostic(warning, subgroup_uniformity);\n\
                   @diagnostic(info, subgroup_uniformity) fn f() {\n\
                   @diagnostic(off, subgroup_uniformity) if true { let x = 1; } else { let y = 2; }\n\
                   let z = 3;\n}\nfn g() {}\n";
        let s = Source::new("t.wgsl", src);
        let at = |needle: &str| s.prepared.find(needle).unwrap();
        let rule = Rule::SubgroupUniformity;
        assert_eq!(s.severity_at(rule, at("let x")), None);
        assert_eq!(s.severity_at(rule, at("let y")), None);
        assert_eq!(s.severity_at(rule, at("let z")), Some(Severity::Info));
        assert_eq!(s.severity_at(rule, at("fn g")), Some(Severity::Warning));
        assert_eq!(
            s.severity_at(Rule::DerivativeUniformity, at("let x")),
            Some(Severity::Error)
        );
        assert!(!s.prepared.contains("@diagnostic(off"));
        assert!(s.prepared.contains("@diagnostic(info"));
        assert_eq!(
            s.prepared.len(),
            crate::shaders::prepare_for_naga(src).len()
        );
        // What `divlab profile` runs: the same text, so the module it parses from it lines up
        // with the analysis of the source as written.
        let runnable = blank_statement_filters(src);
        assert_eq!(crate::shaders::prepare_for_naga(&runnable), s.prepared);
        assert_eq!(runnable.lines().count(), src.lines().count());
        // An attribute over two lines leaves both line breaks: the lines after it keep their
        // numbers (it took one line out of every later number).
        let two_lines =
            "fn f() {\n@diagnostic(off,\n  subgroup_uniformity)\nif true { let x = 1; }\n}\n";
        let runnable = blank_statement_filters(two_lines);
        assert!(!runnable.contains("@diagnostic"), "{runnable}");
        assert_eq!(runnable.lines().count(), two_lines.lines().count());
        let s = Source::new("t.wgsl", two_lines);
        assert_eq!(s.prepared.lines().count(), two_lines.lines().count());
    }
}
