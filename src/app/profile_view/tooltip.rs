//! What hovering a line of the annotated source says: every figure the run counted there, the
//! static verdict and its reason, and where the two disagree (the gutter's diamond mark).

use eframe::egui::{self, Color32, RichText};

use crate::profile::report::{BranchProfile, LineProfile};
use crate::report::units::format_grouped;
use crate::uniformity::{Analysis, Verdict};

/// The colour of a disagreement mark.
pub const MISMATCH: Color32 = Color32::from_rgb(230, 150, 30);

/// How a line's static verdict and what the run saw disagree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// Statically non-uniform, but every execution had every lane: on this input it never
    /// diverged (a hint that the code could prove uniformity).
    NonUniformNeverDiverged,
    /// Statically uniform, but executions ran with idle lanes (or its branch diverged).
    UniformButDiverged,
}

impl Mismatch {
    /// Of a line.
    pub fn of(line: &LineProfile, branch: Option<&BranchProfile>) -> Option<Self> {
        let full = line.efficiency.is_some_and(|e| e >= 1.0 - 1e-9);
        let idle = line.efficiency.is_some_and(|e| e < 1.0 - 1e-9);
        match line.static_verdict.as_deref() {
            Some("non-uniform") if full && branch.is_none_or(|b| b.divergent == 0) => {
                Some(Self::NonUniformNeverDiverged)
            }
            Some("uniform") if idle => Some(Self::UniformButDiverged),
            _ => None,
        }
    }

    /// What the mark says on hover.
    pub fn explain(self) -> &'static str {
        match self {
            Self::NonUniformNeverDiverged => {
                "statically non-uniform, but it never ran with idle lanes on this input: what \
                 it depends on agreed within every subgroup this run (an input that fits the \
                 dispatch exactly, or values that differ only between subgroups); another input \
                 may split it"
            }
            Self::UniformButDiverged => {
                "statically uniform, yet it ran with idle lanes: lanes left earlier (or a partial \
                 subgroup at the dispatch's edge)"
            }
        }
    }
}

/// A line of the source and what the run counted there.
#[derive(Clone, Copy, Debug)]
pub struct Counted<'a> {
    /// The 1-based line number.
    pub n: u32,
    /// The line's figures, where the run counted it.
    pub line: Option<&'a LineProfile>,
    /// The branch or loop on the line (the last, where it has several).
    pub branch: Option<&'a BranchProfile>,
    /// Every branch and loop on the line, in the profile's order.
    pub branches: &'a [BranchProfile],
    /// Whether a loop here hit the loop cap.
    pub cap: bool,
    /// The profile's subgroup size.
    pub subgroup_size: Option<u32>,
}

impl Counted<'_> {
    /// Where the static verdict and the run disagree on this line.
    pub fn mismatch(&self) -> Option<Mismatch> {
        self.line.and_then(|l| Mismatch::of(l, self.branch))
    }

    /// Every figure of the line, the static verdict and why, and any disagreement.
    pub fn tips(&self, analysis: Option<&Analysis>) -> Vec<Tip> {
        let Self {
            n, line, branch, ..
        } = *self;
        let mut tips = vec![Tip::Heading(format!(
            "line {n} (click: record which lanes run it)"
        ))];
        if self.cap {
            tips.push(Tip::Text(
                "A loop here hit the loop cap: the counts are of the cut-short run.".to_owned(),
            ));
        }
        if let Some(l) = line {
            tips.push(Tip::Text(format!(
                "executions: {}",
                format_grouped(l.executions)
            )));
            if let (Some(lanes), true) = (l.active_lanes, l.executions > 0) {
                tips.push(Tip::Text(format!(
                    "mean active lanes: {:.2}",
                    lanes as f64 / l.executions as f64
                )));
            }
            if let Some(e) = l.efficiency {
                tips.push(Tip::Text(format!("efficiency: {:.1}%", e * 100.0)));
            }
        }
        // The `if`s naga makes of a `&&`/`||` chain, each named by its clause.
        for b in self.branches.iter().filter(|b| b.clause.is_some()) {
            let taken = b
                .taken_phrase()
                .map_or_else(String::new, |t| format!("{t}, "));
            tips.push(Tip::Text(format!(
                "{}: {taken}divergent in {} of {} executions",
                b.kind_label(),
                format_grouped(b.divergent),
                format_grouped(b.executions)
            )));
        }
        if let Some(figures) = branch.and_then(|b| b.loop_figures(self.subgroup_size)) {
            tips.push(Tip::Text(format!(
                "the line's own figures are of the loop's entries; its trips: {figures}"
            )));
        } else if let Some(b) = branch.filter(|b| b.clause.is_none()) {
            tips.push(Tip::Text(format!(
                "{}: divergent in {} of {} executions{}",
                b.kind,
                format_grouped(b.divergent),
                format_grouped(b.executions),
                b.wasted_lane_slots.map_or_else(String::new, |w| {
                    format!(", {} lane slots idle inside it", format_grouped(w))
                })
            )));
        }
        if let Some(cost) = branch.and_then(|b| b.cost.as_ref()) {
            tips.push(Tip::Text(format!("cost here: {}", cost.short())));
            tips.extend(cost.details().into_iter().map(Tip::Weak));
        }
        if let Some(v) = analysis.and_then(|a| a.line(n)) {
            let verdict = match v.subgroup {
                Verdict::Uniform => "uniform",
                Verdict::NonUniform => "non-uniform",
                Verdict::NotExecuted => "not executed",
            };
            tips.push(Tip::Text(format!(
                "static verdict (subgroup scope): {verdict}"
            )));
            if let Some(reason) = v.subgroup_reason.as_deref().or(v.reason.as_deref()) {
                tips.push(Tip::Weak(reason.to_owned()));
            }
        }
        if let Some(m) = self.mismatch() {
            tips.push(Tip::Mismatch(m));
        }
        tips
    }
}

/// One line of a tooltip, and how it is drawn.
#[derive(Clone, Debug, PartialEq)]
pub enum Tip {
    /// The tooltip's first line, in bold.
    Heading(String),
    /// A figure.
    Text(String),
    /// A reason, dimmed.
    Weak(String),
    /// Where the static verdict and the run disagree, in the mark's colour.
    Mismatch(Mismatch),
}

/// The tooltip's lines, one under another.
pub fn show_tips(ui: &mut egui::Ui, tips: &[Tip]) {
    for tip in tips {
        match tip {
            Tip::Heading(text) => ui.strong(text),
            Tip::Text(text) => ui.label(text),
            Tip::Weak(text) => ui.weak(text),
            Tip::Mismatch(m) => ui.label(RichText::new(m.explain()).color(MISMATCH)),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::profile_view::fixture;
    use crate::profile::report::Profile;

    /// Line `n` of the profile.
    fn at(profile: &Profile, n: u32) -> Counted<'_> {
        Counted {
            n,
            line: profile.lines.iter().find(|l| l.line == n),
            branch: profile.branches.iter().find(|b| b.line == n),
            branches: &[],
            cap: profile.loop_cap_line == Some(n),
            subgroup_size: profile.subgroup_size,
        }
    }

    #[test]
    fn a_mark_where_the_static_verdict_and_the_run_disagree() {
        let profile = fixture::profile();
        // Line 3: statically uniform, ran with idle lanes.
        assert_eq!(
            at(&profile, 3).mismatch(),
            Some(Mismatch::UniformButDiverged)
        );
        // Line 10: statically non-uniform, every lane every time, no branch.
        assert_eq!(
            at(&profile, 10).mismatch(),
            Some(Mismatch::NonUniformNeverDiverged)
        );
        // Line 4: non-uniform and its branch diverged; line 5: non-uniform with idle lanes.
        assert_eq!(at(&profile, 4).mismatch(), None);
        assert_eq!(at(&profile, 5).mismatch(), None);
    }

    #[test]
    fn the_tooltip_lists_every_figure_and_the_disagreement() {
        let mut profile = fixture::profile();
        assert_eq!(
            at(&profile, 4).tips(None),
            [
                Tip::Heading("line 4 (click: record which lanes run it)".to_owned()),
                Tip::Text("executions: 4".to_owned()),
                Tip::Text("mean active lanes: 8.00".to_owned()),
                Tip::Text("efficiency: 100.0%".to_owned()),
                Tip::Text(
                    "if: divergent in 4 of 4 executions, 16 lane slots idle inside it".to_owned()
                ),
            ]
        );
        let tips = at(&profile, 3).tips(None);
        assert_eq!(
            tips.last(),
            Some(&Tip::Mismatch(Mismatch::UniformButDiverged))
        );
        profile.loop_cap_line = Some(7);
        let tips = at(&profile, 7).tips(None);
        assert_eq!(
            tips[1],
            Tip::Text("A loop here hit the loop cap: the counts are of the cut-short run.".into())
        );
        assert_eq!(
            tips[5],
            Tip::Text(
                "the line's own figures are of the loop's entries; its trips: 8 trips, 48 of 64 \
                 lane slots ran (75%), 16 left idle by lanes not in the loop, lanes left \
                 on 2 of 8 tests"
                    .to_owned()
            )
        );
    }

    #[test]
    fn the_tooltip_names_each_clause_of_a_chain_on_the_line() {
        let profile = fixture::profile();
        let mut rows = vec![profile.branches[0].clone(), profile.branches[0].clone()];
        for (row, (text, operator)) in rows.iter_mut().zip([("a", Some("&&")), ("b", None)]) {
            row.clause = Some(crate::profile::report::Clause {
                text: text.to_owned(),
                line: row.line,
                column: if text == "a" { 9 } else { 14 },
                operator: operator.map(str::to_owned),
            });
            (row.taken, row.not_taken) = (Some(8), Some(24));
        }
        let mut counted = at(&profile, 4);
        counted.branches = &rows;
        counted.branch = rows.last();
        let tips = counted.tips(None);
        let clauses: Vec<&Tip> = tips
            .iter()
            .filter(|t| matches!(t, Tip::Text(s) if s.starts_with("if `")))
            .collect();
        assert_eq!(
            clauses,
            [
                &Tip::Text(
                    "if `a` && (col 9): the chain up to it held for 25% of lanes, which go on to \
                     the next clause, divergent in 4 of 4 executions"
                        .into()
                ),
                &Tip::Text(
                    "if `b`, the whole condition (col 14): held for 25% of lanes, divergent in 4 \
                     of 4 executions"
                        .into()
                ),
            ]
        );
        assert!(
            !tips
                .iter()
                .any(|t| matches!(t, Tip::Text(s) if s.starts_with("if: "))),
            "the chain's rows stand for the plain branch line: {tips:?}"
        );
    }

    #[test]
    fn the_tooltip_gives_the_static_verdict_and_its_reason() {
        let profile = fixture::profile();
        let analysis = crate::uniformity::analyze_source("k.wgsl", fixture::SOURCE)
            .expect("the fixture's source analyses");
        let tips = at(&profile, 5).tips(Some(&analysis));
        assert!(
            tips.contains(&Tip::Text(
                "static verdict (subgroup scope): non-uniform".to_owned()
            )),
            "{tips:?}"
        );
        assert!(tips.iter().any(|t| matches!(t, Tip::Weak(_))), "{tips:?}");
    }
}
