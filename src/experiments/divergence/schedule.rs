//! Timing the study's groups: round-robin over [`Rounds`] after one warm-up each, then extra
//! rounds for the groups whose ratio is still uncertain, within a budget.

use std::ops::Range;

use super::analysis::{self, Timing};
use super::groups::Group;
use super::kernels::Dispatch;
use crate::Result;
use crate::experiments::Progress;
use crate::gpu::{self, GpuContext, GpuTimer, Rounds};
use crate::report::ExperimentResult;
use crate::stats;

/// A group's 95% interval of its first two dispatches' ratio wider than this (relative to the
/// ratio) marks it noisy, and it gets extra rounds.
const NOISY_WIDTH: f64 = 0.10;

/// Extra rounds for noisy groups stop after this many times the base rounds' count...
const MAX_EXTRA_ROUNDS_FACTOR: usize = 4;

/// ... or once they have taken as long as the base rounds did.
const EXTRA_TIME_FACTOR: f64 = 1.0;

/// How a group's noise is judged.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Noise {
    /// By its first two members' ratio and, where there is a fourth, the first's against it:
    /// T_div/T_uniform (or unbalanced/balanced) and, in a k group, T_div against the k = 1
    /// control, which the linearity fit reads.
    Pairs,
    /// By [`analysis::difference_ratios`] of these four of its members (div, uniform, and
    /// both at fewer trips), as the verdict reads them ([`super::groups::MarginalGroup`], an
    /// occupancy level).
    Difference([usize; 4]),
}

/// What to time, and what belongs together.
#[derive(Default)]
pub(super) struct Schedule {
    dispatches: Vec<gpu::Dispatch>,
    /// Ranges of `dispatches` that are compared with each other; they run back to back.
    groups: Vec<Range<usize>>,
    /// A name per group.
    labels: Vec<String>,
    /// How each group's noise is judged.
    noise: Vec<Noise>,
}

/// The timings of a schedule, with how much adaptive repetition it took.
pub(super) struct Timed {
    /// Every member's timing, in schedule order; [`Timed::read`] takes them group by group.
    times: std::vec::IntoIter<Timing>,
    base_rounds: usize,
    /// Extra rounds each group got.
    extra_rounds: Vec<usize>,
    /// Groups still noisy when the budget ran out: (label, relative interval width).
    noisy: Vec<(String, f64)>,
}

impl Schedule {
    /// Adds a group, after those added before.
    pub fn push<G: Group<Dispatch>>(&mut self, label: String, noise: Noise, group: &G) {
        let start = self.dispatches.len();
        self.dispatches
            .extend(group.members().into_iter().map(|d| d.dispatch().clone()));
        self.groups.push(start..self.dispatches.len());
        self.labels.push(label);
        self.noise.push(noise);
    }

    /// Adds a group of one dispatch.
    pub fn push_one(&mut self, label: String, dispatch: &Dispatch) {
        self.push(label, Noise::Pairs, &One(dispatch));
    }

    /// Times every dispatch `reps` times after one warm-up each, then gives groups whose ratio
    /// is still uncertain (see [`NOISY_WIDTH`]) extra rounds, within a budget.
    pub fn time(&self, gpu: &GpuContext, reps: usize, progress: Progress<'_>) -> Result<Timed> {
        let timer = GpuTimer::new(gpu);
        let what = "divlab.divergence";
        timer.warm_up(gpu, what, &self.dispatches)?;
        let mut rounds = Rounds::new(&timer, (what, &self.dispatches), &self.groups, reps);
        let all: Vec<usize> = (0..self.groups.len()).collect();
        let start = std::time::Instant::now();
        for rep in 0..reps {
            rounds.round(gpu, &mut all.clone())?;
            progress(0.8 * (rep + 1) as f64 / reps as f64);
        }
        let budget = start.elapsed().mul_f64(EXTRA_TIME_FACTOR);
        let extra_start = std::time::Instant::now();
        let mut extra_rounds = vec![0; self.groups.len()];
        let mut noisy = self.noisy(&rounds.samples);
        for _ in 0..reps * MAX_EXTRA_ROUNDS_FACTOR {
            if noisy.is_empty() || extra_start.elapsed() >= budget {
                break;
            }
            let mut indices: Vec<usize> = noisy.iter().map(|&(g, _)| g).collect();
            for &g in &indices {
                extra_rounds[g] += 1;
            }
            rounds.round(gpu, &mut indices)?;
            progress(
                0.8 + 0.2 * (extra_start.elapsed().as_secs_f64() / budget.as_secs_f64()).min(1.0),
            );
            noisy = self.noisy(&rounds.samples);
        }
        let times: Vec<Timing> = rounds
            .samples
            .into_iter()
            .map(|s| Timing::new(s).expect("reps >= 1 and times are finite"))
            .collect();
        Ok(Timed {
            times: times.into_iter(),
            base_rounds: reps,
            extra_rounds,
            noisy: noisy
                .into_iter()
                .map(|(g, width)| (self.labels[g].clone(), width))
                .collect(),
        })
    }

    /// Groups whose compared dispatches' per-round ratio has a 95% interval wider than
    /// [`NOISY_WIDTH`], with the widest relative width.
    fn noisy(&self, samples: &[Vec<f64>]) -> Vec<(usize, f64)> {
        let relative_width = |ratios: &[f64]| {
            let median = stats::summarize(ratios)?.median;
            Some(stats::median_interval(ratios)?.relative_width(median))
        };
        self.groups
            .iter()
            .zip(&self.noise)
            .enumerate()
            .filter(|(_, (group, _))| group.len() >= 2)
            .filter_map(|(g, (group, noise))| {
                let member = |i: usize| &samples[group.start + i][..];
                let widest = match noise {
                    Noise::Difference(members) => {
                        relative_width(&analysis::difference_ratios(members.map(member)))?
                    }
                    Noise::Pairs => [(0, 1), (0, 3)]
                        .iter()
                        .filter(|&&(_, j)| j < group.len())
                        .filter_map(|&(i, j)| {
                            let ratios: Vec<f64> = member(i)
                                .iter()
                                .zip(member(j))
                                .map(|(x, y)| x / y)
                                .collect();
                            relative_width(&ratios)
                        })
                        .fold(0.0, f64::max),
                };
                (widest > NOISY_WIDTH).then_some((g, widest))
            })
            .collect()
    }
}

/// A group of one dispatch (a dispatch floor).
struct One<'a>(&'a Dispatch);

impl Group<Dispatch> for One<'_> {
    type Mapped<U> = U;

    fn map<'a, U>(&'a self, mut f: impl FnMut(&'a Dispatch) -> U) -> U {
        f(self.0)
    }
}

impl Timed {
    /// The timings of the next group of the schedule, `group` being what it dispatched.
    pub fn read<G: Group<Dispatch>>(&mut self, group: &G) -> G::Mapped<Timing> {
        group.map(|_| {
            self.times
                .next()
                .expect("one timing per scheduled dispatch")
        })
    }

    /// The timing of the next group of one dispatch.
    pub fn read_one(&mut self) -> Timing {
        self.times
            .next()
            .expect("one timing per scheduled dispatch")
    }

    /// Records the adaptive repetition of the study's two phases.
    pub fn record_both(sweep: &Timed, levels: &Timed, result: &mut ExperimentResult) {
        result.param("base_rounds", sweep.base_rounds);
        let extra: usize = [sweep, levels].iter().flat_map(|t| &t.extra_rounds).sum();
        result.metric("extra_rounds", extra as f64);
        let noisy: Vec<String> = [sweep, levels]
            .iter()
            .flat_map(|t| &t.noisy)
            .map(|(label, width)| {
                format!(
                    "{label}: 95% interval {:.0}% wide after extra rounds",
                    width * 100.0
                )
            })
            .collect();
        result.metric("noisy_configurations", noisy.len() as f64);
        result.param("noisy_configurations", noisy);
    }
}
