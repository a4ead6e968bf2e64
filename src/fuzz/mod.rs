//! The reconvergence fuzzer: seeded random structured programs (`generate`), written as WGSL
//! (`wgsl`), run on the device, and held against the maximal-reconvergence simulation in
//! `model::reconvergence` under three styles. A mismatch is shrunk (`shrink`) to a small
//! reproducer.

pub mod generate;
mod report;
pub mod shrink;
pub mod uniformity;
pub mod wgsl;

use std::fmt::Write as _;

use crate::gpu::{
    GpuContext, Kernel, RuntimeChecks, read_buffer, read_only_buffer, storage_buffer,
};
use crate::model::reconvergence::{ExpectedBallot, Layout, Program, bits, simulate};
use crate::{Error, Result};
pub use generate::{Size, generate};
pub use report::{FuzzDocument, pass_rate_table, reproducers_written};
use wgsl::{FuzzInfo, FuzzRecord, MAX_RECORDS, WORKGROUP_SIZE};

/// Which ballots a style checks (after the Vulkan reconvergence tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub enum Style {
    /// Every ballot must equal the simulated one: maximal reconvergence.
    Maximal,
    /// Only ballots in subgroup-uniform control flow (WGSL's static rules) with the whole
    /// subgroup active.
    Subgroup,
    /// Only ballots in workgroup-uniform control flow with the whole workgroup active.
    Workgroup,
}

impl Style {
    /// Every style, in report order.
    pub const ALL: [Style; 3] = [Style::Maximal, Style::Subgroup, Style::Workgroup];

    /// The name in tables, metric names and directories.
    pub fn name(self) -> &'static str {
        match self {
            Style::Maximal => "maximal",
            Style::Subgroup => "subgroup",
            Style::Workgroup => "workgroup",
        }
    }

    /// Whether programs for this style contain `subgroupElect()`, whose control flow only the
    /// maximal style predicts.
    pub fn allows_elect(self) -> bool {
        self == Style::Maximal
    }

    fn checks(self, e: &ExpectedBallot) -> bool {
        match self {
            Style::Maximal => true,
            Style::Subgroup => e.subgroup_uniform,
            Style::Workgroup => e.workgroup_uniform,
        }
    }
}

/// The generated program of a seed for a style.
pub fn program_for(seed: u64, size: Size, style: Style) -> Program {
    generate(seed, size, style.allows_elect())
}

/// What one invocation recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Observed {
    /// Each record's point and ballot (over local indices), in order; at most `MAX_RECORDS`.
    pub records: Vec<(u32, u128)>,
    /// How many records it made, stored or not.
    pub count: u32,
}

/// A program's run: the layout the device used and what each invocation recorded.
#[derive(Clone, Debug)]
pub struct Run {
    pub layout: Layout,
    pub observed: Vec<Observed>,
}

/// The first difference between simulation and observation for one invocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    pub invocation: usize,
    /// The record's position in the invocation's sequence.
    pub index: usize,
    pub what: String,
}

/// Compiles and runs `program` once on `gpu`.
pub fn run_program(gpu: &GpuContext, program: &Program) -> Result<Run> {
    let source = wgsl::emit(program);
    let kernel = Kernel {
        name: "fuzz_program",
        path: "(generated fuzz program)",
        source: "",
        entry: "main",
        checks: RuntimeChecks::Checked,
    };
    let pipeline = kernel.pipeline(gpu, &source, &[])?;
    let n = u64::from(WORKGROUP_SIZE);
    let params = read_only_buffer(gpu, "divlab.fuzz.params", &[1u32; 4]);
    let records = storage_buffer(
        gpu,
        "divlab.fuzz.records",
        n * u64::from(MAX_RECORDS) * size_of::<FuzzRecord>() as u64,
    );
    let info = storage_buffer(gpu, "divlab.fuzz.info", n * size_of::<FuzzInfo>() as u64);
    gpu.dispatch("divlab.fuzz", &pipeline, &[&params, &records, &info], 1)?;
    let records: Vec<FuzzRecord> = read_buffer(gpu, "divlab.fuzz", &records)?;
    let info: Vec<FuzzInfo> = read_buffer(gpu, "divlab.fuzz", &info)?;
    decode(&records, &info)
}

/// Turns the buffers into a layout (from each invocation's entry info) and per-invocation
/// records with ballots over local indices.
fn decode(records: &[FuzzRecord], info: &[FuzzInfo]) -> Result<Run> {
    let n = info.len();
    let mut keys: Vec<u32> = info.iter().map(|i| i[1]).collect();
    keys.sort_unstable();
    keys.dedup();
    let subgroup: Vec<usize> = info
        .iter()
        .map(|i| keys.binary_search(&i[1]).unwrap_or(0))
        .collect();
    let mut subgroups = vec![0u128; keys.len()];
    // lane -> local index, per subgroup.
    let mut members = vec![vec![None; 128]; keys.len()];
    for (id, i) in info.iter().enumerate() {
        let lane = i[0] as usize;
        if lane >= 128 || id >= 128 {
            return Err(Error::Wgpu {
                what: "the fuzz kernel's records".to_owned(),
                reason: format!("invocation {id} reports lane {lane}, outside 0..128"),
            });
        }
        subgroups[subgroup[id]] |= 1 << id;
        members[subgroup[id]][lane] = Some(id);
    }
    let layout = Layout {
        lane: info.iter().map(|i| i[0]).collect(),
        subgroup: subgroup.clone(),
        subgroups,
    };
    let observed = (0..n)
        .map(|id| {
            let count = info[id][3];
            let stored = count.min(MAX_RECORDS) as usize;
            let base = id * MAX_RECORDS as usize;
            let records = records[base..base + stored]
                .iter()
                .map(|r| {
                    let lanes = r
                        .ballot
                        .iter()
                        .rev()
                        .fold(0u128, |m, &w| (m << 32) | u128::from(w));
                    // A lane with no invocation in this subgroup shows as bit 127+: never equal.
                    let ids = bits(lanes).fold(0u128, |m, lane| {
                        m | members[subgroup[id]][lane].map_or(1 << 127, |i| 1 << i)
                    });
                    (r.point, ids)
                })
                .collect();
            Observed { records, count }
        })
        .collect();
    Ok(Run { layout, observed })
}

/// The first mismatches (at most `limit`) between the simulation and the run, under `style`.
/// Control flow (which points, in which order, how many) is checked under every style.
pub fn compare(
    expected: &[Vec<ExpectedBallot>],
    run: &Run,
    style: Style,
    limit: usize,
) -> Vec<Mismatch> {
    let mut out = Vec::new();
    for (invocation, (exp, obs)) in expected.iter().zip(&run.observed).enumerate() {
        if out.len() >= limit {
            break;
        }
        if exp.len() != obs.count as usize {
            out.push(Mismatch {
                invocation,
                index: exp.len().min(obs.count as usize),
                what: format!("made {} records, expected {}", obs.count, exp.len()),
            });
            continue;
        }
        let first = exp
            .iter()
            .zip(&obs.records)
            .enumerate()
            .find_map(|(i, (e, &(p, b)))| {
                if e.point != p {
                    Some((i, format!("reached point {p}, expected point {}", e.point)))
                } else if style.checks(e) && e.ballot != b {
                    Some((
                        i,
                        format!(
                            "point {p}: ballot {}, expected {}",
                            lanes_picture(b, &run.layout, invocation),
                            lanes_picture(e.ballot, &run.layout, invocation)
                        ),
                    ))
                } else {
                    None
                }
            });
        if let Some((index, what)) = first {
            out.push(Mismatch {
                invocation,
                index,
                what,
            });
        }
    }
    out
}

/// A ballot over local indices as its subgroup's lanes, lane 0 first: `#` active, `.` not.
pub fn lanes_picture(ballot: u128, layout: &Layout, invocation: usize) -> String {
    let s = layout.subgroup.get(invocation).copied().unwrap_or(0);
    let mut lanes: Vec<(u32, usize)> = (0..layout.invocations())
        .filter(|&i| layout.subgroup[i] == s)
        .map(|i| (layout.lane[i], i))
        .collect();
    lanes.sort_unstable();
    let mut out: String = lanes
        .iter()
        .map(|&(_, i)| if ballot >> i & 1 == 1 { '#' } else { '.' })
        .collect();
    if ballot & !layout.subgroups.get(s).copied().unwrap_or(0) != 0 {
        out.push_str(" +lanes outside the subgroup");
    }
    out
}

/// One program's verdict under one style.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub seed: u64,
    pub style: Style,
    pub mismatches: Vec<Mismatch>,
}

impl Outcome {
    pub fn passed(&self) -> bool {
        self.mismatches.is_empty()
    }
}

/// Generates, runs and checks one seed under one style.
pub fn check_seed(gpu: &GpuContext, seed: u64, size: Size, style: Style) -> Result<Outcome> {
    let program = program_for(seed, size, style);
    let run = run_program(gpu, &program)?;
    let expected = simulate(&program, &run.layout);
    Ok(Outcome {
        seed,
        style,
        mismatches: compare(&expected, &run, style, 8),
    })
}

/// The expected and observed records of the invocations in `mismatches`, one line each.
pub fn describe(
    expected: &[Vec<ExpectedBallot>],
    run: &Run,
    mismatches: &[Mismatch],
) -> (String, String, String) {
    let (mut exp, mut obs, mut diff) = (String::new(), String::new(), String::new());
    for m in mismatches {
        let i = m.invocation;
        let who = format!(
            "invocation {i} (subgroup {}, lane {})",
            run.layout.subgroup[i], run.layout.lane[i]
        );
        let _ = writeln!(diff, "{who}, record {}: {}", m.index, m.what);
        let list = |records: &mut dyn Iterator<Item = (u32, u128)>| {
            records
                .map(|(p, b)| format!("p{p} {}", lanes_picture(b, &run.layout, i)))
                .collect::<Vec<_>>()
                .join("  ")
        };
        let _ = writeln!(
            exp,
            "{who}: {}",
            list(&mut expected[i].iter().map(|e| (e.point, e.ballot)))
        );
        let _ = writeln!(
            obs,
            "{who}: {}",
            list(&mut run.observed[i].records.iter().copied())
        );
    }
    (exp, obs, diff)
}

/// Failures per style that are shrunk and written out; later ones are only listed.
pub const MAX_REPRODUCERS: usize = 20;

/// What `divlab fuzz` runs.
#[derive(Clone, Debug)]
pub struct Campaign {
    /// The first seed.
    pub start: u64,
    /// How many seeds, each under every style.
    pub seeds: u64,
    pub styles: Vec<Style>,
    pub size: Size,
    /// Where reproducers go (`DIR/<seed>/<style>/`); none are written without it.
    pub out: Option<std::path::PathBuf>,
    /// Variants the shrinker may run per failing program.
    pub shrink_attempts: usize,
}

/// One style's pass rate over a campaign.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StyleTally {
    pub style: Style,
    pub programs: u64,
    pub passed: u64,
    /// Failing seeds, with the line count of the shrunk reproducer's program where one was
    /// written (for the first [`MAX_REPRODUCERS`]).
    pub failures: Vec<(u64, Option<usize>)>,
}

impl StyleTally {
    /// Passed programs as a fraction of all.
    pub fn pass_rate(&self) -> f64 {
        self.passed as f64 / self.programs.max(1) as f64
    }
}

/// Runs every seed under every style, shrinking and writing out each failure. `progress` is
/// called after each program with (done, total).
pub fn run_campaign(
    gpu: &GpuContext,
    campaign: &Campaign,
    progress: &dyn Fn(u64, u64),
) -> Result<Vec<StyleTally>> {
    gpu.require_subgroups("the reconvergence fuzzer")?;
    let total = campaign.seeds * campaign.styles.len() as u64;
    let mut tallies: Vec<StyleTally> = campaign
        .styles
        .iter()
        .map(|&style| StyleTally {
            style,
            programs: 0,
            passed: 0,
            failures: Vec::new(),
        })
        .collect();
    let mut done = 0;
    for seed in campaign.start..campaign.start + campaign.seeds {
        for tally in &mut tallies {
            let outcome = check_seed(gpu, seed, campaign.size, tally.style)
                .map_err(|e| in_seed(e, seed, tally.style))?;
            tally.programs += 1;
            if outcome.passed() {
                tally.passed += 1;
            } else {
                // Shrinking costs hundreds of runs: the first failures of each style get it.
                let lines = match &campaign.out {
                    Some(dir) if tally.failures.len() < MAX_REPRODUCERS => {
                        Some(write_reproducer(gpu, dir, campaign, &outcome)?)
                    }
                    _ => None,
                };
                tally.failures.push((seed, lines));
            }
            done += 1;
            progress(done, total);
        }
    }
    Ok(tallies)
}

fn in_seed(e: Error, seed: u64, style: Style) -> Error {
    Error::Wgpu {
        what: format!("fuzz seed {seed} ({} style)", style.name()),
        reason: e.to_string(),
    }
}

/// Shrinks a failing program and writes `program.wgsl` (shrunk), `original.wgsl`,
/// `expected.txt`, `observed.txt` and `diff.txt` under `dir/<seed>/<style>/`. Returns the
/// shrunk program's line count, without the fixed prelude.
fn write_reproducer(
    gpu: &GpuContext,
    dir: &std::path::Path,
    campaign: &Campaign,
    outcome: &Outcome,
) -> Result<usize> {
    let (seed, style) = (outcome.seed, outcome.style);
    let original = program_for(seed, campaign.size, style);
    let still_fails = |p: &Program| {
        run_program(gpu, p)
            .is_ok_and(|run| !compare(&simulate(p, &run.layout), &run, style, 1).is_empty())
    };
    let (small, _) = shrink::shrink(&original, campaign.shrink_attempts, still_fails);
    let run = run_program(gpu, &small)?;
    let expected = simulate(&small, &run.layout);
    let mismatches = compare(&expected, &run, style, 8);
    let (exp, obs, mut diff) = describe(&expected, &run, &mismatches);
    if mismatches.is_empty() {
        diff.push_str("the shrunk program passed when run again: the failure is intermittent\n");
    }
    let program = wgsl::emit(&small);
    let here = dir.join(seed.to_string()).join(style.name());
    std::fs::create_dir_all(&here).map_err(|reason| Error::Write {
        path: here.clone(),
        reason: reason.into(),
    })?;
    let header = format!(
        "seed {seed}, style {}, size {:?}: the first mismatching invocations (`#` active lane, \
         `.` inactive, lane 0 first)\n",
        style.name(),
        campaign.size
    );
    for (name, text) in [
        ("program.wgsl", program.clone()),
        ("original.wgsl", wgsl::emit(&original)),
        ("expected.txt", exp),
        ("observed.txt", obs),
        ("diff.txt", header + &diff),
    ] {
        crate::report::write_atomic(&here.join(name), text.as_bytes())?;
    }
    Ok(wgsl::body_lines(&program))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::reconvergence::Stmt;

    /// A run that did exactly what the simulation says.
    fn faithful(program: &Program, layout: &Layout) -> (Vec<Vec<ExpectedBallot>>, Run) {
        let expected = simulate(program, layout);
        let observed = expected
            .iter()
            .map(|e| Observed {
                records: e.iter().map(|r| (r.point, r.ballot)).collect(),
                count: e.len() as u32,
            })
            .collect();
        let run = Run {
            layout: layout.clone(),
            observed,
        };
        (expected, run)
    }

    fn split_program() -> Program {
        Program {
            main: vec![
                Stmt::If {
                    cond: crate::model::reconvergence::Cond::LaneMask(0),
                    then: vec![Stmt::Ballot(1)],
                    otherwise: vec![],
                },
                Stmt::Ballot(2),
            ],
            functions: vec![],
            lane_masks: vec![0b0011],
            id_masks: vec![],
        }
    }

    #[test]
    fn a_faithful_run_passes_every_style() {
        let (expected, run) = faithful(&split_program(), &Layout::linear(8, 4));
        for style in Style::ALL {
            assert!(compare(&expected, &run, style, 8).is_empty(), "{style:?}");
        }
    }

    #[test]
    fn a_divergent_ballot_that_differs_fails_only_the_maximal_style() {
        let (expected, mut run) = faithful(&split_program(), &Layout::linear(8, 4));
        // Lane 0 saw lane 2 beside it inside the if (not on its path).
        run.observed[0].records[0].1 |= 0b100;
        assert_eq!(compare(&expected, &run, Style::Maximal, 8).len(), 1);
        assert!(compare(&expected, &run, Style::Subgroup, 8).is_empty());
        assert!(compare(&expected, &run, Style::Workgroup, 8).is_empty());
        // After the join the whole subgroup (and workgroup) is expected: every style checks.
        // Invocation 6 (lane 2) skipped the if: its first record is after the join.
        run.observed[6].records[0].1 = 0b100_0000;
        for style in Style::ALL {
            assert!(
                compare(&expected, &run, style, 8)
                    .iter()
                    .any(|m| m.invocation == 6),
                "{style:?}"
            );
        }
    }

    #[test]
    fn a_missing_record_is_a_control_flow_mismatch_in_every_style() {
        let (expected, mut run) = faithful(&split_program(), &Layout::linear(8, 4));
        // Invocation 1 (lane 1) took the if: two records, one lost.
        run.observed[1].records.pop();
        run.observed[1].count -= 1;
        for style in Style::ALL {
            let m = compare(&expected, &run, style, 8);
            assert_eq!(m.len(), 1, "{style:?}");
            assert!(
                m[0].what.contains("made 1 records, expected 2"),
                "{}",
                m[0].what
            );
        }
    }

    #[test]
    fn generated_programs_respect_the_style() {
        let has_elect = |p: &Program| format!("{p:?}").contains("Elect");
        assert!((0..40).any(|s| has_elect(&program_for(s, Size::Medium, Style::Maximal))));
        for s in 0..40 {
            assert!(!has_elect(&program_for(s, Size::Medium, Style::Subgroup)));
        }
    }
}
