//! Charts drawn from a result's generic `series`: series that share axes share a plot, so a new
//! experiment's curves appear without code for it here.
//!
//! Conventions read from the document, not from experiment ids: a series named `*_model` is a
//! model curve (dashed, no markers); points with `y_min`/`y_max` get whiskers. A time plot gets
//! the fitted line its experiment declares ([`Fit`]), drawn only over the range it was fitted.
//!
//! Readable by default: times in ns/µs/ms/s chosen per plot, integer ticks where x counts
//! something (k, work), the legend in the corner with the fewest points, and hover that snaps
//! to the nearest point and prints it with its unit.

use std::ops::RangeInclusive;

use eframe::egui::{self, Color32};
use egui_plot::{
    Corner, GridInput, GridMark, HoverPosition, Legend, Line, LineStyle, MarkerShape, Plot,
    PlotPoints, Points,
};

use crate::report::{ExperimentResult, Fit, Series};

/// Series of one plot: the same x and y labels.
pub struct SeriesGroup<'a, T = String> {
    /// What x is.
    pub x_label: &'a str,
    /// What y is, with its unit.
    pub y_label: &'a str,
    /// The curves, each with what the caller tagged it with (its legend name, say).
    pub curves: Vec<(T, &'a Series)>,
}

/// Groups series by their axes, in first-appearance order; each keeps its tag.
pub fn group_series<'a, T>(
    series: impl IntoIterator<Item = (T, &'a Series)>,
) -> Vec<SeriesGroup<'a, T>> {
    let mut groups: Vec<SeriesGroup<'a, T>> = Vec::new();
    for (name, s) in series {
        match groups
            .iter_mut()
            .find(|g| g.x_label == s.x_label && g.y_label == s.y_label)
        {
            Some(g) => g.curves.push((name, s)),
            None => groups.push(SeriesGroup {
                x_label: &s.x_label,
                y_label: &s.y_label,
                curves: vec![(name, s)],
            }),
        }
    }
    groups
}

/// A distinct colour per curve index (Tableau 10).
pub fn palette(index: usize) -> Color32 {
    const COLOURS: [Color32; 10] = [
        Color32::from_rgb(31, 119, 180),
        Color32::from_rgb(255, 127, 14),
        Color32::from_rgb(44, 160, 44),
        Color32::from_rgb(214, 39, 40),
        Color32::from_rgb(148, 103, 189),
        Color32::from_rgb(140, 86, 75),
        Color32::from_rgb(227, 119, 194),
        Color32::from_rgb(127, 127, 127),
        Color32::from_rgb(188, 189, 34),
        Color32::from_rgb(23, 190, 207),
    ];
    COLOURS[index % COLOURS.len()]
}

/// The label's unit, in parentheses at its end: `time (ns)` -> `ns`.
fn unit(label: &str) -> &str {
    label
        .rfind('(')
        .and_then(|open| label[open + 1..].strip_suffix(')'))
        .unwrap_or("")
}

/// How a plot's y values are shown: a time in ns becomes the unit that suits its largest value.
#[derive(Clone, Debug, PartialEq)]
pub struct YScale {
    /// Data values are divided by this.
    pub divisor: f64,
    /// The unit after scaling ("ms"), or the label's own.
    pub unit: String,
    /// The axis label with that unit ("time (ms)").
    pub label: String,
}

impl YScale {
    /// The scale for values up to `max_abs` on an axis labelled `y_label`.
    pub fn new(y_label: &str, max_abs: f64) -> Self {
        let label_unit = unit(y_label);
        if label_unit != "ns" {
            return Self {
                divisor: 1.0,
                unit: label_unit.to_owned(),
                label: y_label.to_owned(),
            };
        }
        let (divisor, unit) = crate::report::units::unit_for(max_abs);
        let stem = y_label[..y_label.rfind('(').unwrap_or(y_label.len())].trim_end();
        Self {
            divisor,
            unit: unit.to_owned(),
            label: format!("{stem} ({unit})"),
        }
    }
}

/// Options of one plot.
#[derive(Clone, Copy, Debug, Default)]
pub struct PlotOptions {
    /// A log10 y axis where y is a time (times differ 100x between devices).
    pub log_time: bool,
    /// No legend inside the plot: the caller draws a key beside it.
    pub no_legend: bool,
}

/// One curve of a plot, with how it is drawn.
pub struct Curve<'a> {
    /// Its name in the legend and on hover.
    pub name: String,
    /// The data.
    pub series: &'a Series,
    /// Its colour.
    pub colour: Color32,
    /// Its marker.
    pub shape: MarkerShape,
}

/// A fitted straight line to draw, read from a result through its experiment's [`Fit`].
#[derive(Clone, Copy, Debug)]
pub struct FitLine {
    slope: f64,
    intercept: f64,
    r2: Option<f64>,
    /// The largest x it was fitted over; it is drawn no further.
    x_max: Option<f64>,
}

impl FitLine {
    /// The line `fit` declares, where the result has its metrics.
    fn of(result: &ExperimentResult, fit: &Fit) -> Option<Self> {
        let metric = |key: &str| result.metrics.get(key).copied();
        Some(Self {
            slope: metric(fit.slope)?,
            intercept: metric(fit.intercept)?,
            r2: fit.r2.and_then(metric),
            x_max: fit.x_max.and_then(metric),
        })
    }
}

/// Every chart of one experiment, one plot per axis pair, with the fitted line its declaration
/// names on the series over the fit's x.
pub fn experiment_charts(ui: &mut egui::Ui, result: &ExperimentResult, fit: Option<&Fit>) {
    if result.series.is_empty() {
        ui.weak("This experiment records no series.");
        return;
    }
    let groups = group_series(result.series.iter().map(|s| (s.name.clone(), s)));
    for (index, group) in groups.iter().enumerate() {
        let line = fit
            .filter(|f| group.x_label == f.x_label && group.y_label == "time (ns)")
            .and_then(|f| FitLine::of(result, f));
        let curves = group
            .curves
            .iter()
            .enumerate()
            .map(|(i, (name, series))| Curve {
                name: name.clone(),
                series,
                colour: palette(i),
                shape: MarkerShape::Circle,
            })
            .collect();
        let id = format!("chart/{}/{index}", result.id);
        plot_curves(ui, id, group, curves, line, PlotOptions::default());
    }
}

/// One plot: curves with markers, whiskers, model curves dashed, and an optional fitted line.
pub fn plot_curves(
    ui: &mut egui::Ui,
    id: String,
    group: &SeriesGroup<'_, impl Sized>,
    curves: Vec<Curve<'_>>,
    fit: Option<FitLine>,
    options: PlotOptions,
) {
    let max_abs = curves
        .iter()
        .flat_map(|c| &c.series.points)
        .map(|p| p.y.abs().max(p.y_max.unwrap_or(0.0).abs()))
        .fold(0.0, f64::max);
    let scale = YScale::new(group.y_label, max_abs);
    let to_plot = ToPlot {
        divisor: scale.divisor,
        log: options.log_time && unit(group.y_label) == "ns",
    };
    let heading = format!(
        "{}{} over {}",
        scale.label,
        if to_plot.log { ", log scale" } else { "" },
        group.x_label
    );
    ui.label(egui::RichText::new(heading).strong());
    let integer_x = curves
        .iter()
        .flat_map(|c| &c.series.points)
        .all(|p| p.x.fract() == 0.0);
    // Where the lines run, not only their points: a legend box between two points of T(k)
    // covered the line that joins them.
    let points: Vec<[f64; 2]> = curves
        .iter()
        .flat_map(|c| {
            let xy: Vec<[f64; 2]> = c
                .series
                .points
                .iter()
                .filter_map(|p| Some([p.x, to_plot.y(p.y)?]))
                .collect();
            along(&xy)
        })
        .collect();
    let mut plot = Plot::new(id).height(220.0);
    if !options.no_legend {
        let (corner, top) = legend_place(&points);
        if let Some(top) = top {
            plot = plot.include_y(top);
        }
        plot = plot.legend(Legend::default().position(corner));
    }
    plot = axes(plot, group.x_label, &scale, to_plot, integer_x);
    plot.show(ui, |plot_ui| {
        let (mut x_min, mut x_max) = (f64::INFINITY, f64::NEG_INFINITY);
        for curve in &curves {
            for p in &curve.series.points {
                x_min = x_min.min(p.x);
                x_max = x_max.max(p.x);
            }
            draw_curve(plot_ui, curve, to_plot);
        }
        if let Some(fit) = fit
            && x_min <= x_max
        {
            draw_fit(plot_ui, fit, x_min..=x_max, &scale, to_plot);
        }
    });
}

/// Where a data y is drawn: scaled, then log10 on a log axis (where non-positive values have no
/// place and are dropped).
#[derive(Clone, Copy, Debug)]
struct ToPlot {
    divisor: f64,
    log: bool,
}

impl ToPlot {
    fn y(self, y: f64) -> Option<f64> {
        let y = y / self.divisor;
        if self.log {
            (y > 0.0).then(|| y.log10())
        } else {
            Some(y)
        }
    }

    /// The value a plotted y stands for, in the scaled unit.
    fn value(self, plotted: f64) -> f64 {
        if self.log {
            10f64.powf(plotted)
        } else {
            plotted
        }
    }
}

/// The axes: labels, tick spacing and formats, and hover text with units.
fn axes<'a>(
    plot: Plot<'a>,
    x_label: &str,
    scale: &YScale,
    to_plot: ToPlot,
    integer_x: bool,
) -> Plot<'a> {
    let x_name = x_label.to_owned();
    let y_unit = scale.unit.clone();
    let plot = plot
        .x_axis_label(x_label)
        .y_axis_label(scale.label.clone())
        .allow_scroll(false)
        .y_axis_formatter(move |mark: GridMark, _: &RangeInclusive<f64>| {
            short(to_plot.value(mark.value))
        })
        .label_formatter(move |hover| match hover {
            HoverPosition::NearDataPoint {
                plot_name,
                position,
                ..
            } if !plot_name.is_empty() => Some(format!(
                "{plot_name}\n{x_name} = {}\n{} {y_unit}",
                short(position.x),
                short(to_plot.value(position.y))
            )),
            _ => None,
        })
        .y_grid_spacer(move |input| {
            if to_plot.log {
                decade_marks(input)
            } else {
                nice_marks(input)
            }
        });
    if !integer_x {
        return plot;
    }
    plot.x_grid_spacer(integer_marks)
        .x_axis_formatter(|mark: GridMark, _: &RangeInclusive<f64>| {
            if mark.value.fract() == 0.0 {
                format!("{:.0}", mark.value)
            } else {
                String::new()
            }
        })
}

/// One curve: a dashed line for a model, else a line with markers and whiskers.
fn draw_curve(plot_ui: &mut egui_plot::PlotUi<'_>, curve: &Curve<'_>, to_plot: ToPlot) {
    let xy: Vec<[f64; 2]> = curve
        .series
        .points
        .iter()
        .filter_map(|p| Some([p.x, to_plot.y(p.y)?]))
        .collect();
    let model = curve.series.name.ends_with("_model");
    let line = Line::new(curve.name.clone(), PlotPoints::from(xy.clone()))
        .color(curve.colour)
        .width(if model { 1.5 } else { 2.0 });
    if model {
        plot_ui.line(line.style(LineStyle::dashed_loose()));
        return;
    }
    plot_ui.line(line);
    plot_ui.points(
        Points::new(curve.name.clone(), PlotPoints::from(xy))
            .color(curve.colour)
            .shape(curve.shape)
            .radius(3.0),
    );
    for p in &curve.series.points {
        if let (Some(lo), Some(hi)) = (
            p.y_min.and_then(|y| to_plot.y(y)),
            p.y_max.and_then(|y| to_plot.y(y)),
        ) {
            // Unnamed, so the legend lists each curve once.
            plot_ui.line(
                Line::new("", PlotPoints::from(vec![[p.x, lo], [p.x, hi]]))
                    .color(curve.colour)
                    .width(1.0)
                    .allow_hover(false),
            );
        }
    }
}

/// The fitted line over the data's x range, no further than it was fitted.
fn draw_fit(
    plot_ui: &mut egui_plot::PlotUi<'_>,
    fit: FitLine,
    data_x: RangeInclusive<f64>,
    scale: &YScale,
    to_plot: ToPlot,
) {
    let FitLine {
        slope,
        intercept,
        r2,
        x_max: fitted_to,
    } = fit;
    let (x_min, x_max) = data_x.into_inner();
    let x_max = fitted_to.map_or(x_max, |end| end.min(x_max));
    let unit = &scale.unit;
    let (a, b) = (intercept / scale.divisor, slope / scale.divisor);
    let name = match r2 {
        Some(r2) => format!("fit {} + {}·k {unit} (R² {r2:.3})", short(a), short(b)),
        None => format!("fit {} + {}·k {unit}", short(a), short(b)),
    };
    let ends: Vec<[f64; 2]> = [x_min, x_max]
        .into_iter()
        .filter_map(|x| Some([x, to_plot.y(intercept + slope * x)?]))
        .collect();
    plot_ui.line(
        Line::new(name, PlotPoints::from(ends))
            .color(Color32::GRAY)
            .style(LineStyle::dotted_dense()),
    );
}

/// Paints a marker of `shape` in `colour`, the size of a line of text: keys drawn outside a
/// plot use the plot's own marker shapes.
pub fn marker(ui: &mut egui::Ui, shape: MarkerShape, colour: Color32) -> egui::Response {
    let (rect, response) = ui.allocate_exact_size(egui::vec2(10.0, 10.0), egui::Sense::hover());
    let (c, r) = (rect.center(), 4.0);
    let painter = ui.painter();
    let polygon =
        |points: Vec<egui::Pos2>| egui::Shape::convex_polygon(points, colour, egui::Stroke::NONE);
    match shape {
        MarkerShape::Square => {
            painter.rect_filled(
                egui::Rect::from_center_size(c, egui::vec2(2.0 * r, 2.0 * r)),
                0.0,
                colour,
            );
        }
        MarkerShape::Diamond => {
            painter.add(polygon(vec![
                c + egui::vec2(0.0, -r),
                c + egui::vec2(r, 0.0),
                c + egui::vec2(0.0, r),
                c + egui::vec2(-r, 0.0),
            ]));
        }
        MarkerShape::Up => {
            painter.add(polygon(vec![
                c + egui::vec2(0.0, -r),
                c + egui::vec2(r, r),
                c + egui::vec2(-r, r),
            ]));
        }
        MarkerShape::Cross => {
            let stroke = egui::Stroke::new(2.0, colour);
            painter.line_segment([c + egui::vec2(-r, -r), c + egui::vec2(r, r)], stroke);
            painter.line_segment([c + egui::vec2(-r, r), c + egui::vec2(r, -r)], stroke);
        }
        _ => {
            painter.circle_filled(c, r, colour);
        }
    }
    response
}

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
    fn times_take_the_unit_of_their_largest_value() {
        let scale = YScale::new("time (ns)", 5.0e8);
        assert_eq!((scale.divisor, scale.unit.as_str()), (1e6, "ms"));
        assert_eq!(scale.label, "time (ms)");
        assert_eq!(YScale::new("time (ns)", 900.0).label, "time (ns)");
        assert_eq!(YScale::new("time (ns)", 2.0e9).label, "time (s)");
        // Other units are left alone.
        assert_eq!(YScale::new("efficiency (lanes)", 5.0e8).divisor, 1.0);
    }

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
