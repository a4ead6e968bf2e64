//! Timing compute passes: GPU timestamps where the device has them, CPU wall time otherwise.

use std::ops::Range;
use std::time::{Duration, Instant};

use crate::Result;
use crate::gpu::{Dispatch, GpuContext};
pub use crate::report::TimingSource;

/// Times one compute pass at a time.
pub struct GpuTimer {
    queries: Option<TimestampQueries>,
}

struct TimestampQueries {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    staging: wgpu::Buffer,
    period_ns: f64,
}

const QUERY_BYTES: u64 = 2 * size_of::<u64>() as u64;

impl GpuTimer {
    /// Uses timestamps when the device has `TIMESTAMP_QUERY`, else the CPU clock.
    pub fn new(gpu: &GpuContext) -> Self {
        let queries = gpu.caps.timestamps.then(|| TimestampQueries {
            set: gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("divlab.timer.queries"),
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            }),
            resolve: gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("divlab.timer.resolve"),
                size: QUERY_BYTES,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            staging: gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("divlab.timer.staging"),
                size: QUERY_BYTES,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            period_ns: f64::from(gpu.queue.get_timestamp_period()),
        });
        Self { queries }
    }

    /// Where this timer's numbers come from.
    pub fn source(&self) -> TimingSource {
        TimingSource::of(self.queries.is_some())
    }

    /// Runs `dispatches` in one compute pass and returns the pass's duration in nanoseconds.
    pub fn time(&self, gpu: &GpuContext, what: &str, dispatches: &[Dispatch]) -> Result<f64> {
        let timestamp_writes = self
            .queries
            .as_ref()
            .map(|q| wgpu::ComputePassTimestampWrites {
                query_set: &q.set,
                beginning_of_pass_write_index: Some(0),
                end_of_pass_write_index: Some(1),
            });
        let restores: Vec<_> = dispatches.iter().flat_map(|d| d.restores.clone()).collect();
        gpu.restore(what, &restores)?;
        let mut encoder = gpu.encode(what, timestamp_writes, dispatches);
        let Some(q) = &self.queries else {
            let start = Instant::now();
            gpu.submit_and_wait(what, encoder)?;
            return Ok(start.elapsed().as_secs_f64() * 1e9);
        };
        encoder.resolve_query_set(&q.set, 0..2, &q.resolve, 0);
        encoder.copy_buffer_to_buffer(&q.resolve, 0, &q.staging, 0, QUERY_BYTES);
        gpu.submit_and_wait(what, encoder)?;
        let ticks: Vec<u64> = crate::gpu::map_and_read(gpu, what, &q.staging)?;
        // Some drivers write timestamps that wrap or go backwards on very short passes.
        let elapsed = ticks[1].saturating_sub(ticks[0]);
        Ok(elapsed as f64 * q.period_ns)
    }

    /// Runs each dispatch once, untimed. Some drivers (lavapipe) finish compiling at first use,
    /// and that work would otherwise land inside the first timing.
    pub fn warm_up(&self, gpu: &GpuContext, what: &str, dispatches: &[Dispatch]) -> Result<()> {
        let first_run = gpu.first_run(what);
        for dispatch in dispatches {
            self.time(gpu, &first_run, std::slice::from_ref(dispatch))?;
        }
        Ok(())
    }

    /// [`Self::interleave_groups`] with each dispatch a group of its own.
    pub fn interleave(
        &self,
        gpu: &GpuContext,
        what: &str,
        dispatches: &[Dispatch],
        budget: Budget,
        on_round: &mut dyn FnMut(usize),
    ) -> Result<Vec<Vec<f64>>> {
        let alone: Vec<Range<usize>> = (0..dispatches.len()).map(|i| i..i + 1).collect();
        self.interleave_groups(gpu, what, (dispatches, &alone), budget, on_round)
    }

    /// Times each dispatch alone in its own pass, for as many rounds as `budget` allows
    /// ([`Budget::rounds`] for a fixed count), after one warm-up each. Each round visits the
    /// `groups` (ranges of `dispatches`; the dispatches of a group run back to back) in a fresh
    /// random order ([`Rounds`]), so that compared dispatches stay close in time and none
    /// always follows the same neighbour. Returns the samples per dispatch, in `dispatches`
    /// order, as many as the rounds that ran; `on_round` sees each finished round's number
    /// from 1.
    pub fn interleave_groups(
        &self,
        gpu: &GpuContext,
        what: &str,
        (dispatches, groups): (&[Dispatch], &[Range<usize>]),
        budget: Budget,
        on_round: &mut dyn FnMut(usize),
    ) -> Result<Vec<Vec<f64>>> {
        let start = Instant::now();
        self.warm_up(gpu, what, dispatches)?;
        let mut rounds = Rounds::new(self, (what, dispatches), groups, budget.max_rounds);
        // Each round shuffles the previous round's order.
        let mut order: Vec<usize> = (0..groups.len()).collect();
        let mut round = 0;
        while budget.goes_on(round, start.elapsed()) {
            rounds.round(gpu, &mut order)?;
            round += 1;
            on_round(round);
        }
        Ok(rounds.samples)
    }
}

/// How many timing rounds run, as criterion's measurement time bounds its samples: at least
/// `min_rounds` (fewer only where `max_rounds` is), at most `max_rounds`, and none started once
/// `time` has passed since the timing began, its warm-up included.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    /// Rounds that run whatever the time.
    pub min_rounds: usize,
    /// The most rounds.
    pub max_rounds: usize,
    /// The time after which no round starts (past the minimum).
    pub time: Duration,
}

impl Budget {
    /// Exactly `rounds` rounds, whatever the time.
    pub fn rounds(rounds: usize) -> Self {
        Self {
            min_rounds: rounds,
            max_rounds: rounds,
            time: Duration::MAX,
        }
    }

    /// Whether a round starts after `done` rounds and `elapsed` time.
    pub fn goes_on(&self, done: usize, elapsed: Duration) -> bool {
        done < self.max_rounds && (done < self.min_rounds || elapsed < self.time)
    }
}

/// The seed of every interleaved schedule, so runs repeat.
const SEED: u64 = 0xd1f1ab;

/// The order of rounds over groups of dispatches: a seeded random order, so runs repeat. The
/// dispatches of a group (those compared with each other) run back to back, and no dispatch
/// always follows the same neighbour (on lavapipe a dispatch right after a long one ran
/// measurably slower).
pub struct RoundOrder {
    rng: fastrand::Rng,
}

impl Default for RoundOrder {
    fn default() -> Self {
        Self {
            rng: fastrand::Rng::with_seed(SEED),
        }
    }
}

impl RoundOrder {
    /// The dispatches of one round over the groups in `order`, in the order they run: `order`
    /// is shuffled in place first, then the members of each group, afresh.
    pub fn next(&mut self, groups: &[Range<usize>], order: &mut [usize]) -> Vec<usize> {
        self.rng.shuffle(order);
        let mut visit = Vec::new();
        for &g in &*order {
            let mut members: Vec<usize> = groups[g].clone().collect();
            self.rng.shuffle(&mut members);
            visit.extend(members);
        }
        visit
    }
}

/// Rounds of timings over groups of dispatches, each dispatch alone in its own pass, in
/// [`RoundOrder`].
pub struct Rounds<'a> {
    timer: &'a GpuTimer,
    what: &'a str,
    dispatches: &'a [Dispatch],
    groups: &'a [Range<usize>],
    order: RoundOrder,
    /// The samples per dispatch, in `dispatches` order, one per round that visited it.
    pub samples: Vec<Vec<f64>>,
}

impl<'a> Rounds<'a> {
    /// No rounds yet, room for `reps` samples each. `groups` are ranges of `dispatches`.
    pub fn new(
        timer: &'a GpuTimer,
        (what, dispatches): (&'a str, &'a [Dispatch]),
        groups: &'a [Range<usize>],
        reps: usize,
    ) -> Self {
        Self {
            timer,
            what,
            dispatches,
            groups,
            order: RoundOrder::default(),
            samples: vec![Vec::with_capacity(reps); dispatches.len()],
        }
    }

    /// One round over the groups in `order`, which it shuffles in place ([`RoundOrder::next`]).
    pub fn round(&mut self, gpu: &GpuContext, order: &mut [usize]) -> Result<()> {
        for i in self.order.next(self.groups, order) {
            let dispatch = std::slice::from_ref(&self.dispatches[i]);
            self.samples[i].push(self.timer.time(gpu, self.what, dispatch)?);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The order `GpuTimer::interleave` had before it shared [`RoundOrder`]: one permutation,
    /// reshuffled each round.
    fn interleave_before(n: usize, reps: usize) -> Vec<usize> {
        let mut rng = fastrand::Rng::with_seed(0xd1f1ab);
        let mut order: Vec<usize> = (0..n).collect();
        let mut visits = Vec::new();
        for _ in 0..reps {
            rng.shuffle(&mut order);
            visits.extend(&order);
        }
        visits
    }

    /// The order the divergence study's private scheduler had: the groups afresh each round,
    /// then each group's members.
    fn grouped_before(groups: &[Range<usize>], rounds: &[Vec<usize>]) -> Vec<usize> {
        let mut rng = fastrand::Rng::with_seed(0xd1f1ab);
        let mut visits = Vec::new();
        for round in rounds {
            let mut order = round.clone();
            rng.shuffle(&mut order);
            for g in order {
                let mut members: Vec<usize> = groups[g].clone().collect();
                rng.shuffle(&mut members);
                visits.extend(members);
            }
        }
        visits
    }

    #[test]
    fn a_budget_runs_the_minimum_then_stops_when_spent_or_at_the_maximum() {
        let budget = Budget {
            min_rounds: 3,
            max_rounds: 10,
            time: Duration::from_secs(5),
        };
        let late = Duration::from_secs(6);
        let early = Duration::from_secs(1);
        // The minimum runs whatever the time; past it, only while time is left.
        assert!(budget.goes_on(2, late));
        assert!(!budget.goes_on(3, late));
        assert!(budget.goes_on(9, early));
        assert!(!budget.goes_on(10, early));
        // A maximum below the minimum wins.
        let few = Budget {
            max_rounds: 1,
            ..budget
        };
        assert!(few.goes_on(0, late) && !few.goes_on(1, early));
    }

    #[test]
    fn dispatches_run_in_the_order_of_both_former_schedulers() {
        let alone: Vec<Range<usize>> = (0..5).map(|i| i..i + 1).collect();
        let mut order = RoundOrder::default();
        let mut permutation: Vec<usize> = (0..5).collect();
        let shared: Vec<usize> = (0..7)
            .flat_map(|_| order.next(&alone, &mut permutation))
            .collect();
        assert_eq!(shared, interleave_before(5, 7));

        // A k sweep's groups of 4 and 5, a floor alone; base rounds, then extra rounds of two.
        let groups = [0..4, 4..9, 9..13, 13..14];
        let rounds = [vec![0, 1, 2, 3], vec![0, 1, 2, 3], vec![1, 2], vec![2]];
        let mut order = RoundOrder::default();
        let shared: Vec<usize> = rounds
            .iter()
            .flat_map(|round| order.next(&groups, &mut round.clone()))
            .collect();
        assert_eq!(shared, grouped_before(&groups, &rounds));
    }
}
