//! Turns a path in a function's graph into a reason ("non-uniform because the `if` condition
//! `lid > 3u` at 12:8 depends on `local_invocation_index`") and source labels along it.

use naga::Span;

use super::function::FunctionGraph;
use super::graph::{Kind, NodeId};
use super::source::Source;

/// A reason and the labelled places that support it.
#[derive(Clone, Debug, Default)]
pub(crate) struct Explanation {
    pub reason: String,
    pub labels: Vec<(Span, String)>,
}

fn is_control(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Condition | Kind::Exit | Kind::LoopHead | Kind::BreakIf
    )
}

/// "12:8".
pub(crate) fn at(source: &Source, span: Span) -> String {
    let (line, col) = source.location(span.to_range().unwrap_or(0..0).start);
    format!("{line}:{col}")
}

/// Explains `path`, which ends at `MayBeNonUniform` or at a node `seed` describes (a function
/// start or parameter that callers make non-uniform).
pub(crate) fn explain(
    fg: &FunctionGraph,
    source: &Source,
    path: &[NodeId],
    seed: &dyn Fn(NodeId) -> Option<String>,
) -> Explanation {
    let nodes = &fg.graph.nodes;
    let mut divergence = None;
    for &n in path {
        let kind = nodes[n].kind;
        if is_control(kind) {
            divergence = Some(n);
        } else if kind != Kind::Plain {
            break;
        }
    }
    let end = *path.last().expect("a path has an end");
    let source_node = path
        .iter()
        .rev()
        .find(|&&n| nodes[n].kind == Kind::Source)
        .copied();
    let origin = if end == fg.special.may_be_non_uniform {
        source_node.map(|n| nodes[n].text.clone())
    } else {
        seed(end)
    }
    .unwrap_or_else(|| "a value divlab cannot prove uniform".to_owned());
    let reason = match divergence {
        Some(_) if end == fg.special.cf_start => format!("non-uniform because {origin}"),
        Some(d) => format!(
            "non-uniform because {} at {} depends on {origin}",
            nodes[d].text,
            at(source, nodes[d].span)
        ),
        None if end == fg.special.cf_start => format!("non-uniform because {origin}"),
        None => format!("non-uniform because it depends on {origin}"),
    };
    let mut out = Explanation {
        reason,
        labels: Vec::new(),
    };
    // Only the exit nearest the divergence is worth a label.
    let last_exit = divergence.and_then(|d| {
        path.iter()
            .take_while(|&&n| n != d)
            .filter(|&&n| nodes[n].kind == Kind::Exit)
            .last()
            .copied()
    });
    for &n in path {
        let node = &nodes[n];
        if !node.span.is_defined() {
            continue;
        }
        let label = match node.kind {
            Kind::Exit if Some(n) != last_exit => continue,
            Kind::Condition | Kind::BreakIf if Some(n) == divergence => {
                "this condition may be non-uniform".to_owned()
            }
            Kind::Exit => "control flow may leave this statement non-uniformly".to_owned(),
            Kind::LoopHead if Some(n) == divergence => {
                "iterations of this loop may be non-uniform".to_owned()
            }
            Kind::Value
                if node.text.contains("assigned") || node.text.contains("after the call") =>
            {
                node.text.clone()
            }
            Kind::Source => format!("non-uniform: {}", node.text),
            _ => continue,
        };
        if !out.labels.iter().any(|(s, _)| *s == node.span) {
            out.labels.push((node.span, label));
        }
    }
    out
}
