//! `--cost`: for each measured branch, its counterfactual counted (did other work move?) and
//! its timed pair compiled, for the timing to interleave with the kernel; then each branch's
//! cost from its pair's samples. The text of the variants and the arithmetic are
//! [`crate::profile::cost`]'s.

use crate::Result;
use crate::gpu::{Dispatch, GpuContext, read_only_buffer};
use crate::profile::cost::chain::{self, ChainText, ClauseAt};
use crate::profile::cost::exits::{self, ImplicitElse};
use crate::profile::cost::variant::{self, BranchText, Control};
use crate::profile::cost::{self, Counterfactual};
use crate::profile::kernel::Kernel;
use crate::profile::report::{
    self, BranchCost, BranchProfile, CostVerdict, Inputs, LineProfile, Profile,
};

use super::bind::{Resources, dispatch, pipeline, resources, timed_resources};
use super::counted::count;
use super::prepare::{cap_ceiling, prepare};
use super::{Request, Stage};

/// A branch with a timed pair.
pub(super) struct Timed {
    /// Its index in the profile's branches.
    branch: usize,
    /// What its variant does in place of the divergence.
    counterfactual: Counterfactual,
    /// The counted variant's change in lanes outside it, and the kernel's own.
    outside: cost::OutsideChange,
    /// The subgroup executions the counted variant no longer ran inside it: the model's saving.
    /// `None` where two counted runs of the kernel itself differ inside it: the difference
    /// would price the kernel's own variation.
    dropped: Option<i64>,
    /// The code the branch skips by `continue`, `break` or `return`, counted as its else.
    skipped: Option<ImplicitElse>,
    /// On each buffer placement, the variant with each lane deciding (the placebo), then with
    /// the subgroup's first active lane deciding.
    pub pairs: Vec<(Dispatch, Dispatch)>,
}

/// The branches' variants: the timed pairs, and the costs decided without timing.
pub(super) struct Variants {
    /// The pairs to time, in the order their samples come back.
    pub timed: Vec<Timed>,
    /// Branch index and cost, for the branches that get no timed pair.
    decided: Vec<(usize, BranchCost)>,
    /// The profile's notes on how the variants ran: on fewer sets of buffers than
    /// `--cost-placements` asked, or from counts that vary between runs.
    notes: Vec<String>,
}

/// Where a branch's variant is written: an `if` or `switch` statement, or the `if` naga made
/// of a short-circuit operator.
enum Written {
    /// The statement, and the other lines whose work is its sides' (`also`): the code an `if`
    /// that continues, breaks or returns skips (`skipped`), and the functions the statement and
    /// that code call.
    Branch {
        text: BranchText,
        also: Vec<std::ops::Range<u32>>,
        skipped: Option<ImplicitElse>,
    },
    Chain(ChainText),
}

impl Written {
    /// The variant's text in `form`, its control buffer at `control_group`.
    fn variant(&self, source: &str, form: variant::Form, control_group: u32) -> String {
        match self {
            Self::Branch { text, .. } => variant::write(source, text, form, control_group),
            Self::Chain(text) => chain::write(source, text, form, control_group),
        }
    }

    /// The lines the variant changes the work of: the statement's (first), then the others
    /// whose work is its own (a branch's `also`; the functions a chain's next clause calls).
    fn lines(&self) -> Vec<std::ops::Range<u32>> {
        let (lines, calls) = match self {
            Self::Branch { text, also, .. } => (&text.lines, also),
            Self::Chain(text) => (&text.lines, &text.calls),
        };
        std::iter::once(lines.clone())
            .chain(calls.iter().cloned())
            .collect()
    }

    /// The lines the outside check leaves out: [`Self::lines`], less a branch's header line
    /// where it holds the header alone. The branch is evaluated as often in the variant as in
    /// the kernel unless its decision steers its own evaluations (a side that sets the trips of
    /// the loop it sits in), which is work outside the divergence. A loop the branch leaves by
    /// `break` or `return` is its own work, its header line with it ([`exits`]).
    fn inside_lines(&self) -> Vec<std::ops::Range<u32>> {
        let mut lines = self.lines();
        if let Self::Branch { text, .. } = self
            && text.header_alone
        {
            lines[0].start += 1;
        }
        lines
    }

    fn skipped(&self) -> Option<&ImplicitElse> {
        match self {
            Self::Branch { skipped, .. } => skipped.as_ref(),
            Self::Chain(_) => None,
        }
    }

    fn counterfactual(&self) -> Counterfactual {
        match self {
            Self::Branch { .. } => Counterfactual::FirstLane,
            Self::Chain(_) => Counterfactual::Eager,
        }
    }
}

/// The most bytes `--cost-placements` makes again: a kernel's buffers held several times over
/// must not run a device out of memory.
const PLACEMENT_BYTES: u64 = 1 << 30;

/// The variants of the `top` most divergent branches of `profile` (the counted run's) that can
/// have one, made and counted on fresh resources filled as the original's were, and compiled
/// to run on `shared` (the resources the timing uses) and on `--cost-placements` − 1 more
/// sets filled alike: where the buffers lie moves a small saving, which one set cannot show.
pub(super) fn variants(
    gpu: &GpuContext,
    request: &Request,
    kernel: &Kernel,
    profile: &Profile,
    shared: &Resources,
    (top, control_group): (usize, u32),
    on_stage: &mut dyn FnMut(Stage),
) -> Result<Variants> {
    let mut out = Variants {
        timed: Vec::new(),
        decided: Vec::new(),
        notes: Vec::new(),
    };
    // Whether a branch can have a variant is read from the text, before any GPU work, so one
    // that cannot (two `if`s on a line) takes no --cost-top slot from one that can.
    let mut chosen = Vec::new();
    for index in cost::candidates(&profile.branches, usize::MAX) {
        match written(kernel, &profile.branches, index) {
            Ok(text) if chosen.len() < top => chosen.push((index, text)),
            Ok(_) => {}
            Err(reason) => out.decided.push((index, unmeasured(reason))),
        }
    }
    // The counts and the `--save`d textures are the original's: a variant saves nothing.
    let mut quiet = request.clone();
    quiet.lanes_line = None;
    quiet.keep_images = false;
    quiet.textures.saves.clear();
    let control = |value: Control| {
        let label = format!("divlab.cost.control.{value:?}");
        read_only_buffer(gpu, &label, &[value as u32; 4])
    };
    let (uniform, placebo) = (control(Control::Uniform), control(Control::Placebo));
    // Whether the kernel's counts move between runs on their own (a spin, the order of
    // atomics): a variant's change outside its branch is then no sign of the branch alone.
    let repeat = if chosen.is_empty() {
        None
    } else {
        count_again(gpu, &quiet, kernel, &profile.lines)?
    };
    out.notes
        .extend((repeat.as_deref()).and_then(|again| unsteady_note(&profile.lines, again)));
    // The sets beside `shared`, made for the first branch timed: one settled without timing
    // (its variant hit the loop cap, or did not compile) needs none.
    let mut extra_sets: Option<Vec<Resources>> = None;
    for (done, (index, text)) in chosen.iter().enumerate() {
        on_stage(Stage::Variants {
            done,
            of: chosen.len(),
        });
        let (index, branch) = (*index, &profile.branches[*index]);
        let counterfactual = text.counterfactual();
        let counted = match count_variant(gpu, &quiet, kernel, text)? {
            Ok(lines) => lines,
            Err(cost) => {
                out.decided.push((index, cost));
                continue;
            }
        };
        let (original, region) = (&profile.lines, text.lines());
        let inside = text.inside_lines();
        let outside = cost::OutsideChange::measure(original, repeat.as_deref(), &counted, &inside);
        let steady_inside = repeat
            .as_deref()
            .is_none_or(|again| !cost::differs_on(original, again, &region));
        let dropped = steady_inside
            .then(|| cost::dropped_executions(original, &counted, &region[0], &region[1..]));
        let wgsl = text.variant(&kernel.source, variant::Form::Timed, control_group);
        let label = format!("{} (line {} timed variant)", kernel.file, branch.line);
        let entry = &kernel.interface.entry;
        match pipeline(gpu, &label, &wgsl, entry, &kernel.constants(), false) {
            Ok(timed) => {
                if extra_sets.is_none() {
                    let (extra, note) = extra_placements(shared.bytes(), request.cost_placements);
                    out.notes.extend(note);
                    let made = (0..extra).map(|_| timed_resources(gpu, kernel, &quiet));
                    extra_sets = Some(made.collect::<Result<_>>()?);
                }
                let placements = std::iter::once(shared).chain(extra_sets.iter().flatten());
                // One pipeline, so the pair runs the same machine code.
                let with = |on: &Resources, control: &wgpu::Buffer| {
                    let ours = [control];
                    let group = Some((control_group, &ours[..]));
                    dispatch(gpu, &timed, &kernel.interface, on, group, request.dispatch)
                };
                let pairs = placements
                    .map(|on| (with(on, &placebo), with(on, &uniform)))
                    .collect();
                out.timed.push(Timed {
                    branch: index,
                    counterfactual,
                    outside,
                    dropped,
                    skipped: text.skipped().cloned(),
                    pairs,
                });
            }
            Err(e) => {
                let reason = format!("the variant did not compile on this adapter: {e}");
                out.decided.push((index, unmeasured(reason)));
            }
        }
    }
    Ok(out)
}

/// How many more sets of buffers `--cost-placements` (`asked`) can make of a kernel's `bytes`
/// within [`PLACEMENT_BYTES`], and where that is fewer than asked, the note that says so.
fn extra_placements(bytes: u64, asked: usize) -> (usize, Option<String>) {
    let asked = asked.max(1);
    let room = usize::try_from(PLACEMENT_BYTES / bytes.max(1)).unwrap_or(usize::MAX);
    let extra = (asked - 1).min(room);
    let sets = extra + 1;
    let note = (sets < asked).then(|| {
        let (plural, one) = if sets == 1 {
            let band = cost::FEW_TIMER_STEPS;
            (
                "",
                format!(
                    "; with one, savings under {band:.0} steps of a coarse timer are not called"
                ),
            )
        } else {
            ("s", String::new())
        };
        format!(
            "--cost: each variant was timed on {sets} set{plural}, not the {asked} \
             --cost-placements asked: the kernel's buffers and textures, with the copies that put \
             back what it writes before each run, hold {} MiB, and divlab makes at most {} MiB \
             of them again{one}",
            bytes.div_ceil(1 << 20),
            PLACEMENT_BYTES >> 20,
        )
    });
    (extra, note)
}

/// Where the variant of `branches[index]` is written in `kernel`'s text, or why none can be.
fn written(
    kernel: &Kernel,
    branches: &[BranchProfile],
    index: usize,
) -> std::result::Result<Written, String> {
    let branch = &branches[index];
    let keyword = if branch.kind == "switch" {
        "switch"
    } else {
        "if"
    };
    if branch.clause.as_ref().is_some_and(|c| c.operator.is_some()) {
        // Every clause row, so that the chain's first clause can be found.
        let rows: Vec<(usize, ClauseAt<'_>)> = (branches.iter().enumerate())
            .filter_map(|(i, b)| {
                let c = b.clause.as_ref()?;
                let clause = ClauseAt {
                    line: c.line,
                    column: c.column,
                    text: &c.text,
                    operator: c.operator.as_deref()?,
                };
                Some((i, clause))
            })
            .collect();
        let at = rows.iter().position(|(i, _)| *i == index).unwrap_or(0);
        let clauses: Vec<ClauseAt<'_>> = rows.iter().map(|(_, c)| *c).collect();
        return chain::find(&kernel.source, &kernel.module, &clauses, at)
            .map(Written::Chain)
            .map_err(|why| format!("a clause of a short-circuit chain: {why}"));
    }
    let text = variant::find(&kernel.source, branch.line, keyword).map_err(|why| match why {
        variant::NoVariant::NotInText => format!(
            "no `{keyword}` starts on line {}: a loop's test, or a branch the compiler made \
             that the text does not write",
            branch.line
        ),
        variant::NoVariant::Several => format!(
            "more than one `{keyword}` on line {}: put each on its own line to cost it",
            branch.line
        ),
    })?;
    // The code an `if` that continues, breaks or returns skips is its `else`; what the statement
    // and that code call is their work.
    let skipped = exits::implicit_else(&kernel.source, &text);
    let rest = skipped.as_ref().map(|s| &s.lines);
    let mut also: Vec<std::ops::Range<u32>> = rest.into_iter().cloned().collect();
    let statement_and_rest = std::iter::once(&text.lines).chain(rest);
    also.extend(chain::calls_in_lines(
        &kernel.source,
        &kernel.module,
        statement_and_rest,
    ));
    Ok(Written::Branch {
        text,
        also,
        skipped,
    })
}

fn unmeasured(reason: String) -> BranchCost {
    BranchCost::unmeasured(CostVerdict::NotMeasured, None, reason)
}

/// The counted variant's lines (`Err`: the cost decided without timing, where the variant
/// cannot be counted or does not end).
fn count_variant(
    gpu: &GpuContext,
    quiet: &Request,
    kernel: &Kernel,
    text: &Written,
) -> Result<std::result::Result<Vec<LineProfile>, BranchCost>> {
    let wgsl = text.variant(&kernel.source, variant::Form::Counted, 0);
    let entry = Some(kernel.interface.entry.as_str());
    let label = format!(
        "{} (line {} counted variant)",
        kernel.file,
        text.lines()[0].start
    );
    let counted = Kernel::parse(&kernel.file, &wgsl, &kernel.overrides, entry)
        .map_err(Uncounted::Instrument)
        .and_then(|variant| count_lines(gpu, quiet, kernel, &variant, &label));
    let doing = text.counterfactual().doing();
    Ok(Err(match counted {
        Ok(lines) => return Ok(Ok(lines)),
        Err(Uncounted::Failed(e)) => return Err(e),
        Err(Uncounted::Instrument(e)) => {
            unmeasured(format!("the variant could not be instrumented: {e}"))
        }
        Err(Uncounted::DriverLimit) => unmeasured(
            "llvmpipe ended the variant's loops on its own, before the loop cap fired: its \
             counts cannot be trusted"
                .to_owned(),
        ),
        Err(Uncounted::CapHit) => BranchCost::unmeasured(
            CostVerdict::Confounded,
            None,
            format!(
                "{doing}, a loop ran into the loop cap: {}",
                match text.counterfactual() {
                    Counterfactual::FirstLane => "the branch's result steers later work",
                    Counterfactual::Eager =>
                        "the clause runs a loop that the lanes it skipped do not end",
                }
            ),
        ),
    }))
}

/// Why a kernel (a variant, or the original again) has no counted lines.
enum Uncounted {
    /// It could not be parsed or instrumented.
    Instrument(crate::Error),
    /// llvmpipe ended its loops on its own, before the loop cap fired.
    DriverLimit,
    /// A loop ran into the loop cap.
    CapHit,
    /// The device failed: the profile stops.
    Failed(crate::Error),
}

/// The lines of `counted` (`kernel` or a variant of it) counted on fresh resources, filled as
/// `kernel`'s counted run's were, not as the runs since left them.
fn count_lines(
    gpu: &GpuContext,
    quiet: &Request,
    kernel: &Kernel,
    counted: &Kernel,
    label: &str,
) -> std::result::Result<Vec<LineProfile>, Uncounted> {
    let prepared = prepare(gpu, counted, quiet, cap_ceiling(gpu)).map_err(Uncounted::Instrument)?;
    let fresh = resources(gpu, kernel, quiet).map_err(Uncounted::Failed)?;
    let instrumented = &prepared.instrumented;
    let (_, read) = count(gpu, label, quiet, &kernel.interface, instrumented, &fresh)
        .map_err(Uncounted::Failed)?;
    if read.counters.driver_loop_limit {
        return Err(Uncounted::DriverLimit);
    }
    if read.counters.cap_hit.is_some() {
        return Err(Uncounted::CapHit);
    }
    let (lines, _, _) = report::lines_and_branches(&Inputs {
        instrumented,
        counters: &read.counters,
        subgroup_size: read.counters.subgroup_width,
        widest_ballot: None,
        workgroup_size: counted.interface.workgroup_size,
        analysis: None,
        conditions: &std::collections::BTreeMap::new(),
    });
    Ok(lines)
}

/// The kernel counted a second time, as the variants are, for how far its counts move between
/// runs on their own: the lines of its first run (`original`) only, since this run is counted
/// without the analysis that leaves out the lines of no statement. `None` where that run cannot
/// be counted.
fn count_again(
    gpu: &GpuContext,
    quiet: &Request,
    kernel: &Kernel,
    original: &[LineProfile],
) -> Result<Option<Vec<LineProfile>>> {
    let label = format!("{} (counted again)", kernel.file);
    match count_lines(gpu, quiet, kernel, kernel, &label) {
        Ok(mut lines) => {
            lines.retain(|l| cost::counterpart(original, l).is_some());
            Ok(Some(lines))
        }
        Err(Uncounted::Failed(e)) => Err(e),
        Err(_) => Ok(None),
    }
}

/// Where the kernel's second counted run (`again`) counted other lanes than its first
/// (`original`), the note that says so: its counts are one run's of several it can give.
fn unsteady_note(original: &[LineProfile], again: &[LineProfile]) -> Option<String> {
    let moved = cost::outside_change(original, again, &[]);
    (moved > 0.0).then(|| {
        format!(
            "--cost: a second counted run of the kernel, from the same inputs, counted other \
             lanes than the first ({} of its lanes or subgroup executions moved): its paths \
             follow a spin or the order of its atomics, so these counts are one run's; a branch \
             whose variant moved the work outside it reads `confounded`, with how far the kernel \
             moved it on its own (`repeat_change`), and the timed runs, without the loop cap, may \
             take paths the counted ones did not",
            cost::small_percent(moved)
        )
    })
}

/// Every branch's cost in `profile`, from the timed pairs' samples (placebo then uniform, in
/// the order of `variants.timed` and each one's placements); `top` is `--cost-top`.
pub(super) fn apply(
    profile: &mut Profile,
    variants: Variants,
    samples: &[(Vec<f64>, Vec<f64>)],
    top: usize,
) {
    profile.notes.extend(variants.notes.iter().cloned());
    // The fixed cost of a dispatch is paid however many lane slots run: the model spreads
    // only the time above the empty kernel's over them.
    let timing = profile.timing.as_ref();
    let work = report::Estimate {
        ns: timing.map_or(f64::NAN, |t| t.above_floor_ns()),
        interval: timing.and_then(|t| t.above_floor_interval_ns),
    };
    let width = profile.subgroup_size.unwrap_or(0);
    let kernel_ns = timing.map(|t| t.kernel_ns).filter(|ns| *ns > 0.0);
    // The lines are read while the branches are written: borrowed apart, not copied.
    let Profile {
        lines, branches, ..
    } = profile;
    let mut samples = samples.iter();
    for timed in &variants.timed {
        let placements: Vec<(&[f64], &[f64])> = (samples.by_ref().take(timed.pairs.len()))
            .map(|(placebo, uniform)| (&placebo[..], &uniform[..]))
            .collect();
        // Evaluating a clause in every lane leaves no path out: the model predicts no saving.
        let first_lane = timed.counterfactual == Counterfactual::FirstLane;
        let predicted = match timed.dropped {
            Some(dropped) if first_lane => {
                cost::priced_ns(dropped * i64::from(width), lines, width, work)
            }
            _ => None,
        };
        let mut judged = cost::judge(&placements, timed.outside, predicted, timed.counterfactual);
        if let Some(skipped) = &timed.skipped {
            judged.reason = format!("{} ({})", judged.reason, skipped.describe());
        }
        if first_lane && timed.dropped.is_none() {
            judged.reason = format!(
                "{} (no prediction: two counted runs of the kernel itself differ inside the \
                 branch, so what the variant no longer ran there would price the kernel's own \
                 variation)",
                judged.reason
            );
        }
        let placebos: Vec<f64> = placements
            .iter()
            .flat_map(|(p, _)| p.iter().copied())
            .collect();
        judged.placebo_ns = (!placebos.is_empty()).then(|| crate::stats::median(&placebos));
        let overhead = (judged.placebo_ns.zip(kernel_ns)).and_then(|(placebo, kernel)| {
            cost::control_overhead(placebo, kernel, (judged.saved_fraction, judged.verdict))
        });
        if let Some(why) = overhead {
            judged.reason = format!("{}; {why}", judged.reason);
        }
        branches[timed.branch].cost = Some(judged);
    }
    for (index, decided) in variants.decided {
        branches[index].cost = Some(decided);
    }
    // The timed `if`s that leave a loop, by its first line: each is costed with the loop.
    let leaving: Vec<(u32, String)> = (variants.timed.iter())
        .filter_map(|timed| {
            let skipped = timed.skipped.as_ref().filter(|s| s.ends_loop)?;
            let by = format!(
                "line {}'s `if`, which leaves it by `{}`, is costed with this loop as its work",
                branches[timed.branch].line,
                skipped.by.keyword()
            );
            Some((skipped.lines.start, by))
        })
        .collect();
    for branch in branches.iter_mut().filter(|b| b.cost.is_none()) {
        branch.cost = Some(if branch.kind == "loop" && branch.diverged() {
            let predicted = cost::loop_predicted_ns(branch, lines, width, work);
            let mut reason = "lanes left at different trips; a variant whose lanes agree on the \
                              trips would change the work itself (at most this much: the slots \
                              of lanes that never entered count too)"
                .to_owned();
            for (_, by) in leaving.iter().filter(|(line, _)| *line == branch.line) {
                reason = format!("{reason}; {by}");
            }
            BranchCost::unmeasured(CostVerdict::CountOnly, predicted, reason)
        } else if branch.kind == "loop" {
            let reason = "its lanes left together: the loop itself never diverged".to_owned();
            BranchCost::unmeasured(CostVerdict::NotDivergent, None, reason)
        } else if branch.divergent_fraction.unwrap_or(0.0) < cost::MIN_DIVERGENT_FRACTION {
            let reason = "divergent in under 1% of its evaluations".to_owned();
            BranchCost::unmeasured(CostVerdict::NotDivergent, None, reason)
        } else {
            unmeasured(format!(
                "past --cost-top {top} (the branches with the most idle lane slots are measured)"
            ))
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_count_that_differs_says_the_counts_are_one_runs() {
        let line = |line, executions, lanes| LineProfile {
            line,
            executions,
            active_lanes: Some(lanes),
            efficiency: None,
            static_verdict: None,
        };
        let first = [line(3, 10, 80), line(5, 40, 200)];
        assert_eq!(unsteady_note(&first, &first), None);
        // The spin's line ran 4 more trips of 8 lanes: 32 of 280 lanes moved.
        let again = [line(3, 10, 80), line(5, 44, 232)];
        let note = unsteady_note(&first, &again).expect("a note");
        assert!(
            note.contains("counted other lanes than the first (11.4%"),
            "{note}"
        );
    }

    #[test]
    fn placements_stop_at_a_gibibyte_made_again_and_say_so() {
        assert_eq!(extra_placements(1 << 20, 3), (2, None));
        assert_eq!(extra_placements(0, 3), (2, None));
        assert_eq!(extra_placements(1 << 20, 1), (0, None));
        let (extra, note) = extra_placements(600 << 20, 3);
        assert_eq!(extra, 1);
        let note = note.expect("a note");
        assert!(note.contains("timed on 2 sets, not the 3"), "{note}");
        let (extra, note) = extra_placements(3 << 30, 3);
        assert_eq!(extra, 0);
        let note = note.expect("a note");
        assert!(note.contains("on 1 set, not the 3"), "{note}");
        assert!(
            note.ends_with(
                "again; with one, savings under 11 steps of a coarse timer are not called"
            ),
            "{note}"
        );
        assert!(note.contains("before each run, hold 3072 MiB"), "{note}");
    }
}
