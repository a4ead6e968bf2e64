//! Uniformity of every point, from the spec's non-normative "Annotating the Uniformity of Every
//! Point in the Control-flow": visit callers before callees; a function's start is non-uniform
//! when some call to it is in non-uniform control flow, a parameter when some call passes a
//! non-uniform argument; every node from which `MayBeNonUniform` or one of those is reachable
//! is non-uniform.

use std::collections::BTreeMap;

use naga::Span;

use super::explain::{Explanation, at, explain};
use super::function::FunctionGraph;
use super::graph::NodeId;
use super::source::Source;
use super::{LineVerdict, ValueVerdict, Verdict};

/// What callers make non-uniform in a function, with the first reason found.
#[derive(Clone, Debug, Default)]
struct Seeds {
    reached: bool,
    cf_start: Option<String>,
    params: Vec<Option<String>>,
    contents: Vec<Option<String>>,
}

/// A point's verdict in one scope.
#[derive(Clone, Debug)]
pub(crate) enum PointVerdict {
    Uniform,
    NonUniform(Explanation),
    /// In a function no entry point calls.
    NotExecuted,
}

/// Verdicts for one function in one scope.
#[derive(Clone, Debug, Default)]
pub(crate) struct Annotated {
    pub points: Vec<(Span, PointVerdict)>,
    /// Named values: (function, name, span, verdict).
    pub values: Vec<(String, String, Span, PointVerdict)>,
    pub unreachable: Vec<Span>,
}

/// Annotates every function (`functions` in arena order, then `entries`) in one scope.
pub(crate) fn annotate(
    source: &Source,
    functions: &[FunctionGraph],
    entries: &[FunctionGraph],
) -> Vec<Annotated> {
    let mut seeds: Vec<Seeds> = functions
        .iter()
        .map(|f| Seeds {
            params: vec![None; f.special.params.len()],
            contents: vec![None; f.special.params.len()],
            ..Seeds::default()
        })
        .collect();
    if entries.is_empty() {
        // A module without entry points: every function no other calls is a root.
        let mut called = vec![false; functions.len()];
        for f in functions {
            for c in &f.found.calls {
                called[c.callee.index()] = true;
            }
        }
        for (s, c) in seeds.iter_mut().zip(called) {
            s.reached = !c;
        }
    }
    let mut out = Vec::new();
    for e in entries {
        let root = Seeds {
            reached: true,
            params: vec![None; e.special.params.len()],
            contents: vec![None; e.special.params.len()],
            ..Seeds::default()
        };
        out.push(one(source, e, &root, &mut seeds));
    }
    let mut per_function = vec![Annotated::default(); functions.len()];
    for i in (0..functions.len()).rev() {
        let s = seeds[i].clone();
        per_function[i] = one(source, &functions[i], &s, &mut seeds);
    }
    per_function.extend(out);
    per_function
}

fn one(source: &Source, fg: &FunctionGraph, own: &Seeds, seeds: &mut [Seeds]) -> Annotated {
    let sp = &fg.special;
    let mut targets = vec![sp.may_be_non_uniform];
    let mut seed_text: Vec<(NodeId, String)> = Vec::new();
    if let Some(t) = &own.cf_start {
        targets.push(sp.cf_start);
        seed_text.push((sp.cf_start, t.clone()));
    }
    for (i, t) in own.params.iter().enumerate() {
        if let Some(t) = t {
            targets.push(sp.params[i]);
            seed_text.push((sp.params[i], t.clone()));
        }
    }
    for (i, t) in own.contents.iter().enumerate() {
        if let (Some(t), Some(c)) = (t, sp.param_contents[i]) {
            targets.push(c);
            seed_text.push((c, t.clone()));
        }
    }
    // One search toward the targets serves every point's verdict and reason: a search per
    // non-uniform point was quadratic in the length of a function.
    let toward = fg.graph.toward(&targets);
    let non_uniform = |n: NodeId| toward.reaches(n);
    if own.reached {
        for call in &fg.found.calls {
            let callee = &mut seeds[call.callee.index()];
            callee.reached = true;
            let here = at(source, call.span);
            if non_uniform(call.cf) && callee.cf_start.is_none() {
                callee.cf_start = Some(format!(
                    "the function is called in non-uniform control flow at {here} in `{}`",
                    fg.name
                ));
            }
            for (i, &a) in call.args.iter().enumerate() {
                if non_uniform(a) && callee.params.get(i).is_some_and(Option::is_none) {
                    callee.params[i] = Some(format!("a non-uniform argument at {here}"));
                }
                if let Some(Some(c)) = call.contents.get(i)
                    && non_uniform(*c)
                    && callee.contents.get(i).is_some_and(Option::is_none)
                {
                    callee.contents[i] = Some(format!("a non-uniform pointee at {here}"));
                }
            }
        }
    }
    let seed = |n: NodeId| {
        seed_text
            .iter()
            .find(|(m, _)| *m == n)
            .map(|(_, t)| t.clone())
    };
    let mut cache: Vec<Option<Explanation>> = vec![None; fg.graph.nodes.len()];
    let mut verdict = |node: NodeId| {
        if !own.reached {
            return PointVerdict::NotExecuted;
        }
        if !non_uniform(node) {
            return PointVerdict::Uniform;
        }
        let e = cache[node].get_or_insert_with(|| {
            toward
                .path(&fg.graph, node)
                .map(|p| explain(fg, source, &p, &seed))
                .unwrap_or_default()
        });
        PointVerdict::NonUniform(e.clone())
    };
    let points = fg
        .found
        .points
        .iter()
        .map(|p| (p.span, verdict(p.cf)))
        .collect();
    let values = fg
        .named
        .iter()
        .map(|(name, span, node)| (fg.name.clone(), name.clone(), *span, verdict(*node)))
        .collect();
    Annotated {
        points,
        values,
        unreachable: fg.found.unreachable.clone(),
    }
}

/// Folds point verdicts into per-line verdicts, per scope.
pub(crate) fn assemble(
    src: &Source,
    per_scope: &[Vec<Annotated>],
) -> (Vec<LineVerdict>, Vec<ValueVerdict>) {
    // line -> per scope (verdict, reason)
    let mut lines: BTreeMap<u32, Vec<(Verdict, Option<String>)>> = BTreeMap::new();
    let fold = |slot: &mut (Verdict, Option<String>), v: &PointVerdict| {
        let (verdict, reason) = simple(v);
        match (slot.0, verdict) {
            (Verdict::NonUniform, _) => {}
            (_, Verdict::NonUniform) => *slot = (verdict, reason),
            (Verdict::NotExecuted, Verdict::Uniform) => *slot = (verdict, None),
            _ => {}
        }
    };
    let n = per_scope.len();
    for (si, annotated) in per_scope.iter().enumerate() {
        for a in annotated {
            for span in &a.unreachable {
                let r = src.original_range(*span);
                let (first, _) = src.line_col(r.start);
                let (last, _) = src.line_col(r.end.saturating_sub(1).max(r.start));
                for line in first..=last {
                    lines
                        .entry(line)
                        .or_insert_with(|| vec![(Verdict::NotExecuted, None); n]);
                }
            }
            for (span, v) in &a.points {
                let (line, _) = src.location(span.to_range().unwrap_or(0..0).start);
                let slots = lines
                    .entry(line)
                    .or_insert_with(|| vec![(Verdict::NotExecuted, None); n]);
                fold(&mut slots[si], v);
            }
        }
    }
    let lines = lines
        .into_iter()
        .map(|(line, slots)| {
            let (verdict, reason) = slots[0].clone();
            let (subgroup, subgroup_reason) =
                slots.get(1).cloned().unwrap_or((verdict, reason.clone()));
            LineVerdict {
                line,
                verdict,
                subgroup,
                reason,
                subgroup_reason,
            }
        })
        .collect();
    let mut values = Vec::new();
    if let Some(first) = per_scope.first() {
        for (fi, a) in first.iter().enumerate() {
            for (vi, (function, name, span, v)) in a.values.iter().enumerate() {
                let sub = per_scope
                    .get(1)
                    .and_then(|s| s.get(fi))
                    .and_then(|a| a.values.get(vi))
                    .map_or(simple(v).0, |x| simple(&x.3).0);
                let (line, _) = src.location(span.to_range().unwrap_or(0..0).start);
                values.push(ValueVerdict {
                    function: function.clone(),
                    name: name.clone(),
                    line,
                    verdict: simple(v).0,
                    subgroup: sub,
                });
            }
        }
    }
    values.sort_by_key(|v| v.line);
    (lines, values)
}

fn simple(v: &PointVerdict) -> (Verdict, Option<String>) {
    match v {
        PointVerdict::Uniform => (Verdict::Uniform, None),
        PointVerdict::NonUniform(e) => (Verdict::NonUniform, Some(e.reason.clone())),
        PointVerdict::NotExecuted => (Verdict::NotExecuted, None),
    }
}
