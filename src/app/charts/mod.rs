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
    GridMark, HoverPosition, Legend, Line, LineStyle, MarkerShape, Plot, PlotPoints, Points,
};

use crate::report::{ExperimentResult, Fit, Series};

mod legend;
mod ticks;

pub use legend::{along, emptiest_corner, legend_place};
pub use ticks::{decade_marks, integer_marks, nice_marks, short};

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
        .flat_map(|c| along(&to_plot.points(c.series)))
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

    /// A series' points as plotted; those a log axis cannot show are left out.
    fn points(self, series: &Series) -> Vec<[f64; 2]> {
        series
            .points
            .iter()
            .filter_map(|p| Some([p.x, self.y(p.y)?]))
            .collect()
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
    let xy = to_plot.points(curve.series);
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
}
