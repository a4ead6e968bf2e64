//! What a uniformity requirement comes from: the innermost builtin call behind it, which
//! messages name (the spec's "why", not only "whether").

use naga::Span;

use super::rule::Rule;

/// The innermost builtin that makes a requirement: what it is, where, and in which function.
#[derive(Clone, Debug)]
pub(crate) struct Cause {
    pub rule: Rule,
    pub what: String,
    pub span: Span,
    pub function: String,
}
