//! `divlab compare --fail-on LEVEL [--threshold P%]`: which differences between result files
//! fail a CI gate. Timing verdicts on a busy machine move between `consistent` and
//! `inconclusive` from run to run, so a gate that counted every difference would be turned off;
//! this one counts only the kinds of change its level names, and never a move to or from
//! `inconclusive` (docs/compare.md).

use std::fmt;

use crate::report::{
    Catalog, Comparison, ExperimentResult, ExperimentStatus, Figure, ResultDocument, VerdictStatus,
};

/// Which changes fail the gate (`--fail-on LEVEL`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    /// A guarantee changed: a verdict moved to or from `held` or `violated`.
    Guarantee,
    /// Also a model's claim changed: `consistent` ↔ `inconsistent`.
    Model,
    /// Any verdict status changed.
    Any,
}

impl FailOn {
    /// Every level, from the most tolerant.
    pub const ALL: [FailOn; 3] = [FailOn::Guarantee, FailOn::Model, FailOn::Any];

    /// The level's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            FailOn::Guarantee => "guarantee",
            FailOn::Model => "model",
            FailOn::Any => "any",
        }
    }

    /// Whether a verdict that is `from` in one file and `to` in another is a change at this
    /// level. `inconclusive` on either side never is: the measurement decided nothing.
    pub fn counts(self, from: VerdictStatus, to: VerdictStatus) -> bool {
        use VerdictStatus::{Consistent, Held, Inconclusive, Inconsistent, Violated};
        if from == to || from == Inconclusive || to == Inconclusive {
            return false;
        }
        let touches = |set: &[VerdictStatus]| set.contains(&from) || set.contains(&to);
        match self {
            FailOn::Guarantee => touches(&[Held, Violated]),
            FailOn::Model => touches(&[Held, Violated, Consistent, Inconsistent]),
            FailOn::Any => true,
        }
    }
}

/// Parses `--threshold`: a percentage above zero, `10%` (the `%` may be left out), as a
/// fraction (0.1).
pub fn parse_threshold(s: &str) -> Result<f64, String> {
    let bad = || {
        format!(
            "`{s}` is not a threshold: give a percentage above zero, such as `10%`, by which a \
             key figure may move before it counts as a change"
        )
    };
    let number = s.trim().strip_suffix('%').unwrap_or(s.trim());
    let percent: f64 = number.trim().parse().map_err(|_| bad())?;
    if !percent.is_finite() || percent <= 0.0 {
        return Err(bad());
    }
    Ok(percent / 100.0)
}

/// One difference that fails the gate.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// The experiment id.
    pub experiment: String,
    /// What changed: a verdict's key (its wording in files before keys), a key figure's metric,
    /// or `status`.
    pub key: String,
    /// The file it changed in.
    pub file: String,
    /// The file it is held against (the baseline, or the earlier file).
    pub against: String,
    /// The change in words: `held → violated`, `ok → error`, `+14.2% (8.00 → 9.14)`.
    pub what: String,
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}.{}: {} ({} against {})",
            self.experiment, self.key, self.what, self.file, self.against
        )
    }
}

/// The gate's settings.
#[derive(Clone, Copy, Debug)]
pub struct Gate {
    /// Which verdict changes count.
    pub level: FailOn,
    /// A key figure that moves by more than this fraction counts as a change; `None`: figures
    /// never count.
    pub threshold: Option<f64>,
    /// Whether file 0 is the baseline: every other file is held against it. Otherwise every
    /// pair of files is.
    pub baseline: bool,
}

/// What the gate found between result files.
#[derive(Clone, Debug, Default)]
pub struct GateReport {
    /// The changes that fail it.
    pub changes: Vec<Change>,
    /// Key figures that moved past the threshold but inside both files' 95% intervals: noise,
    /// not counted, listed so that a reader sees what the gate let pass.
    pub within_noise: Vec<Change>,
}

impl Gate {
    /// Checks `docs` (as `cmp` matched them): every change that fails the gate, an experiment
    /// whose status changed, a verdict change this level counts, and, with a threshold, a key
    /// figure (as `catalog` declares them) that moved by more than it beyond noise. A check or
    /// experiment that one of two files lacks is not a change.
    pub fn check(
        &self,
        docs: &[(String, ResultDocument)],
        cmp: &Comparison,
        catalog: &Catalog,
    ) -> GateReport {
        let pairs: Vec<(usize, usize)> = (0..docs.len())
            .flat_map(|j| (0..j).map(move |i| (i, j)))
            .filter(|&(i, _)| !self.baseline || i == 0)
            .collect();
        let mut out = GateReport::default();
        let change = |experiment: &str, key: &str, (i, j): (usize, usize), what: String| Change {
            experiment: experiment.to_owned(),
            key: key.to_owned(),
            file: docs[j].0.clone(),
            against: docs[i].0.clone(),
            what,
        };
        for table in &cmp.experiments {
            let found: Vec<_> = (docs.iter())
                .map(|(_, d)| d.experiments.iter().find(|e| e.id == table.id))
                .collect();
            for &(i, j) in &pairs {
                let (Some(a), Some(b)) = (found[i], found[j]) else {
                    continue;
                };
                if a.status != b.status {
                    let what = format!("{} → {}", a.status.as_str(), b.status.as_str());
                    out.changes.push(change(&table.id, "status", (i, j), what));
                }
                if a.status != ExperimentStatus::Ok || b.status != ExperimentStatus::Ok {
                    continue;
                }
                for v in &table.verdicts {
                    if let (Some(from), Some(to)) = (v.statuses[i], v.statuses[j])
                        && self.level.counts(from, to)
                    {
                        let what = format!("{} → {}", from.as_str(), to.as_str());
                        out.changes.push(change(&table.id, v.id(), (i, j), what));
                    }
                }
                let Some(threshold) = self.threshold else {
                    continue;
                };
                for figure in catalog.figures(&table.id).iter().filter(|f| !f.noise) {
                    let (list, what) = match moved(figure, a, b, threshold) {
                        Some(Move::Past(what)) => (&mut out.changes, what),
                        Some(Move::WithinNoise(what)) => (&mut out.within_noise, what),
                        None => continue,
                    };
                    list.push(change(&table.id, figure.key, (i, j), what));
                }
            }
        }
        out
    }
}

/// How a key figure moved past the threshold, in words: `+14.2% (8.00 → 9.14)`.
#[derive(Clone, Debug, PartialEq)]
enum Move {
    /// Beyond noise: a change.
    Past(String),
    /// Inside both files' 95% intervals, which overlap: noise (criterion, likewise, counts a
    /// change past its noise threshold only where it is significant).
    WithinNoise(String),
}

/// Whether `figure` lies more than `threshold` (a fraction of its value in `from`) away in
/// `to`. Not where the two show the same number at the tables' precision; a figure that was 0
/// has moved by any amount that shows.
fn moved(
    figure: &Figure,
    from: &ExperimentResult,
    to: &ExperimentResult,
    threshold: f64,
) -> Option<Move> {
    let (key, decimals) = (figure.key, figure.decimals);
    let (&x, &y) = (from.metrics.get(key)?, to.metrics.get(key)?);
    let scale = 10f64.powi(decimals as i32);
    if (x * scale).round() == (y * scale).round() {
        return None;
    }
    let relative = if x == 0.0 {
        f64::INFINITY
    } else {
        (y - x) / x.abs()
    };
    if relative.abs() <= threshold {
        return None;
    }
    let percent = if relative.is_finite() {
        format!("{:+.1}%", relative * 100.0)
    } else {
        "from 0".to_owned()
    };
    let what = format!("{percent} ({x:.decimals$} → {y:.decimals$})");
    let overlap = match (from.interval(key), to.interval(key)) {
        (Some((low_x, high_x)), Some((low_y, high_y))) => low_x <= high_y && low_y <= high_x,
        _ => false,
    };
    Some(if overlap {
        Move::WithinNoise(what)
    } else {
        Move::Past(what)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use VerdictStatus::*;

    #[test]
    fn inconclusive_never_counts_and_levels_nest() {
        let all = VerdictStatus::ALL;
        for level in FailOn::ALL {
            for s in all {
                assert!(!level.counts(s, Inconclusive) && !level.counts(Inconclusive, s));
                assert!(!level.counts(s, s));
            }
        }
        assert!(FailOn::Guarantee.counts(Held, Violated));
        assert!(!FailOn::Guarantee.counts(Consistent, Inconsistent));
        assert!(FailOn::Model.counts(Consistent, Inconsistent));
        assert!(FailOn::Any.counts(NotGuaranteed, Consistent));
        // Every change a level counts, the levels above it count too.
        for (from, to) in all.iter().flat_map(|a| all.iter().map(move |b| (*a, *b))) {
            if FailOn::Guarantee.counts(from, to) {
                assert!(FailOn::Model.counts(from, to));
            }
            if FailOn::Model.counts(from, to) {
                assert!(FailOn::Any.counts(from, to));
            }
        }
    }

    #[test]
    fn thresholds_parse_as_percentages() {
        assert_eq!(parse_threshold("10%"), Ok(0.1));
        assert_eq!(parse_threshold(" 2.5 % "), Ok(0.025));
        assert_eq!(parse_threshold("10"), Ok(0.1));
        for bad in ["", "%", "-5%", "0%", "ten", "NaN%", "inf"] {
            assert!(parse_threshold(bad).is_err(), "{bad}");
        }
    }

    /// A result with `key` at `value`, and its 95% interval where given.
    fn result(key: &str, value: f64, interval: Option<(f64, f64)>) -> ExperimentResult {
        let rule = crate::report::Rule {
            text: String::new(),
            source: String::new(),
        };
        let mut r = ExperimentResult::new("t", "t", rule);
        r.metric(key, value);
        if let Some((low, high)) = interval {
            r.metric(&format!("{key}_ci_low"), low);
            r.metric(&format!("{key}_ci_high"), high);
        }
        r
    }

    #[test]
    fn a_figure_moves_only_past_the_threshold_and_beyond_noise() {
        let f = Figure::new("f", "f", 2, None);
        let moved = |x: f64, y: f64, intervals: Option<((f64, f64), (f64, f64))>| {
            let (a, b) = (intervals.map(|i| i.0), intervals.map(|i| i.1));
            match moved(&f, &result("f", x, a), &result("f", y, b), 0.1) {
                Some(Move::Past(what)) => Some(what),
                Some(Move::WithinNoise(what)) => Some(format!("noise {what}")),
                None => None,
            }
        };
        assert_eq!(moved(8.0, 8.5, None), None);
        assert_eq!(
            moved(8.0, 9.0, None).as_deref(),
            Some("+12.5% (8.00 → 9.00)")
        );
        assert_eq!(
            moved(-2.0, -1.0, None).as_deref(),
            Some("+50.0% (-2.00 → -1.00)")
        );
        assert_eq!(
            moved(0.0, 1.0, None).as_deref(),
            Some("from 0 (0.00 → 1.00)")
        );
        // The same number at the tables' precision: 0.00 → 0.00 is no move.
        assert_eq!(moved(0.0, 0.0004, None), None);
        assert_eq!(moved(0.001, 0.004, None), None);
        // Past the threshold but inside each other's 95% interval: noise.
        let overlapping = ((7.0, 9.0), (8.5, 10.0));
        assert_eq!(
            moved(8.0, 9.5, Some(overlapping)).as_deref(),
            Some("noise +18.8% (8.00 → 9.50)")
        );
        // Within the threshold, overlapping or not: no move at all.
        assert_eq!(moved(8.0, 8.5, Some(overlapping)), None);
        let apart = ((7.8, 8.2), (9.3, 9.7));
        assert_eq!(
            moved(8.0, 9.5, Some(apart)).as_deref(),
            Some("+18.8% (8.00 → 9.50)")
        );
        // One interval alone decides nothing.
        let key = "f";
        let (a, b) = (result(key, 8.0, Some((7.0, 9.0))), result(key, 9.5, None));
        assert!(matches!(super::moved(&f, &a, &b, 0.1), Some(Move::Past(_))));
    }
}
