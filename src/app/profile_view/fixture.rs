//! A small profile for the panels' unit tests: two workgroups of 16 in subgroups of 8, an `if`
//! that splits every subgroup and a loop whose lanes leave at different trips. Written as the
//! document would be read, so it follows the format rather than the struct's literal fields.

use crate::profile::report::Profile;

/// The kernel the profile is of.
pub const SOURCE: &str = "@compute @workgroup_size(16)
fn main(@builtin(local_invocation_index) i: u32) {
    var x = 0u;
    if i % 2u == 0u {
        x = 1u;
    }
    for (var k = 0u; k < i % 3u; k++) {
        x += k;
    }
    x += i;
}
";

/// The profile: lines 3, 4, 5, 7, 8 and 10 counted; an `if` at 4 and a loop at 7.
pub fn profile() -> Profile {
    serde_json::from_value(serde_json::json!({
        "schema_version": 2,
        "divlab_version": "test",
        "created": "2026-01-01T00:00:00Z",
        "adapter": {
            "name": "llvmpipe", "vendor": 0, "device": 0, "driver": "llvmpipe",
            "driver_info": "", "backend": "vulkan", "device_type": "Cpu",
            "subgroup_min_size": 8, "subgroup_max_size": 8, "observed_subgroup_size": 8,
            "inferred_subgroup_width": null, "subgroups": true, "timestamps": true,
            "timing_source": "gpu_timestamp"
        },
        "kernel": {
            "file": "k.wgsl", "entry": "main", "workgroup_size": [16, 1, 1],
            "dispatch": [2, 1, 1]
        },
        "request": {
            "entry": null, "dispatch": [2, 1, 1], "buffers": ["out=zeros"], "lens": [],
            "overrides": [], "textures": [], "reps": 5, "time_budget_s": 1.0,
            "loop_cap": 1000, "lanes": null
        },
        "source": SOURCE,
        "subgroup_size": 8,
        "widest_ballot": 8,
        "control_flow_efficiency": 0.8,
        "branch_efficiency": 0.5,
        "lines": [
            line(3, 4, 24, "uniform"),
            line(4, 4, 32, "non-uniform"),
            line(5, 4, 16, "non-uniform"),
            line(7, 4, 32, "non-uniform"),
            line(8, 8, 48, "non-uniform"),
            line(10, 4, 32, "non-uniform"),
        ],
        "branches": [
            {
                "line": 4, "kind": "if", "executions": 4, "divergent": 4,
                "divergent_fraction": 1.0, "wasted_lane_slots": 16
            },
            {
                "line": 7, "kind": "loop", "executions": 8, "divergent": 2,
                "divergent_fraction": 0.25, "wasted_lane_slots": 16, "trips": 8,
                "lane_trips": 48
            }
        ],
        "loop_cap_hit": false,
        "loop_cap_line": null,
        "loop_cap": 1000,
        "timing": {
            "kernel_ns": 1000.0, "instrumented_ns": 2500.0, "overhead": 2.5, "reps": 5,
            "time_budget_s": 1.0, "source": "gpu_timestamp"
        },
        "notes": ["a note"]
    }))
    .expect("the fixture reads as a profile")
}

/// A counted line of subgroups of 8.
fn line(line: u32, executions: u64, active: u64, verdict: &str) -> serde_json::Value {
    serde_json::json!({
        "line": line,
        "executions": executions,
        "active_lanes": active,
        "efficiency": active as f64 / (executions * 8) as f64,
        "static": verdict,
    })
}
