//! Charts drawn from a result's generic `series`: series that share axes share a plot, so a new
//! experiment's curves appear without code for it here.
//!
//! Conventions read from the document, not from experiment ids: a series named `*_model` is a
//! model curve (dashed, no markers); points with `y_min`/`y_max` get whiskers. A time plot gets
//! the fitted line its experiment declares ([`Fit`]), drawn only over the range it was fitted.

use eframe::egui::{self, Color32};
use egui_plot::{Legend, Line, LineStyle, Plot, PlotPoints, Points};

use crate::report::{ExperimentResult, Fit, Series};

/// Series of one plot: the same x and y labels.
pub struct SeriesGroup<'a> {
    /// What x is.
    pub x_label: &'a str,
    /// What y is, with its unit.
    pub y_label: &'a str,
    /// The curves, each with a name for the legend.
    pub curves: Vec<(String, &'a Series)>,
}

/// Groups series by their axes, in first-appearance order.
pub fn group_series<'a>(
    series: impl IntoIterator<Item = (String, &'a Series)>,
) -> Vec<SeriesGroup<'a>> {
    let mut groups: Vec<SeriesGroup<'a>> = Vec::new();
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

/// The unit in a label such as `time (ns)`, for hover text.
fn unit(label: &str) -> &str {
    label
        .rfind('(')
        .and_then(|open| label[open + 1..].strip_suffix(')'))
        .unwrap_or("")
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
        let id = format!("chart/{}/{index}", result.id);
        plot_group(ui, id, group, line);
    }
}

/// One plot: curves with markers, whiskers, model curves dashed, and an optional fitted line.
pub fn plot_group(ui: &mut egui::Ui, id: String, group: &SeriesGroup<'_>, fit: Option<FitLine>) {
    ui.label(egui::RichText::new(format!("{} over {}", group.y_label, group.x_label)).strong());
    let x_label = group.x_label.to_owned();
    let y_unit = unit(group.y_label).to_owned();
    let plot = Plot::new(id)
        .height(220.0)
        .legend(Legend::default())
        .x_axis_label(group.x_label)
        .y_axis_label(group.y_label)
        .allow_scroll(false)
        .label_formatter(move |pos| {
            let (name, p) = match pos {
                egui_plot::HoverPosition::NearDataPoint {
                    plot_name,
                    position,
                    ..
                } => (*plot_name, position),
                egui_plot::HoverPosition::Elsewhere { position } => ("", position),
            };
            Some(format!(
                "{name}\n{x_label} = {:.3}\ny = {:.4} {y_unit}",
                p.x, p.y
            ))
        });
    plot.show(ui, |plot_ui| {
        let (mut x_min, mut x_max) = (f64::INFINITY, f64::NEG_INFINITY);
        for (index, (name, series)) in group.curves.iter().enumerate() {
            let colour = palette(index);
            let xy: Vec<[f64; 2]> = series.points.iter().map(|p| [p.x, p.y]).collect();
            for p in &series.points {
                x_min = x_min.min(p.x);
                x_max = x_max.max(p.x);
            }
            let model = series.name.ends_with("_model");
            let line = Line::new(name.clone(), PlotPoints::from(xy.clone()))
                .color(colour)
                .width(if model { 1.5 } else { 2.0 });
            if model {
                plot_ui.line(line.style(LineStyle::dashed_loose()));
                continue;
            }
            plot_ui.line(line);
            plot_ui.points(
                Points::new(name.clone(), PlotPoints::from(xy))
                    .color(colour)
                    .radius(3.0),
            );
            for p in &series.points {
                if let (Some(lo), Some(hi)) = (p.y_min, p.y_max) {
                    // Unnamed, so the legend lists each curve once.
                    plot_ui.line(
                        Line::new("", PlotPoints::from(vec![[p.x, lo], [p.x, hi]]))
                            .color(colour)
                            .width(1.0)
                            .allow_hover(false),
                    );
                }
            }
        }
        if let Some(FitLine {
            slope,
            intercept,
            r2,
            x_max: fitted_to,
        }) = fit
            && x_min <= x_max
        {
            let x_max = fitted_to.map_or(x_max, |end| end.min(x_max));
            let name = match r2 {
                Some(r2) => format!("fit {intercept:.0} + {slope:.0}·k ns (R² {r2:.3})"),
                None => format!("fit {intercept:.0} + {slope:.0}·k ns"),
            };
            let ends = vec![
                [x_min, intercept + slope * x_min],
                [x_max, intercept + slope * x_max],
            ];
            plot_ui.line(
                Line::new(name, PlotPoints::from(ends))
                    .color(Color32::GRAY)
                    .style(LineStyle::dotted_dense()),
            );
        }
    });
}
