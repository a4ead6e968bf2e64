//! naga's own uniformity information, read the way naga's validator reads it, so divlab's
//! verdicts can be compared with it.
//!
//! Values: `FunctionInfo[expr].uniformity.non_uniform_result` (`Some` = non-uniform) of each
//! `let`. Control flow: naga's analyzer (`valid/analyzer.rs`, `process_block`) keeps a
//! "disruptor": code is non-uniform inside an `if`/`switch` on a value naga calls non-uniform,
//! and after a `return` or `discard` made under one. That is the whole of it: naga has no
//! interprocedural view, ignores `break`/`continue` (so a loop with a non-uniform trip count
//! stays uniform after its condition), and its values are data-only (a constant computed in a
//! non-uniform branch is uniform to naga).

use std::collections::BTreeMap;

use naga::valid::FunctionInfo;
use naga::{Block, Statement};

use super::source::Source;
use super::{Verdict, mended, parse_and_validate};
use crate::Result;
use crate::shaders::span_is_borrowed;

/// naga's verdicts on one source.
#[derive(Clone, Debug, Default)]
pub struct NagaVerdicts {
    /// Per line with code: the control flow's uniformity as naga's analyzer sees it.
    pub lines: BTreeMap<u32, Verdict>,
    /// Per `let`: (function, name, verdict).
    pub values: Vec<(String, String, Verdict)>,
}

/// naga's verdicts on a WGSL source (prepared for naga as divlab's analysis is). An error for a
/// module naga 30 cannot validate although divlab analyses it (a pointer parameter into
/// `workgroup` or `storage`): naga has no info to read there.
pub fn naga_verdicts(name: &str, source: &str) -> Result<NagaVerdicts> {
    let src = Source::new(name, source);
    let (module, added) = parse_and_validate(&src)?;
    let src = mended(name, source, &added).map_or(src, |(mended, _)| mended);
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| crate::Error::InvalidWgsl {
        file: name.to_owned(),
        line: 0,
        column: 0,
        message: format!("naga 30 gives no uniformity info for this module: {e}"),
    })?;
    let mut out = NagaVerdicts::default();
    let mut functions: Vec<(&naga::Function, &FunctionInfo, String)> = module
        .functions
        .iter()
        .map(|(h, f)| (f, &info[h], f.name.clone().unwrap_or_default()))
        .collect();
    for (i, ep) in module.entry_points.iter().enumerate() {
        functions.push((&ep.function, info.get_entry_point(i), ep.name.clone()));
    }
    for (f, fi, fname) in functions {
        let mut walk = Walk {
            src: &src,
            func: f,
            info: fi,
            lines: &mut out.lines,
        };
        walk.block(&f.body, false);
        for (h, name) in f.named_expressions.iter() {
            let verdict = if fi[*h].uniformity.non_uniform_result.is_some() {
                Verdict::NonUniform
            } else {
                Verdict::Uniform
            };
            out.values.push((fname.clone(), name.clone(), verdict));
        }
    }
    Ok(out)
}

struct Walk<'a> {
    src: &'a Source,
    func: &'a naga::Function,
    info: &'a FunctionInfo,
    lines: &'a mut BTreeMap<u32, Verdict>,
}

impl Walk<'_> {
    fn point(&mut self, span: naga::Span, disrupted: bool) {
        let Some(r) = span.to_range() else { return };
        if !span.is_defined() {
            return;
        }
        let (line, _) = self.src.location(r.start);
        let v = self.lines.entry(line).or_insert(Verdict::Uniform);
        if disrupted {
            *v = Verdict::NonUniform;
        }
    }

    fn non_uniform(&self, h: naga::Handle<naga::Expression>) -> bool {
        self.info[h].uniformity.non_uniform_result.is_some()
    }

    /// Walks a block; returns whether it may exit (return/discard) under a disruptor.
    fn block(&mut self, block: &Block, mut disrupted: bool) -> bool {
        let mut exits = false;
        for (s, span) in block.span_iter() {
            if !matches!(s, Statement::Emit(_) | Statement::Block(_)) {
                self.point(*span, disrupted);
            }
            let exit = match s {
                Statement::Emit(range) => {
                    for h in range.clone().filter(|&h| !span_is_borrowed(self.func, h)) {
                        self.point(self.func.expressions.get_span(h), disrupted);
                    }
                    false
                }
                Statement::Block(b) => self.block(b, disrupted),
                Statement::If {
                    condition,
                    accept,
                    reject,
                } => {
                    let inner = disrupted || self.non_uniform(*condition);
                    let a = self.block(accept, inner);
                    let r = self.block(reject, inner);
                    a || r
                }
                Statement::Switch { selector, cases } => {
                    let inner = disrupted || self.non_uniform(*selector);
                    let mut any = false;
                    let mut case_disrupted = inner;
                    for case in cases {
                        let e = self.block(&case.body, case_disrupted);
                        case_disrupted = if case.fall_through {
                            case_disrupted || e
                        } else {
                            inner
                        };
                        any |= e;
                    }
                    any
                }
                Statement::Loop {
                    body, continuing, ..
                } => {
                    let b = self.block(body, disrupted);
                    let c = self.block(continuing, disrupted || b);
                    b || c
                }
                Statement::Return { .. } | Statement::Kill => disrupted,
                _ => false,
            };
            exits |= exit;
            disrupted |= exit;
        }
        exits
    }
}
