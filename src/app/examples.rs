//! Kernels to start from in the Playground, each with the run settings that make it show
//! something: the divergence study's switch, a bounds check, distance tests, a Collatz loop and
//! a switch on lane bits (the files in `assets/kernels`, which `divlab profile` takes too).

use super::playground::RunSettings;

/// One example.
pub struct Example {
    /// Its name in the menu.
    pub name: &'static str,
    /// What it shows, in one line.
    pub about: &'static str,
    /// The WGSL.
    pub source: &'static str,
    /// How to run it.
    pub settings: fn() -> RunSettings,
}

/// Every example, in menu order.
pub const EXAMPLES: &[Example] = &[
    Example {
        name: "Bounds-checked element-wise",
        about: "lanes past the end return: only the last subgroups diverge",
        source: include_str!("../../assets/kernels/bounds_checked.wgsl"),
        settings: || RunSettings {
            workgroups: [2, 1, 1],
            lens: "output=100\ninput=100".to_owned(),
            ..RunSettings::default()
        },
    },
    Example {
        name: "Particle update (distance tests)",
        about: "each lane's own particle picks the branch: divergence where particles straddle a boundary",
        source: include_str!("../../assets/kernels/particles.wgsl"),
        settings: || RunSettings {
            workgroups: [16, 1, 1],
            lens: "particles=1024".to_owned(),
            ..RunSettings::default()
        },
    },
    Example {
        name: "Collatz loop",
        about: "every lane loops as long as its own number needs: a divergent loop",
        source: include_str!("../../assets/kernels/collatz.wgsl"),
        settings: || RunSettings {
            workgroups: [16, 1, 1],
            ..RunSettings::default()
        },
    },
    Example {
        name: "Switch on lane bits",
        about: "four cases, a quarter of each subgroup in each: 25% efficiency per case",
        source: include_str!("../../assets/kernels/lane_bits_switch.wgsl"),
        settings: || RunSettings {
            workgroups: [4, 1, 1],
            ..RunSettings::default()
        },
    },
    Example {
        name: "Divergence study: switch, k = 8",
        about: "the study's kernel with 8 paths of 16 trips each: T(k) grows with k up to the subgroup size",
        source: include_str!("../../assets/kernels/divergence_switch.wgsl"),
        settings: || {
            let trips = vec!["16"; 128].join(",");
            RunSettings {
                workgroups: [64, 1, 1],
                buffers: format!("params=values:8,0,0,0,{trips}"),
                ..RunSettings::default()
            }
        },
    },
];
