//! The study's timing groups, by name. A group is the dispatches compared with each other, run
//! back to back in every round; the same struct holds what it dispatches (`G<Dispatch>`) and
//! what that measured (`G<Timing>`), so a timing is read by its name, never by its position.

use super::analysis::{FewerTrips, KPoint, Marginal, OccupancyPoint, Timing};
use super::kernels::{Compiled, Dispatch, DivergenceParams, Form, Mode, Sinks, Variant};
use super::plan::Plan;
use crate::gpu::GpuContext;

/// What the study's groups share: their members, in one order for the schedule and the read.
pub(super) trait Group<T> {
    /// The same group over other members.
    type Mapped<U>;

    /// Maps every member, in schedule order.
    fn map<'a, U>(&'a self, f: impl FnMut(&'a T) -> U) -> Self::Mapped<U>
    where
        T: 'a;

    /// The members, in schedule order.
    fn members(&self) -> Vec<&T> {
        let mut members = Vec::new();
        self.map(|member| members.push(member));
        members
    }
}

/// Declares group `$name<T>`: its fixed fields (copied by `map`), its members (mapped, in
/// schedule order) and its optional members (mapped where present, after the others).
macro_rules! group {
    (
        $(#[$doc:meta])*
        $name:ident {
            $($(#[$fixed_doc:meta])* $fixed:ident: $ty:ty,)*
            ;
            $($(#[$member_doc:meta])* $member:ident,)+
            $(; $($(#[$optional_doc:meta])* $optional:ident,)+)?
        }
    ) => {
        $(#[$doc])*
        pub(super) struct $name<T> {
            $($(#[$fixed_doc])* pub $fixed: $ty,)*
            $($(#[$member_doc])* pub $member: T,)+
            $($($(#[$optional_doc])* pub $optional: Option<T>,)+)?
        }

        impl<T> Group<T> for $name<T> {
            type Mapped<U> = $name<U>;

            fn map<'a, U>(&'a self, mut f: impl FnMut(&'a T) -> U) -> $name<U>
            where
                T: 'a,
            {
                $name {
                    $($fixed: self.$fixed,)*
                    $($member: f(&self.$member),)+
                    $($($optional: self.$optional.as_ref().map(&mut f),)+)?
                }
            }
        }
    };
}

/// Where the study's dispatches come from: the device, the shared sinks and the pipelines.
#[derive(Clone, Copy)]
pub(super) struct Source<'a> {
    pub gpu: &'a GpuContext,
    pub sinks: &'a Sinks,
}

impl Source<'_> {
    fn dispatch(&self, pipeline: &Compiled, params: &DivergenceParams, n: u32) -> Dispatch {
        Dispatch::new(self.gpu, self.sinks, pipeline, params, n)
    }

    /// An empty dispatch of one workgroup of `pipeline`: same bindings, every invocation returns
    /// at entry. Its time is the fixed per-dispatch cost that every ratio of the study takes out
    /// of both times. One workgroup, because only the launch latency is fixed: an empty dispatch
    /// of the study's full size (1M invocations) took 14.3 us on the H200, more than the 7.5 us
    /// intercept of T(k) = a + s*k, so launching its workgroups overlaps the work of a real
    /// dispatch.
    pub fn floor(&self, pipeline: &Compiled) -> Dispatch {
        let mut params = DivergenceParams::new(1, Mode::LaneDivergent, |_| 0);
        params.variant = Variant::Empty as u32;
        self.dispatch(pipeline, &params, pipeline.workgroup_size())
    }
}

group! {
    /// One k of the main sweep.
    KGroup {
        /// Paths.
        k: u32,
        ;
        /// Lane-divergent.
        div,
        /// Its subgroup-uniform control.
        uniform,
        /// The predicated (branch-free) variant.
        pred,
        /// The k = 1 control: the clock this k's control is read against.
        uniform_ref,
        ;
        /// The loop form at k = SG: the control with the divergent dispatch's mix of trip
        /// counts.
        mixed,
    }
}

impl KGroup<Dispatch> {
    /// The group of each k, in k order; `mixed_at` is the k whose loop-form group also runs the
    /// mixed control.
    pub fn plan(
        (src, main, predicated): (Source<'_>, &Compiled, &Compiled),
        plan: &Plan,
        form: Form,
        (trips, mixed_at): (u32, Option<u32>),
    ) -> Vec<Self> {
        let n = plan.saturating_invocations;
        let (_, control_ref) = divergent_and_control(form, 1, trips);
        plan.ks
            .iter()
            .map(|&k| {
                let (div, control) = divergent_and_control(form, k, trips);
                let pred = DivergenceParams::new(k, Mode::LaneDivergent, |_| trips);
                Self {
                    k,
                    div: src.dispatch(main, &div, n),
                    uniform: src.dispatch(main, &control, n),
                    pred: src.dispatch(predicated, &pred, n),
                    uniform_ref: src.dispatch(main, &control_ref, n),
                    mixed: (form == Form::Loop && mixed_at == Some(k)).then(|| {
                        let mixed =
                            DivergenceParams::new(k, Mode::SubgroupUniform, |j| (j + 1) * trips);
                        src.dispatch(main, &mixed, n)
                    }),
                }
            })
            .collect()
    }

    /// The point this group measured, with the model computed from the parameters its
    /// dispatches actually ran with: `issued(form, dispatch, mode)`.
    pub fn point(
        &self,
        timed: KGroup<Timing>,
        form: Form,
        issued: impl Fn(Form, &Dispatch, Mode) -> f64,
    ) -> KPoint {
        KPoint {
            k: self.k,
            div: timed.div,
            uniform: timed.uniform,
            pred: timed.pred,
            uniform_ref: timed.uniform_ref,
            model_div: issued(form, &self.div, Mode::LaneDivergent),
            model_uniform: issued(form, &self.uniform, Mode::SubgroupUniform),
            model_sum_of_paths: issued(Form::Switch, &self.div, Mode::LaneDivergent),
        }
    }
}

group! {
    /// One occupancy level at k = SG, calibrated on its own.
    OccupancyGroup {
        /// Workgroup size.
        workgroup_size: u32,
        /// Trips per path of this level.
        trips: u32,
        /// A quarter of them ([`fewer_trips`]), where that is fewer.
        fewer: Option<u32>,
        ;
        /// Lane-divergent.
        div,
        /// Subgroup-uniform.
        uniform,
        /// This level's pipeline's dispatch floor.
        floor,
        ;
        /// Lane-divergent at `fewer` trips.
        div_fewer,
        /// Subgroup-uniform at `fewer` trips.
        uniform_fewer,
    }
}

impl<T> OccupancyGroup<T> {
    /// Where div, uniform and both at fewer trips stand among its members (after the floor).
    pub const DIFFERENCE_MEMBERS: [usize; 4] = [0, 1, 3, 4];
}

impl OccupancyGroup<Dispatch> {
    /// The level of `(wg, invocations)` at `k` with its own `trips`.
    pub fn plan(
        (src, pipeline): (Source<'_>, &Compiled),
        form: Form,
        (k, trips): (u32, u32),
        (workgroup_size, invocations): (u32, u32),
    ) -> Self {
        let (div, control) = divergent_and_control(form, k, trips);
        // Again at fewer trips, so that the level's penalty is read on its path work: a sparse
        // level holds little work, and what its dispatch costs besides its floor (launching its
        // invocations) bent the floor-corrected ratio on lavapipe.
        let fewer = fewer_trips(form, trips);
        let at_fewer = fewer.map(|f| divergent_and_control(form, k, f));
        let dispatch = |params: &DivergenceParams| src.dispatch(pipeline, params, invocations);
        Self {
            workgroup_size,
            trips,
            fewer,
            div: dispatch(&div),
            uniform: dispatch(&control),
            floor: src.floor(pipeline),
            div_fewer: at_fewer.as_ref().map(|(d, _)| dispatch(d)),
            uniform_fewer: at_fewer.as_ref().map(|(_, c)| dispatch(c)),
        }
    }

    /// The point this level measured.
    pub fn point(&self, timed: OccupancyGroup<Timing>) -> OccupancyPoint {
        let fewer = (timed.fewer.zip(timed.div_fewer).zip(timed.uniform_fewer)).map(
            |((trips, div), uniform)| FewerTrips {
                trips,
                div,
                uniform,
            },
        );
        OccupancyPoint {
            workgroup_size: self.workgroup_size,
            invocations: self.div.invocations,
            trips: self.trips,
            div: timed.div,
            uniform: timed.uniform,
            floor: timed.floor,
            fewer,
        }
    }
}

group! {
    /// The study's own dispatch at k = SG again at fewer trips, in the same rounds: the two trip
    /// counts give F(SG) on the path work alone, whatever the dispatch costs besides (its floor,
    /// each invocation's selector and store, launching its workgroups).
    MarginalGroup {
        /// Trips per path of the study.
        trips: u32,
        /// The fewer trips.
        fewer: u32,
        ;
        /// Lane-divergent at `trips`.
        div,
        /// Subgroup-uniform at `trips`.
        uniform,
        /// Lane-divergent at `fewer`.
        div_fewer,
        /// Subgroup-uniform at `fewer`.
        uniform_fewer,
    }
}

impl<T> MarginalGroup<T> {
    /// Where div, uniform and both at fewer trips stand among its members.
    pub const DIFFERENCE_MEMBERS: [usize; 4] = [0, 1, 2, 3];
}

impl MarginalGroup<Dispatch> {
    /// The pair at k and `trips`, and at a quarter of them ([`fewer_trips`]); `None` when that
    /// is not fewer.
    pub fn plan(src: Source<'_>, main: &Compiled, form: Form, (k, trips, n): Trio) -> Option<Self> {
        let fewer = fewer_trips(form, trips)?;
        let (div, control) = divergent_and_control(form, k, trips);
        let (div_fewer, control_fewer) = divergent_and_control(form, k, fewer);
        Some(Self {
            trips,
            fewer,
            div: src.dispatch(main, &div, n),
            uniform: src.dispatch(main, &control, n),
            div_fewer: src.dispatch(main, &div_fewer, n),
            uniform_fewer: src.dispatch(main, &control_fewer, n),
        })
    }
}

impl MarginalGroup<Timing> {
    /// What the analysis reads.
    pub fn marginal(self) -> Marginal {
        Marginal {
            trips: self.trips,
            fewer: self.fewer,
            div: self.div,
            uniform: self.uniform,
            div_fewer: self.div_fewer,
            uniform_fewer: self.uniform_fewer,
        }
    }
}

/// (k, trips per path, invocations).
type Trio = (u32, u32, u32);

group! {
    /// Unbalanced paths (one heavy, the rest light) against balanced ones of the same total work.
    UnbalancedGroup {
        /// Paths.
        k: u32,
        /// Trips of the heavy path.
        heavy: u32,
        /// Trips of each light path.
        light: u32,
        ;
        /// Every path at the study's trips.
        balanced,
        /// One heavy path, the others light.
        skewed,
    }
}

impl UnbalancedGroup<Dispatch> {
    /// k paths of `trips` each, and one heavy path beside k - 1 light ones (a quarter of
    /// `trips`) with the same total.
    pub fn plan((src, main): (Source<'_>, &Compiled), k: u32, trips: u32, n: u32) -> Self {
        let light = (trips / 4).max(1);
        let heavy = k * trips - (k - 1) * light;
        let balanced = DivergenceParams::new(k, Mode::LaneDivergent, |_| trips);
        let skewed =
            DivergenceParams::new(
                k,
                Mode::LaneDivergent,
                |j| if j == 0 { heavy } else { light },
            );
        Self {
            k,
            heavy,
            light,
            balanced: src.dispatch(main, &balanced, n),
            skewed: src.dispatch(main, &skewed, n),
        }
    }
}

/// The divergent parameters of `form` at k, and its subgroup-uniform control.
///
/// The branchy forms' control is the same mix of paths with the selector uniform per subgroup.
/// The loop form's is every subgroup running the mean trip count of the divergent subgroups'
/// lanes: with the mix of trip counts instead, a dispatch's time follows its longest subgroups
/// while the device is not full (the tail), not their mean, and F(k) measured the tail.
pub(super) fn divergent_and_control(
    form: Form,
    k: u32,
    trips: u32,
) -> (DivergenceParams, DivergenceParams) {
    if form == Form::Loop {
        let div = DivergenceParams::new(k, Mode::LaneDivergent, |j| (j + 1) * trips);
        let mean = (k + 1) * trips / 2;
        (
            div,
            DivergenceParams::new(1, Mode::SubgroupUniform, |_| mean),
        )
    } else {
        let params = |mode| DivergenceParams::new(k, mode, |_| trips);
        (params(Mode::LaneDivergent), params(Mode::SubgroupUniform))
    }
}

/// The trip count of F(SG)'s second measurement: a quarter of `trips` (even for the loop form,
/// whose control runs a mean trip count), or `None` when that is not fewer. A quarter, not a
/// half: the difference of the two times keeps three quarters of the work, so the noise of two
/// times weighs less on it (on lavapipe a half gave intervals of +-7%).
fn fewer_trips(form: Form, trips: u32) -> Option<u32> {
    let quarter = if form == Form::Loop {
        (trips / 4) & !1
    } else {
        trips / 4
    };
    (quarter >= 1 && quarter < trips).then_some(quarter)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The schedule judges a group's noise by the members these name: they must be div,
    /// uniform and both at fewer trips, in that order.
    #[test]
    fn difference_members_name_the_pairs_at_two_trip_counts() {
        let order = ["div", "uniform", "div_fewer", "uniform_fewer"];
        let level = OccupancyGroup {
            workgroup_size: 32,
            trips: 8,
            fewer: Some(2),
            div: "div",
            uniform: "uniform",
            floor: "floor",
            div_fewer: Some("div_fewer"),
            uniform_fewer: Some("uniform_fewer"),
        };
        let members = level.members();
        let named = OccupancyGroup::<&str>::DIFFERENCE_MEMBERS.map(|i| *members[i]);
        assert_eq!(named, order);
        let marginal = MarginalGroup {
            trips: 8,
            fewer: 2,
            div: "div",
            uniform: "uniform",
            div_fewer: "div_fewer",
            uniform_fewer: "uniform_fewer",
        };
        let members = marginal.members();
        let named = MarginalGroup::<&str>::DIFFERENCE_MEMBERS.map(|i| *members[i]);
        assert_eq!(named, order);
    }
}
