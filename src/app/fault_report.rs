//! The app's side of [`crate::gpu::fault`]. The app has no terminal, so a driver fault's message
//! goes to a file in its data folder, which the next start shows and removes; and the state (the
//! Playground's kernel with it) is saved as a GPU run begins, so the kernel that brought the
//! driver down is in the editor again. A run also leaves a marker while it lasts: a session that
//! ended with it there and no message was ended from outside (the out-of-memory killer sends a
//! SIGKILL, which no handler sees; a large kernel's compile took 3.6 GB on llvmpipe).

use std::path::{Path, PathBuf};

/// Where a fault's message is written: `last-fault.txt` in the app's data folder (made here).
pub fn fault_report() -> PathBuf {
    let folder =
        eframe::storage_dir("divlab").unwrap_or_else(|| std::env::temp_dir().join("divlab"));
    let _ = std::fs::create_dir_all(&folder);
    folder.join("last-fault.txt")
}

/// The marker beside the report `report` that a run leaves while it lasts.
fn marker(report: &Path) -> PathBuf {
    report.with_file_name("run-in-progress.txt")
}

/// The marker of a run in progress; dropped with the app, it goes (closed mid-run, the session
/// did not end in the run).
pub struct RunMarker(PathBuf);

impl RunMarker {
    /// The marker beside the fault report `report`.
    pub fn beside(report: PathBuf) -> Self {
        Self(marker(&report))
    }

    /// A run began: `what` (such as `the profile of blur.wgsl`) is in progress.
    pub fn began(&self, what: &str) {
        let _ = std::fs::write(&self.0, what);
    }

    /// The run ended, with nothing left in progress.
    pub fn ended(&self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

impl Drop for RunMarker {
    fn drop(&mut self) {
        self.ended();
    }
}

/// What the app's message line says of how the last session ended, where it ended in a run: the
/// fault's message left at `report`, or the run its marker names. Both files are removed, so it
/// is told once.
pub fn take_last_fault(report: &Path) -> Option<String> {
    let fault = std::fs::read_to_string(report).ok();
    let running = std::fs::read_to_string(marker(report)).ok();
    let _ = std::fs::remove_file(report);
    let _ = std::fs::remove_file(marker(report));
    let kept = "(the Playground's kernel was kept as the run began)";
    if let Some(fault) = fault.as_deref().map(str::trim).filter(|f| !f.is_empty()) {
        let fault = fault
            .strip_prefix("error: divlab ended on ")
            .unwrap_or(fault);
        return Some(format!("the last session ended on {fault} {kept}"));
    }
    let what = running?;
    Some(format!(
        "the last session ended during {what} and said nothing: something outside it ended the \
         process, most often the system's out-of-memory killer (a large kernel's compile can \
         take gigabytes on llvmpipe), or a signal such as SIGKILL {kept}"
    ))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_fault_is_told_once_without_its_cli_prefix() {
        let report = tempfile::NamedTempFile::new().unwrap();
        let fault = "\nerror: divlab ended on SIGSEGV (a memory fault) during `x`.\n";
        std::fs::write(report.path(), fault).unwrap();
        let run = super::RunMarker::beside(report.path().to_owned());
        run.began("the profile of k.wgsl");
        let told = super::take_last_fault(report.path()).expect("a message");
        assert!(told.starts_with("the last session ended on SIGSEGV (a memory fault) during"));
        assert!(!report.path().exists());
        assert_eq!(super::take_last_fault(report.path()), None);
    }

    #[test]
    fn a_run_that_ended_without_a_word_is_told_by_its_marker() {
        let folder = tempfile::tempdir().unwrap();
        let report = folder.path().join("last-fault.txt");
        let run = super::RunMarker::beside(report.clone());
        run.began("the profile of k.wgsl");
        let told = super::take_last_fault(&report).expect("a message");
        assert!(told.starts_with("the last session ended during the profile of k.wgsl and said"));
        run.began("the profile of k.wgsl");
        run.ended();
        assert_eq!(super::take_last_fault(&report), None);
        // An app closed mid-run did not end in the run.
        run.began("the profile of k.wgsl");
        drop(run);
        assert_eq!(super::take_last_fault(&report), None);
    }
}
