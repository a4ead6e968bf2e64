//! Static uniformity analysis of WGSL, as the WGSL specification's "Uniformity" section defines
//! it, on naga's IR, with a reason for every verdict.
//!
//! naga 30 does not implement the spec's analysis: its per-expression info treats every local
//! `var` and every subgroup result as non-uniform, it does not reject barriers in non-uniform
//! control flow, and it has no `subgroup_uniformity` rule. This module builds the spec's graph
//! per function (`RequiredToBeUniform.{error,warning,info}`, `MayBeNonUniform`, `CF_start`,
//! `param_i`, `param_i_contents`, `Value_return`, `Value_return_i_contents`; `function.rs`,
//! `control.rs`, `expr.rs`, `calls.rs`), walks functions callees first to compute their call-site,
//! function, parameter, parameter-return and pointer-parameter tags (`tags.rs`), reports every
//! requirement from which `MayBeNonUniform` is reachable with the path that shows why
//! (`explain.rs`, `report.rs`), and then marks every point uniform or not, callers first, as the
//! spec's non-normative "Annotating the Uniformity of Every Point" suggests (`annotate.rs`).
//!
//! # Scopes
//! The spec analyzes once per uniformity scope when the `subgroup_uniformity` language extension
//! is supported ([`Options::subgroup_uniformity_extension`], on by default, as in Chrome and
//! Safari). At workgroup scope barriers and `workgroupUniformLoad` must be in uniform control
//! flow and every subgroup result is non-uniform. At subgroup scope the subgroup and quad
//! builtins must be in subgroup-uniform control flow (the `subgroup_uniformity` rule), the results
//! of the reductions, ballots and broadcasts are as uniform as their arguments, and `subgroup_id`
//! is uniform. Without
//! the extension, subgroup builtins are checked at workgroup scope. Line verdicts are given at
//! both scopes.
//!
//! # Where naga's IR loses what the spec relies on
//! Each case has a corpus file in `tests/uniformity/` where it matters.
//! - Statement-level `@diagnostic` attributes: naga rejects them ("not yet implemented"), and it
//!   has no `subgroup_uniformity` rule. Every filter is read from the text, and statement
//!   attributes are blanked before naga parses (`filters.rs`; `sg_diagnostic_off_statement`).
//! - `subgroupElect()`: naga has no such builtin; `prepare_for_naga` rewrites it to
//!   `(subgroupExclusiveAdd(1u) == 0u)`, which has the same uniformity (a scan's result is
//!   non-uniform at every scope). Messages and locations name `subgroupElect` (`sg_elect`).
//! - `let` leaves no statement, and naga keeps only its name: a `let` of a loaded variable has
//!   no span, one that renames a parameter has the parameter's span. divlab finds `let name` in
//!   the text for the line. A `let` that only renames a constant or a parameter has no IR at
//!   its position, so its value verdict is taken at function entry: `if lid > 3u { let k = 5u; }`
//!   gives `k` uniform where the spec says non-uniform (computed in non-uniform control flow).
//!   Uses of `k` are still judged where they are, so no diagnostic changes.
//! - A `var` with a constant initializer outside a loop is initialized at function entry, not at
//!   its declaration: harmless, as every load also depends on the control flow at the load.
//! - `for`/`while` arrive as `loop { if c {} else { break; } ... }`, the spec's own desugaring;
//!   `&&`/`||` arrive as an `if` storing to a temporary, so the right operand's line is
//!   non-uniform when the left operand is (`cf_short_circuit_call`).
//! - `case a, b:` arrives as an empty case that falls through; it is folded into the next one.
//! - naga's statement spans for calls cover the callee name or the whole call; argument
//!   locations are read from the call's text.
//!
//! # Readings of the spec
//! - The subgroup reductions, ballots and broadcasts have the function tag `NoRestriction` at
//!   subgroup scope and the default parameter return tag,
//!   `ParameterReturnContentsRequiredToBeUniform` ("Uniformity Rules for Function Calls"): their
//!   result is as uniform as their arguments, so `subgroupBroadcastFirst(lid)` is non-uniform and
//!   `subgroupAdd(u.x)` is uniform. Tint reads it the same way (`tests/main/tint.rs` checks it).
//! - `ParameterContentsRequiredToBeUniform` is checked against the pointee's value before the
//!   call (the spec's text says `Vout(call)`), and a pointee written by a call also depends on the
//!   control flow at the call.
//! - An entry-point structure parameter is non-uniform when any member is a non-uniform built-in
//!   value or a user-defined input (the spec's composite example); the spec defines only
//!   built-in values and user-defined inputs themselves.
//! - A filter applies where the builtin is called: `@diagnostic(off, subgroup_uniformity)` on a
//!   caller does not silence a helper's subgroup builtin (`sg_filter_at_builtin_not_caller`).
//! - A pointer parameter into another address space (`workgroup`, `private`, `storage`) is a
//!   memory view the caller chose: its value links to the control flow where it is used and to
//!   `param_i`. The spec's expression table gives it `CF` alone, but its parameter tag says "if
//!   the parameter type is a pointer, the memory view ... must be uniform", which only a link to
//!   `param_i` can carry: `workgroupUniformLoad(p)` in a helper gives `p`
//!   `ParameterRequiredToBeUniform.error`, and a read through a read-only `p` is as uniform as
//!   the view passed (`call_pointer_uniform_load`, `call_pointer_read_only_view`). Tint agrees.
//! - A pointer to part of a variable (`&a[1]`, `&s.b`, `&one[0]`, `&(*p)[1]`, or a `let` of one)
//!   passed to a function that stores through it is a partial assignment: the variable after
//!   the call keeps its previous value ("Function-scope Variable Value Analysis";
//!   `call_partial_pointer_*`).
//! - Where the spec triggers one diagnostic per function and severity, naming every rule of that
//!   severity, divlab reports each failing call site and names the rules whose builtins actually
//!   reach it. Whether a shader is accepted is unchanged. Lower severities are visited after
//!   higher ones and skip visited nodes, as in the spec (`sg_warning_subsumed`).
//!
//! # Beyond the spec
//! naga's `subgroupBarrier()` is treated as a subgroup builtin; ray-query and cooperative-matrix
//! results are non-uniform.

mod annotate;
mod behavior;
mod builtins;
mod calls;
mod cause;
mod control;
mod explain;
mod expr;
mod filters;
mod function;
mod function_graph;
mod graph;
mod kernel;
pub mod lint;
pub mod naga_view;
mod report;
mod rule;
mod source;
mod tags;

use serde::{Deserialize, Serialize};

use crate::shaders::{AddedReturn, mend_endless_functions, with_added_returns};
use crate::{Error, Result};
pub use filters::blank_statement_filters;
pub(crate) use function::let_spans;
use function::{Context, FunctionGraph};
pub use kernel::StaticPoint;
pub use rule::{Rule, Severity};
use source::Source;

/// A uniformity scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// All invocations of a workgroup (or of a draw, outside compute shaders).
    Workgroup,
    /// All invocations of a subgroup.
    Subgroup,
}

/// Analysis options.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Whether the `subgroup_uniformity` language extension is supported, so subgroup and quad
    /// builtins are checked at subgroup scope (current Chrome and Safari) rather than at
    /// workgroup scope.
    pub subgroup_uniformity_extension: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            subgroup_uniformity_extension: true,
        }
    }
}

/// A line's verdict: the uniformity of the control flow that runs its code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Every invocation of the scope that runs this code runs it together.
    Uniform,
    /// Some code on the line may run in non-uniform control flow.
    NonUniform,
    /// The code never runs: statically unreachable, or in a function no entry point calls.
    NotExecuted,
}

/// A source label of a diagnostic.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Label {
    /// 1-based line.
    pub line: u32,
    /// 1-based byte column.
    pub column: u32,
    /// 1-based line where the labelled text ends.
    pub end_line: u32,
    /// 1-based byte column just past the labelled text.
    pub end_column: u32,
    /// What this place contributes.
    pub message: String,
    /// Byte range in the original source.
    #[serde(skip)]
    pub range: std::ops::Range<usize>,
}

/// One uniformity diagnostic.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Diagnostic {
    /// Error (rejects the shader), warning or info.
    pub severity: Severity,
    /// The triggering rule.
    pub rule: Rule,
    /// The scope whose analysis found it.
    pub scope: Scope,
    /// The function whose analysis found it.
    pub function: String,
    /// "`workgroupBarrier()` requires uniform control flow".
    pub message: String,
    /// "non-uniform because the `if` condition ... at 12:8 depends on `local_invocation_index`".
    pub reason: String,
    /// 1-based line of the call (or argument) that must be uniform.
    pub line: u32,
    /// 1-based byte column.
    pub column: u32,
    /// 1-based line where the call (or argument) ends.
    pub end_line: u32,
    /// 1-based byte column just past the call (or argument).
    pub end_column: u32,
    /// The places along the reason chain.
    pub labels: Vec<Label>,
    /// Byte range in the original source.
    #[serde(skip)]
    pub range: std::ops::Range<usize>,
}

/// A line's verdicts at both scopes.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LineVerdict {
    /// 1-based line.
    pub line: u32,
    /// At workgroup scope: what barriers need, and what divergence between invocations means.
    pub verdict: Verdict,
    /// At subgroup scope: what subgroup builtins need (equal to `verdict` without the
    /// `subgroup_uniformity` extension).
    pub subgroup: Verdict,
    /// Why the line is non-uniform at workgroup scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Why the line is non-uniform at subgroup scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subgroup_reason: Option<String>,
}

/// The built-in values that differ between the invocations of a subgroup by construction (the
/// ids), as the reasons name them ([`builtins::builtin_name`]).
const INVOCATION_IDS: [&str; 4] = [
    "global_invocation_id",
    "local_invocation_id",
    "local_invocation_index",
    "subgroup_invocation_id",
];

impl LineVerdict {
    /// Whether the line is non-uniform at subgroup scope because of an invocation id (its
    /// reason ends at one), rather than because of a value the invocations loaded.
    pub fn because_of_invocation_id(&self) -> bool {
        self.subgroup_reason.as_deref().is_some_and(|reason| {
            INVOCATION_IDS.iter().any(|id| {
                reason.contains(&format!("(`{id}`)")) || reason.ends_with(&format!("`{id}`"))
            })
        })
    }
}

/// The verdict on a named value (a `let`): uniform or not, at both scopes.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ValueVerdict {
    /// The function it is in.
    pub function: String,
    /// The `let`'s name.
    pub name: String,
    /// 1-based line of its expression.
    pub line: u32,
    /// At workgroup scope.
    pub verdict: Verdict,
    /// At subgroup scope.
    pub subgroup: Verdict,
}

/// The result of analyzing one WGSL source.
#[derive(Clone, Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Analysis {
    /// The name given to the source.
    pub file: String,
    /// Whether the `subgroup_uniformity` language extension was assumed.
    pub subgroup_uniformity_extension: bool,
    /// Every diagnostic, in source order.
    pub diagnostics: Vec<Diagnostic>,
    /// One entry per line that has code, in order.
    pub lines: Vec<LineVerdict>,
    /// Every `let` value.
    pub values: Vec<ValueVerdict>,
    /// The text analyzed (kept for rendering; not serialized).
    #[serde(skip)]
    source: String,
    /// The `return`s naga 30 needed at the end of functions that end in a loop only `return`
    /// leaves (valid WGSL it rejects): the module analyzed is of the text with them.
    #[serde(skip)]
    added_returns: Vec<AddedReturn>,
}

impl Analysis {
    /// Whether an error-level diagnostic is present (the shader would be rejected).
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }

    /// The `return`s naga 30 needed before it took the module (empty for most sources).
    pub fn added_returns(&self) -> &[AddedReturn] {
        &self.added_returns
    }

    /// The verdicts of a 1-based line, if it has code.
    pub fn line(&self, line: u32) -> Option<&LineVerdict> {
        self.lines
            .binary_search_by_key(&line, |l| l.line)
            .ok()
            .map(|i| &self.lines[i])
    }

    /// The diagnostics as rustc-style text with source snippets, without colour.
    pub fn render(&self) -> String {
        lint::render_analysis(self, false)
    }

    /// The source text the analysis ran on.
    pub fn source(&self) -> &str {
        &self.source
    }
}

/// One line: "f.wgsl: 1 error, 0 warnings, 0 notes; lines: 12 uniform, 3 non-uniform, 1 not
/// executed" (line verdicts at workgroup scope).
pub fn summary(analysis: &Analysis) -> String {
    let count = |s: Severity| {
        analysis
            .diagnostics
            .iter()
            .filter(|d| d.severity == s)
            .count()
    };
    let lines = |v: Verdict| analysis.lines.iter().filter(|l| l.verdict == v).count();
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    format!(
        "{}: {}, {}, {}; lines: {} uniform, {} non-uniform, {} not executed",
        analysis.file,
        plural(count(Severity::Error), "error"),
        plural(count(Severity::Warning), "warning"),
        plural(count(Severity::Info), "note"),
        lines(Verdict::Uniform),
        lines(Verdict::NonUniform),
        lines(Verdict::NotExecuted),
    )
}

/// Analyzes a WGSL source (spec-valid: `enable subgroups;` and `subgroupElect()` are fine) with
/// the default [`Options`]. `name` names it in messages.
pub fn analyze_source(name: &str, source: &str) -> Result<Analysis> {
    analyze_source_with(name, source, &Options::default())
}

/// Analyzes a WGSL source with the given options.
pub fn analyze_source_with(name: &str, source: &str, options: &Options) -> Result<Analysis> {
    let src = Source::new(name, source);
    let (module, added) = parse_and_validate(&src)?;
    Ok(analyze_parsed(src, source, &module, added, options))
}

/// Analyzes `module`, which naga parsed from `source` with the `added` returns written in
/// (most often none) and validated (as [`crate::shaders::check_kernel_wgsl`] does), with the
/// default [`Options`]: for a caller that has parsed the source already (`divlab profile`
/// parses a kernel once).
pub fn analyze_module(
    name: &str,
    source: &str,
    module: &naga::Module,
    added: Vec<AddedReturn>,
) -> Analysis {
    let src = Source::new(name, source);
    analyze_parsed(src, source, module, added, &Options::default())
}

/// The analysis of `module`, naga's parse of `src` (whose text as given is `source`) with the
/// `added` returns written in: read from the text with them where there are any.
fn analyze_parsed(
    src: Source,
    source: &str,
    module: &naga::Module,
    added: Vec<AddedReturn>,
    options: &Options,
) -> Analysis {
    let Some((src, mended)) = mended(&src.name, source, &added) else {
        return analyze(&src, source, module, options);
    };
    let mut analysis = analyze(&src, &mended, module, options);
    analysis.added_returns = added;
    analysis
}

/// Where naga needed `added` returns: the source of the text as given with them written in,
/// where the module's spans point, and that text; `None` where it needed none.
fn mended(name: &str, source: &str, added: &[AddedReturn]) -> Option<(Source, String)> {
    (!added.is_empty()).then(|| {
        let text = with_added_returns(source, added);
        (Source::new(name, &text), text)
    })
}

/// The analysis of `module`, parsed from `src` (whose original text is `source`).
fn analyze(src: &Source, source: &str, module: &naga::Module, options: &Options) -> Analysis {
    let scopes: &[Scope] = if options.subgroup_uniformity_extension {
        &[Scope::Workgroup, Scope::Subgroup]
    } else {
        &[Scope::Workgroup]
    };
    let mut diagnostics = Vec::new();
    let mut per_scope = Vec::new();
    for &scope in scopes {
        let (functions, entries, mut diags) = analyze_scope(module, src, scope, options);
        diagnostics.append(&mut diags);
        per_scope.push(annotate::annotate(src, &functions, &entries));
    }
    diagnostics.sort_by_key(|d| (d.range.start, d.rule, d.severity));
    diagnostics.dedup_by(|a, b| a.range == b.range && a.rule == b.rule && a.message == b.message);
    let (lines, values) = annotate::assemble(src, &per_scope);
    Analysis {
        file: src.name.clone(),
        subgroup_uniformity_extension: options.subgroup_uniformity_extension,
        diagnostics,
        lines,
        values,
        source: source.to_owned(),
        added_returns: Vec::new(),
    }
}

/// Parses and validates with naga, reporting errors at their original location; with the
/// `return`s naga needed at the end of functions that end in a loop only `return` leaves
/// ([`crate::shaders::close_endless_functions`]: the module is then of the text with them).
fn parse_and_validate(src: &Source) -> Result<(naga::Module, Vec<AddedReturn>)> {
    let invalid = |offset: Option<usize>, message: String| {
        let (line, column) = offset.map_or((0, 0), |o| src.location(o));
        Error::InvalidWgsl {
            file: src.name.clone(),
            line,
            column,
            message: message.trim_end().to_owned(),
        }
    };
    let module = crate::shaders::parse_wgsl(&src.prepared).map_err(|e| {
        let (offset, message) = crate::shaders::parse_error_message(&e, &src.prepared, &src.name);
        invalid(offset, message)
    })?;
    let validated = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module);
    match validated {
        Ok(_) => Ok((module, Vec::new())),
        // naga 30 lacks the `unrestricted_pointer_parameters` language extension, which Chrome
        // and Safari support: a `ptr<workgroup>` or `ptr<storage>` parameter is valid WGSL, and
        // the analysis models it (see "Readings of the spec"). naga stops at that error, so the
        // functions after it go unvalidated; the parse has already checked their types.
        Err(e) if is_unrestricted_pointer_parameter(e.as_inner()) => Ok((module, Vec::new())),
        // Valid WGSL naga rejects: the module of the text with the `return`s naga wants.
        Err(_) if let Some(mended) = mend_endless_functions(&src.name, &module, &src.prepared) => {
            mended.map(|m| (m.module, m.added_returns))
        }
        Err(e) => {
            let offset = e.location(&src.prepared).map(|l| l.offset as usize);
            Err(invalid(
                offset,
                e.emit_to_string_with_path(&src.prepared, &src.name),
            ))
        }
    }
}

fn is_unrestricted_pointer_parameter(e: &naga::valid::ValidationError) -> bool {
    matches!(
        e,
        naga::valid::ValidationError::Function {
            source: naga::valid::FunctionError::InvalidArgumentPointerSpace { .. },
            ..
        }
    )
}

/// Builds and tags every function at one scope, callees first; returns the graphs and the
/// failures as diagnostics.
fn analyze_scope(
    module: &naga::Module,
    src: &Source,
    scope: Scope,
    options: &Options,
) -> (Vec<FunctionGraph>, Vec<FunctionGraph>, Vec<Diagnostic>) {
    let mut tags = Vec::new();
    let mut functions = Vec::new();
    let mut entries = Vec::new();
    let mut diagnostics = Vec::new();
    // naga's arena puts every callee before its callers, and entry points are called by none.
    let in_order = module
        .functions
        .iter()
        .map(|(_, f)| (f.name.clone().unwrap_or_default(), f, None))
        .chain(
            module
                .entry_points
                .iter()
                .map(|ep| (ep.name.clone(), &ep.function, Some(ep.stage))),
        );
    for (name, f, stage) in in_order {
        let cx = Context {
            module,
            source: src,
            scope,
            options,
            tags: &tags,
        };
        let fg = function::build(&cx, &name, f, stage);
        let (t, failures) = tags::compute(&fg, &param_names(f));
        diagnostics.extend(report::diagnostics(src, &fg, &failures, scope));
        if stage.is_some() {
            entries.push(fg);
        } else {
            // Callers find a function's tags by its arena index.
            tags.push(t);
            functions.push(fg);
        }
    }
    (functions, entries, diagnostics)
}

fn param_names(f: &naga::Function) -> Vec<String> {
    f.arguments
        .iter()
        .enumerate()
        .map(|(i, a)| a.name.clone().unwrap_or_else(|| format!("#{i}")))
        .collect()
}
