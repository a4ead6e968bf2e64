//! Line charts as SVG text for the HTML report, drawn with plotters' SVG backend. No font is
//! loaded (the SVG names a generic family and the browser draws the text) and no file is touched.
//! Legends are HTML beside the chart, where text wraps and never overlaps a curve.

use plotters::prelude::*;

/// Chart size in pixels (the page scales it down on narrow screens).
const SIZE: (u32, u32) = (720, 420);

/// Most points drawn per curve: a file may hold up to a million, and the page must stay small.
const MAX_POINTS: usize = 2000;

/// One colour per file (Tableau 10), cycled.
const PALETTE: [(u8, u8, u8); 10] = [
    (31, 119, 180),
    (255, 127, 14),
    (44, 160, 44),
    (214, 39, 40),
    (148, 103, 189),
    (140, 86, 75),
    (227, 119, 194),
    (127, 127, 127),
    (188, 189, 34),
    (23, 190, 207),
];

/// The CSS colour of file `index`, for legends drawn in HTML.
pub(crate) fn css_color(index: usize) -> String {
    let (r, g, b) = PALETTE[index % PALETTE.len()];
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// One curve: a file's colour, solid (measured, with dots) or dashed (control or model).
pub(crate) struct Curve {
    /// The file's index, which picks the colour.
    pub file: usize,
    /// Dashed, without dots.
    pub dashed: bool,
    /// The points, in x order.
    pub points: Vec<(f64, f64)>,
}

/// A chart with logarithmic axes: x in base 2 (k doubles), y in base 10 (times span decades
/// between devices).
pub(crate) struct Chart<'a> {
    /// The caption.
    pub title: &'a str,
    /// What x is.
    pub x_label: &'a str,
    /// What y is, with its unit.
    pub y_label: &'a str,
    /// Formats a y tick.
    pub y_format: fn(f64) -> String,
    /// The curves.
    pub curves: Vec<Curve>,
}

/// The chart as an `<svg>` element for inline use in HTML, or why it cannot be drawn.
pub(crate) fn render(chart: &Chart) -> Result<String, String> {
    let curves: Vec<(&Curve, Vec<(f64, f64)>)> = chart
        .curves
        .iter()
        .map(|c| (c, drawable(&c.points)))
        .filter(|(_, points)| !points.is_empty())
        .collect();
    let all = || curves.iter().flat_map(|(_, p)| p.iter());
    let Some(x) = bounds(all().map(|p| p.0)) else {
        return Err("no positive values to draw on logarithmic axes".to_owned());
    };
    let y = bounds(all().map(|p| p.1)).expect("x and y come in pairs");
    let err = |e: plotters::drawing::DrawingAreaErrorKind<std::io::Error>| e.to_string();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut ctx = ChartBuilder::on(&root)
            .caption(chart.title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(80)
            .build_cartesian_2d((x.0..x.1).log_scale().base(2.0), (y.0..y.1).log_scale())
            .map_err(err)?;
        ctx.configure_mesh()
            .x_desc(chart.x_label)
            .y_desc(chart.y_label)
            .axis_desc_style(("sans-serif", 16))
            .label_style(("sans-serif", 14))
            // Log axes get a light line per minor tick; one between bold lines is enough.
            .max_light_lines(1)
            .light_line_style(RGBColor(238, 238, 238))
            .x_label_formatter(&|v| short_number(*v))
            .y_label_formatter(&|v| (chart.y_format)(*v))
            .draw()
            .map_err(err)?;
        for (curve, points) in &curves {
            let (r, g, b) = PALETTE[curve.file % PALETTE.len()];
            let color = RGBColor(r, g, b);
            if curve.dashed {
                let style = color.stroke_width(2);
                ctx.draw_series(DashedLineSeries::new(points.clone(), 7, 5, style))
                    .map_err(err)?;
            } else {
                ctx.draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))
                    .map_err(err)?;
                ctx.draw_series(points.iter().map(|p| Circle::new(*p, 3, color.filled())))
                    .map_err(err)?;
            }
        }
        root.present().map_err(err)?;
    }
    // Inline SVG in HTML needs no namespace, and the page then names no URL at all.
    Ok(svg.replacen(r#" xmlns="http://www.w3.org/2000/svg""#, "", 1))
}

/// Values a log axis is drawn over. plotters divides the axis's end by its start to count
/// decades; where that overflows to infinity (a range wider than about 1e308) it loops for
/// hours, and near 0 a margin underflows to 0. Real values (ns, lanes, ratios) sit far inside.
const LOG_DOMAIN: std::ops::RangeInclusive<f64> = 1e-100..=1e100;

/// The points a log-log chart can show, thinned to [`MAX_POINTS`].
fn drawable(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let ok: Vec<(f64, f64)> = points
        .iter()
        .copied()
        .filter(|(x, y)| LOG_DOMAIN.contains(x) && LOG_DOMAIN.contains(y))
        .collect();
    let step = ok.len().div_ceil(MAX_POINTS).max(1);
    ok.into_iter().step_by(step).collect()
}

/// The range of `values` with a margin, never empty (a log axis needs `lo < hi`).
fn bounds(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let (lo, hi) = values.fold(None, |acc: Option<(f64, f64)>, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
    })?;
    Some((lo / 1.2, hi * 1.2))
}

/// A tick label: integers as integers, others with three significant digits.
pub(crate) fn short_number(v: f64) -> String {
    if v == v.round() && v.abs() < 1e6 {
        format!("{v:.0}")
    } else if v.abs() >= 1e6 || v.abs() < 1e-2 {
        format!("{v:.2e}")
    } else {
        format!("{v:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_text_without_fonts_and_names_no_url() {
        let chart = Chart {
            title: "T(k) <&>",
            x_label: "k",
            y_label: "time",
            y_format: crate::report::units::format_ns,
            curves: vec![
                Curve {
                    file: 0,
                    dashed: false,
                    points: vec![(1.0, 1e5), (2.0, 2e5), (32.0, 3.2e6)],
                },
                Curve {
                    file: 1,
                    dashed: true,
                    points: vec![(1.0, 1e5), (32.0, 1e5), (64.0, -1.0)],
                },
            ],
        };
        let svg = render(&chart).unwrap();
        assert!(svg.starts_with("<svg "), "{}", &svg[..80]);
        assert!(
            svg.contains(">\nT(k) &lt;&amp;&gt;\n</text>"),
            "the caption is escaped text"
        );
        assert!(!svg.contains("http"), "no URL, not even the namespace");
        assert!(svg.contains("<circle"));
    }

    #[test]
    fn nothing_to_draw_is_an_error_not_a_panic() {
        let chart = Chart {
            title: "t",
            x_label: "k",
            y_label: "y",
            y_format: short_number,
            curves: vec![Curve {
                file: 0,
                dashed: false,
                points: vec![(0.0, 1.0), (1.0, 0.0)],
            }],
        };
        assert!(render(&chart).is_err());
        // Values a log axis cannot span are left out; they once made plotters loop for hours.
        let extreme = Chart {
            curves: vec![Curve {
                file: 0,
                dashed: true,
                points: vec![
                    (5e-324, 5e-324),
                    (1e-300, 1e-300),
                    (1e-100, 1e-100),
                    (1.7e308, 1.7e308),
                    (1e100, 1e100),
                ],
            }],
            ..chart
        };
        let start = std::time::Instant::now();
        let svg = render(&extreme).unwrap();
        assert!(start.elapsed().as_secs() < 5 && svg.len() < 100_000);
        let single = Chart {
            curves: vec![Curve {
                file: 0,
                dashed: false,
                points: vec![(4.0, 4.0)],
            }],
            ..extreme
        };
        render(&single).unwrap();
    }
}
