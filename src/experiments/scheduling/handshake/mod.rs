//! `scheduling.handshake`: in every subgroup, side A (even lanes) sets flag a and waits for flag
//! b, side B (odd lanes) waits for a and then sets b, with A in the then-branch and then in the
//! else-branch. Both sides complete in both orders only where diverged paths interleave. Every
//! spin is capped (`shaders/scheduling_handshake.wgsl` says why nothing can hang) and the host's
//! poll has a timeout as well.
//!
//! Without subgroups the same handshake runs per aligned block of [`BLOCK`] consecutive local
//! invocations ([`Grouping::Blocks`]), split by the parity of the position in the block.

mod report;

use super::two_order::{self, Probe, ProbeOrder, Run, Runs, SpinCell, TwoOrder};
use super::{BLOCK, Grouping};
use crate::report::{ExperimentInfo, ExperimentResult, Family};
use crate::shaders;
pub use crate::shaders::scheduling::handshake::{HandshakeRecord, SIDE_A, SIDE_B};

/// Which branch side A takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandshakeOrder {
    /// Side A in the then-branch, side B in the else-branch.
    AThen,
    /// Side B in the then-branch, side A in the else-branch.
    AElse,
}

impl HandshakeOrder {
    /// Both orders, in run order.
    pub const ALL: [Self; 2] = [Self::AThen, Self::AElse];

    /// The branch side A takes, and the one side B takes.
    pub fn branches(self) -> (&'static str, &'static str) {
        match self {
            Self::AThen => ("then", "else"),
            Self::AElse => ("else", "then"),
        }
    }
}

impl ProbeOrder for HandshakeOrder {
    const ALL: [Self; 2] = HandshakeOrder::ALL;
    const ENTRIES: [(&'static str, &'static str); 2] =
        [("a_then", "a_then_no_sg"), ("a_else", "a_else_no_sg")];
}

/// One side of one subgroup's (or block's) handshake.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SideSpin {
    /// Lanes on this side.
    pub lanes: u32,
    /// Lanes that saw the awaited flag within the cap.
    pub saw: u32,
    /// The most checks any of its lanes made (the cap where one gave up).
    pub checks: u32,
}

impl SideSpin {
    /// Every lane of the side saw its flag: none ran to the cap.
    pub fn completed(&self) -> bool {
        self.lanes > 0 && self.saw == self.lanes
    }

    /// Some lane of the side ran its spin to the cap.
    pub fn capped(&self) -> bool {
        self.saw < self.lanes
    }

    fn add(&mut self, r: &HandshakeRecord) {
        self.lanes += 1;
        self.saw += u32::from(r.saw == 1);
        self.checks = self.checks.max(r.checks);
    }
}

/// What one subgroup's handshake showed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Both sides completed: the paths interleaved.
    Both,
    /// Side A spun to its cap while every B lane saw a: A's path ran to its end first.
    AFirst,
    /// Every B lane gave up before any A lane set a: B's path ran to its end first.
    BFirst,
    /// Anything else (lanes of one side disagreed, or a side had no lanes).
    Mixed,
}

/// One subgroup's (or block's) handshake in one dispatch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SubgroupHandshake {
    /// Side A's lanes.
    pub a: SideSpin,
    /// Side B's lanes.
    pub b: SideSpin,
    /// Flag a after the dispatch: the A lanes that set it.
    pub flag_a: u32,
    /// Flag b after the dispatch: the B lanes that saw a.
    pub flag_b: u32,
}

impl SubgroupHandshake {
    /// How the two sides were scheduled, as far as the flags show.
    pub fn outcome(&self) -> Outcome {
        let all_gave_up = |s: &SideSpin| s.lanes > 0 && s.saw == 0;
        if self.a.completed() && self.b.completed() {
            Outcome::Both
        } else if all_gave_up(&self.a) && self.b.completed() {
            Outcome::AFirst
        } else if all_gave_up(&self.b) && self.a.lanes > 0 {
            Outcome::BFirst
        } else {
            Outcome::Mixed
        }
    }

    /// What atomics guarantee whatever the schedule: a counts every A lane, b exactly the B
    /// lanes that saw a, and no A lane saw b unless a B lane set it.
    pub fn flags_consistent(&self) -> bool {
        self.flag_a == self.a.lanes
            && self.flag_b == self.b.saw
            && (self.a.saw == 0 || self.b.saw > 0)
    }
}

/// One dispatch of the handshake probe.
pub type HandshakeRun = Run<Handshake>;

/// The compiled handshake probe: one pipeline per order.
pub type HandshakeProbe = Probe<Handshake>;

/// The `scheduling.handshake` experiment.
pub struct Handshake;

impl TwoOrder for Handshake {
    type Order = HandshakeOrder;
    type Record = HandshakeRecord;
    type Subgroup = SubgroupHandshake;
    const INFO: ExperimentInfo = INFO;
    const FLAGS: u64 = 2;
    const FINISHED: &'static str =
        "every lane finished its side: both capped spins end without the other side's help";

    const FLAGS_VERDICT: (&'static str, &'static str) = (
        "flags_exact",
        "flag a counts every A lane, flag b exactly the B lanes that saw a, and no A lane saw b \
         unless a B lane set it (atomics)",
    );

    fn flags_ok(s: &SubgroupHandshake) -> Option<bool> {
        Some(s.flags_consistent())
    }

    fn flags_detail(inconsistent: usize, subgroups: usize, grouping: Grouping) -> String {
        let units = grouping.units();
        format!("{inconsistent} of {subgroups} {units}' flags disagree with their lanes' records")
    }

    fn split() -> [String; 2] {
        [
            "even subgroup_invocation_id takes the then-branch, odd the else-branch".to_owned(),
            format!(
                "even local_invocation_index % {BLOCK} takes the then-branch, odd the \
                 else-branch"
            ),
        ]
    }

    fn slot(r: &HandshakeRecord) -> Option<u32> {
        [SIDE_A, SIDE_B].contains(&r.side).then_some(r.subgroup)
    }

    /// `flags` holds a and b of slot s at 2s, 2s+1.
    fn absorb(s: &mut SubgroupHandshake, r: &HandshakeRecord, flags: &[u32]) {
        let flag = |i: u32| flags.get(i as usize).copied().unwrap_or(0);
        s.flag_a = flag(2 * r.subgroup);
        s.flag_b = flag(2 * r.subgroup + 1);
        if r.side == SIDE_A {
            s.a.add(r);
        } else {
            s.b.add(r);
        }
    }

    fn report(runs: &Runs<Self>, result: &mut ExperimentResult) {
        report::report(runs, result);
    }

    /// The checks its spin made.
    fn cell(r: &HandshakeRecord) -> Option<SpinCell> {
        (r.side != 0).then_some((r.subgroup, r.lane, r.local_index, r.ballot, r.checks))
    }
}

/// What `scheduling.handshake` declares.
pub const INFO: ExperimentInfo = ExperimentInfo {
    id: "scheduling.handshake",
    family: Family::Scheduling,
    title: "Scheduling: a handshake between the two paths of a subgroup's branch",
    rule: "Two diverged paths of one subgroup can hand a flag back and forth only where \
           the scheduler interleaves them (independent thread scheduling); WGSL \
           guarantees diverged lanes no forward progress, so each wait must be bounded",
    source: "“Independent Thread Scheduling”; “Per-Lane Program Counters and Independent Thread Scheduling”",
    shaders: &[&shaders::SCHEDULING_HANDSHAKE],
    figures: &[],
    fit: None,
};

declare_experiment!(Handshake, INFO, two_order::run::<Handshake>);

#[cfg(test)]
mod tests {
    use super::*;

    fn record(subgroup: u32, lane: u32, side: u32, checks: u32, saw: u32) -> HandshakeRecord {
        HandshakeRecord {
            subgroup,
            lane,
            size: 4,
            side,
            checks,
            saw,
            local_index: lane,
            pad: 0,
            ballot: [0; 4],
        }
    }

    #[test]
    fn outcomes_follow_which_side_gave_up() {
        let records = vec![
            // Slot 0: both sides saw their flag.
            record(0, 0, SIDE_A, 3, 1),
            record(0, 1, SIDE_B, 1, 1),
            // Slot 4: A spun to the cap, B saw a at once.
            record(4, 0, SIDE_A, 16, 0),
            record(4, 1, SIDE_B, 1, 1),
            // Slot 8: both gave up.
            record(8, 0, SIDE_A, 16, 0),
            record(8, 1, SIDE_B, 16, 0),
            // Slot 12: one A lane saw b, one did not; a lane without a record.
            record(12, 0, SIDE_A, 2, 1),
            record(12, 2, SIDE_A, 16, 0),
            record(12, 1, SIDE_B, 1, 1),
            record(12, 3, 0, 0, 0),
        ];
        let mut flags = vec![0; 32];
        flags[..2].copy_from_slice(&[1, 1]);
        flags[8..10].copy_from_slice(&[1, 1]);
        flags[16..18].copy_from_slice(&[1, 0]);
        flags[24..26].copy_from_slice(&[2, 1]);
        let run = HandshakeRun::fold(HandshakeOrder::AThen, 16, 1.0, &flags, records);
        assert_eq!(run.unrecorded, 1);
        let outcome = |slot: u32| run.subgroups[&slot].outcome();
        assert_eq!(outcome(0), Outcome::Both);
        assert_eq!(outcome(4), Outcome::AFirst);
        assert_eq!(outcome(8), Outcome::BFirst);
        assert_eq!(outcome(12), Outcome::Mixed);
        assert!(
            run.subgroups
                .values()
                .all(SubgroupHandshake::flags_consistent)
        );
        assert_eq!(run.subgroups[&12].a.checks, 16);
        assert!(run.subgroups[&12].a.capped() && !run.subgroups[&12].a.completed());
    }

    #[test]
    fn a_completing_without_b_is_inconsistent() {
        let s = SubgroupHandshake {
            a: SideSpin {
                lanes: 1,
                saw: 1,
                checks: 1,
            },
            b: SideSpin {
                lanes: 1,
                saw: 0,
                checks: 16,
            },
            flag_a: 1,
            flag_b: 0,
        };
        assert!(!s.flags_consistent());
    }
}
