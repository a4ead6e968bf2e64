//! What divlab says about itself and its machine: `adapters --json` and the full driver string,
//! the man pages (`man --dir`), and the examples at the end of every subcommand's `--help`.

use std::collections::BTreeSet;

use divlab::gpu::adapters::{create_instance, list_adapters};
use serde_json::Value;

use crate::util::{self, divlab, path_in, run, temp_dir};

/// `adapters --json -` parses, lists every adapter with its full driver string, limits and
/// features, and the table prints the driver string uncut (it once stopped at 28 characters).
#[test]
fn adapters_json_has_the_full_driver_limits_and_features() {
    let _gpu = util::gpu_shared();
    let dir = temp_dir();
    let mut cmd = divlab(dir.path());
    cmd.args(["adapters", "--json", "-"]);
    let out = run(cmd);
    out.assert_code(0);
    let doc: Value = serde_json::from_str(&out.stdout).expect("adapters --json - is JSON alone");
    assert_eq!(doc["schema_version"], 1);
    let listed = list_adapters(&create_instance(None), None);
    let adapters = doc["adapters"].as_array().expect("adapters[]");
    assert_eq!(adapters.len(), listed.len(), "{doc}");
    for ((entry, _), json) in listed.iter().zip(adapters) {
        assert_eq!(json["name"], entry.info.name.as_str());
        assert_eq!(json["driver_info"], entry.info.driver_info.as_str());
        assert_eq!(json["default"], entry.is_default);
        assert_eq!(json["features"]["subgroups"], entry.subgroups);
        assert_eq!(json["features"]["timestamps"], entry.timestamps);
        // The fields of a result's `adapter`, as a run records them before it measures.
        let record: divlab::report::AdapterRecord = serde_json::from_value(
            json.as_object()
                .unwrap()
                .iter()
                .filter(|(k, _)| !["index", "default", "features", "limits"].contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        )
        .expect("the adapter fields of a result document, and no others");
        assert_eq!(record.driver_info, entry.info.driver_info);
        assert_eq!(record.observed_subgroup_size, None);
        for feature in ["shader_f16", "float32_atomics"] {
            assert!(json["features"][feature].is_boolean(), "{feature}: {json}");
        }
        let limits = &json["limits"];
        for limit in [
            "max_compute_workgroups_per_dimension",
            "max_compute_invocations_per_workgroup",
            "max_storage_buffer_binding_size",
            "max_uniform_buffer_binding_size",
        ] {
            assert!(
                limits[limit].as_u64().is_some_and(|n| n > 0),
                "{limit}: {json}"
            );
        }
        assert_eq!(
            limits["max_compute_workgroups_per_dimension"],
            entry.limits.max_compute_workgroups_per_dimension
        );
    }
    let default = adapters
        .iter()
        .find(|a| a["default"] == true)
        .expect("a default");
    assert!(
        default["subgroup_max_size"].as_u64().unwrap() >= 4,
        "{default}"
    );

    let mut cmd = divlab(dir.path());
    cmd.arg("adapters");
    let table = run(cmd);
    table.assert_code(0);
    for (entry, _) in &listed {
        let driver = format!("{} {}", entry.info.driver, entry.info.driver_info);
        assert!(
            table.stdout.contains(driver.trim()),
            "the table cuts `{}`\n{table}",
            driver.trim()
        );
        assert!(table.stdout.contains(&entry.info.name), "{table}");
    }
}

/// The subcommands `divlab --help` lists (without `help`).
fn subcommands() -> Vec<String> {
    let dir = temp_dir();
    let mut cmd = divlab(dir.path());
    cmd.arg("--help");
    let help = run(cmd).stdout;
    crate::cli::commands(&help)
}

/// `man --dir` writes divlab.1 and one page per subcommand, each with its options, its exit
/// codes in EXIT STATUS (not under EXTRA), EXAMPLES and SEE ALSO; and every subcommand's
/// `--help` ends with examples.
#[test]
fn man_pages_for_every_subcommand() {
    let dir = temp_dir();
    let pages = path_in(&dir, "man");
    let mut cmd = divlab(dir.path());
    cmd.args(["man", "--dir"]).arg(&pages);
    run(cmd).assert_code(0);
    let written: BTreeSet<String> = std::fs::read_dir(&pages)
        .expect("man --dir made the directory")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let subcommands = subcommands();
    assert!(subcommands.len() >= 10, "{subcommands:?}");
    let mut expected: BTreeSet<String> = subcommands
        .iter()
        .map(|s| format!("divlab-{s}.1"))
        .collect();
    expected.insert("divlab.1".to_owned());
    assert_eq!(written, expected);
    for page in &written {
        let text = std::fs::read_to_string(pages.join(page)).unwrap();
        for section in [
            ".SH NAME",
            ".SH SYNOPSIS",
            ".SH \"EXIT STATUS\"",
            ".SH EXAMPLES",
        ] {
            assert!(text.contains(section), "{page} lacks {section}:\n{text}");
        }
        assert!(!text.contains(".SH EXTRA"), "{page} has an EXTRA section");
        assert!(text.contains("\\fB0\\fR"), "{page} lists no exit code 0");
    }
    let profile = std::fs::read_to_string(pages.join("divlab-profile.1")).unwrap();
    assert!(
        profile.contains("\\-\\-loop\\-cap"),
        "no options in divlab-profile.1"
    );
    assert!(
        profile.contains("\\fB4\\fR"),
        "divlab-profile.1 lacks exit code 4"
    );
    let table = std::fs::read_to_string(pages.join("divlab-table.1")).unwrap();
    assert!(
        !table.contains("\\fB3\\fR"),
        "table never times out: no exit code 3"
    );
    let main = std::fs::read_to_string(pages.join("divlab.1")).unwrap();
    assert!(
        main.contains(".SH ENVIRONMENT"),
        "divlab.1 lacks ENVIRONMENT"
    );
    assert!(
        main.contains("divlab\\-bench(1)"),
        "divlab.1 lacks SEE ALSO"
    );

    for sub in &subcommands {
        let mut cmd = divlab(dir.path());
        cmd.args([sub.as_str(), "--help"]);
        let help = run(cmd);
        help.assert_code(0);
        assert!(
            help.stdout.contains("\nExamples:\n") && help.stdout.contains("    $ divlab "),
            "`divlab {sub} --help` has no examples\n{help}"
        );
    }
}
