//! `scheduling.forward_progress`: in every subgroup, lanes on one path of a branch spin on an
//! atomic flag that lanes on the other path set, in both orders (spinners in the then-branch, and
//! in the else-branch). Every spin is capped (`shaders/scheduling_forward_progress.wgsl` says why
//! no configuration can hang the GPU) and the host's poll has a timeout as well.
//!
//! Without subgroups the same test runs per aligned block of [`BLOCK`] consecutive local
//! invocations ([`Grouping::Blocks`]): the first half of each block spins, the second sets.

mod report;

pub use super::two_order::default_cap;
use super::two_order::{self, Probe, ProbeOrder, Run, Runs, SpinCell, TwoOrder};
use super::{BLOCK, Grouping};
use crate::report::{ExperimentInfo, ExperimentResult, Family};
use crate::shaders;
pub use crate::shaders::scheduling::forward_progress::{
    NOT_SEEN, ROLE_SETTER, ROLE_SPINNER, SpinRecord,
};

/// Which path spins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpinOrder {
    /// The spinners take the then-branch, the setters the else-branch.
    SpinThen,
    /// The setters take the then-branch, the spinners the else-branch.
    SpinElse,
}

impl SpinOrder {
    /// Both orders, in run order.
    pub const ALL: [Self; 2] = [Self::SpinThen, Self::SpinElse];

    fn describe(self) -> &'static str {
        match self {
            Self::SpinThen => "spinners in the then-branch, setters in the else-branch",
            Self::SpinElse => "setters in the then-branch, spinners in the else-branch",
        }
    }
}

impl ProbeOrder for SpinOrder {
    const ALL: [Self; 2] = SpinOrder::ALL;
    const ENTRIES: [(&'static str, &'static str); 2] = [
        ("spin_then", "spin_then_no_sg"),
        ("spin_else", "spin_else_no_sg"),
    ];
}

/// What one subgroup (or block) showed in one dispatch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SubgroupSpin {
    /// Lanes that spun.
    pub spinners: u32,
    /// Lanes that set the flag.
    pub setters: u32,
    /// Spinners that saw the flag within the cap.
    pub saw: u32,
    /// The latest check at which a spinner first saw the flag (`None` when none saw it).
    pub last_seen_at: Option<u32>,
    /// Whether the flag read 1 after the dispatch.
    pub flag_set: bool,
}

impl SubgroupSpin {
    /// Both paths had lanes, so the spin is a test of progress.
    pub fn is_test(&self) -> bool {
        self.spinners > 0 && self.setters > 0
    }

    /// Every spinner saw the flag set by the other path.
    pub fn progressed(&self) -> bool {
        self.is_test() && self.saw == self.spinners
    }
}

/// One dispatch of the spin probe.
pub type SpinRun = Run<ForwardProgress>;

/// The compiled spin probe: one pipeline per order.
pub type SpinProbe = Probe<ForwardProgress>;

impl SpinRun {
    /// Subgroups whose spin tested progress, and those of them whose spinners all saw the flag.
    pub fn progress(&self) -> (usize, usize) {
        let tests = self.subgroups.values().filter(|s| s.is_test());
        let (mut progressed, mut total) = (0, 0);
        for s in tests {
            total += 1;
            progressed += usize::from(s.progressed());
        }
        (progressed, total)
    }
}

/// The `scheduling.forward_progress` experiment.
pub struct ForwardProgress;

impl TwoOrder for ForwardProgress {
    type Order = SpinOrder;
    type Record = SpinRecord;
    type Subgroup = SubgroupSpin;
    const INFO: ExperimentInfo = INFO;
    const FLAGS: u64 = 1;
    const FINISHED: &'static str =
        "every lane finished its path: the capped spin ends without the setters' help";

    const FLAGS_VERDICT: (&'static str, &'static str) = (
        "flags_visible",
        "every setter's flag store is visible after the dispatch",
    );

    /// Counted where the spin was a test (both roles present).
    fn flags_ok(s: &SubgroupSpin) -> Option<bool> {
        s.is_test().then_some(s.flag_set)
    }

    fn flags_detail(unset: usize, tests: usize, grouping: Grouping) -> String {
        format!(
            "{unset} of {tests} {} flags still 0 after the dispatch",
            grouping.unit()
        )
    }

    fn split() -> [String; 2] {
        [
            "subgroup_invocation_id < subgroup_size / 2 takes the then-branch".to_owned(),
            format!(
                "local_invocation_index % {BLOCK} < {} takes the then-branch",
                BLOCK / 2
            ),
        ]
    }

    /// The subgroup's (or block's) flag index.
    fn slot(r: &SpinRecord) -> Option<u32> {
        [ROLE_SPINNER, ROLE_SETTER]
            .contains(&r.role)
            .then_some(r.subgroup)
    }

    fn absorb(s: &mut SubgroupSpin, r: &SpinRecord, flags: &[u32]) {
        s.flag_set = flags.get(r.subgroup as usize) == Some(&1);
        if r.role == ROLE_SETTER {
            s.setters += 1;
        } else {
            s.spinners += 1;
            if r.seen != NOT_SEEN {
                s.saw += 1;
                s.last_seen_at = Some(s.last_seen_at.map_or(r.seen, |m| m.max(r.seen)));
            }
        }
    }

    fn report(runs: &Runs<Self>, result: &mut ExperimentResult) {
        report::report(runs, result);
        report::record_subgroups(&runs.by_order, runs.grouping, result);
    }

    /// The check at which a spinner saw the flag (`u32::MAX` never; setters record 0).
    fn cell(r: &SpinRecord) -> Option<SpinCell> {
        (r.role != 0).then_some((r.subgroup, r.lane, r.local_index, r.ballot, r.seen))
    }
}

/// What `scheduling.forward_progress` declares.
pub const INFO: ExperimentInfo = ExperimentInfo {
    id: "scheduling.forward_progress",
    family: Family::Scheduling,
    title: "Scheduling: a lane spins on a flag set by the other path of its subgroup",
    rule: "A lane spinning on a flag set by another lane of the same subgroup terminates \
           only where the hardware gives diverged lanes forward progress; WGSL guarantees \
           none, so every such spin must be bounded, with a fallback",
    source: "“Independent Thread Scheduling” (assumptions that no longer hold); “Per-Lane Program Counters and Independent Thread Scheduling”",
    shaders: &[&shaders::SCHEDULING_FORWARD_PROGRESS],
    figures: &[],
    fit: None,
};

declare_experiment!(ForwardProgress, INFO, two_order::run::<ForwardProgress>);

#[cfg(test)]
mod tests {
    use super::*;

    fn record(subgroup: u32, lane: u32, role: u32, seen: u32) -> SpinRecord {
        SpinRecord {
            subgroup,
            lane,
            size: 4,
            role,
            seen,
            local_index: lane,
            pad: [0; 2],
            ballot: [0; 4],
        }
    }

    #[test]
    fn a_subgroup_progresses_only_when_every_spinner_saw_the_flag() {
        let records = vec![
            record(0, 0, ROLE_SPINNER, 3),
            record(0, 1, ROLE_SPINNER, 7),
            record(0, 2, ROLE_SETTER, 0),
            record(4, 0, ROLE_SPINNER, 0),
            record(4, 1, ROLE_SPINNER, NOT_SEEN),
            record(4, 2, ROLE_SETTER, 0),
            record(8, 0, ROLE_SPINNER, NOT_SEEN),
            record(8, 1, 0, 0),
        ];
        let flags = [1, 0, 0, 0, 1, 0, 0, 0, 0];
        let run = SpinRun::fold(SpinOrder::SpinThen, 16, 1.0, &flags, records);
        assert_eq!(run.unrecorded, 1);
        assert_eq!(run.subgroups[&0].last_seen_at, Some(7));
        assert!(run.subgroups[&0].progressed());
        assert!(!run.subgroups[&4].progressed());
        assert!(!run.subgroups[&8].is_test(), "no setter: not a test");
        assert_eq!(run.progress(), (1, 2));
    }
}
