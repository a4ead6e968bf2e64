//! Kernels to start from in the Playground, each with the run settings that make it show
//! something: a bounds check, distance tests, a Collatz loop, a switch on lane bits (the files
//! in `assets/kernels`, which `divlab profile` takes too), and the divergence study's forms as
//! divlab generates them.

use super::playground::RunSettings;
use crate::shaders::divergence::{Form, Selection};

/// One example.
pub struct Example {
    /// Its name in the menu.
    pub name: &'static str,
    /// What it shows, in one line.
    pub about: &'static str,
    /// The WGSL.
    pub source: fn() -> String,
    /// How to run it.
    pub settings: fn() -> RunSettings,
}

/// Every example, in menu order.
pub const EXAMPLES: &[Example] = &[
    Example {
        name: "Bounds-checked element-wise",
        about: "lanes past the end return: only the last subgroups diverge",
        source: || include_str!("../../assets/kernels/bounds_checked.wgsl").to_owned(),
        settings: || RunSettings {
            workgroups: [2, 1, 1],
            lens: "output=100\ninput=100".to_owned(),
            ..RunSettings::default()
        },
    },
    Example {
        name: "Particle update (distance tests)",
        about: "each lane's own particle picks the branch: divergence where particles straddle a boundary",
        source: || include_str!("../../assets/kernels/particles.wgsl").to_owned(),
        settings: || RunSettings {
            workgroups: [16, 1, 1],
            lens: "particles=1024".to_owned(),
            ..RunSettings::default()
        },
    },
    Example {
        name: "Collatz loop",
        about: "every lane loops as long as its own number needs: a divergent loop",
        source: || include_str!("../../assets/kernels/collatz.wgsl").to_owned(),
        settings: || RunSettings {
            workgroups: [16, 1, 1],
            ..RunSettings::default()
        },
    },
    Example {
        name: "Switch on lane bits",
        about: "four cases, a quarter of each subgroup in each: 25% efficiency per case",
        source: || include_str!("../../assets/kernels/lane_bits_switch.wgsl").to_owned(),
        settings: || RunSettings {
            workgroups: [4, 1, 1],
            ..RunSettings::default()
        },
    },
    Example {
        name: "Divergence study: switch, k = 8",
        about: "the study's kernel with 8 paths of 16 trips each: each case runs with 1/8 of a subgroup of 8 or more",
        source: || include_str!("../../assets/kernels/divergence_switch.wgsl").to_owned(),
        settings: || study_settings(|_| 16),
    },
    Example {
        name: "Divergence study: if-chain, k = 8",
        about: "the same paths as an if / else-if chain, as the study generates it",
        source: || Form::IfChain.source(8, Selection::Subgroup),
        settings: || study_settings(|_| 16),
    },
    Example {
        name: "Divergence study: nested ifs, k = 8",
        about: "the same paths as a balanced tree of binary ifs, three levels deep",
        source: || Form::NestedIf.source(8, Selection::Subgroup),
        settings: || study_settings(|_| 16),
    },
    Example {
        name: "Divergence study: loop, trips 4 to 32",
        about: "one loop whose trip count depends on the lane: later trips run with fewer lanes",
        source: || Form::Loop.source(1, Selection::Subgroup),
        settings: || study_settings(|j| 4 * (j + 1)),
    },
];

/// The study's parameters for k = 8 lane-divergent paths, path j running `trips(j)` trips.
fn study_settings(trips: fn(u32) -> u32) -> RunSettings {
    let trips: Vec<String> = (0..128).map(|j| trips(j % 8).to_string()).collect();
    RunSettings {
        workgroups: [64, 1, 1],
        buffers: format!("params=values:8,0,0,0,{}", trips.join(",")),
        ..RunSettings::default()
    }
}
