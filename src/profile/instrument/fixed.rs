//! Loops of fixed trips: a `for` (or a `while` that steps at the end of its body) whose counter
//! runs from a constant to a constant, added to or scaled by a constant and written nowhere
//! else, runs as many trips in every lane, and that number is known before the kernel runs.
//! Its counts are then those of the block it stands in, times its trips ([`super::Derived`]):
//! the pass counts nothing per trip and nothing after it but its top-level `if`s. A hoisted
//! loop's counts after it (`hoist.rs`) cost about 15 subgroup operations; a kernel of many
//! short fixed loops in functions called from loops (a big-integer library's limb loops) had
//! so many of them, inlined into every call, that its instrumented form did not compile in
//! 400 s on an H100.

use std::collections::{HashMap, HashSet};

use naga::{
    BinaryOperator, Block, Constant, Expression, Function, Handle, Literal, LocalVariable,
    Statement,
};

use super::Pass;
use super::emit::Emitter;
use crate::naga_walk::each_statement;

/// The module's constants whose value is a `u32` or `i32` literal, which a loop's bounds may
/// name.
pub(super) type Constants = HashMap<Handle<Constant>, Literal>;

/// The constants of `module` that [`fixed_trips`] can read.
pub(super) fn integer_constants(module: &naga::Module) -> Constants {
    module
        .constants
        .iter()
        .filter_map(
            |(handle, constant)| match module.global_expressions[constant.init] {
                Expression::Literal(literal @ (Literal::U32(_) | Literal::I32(_))) => {
                    Some((handle, literal))
                }
                _ => None,
            },
        )
        .collect()
}

/// Where a loop stands, as [`fixed_trips`] reads it.
struct LoopPlace<'a> {
    function: &'a Function,
    constants: &'a Constants,
    /// The statement just before the loop in its block, when it is a store: `(pointer, value)`.
    stored_before: Option<(Handle<Expression>, Handle<Expression>)>,
    /// Whether the loop is inside another loop of its function.
    in_loop: bool,
    /// The function's locals written by one statement alone ([`written_once`]).
    written_once: &'a HashSet<Handle<LocalVariable>>,
    /// The loop cap: a loop of more trips is cut by it and not fixed.
    cap: u32,
}

impl Pass<'_> {
    /// Whether loop `lp` (hoistable, its test without `&&` links) is fixed: if so, the block
    /// it stands in, whose counts its own are made from, and its trips, which its site records.
    pub(super) fn fixed(
        &mut self,
        fx: &Emitter<'_>,
        lp: usize,
        (body, continuing): (&Block, &Block),
    ) -> Option<(usize, u32)> {
        let from = self.at.in_force?;
        let place = LoopPlace {
            function: fx.function,
            constants: &self.constants,
            stored_before: self.at.stored_before,
            in_loop: self.at.in_loop,
            written_once: &self.at.written_once,
            cap: self.opts.loop_cap,
        };
        let trips = fixed_trips(&place, body, continuing)?;
        self.sites.loops[lp].fixed_trips = Some(trips);
        Some((from, trips))
    }
}

/// The trips of a hoistable loop (`control::hoistable`, without `&&` links) whose exit test
/// (the first statement of `body` but `Emit`s) compares a local counter with a constant, whose
/// `continuing` only steps the counter by a constant (or, empty, leaves the step to the body's
/// last statement, with no `continue` before it), and whose counter starts at a constant:
/// stored just before the loop, or the local's initializer where the loop is in no other loop
/// and nothing else stores the counter. Nothing in the body may write the counter (no store,
/// no pointer passed to a call), and the counter may not wrap before the test fails.
fn fixed_trips(place: &LoopPlace<'_>, body: &Block, continuing: &Block) -> Option<u32> {
    let expressions = &place.function.expressions;
    let counter_of = |pointer: Handle<Expression>| match expressions[pointer] {
        Expression::LocalVariable(local) => Some(local),
        _ => None,
    };
    let loaded = |e: Handle<Expression>| match expressions[e] {
        Expression::Load { pointer } => counter_of(pointer),
        _ => None,
    };
    let constant = |e: Handle<Expression>| match expressions[e] {
        Expression::Literal(literal) => integer(literal),
        Expression::Constant(c) => place.constants.get(&c).copied().and_then(integer),
        _ => None,
    };
    // The exit test: `if counter OP bound {} else { break; }` (or the `break` on the accept side).
    let Some(Statement::If {
        condition, accept, ..
    }) = body.iter().find(|s| !matches!(s, Statement::Emit(_)))
    else {
        return None;
    };
    let Expression::Binary { op, left, right } = expressions[*condition] else {
        return None;
    };
    let (counter, op, bound) = match (loaded(left), loaded(right)) {
        (Some(counter), None) => (counter, op, constant(right)?),
        (None, Some(counter)) => (counter, mirrored(op)?, constant(left)?),
        _ => return None,
    };
    let goes_on_while = accept.is_empty();
    // The step, `counter = counter + step` (or `step + counter`, `counter - step`, a scale):
    // all of `continuing` (a `for`), or, where that is empty, the body's last statement (a
    // `while` that steps at its end, which no `continue` may skip).
    let statements = |block: &Block| {
        (block.iter())
            .filter(|s| !matches!(s, Statement::Emit(_)))
            .count()
    };
    let (Some(Statement::Store { pointer, value }), in_body) = (match statements(continuing) {
        0 => {
            let mut continues = false;
            each_statement(body, &mut |s| continues |= matches!(s, Statement::Continue));
            (last_statement(body).filter(|_| !continues), 1)
        }
        1 => (
            continuing.iter().find(|s| !matches!(s, Statement::Emit(_))),
            0,
        ),
        _ => (None, 0),
    }) else {
        return None;
    };
    if counter_of(*pointer) != Some(counter) {
        return None;
    }
    let Expression::Binary {
        op: step_op,
        left,
        right,
    } = expressions[*value]
    else {
        return None;
    };
    let step_kind = (
        loaded(left) == Some(counter),
        loaded(right) == Some(counter),
    );
    let step = match (step_op, step_kind) {
        (BinaryOperator::Add, (true, false)) => Step::Add(constant(right)?),
        (BinaryOperator::Add, (false, true)) => Step::Add(constant(left)?),
        (BinaryOperator::Subtract, (true, false)) => Step::Add(constant(right)?.negated()),
        (BinaryOperator::Multiply, (true, false)) => Step::Scale(step_op, constant(right)?),
        (BinaryOperator::Multiply, (false, true)) => Step::Scale(step_op, constant(left)?),
        (BinaryOperator::Divide, (true, false)) => Step::Scale(step_op, constant(right)?),
        // A shift's amount is a `u32` whatever the counter.
        (BinaryOperator::ShiftLeft | BinaryOperator::ShiftRight, (true, false)) => {
            let amount = constant(right)?;
            Step::Scale(
                step_op,
                Integer {
                    signed: bound.signed,
                    ..amount
                },
            )
        }
        _ => return None,
    };
    let start = match place.stored_before {
        Some((pointer, value)) if counter_of(pointer) == Some(counter) => constant(value)?,
        _ if !place.in_loop && place.written_once.contains(&counter) => {
            constant(place.function.local_variables[counter].init?)?
        }
        _ => return None,
    };
    // The loop's own writes of the counter: the step alone.
    let writes = (
        stores(body, expressions, counter),
        stores(continuing, expressions, counter),
    );
    if writes != (in_body, 1 - in_body) {
        return None;
    }
    let (Step::Add(by) | Step::Scale(_, by)) = step;
    let same_kind = start.signed == bound.signed && start.signed == by.signed;
    let trips = same_kind
        .then(|| trips(start, step, (op, bound.value), goes_on_while))
        .flatten()?;
    u32::try_from(trips).ok().filter(|&t| t <= place.cap)
}

/// The last statement of `block` but `Emit`s, inside the blocks naga nests a body in.
fn last_statement(block: &Block) -> Option<&Statement> {
    match block.iter().rfind(|s| !matches!(s, Statement::Emit(_)))? {
        Statement::Block(inner) => last_statement(inner),
        last => Some(last),
    }
}

/// The locals of `function` that one statement alone writes (a store, or a call handed a
/// pointer to it), read before the walk takes the body apart, in one walk of it: a loop
/// counter among them, where the loop is in no other loop, starts at its initializer.
pub(super) fn written_once(function: &Function) -> HashSet<Handle<LocalVariable>> {
    let mut writes: HashMap<Handle<LocalVariable>, usize> = HashMap::new();
    each_write(&function.body, &function.expressions, &mut |local| {
        *writes.entry(local).or_default() += 1;
    });
    (writes.into_iter())
        .filter_map(|(local, n)| (n == 1).then_some(local))
        .collect()
}

/// How many statements of `block` (nested ones too) write `counter` ([`each_write`]).
fn stores(
    block: &Block,
    expressions: &naga::Arena<Expression>,
    counter: Handle<LocalVariable>,
) -> usize {
    let mut count = 0;
    each_write(block, expressions, &mut |local| {
        count += usize::from(local == counter)
    });
    count
}

/// Calls `write` once per statement of `block` (nested ones too) that writes a local, with
/// the local: a store to it, or a call handed a pointer to it (a write, whatever the callee
/// does; a call handed several counts once for each).
fn each_write(
    block: &Block,
    expressions: &naga::Arena<Expression>,
    write: &mut impl FnMut(Handle<LocalVariable>),
) {
    let local = |e: &Handle<Expression>| match expressions[*e] {
        Expression::LocalVariable(local) => Some(local),
        _ => None,
    };
    each_statement(block, &mut |statement| match statement {
        Statement::Store { pointer, .. } => local(pointer).into_iter().for_each(&mut *write),
        Statement::Call { arguments, .. } => {
            let mut locals: Vec<_> = arguments.iter().filter_map(local).collect();
            locals.sort_unstable();
            locals.dedup();
            locals.into_iter().for_each(&mut *write);
        }
        _ => {}
    });
}

/// An integer constant of the loop, with whether it is an `i32`.
#[derive(Clone, Copy)]
struct Integer {
    value: i64,
    signed: bool,
}

impl Integer {
    fn negated(self) -> Self {
        Self {
            value: -self.value,
            ..self
        }
    }
}

fn integer(literal: Literal) -> Option<Integer> {
    match literal {
        Literal::U32(v) => Some(Integer {
            value: i64::from(v),
            signed: false,
        }),
        Literal::I32(v) => Some(Integer {
            value: i64::from(v),
            signed: true,
        }),
        _ => None,
    }
}

/// `bound OP counter` as `counter OP' bound`.
fn mirrored(op: BinaryOperator) -> Option<BinaryOperator> {
    use BinaryOperator as B;
    Some(match op {
        B::Less => B::Greater,
        B::LessEqual => B::GreaterEqual,
        B::Greater => B::Less,
        B::GreaterEqual => B::LessEqual,
        B::Equal | B::NotEqual => op,
        _ => return None,
    })
}

/// How a loop's `continuing` steps its counter.
#[derive(Clone, Copy)]
enum Step {
    /// `counter + by` (`by` negative for `counter - by`).
    Add(Integer),
    /// `counter * by`, `counter / by`, `counter << by`, `counter >> by`.
    Scale(BinaryOperator, Integer),
}

/// The most trips of a counter scaled at every step: doubling or halving, a `u32` runs out of
/// bits in 32.
const MOST_SCALED_TRIPS: u64 = 64;

/// The trips of a counter from `start` by `step` while `counter OP bound` holds (fails, when
/// `!goes_on_while`): `None` where it would wrap around its type first, or never end.
fn trips(
    start: Integer,
    step: Step,
    (op, bound): (BinaryOperator, i64),
    goes_on_while: bool,
) -> Option<u64> {
    use BinaryOperator as B;
    let (min, max) = if start.signed {
        (i64::from(i32::MIN), i64::from(i32::MAX))
    } else {
        (0, i64::from(u32::MAX))
    };
    let test = match op {
        B::Less => i64::lt,
        B::LessEqual => i64::le,
        B::Greater => i64::gt,
        B::GreaterEqual => i64::ge,
        B::Equal => i64::eq,
        B::NotEqual => i64::ne,
        _ => return None,
    };
    let holds = |i: i64| test(&i, &bound) == goes_on_while;
    let by = match step {
        Step::Add(by) if by.value != 0 => by.value,
        Step::Add(_) => return None,
        Step::Scale(op, by) => {
            // At most [`MOST_SCALED_TRIPS`], one by one; a step that leaves the type or the
            // value where it was never ends.
            let next = |v: i64| {
                let next = match op {
                    B::Multiply => v.checked_mul(by.value)?,
                    B::Divide if by.value != 0 => v / by.value,
                    B::ShiftLeft if (0..32).contains(&by.value) => v << by.value,
                    B::ShiftRight if (0..32).contains(&by.value) => v >> by.value,
                    _ => return None,
                };
                (next != v && (min..=max).contains(&next)).then_some(next)
            };
            let mut value = start.value;
            for n in 0..=MOST_SCALED_TRIPS {
                if !holds(value) {
                    return Some(n);
                }
                value = next(value)?;
            }
            return None;
        }
    };
    // The counter moves one way and each test is a threshold or one value, so the first test
    // that fails is the first, or the first at or past `bound - 1`, `bound` or `bound + 1`.
    let reaches = |target: i64| {
        let distance = (target - start.value) * by.signum();
        (distance >= 0).then(|| (distance + by.abs() - 1) / by.abs())
    };
    let end = [
        Some(0),
        reaches(bound - 1),
        reaches(bound),
        reaches(bound + 1),
    ]
    .into_iter()
    .flatten()
    .filter(|&n| !holds(start.value + n * by))
    .min()?;
    // The counter must not wrap before that test: its last value stays in its type.
    let last = start.value + end * by;
    (min..=max).contains(&last).then_some(end as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(value: i64) -> Integer {
        Integer {
            value,
            signed: false,
        }
    }

    fn i(value: i64) -> Integer {
        Integer {
            value,
            signed: true,
        }
    }

    /// `(start, step, (test, bound), goes on while the test holds)` against the trips.
    type Case = (Integer, Step, (BinaryOperator, i64), bool);

    fn check(cases: &[(Case, Option<u64>)]) {
        for (n, &((start, step, test, goes_on_while), want)) in cases.iter().enumerate() {
            let got = trips(start, step, test, goes_on_while);
            assert_eq!(got, want, "case {n}");
        }
    }

    #[test]
    fn counts_the_trips_of_common_counters() {
        use BinaryOperator as B;
        let scale = |op, by| Step::Scale(op, u(by));
        check(&[
            ((u(0), Step::Add(u(1)), (B::Less, 8), true), Some(8)),
            ((u(0), Step::Add(u(1)), (B::LessEqual, 8), true), Some(9)),
            // 3, 5, 7.
            ((u(3), Step::Add(u(2)), (B::Less, 8), true), Some(3)),
            (
                (i(7), Step::Add(i(-1)), (B::GreaterEqual, 0), true),
                Some(8),
            ),
            (
                (i(31), Step::Add(i(-1)), (B::GreaterEqual, 0), true),
                Some(32),
            ),
            ((u(0), Step::Add(u(1)), (B::NotEqual, 4), true), Some(4)),
            ((u(9), Step::Add(u(1)), (B::Less, 8), true), Some(0)),
            // Doubling and halving counters, by `*`, `/` and shifts.
            ((u(1), scale(B::Multiply, 2), (B::Less, 256), true), Some(8)),
            (
                (u(2), scale(B::ShiftLeft, 1), (B::LessEqual, 256), true),
                Some(8),
            ),
            (
                (u(128), scale(B::ShiftRight, 1), (B::GreaterEqual, 1), true),
                Some(8),
            ),
            ((u(8), scale(B::Divide, 2), (B::Greater, 0), true), Some(4)),
            // `if i >= 8 { break; }`: goes on while the test fails.
            (
                (u(0), Step::Add(u(1)), (B::GreaterEqual, 8), false),
                Some(8),
            ),
        ]);
    }

    /// Each `// N` loop of the kernel is fixed with N trips, each `// no` loop is not.
    const LOOPS: &str = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
const N: i32 = 5;
fn bump(p: ptr<function, u32>) { *p += 1u; }
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var acc = 0u;
    for (var i = 0u; i < 8u; i++) { acc += i; } // 8
    for (var i: i32 = 7; i >= 0; i--) { acc += u32(i); } // 8
    for (var i: i32 = -2; i < N; i += 2) { acc += u32(i); } // 4
    for (var r = 0u; r < 3u; r++) { // 3
        for (var i = 0u; i <= r; i++) { acc += i; } // no
        for (var i = 10u; 4u < i; i--) { acc += i; } // 6
    }
    for (var s = 32u; s > 0u; s >>= 1u) { if (lid < s) { acc += s; } } // 6
    for (var i = 0u; i < 8u; i++) { i += 1u; } // no
    for (var i = 0u; i < 8u; i++) { bump(&i); } // no
    for (var i = 7u; i >= 0u; i--) { if (i == lid) { break; } } // no
    for (var i = 0u; i < out[0]; i++) { acc += i; } // no
    for (var i = 0u; i < 100000u; i++) { acc += i; } // no
    var j = 0u;
    while (j < 4u) { j++; } // 4
    var k = 0u;
    while (k < 4u) { if (lid == k) { continue; } k++; } // no
    var h = 16u;
    while (h > 0u) { h = h / 2u; acc += h; } // no
    out[lid] = acc;
}
";

    #[test]
    fn reads_the_trips_of_fixed_loops_and_no_others() {
        let out = super::super::tests::run(LOOPS, true, 1000);
        let found: Vec<(u32, Option<u32>)> = (out.loops.iter())
            .map(|l| (l.line, l.fixed_trips))
            .collect();
        let wanted: Vec<(u32, Option<u32>)> = (1..)
            .zip(LOOPS.lines())
            .filter_map(|(n, text)| {
                let mark = text.rsplit("// ").next()?;
                (text.contains("for (") || text.contains("while (")).then(|| (n, mark.parse().ok()))
            })
            .collect();
        assert_eq!(found, wanted);
        // A fixed loop has no trip counter of its own: the seven others that leave only by
        // their test (all but the one with a `break`) do.
        assert_eq!(out.wgsl.matches("var divlab_trips").count(), 7);
    }

    #[test]
    fn refuses_counters_that_wrap_or_never_stop() {
        use BinaryOperator as B;
        let double = Step::Scale(B::Multiply, u(2));
        let most = i64::from(u32::MAX);
        check(&[
            // A `u32` counting down past 0 wraps.
            ((u(7), Step::Add(u(-1)), (B::GreaterEqual, 0), true), None),
            // Stepping by 2 from 0 never meets 5.
            ((u(0), Step::Add(u(2)), (B::NotEqual, 5), true), None),
            ((u(0), Step::Add(u(1)), (B::LessEqual, most), true), None),
            ((i(0), Step::Add(i(1)), (B::Greater, -1), true), None),
            // Doubling 0 stays 0; doubling 1 leaves `u32` before it reaches `u32::MAX`.
            ((u(0), double, (B::Less, 8), true), None),
            ((u(1), double, (B::Less, most), true), None),
        ]);
    }
}
