//! A profile compares what the instrumented kernel wrote with a run of the kernel alone from the
//! same inputs: every `read_write` buffer value by value (padding left out), every written
//! storage texture texel by texel, and, where they differ, the kernel alone against itself.

use divlab::profile::fill::{BindingRef, BufferSpec};
use divlab::profile::report::{OutputUnit, OutputsRecord};

use crate::util::profiled_as;

/// Rewrites its cells in place (a second run on the same buffer would give other values) and
/// writes a texture. `Cell` is 16 bytes: `a`, 4 bytes of padding, `b`.
const IN_PLACE: &str = "\
struct Cell { a: f32, b: vec2<f32> }
@group(0) @binding(0) var<storage, read_write> cells: array<Cell>;
@group(0) @binding(1) var img: texture_storage_2d<r32uint, write>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.y * 16u + gid.x;
    if (i < arrayLength(&cells)) {
        var c = cells[i];
        if (c.a > 0.5) {
            c.a = c.a * 2.0 + 1.0;
        } else {
            c.b = c.b * 3.0 - vec2<f32>(c.a);
        }
        cells[i] = c;
    }
    textureStore(img, gid.xy, vec4<u32>(i % 3u));
}
";

fn outputs(p: &divlab::profile::report::Profile) -> &OutputsRecord {
    p.outputs
        .as_ref()
        .expect("a timed profile compares outputs")
}

/// 100 cells of 3 scalars and a 16×16 texture, the same bit for bit: the kernel alone ran on
/// fresh resources (on the counted run's, its in-place update would have run twice).
#[test]
fn a_deterministic_kernel_writes_what_it_writes_alone() {
    let finished = profiled_as("in_place.wgsl", IN_PLACE, 2, |r| {
        r.dispatch = [2, 2, 1];
        r.lens = vec![(BindingRef::Name("cells".to_owned()), 100)];
    });
    let outputs = outputs(&finished.profile);
    let found: Vec<(&str, OutputUnit, u64, u64)> = (outputs.resources.iter())
        .map(|r| (r.label.as_str(), r.unit, r.compared, r.differing))
        .collect();
    assert_eq!(
        found,
        [
            (
                "`cells` (@group(0) @binding(0))",
                OutputUnit::Values,
                300,
                0
            ),
            ("`img` (@group(0) @binding(1))", OutputUnit::Texels, 256, 0),
        ]
    );
    assert!(outputs.agree() && !outputs.atomics && outputs.notes().is_empty());
    assert!(outputs.resources.iter().all(|r| r.difference.is_none()));
    let text = divlab::profile::report::render_text(&finished.profile);
    assert!(
        text.contains("outputs: the same as the kernel alone writes, bit for bit"),
        "{text}"
    );
}

/// Each invocation takes the next slot of an atomic counter: where the slots land follows the
/// order in which invocations reach the atomic, which nothing fixes.
const SLOTS: &str = "\
@group(0) @binding(0) var<storage, read_write> next: atomic<u32>;
@group(0) @binding(1) var<storage, read_write> order: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var x = gid.x;
    for (var i = 0u; i < (gid.x % 7u) * 20u; i++) {
        x = x * 1664525u + 1013904223u;
    }
    let slot = atomicAdd(&next, 1u);
    if (slot < arrayLength(&order)) {
        order[slot] = gid.x + (x & 0u);
    }
}
";

/// Whatever order the runs take, the counter ends at the same total, and a difference in the
/// slots is checked against a second run alone and never blamed on divlab: the kernel has
/// atomics.
#[test]
fn an_order_dependent_kernel_is_checked_against_itself_and_not_blamed_on_divlab() {
    let finished = profiled_as("slots.wgsl", SLOTS, 2, |r| {
        r.dispatch = [64, 1, 1];
        r.buffers = vec!["next=zeros".parse::<BufferSpec>().unwrap()];
    });
    let outputs = outputs(&finished.profile);
    assert!(outputs.atomics);
    let [next, order] = &outputs.resources[..] else {
        panic!("{outputs:?}")
    };
    assert_eq!((next.compared, next.differing), (1, 0), "4096 either way");
    assert_eq!(order.compared, 4096);
    assert_eq!(order.difference.is_some(), order.differing > 0);
    for note in outputs.notes() {
        assert!(!note.contains("divlab bug"), "{note}");
    }
}

/// Writes every texel of a 3-D texture and of each layer of an array, from its coordinates.
const VOLUMES: &str = "\
@group(0) @binding(0) var vol: texture_storage_3d<r32uint, write>;
@group(0) @binding(1) var layers: texture_storage_2d_array<rgba8unorm, write>;

@compute @workgroup_size(4, 4, 4)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    textureStore(vol, gid, vec4<u32>(gid.x + 10u * gid.y + 100u * gid.z));
    if (gid.z < 3u) {
        textureStore(layers, gid.xy, gid.z, vec4<f32>(f32(gid.z) / 4.0, 0.5, 0.0, 1.0));
    }
}
";

/// Every depth slice and layer is compared, not only the first: 8 × 8 × 8 texels of the
/// volume, 8 × 8 × 3 of the array.
#[test]
fn textures_are_compared_in_every_layer() {
    let finished = profiled_as("volumes.wgsl", VOLUMES, 2, |r| {
        r.dispatch = [2, 2, 2];
        r.textures.add("--size layers=8x8x3").unwrap();
    });
    let outputs = outputs(&finished.profile);
    let found: Vec<(OutputUnit, u64, u64)> = (outputs.resources.iter())
        .map(|r| (r.unit, r.compared, r.differing))
        .collect();
    assert_eq!(
        found,
        [(OutputUnit::Texels, 512, 0), (OutputUnit::Texels, 192, 0)]
    );
}

/// The timed runs start from the inputs the profile counted: a kernel that reads its loop's
/// bound from the buffer it writes is timed over as many trips as it counted (none, from
/// zeros), not over the 20000 a lane that each run leaves behind. A ratio with a wide margin
/// (about 150 on lavapipe; 1, both 20000 trips, when the runs followed each other's outputs).
#[test]
fn the_timed_runs_start_from_the_inputs_the_profile_counted() {
    let _gpu = crate::util::gpu_exclusive();
    let lab = divlab::experiments::Lab::new(crate::util::gpu());
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/kernels/profile/writes_its_own_bound.wgsl"
    );
    let source = std::fs::read_to_string(path).unwrap();
    let time_from = |fill: String| {
        let mut request = divlab::profile::run::Request::new(path, source.clone());
        request.dispatch = [4, 1, 1];
        request.reps = 9;
        request.buffers = vec![format!("data={fill}").parse::<BufferSpec>().unwrap()];
        let finished = divlab::profile::run::profile(&lab, &request).unwrap();
        finished.profile.timing.expect("the kernel ends").kernel_ns
    };
    let from_zeros = time_from("zeros".to_owned());
    let trips = vec!["20000"; 256].join(",");
    let from_trips = time_from(format!("values:{trips}"));
    assert!(
        from_trips > 5.0 * from_zeros,
        "from zeros {from_zeros} ns, from 20000 trips a lane {from_trips} ns"
    );
}
