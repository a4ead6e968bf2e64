//! `--csv FILE`: the profile as one table, in the spirit of `ncu --page source --csv`: one row
//! for the kernel, then one per source line and one per branch (docs/profile.md lists the
//! columns). Numbers are written in full, exactly as the JSON has them; an absent figure is an
//! empty cell.

use super::{BranchProfile, LineProfile, Profile};

/// The header row.
pub const CSV_COLUMNS: [&str; 17] = [
    "kind",
    "file",
    "line",
    "source",
    "static",
    "executions",
    "active_lanes",
    "efficiency",
    "branch",
    "evaluations",
    "divergent",
    "divergent_fraction",
    "branch_efficiency",
    "wasted_lane_slots",
    "subgroup_size",
    "taken",
    "not_taken",
];

/// The document as CSV, with a header row.
pub fn csv_bytes(profile: &Profile) -> Vec<u8> {
    let mut writer = ::csv::Writer::from_writer(Vec::new());
    let mut write = |row: [String; CSV_COLUMNS.len()]| {
        writer
            .write_record(&row)
            .expect("writing to memory cannot fail");
    };
    write(CSV_COLUMNS.map(str::to_owned));
    write(kernel_row(profile));
    for l in &profile.lines {
        write(line_row(profile, l));
    }
    for b in &profile.branches {
        write(branch_row(profile, b));
    }
    writer.into_inner().expect("writing to memory cannot fail")
}

fn cell<T: ToString>(value: Option<T>) -> String {
    value.map_or_else(String::new, |v| v.to_string())
}

/// The source text of 1-based `line`, where the document has the source.
fn source_line(profile: &Profile, line: u32) -> String {
    let index = (line as usize).checked_sub(1);
    profile
        .source
        .as_deref()
        .zip(index)
        .and_then(|(s, i)| s.lines().nth(i))
        .map_or_else(String::new, str::to_owned)
}

/// A row of the table: its kind, the file, the line and its source (for a line or a branch),
/// the subgroup size, and the cells `cells` names by column; every other cell is empty.
fn row(
    p: &Profile,
    kind: &str,
    line: Option<u32>,
    cells: &[(&str, String)],
) -> [String; CSV_COLUMNS.len()] {
    let mut out = CSV_COLUMNS.map(|_| String::new());
    let head = [
        ("kind", kind.to_owned()),
        ("file", p.kernel.file.clone()),
        ("line", cell(line)),
        (
            "source",
            line.map_or_else(String::new, |l| source_line(p, l)),
        ),
        ("subgroup_size", cell(p.subgroup_size)),
    ];
    for (column, value) in head.iter().chain(cells) {
        let at = CSV_COLUMNS.iter().position(|c| c == column);
        out[at.expect("a column of CSV_COLUMNS")] = value.clone();
    }
    out
}

/// The kernel's totals: its control-flow efficiency, and Σ evaluations and Σ divergent over
/// the branches its branch efficiency is taken over.
fn kernel_row(p: &Profile) -> [String; CSV_COLUMNS.len()] {
    let measured = p.branches.iter().filter(|b| b.divergent_fraction.is_some());
    let (evaluations, divergent) = measured.fold((0u64, 0u64), |(e, d), b| {
        (e + b.executions, d + b.divergent)
    });
    let measured = p.branch_efficiency.is_some();
    row(
        p,
        "kernel",
        None,
        &[
            ("efficiency", cell(p.control_flow_efficiency)),
            ("evaluations", cell(measured.then_some(evaluations))),
            ("divergent", cell(measured.then_some(divergent))),
            ("branch_efficiency", cell(p.branch_efficiency)),
        ],
    )
}

fn line_row(p: &Profile, l: &LineProfile) -> [String; CSV_COLUMNS.len()] {
    row(
        p,
        "line",
        Some(l.line),
        &[
            ("static", l.static_verdict.clone().unwrap_or_default()),
            ("executions", l.executions.to_string()),
            ("active_lanes", cell(l.active_lanes)),
            ("efficiency", cell(l.efficiency)),
        ],
    )
}

fn branch_row(p: &Profile, b: &BranchProfile) -> [String; CSV_COLUMNS.len()] {
    row(
        p,
        "branch",
        Some(b.line),
        &[
            ("branch", b.kind.clone()),
            ("evaluations", b.executions.to_string()),
            ("divergent", b.divergent.to_string()),
            ("divergent_fraction", cell(b.divergent_fraction)),
            (
                "branch_efficiency",
                cell(b.divergent_fraction.map(|d| 1.0 - d)),
            ),
            ("wasted_lane_slots", cell(b.wasted_lane_slots)),
            ("taken", cell(b.taken)),
            ("not_taken", cell(b.not_taken)),
        ],
    )
}
