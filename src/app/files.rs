//! Choosing files: a native dialog through rfd where the platform has one, else a path prompt
//! drawn by the app (Xvfb, or a desktop with neither an XDG portal nor zenity), and the question
//! asked before writing over a file.

use std::path::PathBuf;
use std::sync::mpsc::{Receiver, channel};

use eframe::egui;

/// How the app asks for a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DialogKind {
    /// The platform's dialog, through rfd.
    Native,
    /// A path field in the app.
    Prompt,
}

impl DialogKind {
    /// `DIVLAB_FILE_DIALOG=prompt|native` where set; else native, except on Linux without a
    /// session bus (for the XDG portal) and without zenity (rfd's fallback), where a native
    /// dialog could only fail.
    pub fn detect() -> Self {
        let forced = std::env::var("DIVLAB_FILE_DIALOG").ok();
        Self::choose(
            forced.as_deref(),
            cfg!(target_os = "linux"),
            linux_has_dialog(),
        )
    }

    /// The choice from the override (`prompt`, `native`), the platform and whether Linux has
    /// a dialog to show.
    pub fn choose(forced: Option<&str>, linux: bool, linux_has_dialog: bool) -> Self {
        match forced {
            Some("prompt") => Self::Prompt,
            Some("native") => Self::Native,
            _ if linux && !linux_has_dialog => Self::Prompt,
            _ => Self::Native,
        }
    }

    /// The one-line notice the prompt shows.
    pub const PROMPT_NOTICE: &str =
        "No native file dialog here (no XDG desktop portal or zenity): type the path.";
}

fn linux_has_dialog() -> bool {
    let bus = std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some_and(|v| !v.is_empty());
    let zenity = std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join("zenity").is_file()));
    bus || zenity
}

/// What a path is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileAction {
    /// A result file or a `.wgsl` kernel to open.
    Open,
    /// Where to save something.
    SaveAs(SaveTarget),
}

/// What a save writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SaveTarget {
    /// The shown result document.
    Results,
    /// The Playground's kernel, as WGSL.
    Kernel,
    /// The Playground's last profile, as a profile document.
    Profile,
    /// A picture of the Playground's last run, by index, as PNG.
    Picture(usize),
}

impl SaveTarget {
    /// The file filter's name and extension.
    fn filter(self) -> (&'static str, &'static str) {
        match self {
            Self::Results => ("divlab results", "json"),
            Self::Kernel => ("WGSL kernel", "wgsl"),
            Self::Profile => ("divlab profile", "json"),
            Self::Picture(_) => ("PNG image", "png"),
        }
    }
}

impl FileAction {
    fn title(self) -> &'static str {
        match self {
            Self::Open => "Open a result or profile document (.json) or a kernel (.wgsl)",
            Self::SaveAs(SaveTarget::Results) => "Save the shown document as",
            Self::SaveAs(SaveTarget::Kernel) => "Save the kernel as",
            Self::SaveAs(SaveTarget::Profile) => "Save the profile as",
            Self::SaveAs(SaveTarget::Picture(_)) => "Save the picture as",
        }
    }
}

/// What the file controls wait on.
pub enum Pending {
    /// A native dialog, on a thread of its own so the app keeps drawing.
    Dialog {
        action: FileAction,
        chosen: Receiver<Option<PathBuf>>,
    },
    /// The app's path prompt; `focused` once its field took the keyboard.
    Prompt {
        action: FileAction,
        path: String,
        focused: bool,
    },
    /// Saving would write over `path`, which the app did not write: asks first.
    Overwrite { path: PathBuf },
    /// The window is closing with unsaved edits to the kernel `file`: asks first.
    Close { file: String },
}

/// What the user decided this frame.
#[derive(Debug, PartialEq, Eq)]
pub enum Decision {
    /// Open this path.
    Open(PathBuf),
    /// Save to this path; `confirmed` when the user agreed to replace what is there.
    Save { path: PathBuf, confirmed: bool },
    /// Closing: save the kernel first, then close.
    CloseSave,
    /// Closing: close without saving the kernel's edits.
    CloseDiscard,
}

/// Starts asking for a path: a native dialog or the prompt. `suggested` fills the prompt, or
/// names the file in a save dialog.
pub fn ask(kind: DialogKind, action: FileAction, suggested: Option<PathBuf>) -> Pending {
    match kind {
        DialogKind::Prompt => Pending::Prompt {
            action,
            path: suggested.map_or_else(String::new, |p| p.display().to_string()),
            focused: false,
        },
        DialogKind::Native => {
            let mut dialog = rfd::AsyncFileDialog::new().set_title(action.title());
            dialog = match action {
                FileAction::Open => dialog
                    .add_filter("divlab results or profile", &["json"])
                    .add_filter("WGSL kernel", &["wgsl"]),
                FileAction::SaveAs(target) => {
                    let (name, extension) = target.filter();
                    dialog.add_filter(name, &[extension])
                }
            };
            if let Some(path) = &suggested {
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    dialog = dialog.set_directory(dir);
                }
                if let Some(name) = path.file_name() {
                    dialog = dialog.set_file_name(name.to_string_lossy());
                }
            }
            let (tx, chosen) = channel();
            let future = async move {
                let handle = match action {
                    FileAction::Open => dialog.pick_file().await,
                    FileAction::SaveAs(_) => dialog.save_file().await,
                };
                let _ = tx.send(handle.map(|h| h.path().to_owned()));
            };
            std::thread::spawn(move || pollster::block_on(future));
            Pending::Dialog { action, chosen }
        }
    }
}

/// Draws what `pending` needs (the prompt, or the overwrite question) and returns the decision,
/// if one was made; `pending` becomes `None` when the question is answered either way.
pub fn show(ctx: &egui::Context, pending: &mut Option<Pending>) -> Option<Decision> {
    let (decision, close) = match pending.as_mut()? {
        Pending::Dialog { action, chosen } => match chosen.try_recv() {
            Ok(path) => (path.map(|p| decide(*action, p)), true),
            Err(std::sync::mpsc::TryRecvError::Empty) => {
                ctx.request_repaint_after(std::time::Duration::from_millis(200));
                (None, false)
            }
            Err(std::sync::mpsc::TryRecvError::Disconnected) => (None, true),
        },
        Pending::Prompt {
            action,
            path,
            focused,
        } => prompt(ctx, *action, path, focused),
        Pending::Overwrite { path } => overwrite(ctx, path),
        Pending::Close { file } => close(ctx, file),
    };
    if close {
        *pending = None;
    }
    decision
}

fn decide(action: FileAction, path: PathBuf) -> Decision {
    match action {
        FileAction::Open => Decision::Open(path),
        // A native save dialog asks about an existing file itself.
        FileAction::SaveAs(_) => Decision::Save {
            path,
            confirmed: true,
        },
    }
}

/// The path prompt: a notice, a field (which takes the keyboard as the prompt opens, so typing
/// after Ctrl+O goes into it, in place of the path suggested), OK and Cancel. Returns the
/// decision and whether to close.
fn prompt(
    ctx: &egui::Context,
    action: FileAction,
    path: &mut String,
    focused: &mut bool,
) -> (Option<Decision>, bool) {
    let mut outcome = (None, false);
    egui::Modal::new(egui::Id::unique("file_prompt")).show(ctx, |ui| {
        ui.set_max_width(520.0);
        ui.heading(action.title());
        ui.weak(DialogKind::PROMPT_NOTICE);
        let label = ui.label("Path:");
        let field = ui
            .add(egui::TextEdit::singleline(path).desired_width(500.0))
            .labelled_by(label.id);
        if !*focused {
            // The suggested path is selected, as a native dialog selects its file name: typing
            // replaces it, an arrow key keeps it to edit.
            let mut state =
                egui::text_edit::TextEditState::load(ui.ctx(), field.id).unwrap_or_default();
            let all = egui::text_selection::CCursorRange::select_all_str(path);
            state.cursor.set_char_range(Some(all));
            state.store(ui.ctx(), field.id);
            field.request_focus();
            *focused = true;
        }
        let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        ui.horizontal(|ui| {
            let ok = ui.add_enabled(!path.trim().is_empty(), egui::Button::new("OK"));
            if (ok.clicked() || entered) && !path.trim().is_empty() {
                let chosen = PathBuf::from(path.trim());
                outcome = (
                    Some(match action {
                        FileAction::Open => Decision::Open(chosen),
                        FileAction::SaveAs(_) => Decision::Save {
                            path: chosen,
                            confirmed: false,
                        },
                    }),
                    true,
                );
            }
            if ui.button("Cancel").clicked() || ui.input(|i| i.key_pressed(egui::Key::Escape)) {
                outcome = (None, true);
            }
        });
    });
    outcome
}

/// Asks before closing the window over unsaved edits to the kernel `file`.
fn close(ctx: &egui::Context, file: &str) -> (Option<Decision>, bool) {
    let message = format!(
        "{file} was edited in the Playground since it was opened or saved. Closing without \
         saving loses the edits."
    );
    let choices = [
        ("Save…", Decision::CloseSave),
        ("Close without saving", Decision::CloseDiscard),
    ];
    question(
        ctx,
        "close_with_edits",
        "Save the kernel's edits?",
        &message,
        choices,
    )
}

/// Asks before writing over `path`.
fn overwrite(ctx: &egui::Context, path: &std::path::Path) -> (Option<Decision>, bool) {
    let message = format!(
        "{} already exists, and divlab did not write it. Saving replaces its contents.",
        path.display()
    );
    let replace = Decision::Save {
        path: path.to_owned(),
        confirmed: true,
    };
    question(
        ctx,
        "overwrite",
        "Replace the file?",
        &message,
        [("Replace", replace)],
    )
}

/// A modal question: a button per choice, then Cancel (or Escape), which decides nothing.
/// Returns the choice clicked and whether the dialog is done.
fn question<const N: usize>(
    ctx: &egui::Context,
    id: &str,
    heading: &str,
    message: &str,
    choices: [(&str, Decision); N],
) -> (Option<Decision>, bool) {
    let mut outcome = (None, false);
    egui::Modal::new(egui::Id::unique(id)).show(ctx, |ui| {
        ui.set_max_width(520.0);
        ui.heading(heading);
        ui.add(egui::Label::new(message).wrap());
        ui.horizontal(|ui| {
            for (label, decision) in choices {
                if ui.button(label).clicked() {
                    outcome = (Some(decision), true);
                }
            }
            if ui.button("Cancel").clicked() || ui.input(|i| i.key_pressed(egui::Key::Escape)) {
                outcome = (None, true);
            }
        });
    });
    outcome
}

#[cfg(test)]
mod tests {
    use super::DialogKind;

    #[test]
    fn linux_without_portal_or_zenity_falls_back_to_the_prompt() {
        assert_eq!(DialogKind::choose(None, true, false), DialogKind::Prompt);
        assert_eq!(DialogKind::choose(None, true, true), DialogKind::Native);
        assert_eq!(DialogKind::choose(None, false, false), DialogKind::Native);
        assert_eq!(
            DialogKind::choose(Some("prompt"), false, true),
            DialogKind::Prompt
        );
        assert_eq!(
            DialogKind::choose(Some("native"), true, false),
            DialogKind::Native
        );
    }
}
