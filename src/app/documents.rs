//! The documents the app holds: files it opened, and the results of its own runs. A run never
//! changes an opened file's document: its results go into a run document of their own, with its
//! own `created`, which is autosaved to the results folder after every experiment, so quitting
//! loses nothing. [`Documents`] holds them all and the lane caches of the one shown.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::lane_grid::LaneCache;
use crate::report::{
    AdapterRecord, ExperimentResult, ExperimentStatus, ResultDocument, SCHEMA_VERSION, write_json,
};

/// Where a document came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Read from a file.
    Opened,
    /// Results of runs in this app.
    Run,
}

/// One document: its contents, and the file it belongs to.
#[derive(Clone, Debug)]
pub struct Document {
    /// How it is named in the switcher and the compare view.
    pub label: String,
    /// The results.
    pub doc: ResultDocument,
    /// Where it came from.
    pub origin: Origin,
    /// The file Save writes to: the one it was read from, or last saved as.
    pub file: Option<PathBuf>,
    /// Whether the app wrote `file` itself (Save As, or a confirmed Save), so Save may write it
    /// again without asking.
    pub written: bool,
    /// Whether `file` lacks results the document has.
    pub unsaved: bool,
    /// The results folder's copy of a run document.
    pub autosaved: Option<PathBuf>,
}

impl Document {
    /// A document read from `path`.
    pub fn opened(path: &Path, doc: ResultDocument) -> Self {
        Self {
            label: file_label(path),
            doc,
            origin: Origin::Opened,
            file: Some(path.to_owned()),
            written: false,
            unsaved: false,
            autosaved: None,
        }
    }

    /// An empty run document for `adapter`, created now.
    pub fn run(adapter: AdapterRecord) -> Self {
        let now = std::time::SystemTime::now();
        let created = humantime::format_rfc3339_seconds(now).to_string();
        // "2026-12-01T11:42:07Z" -> "run 11:42:07"
        let time = created.get(11..19).unwrap_or(&created);
        Self {
            label: format!("run {time} · {}", short_name(&adapter.name)),
            doc: ResultDocument {
                schema: crate::report::result_schema_id(),
                schema_version: SCHEMA_VERSION,
                divlab_version: crate::report::build::version_record(),
                created,
                adapter,
                experiments: Vec::new(),
            },
            origin: Origin::Run,
            file: None,
            written: false,
            unsaved: true,
            autosaved: None,
        }
    }

    /// Adds a finished experiment. A cancelled one never replaces a result the document has: it
    /// is recorded only where there was none.
    pub fn add_result(&mut self, result: ExperimentResult) {
        let slot = self.doc.experiments.iter_mut().find(|e| e.id == result.id);
        match slot {
            Some(_) if result.status == ExperimentStatus::Cancelled => return,
            Some(slot) => *slot = result,
            None => self.doc.experiments.push(result),
        }
        self.unsaved = true;
    }

    /// Takes the adapter record of a finished run (it carries the width the run inferred).
    pub fn finish_run(&mut self, adapter: AdapterRecord) {
        if adapter.inferred_subgroup_width.is_some()
            || self.doc.adapter.observed_subgroup_size.is_none()
        {
            self.doc.adapter = adapter;
        }
    }

    /// Writes the document to `path` (atomically) and makes it the document's file.
    pub fn save_to(&mut self, path: &Path) -> crate::Result<()> {
        write_json(path, &self.doc)?;
        self.file = Some(path.to_owned());
        self.written = true;
        self.unsaved = false;
        if self.origin == Origin::Opened {
            self.label = file_label(path);
        }
        Ok(())
    }

    /// Writes a run document to `folder` under a name of its own (its creation time and
    /// adapter), so no other file is touched.
    pub fn autosave(&mut self, folder: &Path) -> crate::Result<PathBuf> {
        let path = match &self.autosaved {
            Some(path) => path.clone(),
            None => folder.join(autosave_name(&self.doc)),
        };
        std::fs::create_dir_all(folder).map_err(|e| crate::Error::Write {
            path: folder.to_owned(),
            reason: std::sync::Arc::new(e),
        })?;
        write_json(&path, &self.doc)?;
        self.autosaved = Some(path.clone());
        Ok(path)
    }

    /// Where its results are kept, for the files bar: "saved", "autosaved to …", "unsaved".
    pub fn file_state(&self) -> String {
        match (&self.file, self.unsaved, &self.autosaved) {
            (Some(_), false, _) if !self.written => "as read from its file".to_owned(),
            (Some(_), false, _) => "saved".to_owned(),
            (_, true, Some(path)) => format!("autosaved to {}", path.display()),
            (_, true, None) => "unsaved".to_owned(),
            (None, false, _) => String::new(),
        }
    }

    /// Whether the document has results no file holds.
    pub fn at_risk(&self) -> bool {
        self.unsaved && self.autosaved.is_none()
    }
}

/// Lane colours and textures per experiment id of the shown document, built once.
pub type LaneCaches = HashMap<String, LaneCache>;

/// Every document held, which one is shown, which one a run fills, and the lane caches of the
/// shown one. The only place that clears the caches: every change to what is shown goes
/// through it.
#[derive(Default)]
pub struct Documents {
    list: Vec<Document>,
    /// The index of the document shown.
    shown: usize,
    /// The index of the document the running run adds its results to.
    run: Option<usize>,
    caches: LaneCaches,
}

impl Documents {
    /// Every document, opened files and runs, in the order they came.
    pub fn all(&self) -> &[Document] {
        &self.list
    }

    /// The document shown.
    pub fn shown(&self) -> Option<&Document> {
        self.list.get(self.shown)
    }

    /// The index of the document shown.
    pub fn shown_index(&self) -> usize {
        self.shown
    }

    /// The document shown, with the lane caches of its experiments.
    pub fn shown_with_caches(&mut self) -> (Option<&Document>, &mut LaneCaches) {
        (self.list.get(self.shown), &mut self.caches)
    }

    /// Shows the document at `index`.
    pub fn show(&mut self, index: usize) {
        if index < self.list.len() && index != self.shown {
            self.shown = index;
            self.caches.clear();
        }
    }

    /// Adds a document and shows it; returns its index.
    pub fn add(&mut self, document: Document) -> usize {
        self.list.push(document);
        self.shown = self.list.len() - 1;
        self.caches.clear();
        self.shown
    }

    /// A document read from a file: it replaces the document of the same file, if one is open,
    /// else it is added. Either way it is shown; returns its index and whether it was added.
    pub fn opened(&mut self, document: Document) -> (usize, bool) {
        let open = self
            .list
            .iter()
            .position(|d| d.file.is_some() && d.file == document.file);
        match open {
            Some(index) => {
                self.list[index] = document;
                self.shown = index;
                self.caches.clear();
                (index, false)
            }
            None => (self.add(document), true),
        }
    }

    /// Writes the shown document to `path`; returns it.
    pub fn save_shown(&mut self, path: &Path) -> Option<crate::Result<&Document>> {
        let document = self.list.get_mut(self.shown)?;
        Some(document.save_to(path).map(|()| &*document))
    }

    /// A run opened a device with `adapter`: its results go into the last run document of the
    /// same adapter, or into a new one. The document is shown; returns its index and whether it
    /// was added.
    pub fn run_started(&mut self, adapter: AdapterRecord) -> (usize, bool) {
        let same = self
            .list
            .iter()
            .rposition(|d| d.origin == Origin::Run && d.doc.adapter.same_adapter(&adapter));
        let (index, added) = match same {
            Some(index) => (index, false),
            None => (self.add(Document::run(adapter)), true),
        };
        self.run = Some(index);
        self.show(index);
        (index, added)
    }

    /// Adds a finished experiment to the run's document; returns its index.
    pub fn run_result(&mut self, result: ExperimentResult) -> Option<usize> {
        let index = self.run?;
        self.list[index].add_result(result);
        self.run_changed(index);
        Some(index)
    }

    /// The run ended with `adapter`'s record (`None`: it failed); returns the index of its
    /// document.
    pub fn run_ended(&mut self, adapter: Option<AdapterRecord>) -> Option<usize> {
        let index = self.run.take()?;
        let adapter = adapter?;
        self.list[index].finish_run(adapter);
        self.run_changed(index);
        Some(index)
    }

    fn run_changed(&mut self, index: usize) {
        if index == self.shown {
            self.caches.clear();
        }
    }

    /// Autosaves the document at `index` to `folder`.
    pub fn autosave(&mut self, index: usize, folder: &Path) -> crate::Result<PathBuf> {
        self.list[index].autosave(folder)
    }
}

/// A file's name, for labels.
pub fn file_label(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The device name up to its first parenthesis: "llvmpipe (LLVM 15.0.6, 256 bits)" -> "llvmpipe".
fn short_name(name: &str) -> &str {
    name.split(" (").next().unwrap_or(name).trim()
}

/// `run-2026-12-01T11-42-07Z-llvmpipe.json`: sortable, and free of characters file systems
/// reject.
fn autosave_name(doc: &ResultDocument) -> String {
    let slug: String = short_name(&doc.adapter.name)
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    format!("run-{}-{slug}.json", doc.created.replace(':', "-"))
}

/// The results folder: `DIVLAB_RESULTS_DIR`, else `results` in the app's data folder.
pub fn results_folder() -> PathBuf {
    if let Some(dir) = std::env::var_os("DIVLAB_RESULTS_DIR") {
        return PathBuf::from(dir);
    }
    eframe::storage_dir("divlab")
        .unwrap_or_else(|| std::env::temp_dir().join("divlab"))
        .join("results")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Rule;

    fn adapter() -> AdapterRecord {
        serde_json::from_value(serde_json::json!({
            "name": "llvmpipe (LLVM 15.0.6, 256 bits)", "vendor": 0, "device": 0,
            "driver": "llvmpipe", "driver_info": "", "backend": "vulkan", "device_type": "Cpu",
            "subgroup_min_size": 8, "subgroup_max_size": 8, "observed_subgroup_size": 8,
            "inferred_subgroup_width": null, "subgroups": true, "timestamps": true,
            "timing_source": "gpu_timestamp"
        }))
        .expect("an adapter record")
    }

    fn result(id: &str, status: ExperimentStatus) -> ExperimentResult {
        let mut r = ExperimentResult::new(
            id,
            "t",
            Rule {
                text: String::new(),
                source: String::new(),
            },
        );
        r.status = status;
        r
    }

    #[test]
    fn a_cancelled_experiment_never_replaces_a_result() {
        let mut doc = Document::run(adapter());
        doc.add_result(result("a", ExperimentStatus::Ok));
        doc.add_result(result("a", ExperimentStatus::Cancelled));
        doc.add_result(result("b", ExperimentStatus::Cancelled));
        let statuses: Vec<_> = doc
            .doc
            .experiments
            .iter()
            .map(|e| (e.id.as_str(), e.status))
            .collect();
        assert_eq!(
            statuses,
            [
                ("a", ExperimentStatus::Ok),
                ("b", ExperimentStatus::Cancelled)
            ]
        );
    }

    #[test]
    fn the_lane_caches_are_cleared_when_what_is_shown_changes_and_only_then() {
        let mut docs = Documents::default();
        let cache = |docs: &mut Documents| {
            let (_, caches) = docs.shown_with_caches();
            caches.insert("a".to_owned(), LaneCache::new(&[]));
        };
        let cached = |docs: &mut Documents| !docs.shown_with_caches().1.is_empty();
        let (first, _) = docs.run_started(adapter());
        cache(&mut docs);
        docs.show(first);
        assert!(cached(&mut docs), "showing the shown document again");
        assert_eq!(
            docs.run_result(result("a", ExperimentStatus::Ok)),
            Some(first)
        );
        assert!(!cached(&mut docs), "a result added to the shown document");
        let path = Path::new("other.json");
        let (second, added) = docs.opened(Document::opened(path, Document::run(adapter()).doc));
        assert!(added && second != first);
        cache(&mut docs);
        // The run goes on in the document not shown.
        docs.run_result(result("b", ExperimentStatus::Ok));
        assert!(cached(&mut docs), "a result added to a document not shown");
        docs.show(first);
        assert!(!cached(&mut docs), "another document shown");
        cache(&mut docs);
        let (again, added) = docs.opened(Document::opened(path, Document::run(adapter()).doc));
        assert_eq!((again, added), (second, false), "the same file, read again");
        assert!(!cached(&mut docs));
    }

    #[test]
    fn autosave_names_a_file_of_its_own_and_keeps_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut doc = Document::run(adapter());
        doc.add_result(result("a", ExperimentStatus::Ok));
        let first = doc.autosave(dir.path()).unwrap();
        let name = first.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with("run-") && name.ends_with("-llvmpipe.json"),
            "{name}"
        );
        assert!(!name.contains(':'), "{name}");
        doc.add_result(result("b", ExperimentStatus::Ok));
        assert_eq!(doc.autosave(dir.path()).unwrap(), first);
        let back = crate::report::read_json(&first).unwrap();
        assert_eq!(back.experiments.len(), 2);
        assert_eq!(back.created, doc.doc.created);
        assert!(!doc.at_risk());
    }
}
