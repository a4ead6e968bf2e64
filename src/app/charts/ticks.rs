//! Axis marks and the numbers written on them.

use egui_plot::{GridInput, GridMark};

/// A number for a tick or a tooltip: integers as integers, else three significant digits.
pub fn short(v: f64) -> String {
    // 10^log10(5) is 4.999...: a value within rounding of an integer is that integer.
    let nearest = v.round();
    if (v - nearest).abs() <= 1e-9 * nearest.abs().max(1.0) && v.abs() < 1e7 {
        format!("{nearest:.0}")
    } else if v != 0.0 && (v.abs() >= 1e7 || v.abs() < 1e-3) {
        format!("{v:.2e}")
    } else {
        let decimals = (2 - v.abs().log10().floor() as i32).clamp(0, 6) as usize;
        let text = format!("{v:.decimals$}");
        if text.contains('.') {
            text.trim_end_matches('0').trim_end_matches('.').to_owned()
        } else {
            text
        }
    }
}

/// Grid marks at integers only, spaced 1, 2, 4, 5, 8, 10, 16, ... apart so that about a dozen
/// fit: k = 1..16 gets a label per value, k = 1..64 one every 4 or 8.
pub fn integer_marks(input: GridInput) -> Vec<GridMark> {
    let (lo, hi) = input.bounds;
    let span = (hi - lo).max(1.0);
    // egui_plot labels a mark only where marks stand 60 points apart or more, and it makes
    // `base_step_size` span 8 points (its default grid spacing): so a labelled step spans at
    // least 64 / 8 base steps. A narrow plot (1024 × 700) then gets fewer marks, all labelled.
    let labelled = input.base_step_size * 64.0 / 8.0;
    let step = [
        1.0, 2.0, 4.0, 5.0, 8.0, 10.0, 16.0, 20.0, 32.0, 50.0, 64.0, 100.0,
    ]
    .into_iter()
    .find(|s| span / s <= 16.0 && *s >= labelled)
    .unwrap_or_else(|| 10f64.powf((span / 16.0).max(labelled).log10().ceil()));
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last)
        .map(|i| GridMark {
            value: i as f64 * step,
            step_size: step,
        })
        .collect()
}

/// At most seven marks at 1, 2 or 5 times a power of ten, with finer unlabelled ones between.
pub fn nice_marks(input: GridInput) -> Vec<GridMark> {
    let (lo, hi) = input.bounds;
    let span = (hi - lo).abs().max(f64::MIN_POSITIVE);
    let power = 10f64.powf((span / 10.0).log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0, 20.0, 50.0]
        .into_iter()
        .map(|m| m * power)
        .find(|s| span / s <= 7.0)
        .unwrap_or(100.0 * power);
    let marks = |step: f64| {
        ((lo / step).ceil() as i64..=(hi / step).floor() as i64).map(move |i| GridMark {
            value: i as f64 * step,
            step_size: step,
        })
    };
    marks(step / 5.0)
        .filter(|m| (m.value / step).fract().abs() > 1e-9)
        .chain(marks(step))
        .collect()
}

/// Marks on a log10 axis: every decade, and 2 and 5 times it where few decades show.
pub fn decade_marks(input: GridInput) -> Vec<GridMark> {
    let (lo, hi) = input.bounds;
    let mut marks = Vec::new();
    for decade in lo.floor() as i64..=hi.ceil() as i64 {
        let base = decade as f64;
        marks.push(GridMark {
            value: base,
            step_size: 1.0,
        });
        if hi - lo < 4.0 {
            for m in [2f64, 5.0] {
                marks.push(GridMark {
                    value: base + m.log10(),
                    step_size: 0.3,
                });
            }
        }
    }
    marks.retain(|m| m.value >= lo && m.value <= hi);
    marks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn k_ticks_are_integers_and_a_dozen_at_most() {
        for (bounds, step) in [((0.5, 16.5), 1.0), ((0.8, 8.2), 1.0), ((-2.0, 66.0), 5.0)] {
            let marks = integer_marks(GridInput {
                bounds,
                base_step_size: 0.1,
            });
            assert!(marks.iter().all(|m| m.value.fract() == 0.0), "{marks:?}");
            assert!(marks.len() <= 17, "{bounds:?}: {} marks", marks.len());
            assert_eq!(marks[1].value - marks[0].value, step, "{bounds:?}");
        }
    }

    #[test]
    fn a_narrow_plot_gets_fewer_k_ticks_each_far_enough_apart_to_be_labelled() {
        // k from 1 to 32 across 300 points: egui_plot's base step spans 8 points.
        let (bounds, width) = ((0.5, 32.5), 300.0);
        let base_step_size = (bounds.1 - bounds.0) / width * 8.0;
        let marks = integer_marks(GridInput {
            bounds,
            base_step_size,
        });
        let apart = (marks[1].value - marks[0].value) * width / (bounds.1 - bounds.0);
        assert!(
            apart >= 60.0,
            "{apart} points apart: egui_plot leaves them unlabelled"
        );
        assert!(marks.len() >= 3, "{marks:?}");
    }

    #[test]
    fn y_marks_are_round_numbers() {
        let marks = nice_marks(GridInput {
            bounds: (-3.0, 118.0),
            base_step_size: 0.1,
        });
        let labelled: Vec<f64> = marks
            .iter()
            .filter(|m| m.step_size == 20.0)
            .map(|m| m.value)
            .collect();
        assert_eq!(labelled, [0.0, 20.0, 40.0, 60.0, 80.0, 100.0]);
        let log = decade_marks(GridInput {
            bounds: (-0.5, 2.1),
            base_step_size: 0.01,
        });
        let values: Vec<String> = log.iter().map(|m| short(10f64.powf(m.value))).collect();
        assert_eq!(values, ["0.5", "1", "2", "5", "10", "20", "50", "100"]);
    }

    #[test]
    fn numbers_read_short() {
        assert_eq!(short(8.0), "8");
        assert_eq!(short(12.3456), "12.3");
        assert_eq!(short(0.98765), "0.988");
        assert_eq!(short(27_391_329.5), "2.74e7");
    }
}
