//! The README's numbers come from the reference result files, not from a keyboard.

use std::path::Path;

use divlab::experiments::catalog;
use divlab::report::{markdown_key_table, read_json};

const BEGIN: &str = "<!-- reference-table:begin -->\n";
const END: &str = "<!-- reference-table:end -->";

/// The table between the README's markers is exactly `divlab table assets/reference/*.json`.
#[test]
fn readme_table_matches_reference_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(root.join("assets/reference"))
        .expect("assets/reference exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no reference result files");
    let docs: Vec<_> = files
        .iter()
        .map(|path| {
            let doc = read_json(path).unwrap_or_else(|e| panic!("{e}"));
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, doc)
        })
        .collect();
    let expected = markdown_key_table(&docs, &catalog());
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let start = readme.find(BEGIN).expect("README has the begin marker") + BEGIN.len();
    let end = readme.find(END).expect("README has the end marker");
    assert_eq!(
        &readme[start..end],
        expected,
        "README's reference table is stale; paste the output of \
         `divlab table assets/reference/*.json` between the markers"
    );
}
