//! Statement behaviors (the spec's "Statement Behavior Analysis"): which of Next, Break,
//! Continue and Return a statement may end with. The uniformity rules for `if`, `switch` and
//! loops branch on them: a statement whose behavior is not exactly {Next} leaves non-uniform
//! control flow behind it when it branched non-uniformly.

use naga::{Block, Statement};

/// A set of behaviors.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Behaviors(u8);

impl Behaviors {
    pub const NEXT: Self = Self(1);
    pub const BREAK: Self = Self(2);
    pub const CONTINUE: Self = Self(4);
    pub const RETURN: Self = Self(8);

    /// Whether every behavior in `other` is in `self`.
    pub fn has(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }

    /// Whether `self` and `other` share a behavior.
    pub fn intersects(self, other: Self) -> bool {
        self.0 & other.0 != 0
    }

    /// The union.
    pub fn with(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    /// `self` less `other`.
    pub fn without(self, other: Self) -> Self {
        Self(self.0 & !other.0)
    }
}

/// The behavior of a statement sequence. Statements after one without Next are unreachable and
/// do not contribute, as in the spec.
pub(crate) fn of_block(block: &Block) -> Behaviors {
    let mut b = Behaviors::NEXT;
    for s in block.iter() {
        if !b.has(Behaviors::NEXT) {
            break;
        }
        b = b.without(Behaviors::NEXT).with(of_statement(s));
    }
    b
}

/// The behavior of one statement.
pub(crate) fn of_statement(s: &Statement) -> Behaviors {
    match s {
        Statement::Block(b) => of_block(b),
        Statement::If { accept, reject, .. } => of_block(accept).with(of_block(reject)),
        Statement::Switch { cases, .. } => {
            let b = cases
                .iter()
                // naga splits `case 1, 2:` into an empty case that falls through and the body.
                .filter(|c| !(c.fall_through && c.body.is_empty()))
                .fold(Behaviors::default(), |b, c| b.with(of_block(&c.body)));
            if b.has(Behaviors::BREAK) {
                b.without(Behaviors::BREAK).with(Behaviors::NEXT)
            } else {
                b
            }
        }
        Statement::Loop {
            body,
            continuing,
            break_if,
        } => of_loop(body, continuing, break_if.is_some()),
        Statement::Break => Behaviors::BREAK,
        Statement::Continue => Behaviors::CONTINUE,
        Statement::Return { .. } => Behaviors::RETURN,
        // `discard` demotes the invocation to a helper; execution continues.
        _ => Behaviors::NEXT,
    }
}

/// `loop { s1 continuing { s2 } }`, where `break if` is a statement of `s2` with {Break, Next}.
pub(crate) fn of_loop(body: &Block, continuing: &Block, break_if: bool) -> Behaviors {
    let b1 = of_body(body);
    // A body that always returns never reaches the continuing block, whatever its `break if`
    // says (the spec's "loop with exactly return behavior before the continuing block").
    if b1 == Behaviors::RETURN {
        return Behaviors::RETURN;
    }
    let mut b2 = of_block(continuing);
    if break_if && b2.has(Behaviors::NEXT) {
        b2 = b2.with(Behaviors::BREAK);
    }
    let b = b1.with(b2);
    if b.has(Behaviors::BREAK) {
        b.with(Behaviors::NEXT)
            .without(Behaviors::BREAK.with(Behaviors::CONTINUE))
    } else {
        b.without(Behaviors::CONTINUE.with(Behaviors::NEXT))
    }
}

/// A loop body's own behavior (`s1`).
pub(crate) fn of_body(body: &Block) -> Behaviors {
    of_block(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fn_body(src: &str) -> Block {
        let module = naga::front::wgsl::parse_str(src).expect("parses");
        module.entry_points[0].function.body.clone()
    }

    /// The first statement (depth first) that `pick` accepts.
    fn find<'a>(block: &'a Block, pick: &dyn Fn(&Statement) -> bool) -> Option<&'a Statement> {
        block.iter().find_map(|s| {
            if pick(s) {
                return Some(s);
            }
            match s {
                Statement::Block(b) => find(b, pick),
                _ => None,
            }
        })
    }

    #[test]
    fn loop_with_break_is_next() {
        let body = fn_body(
            "@compute @workgroup_size(1) fn main(@builtin(local_invocation_index) i: u32) {\n\
             for (var j = 0u; j < i; j++) { if j == 3u { return; } }\n}",
        );
        let lp = find(&body, &|s| matches!(s, Statement::Loop { .. })).expect("a loop");
        let b = of_statement(lp);
        assert!(b.has(Behaviors::NEXT) && b.has(Behaviors::RETURN));
        assert!(!b.intersects(Behaviors::BREAK.with(Behaviors::CONTINUE)));
    }

    #[test]
    fn switch_with_shared_case_returns() {
        let body = fn_body(
            "@compute @workgroup_size(1) fn main(@builtin(local_invocation_index) i: u32) {\n\
             switch i { case 1u, default: { return; } }\n}",
        );
        let switch = find(&body, &|s| matches!(s, Statement::Switch { .. })).expect("a switch");
        assert_eq!(of_statement(switch), Behaviors::RETURN);
    }
}
