//! The series the charts draw: T(k), F(k) and efficiency, beside their models.

use super::*;

pub(super) fn add_series(m: &Measurements, result: &mut ExperimentResult) {
    let timed = |pick: fn(&KPoint) -> &Timing| {
        m.points
            .iter()
            .map(|p| {
                let t = pick(p);
                Point {
                    x: f64::from(p.k),
                    y: t.time(),
                    y_min: Some(t.summary.min),
                    y_max: Some(t.summary.max),
                }
            })
            .collect()
    };
    let floor = m.floor.time();
    let ratio = |f: &dyn Fn(f64) -> f64| {
        m.points
            .iter()
            .map(|p| {
                let r = p.div.ratio_to(&p.uniform, floor);
                let (low, high) = r.bounds();
                // An efficiency is a decreasing function of F: its bounds swap.
                let (a, b) = (f(low), f(high));
                Point {
                    x: f64::from(p.k),
                    y: f(r.value),
                    y_min: Some(a.min(b)),
                    y_max: Some(a.max(b)),
                }
            })
            .collect()
    };
    let plain = |f: &dyn Fn(&KPoint) -> f64| {
        m.points
            .iter()
            .map(|p| Point {
                x: f64::from(p.k),
                y: f(p),
                y_min: None,
                y_max: None,
            })
            .collect()
    };
    let sg = f64::from(m.subgroup_size);
    result
        .series
        .push(series("t_div", "k", "time (ns)", timed(|p| &p.div)));
    result
        .series
        .push(series("t_uniform", "k", "time (ns)", timed(|p| &p.uniform)));
    result
        .series
        .push(series("t_pred", "k", "time (ns)", timed(|p| &p.pred)));
    result.series.push(series(
        "serialization",
        "k",
        "F(k) = T_div/T_uniform",
        ratio(&|f| f),
    ));
    result.series.push(series(
        "serialization_model",
        "k",
        "F(k) = T_div/T_uniform",
        plain(&|p| p.model_div / p.model_uniform),
    ));
    result.series.push(series(
        "efficiency",
        "k",
        "active lanes per issue (SG/F)",
        ratio(&|f| sg / f),
    ));
    result.series.push(series(
        "efficiency_model",
        "k",
        "active lanes per issue (SG/F)",
        plain(&|p| sg * p.model_uniform / p.model_div),
    ));
}

pub(super) fn series(name: &str, x: &str, y: &str, points: Vec<Point>) -> Series {
    Series {
        name: name.to_owned(),
        x_label: x.to_owned(),
        y_label: y.to_owned(),
        points,
    }
}
