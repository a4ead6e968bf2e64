//! How the Playground runs its kernel: `divlab profile`'s options as the user types them, their
//! form, and the request they make.

use eframe::egui;
use serde::{Deserialize, Serialize};

use crate::profile::cost::{DEFAULT_COST_PLACEMENTS, MAX_COST_PLACEMENTS};
use crate::profile::fill::{BufferSpec, parse_dispatch, parse_len, parse_override};
use crate::profile::report::RequestRecord;
use crate::profile::run::{Counts, DEFAULT_LOOP_CAP, Request};

/// The name the playground's source goes by in messages when it comes from no file.
pub const FILE: &str = "playground.wgsl";

/// How Run runs the kernel: `divlab profile`'s options, with its defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RunSettings {
    /// `--entry`; empty for the kernel's only (or first) compute entry point.
    pub entry: String,
    /// `--dispatch`: workgroups in x, y, z.
    pub workgroups: [u32; 3],
    /// `--buffer BINDING=FILL`, one per line.
    pub buffers: String,
    /// `--len BINDING=N`, one per line.
    pub lens: String,
    /// `--override NAME=VALUE`, one per line.
    pub overrides: String,
    /// `--texture`, `--size`, `--format` and `--sampler`, one per line, as `texture
    /// input=checker`.
    pub textures: String,
    /// `--loop-cap`.
    pub loop_cap: u32,
    /// `--reps`.
    pub reps: usize,
    /// `--counts`: with subgroup operations, or each invocation's passes only.
    pub counts: Counts,
    /// `--cost`: measure what each divergent branch costs.
    #[serde(default)]
    pub cost: bool,
    /// `--cost-placements`: the sets of buffers each cost variant is timed on.
    pub cost_placements: usize,
}

impl Default for RunSettings {
    fn default() -> Self {
        Self {
            entry: String::new(),
            workgroups: [1, 1, 1],
            buffers: String::new(),
            lens: String::new(),
            overrides: String::new(),
            textures: String::new(),
            loop_cap: DEFAULT_LOOP_CAP,
            reps: 15,
            counts: Counts::Subgroups,
            cost: false,
            cost_placements: DEFAULT_COST_PLACEMENTS,
        }
    }
}

impl RunSettings {
    /// The settings a profile document records it ran with (but `--save`: the app saves a
    /// texture from its picture).
    pub fn of_request(request: &RequestRecord) -> Self {
        Self {
            entry: request.entry.clone().unwrap_or_default(),
            workgroups: request.dispatch,
            buffers: request.buffers.join("\n"),
            lens: request.lens.join("\n"),
            overrides: request.overrides.join("\n"),
            textures: (request.textures.iter())
                .map(|t| t.trim_start_matches('-'))
                .filter(|t| !t.starts_with("save"))
                .collect::<Vec<_>>()
                .join("\n"),
            loop_cap: request.loop_cap,
            reps: request.reps,
            counts: (request.counts.as_deref())
                .and_then(Counts::named)
                .unwrap_or_default(),
            cost: request.cost_top.is_some(),
            // A costed document from before placements timed one set.
            cost_placements: (request.cost_placements).unwrap_or(if request.cost_top.is_some() {
                1
            } else {
                DEFAULT_COST_PLACEMENTS
            }),
        }
    }

    /// The settings `divlab profile`'s arguments `args` ask for (a kernel header's run, see
    /// [`crate::profile::header`]), with the options the Playground has no setting for (the
    /// outputs, `--lanes`, `--save`: it saves from the picture) or could not read.
    pub fn of_args(args: &[String]) -> (Self, Vec<String>) {
        let mut settings = Self::default();
        let mut left_out = Vec::new();
        let mut words = args.iter();
        while let Some(word) = words.next() {
            let (option, inline) = match word.split_once('=') {
                Some((option, value)) if option.starts_with("--") => (option, Some(value)),
                _ => (word.as_str(), None),
            };
            if option == "--cost" {
                settings.cost = true;
                continue;
            }
            let takes_value = [
                "--entry",
                "--dispatch",
                "--buffer",
                "--len",
                "--override",
                "--texture",
                "--size",
                "--format",
                "--sampler",
                "--loop-cap",
                "--reps",
                "--counts",
                "--cost-top",
                "--cost-placements",
            ];
            if !takes_value.contains(&option) {
                left_out.push(word.clone());
                continue;
            }
            let Some(value) = inline.map(str::to_owned).or_else(|| words.next().cloned()) else {
                left_out.push(word.clone());
                continue;
            };
            let push = |lines: &mut String, line: &str| {
                if !lines.is_empty() {
                    lines.push('\n');
                }
                lines.push_str(line);
                true
            };
            let read = match option {
                "--dispatch" => parse_dispatch(&value)
                    .map(|d| settings.workgroups = d)
                    .is_ok(),
                "--loop-cap" => value.parse().map(|n| settings.loop_cap = n).is_ok(),
                "--reps" => value.parse().map(|n| settings.reps = n).is_ok(),
                "--counts" => (Counts::named(&value).map(|c| settings.counts = c)).is_some(),
                "--cost-top" => {
                    settings.cost = true;
                    true
                }
                "--cost-placements" => (value.parse::<usize>().ok())
                    .filter(|n| (1..=MAX_COST_PLACEMENTS).contains(n))
                    .map(|n| {
                        settings.cost = true;
                        settings.cost_placements = n;
                    })
                    .is_some(),
                "--entry" => {
                    settings.entry.clone_from(&value);
                    true
                }
                "--buffer" => push(&mut settings.buffers, &value),
                "--len" => push(&mut settings.lens, &value),
                "--override" => push(&mut settings.overrides, &value),
                _ => push(&mut settings.textures, &format!("{} {value}", &option[2..])),
            };
            if !read {
                left_out.push(format!("{option} {value}"));
            }
        }
        (settings, left_out)
    }

    /// The request for `source`, named `file` in messages, or what is wrong with a setting.
    pub fn request(&self, file: &str, source: &str) -> Result<Request, String> {
        let mut request = Request::new(file, source);
        request.entry = Some(self.entry.trim().to_owned()).filter(|e| !e.is_empty());
        request.dispatch = self.workgroups.map(|n| n.max(1));
        request.buffers = parse_lines(
            &self.buffers,
            ("buffers", "--buffer"),
            str::parse::<BufferSpec>,
        )?;
        request.lens = parse_lines(&self.lens, ("lengths", "--len"), parse_len)?;
        request.overrides =
            parse_lines(&self.overrides, ("overrides", "--override"), parse_override)?;
        for line in self.textures.lines().filter(|l| !l.trim().is_empty()) {
            request
                .textures
                .add(line)
                .map_err(|e| format!("textures: {e}"))?;
        }
        request.keep_images = true;
        request.loop_cap = self.loop_cap.max(1);
        request.reps = self.reps.max(1);
        request.counts = self.counts;
        request.cost_top = self.cost.then_some(crate::profile::cost::DEFAULT_COST_TOP);
        request.cost_placements = self.cost_placements.clamp(1, MAX_COST_PLACEMENTS);
        Ok(request)
    }

    /// With several compute entry points, the entry point is one of them: the first until
    /// another is picked.
    pub fn pick_entry(&mut self, entries: &[String]) {
        if entries.len() > 1 && !entries.contains(&self.entry) {
            self.entry = entries[0].clone();
        }
    }

    /// The form, folded away until opened; `entries` are the kernel's compute entry points.
    pub fn ui(&mut self, ui: &mut egui::Ui, entries: &[String]) {
        egui::CollapsingHeader::new("Run settings (as `divlab profile` takes them)")
            .default_open(false)
            .show(ui, |ui| {
                egui::Grid::new("run_settings")
                    .num_columns(2)
                    .show(ui, |ui| self.rows(ui, entries));
            });
    }

    /// One row per option; each field is labelled by its row's name (for screen readers and
    /// tests).
    fn rows(&mut self, ui: &mut egui::Ui, entries: &[String]) {
        let label = ui.label("entry point").id;
        if entries.len() > 1 {
            egui::ComboBox::from_id_salt("entry_point")
                .selected_text(&self.entry)
                .show_ui(ui, |ui| {
                    for name in entries {
                        ui.selectable_value(&mut self.entry, name.clone(), name);
                    }
                })
                .response
                .labelled_by(label);
        } else {
            ui.add(
                egui::TextEdit::singleline(&mut self.entry)
                    .hint_text("the only @compute function")
                    .desired_width(240.0),
            )
            .labelled_by(label);
        }
        ui.end_row();
        let label = ui.label("workgroups").id;
        ui.horizontal(|ui| {
            for n in &mut self.workgroups {
                ui.add(egui::DragValue::new(n).range(1..=65_535))
                    .labelled_by(label);
            }
        });
        ui.end_row();
        for (name, text, hint) in [
            (
                "buffers",
                &mut self.buffers,
                "BINDING=FILL per line: zeros, iota, random[:SEED], values:1,2,3 · one \
                 scalar: BINDING.FIELD=N · or the `--buffer` options a message gives",
            ),
            (
                "lengths",
                &mut self.lens,
                "BINDING=N per line: elements of a runtime-sized array",
            ),
            ("overrides", &mut self.overrides, "NAME=VALUE per line"),
            (
                "textures",
                &mut self.textures,
                "per line: texture NAME=FILL (gradient, checker[:N], file:IMAGE.png, …) · size \
                 NAME=WxH · format NAME=FORMAT · sampler NAME=linear|nearest[,clamp|repeat|mirror]",
            ),
        ] {
            let label = ui.label(name).id;
            ui.add(
                egui::TextEdit::multiline(text)
                    .hint_text(hint)
                    .desired_rows(1)
                    .desired_width(420.0)
                    .code_editor(),
            )
            .labelled_by(label);
            ui.end_row();
        }
        let label = ui.label("loop cap").id;
        ui.add(egui::DragValue::new(&mut self.loop_cap).range(1..=u32::MAX))
            .labelled_by(label)
            .on_hover_text("Loop iterations one invocation may run, all its loops together; a kernel that never ends stops here");
        ui.end_row();
        let label = ui.label("timed repetitions").id;
        ui.add(egui::DragValue::new(&mut self.reps).range(1..=1000))
            .labelled_by(label);
        ui.end_row();
        let label = ui.label("counts").id;
        ui.horizontal(|ui| {
            let choices = [
                (
                    Counts::Subgroups,
                    "per subgroup",
                    "--counts subgroups (the default): executions of subgroups, their active \
                     lanes, and whether each branch's lanes agreed, with subgroup operations \
                     in the counters",
                ),
                (
                    Counts::Invocations,
                    "per invocation (lighter)",
                    "--counts invocations: each invocation's passes only, with no subgroup \
                     operation in the counters: a lighter kernel to compile, for one whose \
                     profile spends minutes compiling; no efficiency, divergence or cost",
                ),
            ];
            for (counts, name, about) in choices {
                ui.radio_value(&mut self.counts, counts, name)
                    .on_hover_text(about)
                    .labelled_by(label);
            }
        });
        ui.end_row();
        ui.label("cost");
        let by_subgroup = self.counts == Counts::Subgroups;
        ui.horizontal(|ui| {
            ui.add_enabled(
                by_subgroup,
                egui::Checkbox::new(&mut self.cost, "measure each divergent branch's cost"),
            )
            .on_hover_text(
                "--cost: time the kernel against variants whose subgroups follow their \
                     first active lane (a `&&`/`||` clause: whose every lane evaluates the next \
                     clause), for the 5 branches with the most idle lane slots; slower runs",
            );
            let placements = egui::DragValue::new(&mut self.cost_placements)
                .range(1..=MAX_COST_PLACEMENTS)
                .prefix("on ")
                .suffix(" buffer placements");
            ui.add_enabled(self.cost && by_subgroup, placements)
                .on_hover_text(
                    "--cost-placements: each variant is timed on this many copies of the kernel's \
                 buffers and textures, filled alike; where they lie moves a small saving: the \
                 interval spans them, and a saving only some show is not called. 1 for inputs \
                 too large to hold several times",
                );
        });
        ui.end_row();
    }
}

/// Each value of `text`'s non-blank lines parsed, or the first error, prefixed with the field's
/// name. A line is a value, or the command line's options as a message writes them (`--buffer
/// params.n=64`, `` `--buffer a=1` `--buffer b=2` ``), so that advice can be pasted as given.
fn parse_lines<T, E: std::fmt::Display>(
    text: &str,
    (name, option): (&str, &str),
    parse: impl Fn(&str) -> Result<T, E>,
) -> Result<Vec<T>, String> {
    let mut values = Vec::new();
    for line in text.lines().map(|l| l.trim().trim_matches('`').trim()) {
        if !line.starts_with(option) {
            values.extend((!line.is_empty()).then_some(line));
            continue;
        }
        let mut words =
            (line.split_whitespace().map(|w| w.trim_matches('`'))).filter(|w| !w.is_empty());
        while let Some(word) = words.next() {
            let value = match word.strip_prefix(option) {
                Some("") => words.next(),
                Some(inline) => inline.strip_prefix('='),
                None => None,
            };
            values.push(value.filter(|v| !v.is_empty()).ok_or_else(|| {
                format!("{name}: `{line}`: `{word}` is not `{option} VALUE`; give one per line")
            })?);
        }
    }
    (values.into_iter())
        .map(|v| parse(v).map_err(|e| format!("{name}: {e}")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{Counts, DEFAULT_COST_PLACEMENTS, RunSettings};

    /// A header's arguments fill the form; what the form has no place for is named.
    #[test]
    fn a_headers_arguments_become_the_settings() {
        let args: Vec<String> = "--texture src=gradient --dispatch 8,8 --save dst=t.png \
                                 --len=out=64 --buffer params=zeros --loop-cap 500 --cost"
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        let (settings, left_out) = RunSettings::of_args(&args);
        assert_eq!(settings.workgroups, [8, 8, 1]);
        assert_eq!(settings.textures, "texture src=gradient");
        assert_eq!(
            (settings.lens.as_str(), settings.buffers.as_str()),
            ("out=64", "params=zeros")
        );
        assert_eq!((settings.loop_cap, settings.cost), (500, true));
        assert_eq!(settings.counts, Counts::Subgroups);
        assert_eq!(settings.cost_placements, DEFAULT_COST_PLACEMENTS);
        assert_eq!(left_out, ["--save", "dst=t.png"]);
        let placements = |value: &str| {
            let args = ["--cost-placements".to_owned(), value.to_owned()];
            RunSettings::of_args(&args)
        };
        let (one, left_out) = placements("1");
        assert_eq!(
            (one.cost, one.cost_placements, left_out.len()),
            (true, 1, 0)
        );
        let request = one.request("k.wgsl", "").unwrap();
        assert_eq!(request.cost_placements, 1);
        let (light, _) = RunSettings::of_args(&["--counts=invocations".to_owned()]);
        assert_eq!(light.counts, Counts::Invocations);
        let record = light.request("k.wgsl", "").unwrap().record();
        assert_eq!(record.counts.as_deref(), Some("invocations"));
        assert_eq!(RunSettings::of_request(&record).counts, Counts::Invocations);
        let (_, left_out) = placements("9");
        assert_eq!(left_out, ["--cost-placements 9"], "past the CLI's 8");
        // A document gives back the placements it ran with; a costed one from before them, 1.
        let mut record = request.record();
        assert_eq!(RunSettings::of_request(&record).cost_placements, 1);
        record.cost_placements = None;
        assert_eq!(RunSettings::of_request(&record).cost_placements, 1);
        record.cost_top = None;
        assert_eq!(
            RunSettings::of_request(&record).cost_placements,
            DEFAULT_COST_PLACEMENTS
        );
        let (_, left_out) = RunSettings::of_args(&["--dispatch".to_owned(), "8,x".to_owned()]);
        assert_eq!(
            left_out,
            ["--dispatch 8,x"],
            "a value that does not read is named"
        );
    }

    /// The buffers, lengths and overrides fields take their values, or the command line's
    /// options as the cap message gives them, pasted with or without their backticks.
    #[test]
    fn option_lines_pasted_from_a_message_read_as_their_values() {
        let settings = RunSettings {
            buffers: "data=iota\n`--buffer params.n=64` `--buffer params.m=8`\n--buffer=grid=zeros"
                .to_owned(),
            lens: "--len out=32".to_owned(),
            overrides: "`--override BLOCK=4`".to_owned(),
            ..RunSettings::default()
        };
        let request = settings.request("k.wgsl", "").expect("every line reads");
        let buffers: Vec<String> = request.buffers.iter().map(ToString::to_string).collect();
        assert_eq!(
            buffers,
            ["data=iota", "params.n=64", "params.m=8", "grid=zeros"]
        );
        assert_eq!(request.lens.len(), 1);
        assert_eq!(request.overrides, [("BLOCK".to_owned(), 4.0)]);
        let stray = RunSettings {
            buffers: "--buffer a=1 and --buffer b=2".to_owned(),
            ..RunSettings::default()
        };
        let error = stray.request("k.wgsl", "").unwrap_err();
        assert!(
            error.starts_with("buffers: ") && error.contains("`and` is not `--buffer VALUE`"),
            "{error}"
        );
        let bare = RunSettings {
            buffers: "--buffer".to_owned(),
            ..RunSettings::default()
        };
        assert!(
            bare.request("k.wgsl", "").is_err(),
            "an option needs its value"
        );
    }

    fn request_with(textures: &str) -> Result<crate::profile::run::Request, String> {
        let settings = RunSettings {
            textures: textures.to_owned(),
            ..RunSettings::default()
        };
        settings.request("k.wgsl", "")
    }

    /// The textures field takes the command line's options with or without their dashes, and
    /// a line it cannot read says which field and what it takes.
    #[test]
    fn texture_lines_read_as_the_command_line_writes_them_and_bad_ones_say_why() {
        let request = request_with("texture src=gradient\n--size src=32x16\n\nsampler s=nearest")
            .expect("three options");
        let t = &request.textures;
        assert_eq!((t.fills.len(), t.sizes.len(), t.samplers.len()), (1, 1, 1));
        assert_eq!(t.sizes[0].value.0, vec![32, 16]);
        assert!(request.keep_images, "the app shows the textures");

        let unknown = request_with("textur src=gradient").unwrap_err();
        assert!(
            unknown.starts_with("textures: `textur src=gradient` is none of texture, size"),
            "{unknown}"
        );
        let fill = request_with("texture src=gradnt").unwrap_err();
        assert!(
            fill.starts_with("textures: ") && fill.contains("gradnt"),
            "{fill}"
        );
    }
}
