//! WGSL as naga 30 reads it: the text rewrites divlab applies to spec-valid WGSL before naga
//! sees it (keeping line numbers), and naga's parse and validation with located errors. Pure
//! text and naga; no device.

use crate::{Error, Result};

/// naga 30 has no `subgroupElect()`. The lowest active invocation is the one whose exclusive
/// prefix count is zero, which is exactly what `subgroupElect()` returns.
const ELECT_REPLACEMENT: &str = "(subgroupExclusiveAdd(1u) == 0u)";

/// Turns spec-valid WGSL into what naga 30 accepts, keeping line numbers unchanged:
/// - `enable subgroups;` is rejected ("not yet supported"), so it becomes a blank line
///   (and `subgroups` is dropped from a combined `enable` list);
/// - `subgroupElect()` has no definition in naga 30, so it becomes [`ELECT_REPLACEMENT`].
pub fn prepare_for_naga(source: &str) -> String {
    let lines: Vec<String> = source
        .lines()
        .map(|line| {
            let code = line.split("//").next().unwrap_or_default();
            let trimmed = code.trim();
            if trimmed.starts_with("enable ") && trimmed.ends_with(';') {
                let names: Vec<&str> = trimmed["enable ".len()..trimmed.len() - 1]
                    .split(',')
                    .map(str::trim)
                    .filter(|n| !n.is_empty() && *n != "subgroups")
                    .collect();
                if names.is_empty() {
                    String::new()
                } else {
                    format!("enable {};", names.join(", "))
                }
            } else {
                line.replace("subgroupElect()", ELECT_REPLACEMENT)
            }
        })
        .collect();
    lines.join("\n")
}

/// Parses and validates WGSL with naga, the way wgpu will, and reports the first error with its
/// location. `file` names the source in the message.
pub fn check_wgsl(file: &str, source: &str) -> Result<naga::Module> {
    let prepared = prepare_for_naga(source);
    let module = naga::front::wgsl::parse_str(&prepared).map_err(|e| {
        let loc = e.location(&prepared);
        invalid(file, loc, e.emit_to_string_with_path(&prepared, file))
    })?;
    let mut validator = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    );
    validator.validate(&module).map_err(|e| {
        let loc = e.location(&prepared);
        invalid(file, loc, e.emit_to_string_with_path(&prepared, file))
    })?;
    Ok(module)
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

    #[test]
    fn enable_directive_becomes_blank_line() {
        let src = "enable subgroups;\nenable f16, subgroups;\nenable subgroups; // why\nfn f() {}";
        assert_eq!(prepare_for_naga(src), "\nenable f16;\n\nfn f() {}");
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
