//! What `divlab profile` found, per line and per branch, from the counters of one instrumented
//! run: the profile document (`--json`, described in docs/profile.md) in `document.rs`, the
//! attribution of counters to lines and branches in `attribution.rs`, the annotated source in
//! `render.rs`, the CSV in `csv.rs`, the outputs instrumented against alone in `agreement.rs`,
//! and reading a document back (`--import`) in `import.rs`.

mod agreement;
mod attribution;
mod cost;
mod csv;
mod document;
mod import;
mod render;

pub use agreement::{OutputComparison, OutputDifference, OutputUnit, OutputsRecord};
pub use attribution::{
    ConditionSource, Inputs, and_list, branch_efficiency, capped_fixed_loops_note,
    control_flow_efficiency, line_owner, lines_and_branches, loop_lines_note, width_note,
};
pub use cost::{BranchCost, CostVerdict, Estimate};
pub use csv::{CSV_COLUMNS, Column, csv_bytes, csv_header};
pub use document::{
    BranchProfile, Clause, KernelRecord, LaneCapture, LaneExecution, LaneInvocation, LineProfile,
    OBSERVER_NOTE, PROFILE_SCHEMA_VERSION, Profile, RequestRecord, TimingRecord, created_now,
    json_bytes, profile_schema_id,
};
pub use import::{MAX_PROFILE_BYTES, is_profile, parse_profile, read_profile};
pub use render::render_text;
