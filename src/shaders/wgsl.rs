//! WGSL as naga 30 reads it: the text rewrites divlab applies to spec-valid WGSL before naga
//! sees it (keeping line numbers), and naga's parse and validation with located errors. Pure
//! text and naga; no device.

use super::endless::{AddedReturn, close_endless_functions, unmap_added_returns};
use crate::{Error, Result};

/// naga 30 has no `subgroupElect()`. The lowest active invocation is the one whose exclusive
/// prefix count is zero, which is exactly what `subgroupElect()` returns.
const ELECT_REPLACEMENT: &str = "(subgroupExclusiveAdd(1u) == 0u)";

/// The language extensions naga 30 does not know and divlab's uniformity analysis models,
/// which `prepare_for_naga` takes out of `requires` directives.
pub const MODELLED_LANGUAGE_EXTENSIONS: [&str; 2] = ["subgroup_uniformity", "subgroup_id"];

/// Turns spec-valid WGSL into what naga 30 accepts, keeping every line and column where it was:
/// - `enable subgroups;` is rejected ("not yet supported"), so `subgroups` is blanked out of
///   every `enable` directive, wherever WGSL allows one: in the directives before the first
///   declaration, several to a line, split over lines, among comments. A directive left with no
///   extension is blanked whole.
/// - `requires subgroup_uniformity;` and `requires subgroup_id;` name language extensions naga
///   30 does not know ("unknown language extension"); divlab's analysis models both, so they are
///   blanked the same way. Any other `requires` stays for naga to judge.
/// - `subgroupElect()` has no definition in naga 30, so it becomes [`ELECT_REPLACEMENT`].
/// - A byte-order mark (which editors on Windows may add) is not WGSL: blanked.
pub fn prepare_for_naga(source: &str) -> String {
    let mut text = source.as_bytes().to_vec();
    if source.starts_with('\u{feff}') {
        blank(&mut text, 0..'\u{feff}'.len_utf8());
    }
    for (keyword, directive) in directives(source) {
        let strip: &[&str] = match keyword {
            "enable" => &["subgroups"],
            "requires" => &MODELLED_LANGUAGE_EXTENSIONS,
            _ => continue,
        };
        let inner = directive.start + keyword.len()..directive.end - 1;
        let names: Vec<(usize, &str)> = split_names(&source[inner.clone()], inner.start);
        let kept = names.iter().filter(|(_, n)| !strip.contains(n)).count();
        if kept == names.len() {
            continue;
        }
        if kept == 0 {
            blank(&mut text, directive);
            continue;
        }
        // Blank each stripped name with one comma next to it, so the list stays valid.
        let mut gone = vec![false; names.len()];
        for (i, &(at, name)) in names.iter().enumerate() {
            if !strip.contains(&name) {
                continue;
            }
            gone[i] = true;
            let comma = if let Some(next) = names.get(i + 1) {
                source[at..next.0].find(',').map(|c| at..at + c + 1)
            } else {
                // The last name takes the comma after the last name still kept.
                let kept_before = (0..i).rev().find(|&j| !gone[j]);
                kept_before.and_then(|j| {
                    let from = names[j].0 + names[j].1.len();
                    source[from..at]
                        .find(',')
                        .map(|c| from + c..at + name.len())
                })
            };
            blank(&mut text, comma.unwrap_or(at..at + name.len()));
        }
    }
    String::from_utf8(text)
        .expect("only ASCII bytes were replaced")
        .replace("subgroupElect()", ELECT_REPLACEMENT)
}

/// `text` with each lone carriage return (the line break of classic Mac OS files, which WGSL
/// counts as one) made a line feed, so that every reader of lines agrees with naga's; CRLF is
/// left alone. Byte offsets do not move.
pub fn normalize_line_breaks(text: &str) -> std::borrow::Cow<'_, str> {
    let lone_cr = |(i, b): (usize, &u8)| *b == b'\r' && text.as_bytes().get(i + 1) != Some(&b'\n');
    if !text.as_bytes().iter().enumerate().any(lone_cr) {
        return std::borrow::Cow::Borrowed(text);
    }
    let bytes: Vec<u8> = (text.as_bytes().iter().enumerate())
        .map(|(i, b)| if lone_cr((i, b)) { b'\n' } else { *b })
        .collect();
    std::borrow::Cow::Owned(String::from_utf8(bytes).expect("one ASCII byte for another"))
}

/// naga's parse error in divlab's words: naga's own, but for its recursion limit, which it
/// reports as "internal WGSL front end error" at no location. Returns the byte offset to point
/// at and the message.
pub fn parse_error_message(
    e: &naga::front::wgsl::ParseError,
    prepared: &str,
    file: &str,
) -> (Option<usize>, String) {
    let emitted = e.emit_to_string_with_path(prepared, file);
    if !emitted.contains("recursion limit") {
        return (e.location(prepared).map(|l| l.offset as usize), emitted);
    }
    let (deepest, at) = deepest_nesting(prepared);
    let loc = location_of(prepared, at);
    (
        Some(at),
        // Shaped like naga's own messages: what, then where.
        format!(
            "error: expressions or blocks nested {deepest} deep: naga, the WGSL reader divlab \
             uses, stops at about 200 levels of its own recursion (an operator or a parenthesis \
             each); split the expression with `let`s\n  ┌─ {file}:{}:{}",
            loc.line_number, loc.line_position
        ),
    )
}

/// The deepest nesting of `(`, `[` and `{` in `text`, and the byte offset where it is reached.
fn deepest_nesting(text: &str) -> (usize, usize) {
    let (mut depth, mut deepest, mut at) = (0usize, 0usize, 0usize);
    for (i, b) in text.bytes().enumerate() {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > deepest {
                    (deepest, at) = (depth, i);
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    (deepest, at)
}

/// The language extensions the module's `requires` directives name, in order.
pub fn required_extensions(source: &str) -> Vec<&str> {
    directives(source)
        .into_iter()
        .filter(|(keyword, _)| *keyword == "requires")
        .flat_map(|(keyword, d)| {
            let inner = d.start + keyword.len()..d.end - 1;
            split_names(&source[inner.clone()], inner.start)
                .into_iter()
                .map(|(_, name)| name)
        })
        .collect()
}

/// The `enable`, `requires` and `diagnostic` directives at the start of a module: each one's
/// keyword and byte range (to its `;`).
fn directives(source: &str) -> Vec<(&'static str, std::ops::Range<usize>)> {
    let masked = mask_comments(source);
    let bytes = masked.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    loop {
        at += bytes[at..]
            .iter()
            .take_while(|b| b.is_ascii_whitespace())
            .count();
        let word_end = at
            + bytes[at..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                .count();
        let keyword = match &source[at..word_end] {
            "enable" => "enable",
            "requires" => "requires",
            "diagnostic" => "diagnostic",
            _ => return found,
        };
        let Some(end) = masked[word_end..].find(';').map(|e| word_end + e + 1) else {
            return found;
        };
        found.push((keyword, at..end));
        at = end;
    }
}

/// `source` with every comment blanked to spaces (line breaks kept): WGSL's `//` comments and
/// its nesting `/* */` comments. Every byte keeps its offset, so positions in the result are
/// positions in `source`.
pub fn mask_comments(source: &str) -> String {
    let bytes = source.as_bytes();
    let mut out = bytes.to_vec();
    let (mut i, mut depth) = (0, 0usize);
    while i < bytes.len() {
        let pair = (bytes[i], bytes.get(i + 1).copied());
        if depth == 0 && pair == (b'/', Some(b'/')) {
            while i < bytes.len() && bytes[i] != b'\n' {
                out[i] = b' ';
                i += 1;
            }
            continue;
        }
        if pair == (b'/', Some(b'*')) {
            depth += 1;
        }
        if depth > 0 {
            let closes = pair == (b'*', Some(b'/'));
            for b in &mut out[i..(i + if closes { 2 } else { 1 }).min(bytes.len())] {
                if *b != b'\n' {
                    *b = b' ';
                }
            }
            i += if closes { 2 } else { 1 };
            depth -= usize::from(closes);
            continue;
        }
        i += 1;
    }
    // Only ASCII bytes were replaced, by ASCII: still UTF-8.
    String::from_utf8(out).unwrap_or_else(|_| source.to_owned())
}

/// The names of an extension list with their byte offsets (`offset` is the list's own).
fn split_names(list: &str, offset: usize) -> Vec<(usize, &str)> {
    let mut names = Vec::new();
    let mut start = 0;
    for part in list.split(',') {
        let trimmed = part.trim();
        if !trimmed.is_empty() {
            let lead = part.len() - part.trim_start().len();
            names.push((offset + start + lead, trimmed));
        }
        start += part.len() + 1;
    }
    names
}

/// `text` with each of `ranges` replaced by spaces, keeping line breaks, so every line and
/// column stays where it was.
pub fn blanked(text: &str, ranges: impl IntoIterator<Item = std::ops::Range<usize>>) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for range in ranges {
        blank(&mut bytes, range);
    }
    // Only whole bytes of the ranges were replaced, by ASCII spaces: still UTF-8.
    String::from_utf8(bytes).unwrap_or_else(|_| text.to_owned())
}

/// Replaces `range` with spaces, keeping line breaks.
fn blank(text: &mut [u8], range: std::ops::Range<usize>) {
    for b in &mut text[range] {
        if *b != b'\n' && *b != b'\r' {
            *b = b' ';
        }
    }
}

/// naga's WGSL front end on text already [prepared](prepare_for_naga): the one place divlab
/// parses WGSL it is given (`check_wgsl`, the uniformity analysis, the GL index clamp), so that
/// a test can count the parses of one text ([`parsed_texts`]).
pub fn parse_wgsl(
    prepared: &str,
) -> std::result::Result<naga::Module, naga::front::wgsl::ParseError> {
    #[cfg(test)]
    PARSED.with(|p| p.borrow_mut().push(prepared.to_owned()));
    naga::front::wgsl::parse_str(prepared)
}

#[cfg(test)]
thread_local! {
    /// Every text [`parse_wgsl`] parsed on this thread, in order (tests only).
    static PARSED: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The texts [`parse_wgsl`] parsed on this thread since the last call, in order (tests only:
/// a profile runs on its caller's thread, so parallel tests do not mix their counts).
#[cfg(test)]
pub fn parsed_texts() -> Vec<String> {
    PARSED.with(|p| std::mem::take(&mut *p.borrow_mut()))
}

/// Whether naga gave expression `h` of `function` its operand's span: a load or a splat of a
/// value evaluated elsewhere carries the span of that value, though it is evaluated where it is
/// used, in a branch perhaps. The load of a `let` pointer (`let p = &buf[i];`, then `*p` or `*p
/// += 1u`) has the `let`'s span, and `v / x` with a scalar `x` splats `x` with the span of its
/// `let` or its parameter. What maps code to lines leaves such an expression out. (A module-scope
/// variable is an expression at each use, so a load of one keeps its own span.)
pub fn span_is_borrowed(function: &naga::Function, h: naga::Handle<naga::Expression>) -> bool {
    let operand = match function.expressions[h] {
        naga::Expression::Load { pointer } => pointer,
        naga::Expression::Splat { value, .. } => value,
        _ => return false,
    };
    let defined_once = function.named_expressions.contains_key(&operand)
        || matches!(
            function.expressions[operand],
            naga::Expression::FunctionArgument(_)
        );
    let span = function.expressions.get_span(h);
    defined_once && span.is_defined() && span == function.expressions.get_span(operand)
}

/// Parses and validates WGSL with naga, the way wgpu will, and reports the first error with its
/// location. `file` names the source in the message.
pub fn check_wgsl(file: &str, source: &str) -> Result<naga::Module> {
    let prepared = prepare_for_naga(source);
    let module = parse_located(file, &prepared)?;
    validate_located(file, &prepared, &module)?;
    Ok(module)
}

/// A user's kernel as naga takes it ([`check_kernel_wgsl`]).
#[derive(Debug)]
pub struct CheckedKernel {
    /// The module.
    pub module: naga::Module,
    /// The text it was parsed from: the source, with the `return`s in `added_returns`.
    pub text: String,
    /// The `return`s naga needed at the end of functions that end in a loop only `return`
    /// leaves ([`close_endless_functions`]); empty for most kernels.
    pub added_returns: Vec<AddedReturn>,
}

/// [`check_wgsl`] for a user's kernel, which may be valid WGSL that naga rejects only for a
/// function ending in a loop that only `return` leaves: then the text with the `return` naga
/// wants at the end of each such function, checked again (a second parse for those kernels
/// alone), and the error of that text if it has another.
pub fn check_kernel_wgsl(file: &str, source: &str) -> Result<CheckedKernel> {
    let prepared = prepare_for_naga(source);
    let module = parse_located(file, &prepared)?;
    let Err(invalid) = validate_located(file, &prepared, &module) else {
        return Ok(CheckedKernel {
            module,
            text: source.to_owned(),
            added_returns: Vec::new(),
        });
    };
    mend_endless_functions(file, &module, source).unwrap_or(Err(invalid))
}

/// Where `module`, parsed from `source`, has functions that end in a loop only `return` leaves:
/// the text with the `return`s naga wants, checked (its error, if it has another), its module
/// with the `return`s unmapped ([`unmap_added_returns`]); `None` where it has no such function.
pub fn mend_endless_functions(
    file: &str,
    module: &naga::Module,
    source: &str,
) -> Option<Result<CheckedKernel>> {
    let (text, added_returns) = close_endless_functions(module, source);
    if added_returns.is_empty() {
        return None;
    }
    Some(check_wgsl(file, &text).map(|mut module| {
        unmap_added_returns(&mut module, &added_returns);
        CheckedKernel {
            module,
            text,
            added_returns,
        }
    }))
}

/// naga's parse of `prepared`, its error located in `file`.
fn parse_located(file: &str, prepared: &str) -> Result<naga::Module> {
    parse_wgsl(prepared).map_err(|e| {
        let (offset, message) = parse_error_message(&e, prepared, file);
        let loc = offset.map(|o| location_of(prepared, o));
        invalid(file, loc, message)
    })
}

/// naga's validation of `module`, parsed from `prepared`, its error located in `file`.
fn validate_located(file: &str, prepared: &str, module: &naga::Module) -> Result<()> {
    let mut validator = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    );
    validator.validate(module).map_err(|e| {
        // naga gives some entry-point errors (a builtin the workgroup shape forbids) no span:
        // point at the entry point's `fn` then.
        let loc = e.location(prepared).or_else(|| match e.as_inner() {
            naga::valid::ValidationError::EntryPoint { name, .. } => fn_location(prepared, name),
            _ => None,
        });
        let mut message = e.emit_to_string_with_path(prepared, file);
        if let Some(note) = naga_limit_note(e.as_inner()) {
            message = format!("{}\n   = note: {note}", message.trim_end());
        }
        invalid(file, loc, message)
    })?;
    Ok(())
}

/// A note for an error naga gives on valid WGSL that it does not support: what WGSL allows, and
/// how to write the kernel so that naga (and so wgpu) takes it.
fn naga_limit_note(error: &naga::valid::ValidationError) -> Option<&'static str> {
    use naga::valid::{FunctionError, ValidationError};
    match error {
        ValidationError::Function {
            source: FunctionError::InvalidArgumentPointerSpace { .. },
            ..
        } => Some(
            "WGSL allows a pointer into storage, uniform or workgroup memory as an argument \
             where the `unrestricted_pointer_parameters` language feature is (Chrome's Tint has \
             it), but naga 30, which wgpu compiles with, does not: have the function take the \
             index and read the global variable itself",
        ),
        _ => None,
    }
}

/// Where `fn NAME` is declared in `source` (1-based line and column of `fn`).
fn fn_location(source: &str, name: &str) -> Option<naga::SourceLocation> {
    let mut offset = 0;
    for (i, line) in source.lines().enumerate() {
        if let Some(at) = line.find(&format!("fn {name}")).filter(|&at| {
            let after = line[at + 3 + name.len()..].chars().next();
            !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
        }) {
            return Some(naga::SourceLocation {
                line_number: i as u32 + 1,
                line_position: at as u32 + 1,
                offset: (offset + at) as u32,
                length: 2,
            });
        }
        offset += line.len() + 1;
    }
    None
}

/// The 1-based line and column (in bytes, as naga counts) of byte `offset`.
fn location_of(text: &str, offset: usize) -> naga::SourceLocation {
    let (line, column) = crate::source_map::SourceMap::new(text).line_col(offset);
    naga::SourceLocation {
        line_number: line,
        line_position: column,
        offset: offset as u32,
        length: 1,
    }
}

fn invalid(file: &str, loc: Option<naga::SourceLocation>, message: String) -> Error {
    let (line, column) = loc.map_or((0, 0), |l| (l.line_number, l.line_position));
    Error::InvalidWgsl {
        file: file.to_owned(),
        line,
        column,
        message: message.trim_end().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// naga refuses a storage or workgroup pointer argument, which WGSL allows with a language
    /// feature: the error keeps naga's words and says what to write instead.
    #[test]
    fn a_storage_or_workgroup_pointer_argument_is_named_as_a_naga_limit() {
        let storage = "@group(0) @binding(0) var<storage, read_write> a: array<f32>;\n\
                      fn first(p: ptr<storage, array<f32>, read_write>) -> f32 { return (*p)[0]; }\n\
                      @compute @workgroup_size(1) fn main() { a[1] = first(&a); }\n";
        let workgroup = "var<workgroup> a: array<f32, 4>;\n\
                      fn first(p: ptr<workgroup, array<f32, 4>>) -> f32 { return (*p)[0]; }\n\
                      @compute @workgroup_size(1) fn main() { a[1] = first(&a); }\n";
        for source in [storage, workgroup] {
            let Err(Error::InvalidWgsl { line, message, .. }) = check_wgsl("p.wgsl", source) else {
                panic!("naga 30 took the pointer argument: {source}");
            };
            assert_eq!(line, 2);
            let said = [
                "can't be passed into functions",
                "= note: WGSL allows a pointer into storage, uniform or workgroup memory",
                "take the index",
            ];
            let missing: Vec<&str> = said.into_iter().filter(|w| !message.contains(w)).collect();
            assert!(missing.is_empty(), "{missing:?} not in {message}");
        }
    }

    #[test]
    fn comments_are_blanked_in_place() {
        let src = "a // b;\nc /* d /* é */ ; */ e\n";
        let masked = mask_comments(src);
        assert_eq!(masked.len(), src.len());
        let second = src.lines().nth(1).unwrap();
        let blanked = format!("c{}e", " ".repeat(second.len() - 2));
        assert_eq!(masked, format!("a      \n{blanked}\n"));
        // A `;` inside a comment does not end a directive.
        assert_eq!(
            directives("enable f16 /* ; */;\nfn f() {}"),
            [("enable", 0..19)]
        );
    }

    #[test]
    fn enable_subgroups_is_blanked_wherever_wgsl_allows_it() {
        let src = "enable subgroups;\nenable f16, subgroups;\nenable subgroups; // why\nfn f() {}";
        assert_eq!(
            prepare_for_naga(src),
            "                 \nenable f16           ;\n                  // why\nfn f() {}"
        );
        // Several on a line, split over lines, after comments, first in a list.
        let src =
            "// a kernel\n/* nested /* */ */ enable subgroups, f16; enable\n  subgroups;\n@compute";
        let out = prepare_for_naga(src);
        assert_eq!(out.len(), src.len(), "columns move");
        assert_eq!(out.lines().count(), src.lines().count(), "lines move");
        assert!(!out.contains("subgroups"), "{out}");
        assert!(out.contains("enable            f16;"), "{out}");
        assert!(out.ends_with("@compute"), "{out}");
        // After the first declaration `enable` is no directive: left for naga to reject.
        let src = "const a = 1;\nenable subgroups;";
        assert_eq!(prepare_for_naga(src), src);
    }

    #[test]
    fn modelled_requires_are_blanked_and_others_kept() {
        let src = "requires subgroup_uniformity;\nrequires subgroup_id, pointer_composite_access;\nrequires a, subgroup_uniformity, subgroup_id;\nfn f() {}";
        let out = prepare_for_naga(src);
        // Every line keeps its length, so locations stay put.
        let lengths = |t: &str| t.lines().map(str::len).collect::<Vec<_>>();
        assert_eq!(lengths(&out), lengths(src));
        let words: Vec<String> = out
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect();
        assert_eq!(
            words,
            [
                "",
                "requires pointer_composite_access;",
                "requires a ;",
                "fn f() {}"
            ]
        );
        assert_eq!(
            required_extensions(src),
            [
                "subgroup_uniformity",
                "subgroup_id",
                "pointer_composite_access",
                "a",
                "subgroup_uniformity",
                "subgroup_id"
            ]
        );
        // An unknown extension stays, for naga to reject.
        let unknown = "requires no_such_extension;\nfn f() {}";
        assert_eq!(prepare_for_naga(unknown), unknown);
    }

    #[test]
    fn elect_is_rewritten() {
        let out = prepare_for_naga("if subgroupElect() { }");
        assert_eq!(out, format!("if {ELECT_REPLACEMENT} {{ }}"));
    }

    #[test]
    fn parse_error_names_line() {
        let src = "enable subgroups;\n\nfn f() -> u32 {\n  return 1u +;\n}\n";
        match check_wgsl("bad.wgsl", src) {
            Err(Error::InvalidWgsl { file, line, .. }) => {
                assert_eq!(file, "bad.wgsl");
                assert_eq!(line, 4);
            }
            other => panic!("expected InvalidWgsl, got {other:?}"),
        }
    }
}
