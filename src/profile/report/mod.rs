//! What `divlab profile` found, per line and per branch, from the counters of one instrumented
//! run: the profile document (`--json`, described in docs/profile.md) in `document.rs`, the
//! attribution of counters to lines and branches in `attribution.rs`, and the annotated source
//! in `render.rs`.

mod attribution;
mod document;
mod render;

pub use attribution::{Inputs, control_flow_efficiency, line_owner, lines_and_branches};
pub use document::{
    BranchProfile, KernelRecord, LaneCapture, LaneExecution, LaneInvocation, LineProfile, OBSERVER_NOTE,
    PROFILE_SCHEMA_VERSION, Profile, TimingRecord,
};
pub use render::render_text;
