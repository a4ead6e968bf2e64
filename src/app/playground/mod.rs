//! The playground: edit or open a WGSL compute kernel, see naga's compile error at its line and
//! the static uniformity verdict of every line, and Run it through `divlab profile`'s engine to
//! see, per line, how many subgroup executions it had and how many of their lanes were active.

pub mod examples;
mod pane;
mod progress;
mod settings;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use eframe::egui;
use serde::{Deserialize, Serialize};

use super::dispatch_map::DispatchMap;
use super::pictures::Pictures;
use super::profile_view::{self, PaneAction, PaneView};
use super::worker::ProfileRun;
use crate::gpu::AdapterSelector;
use crate::profile::report::Profile;
use crate::profile::run::Finished;
use crate::uniformity::{Analysis, analyze_source};
pub use examples::EXAMPLE;
use examples::EXAMPLES;
pub use settings::{FILE, RunSettings};

/// A failed run: where (a line, when the error has one) and why.
#[derive(Clone, Debug)]
pub struct RunError {
    /// The 1-based line, or 0.
    pub line: u32,
    /// What happened and what to do.
    pub message: String,
}

/// The last run, with the source it ran.
pub struct LastRun {
    /// The source as it was when Run was pressed.
    pub source: String,
    /// The profile, or why there is none.
    pub outcome: Result<Finished, RunError>,
}

/// The editor's text, the result of its last check, and runs. A persisted panel: its source
/// and run settings are saved with the app's [`super::State`], the rest is of this session.
#[derive(Serialize, Deserialize)]
#[serde(default)]
pub struct Playground {
    /// The WGSL being edited.
    pub source: String,
    /// How Run runs it.
    pub settings: RunSettings,
    /// The file the source was opened from, if any: its name is the kernel's in messages.
    pub path: Option<PathBuf>,
    /// Without a file, the kernel's own name: the example's (`threshold.wgsl`), or that of the
    /// kernel a profile document shown here was made from (`kernel.file`'s last part), so that
    /// the editor, messages and Save call it by its name.
    pub origin: Option<String>,
    /// The run settings each opened file had when another kernel took its place, by path: a
    /// kernel opened again starts from its own settings, a new one from the defaults.
    pub settings_by_file: BTreeMap<PathBuf, RunSettings>,
    /// The file's text as last opened or saved (`None` without a file): the kernel is modified
    /// where its source differs. Persisted, so an edit that returns on the next start is still
    /// marked.
    pub saved: Option<String>,
    #[serde(skip)]
    checked: Option<String>,
    /// The checked module's compute entry points, in source order, for the settings' list.
    #[serde(skip)]
    entries: Vec<String>,
    #[serde(skip)]
    outcome: Outcome,
    #[serde(skip)]
    run: Option<(ProfileRun, String)>,
    /// The stage the run in progress is in, and since when.
    #[serde(skip)]
    progress: Option<progress::Progress>,
    /// Cancelled runs whose thread is still inside one driver call (a compile, or one
    /// submission: llvmpipe took minutes over some): nothing waits for them, and each ends
    /// there, at its next check of the cancel.
    #[serde(skip)]
    cancelled: Vec<ProfileRun>,
    /// The last run's outcome.
    #[serde(skip)]
    pub last: Option<LastRun>,
    /// A line to bring into view (a branch table row was clicked).
    #[serde(skip)]
    jump: Option<u32>,
    /// The lanes the last run recorded at a line, as a lane map.
    #[serde(skip)]
    lane_map: Option<profile_view::LaneMap>,
    /// The same lanes over the whole dispatch.
    #[serde(skip)]
    dispatch_map: Option<DispatchMap>,
    /// The last run's textures.
    #[serde(skip)]
    pictures: Pictures,
    /// A profile kept to show beside the next one.
    #[serde(skip)]
    pinned: Option<Box<Profile>>,
    /// The view of the profile shown.
    #[serde(skip)]
    view: PaneView,
}

/// What the Playground asks the app to do: things that need a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlaygroundAction {
    /// Ask where to write the last run's profile document.
    SaveProfile,
    /// Ask where to write this picture of the last run as PNG.
    SavePicture(usize),
}

impl Default for Playground {
    fn default() -> Self {
        Self::new(EXAMPLE.to_owned())
    }
}

/// What a check found.
#[derive(Default)]
pub enum Outcome {
    /// Not checked yet.
    #[default]
    None,
    /// It does not compile: where and why.
    Invalid {
        line: u32,
        column: u32,
        message: String,
    },
    /// It compiles; the static analysis.
    Analysed(Box<Analysis>),
}

impl Playground {
    /// A playground holding `source`.
    pub fn new(source: String) -> Self {
        Self {
            source,
            checked: None,
            entries: Vec::new(),
            outcome: Outcome::None,
            settings: RunSettings::default(),
            path: None,
            origin: None,
            settings_by_file: BTreeMap::new(),
            saved: None,
            run: None,
            progress: None,
            cancelled: Vec::new(),
            last: None,
            jump: None,
            lane_map: None,
            dispatch_map: None,
            pictures: Pictures::default(),
            pinned: None,
            view: PaneView::Source,
        }
    }

    /// The last run's dispatch map, once a line's lanes were recorded.
    pub fn dispatch_map(&self) -> Option<&DispatchMap> {
        self.dispatch_map.as_ref()
    }

    /// The last run's textures.
    pub fn pictures(&self) -> &Pictures {
        &self.pictures
    }

    /// The profile kept for the side-by-side view, if any.
    pub fn pinned(&self) -> Option<&Profile> {
        self.pinned.as_deref()
    }

    /// The last run's profile, if it ran.
    pub fn profile(&self) -> Option<&Profile> {
        self.last
            .as_ref()
            .and_then(|l| l.outcome.as_ref().ok())
            .map(|f| &f.profile)
    }

    /// Keeps the last run's profile to show beside the next one.
    pub fn pin(&mut self) {
        if let Some(profile) = self.profile() {
            self.pinned = Some(Box::new(profile.clone()));
        }
    }

    /// The source as it is now, for Save.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// After `source` was written to `path`: it is the kernel's file from now on.
    pub fn saved_to(&mut self, path: &Path, source: &str) {
        if self.path.as_deref() != Some(path) {
            self.keep_settings();
            self.path = Some(path.to_owned());
        }
        self.saved = Some(source.to_owned());
    }

    /// Whether the kernel came from a file and was edited since it was opened or saved. A
    /// state saved before the file's text was kept (`saved` absent) cannot tell: not marked.
    pub fn modified(&self) -> bool {
        self.path.is_some()
            && self
                .saved
                .as_deref()
                .is_some_and(|saved| saved != self.source)
    }

    /// The view of the profile shown.
    pub fn view(&self) -> PaneView {
        self.view
    }

    /// After another kernel took the editor: a pinned profile of a different kernel is not
    /// shown beside it until the user asks (the tab says "different kernels").
    fn leave_side_by_side(&mut self) {
        self.view = PaneView::Source;
    }

    /// The view a new profile of `file` opens in: its lanes where it recorded them; side by
    /// side with the pinned profile where that is of the same kernel or an edit of it; else
    /// the source.
    fn view_for(&self, profile: &Profile) -> PaneView {
        let related = self.pinned.as_deref().is_some_and(|pinned| {
            let source = profile.source.as_deref().unwrap_or(&self.source);
            profile_view::relation(pinned, &profile.kernel.file, source)
                != profile_view::Relation::Different
        });
        if profile.lanes.is_some() {
            PaneView::Lanes
        } else if related {
            PaneView::SideBySide
        } else {
            PaneView::Source
        }
    }

    /// Forgets what the last run showed.
    fn clear_run(&mut self) {
        self.last = None;
        self.lane_map = None;
        self.dispatch_map = None;
        self.pictures = Pictures::default();
        self.jump = None;
    }

    /// The compute entry points of the source as last checked, in source order.
    pub fn entries(&self) -> &[String] {
        &self.entries
    }

    /// The last check's outcome.
    pub fn outcome(&self) -> &Outcome {
        &self.outcome
    }

    /// Whether a run is in progress.
    pub fn running(&self) -> bool {
        self.run.is_some()
    }

    /// Loads an example: its source and its run settings.
    pub fn load_example(&mut self, name: &str) -> bool {
        let Some(example) = EXAMPLES.iter().find(|e| e.name == name) else {
            return false;
        };
        self.keep_settings();
        self.path = None;
        self.origin = Some(example.file_name());
        self.saved = None;
        self.source = example.source();
        self.settings = example.settings();
        self.clear_run();
        self.leave_side_by_side();
        true
    }

    /// Loads the kernel of the file at `path`: its source, and the run settings it had when it
    /// was last open here, else those of the first run its header names (`// divlab-profile:
    /// ARGS` or `// divlab profile FILE ARGS`), else the defaults; nothing of the kernel before
    /// it carries over. Returns what was taken from the header, to tell the user.
    pub fn open_kernel(&mut self, path: &Path, source: String) -> Option<String> {
        self.keep_settings();
        let header = crate::profile::header::header_runs(&source)
            .into_iter()
            .next();
        let (settings, told) = match (self.settings_by_file.get(path), header) {
            (Some(kept), _) => (kept.clone(), None),
            (None, Some(mut args)) => {
                crate::profile::header::resolve_file_fills(&mut args, path);
                let (settings, left_out) = RunSettings::of_args(&args);
                let mut told = format!("run settings from its header: {}", args.join(" "));
                if !left_out.is_empty() {
                    told += &format!(" (not settings here: {})", left_out.join(" "));
                }
                (settings, Some(told))
            }
            (None, None) => (RunSettings::default(), None),
        };
        self.settings = settings;
        self.path = Some(path.to_owned());
        self.origin = None;
        self.saved = Some(source.clone());
        self.source = source;
        self.clear_run();
        self.leave_side_by_side();
        told
    }

    /// The name of the kernel in messages: its file's, or [`FILE`].
    pub fn file_name(&self) -> String {
        let file = self.path.as_deref().and_then(Path::file_name);
        (file.map(|n| n.to_string_lossy().into_owned()))
            .or_else(|| self.origin.clone())
            .unwrap_or_else(|| FILE.to_owned())
    }

    /// Files the current settings under the current file, if it came from one.
    fn keep_settings(&mut self) {
        if let Some(path) = &self.path {
            self.settings_by_file
                .insert(path.clone(), self.settings.clone());
        }
    }

    /// Shows a profile document (`divlab profile --json`) as if it had just run here: its
    /// source in the editor, its run settings in the form (so Run runs it again), and its
    /// gutter, branches and lane records, without running anything. A document written with
    /// `--no-source` cannot be shown.
    pub fn show_profile(&mut self, profile: Profile) -> Result<(), String> {
        let source = profile.source.clone().ok_or_else(|| {
            "it was written with --no-source, so it has no kernel to show; write it again \
             without --no-source"
                .to_owned()
        })?;
        let cap_hit = profile.loop_cap_line.map(|line| {
            format!(
                "an invocation hit the loop cap ({}) in the loop at line {line}: the profile is \
                 of the cut-short run",
                profile.loop_cap
            )
        });
        self.clear_run();
        // A document's lane records show once asked for (its Lanes tab).
        self.view = match self.view_for(&profile) {
            PaneView::Lanes => PaneView::Source,
            view => view,
        };
        self.jump = entry_line(&source, &profile.kernel.entry);
        self.lane_map = profile_view::LaneMap::of(&profile);
        self.dispatch_map = DispatchMap::of(&profile);
        let finished = Finished {
            subgroup_width: profile.subgroup_size,
            cap_hit,
            instrumented_wgsl: String::new(),
            profile,
            images: Vec::new(),
            inputs: Vec::new(),
        };
        self.keep_settings();
        self.path = None;
        self.origin = Path::new(&finished.profile.kernel.file)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned());
        self.saved = None;
        self.settings = RunSettings::of_request(&finished.profile.request);
        self.source = source.clone();
        self.last = Some(LastRun {
            source,
            outcome: Ok(finished),
        });
        Ok(())
    }

    /// Checks the source with naga (located errors), then analyses its uniformity.
    pub fn check(&mut self) {
        let file = self.file_name();
        let module = crate::shaders::check_kernel_wgsl(&file, &self.source).map(|c| c.module);
        if let Ok(module) = &module {
            self.entries = module
                .entry_points
                .iter()
                .filter(|e| e.stage == naga::ShaderStage::Compute)
                .map(|e| e.name.clone())
                .collect();
        }
        self.outcome = match module.and_then(|_| analyze_source(&file, &self.source)) {
            Ok(analysis) => Outcome::Analysed(Box::new(analysis)),
            Err(crate::Error::InvalidWgsl {
                line,
                column,
                message,
                ..
            }) => Outcome::Invalid {
                line,
                column,
                message,
            },
            Err(e) => Outcome::Invalid {
                line: 0,
                column: 0,
                message: e.to_string(),
            },
        };
        self.checked = Some(self.source.clone());
    }

    /// Runs the source as it is now on `adapter` (`None`: divlab's default).
    pub fn start_run(&mut self, ctx: &egui::Context, adapter: Option<usize>) {
        self.start_run_at(ctx, adapter, None);
    }

    /// As [`Self::start_run`], recording which lanes run `lanes_line` (`--lanes`).
    pub fn start_run_at(
        &mut self,
        ctx: &egui::Context,
        adapter: Option<usize>,
        lanes_line: Option<u32>,
    ) {
        if self.run.is_some() {
            return;
        }
        match self.settings.request(&self.file_name(), &self.source) {
            Ok(mut request) => {
                request.lanes_line = lanes_line;
                let selector = AdapterSelector {
                    backend: None,
                    adapter: adapter.map(|i| i.to_string()),
                };
                let run = ProfileRun::start(ctx.clone(), selector, request);
                self.run = Some((run, self.source.clone()));
                self.progress = None;
            }
            Err(message) => {
                self.last = Some(LastRun {
                    source: self.source.clone(),
                    outcome: Err(RunError { line: 0, message }),
                });
            }
        }
    }

    /// Cancels the run in progress, at once: the editor can run again while the cancelled
    /// run's thread finishes the driver call it is in.
    pub fn cancel_run(&mut self) {
        let Some((run, source)) = self.run.take() else {
            return;
        };
        run.cancel();
        self.cancelled.push(run);
        self.clear_run();
        let message = format!("the run of {} was cancelled", self.file_name());
        self.last = Some(LastRun {
            source,
            outcome: Err(RunError { line: 0, message }),
        });
    }

    /// Whether a cancelled run's thread is still inside a driver call.
    pub fn cancelled_still_busy(&self) -> bool {
        !self.cancelled.is_empty()
    }

    fn poll_run(&mut self) {
        self.cancelled.retain(|run| !run.ended());
        let Some((run, _)) = &self.run else { return };
        let (stage, outcome) = run.poll();
        if let Some(stage) = stage {
            self.progress = Some(progress::Progress::new(stage));
        }
        let Some(outcome) = outcome else { return };
        let (_, source) = self.run.take().expect("a run is in progress");
        let mut outcome = outcome.map_err(|e| self.run_error(&e));
        self.clear_run();
        if let Ok(finished) = &mut outcome {
            self.view = self.view_for(&finished.profile);
            // The gutter opens at the entry point that ran, not at the module's first lines.
            if finished.profile.lanes.is_none() {
                self.jump = entry_line(&source, &finished.profile.kernel.entry);
            }
            self.lane_map = profile_view::LaneMap::of(&finished.profile);
            self.dispatch_map = DispatchMap::of(&finished.profile);
            self.pictures = Pictures::new(std::mem::take(&mut finished.images));
        }
        self.last = Some(LastRun { source, outcome });
    }

    /// A failed run as the result pane shows it: the message, and the line it names (from the
    /// error's own field, never from its words).
    fn run_error(&self, e: &crate::Error) -> RunError {
        let line = e.line().unwrap_or(0);
        let message = match e {
            crate::Error::InvalidWgsl {
                column, message, ..
            } => format!("{}:{line}:{column}: {message}", self.file_name()),
            e => e.to_string(),
        };
        RunError { line, message }
    }

    /// The view: examples, Run and its settings above; the editor beside the verdicts or, once
    /// it ran, the profile painted onto the source.
    pub fn ui(&mut self, ui: &mut egui::Ui, adapter: Option<usize>) -> Option<PlaygroundAction> {
        self.poll_run();
        if self.checked.as_deref() != Some(self.source.as_str()) {
            self.check();
        }
        self.settings.pick_entry(&self.entries);
        // Before the editor sees the key.
        let run_key = ui.input_mut(|i| i.consume_key(egui::Modifiers::COMMAND, egui::Key::Enter));
        self.toolbar(ui, adapter, run_key);
        self.settings.ui(ui, &self.entries);
        ui.separator();
        let mut action = None;
        // The lanes and side-by-side views take the whole width: they are read, not edited.
        let wide = match self.view {
            PaneView::Source => false,
            PaneView::Lanes => self.lane_map.is_some(),
            PaneView::SideBySide => self.pinned.is_some(),
        } && self.profile().is_some();
        if !wide {
            let width = ui.available_width();
            egui::Panel::left("playground_editor_panel")
                .frame(egui::Frame::NONE.inner_margin(egui::Margin {
                    right: 6,
                    ..Default::default()
                }))
                .resizable(true)
                .default_size((width * 0.35).max(300.0))
                .min_size(200.0)
                .max_size((width - 260.0).max(200.0))
                .show(ui, |ui| self.editor(ui));
        }
        let pane = egui::CentralPanel::default()
            .frame(egui::Frame::NONE)
            .show(ui, |ui| (self.result_pane(ui), ui.ctx().clone()));
        let (asked, ctx) = pane.inner;
        match asked {
            Some(PaneAction::RecordLanes(line)) => self.start_run_at(&ctx, adapter, Some(line)),
            Some(PaneAction::SavePicture(index)) => {
                action = Some(PlaygroundAction::SavePicture(index));
            }
            Some(PaneAction::SaveProfile) => action = Some(PlaygroundAction::SaveProfile),
            Some(PaneAction::Pin) => self.pin(),
            Some(PaneAction::Unpin) => self.pinned = None,
            None => {}
        }
        action
    }

    /// The editor, headed by the kernel's name and, where it was edited since it was opened or
    /// saved, a modified mark.
    fn editor(&mut self, ui: &mut egui::Ui) {
        let heading = if self.modified() {
            format!("• {} (modified; checked as you type)", self.file_name())
        } else {
            format!("{} (edit here; checked as you type)", self.file_name())
        };
        let label = ui
            .add(egui::Label::new(egui::RichText::new(heading).strong()).truncate())
            .on_hover_text(match &self.path {
                Some(path) if self.modified() => {
                    format!("Edited since {} was opened or saved", path.display())
                }
                Some(path) => format!("As {} holds it", path.display()),
                None if self.origin.is_some() => "An example, or the kernel of the profile \
                    document last opened, not a file here: Save writes it to one"
                    .to_owned(),
                None => "Not a file yet: Save writes it to one".to_owned(),
            });
        // Lines are not wrapped, as in a code editor: a long one scrolls sideways, so that each
        // line of the editor is a line of the file (the profile beside it numbers them so).
        let mut unwrapped = |ui: &egui::Ui, text: &dyn egui::TextBuffer, _wrap_width: f32| {
            let font = egui::TextStyle::Monospace.resolve(ui.style());
            let colour = ui.visuals().widgets.inactive.text_color();
            let job = egui::text::LayoutJob::simple(
                text.as_str().to_owned(),
                font,
                colour,
                f32::INFINITY,
            );
            ui.fonts_mut(|f| f.layout_job(job))
        };
        egui::ScrollArea::both()
            .id_salt("playground_editor")
            .show(ui, |ui| {
                ui.add(
                    egui::TextEdit::multiline(&mut self.source)
                        .code_editor()
                        .layouter(&mut unwrapped)
                        .desired_width(f32::INFINITY)
                        .desired_rows(24),
                )
                .labelled_by(label.id);
            });
    }

    fn toolbar(&mut self, ui: &mut egui::Ui, adapter: Option<usize>, run_key: bool) {
        ui.horizontal(|ui| {
            let mut chosen = None;
            ui.menu_button("Examples", |ui| {
                for example in EXAMPLES {
                    if ui
                        .button(example.name)
                        .on_hover_text(example.about)
                        .clicked()
                    {
                        chosen = Some(example.name);
                        ui.close();
                    }
                }
            })
            .response
            .on_hover_text("Kernels to start from, with run settings that show divergence");
            if let Some(name) = chosen {
                self.load_example(name);
            }
            match &self.run {
                Some(_) => {
                    if ui.button("Cancel").clicked() {
                        self.cancel_run();
                    }
                    progress::show(ui, self.progress, self.settings.counts);
                }
                None => {
                    let run = ui
                        .button("Run")
                        .on_hover_text("Profile the kernel as written (Ctrl+Enter)");
                    if run.clicked() || run_key {
                        self.start_run(ui.ctx(), adapter);
                    }
                }
            }
            if self.cancelled_still_busy() {
                ui.weak("a cancelled run is finishing its driver call (a compile or one dispatch)")
                    .on_hover_text(
                        "It stops there. Until then it shares the device, so a run started now \
                         may time slower",
                    );
                // Nothing else repaints when it ends.
                ui.ctx()
                    .request_repaint_after(std::time::Duration::from_millis(500));
            }
        });
    }
}

/// The 1-based line that declares `entry` (`fn entry(`), where the source has one.
fn entry_line(source: &str, entry: &str) -> Option<u32> {
    source
        .lines()
        .position(|line| {
            let Some(at) = line.find("fn ") else {
                return false;
            };
            let rest = line[at + 3..].trim_start();
            rest.strip_prefix(entry)
                .is_some_and(|after| after.trim_start().starts_with('('))
                && (at == 0 || !line.as_bytes()[at - 1].is_ascii_alphanumeric())
        })
        .map(|i| i as u32 + 1)
}

#[cfg(test)]
mod tests {
    use super::Playground;

    /// A profile document's kernel is named after the file it was made from until it is
    /// saved somewhere or another kernel takes its place: an example, by its own name.
    #[test]
    fn a_shown_profile_names_its_kernel_by_the_documents_file() {
        let mut playground = Playground::default();
        assert_eq!(playground.file_name(), super::FILE);
        let mut profile = crate::app::profile_view::fixture::profile();
        profile.kernel.file = "assets/kernels/threshold.wgsl".to_owned();
        playground.show_profile(profile).unwrap();
        assert_eq!(playground.file_name(), "threshold.wgsl");
        assert!(playground.path.is_none(), "no file of its own yet");
        playground.load_example(super::EXAMPLES[0].name);
        assert_eq!(playground.file_name(), "bounds_checked.wgsl");
    }

    #[test]
    fn an_entry_points_line_is_its_fn_declaration() {
        let source = "fn reduce_helper() {}\n@compute @workgroup_size(8)\nfn reduce() {}\n\
                      @compute @workgroup_size(8)\nfn  downsweep (@builtin(local_invocation_index) i: u32) {}\n";
        assert_eq!(super::entry_line(source, "reduce"), Some(3));
        assert_eq!(super::entry_line(source, "downsweep"), Some(5));
        assert_eq!(super::entry_line(source, "scan"), None);
    }
}
