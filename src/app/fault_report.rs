//! The app's side of [`crate::gpu::fault`]. The app has no terminal, so a driver fault's message
//! goes to a file in its data folder, which the next start shows and removes; and the state (the
//! Playground's kernel with it) is saved as a GPU run begins, so the kernel that brought the
//! driver down is in the editor again.

use std::path::{Path, PathBuf};

/// Where a fault's message is written: `last-fault.txt` in the app's data folder (made here).
pub fn fault_report() -> PathBuf {
    let folder =
        eframe::storage_dir("divlab").unwrap_or_else(|| std::env::temp_dir().join("divlab"));
    let _ = std::fs::create_dir_all(&folder);
    folder.join("last-fault.txt")
}

/// The message a fault left at `path`, as the app's message line says it; the file is removed,
/// so it is told once.
pub fn take_last_fault(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let _ = std::fs::remove_file(path);
    let text = text.trim();
    let text = text.strip_prefix("error: divlab ended on ").unwrap_or(text);
    (!text.is_empty()).then(|| {
        format!(
            "the last session ended on {text} (the Playground's kernel was kept as the run began)"
        )
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_fault_is_told_once_without_its_cli_prefix() {
        let report = tempfile::NamedTempFile::new().unwrap();
        let fault = "\nerror: divlab ended on SIGSEGV (a memory fault) during `x`.\n";
        std::fs::write(report.path(), fault).unwrap();
        let told = super::take_last_fault(report.path()).expect("a message");
        assert!(told.starts_with("the last session ended on SIGSEGV (a memory fault) during"));
        assert!(!report.path().exists());
        assert_eq!(super::take_last_fault(report.path()), None);
    }
}
