//! The branches and loops above the annotated source, ranked by wasted lane slots (or, with
//! `--cost`, by the time removing their divergence saves): each row's share of divergent
//! executions, its sides' shares or a loop's trips, and a click that brings its line into view.

use eframe::egui;

use crate::profile::report::{BranchProfile, CostVerdict, Profile};
use crate::report::units::format_grouped;

/// One row per branch, most wasted lane slots first; a click brings its line into view.
pub fn branch_table(ui: &mut egui::Ui, profile: &Profile, jump: &mut Option<u32>) {
    if profile.branches.is_empty() {
        ui.weak("No branches reached.");
        return;
    }
    // Branches that never ran say nothing about divergence; a kernel with many (the study's
    // 128 generated paths) would push the annotated source out of sight.
    let (branches, idle) = ranked(profile);
    if let Some(note) = never_ran(idle) {
        ui.weak(note);
    }
    if branches.is_empty() {
        return;
    }
    let rows: Vec<BranchRow> = branches
        .into_iter()
        .map(|b| BranchRow::of(b, &profile.branches, profile.subgroup_size))
        .collect();
    // Eight rows and the heading in view (more scroll), so the annotated source keeps the
    // rest of the pane.
    let row = ui
        .text_style_height(&egui::TextStyle::Body)
        .max(ui.spacing().interact_size.y)
        + ui.spacing().item_spacing.y;
    let shown = rows.len().min(BRANCH_ROWS) as f32 + 1.0;
    // Both ways: a clause's name can make the kind column wide enough to push the cost column
    // past a narrow pane (the 1,280-pixel window the app opens at), and a newcomer must be
    // able to reach it.
    egui::ScrollArea::both()
        .id_salt("branch_table_scroll")
        .max_width(ui.available_width())
        .min_scrolled_height(shown * row + 4.0)
        .max_height(shown * row + 4.0)
        .show(ui, |ui| branch_grid(ui, &rows, jump));
}

/// Rows of the branch table in view at once.
pub const BRANCH_ROWS: usize = 8;

/// The branches that ran, and how many never ran: with `--cost`, the most time saved first;
/// then the most wasted lane slots (then by line).
fn ranked(profile: &Profile) -> (Vec<&BranchProfile>, usize) {
    let (mut branches, idle): (Vec<&BranchProfile>, Vec<&BranchProfile>) =
        profile.branches.iter().partition(|b| b.executions > 0);
    branches.sort_by_key(|b| (std::cmp::Reverse(b.wasted_lane_slots.unwrap_or(0)), b.line));
    let saved = |b: &BranchProfile| {
        let cost = b
            .cost
            .as_ref()
            .filter(|c| c.verdict != CostVerdict::Confounded);
        cost.and_then(|c| c.saved_ns).unwrap_or(f64::NEG_INFINITY)
    };
    // Stable: branches without a measured saving keep the order by wasted slots.
    branches.sort_by(|a, b| saved(b).total_cmp(&saved(a)));
    (branches, idle.len())
}

/// What the table says of the branches left out because they never ran.
fn never_ran(idle: usize) -> Option<String> {
    (idle > 0).then(|| {
        format!(
            "{idle} branch{} never ran: not listed.",
            if idle == 1 { "" } else { "es" }
        )
    })
}

/// One branch as the table shows it.
#[derive(Debug, PartialEq)]
struct BranchRow {
    line: u32,
    /// `if`, `switch` or `loop`; an `if` of a short-circuit chain with its clause.
    kind: String,
    /// The kind as the table shows it: a clause past [`CLAUSE_CHARS`] cut short (the whole
    /// kind on hover), so that a long chain leaves the cost column in view.
    kind_shown: String,
    /// What an `if` of a short-circuit chain tests, on hover over its kind.
    clause: Option<&'static str>,
    /// Executions, or a loop's trips.
    executions: String,
    /// Divergent executions (with their share), or the tests at which a loop's lanes left.
    divergent: String,
    /// A loop's figures in words, on hover over the two cells before.
    figures: Option<String>,
    /// Wasted lane slots, or `—` where not measured.
    wasted: String,
    /// The branch never diverged: why its wasted slots are not its own, on hover over them.
    inherited: Option<String>,
    /// An `if`: the share of its lanes that took the `then` side; empty otherwise.
    taken: String,
    /// That share in words, on hover: on a `&&`/`||` row, what its `then` side is.
    taken_phrase: Option<String>,
    /// `--cost`: the verdict and the saving, and every figure and reason on hover.
    cost: Option<(String, String)>,
}

impl BranchRow {
    /// The row of `b`, one of `branches` (which name the branch it inherits idle slots from).
    fn of(b: &BranchProfile, branches: &[BranchProfile], subgroup_size: Option<u32>) -> Self {
        let figures = b.loop_figures(subgroup_size);
        // A loop's row counts its trips (`loop_figures` is `Some` only where they are known).
        let executions = match (figures.is_some(), b.trips) {
            (true, Some(trips)) => format!("{} trips", format_grouped(trips)),
            _ => format_grouped(b.executions),
        };
        let divergent = if subgroup_size.is_none() {
            // Counted without subgroups: nothing voted, so no divergence was measured.
            "—".to_owned()
        } else if figures.is_some() {
            // A loop left by a `break` counts no test at which lanes left; whether they left it
            // together is known where a branch holds the `break`.
            match (b.divergent_fraction, b.left_early) {
                (Some(_), Some(true)) if b.divergent == 0 => {
                    "lanes left early by a break or return, at no test".to_owned()
                }
                (Some(_), Some(true)) => format!(
                    "lanes left on {} tests and by a break or return",
                    format_grouped(b.divergent)
                ),
                (Some(_), _) => format!("lanes left on {} tests", format_grouped(b.divergent)),
                (None, Some(true)) => "lanes left early by a break or return".to_owned(),
                (None, Some(false)) => "lanes left together".to_owned(),
                (None, None) => "lanes leave by a break".to_owned(),
            }
        } else {
            match b.divergent_fraction {
                Some(f) => format!("{:.0}% ({})", f * 100.0, format_grouped(b.divergent)),
                None => format_grouped(b.divergent),
            }
        };
        let kind = b.kind_label();
        let kind_shown = match &b.clause {
            Some(c) if c.text.chars().count() > CLAUSE_CHARS => {
                let mut short = c.clone();
                short.text = c.text.chars().take(CLAUSE_CHARS - 1).collect::<String>() + "…";
                format!("{} {}", b.kind, short.label(b.line))
            }
            _ => kind.clone(),
        };
        Self {
            line: b.line,
            kind,
            kind_shown,
            clause: b.clause.as_ref().map(|c| match c.operator.as_deref() {
                Some("||") => CLAUSE_OR,
                Some(_) => CLAUSE_AND,
                None => CLAUSE_WHOLE,
            }),
            executions,
            divergent,
            figures,
            wasted: b
                .wasted_lane_slots
                .map_or_else(|| "—".to_owned(), format_grouped),
            inherited: b
                .inherited_reason(branches)
                .map(|why| format!("It never diverged: {why}. They are not its own cost.")),
            taken: b
                .taken_percents()
                .map_or_else(String::new, |(t, not)| format!("{t} / {not}")),
            taken_phrase: b.taken_phrase(),
            cost: b.cost.as_ref().map(|c| (c.short(), c.details().join("\n"))),
        }
    }
}

/// The most characters of a clause the kind column shows.
const CLAUSE_CHARS: usize = 28;

/// What an `if` naga made of a `&&` tests.
const CLAUSE_AND: &str = "naga makes an if of each && of a condition, on the condition's line: \
     this one's then side is the lanes for which every clause up to the one named held (they go \
     on to the next clause)";
/// What an `if` naga made of a `||` tests.
const CLAUSE_OR: &str = "naga makes an if of each || of a condition, on the condition's line: \
     this one's then side is the lanes for which every clause up to the one named failed (they \
     go on to the next clause)";
/// What the `if` of a whole chain tests.
const CLAUSE_WHOLE: &str = "the if whose condition is the whole chain, which ends at the clause \
     named; the rows before it on this line test the chain up to its earlier clauses";

fn branch_grid(ui: &mut egui::Ui, rows: &[BranchRow], jump: &mut Option<u32>) {
    let costed = rows.iter().any(|r| r.cost.is_some());
    egui::Grid::new("branch_table")
        .striped(true)
        .num_columns(6 + usize::from(costed))
        .show(ui, |ui| {
            for (heading, about) in [
                ("line", "Click a line number to bring it into view"),
                ("kind", "if, switch or loop"),
            ] {
                ui.strong(heading).on_hover_text(about);
            }
            // With --cost the rows rank by the time saved: its column comes first.
            if costed {
                ui.strong("cost here").on_hover_text(
                    "Measure cost (--cost): the time the kernel saves on this adapter when the \
                     branch's subgroups follow their first active lane (a `&&`/`||` clause's: \
                     when every lane evaluates the next clause), and the verdict; hover \
                     a cell for the interval, the cost model's prediction and the reason",
                );
            }
            for (heading, about) in [
                (
                    "executions",
                    "Subgroup executions that evaluated the branch; for a loop, its trips \
                     (subgroup executions of its body)",
                ),
                (
                    "divergent",
                    "Executions in which the subgroup's lanes disagreed; for a loop, the tests \
                     at which some lanes left while others went on (a loop that lanes leave by \
                     a break has no such count: its exit if has it)",
                ),
                (
                    "wasted lane slots",
                    "Lane slots the subgroups paid for inside it but left idle: Σ (executions × \
                     subgroup size − active lanes) over the blocks it opens; for a loop, the \
                     slots of lanes not in the loop. Greyed where the branch never diverged: the \
                     lanes were idle before it reached it (hover for whose cost they are)",
                ),
                (
                    "taken / not",
                    "An if: the share of the lanes that reached it that took its then side, \
                     and the share that took the other (its else, written or not)",
                ),
            ] {
                ui.strong(heading).on_hover_text(about);
            }
            ui.end_row();
            for row in rows {
                if ui
                    .link(format!("{}", row.line))
                    .on_hover_text("Show this line")
                    .clicked()
                {
                    *jump = Some(row.line);
                }
                let kind = ui.label(&row.kind_shown);
                match (row.clause, row.kind_shown != row.kind) {
                    (Some(about), true) => kind.on_hover_text(format!("{}\n\n{about}", row.kind)),
                    (Some(about), false) => kind.on_hover_text(about),
                    (None, _) => kind,
                };
                if let Some((short, details)) = &row.cost {
                    ui.label(short).on_hover_text(details);
                } else if costed {
                    ui.label("");
                }
                let figures = |response: egui::Response| match &row.figures {
                    Some(figures) => response.on_hover_text(figures),
                    None => response,
                };
                figures(ui.label(&row.executions));
                figures(ui.label(&row.divergent));
                if let Some(why) = &row.inherited {
                    ui.weak(&row.wasted).on_hover_text(why);
                } else {
                    ui.label(&row.wasted);
                }
                let taken = ui.label(&row.taken);
                if let Some(phrase) = &row.taken_phrase {
                    taken.on_hover_text(phrase);
                }
                ui.end_row();
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::profile_view::fixture;

    #[test]
    fn branches_rank_by_wasted_slots_then_line_leaving_out_those_that_never_ran() {
        let mut profile = fixture::profile();
        let mut idle = profile.branches[0].clone();
        (idle.line, idle.executions, idle.wasted_lane_slots) = (2, 0, Some(0));
        let mut worst = profile.branches[0].clone();
        (worst.line, worst.wasted_lane_slots) = (9, Some(40));
        profile.branches.extend([idle, worst]);
        let (branches, never) = ranked(&profile);
        let lines: Vec<u32> = branches.iter().map(|b| b.line).collect();
        assert_eq!(lines, [9, 4, 7], "40 slots, then 16 and 16 by line");
        assert_eq!(never, 1);
        assert_eq!(
            never_ran(1).as_deref(),
            Some("1 branch never ran: not listed.")
        );
        assert_eq!(
            never_ran(3).as_deref(),
            Some("3 branches never ran: not listed.")
        );
        assert_eq!(never_ran(0), None);
    }

    /// A branch that never diverged ranks by its wasted slots like any other (they are the
    /// cost of the branch or loop around it, which does not count them), and its row says whose
    /// they are.
    #[test]
    fn a_branch_that_never_diverged_is_marked() {
        let mut profile = fixture::profile();
        let mut inside = profile.branches[0].clone();
        (inside.line, inside.divergent, inside.wasted_lane_slots) = (5, 0, Some(64));
        inside.divergent_fraction = Some(0.0);
        profile.branches.push(inside);
        let (branches, _) = ranked(&profile);
        let lines: Vec<u32> = branches.iter().map(|b| b.line).collect();
        assert_eq!(lines, [5, 4, 7], "64 idle slots, none of its own");
        let row = |b| BranchRow::of(b, &profile.branches, profile.subgroup_size);
        // A document from before `inherited_from` says what it knew.
        assert_eq!(
            row(branches[0]).inherited.as_deref(),
            Some(
                "It never diverged: a branch or loop around it, or an earlier return, left those \
                 lanes out. They are not its own cost."
            )
        );
        let mut before = branches[0].clone();
        before.inherited_from = Some(0);
        assert_eq!(
            row(&before).inherited.as_deref(),
            Some(
                "It never diverged: its lanes were idle before it (an earlier return or break, a \
                 branch in a caller, or a partial subgroup). They are not its own cost."
            )
        );
        assert_eq!(row(branches[1]).inherited, None);
        // Inside the `if` of line 4, which diverged, it names it.
        profile.branches[2].inherited_from = Some(4);
        let inside = &profile.branches[2];
        let reason = BranchRow::of(inside, &profile.branches, profile.subgroup_size).inherited;
        assert_eq!(
            reason.as_deref(),
            Some(
                "It never diverged: its idle slots are lanes the if at line 4 around it left \
                 out. They are not its own cost."
            )
        );
    }

    /// With `--cost`, the branch that saves the most comes first, and its row gives the
    /// verdict and the saving, with every figure on hover; a confounded saving does not rank.
    #[test]
    fn with_costs_branches_rank_by_time_saved_and_show_the_verdict() {
        use crate::profile::report::BranchCost;
        let mut profile = fixture::profile();
        let measured = |verdict, saved: f64| BranchCost {
            verdict,
            saved_ns: Some(saved),
            saved_fraction: Some(saved / 1000.0),
            interval_ns: Some([saved * 0.9, saved * 1.1]),
            predicted_ns: Some(saved),
            predicted_interval_ns: None,
            variant_reps: 9,
            outside_change: Some(0.0),
            repeat_change: Some(0.0),
            ..BranchCost::unmeasured(
                verdict,
                None,
                "the saving's 95% interval lies above zero".to_owned(),
            )
        };
        let mut confounded = profile.branches[0].clone();
        (confounded.line, confounded.wasted_lane_slots) = (9, Some(40));
        confounded.cost = Some(measured(CostVerdict::Confounded, 900.0));
        profile.branches[1].cost = Some(measured(CostVerdict::Serialized, 250.0));
        profile.branches.push(confounded);
        let (branches, _) = ranked(&profile);
        let lines: Vec<u32> = branches.iter().map(|b| b.line).collect();
        assert_eq!(lines, [7, 9, 4], "the saving first, then the wasted slots");
        let row = BranchRow::of(branches[0], &profile.branches, profile.subgroup_size);
        let (short, details) = row.cost.unwrap();
        assert_eq!(short, "serialized: saves 250 ns (25%)");
        assert!(
            details.contains("95% interval 225 ns to 275 ns"),
            "{details}"
        );
        assert!(
            details.contains("the cost model predicts 250 ns"),
            "{details}"
        );
        assert_eq!(
            BranchRow::of(branches[2], &profile.branches, None).cost,
            None
        );
    }

    #[test]
    fn a_branch_row_gives_its_divergent_share_and_a_loop_row_its_trips() {
        let profile = fixture::profile();
        let row = BranchRow::of(
            &profile.branches[0],
            &profile.branches,
            profile.subgroup_size,
        );
        assert_eq!(
            row,
            BranchRow {
                line: 4,
                kind: "if".to_owned(),
                kind_shown: "if".to_owned(),
                clause: None,
                executions: "4".to_owned(),
                divergent: "100% (4)".to_owned(),
                figures: None,
                wasted: "16".to_owned(),
                inherited: None,
                taken: String::new(),
                taken_phrase: None,
                cost: None,
            }
        );
        let row = BranchRow::of(
            &profile.branches[1],
            &profile.branches,
            profile.subgroup_size,
        );
        assert_eq!(row.executions, "8 trips");
        assert_eq!(row.divergent, "lanes left on 2 tests");
        let mut by_break = profile.branches[1].clone();
        by_break.divergent_fraction = None;
        let row_by_break = BranchRow::of(&by_break, &profile.branches, profile.subgroup_size);
        assert_eq!(row_by_break.divergent, "lanes leave by a break");
        by_break.left_early = Some(false);
        let together = BranchRow::of(&by_break, &profile.branches, profile.subgroup_size);
        assert_eq!(together.divergent, "lanes left together");
        by_break.left_early = Some(true);
        let early = BranchRow::of(&by_break, &profile.branches, profile.subgroup_size);
        assert_eq!(early.divergent, "lanes left early by a break or return");
        let mut tested = profile.branches[1].clone();
        tested.left_early = Some(true);
        let tested = BranchRow::of(&tested, &profile.branches, profile.subgroup_size);
        assert_eq!(
            tested.divergent,
            "lanes left on 2 tests and by a break or return"
        );
        // Every lane that left early left by the break: "on 0 tests" said nothing.
        let mut untested = profile.branches[1].clone();
        (untested.left_early, untested.divergent) = (Some(true), 0);
        let untested = BranchRow::of(&untested, &profile.branches, profile.subgroup_size);
        assert_eq!(
            untested.divergent,
            "lanes left early by a break or return, at no test"
        );
        assert_eq!(
            row.figures.as_deref(),
            Some(
                "8 trips, 48 of 64 lane slots ran (75%), 16 left idle by lanes not in the \
                 loop, lanes left on 2 of 8 tests"
            )
        );
        let mut unmeasured = profile.branches[0].clone();
        unmeasured.divergent_fraction = None;
        unmeasured.wasted_lane_slots = None;
        // Counted without subgroups (no subgroup size): nothing voted, nothing diverged.
        let row = BranchRow::of(&unmeasured, &profile.branches, None);
        assert_eq!((row.divergent.as_str(), row.wasted.as_str()), ("—", "—"));
        let mut invocations_loop = profile.branches[1].clone();
        (
            invocations_loop.divergent_fraction,
            invocations_loop.left_early,
        ) = (None, None);
        let row = BranchRow::of(&invocations_loop, &profile.branches, None);
        assert_eq!(
            (row.executions.as_str(), row.divergent.as_str()),
            ("8 trips", "—")
        );
        let mut sides = profile.branches[0].clone();
        (sides.taken, sides.not_taken) = (Some(12), Some(20));
        assert_eq!(
            BranchRow::of(&sides, &profile.branches, Some(8)).taken,
            "38% / 62%"
        );
        (sides.taken, sides.not_taken) = (Some(2), Some(510));
        assert_eq!(
            BranchRow::of(&sides, &profile.branches, Some(8)).taken,
            "<1% / >99%"
        );
        sides.clause = Some(crate::profile::report::Clause {
            text: "x > 0u".to_owned(),
            line: 5,
            column: 9,
            operator: Some("&&".to_owned()),
        });
        let row = BranchRow::of(&sides, &profile.branches, Some(8));
        assert_eq!(row.kind, "if `x > 0u` && (line 5, col 9)");
        assert_eq!(row.kind_shown, row.kind);
        // A long clause is cut short in the table, whole on hover.
        let long = "ray_dist < closest.dist && plane_dist > 0.0";
        sides.clause.as_mut().unwrap().text = long.to_owned();
        let row = BranchRow::of(&sides, &profile.branches, Some(8));
        assert_eq!(row.kind, format!("if `{long}` && (line 5, col 9)"));
        assert_eq!(
            row.kind_shown,
            "if `ray_dist < closest.dist && …` && (line 5, col 9)"
        );
        assert_eq!(row.clause, Some(CLAUSE_AND));
        assert_eq!(
            row.taken_phrase.as_deref(),
            Some("the chain up to it held for <1% of lanes, which go on to the next clause")
        );
    }
}
