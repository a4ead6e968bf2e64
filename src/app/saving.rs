//! Saving and opening through the file questions: the shown document, the Playground's kernel
//! (an edited kernel goes to a new file unless the user names its own), its profile and
//! pictures; and closing the window with unsaved edits, which asks first.

use std::path::{Path, PathBuf};

use eframe::egui;

use super::files::{self, Decision, FileAction, Pending, SaveTarget};
use super::{DivlabApp, Tab};

/// Where closing the window stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Closing {
    /// Not asked to close, or the user cancelled.
    #[default]
    No,
    /// The user chose to save first: close once the kernel is written.
    AfterSave,
    /// Close: nothing unsaved, or the user said so.
    Confirmed,
}

impl DivlabApp {
    /// Before the window closes: an edited kernel asks first (save, close without saving, or
    /// stay); once confirmed, the close goes ahead.
    pub(super) fn closing(&mut self, ctx: &egui::Context) {
        if self.closing == Closing::Confirmed && self.pending.is_none() {
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
            return;
        }
        // "Save…" whose question was cancelled, or whose write failed: the window stays, and
        // a later save closes nothing.
        if self.closing == Closing::AfterSave && self.pending.is_none() {
            self.closing = Closing::No;
        }
        let requested = ctx.input(|i| i.viewport().close_requested());
        if !requested || !self.state.playground.modified() {
            return;
        }
        ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
        if self.pending.is_none() {
            self.pending = Some(Pending::Close {
                file: self.state.playground.file_name(),
            });
        }
    }

    /// Save: writes the shown document to its file (in the Playground, the kernel to its
    /// `.wgsl`). A file the app did not write itself (one it opened) is replaced only after the
    /// user confirms; a document without a file asks where.
    pub(super) fn save(&mut self) {
        if self.state.tab == Tab::Playground {
            self.saving = SaveTarget::Kernel;
            let playground = &self.state.playground;
            match playground.path.clone() {
                Some(path) if !playground.modified() && path.exists() => {
                    self.message = Some((
                        false,
                        format!(
                            "no edits to save: {} holds the kernel as shown",
                            path.display()
                        ),
                    ));
                }
                Some(path) if self.written_kernels.contains(&path) => self.save_kernel(&path),
                // An edited kernel goes to a new file unless the user names its own (and
                // confirms replacing it).
                _ => self.ask_save(SaveTarget::Kernel),
            }
            return;
        }
        self.saving = SaveTarget::Results;
        let Some(document) = self.documents.shown() else {
            return;
        };
        match &document.file {
            Some(path) if !document.written && path.exists() => {
                self.pending = Some(Pending::Overwrite { path: path.clone() });
            }
            Some(path) => {
                let path = path.clone();
                self.save_to(&path);
            }
            None => self.save_as(),
        }
    }

    /// Asks where to write `target`, suggesting the file it has or a name beside the last
    /// file used.
    pub(super) fn ask_save(&mut self, target: SaveTarget) {
        let dir = Path::new(&self.state.path)
            .parent()
            .unwrap_or(Path::new(""))
            .to_owned();
        let playground = &self.state.playground;
        let stem = playground.file_name().trim_end_matches(".wgsl").to_owned();
        let suggested = match target {
            SaveTarget::Results => {
                let Some(document) = self.documents.shown() else {
                    return;
                };
                document.file.clone().unwrap_or_else(|| {
                    let name = document
                        .autosaved
                        .as_ref()
                        .and_then(|p| p.file_name())
                        .map_or_else(|| "results.json".into(), |n| n.to_owned());
                    dir.join(name)
                })
            }
            SaveTarget::Kernel => match &playground.path {
                Some(path) if path.exists() && !self.written_kernels.contains(path) => {
                    fresh_name(path)
                }
                Some(path) => path.clone(),
                None => dir.join(playground.file_name()),
            },
            SaveTarget::Profile => dir.join(format!("{stem}.profile.json")),
            SaveTarget::Picture(i) => {
                let name = playground
                    .pictures()
                    .images()
                    .get(i)
                    .map_or("texture", |p| p.name.as_str());
                dir.join(format!("{stem}.{name}.png"))
            }
        };
        self.saving = target;
        self.pending = Some(files::ask(
            self.dialogs,
            FileAction::SaveAs(target),
            Some(suggested),
        ));
    }

    /// Writes the Playground's kernel to `path`; it is the kernel's file from then on.
    pub(super) fn save_kernel(&mut self, path: &Path) {
        let source = self.state.playground.source().to_owned();
        self.message = Some(match crate::report::write_atomic(path, source.as_bytes()) {
            Ok(()) => {
                self.state.playground.saved_to(path, &source);
                if !self.written_kernels.iter().any(|p| p == path) {
                    self.written_kernels.push(path.to_owned());
                }
                if self.closing == Closing::AfterSave {
                    self.closing = Closing::Confirmed;
                }
                (false, format!("saved {}", path.display()))
            }
            Err(e) => (true, e.to_string()),
        });
    }

    /// Writes what the Playground's last run made to `path`: its profile document, or a
    /// picture as PNG.
    pub(super) fn save_run(&mut self, path: &Path, target: SaveTarget) {
        let playground = &self.state.playground;
        let bytes = match target {
            SaveTarget::Profile => playground.profile().map(crate::profile::report::json_bytes),
            SaveTarget::Picture(i) => playground.pictures().png(i),
            SaveTarget::Results | SaveTarget::Kernel => None,
        };
        let Some(bytes) = bytes else {
            self.message = Some((
                true,
                "the run it came from is gone: run it again".to_owned(),
            ));
            return;
        };
        self.message = Some(match crate::report::write_atomic(path, &bytes) {
            Ok(()) => (false, format!("saved {}", path.display())),
            Err(e) => (true, e.to_string()),
        });
    }

    /// Save As: asks where to write the shown document (in the Playground, the kernel).
    pub(super) fn save_as(&mut self) {
        self.ask_save(if self.state.tab == Tab::Playground {
            SaveTarget::Kernel
        } else {
            SaveTarget::Results
        });
    }

    /// Open: asks for a result file or kernel.
    pub(super) fn open(&mut self) {
        let suggested = (!self.state.path.is_empty()).then(|| PathBuf::from(&self.state.path));
        self.pending = Some(files::ask(self.dialogs, FileAction::Open, suggested));
    }

    pub(super) fn save_to(&mut self, path: &Path) {
        let Some(saved) = self.documents.save_shown(path) else {
            return;
        };
        self.message = Some(match saved {
            Ok(document) => {
                self.compare
                    .add(document.label.clone(), document.doc.clone());
                self.state.path = path.display().to_string();
                (false, format!("saved {}", path.display()))
            }
            Err(e) => (true, e.to_string()),
        });
    }

    /// Acts on an answered file question.
    pub(super) fn decided(&mut self, decision: Decision) {
        match decision {
            Decision::Open(path) => self.open_path(&path),
            Decision::CloseSave => {
                self.closing = Closing::AfterSave;
                self.state.tab = Tab::Playground;
                self.save();
            }
            Decision::CloseDiscard => {
                // The edits go: the next start shows the file as it is.
                let playground = &mut self.state.playground;
                if let Some(saved) = playground.saved.clone() {
                    playground.source = saved;
                }
                self.closing = Closing::Confirmed;
            }
            Decision::Save { path, confirmed } if self.saving != SaveTarget::Results => {
                let own = self.saving == SaveTarget::Kernel && self.written_kernels.contains(&path);
                if path.exists() && !confirmed && !own {
                    self.pending = Some(Pending::Overwrite { path });
                } else if self.saving == SaveTarget::Kernel {
                    self.save_kernel(&path);
                } else {
                    self.save_run(&path, self.saving);
                }
            }
            Decision::Save { path, confirmed } => {
                let own = self
                    .documents
                    .shown()
                    .is_some_and(|d| d.written && d.file.as_deref() == Some(path.as_path()));
                if path.exists() && !confirmed && !own {
                    self.pending = Some(Pending::Overwrite { path });
                } else {
                    self.save_to(&path);
                }
            }
        }
    }
}

/// A name beside `path` that no file has yet: `k.edited.wgsl`, then `k.edited-2.wgsl`, ….
pub fn fresh_name(path: &Path) -> PathBuf {
    let stem = path
        .file_stem()
        .map_or_else(|| "kernel".into(), |s| s.to_string_lossy().into_owned());
    let extension = path
        .extension()
        .map_or_else(|| "wgsl".into(), |e| e.to_string_lossy().into_owned());
    (1..1000)
        .map(|i| {
            let suffix = if i == 1 {
                String::new()
            } else {
                format!("-{i}")
            };
            path.with_file_name(format!("{stem}.edited{suffix}.{extension}"))
        })
        .find(|p| !p.exists())
        .unwrap_or_else(|| path.with_file_name(format!("{stem}.edited.{extension}")))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_fresh_name_sits_beside_the_file_and_takes_no_existing_one() {
        let dir = tempfile::tempdir().unwrap();
        let kernel = dir.path().join("blur.wgsl");
        assert_eq!(
            super::fresh_name(&kernel),
            dir.path().join("blur.edited.wgsl")
        );
        std::fs::write(dir.path().join("blur.edited.wgsl"), "").unwrap();
        assert_eq!(
            super::fresh_name(&kernel),
            dir.path().join("blur.edited-2.wgsl")
        );
    }
}
