//! Hoisted loops: a `for`/`while` that can leave only by its test counts nothing per trip but
//! two votes per `if` at the top of its body; after it, each lane's trip counter (and, for a
//! test of `&&`s, the first link its last test rejected) gives its body's and test's counts.

use naga::{
    BinaryOperator, Block, Expression, Handle, Literal, LocalVariable, MathFunction, Statement,
    SubgroupOperation, UnaryOperator,
};

use super::Pass;
use super::count::{Share, Total, VotedIf};
use super::emit::Emitter;
use super::layout::Word;
use super::sites::{BlockKind, Derived, Opener};
use super::walk::TripIf;

impl Pass<'_> {
    /// After a hoisted loop (`control::hoistable`), every count its trips would have made, from each
    /// lane's exit-test evaluations `t` (its own trip counter): the body (and a counted `continuing`)
    /// ran `t - 1` times in the lane and `max(t) - 1` times in the subgroup; the test was
    /// evaluated `max(t)` times, divergent on all but the last of the distinct `t`s; the `break`
    /// ran once per distinct `t`. The test's `&&` links ([`Self::count_link`]) from `t` and the
    /// first link the lane's last test rejected; the `if`s at the top of the body
    /// ([`Self::count_after_trips`]) from their per-trip sums. Exact when the lanes that enter
    /// together run their trips together (they leave together here: the loop has no other
    /// exit), and free of any subgroup operation inside the loop but those `if`s' two votes: on
    /// the H200 any one there costs a small kernel more than its time alone.
    pub(super) fn count_hoisted(
        &self,
        fx: &mut Emitter<'_>,
        (lp, trips, failed): (usize, Handle<LocalVariable>, Option<Handle<LocalVariable>>),
        blocks: [Option<usize>; 2],
        trip_ifs: &[TripIf],
        out: &mut Block,
    ) {
        let site = &self.sites.loops[lp];
        let exit = site.exit_test.expect("a hoisted loop has an exit test");
        let links = site.test_branches.start..exit;
        let leave = self.sites.exit_break(exit);
        let pointer = fx.local(trips, out);
        let tests = fx.load(pointer);
        let most = fx.reduce(SubgroupOperation::Max, tests, self.g.u32_ty, out);
        let one = fx.literal(Literal::U32(1), out);
        let ran = fx.binary(BinaryOperator::Subtract, tests, one);
        let most_ran = fx.binary(BinaryOperator::Subtract, most, one);
        // Link `j` took its reject side at the lane's last test when `failed <= j`.
        let rejected: Vec<Handle<Expression>> = match failed {
            Some(failed) => {
                let pointer = fx.local(failed, out);
                let failed = fx.load(pointer);
                (0..links.len())
                    .map(|j| {
                        let j = fx.literal(Literal::U32(j as u32), out);
                        fx.binary(BinaryOperator::LessEqual, failed, j)
                    })
                    .collect()
            }
            None => Vec::new(),
        };
        let (distinct, distinct_rejected) = self.distinct(fx, tests, &rejected, out);
        let splits = fx.binary(BinaryOperator::Subtract, distinct, one);
        let mut counts = Vec::new();
        for block in blocks.into_iter().flatten() {
            counts.push((Word::Block(block, 0), Share::Elected(most_ran)));
            counts.push((Word::Block(block, 2), Share::EachLane(ran, Total::Sum)));
        }
        counts.extend([
            (Word::Branch(exit, 0), Share::Elected(most)),
            (Word::Branch(exit, 2), Share::Elected(splits)),
            (Word::Block(leave, 0), Share::Elected(distinct)),
            (
                Word::Block(leave, 2),
                Share::EachLane(one, Total::ActiveLanes),
            ),
        ]);
        let figures = Trips {
            most,
            most_ran,
            ran,
            every_lane: false,
        };
        if !links.is_empty() {
            let last = fx.binary(BinaryOperator::Equal, tests, most);
            for ((link, rejected), distinct) in links.zip(rejected).zip(distinct_rejected) {
                let lane = (last, rejected, distinct);
                self.count_link(fx, link, figures, lane, &mut counts, out);
            }
        }
        for trip_if in trip_ifs {
            self.count_after_trips(fx, trip_if, figures, &mut counts, out);
        }
        self.count_bounded(fx, &counts, self.wide.flushed, out);
    }

    /// After a fixed loop (`fixed.rs`) standing in block `from`: its counted `continuing`, its
    /// exit `break` and its exit test derived on the host from `from`'s counts (its body's were
    /// before the body was walked), and the `if`s at the top of its body counted from their
    /// sums, with its trips as every lane's.
    pub(super) fn count_fixed(
        &mut self,
        fx: &mut Emitter<'_>,
        (lp, (from, trips)): (usize, (usize, u32)),
        continuing: Option<usize>,
        trip_ifs: &[TripIf],
        out: &mut Block,
    ) {
        let exit = self.sites.loops[lp]
            .exit_test
            .expect("a hoisted loop has an exit test");
        let leave = self.sites.exit_break(exit);
        let derived = &mut self.sites.derived;
        if let Some(block) = continuing {
            derived.push(Derived::Scaled {
                block,
                from,
                times: trips,
            });
        }
        derived.extend([
            Derived::Scaled {
                block: leave,
                from,
                times: 1,
            },
            Derived::ExitTest {
                branch: exit,
                from,
                times: trips + 1,
            },
        ]);
        if trip_ifs.is_empty() {
            return;
        }
        let ran = fx.literal(Literal::U32(trips), out);
        let most = fx.literal(Literal::U32(trips + 1), out);
        let figures = Trips {
            most,
            most_ran: ran,
            ran,
            every_lane: true,
        };
        let mut counts = Vec::new();
        for trip_if in trip_ifs {
            self.count_after_trips(fx, trip_if, figures, &mut counts, out);
        }
        self.count_bounded(fx, &counts, self.wide.flushed, out);
    }

    /// Before a hoisted loop whose test has `links` `&&`s: `divlab_failed{lp} = links`, the
    /// variable the links' reject sides mark ([`mark_failed_links`]).
    pub(super) fn new_failed_link(
        &self,
        fx: &mut Emitter<'_>,
        lp: usize,
        links: usize,
        out: &mut Block,
    ) -> Handle<LocalVariable> {
        let failed = fx.new_local(format!("divlab_failed{lp}"), self.g.u32_ty);
        let pointer = fx.local(failed, out);
        let none = fx.literal(Literal::U32(links as u32), out);
        fx.store(pointer, none, out);
        failed
    }

    /// The counts of `&&` link `link` of a hoisted loop's test, where `last` says whether the
    /// lane was there at the subgroup's last test, `rejected` whether its last test took the
    /// link's reject side (every earlier test took the accept side) and
    /// `distinct` is how many distinct `t` those lanes have: evaluated at every test; the
    /// reject side ran once per such `t`, the accept side at every test but the last, and at
    /// the last when a lane still there took it; divergent at a test where both ran, which is
    /// every test where some lane rejected but the last, where it is when one also accepted.
    fn count_link(
        &self,
        fx: &mut Emitter<'_>,
        link: usize,
        Trips {
            most,
            most_ran,
            ran,
            ..
        }: Trips,
        (last, rejected, distinct): (Handle<Expression>, Handle<Expression>, Handle<Expression>),
        counts: &mut Vec<(Word, Share)>,
        out: &mut Block,
    ) {
        let (zero, one) = (
            fx.literal(Literal::U32(0), out),
            fx.literal(Literal::U32(1), out),
        );
        let accepted = fx.unary(UnaryOperator::LogicalNot, rejected);
        let [rejected_last, accepted_last] = [rejected, accepted].map(|took| {
            let here = fx.binary(BinaryOperator::LogicalAnd, last, took);
            fx.vote(SubgroupOperation::Any, here, out)
        });
        let only_rejected = fx.unary(UnaryOperator::LogicalNot, accepted_last);
        let alone = fx.binary(BinaryOperator::LogicalAnd, rejected_last, only_rejected);
        let alone = fx.select(alone, one, zero);
        let divergent = fx.binary(BinaryOperator::Subtract, distinct, alone);
        counts.extend([
            (Word::Branch(link, 0), Share::Elected(most)),
            (Word::Branch(link, 2), Share::Elected(divergent)),
        ]);
        let side = |kind| {
            (0..self.sites.blocks.len()).find(|&b| {
                let block = &self.sites.blocks[b];
                block.opener == Opener::Branch(link) && block.kind == kind && !block.empty
            })
        };
        if let Some(accept) = side(BlockKind::IfAccept) {
            let at_last = fx.select(accepted_last, one, zero);
            let runs = fx.binary(BinaryOperator::Add, most_ran, at_last);
            let mine = fx.select(accepted, one, zero);
            let lane_runs = fx.binary(BinaryOperator::Add, ran, mine);
            counts.push((Word::Block(accept, 0), Share::Elected(runs)));
            counts.push((
                Word::Block(accept, 2),
                Share::EachLane(lane_runs, Total::Sum),
            ));
        }
        if let Some(reject) = side(BlockKind::IfReject) {
            let mine = fx.select(rejected, one, zero);
            counts.push((Word::Block(reject, 0), Share::Elected(distinct)));
            counts.push((Word::Block(reject, 2), Share::EachLane(mine, Total::Sum)));
        }
    }

    /// At every trip, an `if` at the top level of a hoisted loop's body ([`TripIf`]): whether
    /// some lane takes each side (two votes), and the lane's sums of them and of its own
    /// condition, in variables [`Self::zero_trip_ifs`] sets to 0 before the loop.
    pub(super) fn count_trip_if(
        &self,
        fx: &mut Emitter<'_>,
        vote: VotedIf,
        out: &mut Block,
    ) -> TripIf {
        let VotedIf {
            branch,
            condition,
            sides,
        } = vote;
        let any = fx.vote(SubgroupOperation::Any, condition, out);
        let all = fx.vote(SubgroupOperation::All, condition, out);
        let not_all = fx.unary(UnaryOperator::LogicalNot, all);
        let divergent = fx.binary(BinaryOperator::LogicalAnd, any, not_all);
        let trip_if = TripIf {
            branch,
            sides,
            divergent: fx.new_local(format!("divlab_divergent{branch}"), self.g.u32_ty),
            accepted: fx.new_local(format!("divlab_accepted{branch}"), self.g.u32_ty),
            lane_accepted: fx.new_local(format!("divlab_lane_accepted{branch}"), self.g.u32_ty),
        };
        let (zero, one) = (
            fx.literal(Literal::U32(0), out),
            fx.literal(Literal::U32(1), out),
        );
        for (sum, holds) in [
            (trip_if.divergent, divergent),
            (trip_if.accepted, any),
            (trip_if.lane_accepted, condition),
        ] {
            let pointer = fx.local(sum, out);
            let old = fx.load(pointer);
            let add = fx.select(holds, one, zero);
            let new = fx.binary(BinaryOperator::Add, old, add);
            fx.store(pointer, new, out);
        }
        trip_if
    }

    /// Before a hoisted loop: its [`TripIf`]s' sums set to 0.
    pub(super) fn zero_trip_ifs(&self, fx: &mut Emitter<'_>, trip_ifs: &[TripIf], out: &mut Block) {
        for trip_if in trip_ifs {
            for sum in [trip_if.divergent, trip_if.accepted, trip_if.lane_accepted] {
                let pointer = fx.local(sum, out);
                let zero = fx.literal(Literal::U32(0), out);
                fx.store(pointer, zero, out);
            }
        }
    }

    /// After a hoisted loop, the counts of an `if` at the top of its body from its sums: it was
    /// evaluated at every trip; the lane that ran every trip holds the subgroup's divergent
    /// trips and accept-side trips (`subgroupMax`; after a fixed loop every lane does); the
    /// reject side ran at every trip that was not all accept (`trips - accepted + divergent`),
    /// and each lane took it at its trips less its accept sides.
    fn count_after_trips(
        &self,
        fx: &mut Emitter<'_>,
        trip_if: &TripIf,
        Trips {
            most_ran,
            ran,
            every_lane,
            ..
        }: Trips,
        counts: &mut Vec<(Word, Share)>,
        out: &mut Block,
    ) {
        let mut subgroup_sum = |fx: &mut Emitter<'_>, sum| {
            let pointer = fx.local(sum, out);
            let mine = fx.load(pointer);
            if every_lane {
                return mine;
            }
            fx.reduce(SubgroupOperation::Max, mine, self.g.u32_ty, out)
        };
        let divergent = subgroup_sum(fx, trip_if.divergent);
        let accepted = subgroup_sum(fx, trip_if.accepted);
        let pointer = fx.local(trip_if.lane_accepted, out);
        let lane_accepted = fx.load(pointer);
        counts.extend([
            (Word::Branch(trip_if.branch, 0), Share::Elected(most_ran)),
            (Word::Branch(trip_if.branch, 2), Share::Elected(divergent)),
        ]);
        let [accept, reject] = trip_if.sides;
        if let Some(accept) = accept {
            counts.push((Word::Block(accept, 0), Share::Elected(accepted)));
            counts.push((
                Word::Block(accept, 2),
                Share::EachLane(lane_accepted, Total::Sum),
            ));
        }
        if let Some(reject) = reject {
            let not_all = fx.binary(BinaryOperator::Subtract, most_ran, accepted);
            let runs = fx.binary(BinaryOperator::Add, not_all, divergent);
            let lane_runs = fx.binary(BinaryOperator::Subtract, ran, lane_accepted);
            counts.push((Word::Block(reject, 0), Share::Elected(runs)));
            counts.push((
                Word::Block(reject, 2),
                Share::EachLane(lane_runs, Total::Sum),
            ));
        }
    }

    /// How many distinct values `value` has over the subgroup's active lanes, and over those
    /// where each of `among` holds. Bit by bit, over the bits where the lanes' values differ
    /// (`subgroupOr ^ subgroupAnd`: none when every lane ran as many trips), each lane keeps the
    /// ballot of the lanes whose value agrees with its own so far: a ballot a bit, at most 32,
    /// where a round per distinct value (the minimum of those left) took a reduction each. Then
    /// the lowest lane of each set of equal values counts it. Each bit adds 1 to the
    /// invocation's loop trips (`cap.rs`) but never breaks at the cap.
    fn distinct(
        &self,
        fx: &mut Emitter<'_>,
        value: Handle<Expression>,
        among: &[Handle<Expression>],
        out: &mut Block,
    ) -> (Handle<Expression>, Vec<Handle<Expression>>) {
        let u32_ty = self.g.u32_ty;
        let same = fx.new_local("divlab_same".to_owned(), self.g.ballot_ty);
        let same = fx.local(same, out);
        let active = fx.ballot(out);
        fx.store(same, active, out);
        let any_set = fx.reduce(SubgroupOperation::Or, value, u32_ty, out);
        let all_set = fx.reduce(SubgroupOperation::And, value, u32_ty, out);
        let differ = fx.binary(BinaryOperator::ExclusiveOr, any_set, all_set);
        let bits = fx.new_local("divlab_differ".to_owned(), u32_ty);
        let bits = fx.local(bits, out);
        fx.store(bits, differ, out);
        let trips = self.g.trips;
        let body = fx.nested(out, |fx, b| {
            // Each bit is a loop iteration too: counted with the kernel's toward the cap, as
            // llvmpipe counts every loop of an invocation toward its silent limit.
            let all_trips = fx.global(trips, b);
            fx.increment(all_trips, b);
            let (zero, one) = (
                fx.literal(Literal::U32(0), b),
                fx.literal(Literal::U32(1), b),
            );
            // Each trip clears the lowest bit left: at most 32 and the one that finds none.
            let left = fx.load(bits);
            let done = fx.binary(BinaryOperator::Equal, left, zero);
            let stop = fx.nested(b, |fx, b| fx.statement(Statement::Break, b));
            fx.if_then(done, stop, b);
            let index = fx.emitted(Expression::Math {
                fun: MathFunction::FirstTrailingBit,
                arg: left,
                arg1: None,
                arg2: None,
                arg3: None,
            });
            let below = fx.binary(BinaryOperator::Subtract, left, one);
            let rest = fx.binary(BinaryOperator::And, left, below);
            fx.store(bits, rest, b);
            let shifted = fx.binary(BinaryOperator::ShiftRight, value, index);
            let low = fx.binary(BinaryOperator::And, shifted, one);
            let mine = fx.binary(BinaryOperator::NotEqual, low, zero);
            let ones = fx.ballot_of(mine, b);
            let zeros = fx.unary(UnaryOperator::BitwiseNot, ones);
            let agree = fx.select(mine, ones, zeros);
            let kept = fx.load(same);
            let kept = fx.binary(BinaryOperator::And, kept, agree);
            fx.store(same, kept, b);
        });
        fx.statement(
            Statement::Loop {
                body,
                continuing: Block::new(),
                break_if: None,
            },
            out,
        );
        let (lane_id, _) = self.g.lane_id.expect("hoisted loops need subgroups");
        let lane = fx.global(lane_id, out);
        let lane = fx.load(lane);
        let same = fx.load(same);
        let count_firsts = |fx: &mut Emitter<'_>, lanes, holds, out: &mut Block| {
            let lowest = fx.lowest_lane(lanes, out);
            let mut first = fx.binary(BinaryOperator::Equal, lowest, lane);
            if let Some(holds) = holds {
                first = fx.binary(BinaryOperator::LogicalAnd, holds, first);
            }
            let firsts = fx.ballot_of(first, out);
            fx.lanes_of(firsts)
        };
        let distinct = count_firsts(fx, same, None, out);
        let mut among_counts = Vec::with_capacity(among.len());
        for &holds in among {
            // Where `holds`, the lane is in its own set: the set is not empty.
            let where_holds = fx.ballot_of(holds, out);
            let lanes = fx.binary(BinaryOperator::And, same, where_holds);
            among_counts.push(count_firsts(fx, lanes, Some(holds), out));
        }
        let among = among_counts;
        (distinct, among)
    }
}

/// A hoisted loop's figures that its `&&` links' and top-level `if`s' counts are made of.
#[derive(Clone, Copy)]
struct Trips {
    /// `max(t)`: the subgroup's tests.
    most: Handle<Expression>,
    /// `max(t) - 1`: the subgroup's trips.
    most_ran: Handle<Expression>,
    /// `t - 1`: the lane's trips.
    ran: Handle<Expression>,
    /// Every lane ran every trip (a fixed loop): each lane's sums of the votes are the
    /// subgroup's.
    every_lane: bool,
}

/// In a hoisted loop's test, `failed = min(failed, j)` at the end of the reject side of its
/// `j`th `&&` link (every `if` before the exit test's own): after the loop, `failed` is the
/// first link the lane's last test rejected, or the number of links when every link took its
/// accept side and the last operand was false ([`Pass::count_link`]).
pub(super) fn mark_failed_links(
    fx: &mut Emitter<'_>,
    test: &mut Block,
    failed: Handle<LocalVariable>,
    out: &mut Block,
) {
    let links = test
        .iter()
        .filter(|s| matches!(s, Statement::If { .. }))
        .count()
        - 1;
    let mut link = 0;
    for statement in test.iter_mut() {
        let Statement::If { reject, .. } = statement else {
            continue;
        };
        if link == links {
            break;
        }
        // On the line of the side's own `l = false`, which is the test's line.
        let saved = fx.span;
        if let Some((_, span)) = reject.span_iter().find(|(_, span)| span.is_defined()) {
            fx.span = *span;
        }
        let mark = fx.nested(out, |fx, b| {
            let pointer = fx.local(failed, b);
            let index = fx.literal(Literal::U32(link as u32), b);
            let old = fx.load(pointer);
            let first = fx.emitted(Expression::Math {
                fun: MathFunction::Min,
                arg: old,
                arg1: Some(index),
                arg2: None,
                arg3: None,
            });
            fx.store(pointer, first, b);
        });
        fx.span = saved;
        reject.extend_block(mark);
        link += 1;
    }
}
