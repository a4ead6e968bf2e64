//! The catalog's checks: each builtin's results against the CPU reference over the active set,
//! and what reads from inactive or out-of-range lanes returned.

use std::collections::BTreeMap;

use crate::model::subgroup_ops::{
    BUILTINS, Expected, LaneView, Op, Split, classify_inactive, expected, lane_data,
};
use crate::report::{ExperimentResult, VerdictStatus};
use crate::shaders::subgroup_ops::INVOCATIONS;
use crate::shaders::subgroup_ops::{MASK_WORDS, OpsRecord, WORKGROUP_SIZE};

/// What one builtin showed across all splits.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Result components with a guaranteed value.
    pub checked: usize,
    /// Of those, how many differed from the CPU reference.
    pub mismatches: usize,
    /// Where the first mismatch was, expected vs got.
    pub first_mismatch: Option<String>,
    /// Indeterminate reads by source (an inactive lane, or out of range) and by what came back:
    /// how often, and the first, as an example.
    pub inactive: BTreeMap<(&'static str, &'static str), (usize, String)>,
}

/// The catalog's findings.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    /// Per builtin, at its [`Op`] index.
    pub tallies: Vec<Tally>,
    /// Builtins the adapter or naga rejected, with why. They are not checked.
    pub unsupported: BTreeMap<Op, String>,
    /// Lane records (lane × split) that ran the ops.
    pub lanes_checked: usize,
    /// Active-set records that broke a guarantee, and the first of them.
    pub active_set_violations: (usize, Option<String>),
    /// Subgroup × split pairs with some lane in the split, and those whose every lane saw the
    /// whole split as its active set.
    pub branch_groups: (usize, usize),
    /// The largest popcount of `subgroupBallot(true)` in the uniform split.
    pub observed_size: u32,
}

fn to_set(words: [u32; 4]) -> u128 {
    words
        .iter()
        .rev()
        .fold(0u128, |set, &w| set << 32 | u128::from(w))
}

fn bit(lane: u32) -> u128 {
    1u128.checked_shl(lane).unwrap_or(0)
}

/// Holds every record (split-major, as the kernel writes them) against the CPU model.
pub fn check(
    records: &[OpsRecord],
    mask: &[u32; MASK_WORDS],
    unsupported: &BTreeMap<Op, String>,
) -> Catalog {
    let mut catalog = Catalog {
        tallies: vec![Tally::default(); BUILTINS],
        unsupported: unsupported.clone(),
        ..Catalog::default()
    };
    for (split, block) in Split::ALL
        .into_iter()
        .zip(records.chunks(INVOCATIONS as usize))
    {
        for lanes in subgroups(block).values() {
            catalog.check_subgroup(split, lanes, mask);
        }
    }
    catalog
}

/// One split's records grouped by (workgroup, first local index of the subgroup), lanes in
/// `subgroup_invocation_id` order: no lane mapping assumed.
pub(super) fn subgroups(block: &[OpsRecord]) -> BTreeMap<(u32, u32), Vec<&OpsRecord>> {
    let mut groups: BTreeMap<(u32, u32), Vec<&OpsRecord>> = BTreeMap::new();
    for r in block {
        groups
            .entry((r.workgroup, r.subgroup_first_index))
            .or_default()
            .push(r);
    }
    for lanes in groups.values_mut() {
        lanes.sort_by_key(|r| r.subgroup_invocation_id);
    }
    groups
}

impl Catalog {
    fn check_subgroup(&mut self, split: Split, lanes: &[&OpsRecord], mask: &[u32; MASK_WORDS]) {
        let size = lanes.first().map_or(0, |r| r.subgroup_size);
        let mut values = vec![0; size.min(128) as usize];
        for r in lanes {
            if let Some(v) = values.get_mut(r.subgroup_invocation_id as usize) {
                *v = lane_data(r.local_index, r.workgroup);
            }
        }
        self.check_active_sets(split, lanes, size, mask);
        for r in lanes.iter().filter(|r| r.executed == 1) {
            self.lanes_checked += 1;
            let view = LaneView {
                sid: r.subgroup_invocation_id,
                size,
                active: to_set(r.active_set),
                values: &values,
            };
            if split == Split::Uniform {
                self.observed_size = self.observed_size.max(view.active.count_ones());
            }
            for op in Op::ALL {
                if !self.unsupported.contains_key(&op) {
                    self.check_op(op, split, r, &view);
                }
            }
        }
    }

    fn check_op(&mut self, op: Op, split: Split, r: &OpsRecord, view: &LaneView) {
        let tally = &mut self.tallies[op as usize];
        for (c, (want, got)) in expected(op, view)
            .into_iter()
            .zip(r.results[op as usize])
            .enumerate()
        {
            match want {
                Expected::Value(want) => {
                    tally.checked += 1;
                    if got != want {
                        tally.mismatches += 1;
                        tally.first_mismatch.get_or_insert_with(|| {
                            format!(
                                "split {}, workgroup {}, subgroup at local index {}, lane {} \
                                 (local index {}), .{}: expected {want}, got {got} \
                                 (active set {:#x})",
                                split.name(),
                                r.workgroup,
                                r.subgroup_first_index,
                                r.subgroup_invocation_id,
                                r.local_index,
                                ['x', 'y', 'z', 'w'][c],
                                view.active
                            )
                        });
                    }
                }
                Expected::Inactive { source } => {
                    let from = if (0..i64::from(view.size)).contains(&source) {
                        "inactive lane"
                    } else {
                        "out of range"
                    };
                    let seen = classify_inactive(got, view, source);
                    let (count, example) = tally.inactive.entry((from, seen)).or_default();
                    *count += 1;
                    if example.is_empty() {
                        let holder = view.values.iter().position(|&v| v == got && got != 0);
                        *example = format!(
                            "e.g. {} lane {} .{} from lane {source}: {got}{}",
                            split.name(),
                            view.sid,
                            ['x', 'y', 'z', 'w'][c],
                            holder.map_or(String::new(), |h| format!(" = lane {h}'s"))
                        );
                    }
                }
                Expected::Unused => {}
            }
        }
    }

    /// Guaranteed: the lanes that ran the block are exactly the split's, and each one's
    /// `ballot(true)` names itself, only lanes of the split, and lanes that saw the same set.
    /// Not guaranteed: that the whole split ran the block together.
    fn check_active_sets(
        &mut self,
        split: Split,
        lanes: &[&OpsRecord],
        size: u32,
        mask: &[u32; MASK_WORDS],
    ) {
        let set_of = |keep: &dyn Fn(&OpsRecord) -> bool| {
            lanes
                .iter()
                .filter(|r| keep(r))
                .fold(0u128, |s, r| s | bit(r.subgroup_invocation_id))
        };
        let branch = set_of(&|r| {
            let global = r.workgroup * WORKGROUP_SIZE + r.local_index;
            split.holds(r.subgroup_invocation_id, size, global, mask)
        });
        let ran = set_of(&|r| r.executed == 1);
        let active_of = |lane: u32| {
            lanes
                .iter()
                .find(|r| r.subgroup_invocation_id == lane)
                .map(|r| to_set(r.active_set))
        };
        let mut problem = (ran != branch)
            .then(|| format!("lanes that ran the block {ran:#x}, lanes of the split {branch:#x}"));
        let mut whole = branch != 0;
        for r in lanes.iter().filter(|r| r.executed == 1) {
            let active = to_set(r.active_set);
            whole &= active == branch;
            let disagrees = (0..128u32)
                .filter(|&j| active & bit(j) != 0)
                .any(|j| active_of(j) != Some(active));
            let wrong = if active & bit(r.subgroup_invocation_id) == 0 {
                Some("does not name the lane itself")
            } else if active & !branch != 0 {
                Some("names lanes outside the split")
            } else if disagrees {
                Some("names lanes that saw another set")
            } else {
                None
            };
            if let Some(wrong) = wrong {
                problem.get_or_insert_with(|| {
                    format!(
                        "lane {} saw {active:#x}, which {wrong}",
                        r.subgroup_invocation_id
                    )
                });
            }
        }
        if let Some(problem) = problem {
            let (count, first) = &mut self.active_set_violations;
            *count += 1;
            first.get_or_insert_with(|| {
                let r = lanes[0];
                format!(
                    "split {}, workgroup {}, subgroup at local index {}: {problem}",
                    split.name(),
                    r.workgroup,
                    r.subgroup_first_index
                )
            });
        }
        if branch != 0 {
            self.branch_groups.0 += 1;
            self.branch_groups.1 += usize::from(whole);
        }
    }

    /// Writes metrics and verdicts: active sets first, then one per builtin, then the
    /// indeterminate reads.
    pub fn report(&self, result: &mut ExperimentResult) {
        let sum = |f: fn(&Tally) -> usize| self.tallies.iter().map(f).sum::<usize>();
        let inactive = |t: &Tally| t.inactive.values().map(|(n, _)| n).sum::<usize>();
        let supported = BUILTINS - self.unsupported.len();
        result.metric("builtins_checked", supported as f64);
        result.metric("unsupported_builtins", self.unsupported.len() as f64);
        result.metric("lanes_checked", self.lanes_checked as f64);
        result.metric("values_checked", sum(|t| t.checked) as f64);
        result.metric("mismatches", sum(|t| t.mismatches) as f64);
        result.metric("inactive_reads", sum(inactive) as f64);
        result.metric("observed_subgroup_size", f64::from(self.observed_size));
        let (violations, first) = &self.active_set_violations;
        result.verdict(
            "ballot_self",
            "ballot(true) names the lane itself and only split lanes that saw the same set",
            VerdictStatus::held_if(*violations == 0),
            match first {
                Some(first) => format!("{violations} subgroup-splits broke it; first: {first}"),
                None => format!(
                    "{} lanes over {} splits",
                    self.lanes_checked,
                    Split::ALL.len()
                ),
            },
        );
        let (groups, whole) = self.branch_groups;
        result.verdict(
            "split_together",
            "a split's lanes run the block together",
            VerdictStatus::NotGuaranteed,
            format!("observed: ballot(true) held the whole split in {whole}/{groups} subgroups"),
        );
        for (op, tally) in Op::ALL.into_iter().zip(&self.tallies) {
            let key = format!("matches_reference_{}", op.name());
            let check = format!(
                "{}: matches the CPU reference over the active set",
                op.name()
            );
            if let Some(reason) = self.unsupported.get(&op) {
                result.verdict(
                    key,
                    check,
                    VerdictStatus::NotGuaranteed,
                    format!("unsupported on this adapter, not checked: {reason}"),
                );
                continue;
            }
            let mut detail = match &tally.first_mismatch {
                Some(first) => format!(
                    "{} of {} values differ; first: {first}",
                    tally.mismatches, tally.checked
                ),
                None => format!("{} values matched", tally.checked),
            };
            if op == Op::Elect {
                detail.push_str(
                    " (naga 30 has no subgroupElect; divlab runs subgroupExclusiveAdd(1u) == 0u)",
                );
            }
            result.verdict(
                key,
                check,
                VerdictStatus::held_if(tally.mismatches == 0),
                detail,
            );
        }
        for (op, tally) in Op::ALL.into_iter().zip(&self.tallies) {
            if tally.inactive.is_empty() {
                continue;
            }
            let seen: Vec<String> = tally
                .inactive
                .iter()
                .map(|((from, what), (n, example))| format!("{from} -> {what} x{n} ({example})"))
                .collect();
            result.verdict(
                format!("inactive_reads_{}", op.name()),
                format!("{}: reads from inactive or out-of-range lanes", op.name()),
                VerdictStatus::NotGuaranteed,
                format!("observed {} reads: {}", inactive(tally), seen.join("; ")),
            );
        }
    }
}
