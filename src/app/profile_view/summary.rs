//! Above the annotated source: the summary's figures (subgroup size, control-flow and branch
//! efficiency, the two times, the outputs against the kernel alone) and the notes, and the
//! inputs the kernel ran on. The branches are `branches.rs`.

use eframe::egui::{self, RichText};

use crate::profile::fill::PREVIEW_VALUES;
use crate::profile::report::{Profile, RequestRecord};
use crate::profile::run::{Finished, InputPreview};
use crate::report::units::format_ns;

/// Subgroup size, control-flow efficiency and the two times, then the notes; returns whether
/// the notes are open.
pub fn summary(ui: &mut egui::Ui, profile: &Profile) -> bool {
    // Spaced apart rather than dotted: a wrapped row never starts with a separator. Each figure
    // stays whole: one that does not fit moves to the next row rather than splitting.
    ui.horizontal_wrapped(|ui| {
        ui.spacing_mut().item_spacing.x = 18.0;
        for (text, about) in figures(profile) {
            ui.add(egui::Label::new(RichText::new(text).strong()).extend())
                .on_hover_text(about);
        }
    });
    // Outputs that differ from the kernel alone are said in the open, not only on hover: in the
    // warning colour where the kernel alone repeats itself (the counters may have changed what
    // it computes), muted where it differs from itself too (its result follows the timing) or
    // only by a float's rounding.
    if let Some(outputs) = profile.outputs.as_ref().filter(|o| !o.agree()) {
        let steady = (outputs.resources.iter())
            .any(|r| (r.difference.as_ref()).is_some_and(|d| d.unexplained()));
        let colour = if steady {
            ui.visuals().warn_fg_color
        } else {
            ui.visuals().weak_text_color()
        };
        for note in outputs.notes() {
            ui.add(egui::Label::new(RichText::new(note).color(colour)).wrap());
        }
    }
    if profile.notes.is_empty() {
        return false;
    }
    let notes = egui::CollapsingHeader::new(format!(
        "Notes ({}): how the counts were taken, and what the kernel ran on",
        profile.notes.len()
    ))
    .id_salt("profile_notes")
    .default_open(false)
    .show(ui, |ui| {
        for note in &profile.notes {
            ui.add(egui::Label::new(format!("• {note}")).wrap());
        }
    });
    notes.body_returned.is_some()
}

/// The summary's figures, each with what it means.
fn figures(profile: &Profile) -> Vec<(String, String)> {
    let mut parts: Vec<(String, String)> = Vec::new();
    match profile.subgroup_size {
        Some(size) => parts.push((
            format!("subgroup size {size}"),
            "The `subgroup_size` builtin as the pipeline ran: efficiency is taken against it"
                .to_owned(),
        )),
        None if profile.request.counts.is_some() => parts.push((
            "counted per invocation".to_owned(),
            "--counts invocations: each line counts the invocations that ran it, with no \
             subgroup operation in the counters, so efficiency and divergence are not \
             measured. Run settings › counts › per subgroup measures them"
                .to_owned(),
        )),
        None => parts.push((
            "no subgroup operations: counts are invocations".to_owned(),
            "This adapter has no subgroups: each line counts invocations, and efficiency is not \
             measured"
                .to_owned(),
        )),
    }
    if let Some((widest, size)) = profile.widest_ballot.zip(profile.subgroup_size)
        && widest < size
    {
        parts.push((
            format!("subgroups never full: at most {widest} of {size} lanes"),
            "The widest ballot at the kernel's entry: no line's efficiency can exceed it. The \
             notes say why (the workgroup's size or shape)"
                .to_owned(),
        ));
    }
    if let Some(e) = profile.control_flow_efficiency {
        parts.push((
            format!("control-flow efficiency {:.1}%", e * 100.0),
            "Σ active lanes / (Σ executions × subgroup size), summed over the kernel's blocks \
             (each straight run of statements once), not over the lines below: a block of \
             several lines counts once here and once per line there"
                .to_owned(),
        ));
    }
    if let Some(e) = profile.branch_efficiency {
        parts.push((
            format!("branch efficiency {:.1}%", e * 100.0),
            "1 − Σ divergent / Σ evaluations over the branches and loops in the table below"
                .to_owned(),
        ));
    }
    match &profile.timing {
        Some(t) => {
            // The notes on the times (noise, a faster instrumented run) on hover, where the
            // time is.
            let floor = t.floor_ns.map(|f| {
                let priced = (t.above_floor_text())
                    .map_or_else(String::new, |above| format!("; they price {above}"));
                format!(
                    "An empty kernel over the same workgroups took {}: the fixed cost of a \
                     dispatch, which the cost predictions leave out{priced}",
                    format_ns(f)
                )
            });
            let about = std::iter::once(
                "Medians of the timed repetitions, the kernel alone and with divlab's counters, \
                 interleaved"
                    .to_owned(),
            )
            .chain(floor);
            parts.push((
                format!(
                    "{} alone, {} instrumented ({})",
                    format_ns(t.kernel_ns),
                    format_ns(t.instrumented_ns),
                    t.overhead_text()
                ),
                about.chain(t.notes()).collect::<Vec<_>>().join("\n\n"),
            ));
        }
        None => parts.push((
            "not timed".to_owned(),
            "The run hit the loop cap, or was opened from a document without times".to_owned(),
        )),
    }
    if let (Some(seconds), Some(about)) = (profile.compile_s, profile.compile_text()) {
        parts.push((format!("compiled in {}", format_ns(seconds * 1e9)), about));
    }
    if let Some(outputs) = &profile.outputs {
        let text = if outputs.not_compared.is_some() {
            "outputs not compared"
        } else if outputs.agree() {
            "outputs match the kernel alone"
        } else {
            "outputs differ from the kernel alone"
        };
        let about = std::iter::once(format!(
            "What the instrumented kernel wrote, against a run of the kernel alone from the same \
             inputs: {}",
            outputs.summary()
        ));
        parts.push((
            text.to_owned(),
            about
                .chain(outputs.notes())
                .collect::<Vec<_>>()
                .join("\n\n"),
        ));
    }
    parts
}

/// What the kernel ran on: each buffer's fill and first values (from a run), or the fills a
/// document records; returns whether they are open.
pub fn inputs(ui: &mut egui::Ui, finished: &Finished) -> bool {
    let request = &finished.profile.request;
    let count = input_count(&finished.inputs, request);
    if count == 0 {
        return false;
    }
    let inputs = egui::CollapsingHeader::new(format!("Inputs ({count}): what the kernel ran on"))
        .id_salt("profile_inputs")
        .default_open(false)
        .show(ui, |ui| {
            if finished.inputs.is_empty() {
                ui.weak("As the document records them (bindings not named had the default fill):");
                for buffer in &request.buffers {
                    ui.monospace(format!("--buffer {buffer}"));
                }
                return;
            }
            // A list, not a grid: each fill and its values wrap at the pane's edge.
            for input in &finished.inputs {
                ui.add(egui::Label::new(format!("{}: {}", input.label, input.fill)).wrap())
                    .on_hover_text(format!("{} bytes", input.bytes));
                if !input.first.is_empty() {
                    ui.indent(("profile_input", &input.label), |ui| {
                        let first = RichText::new(first_values(input)).monospace();
                        ui.add(egui::Label::new(first).wrap());
                    });
                }
            }
        });
    inputs.body_returned.is_some()
}

/// How many inputs there are to list: the run's, or (opened from a document, which keeps no
/// values) the fills its request names.
fn input_count(inputs: &[InputPreview], request: &RequestRecord) -> usize {
    if inputs.is_empty() {
        request.buffers.len()
    } else {
        inputs.len()
    }
}

/// An input's first values, with `…` where the preview was cut short.
fn first_values(input: &InputPreview) -> String {
    let more = if input.first.len() == PREVIEW_VALUES {
        ", …"
    } else {
        ""
    };
    format!("{}{more}", input.first.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::profile_view::fixture;

    #[test]
    fn the_summary_gives_the_subgroup_size_both_efficiencies_and_the_times() {
        let profile = fixture::profile();
        let texts: Vec<String> = figures(&profile).into_iter().map(|(t, _)| t).collect();
        assert_eq!(
            texts,
            [
                "subgroup size 8",
                "control-flow efficiency 80.0%",
                "branch efficiency 50.0%",
                "1 µs alone, 2.5 µs instrumented (2.50x)",
            ]
        );
    }

    /// With `--cost`, the times' hover names the floor and the time above it that the
    /// predictions price, with its interval.
    #[test]
    fn with_a_floor_the_times_hover_gives_what_the_predictions_price() {
        let mut profile = fixture::profile();
        let timing = profile.timing.as_mut().unwrap();
        timing.floor_ns = Some(400.0);
        timing.above_floor_interval_ns = Some([450.0, 700.0]);
        let hover = figures(&profile).pop().unwrap().1;
        assert!(
            hover.contains(
                "took 400 ns: the fixed cost of a dispatch, which the cost predictions leave \
                 out; they price the 600 ns above it (95% interval 450 ns to 700 ns)"
            ),
            "{hover}"
        );
    }

    /// The compile time is a figure of its own; its hover says where llvmpipe compiles, and
    /// where it was long, why a second profile is quicker.
    #[test]
    fn the_compile_time_is_a_figure_whose_hover_says_where_it_went() {
        let mut profile = fixture::profile();
        profile.compile_s = Some(0.42);
        let (text, about) = figures(&profile).pop().unwrap();
        assert_eq!(text, "compiled in 420 ms");
        assert_eq!(
            about,
            "compile: 420 ms, in no timed run: the driver building the kernel's pipelines (alone \
             and instrumented), at their first runs as llvmpipe compiles then"
        );
        profile.compile_s = Some(68.1);
        profile.request.cost_top = Some(5);
        profile.adapter.driver = "NVIDIA".to_owned();
        profile.adapter.name = "NVIDIA H100 80GB HBM3".to_owned();
        let about = figures(&profile).pop().unwrap().1;
        assert!(
            about.starts_with(
                "compile: 68.1 s, in no timed run: the driver building the kernel's pipelines \
                 (alone, instrumented and --cost's variants); drivers keep what they compile on \
                 disk"
            ),
            "{about}"
        );
    }

    #[test]
    fn without_subgroups_or_times_the_summary_says_so() {
        let mut profile = fixture::profile();
        profile.subgroup_size = None;
        profile.control_flow_efficiency = None;
        profile.branch_efficiency = None;
        profile.timing = None;
        let texts: Vec<String> = figures(&profile).into_iter().map(|(t, _)| t).collect();
        assert_eq!(
            texts,
            [
                "no subgroup operations: counts are invocations",
                "not timed"
            ]
        );
        // On an adapter with subgroups, counted per invocation on request.
        profile.request.counts = Some("invocations".to_owned());
        let (text, about) = figures(&profile).swap_remove(0);
        assert_eq!(text, "counted per invocation");
        assert!(about.contains("--counts invocations"), "{about}");
    }

    #[test]
    fn outputs_that_differ_from_the_kernel_alone_are_a_figure_with_their_reason() {
        use crate::profile::report::{
            OutputComparison, OutputDifference, OutputUnit, OutputsRecord,
        };
        let mut profile = fixture::profile();
        profile.outputs = Some(OutputsRecord {
            resources: vec![OutputComparison {
                label: "`out`".to_owned(),
                unit: OutputUnit::Values,
                compared: 64,
                differing: 2,
                difference: Some(OutputDifference {
                    first: "byte 0: 1u instrumented, 2u alone".to_owned(),
                    differing_alone: 0,
                    runs_alone: 4,
                    float_ulps: None,
                }),
            }],
            not_compared: None,
            atomics: false,
        });
        let found = figures(&profile);
        let (text, about) = found.last().expect("the outputs figure");
        assert_eq!(text, "outputs differ from the kernel alone");
        assert!(about.contains("`out` in 2 of 64 values"), "{about}");
        assert!(about.contains("divlab bug"), "{about}");
    }

    #[test]
    fn inputs_are_the_runs_previews_or_else_the_fills_the_document_names() {
        let profile = fixture::profile();
        assert_eq!(input_count(&[], &profile.request), 1);
        let preview = |first: usize| InputPreview {
            label: "`out` (@group(0) @binding(0))".to_owned(),
            fill: "zeros".to_owned(),
            bytes: 64,
            first: (0..first).map(|i| i.to_string()).collect(),
        };
        assert_eq!(input_count(&[preview(2), preview(3)], &profile.request), 2);
        assert_eq!(first_values(&preview(3)), "0, 1, 2");
        let cut = first_values(&preview(PREVIEW_VALUES));
        assert!(cut.ends_with(", …"), "{cut}");
    }
}
