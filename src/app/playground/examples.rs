//! Kernels to start from in the Playground: the one it opens with ([`EXAMPLE`]), and the menu's,
//! each with the run settings that make it show something: a bounds check, distance tests, a
//! Collatz loop, an image threshold and edge detection on textures, a switch on lane bits (the
//! files in `assets/kernels`, which `divlab profile` takes too), and the divergence study's
//! forms as divlab generates them.

use super::settings::RunSettings;
use crate::shaders::divergence::{Form, Selection};

/// The shader the playground starts with: valid WGSL that shows both verdicts, a ballot every
/// lane reaches and one only the odd lanes reach.
pub const EXAMPLE: &str = "enable subgroups;
// WGSL rejects a subgroup op under a lane-dependent branch
// unless this rule is off; divlab's experiments turn it off
// to watch which lanes run such a line together.
diagnostic(off, subgroup_uniformity);

@group(0) @binding(0) var<storage, read_write> out: array<vec4<u32>>;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) sid: u32) {
    // Uniform: every lane of the subgroup reaches this ballot.
    let everyone = subgroupBallot(true);
    var odd = vec4<u32>(0u);
    if (sid % 2u == 1u) {
        // Non-uniform: only the odd lanes run this line.
        odd = subgroupBallot(true);
    }
    out[lid] = everyone ^ odd;
}
";

/// One example.
pub struct Example {
    /// Its name in the menu.
    pub name: &'static str,
    /// What it shows, in one line.
    pub about: &'static str,
    /// The WGSL.
    kernel: Kernel,
    /// How to run it.
    run: Run,
}

/// Where an example's WGSL comes from.
enum Kernel {
    /// A file of `assets/kernels`: its name without `.wgsl`, and its text.
    File(&'static str, &'static str),
    /// The divergence study's form as divlab generates it, with this many paths.
    Generated(Form, u32),
}

/// The run settings that make an example show something.
enum Run {
    /// This many workgroups, with these `--len` lines.
    Dispatch(u32, &'static str),
    /// This many workgroups in x and y, with these texture lines (`texture src=gradient`).
    Image([u32; 2], &'static str),
    /// The study's parameters, path j running `trips(j)` trips.
    Study(fn(u32) -> u32),
}

impl Example {
    /// The name the kernel goes by: its file's in `assets/kernels`, or one after the study's
    /// form (`divergence_if_chain_k8.wgsl`).
    pub fn file_name(&self) -> String {
        match self.kernel {
            Kernel::File(name, _) => format!("{name}.wgsl"),
            Kernel::Generated(Form::Loop, _) => "divergence_loop.wgsl".to_owned(),
            Kernel::Generated(form, paths) => format!("divergence_{}_k{paths}.wgsl", form.name()),
        }
    }

    /// The WGSL.
    pub fn source(&self) -> String {
        match self.kernel {
            Kernel::File(_, text) => text.to_owned(),
            Kernel::Generated(form, paths) => form.source(paths, Selection::Subgroup),
        }
    }

    /// How to run it.
    pub fn settings(&self) -> RunSettings {
        match self.run {
            Run::Dispatch(workgroups, lens) => RunSettings {
                workgroups: [workgroups, 1, 1],
                lens: lens.to_owned(),
                ..RunSettings::default()
            },
            Run::Image([x, y], textures) => RunSettings {
                workgroups: [x, y, 1],
                textures: textures.to_owned(),
                ..RunSettings::default()
            },
            Run::Study(trips) => study_settings(trips),
        }
    }
}

/// The file `assets/kernels/<name>.wgsl` as an example's kernel.
macro_rules! asset {
    ($name:literal) => {
        Kernel::File(
            $name,
            include_str!(concat!("../../../assets/kernels/", $name, ".wgsl")),
        )
    };
}

/// Every example, in menu order.
pub const EXAMPLES: &[Example] = &[
    Example {
        name: "Bounds-checked element-wise",
        about: "lanes past the end return: only the last subgroups diverge",
        kernel: asset!("bounds_checked"),
        run: Run::Dispatch(2, "output=100\ninput=100"),
    },
    Example {
        name: "Particle update (distance tests)",
        about: "each lane's own particle picks the branch: divergence where particles straddle a boundary",
        kernel: asset!("particles"),
        run: Run::Dispatch(16, "particles=1024"),
    },
    Example {
        name: "Collatz loop",
        about: "every lane loops as long as its own number needs: a divergent loop",
        kernel: asset!("collatz"),
        run: Run::Dispatch(16, ""),
    },
    Example {
        name: "Image threshold (texture in, texture out)",
        about: "each pixel's value picks the branch: on a gradient, only subgroups the diagonal cuts diverge",
        kernel: asset!("threshold"),
        run: Run::Image([8, 8], "texture src=gradient"),
    },
    Example {
        name: "Edge detection (Sobel on a checkerboard)",
        about: "only pixels on an edge take the branch: subgroups that meet an edge pay for it",
        kernel: asset!("edges"),
        run: Run::Image([8, 8], "texture src=checker:16"),
    },
    Example {
        name: "Switch on lane bits",
        about: "four cases, a quarter of each subgroup in each: 25% efficiency per case",
        kernel: asset!("lane_bits_switch"),
        run: Run::Dispatch(4, ""),
    },
    Example {
        name: "Divergence study: switch, k = 8",
        about: "the study's kernel with 8 paths of 16 trips each: each case runs with 1/8 of a subgroup of 8 or more",
        kernel: asset!("divergence_switch"),
        run: Run::Study(|_| 16),
    },
    Example {
        name: "Divergence study: if-chain, k = 8",
        about: "the same paths as an if / else-if chain, as the study generates it",
        kernel: Kernel::Generated(Form::IfChain, 8),
        run: Run::Study(|_| 16),
    },
    Example {
        name: "Divergence study: nested ifs, k = 8",
        about: "the same paths as a balanced tree of binary ifs, three levels deep",
        kernel: Kernel::Generated(Form::NestedIf, 8),
        run: Run::Study(|_| 16),
    },
    Example {
        name: "Divergence study: loop, trips 4 to 32",
        about: "one loop whose trip count depends on the lane: later trips run with fewer lanes",
        kernel: Kernel::Generated(Form::Loop, 1),
        run: Run::Study(|j| 4 * (j + 1)),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Each example goes by its own name: an asset's is its file's, which exists.
    #[test]
    fn every_example_has_a_name_of_its_own() {
        let names: std::collections::BTreeSet<String> =
            EXAMPLES.iter().map(Example::file_name).collect();
        assert_eq!(names.len(), EXAMPLES.len(), "{names:?}");
        for example in EXAMPLES {
            if let Kernel::File(name, _) = example.kernel {
                let path = format!("{}/assets/kernels/{name}.wgsl", env!("CARGO_MANIFEST_DIR"));
                assert!(std::path::Path::new(&path).exists(), "{path}");
            }
        }
        assert_eq!(EXAMPLES[7].file_name(), "divergence_if_chain_k8.wgsl");
    }
}
