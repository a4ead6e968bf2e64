//! Where a plot's legend goes: the corner its data leaves free.

use egui_plot::Corner;

/// Points along a polyline: its own, and nine between each two, so a corner the line only
/// crosses counts as taken.
pub fn along(xy: &[[f64; 2]]) -> Vec<[f64; 2]> {
    let mut points = Vec::with_capacity(xy.len() * 10);
    for pair in xy.windows(2) {
        let ([x0, y0], [x1, y1]) = (pair[0], pair[1]);
        for i in 0..10 {
            let t = f64::from(i) / 10.0;
            points.push([x0 + (x1 - x0) * t, y0 + (y1 - y0) * t]);
        }
    }
    points.extend(xy.last());
    points
}

/// The plot corner with the fewest data points under where a legend sits (a box of about a
/// third of the width and a quarter of the height), preferring the top left.
pub fn emptiest_corner(points: &[[f64; 2]]) -> Corner {
    corner_counts(points).0
}

/// Where the legend goes: the emptiest corner, or, where every corner holds data (T(k) rising
/// to the top left and running flat to the top right over a flat control along the bottom),
/// a top corner with room made above the data, as the plot's new top in y.
pub fn legend_place(points: &[[f64; 2]]) -> (Corner, Option<f64>) {
    let (corner, covered) = corner_counts(points);
    if covered == 0 || points.is_empty() {
        return (corner, None);
    }
    let (lo, hi) = points
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), [_, y]| {
            (lo.min(*y), hi.max(*y))
        });
    // The data in the lower half: a legend of four rows (and the whiskers) fit above it.
    let top = lo + (hi - lo).max(f64::MIN_POSITIVE) / 0.5;
    let corner = match corner {
        Corner::RightTop | Corner::RightBottom => Corner::RightTop,
        Corner::LeftTop | Corner::LeftBottom => Corner::LeftTop,
    };
    (corner, Some(top))
}

/// The emptiest corner and how many points lie under it.
fn corner_counts(points: &[[f64; 2]]) -> (Corner, usize) {
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for [x, y] in points {
        (x0, x1, y0, y1) = (x0.min(*x), x1.max(*x), y0.min(*y), y1.max(*y));
    }
    let (w, h) = (
        (x1 - x0).max(f64::MIN_POSITIVE),
        (y1 - y0).max(f64::MIN_POSITIVE),
    );
    let count = |corner: Corner| {
        points
            .iter()
            .filter(|[x, y]| {
                let (u, v) = ((x - x0) / w, (y - y0) / h);
                let left = u <= 0.4;
                let right = u >= 0.6;
                let top = v >= 0.7;
                let bottom = v <= 0.3;
                match corner {
                    Corner::LeftTop => left && top,
                    Corner::RightTop => right && top,
                    Corner::LeftBottom => left && bottom,
                    Corner::RightBottom => right && bottom,
                }
            })
            .count()
    };
    [
        Corner::LeftTop,
        Corner::RightTop,
        Corner::LeftBottom,
        Corner::RightBottom,
    ]
    .into_iter()
    .map(|c| (c, count(c)))
    .min_by_key(|(_, n)| *n)
    .unwrap_or((Corner::LeftTop, 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_legend_goes_where_the_data_is_not() {
        // T(k) rising from the bottom left to the top right: a top-left legend would cover
        // nothing only if the curve stays low there, which it does.
        let rising: Vec<[f64; 2]> = (1..=32).map(|k| [k as f64, (k * k) as f64]).collect();
        assert_eq!(emptiest_corner(&rising), Corner::LeftTop);
        let falling: Vec<[f64; 2]> = (1..=32).map(|k| [k as f64, 1.0 / k as f64]).collect();
        assert_eq!(emptiest_corner(&falling), Corner::RightTop);
    }

    #[test]
    fn the_legend_keeps_off_a_line_that_only_crosses_a_corner() {
        // No point in the top left, but the line from the first to the second crosses it.
        let points = [[0.0, 0.5], [0.6, 1.0], [1.0, 0.0]];
        assert_eq!(emptiest_corner(&points), Corner::LeftTop);
        assert_eq!(emptiest_corner(&along(&points)), Corner::LeftBottom);
    }

    #[test]
    fn where_every_corner_holds_data_the_legend_gets_room_above_it() {
        // T(k) rising to 8 then flat near the top; the control flat along the bottom.
        let mut points: Vec<[f64; 2]> = [1, 2, 4, 8, 16, 32]
            .map(|k| [f64::from(k), 16.0 * f64::from(k.min(8))])
            .to_vec();
        points.extend([1, 2, 4, 8, 16, 32].map(|k| [f64::from(k), 17.0]));
        let points = along(&points);
        let (corner, top) = legend_place(&points);
        assert_eq!(corner, Corner::RightTop);
        let top = top.expect("room made above the data");
        assert!(top >= 128.0 + 0.4 * (top - 16.0), "{top}");
        // Where a corner is free, the plot keeps its bounds.
        let rising: Vec<[f64; 2]> = (1..=32).map(|k| [k as f64, (k * k) as f64]).collect();
        assert_eq!(legend_place(&rising), (Corner::LeftTop, None));
    }
}
