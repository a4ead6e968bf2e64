//! The study's two timed phases: the k sweep with its dispatch floor, and the occupancy levels
//! with F(SG) at fewer trips and unbalanced paths. Each plans its groups, schedules them in one
//! order and reads their timings back in the same order.

use super::analysis::Timing;
use super::calibrate::Calibration;
use super::compile::CompiledSet;
use super::groups::{KGroup, MarginalGroup, OccupancyGroup, Source, UnbalancedGroup};
use super::kernels::{Dispatch, Form, Selection};
use super::plan::Plan;
use super::schedule::{Noise, Schedule, Timed};

/// Phase 1: one group per k, in k order, and the main pipeline's dispatch floor.
pub(super) struct Sweep {
    pub ks: Vec<KGroup<Dispatch>>,
    pub floor: Dispatch,
}

/// What phase 1 measured.
pub(super) struct SweepTimes {
    pub ks: Vec<KGroup<Timing>>,
    pub floor: Timing,
}

impl Sweep {
    /// The groups at `trips`; with subgroups, the loop form's group at k = SG also runs the
    /// control with the divergent dispatch's mix of trip counts.
    pub fn plan(
        (src, compiled): (Source<'_>, &CompiledSet),
        plan: &Plan,
        (form, selection): (Form, Selection),
        trips: u32,
    ) -> Self {
        let main = compiled.get(form, plan.workgroup_size);
        let predicated = compiled.get(Form::Predicated, plan.workgroup_size);
        let mixed_at = (selection == Selection::Subgroup).then(|| plan.occupancy_k());
        let ks = KGroup::plan((src, main, predicated), plan, form, (trips, mixed_at));
        Self {
            ks,
            floor: src.floor(main),
        }
    }

    /// Every group, in the order [`Sweep::read`] reads them.
    pub fn schedule(&self) -> Schedule {
        let mut schedule = Schedule::default();
        for group in &self.ks {
            schedule.push(format!("k = {}", group.k), Noise::Pairs, group);
        }
        schedule.push_one("dispatch floor".to_owned(), &self.floor);
        schedule
    }

    /// The timings of [`Sweep::schedule`].
    pub fn read(&self, timed: &mut Timed) -> SweepTimes {
        SweepTimes {
            ks: self.ks.iter().map(|group| timed.read(group)).collect(),
            floor: timed.read_one(),
        }
    }
}

/// Phase 2: the occupancy levels at k = SG, each calibrated on its own, F(SG) at fewer trips,
/// and (branchy forms) unbalanced paths.
pub(super) struct Levels {
    pub occupancy: Vec<OccupancyGroup<Dispatch>>,
    pub marginal: Option<MarginalGroup<Dispatch>>,
    pub unbalanced: Option<UnbalancedGroup<Dispatch>>,
}

/// What phase 2 measured.
pub(super) struct LevelTimes {
    pub occupancy: Vec<OccupancyGroup<Timing>>,
    pub marginal: Option<MarginalGroup<Timing>>,
    pub unbalanced: Option<UnbalancedGroup<Timing>>,
}

impl Levels {
    /// The groups at the study's `trips` and each level's own.
    pub fn plan(
        (src, compiled): (Source<'_>, &CompiledSet),
        plan: &Plan,
        form: Form,
        (trips, level_trips): (u32, &[Calibration]),
    ) -> Self {
        let k = plan.occupancy_k();
        let n = plan.saturating_invocations;
        let main = compiled.get(form, plan.workgroup_size);
        let occupancy = plan
            .occupancy
            .iter()
            .zip(level_trips)
            .map(|(&(wg, invocations), calibrated)| {
                let pipeline = compiled.get(form, wg);
                OccupancyGroup::plan(
                    (src, pipeline),
                    form,
                    (k, calibrated.trips),
                    (wg, invocations),
                )
            })
            .collect();
        let marginal = MarginalGroup::plan(src, main, form, (k, trips, n));
        let unbalanced = (form != Form::Loop)
            .then(|| UnbalancedGroup::plan((src, main), plan.unbalanced_k, trips, n));
        Self {
            occupancy,
            marginal,
            unbalanced,
        }
    }

    /// Every group, in the order [`Levels::read`] reads them.
    pub fn schedule(&self, plan: &Plan) -> Schedule {
        let mut schedule = Schedule::default();
        for (group, (wg, n)) in self.occupancy.iter().zip(&plan.occupancy) {
            let label = format!("occupancy wg {wg} x {n}");
            // Judged as the verdict reads it, on the two trip counts.
            let noise = match group.fewer {
                Some(_) => Noise::Difference(OccupancyGroup::<Dispatch>::DIFFERENCE_MEMBERS),
                None => Noise::Pairs,
            };
            schedule.push(label, noise, group);
        }
        if let Some(group) = &self.marginal {
            let label = format!("k = {} at fewer trips", plan.occupancy_k());
            let noise = Noise::Difference(MarginalGroup::<Dispatch>::DIFFERENCE_MEMBERS);
            schedule.push(label, noise, group);
        }
        if let Some(group) = &self.unbalanced {
            schedule.push("unbalanced paths".to_owned(), Noise::Pairs, group);
        }
        schedule
    }

    /// The timings of [`Levels::schedule`].
    pub fn read(&self, timed: &mut Timed) -> LevelTimes {
        LevelTimes {
            occupancy: self.occupancy.iter().map(|g| timed.read(g)).collect(),
            marginal: self.marginal.as_ref().map(|g| timed.read(g)),
            unbalanced: self.unbalanced.as_ref().map(|g| timed.read(g)),
        }
    }
}
