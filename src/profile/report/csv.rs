//! `--csv FILE`: the profile as one table, in the spirit of `ncu --page source --csv`: one row
//! for the kernel, then one per source line and one per branch (docs/profile.md lists the
//! columns). One table, typed per column: every non-empty cell of a column parses as the
//! column's [`ColumnType`] (an integer column never holds `14.0`), and a cell that does not
//! apply to the row's kind, or whose figure is absent, is empty. Every row names the device and
//! the run, so the tables of several devices concatenate. A new column is one entry in
//! [`CSV_COLUMNS`].

use super::{BranchCost, BranchProfile, Clause, LineProfile, Profile};
use crate::report::{ColumnType, csv_table};

/// One column of the profile CSV.
#[derive(Clone, Copy, Debug)]
pub struct Column {
    /// Its header.
    pub name: &'static str,
    /// What every non-empty cell parses as.
    pub kind: ColumnType,
    /// How a row fills it.
    cell: fn(&Row<'_>) -> String,
}

/// What a row is made from: the profile, and the kernel, line or branch it states.
pub struct Row<'a> {
    profile: &'a Profile,
    what: What<'a>,
}

/// The row's kind.
enum What<'a> {
    Kernel,
    Line(&'a LineProfile),
    Branch(&'a BranchProfile),
}

fn cell<T: ToString>(value: Option<T>) -> String {
    value.map_or_else(String::new, |v| v.to_string())
}

/// A number column's cell: shortest round-trip form with a decimal point (`1.0`, as the JSON
/// writes it), so that a reader infers a float column even where every value is whole.
fn number(value: Option<f64>) -> String {
    value.map_or_else(String::new, |v| format!("{v:?}"))
}

impl Row<'_> {
    fn line(&self) -> Option<&LineProfile> {
        match self.what {
            What::Line(l) => Some(l),
            _ => None,
        }
    }

    fn branch(&self) -> Option<&BranchProfile> {
        match self.what {
            What::Branch(b) => Some(b),
            _ => None,
        }
    }

    /// A branch row's `--cost`.
    fn cost(&self) -> Option<&BranchCost> {
        self.branch().and_then(|b| b.cost.as_ref())
    }

    /// The clause a branch row names (an `if` of a short-circuit chain).
    fn clause(&self) -> Option<&Clause> {
        self.branch().and_then(|b| b.clause.as_ref())
    }

    /// A line row's cell: `field` of its line; empty on other rows and where it is `None`.
    fn line_cell<T: ToString>(&self, field: impl FnOnce(&LineProfile) -> Option<T>) -> String {
        cell(self.line().and_then(field))
    }

    /// A branch row's cell, as [`Row::line_cell`] is a line row's.
    fn branch_cell<T: ToString>(&self, field: impl FnOnce(&BranchProfile) -> Option<T>) -> String {
        cell(self.branch().and_then(field))
    }

    /// A branch row's `--cost` cell.
    fn cost_cell<T: ToString>(&self, field: impl FnOnce(&BranchCost) -> Option<T>) -> String {
        cell(self.cost().and_then(field))
    }

    /// A branch row's clause cell.
    fn clause_cell<T: ToString>(&self, field: impl FnOnce(&Clause) -> Option<T>) -> String {
        cell(self.clause().and_then(field))
    }

    /// The line a line or branch row is about.
    fn line_number(&self) -> Option<u32> {
        match self.what {
            What::Kernel => None,
            What::Line(l) => Some(l.line),
            What::Branch(b) => Some(b.line),
        }
    }

    /// The kernel row's Σ evaluations and Σ divergent over the branches its branch efficiency
    /// is taken over; `None` for other rows, or when no branch was measured.
    fn kernel_branch_totals(&self) -> Option<(u64, u64)> {
        let p = self.profile;
        if !matches!(self.what, What::Kernel) || p.branch_efficiency.is_none() {
            return None;
        }
        let measured = p.branches.iter().filter(|b| b.divergent_fraction.is_some());
        Some(measured.fold((0, 0), |(e, d), b| (e + b.executions, d + b.divergent)))
    }
}

/// The source text of 1-based `line`, where the document has the source.
fn source_line(profile: &Profile, line: Option<u32>) -> String {
    let index = line.and_then(|l| (l as usize).checked_sub(1));
    profile
        .source
        .as_deref()
        .zip(index)
        .and_then(|(s, i)| s.lines().nth(i))
        .map_or_else(String::new, str::to_owned)
}

/// The columns, in order: the figures first (as before the device's identity was added, so
/// that scripts reading columns by position keep working), then the kernel, the device and the
/// run.
pub const CSV_COLUMNS: [Column; 46] = {
    use ColumnType::{Integer, Number, Text, Timestamp};
    const fn c(name: &'static str, kind: ColumnType, cell: fn(&Row<'_>) -> String) -> Column {
        Column { name, kind, cell }
    }
    [
        c("kind", Text, |r| {
            match r.what {
                What::Kernel => "kernel",
                What::Line(_) => "line",
                What::Branch(_) => "branch",
            }
            .to_owned()
        }),
        c("file", Text, |r| r.profile.kernel.file.clone()),
        c("line", Integer, |r| cell(r.line_number())),
        c("source", Text, |r| source_line(r.profile, r.line_number())),
        c("static", Text, |r| {
            r.line_cell(|l| l.static_verdict.clone())
        }),
        c("executions", Integer, |r| {
            r.line_cell(|l| Some(l.executions))
        }),
        c("active_lanes", Integer, |r| r.line_cell(|l| l.active_lanes)),
        c("efficiency", Number, |r| match r.what {
            What::Kernel => number(r.profile.control_flow_efficiency),
            What::Line(l) => number(l.efficiency),
            What::Branch(_) => String::new(),
        }),
        c("branch", Text, |r| r.branch_cell(|b| Some(b.kind.clone()))),
        c("evaluations", Integer, |r| {
            let total = r.kernel_branch_totals().map(|(e, _)| e);
            cell(total.or(r.branch().map(|b| b.executions)))
        }),
        c("divergent", Integer, |r| {
            let total = r.kernel_branch_totals().map(|(_, d)| d);
            cell(total.or(r.branch().map(|b| b.divergent)))
        }),
        c("divergent_fraction", Number, |r| {
            number(r.branch().and_then(|b| b.divergent_fraction))
        }),
        c("branch_efficiency", Number, |r| match r.what {
            What::Kernel => number(r.profile.branch_efficiency),
            What::Branch(b) => number(b.divergent_fraction.map(|d| 1.0 - d)),
            What::Line(_) => String::new(),
        }),
        c("wasted_lane_slots", Integer, |r| {
            r.branch_cell(|b| b.wasted_lane_slots)
        }),
        c("subgroup_size", Integer, |r| cell(r.profile.subgroup_size)),
        c("taken", Integer, |r| r.branch_cell(|b| b.taken)),
        c("not_taken", Integer, |r| r.branch_cell(|b| b.not_taken)),
        c("inherited_from", Integer, |r| {
            r.branch_cell(|b| b.inherited_from)
        }),
        c("trips", Integer, |r| r.branch_cell(|b| b.trips)),
        c("lane_trips", Integer, |r| r.branch_cell(|b| b.lane_trips)),
        c("left_early", Text, |r| r.branch_cell(|b| b.left_early)),
        c("cost_verdict", Text, |r| {
            r.cost_cell(|c| Some(c.verdict.key()))
        }),
        c("saved_ns", Number, |r| r.cost_cell(|c| c.saved_ns)),
        c("saved_fraction", Number, |r| {
            r.cost_cell(|c| c.saved_fraction)
        }),
        c("saved_low_ns", Number, |r| {
            r.cost_cell(|c| c.interval_ns.map(|[low, _]| low))
        }),
        c("saved_high_ns", Number, |r| {
            r.cost_cell(|c| c.interval_ns.map(|[_, high]| high))
        }),
        c("cost_placements", Integer, |r| {
            r.cost_cell(|c| {
                let placements = c.placement_saved_ns.as_ref().map_or(1, Vec::len);
                c.saved_ns.map(|_| placements)
            })
        }),
        c("predicted_ns", Number, |r| r.cost_cell(|c| c.predicted_ns)),
        c("predicted_low_ns", Number, |r| {
            r.cost_cell(|c| c.predicted_interval_ns.map(|[low, _]| low))
        }),
        c("predicted_high_ns", Number, |r| {
            r.cost_cell(|c| c.predicted_interval_ns.map(|[_, high]| high))
        }),
        c("outside_change", Number, |r| {
            r.cost_cell(|c| c.outside_change)
        }),
        c("repeat_change", Number, |r| {
            r.cost_cell(|c| c.repeat_change)
        }),
        c("placebo_ns", Number, |r| r.cost_cell(|c| c.placebo_ns)),
        c("clause", Text, |r| r.clause_cell(|c| Some(c.text.clone()))),
        c("clause_operator", Text, |r| {
            r.clause_cell(|c| c.operator.clone())
        }),
        c("clause_line", Integer, |r| r.clause_cell(|c| Some(c.line))),
        c("clause_column", Integer, |r| {
            r.clause_cell(|c| Some(c.column))
        }),
        c("entry", Text, |r| r.profile.kernel.entry.clone()),
        c("adapter", Text, |r| r.profile.adapter.name.clone()),
        c("backend", Text, |r| r.profile.adapter.backend.clone()),
        c("vendor", Integer, |r| cell(Some(r.profile.adapter.vendor))),
        c("device", Integer, |r| cell(Some(r.profile.adapter.device))),
        c("driver", Text, |r| r.profile.adapter.driver.clone()),
        c("driver_info", Text, |r| {
            r.profile.adapter.driver_info.clone()
        }),
        c("divlab_version", Text, |r| r.profile.divlab_version.clone()),
        c("created", Timestamp, |r| r.profile.created.clone()),
    ]
};

/// The header row.
pub fn csv_header() -> [&'static str; CSV_COLUMNS.len()] {
    CSV_COLUMNS.map(|c| c.name)
}

/// The document as CSV, with a header row: the kernel row, the line rows, the branch rows.
pub fn csv_bytes(profile: &Profile) -> Vec<u8> {
    let lines = profile.lines.iter().map(What::Line);
    let branches = profile.branches.iter().map(What::Branch);
    let rows = std::iter::once(What::Kernel).chain(lines).chain(branches);
    csv_table(
        csv_header(),
        rows.map(|what| {
            let row = Row { profile, what };
            CSV_COLUMNS.map(|c| (c.cell)(&row))
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_column_is_documented_with_its_type() {
        let docs = include_str!("../../../docs/profile.md");
        for c in CSV_COLUMNS {
            let row = format!("| `{}` | {} |", c.name, c.kind.name());
            assert!(docs.contains(&row), "docs/profile.md lacks `{row}`");
        }
    }
}
