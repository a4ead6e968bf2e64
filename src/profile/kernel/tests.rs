//! The kernel interface and the overrides on small kernels.

use super::*;
use crate::shaders::check_wgsl;

const KERNEL: &str = "struct Params { n: u32, scale: f32, offset: vec2<f32> }
struct Item { pos: vec3<f32>, id: u32 }
struct Items { count: u32, items: array<Item> }

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<f32>;
@group(1) @binding(0) var<storage, read_write> out: Items;
@group(0) @binding(2) var<storage, read_write> unused: array<u32>;

fn load(i: u32) -> f32 { return input[i] * params.scale; }

@compute @workgroup_size(64, 2)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    out.items[gid.x].pos = vec3<f32>(load(gid.x));
    out.items[gid.x].id = params.n;
}
";

fn iface(src: &str, entry: Option<&str>) -> Result<KernelInterface> {
    let module = check_wgsl("k.wgsl", src).unwrap();
    interface(&module, src, "k.wgsl", entry)
}

fn message<E: Into<Error>>(r: Result<impl fmt::Debug, E>) -> String {
    match r.map_err(Into::into) {
        Err(Error::Profile(e)) => e.to_string(),
        other => panic!("expected a profile error, got {other:?}"),
    }
}

#[track_caller]
fn assert_mentions(message: &str, needles: &[&str]) {
    for needle in needles {
        assert!(message.contains(needle), "no `{needle}` in: {message}");
    }
}

fn runtime(base: u64, stride: u64, min: u64) -> BufferSize {
    BufferSize::RuntimeArray { base, stride, min }
}

#[test]
fn interface_lists_used_buffers_with_sizes_and_lines() {
    let k = iface(KERNEL, None).unwrap();
    assert_eq!(k.entry, "main");
    assert_eq!(k.workgroup_size, [64, 2, 1]);
    assert_eq!(k.workgroup_invocations(), 128);
    let names: Vec<_> = k.bindings.iter().map(|b| b.name.as_str()).collect();
    // `input` is used only through `load`; `unused` not at all. Ordered by (group, binding).
    assert_eq!(names, ["params", "input", "out"]);

    let params = &k.bindings[0];
    assert_eq!((params.group, params.binding, params.line), (0, 0, 5));
    assert_eq!(params.access, Access::Uniform);
    // n at 0, scale at 4, offset (vec2, align 8) at 8: 16 bytes.
    assert_eq!(params.size, BufferSize::Fixed(16));

    let input = &k.bindings[1];
    assert_eq!((input.group, input.binding, input.line), (0, 1, 6));
    assert_eq!(input.access, Access::StorageRead);
    assert_eq!(input.size, runtime(0, 4, 4));
    assert_eq!(input.size.bytes(10), 40);
    assert_eq!(input.size.len_for(40), 10);

    let out = &k.bindings[2];
    assert_eq!((out.group, out.binding, out.line), (1, 0, 7));
    assert_eq!(out.access, Access::StorageReadWrite);
    // Item: pos (vec3, align 16) at 0, id at 12: size 16, stride 16. Items: count at 0,
    // items (align 16) at 16; with one element 32 bytes.
    assert_eq!(out.size, runtime(16, 16, 32));
    assert_eq!(out.size.bytes(3), 16 + 48);
    assert_eq!(out.size.bytes(0), 32);
    assert_eq!(out.shape.scalar_count(3), 1 + 3 * 4);
}

/// What a timed run must put back: a buffer whose contents the entry point reads and writes
/// (through a function it calls, too) or changes with an atomic; not one it only reads (an
/// atomic load included), nor one it only writes, whatever its access mode.
#[test]
fn a_binding_feeds_back_where_the_entry_point_reads_what_it_writes() {
    let src = "@group(0) @binding(0) var<storage, read_write> only_read: array<u32>;
@group(0) @binding(1) var<storage, read_write> stored: array<u32>;
@group(0) @binding(2) var<storage, read_write> counter: atomic<u32>;
@group(0) @binding(3) var<storage, read> input: array<u32>;
@group(0) @binding(4) var<storage, read_write> loaded: atomic<u32>;
@group(0) @binding(5) var<storage, read_write> updated: array<u32>;
fn put(i: u32, v: u32) { stored[i] = v; }
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    put(gid.x, only_read[gid.x] + input[gid.x] + atomicLoad(&loaded));
    atomicAdd(&counter, 1u);
    updated[gid.x] += 1u;
}
";
    let k = iface(src, None).unwrap();
    let feeds_back: Vec<(&str, bool)> = (k.bindings.iter())
        .map(|b| (b.name.as_str(), b.feeds_back))
        .collect();
    assert_eq!(
        feeds_back,
        [
            ("only_read", false),
            ("stored", false),
            ("counter", true),
            ("input", false),
            ("loaded", false),
            ("updated", true)
        ]
    );
}

#[test]
fn runtime_struct_never_smaller_than_its_aligned_size() {
    let src = "struct S { a: vec4<f32>, b: array<f32> }
@group(0) @binding(0) var<storage, read_write> s: S;
@compute @workgroup_size(1) fn main() { s.b[0] = s.a.x; }
";
    let k = iface(src, None).unwrap();
    // b at 16, stride 4; one element: 20 rounded up to the struct's alignment 16 = 32.
    let size = BufferSize::RuntimeArray {
        base: 16,
        stride: 4,
        min: 32,
    };
    assert_eq!(k.bindings[0].size, size);
    assert_eq!(size.bytes(1), 32);
    assert_eq!(size.bytes(5), 36);
    assert_eq!(size.len_for(32), 4);
}

#[test]
fn matrix_columns_are_padded() {
    let src = "@group(0) @binding(0) var<storage, read_write> m: mat2x3<f32>;
@compute @workgroup_size(1) fn main() { m[0].x = 1.0; }
";
    let k = iface(src, None).unwrap();
    assert_eq!(k.bindings[0].size, BufferSize::Fixed(32));
    let mut offsets = Vec::new();
    let _ = k.bindings[0].shape.for_each_scalar(0, 0, &mut |o, _| {
        offsets.push(o);
        ControlFlow::Continue(())
    });
    assert_eq!(offsets, [0, 4, 8, 16, 20, 24]);
}

#[test]
fn external_texture_is_rejected_with_its_name_and_line() {
    let src = "@group(0) @binding(0) var<storage, read_write> out: array<f32>;

@group(0) @binding(1) var video: texture_external;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    out[gid.x] = textureLoad(video, vec2<u32>(gid.x, 0u)).x;
}
";
    let m = message(iface(src, None));
    assert_mentions(
        &m,
        &[
            "`video`",
            "@group(0) @binding(1)",
            "line 3",
            "texture_external",
            "buffers, immediates, textures and samplers",
        ],
    );
}

#[test]
fn textures_and_samplers_are_read_with_their_class_and_filtering() {
    let src = "@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var smp: sampler;
@group(1) @binding(0) var dst: texture_storage_2d<r32uint, write>;
@group(1) @binding(1) var arr: texture_2d_array<u32>;
@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let c = textureSampleLevel(src, smp, vec2<f32>(0.5), 0.0);
    let a = textureLoad(arr, gid.xy, 0, 0).x;
    textureStore(dst, gid.xy, vec4<u32>(u32(c.x) + a));
}
";
    let i = iface(src, None).unwrap();
    assert!(i.bindings.is_empty());
    let names: Vec<&str> = i.textures.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["src", "dst", "arr"]);
    assert_eq!(
        i.textures[0].class,
        TextureClass::Sampled {
            kind: SampleKind::Float,
            multisampled: false
        }
    );
    assert!(i.textures[0].filtered, "src is sampled through smp");
    assert!(!i.textures[2].filtered, "arr is only loaded");
    assert_eq!(i.textures[2].dim, TextureDim::D2Array);
    assert!(i.textures[1].is_written());
    assert_eq!(
        i.textures[1].class,
        TextureClass::Storage {
            format: wgpu::TextureFormat::R32Uint,
            access: TextureAccess::Write
        }
    );
    assert_eq!(i.samplers.len(), 1);
    assert!(!i.samplers[0].comparison);
    // Textures in their order (src, dst, arr), then the sampler.
    assert_eq!(i.groups().collect::<Vec<_>>(), [0, 1, 1, 0]);
}

#[test]
fn unused_texture_is_fine() {
    let src = "@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var tex: texture_2d<f32>;
@compute @workgroup_size(8) fn main() { out[0] = 1.0; }
";
    assert_eq!(iface(src, None).unwrap().bindings.len(), 1);
}

#[test]
fn no_compute_entry_is_an_error() {
    let src = "@fragment fn fs() -> @location(0) vec4<f32> { return vec4<f32>(1.0); }\n";
    let m = message(iface(src, None));
    assert!(m.contains("no @compute entry point"), "{m}");
    let m = message(iface(src, Some("fs")));
    assert!(m.contains("`fs` is a Fragment entry point"), "{m}");
}

const TWO: &str = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(4) fn first() { out[0] = 1u; }
@compute @workgroup_size(8, 8) fn second() { out[1] = 2u; }
";

#[test]
fn two_entries_need_entry() {
    let m = message(iface(TWO, None));
    assert!(m.contains("2 @compute entry points"), "{m}");
    assert!(m.contains("`first`") && m.contains("`second`"), "{m}");
    assert!(m.contains("--entry"), "{m}");
    let k = iface(TWO, Some("second")).unwrap();
    assert_eq!((k.entry.as_str(), k.workgroup_size), ("second", [8, 8, 1]));
}

#[test]
fn unknown_entry_lists_compute_entries() {
    let m = message(iface(TWO, Some("third")));
    assert!(m.contains("--entry third"), "{m}");
    assert!(m.contains("no entry point `third`"), "{m}");
    assert!(m.contains("`first`, `second`"), "{m}");
}

const OVERRIDES: &str = "override BLOCK: u32 = 64u;
@id(7) override scale: f32 = 1.5;
override n: u32;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(BLOCK)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if gid.x < n { out[gid.x] = scale; }
}
";

#[test]
fn overrides_become_constants() {
    let module = check_wgsl("k.wgsl", OVERRIDES).unwrap();
    let overrides = [("BLOCK".to_owned(), 32.0), ("n".to_owned(), 100.0)];
    let resolved = apply_overrides(&module, OVERRIDES, &overrides).unwrap();
    assert!(resolved.overrides.is_empty());
    let value = |name: &str| {
        let (_, c) = resolved
            .constants
            .iter()
            .find(|(_, c)| c.name.as_deref() == Some(name))
            .unwrap();
        resolved.global_expressions[c.init].clone()
    };
    assert_eq!(
        value("n"),
        naga::Expression::Literal(naga::Literal::U32(100))
    );
    assert_eq!(
        value("scale"),
        naga::Expression::Literal(naga::Literal::F32(1.5))
    );
    let k = interface(&resolved, OVERRIDES, "k.wgsl", None).unwrap();
    assert_eq!(k.workgroup_size, [32, 1, 1]);
    assert_eq!(k.bindings[0].line, 4);
    // Written back as WGSL, each value is one plain `const`, and the text validates.
    let info = validate(&resolved).unwrap();
    let flags = naga::back::wgsl::WriterFlags::empty();
    let text = naga::back::wgsl::write_string(&resolved, &info, flags).unwrap();
    assert!(!text.contains("override"), "{text}");
    assert!(text.contains("const n: u32 = 100u;"), "{text}");
    assert!(text.contains("@workgroup_size(32, 1, 1)"), "{text}");
    check_wgsl("written.wgsl", &text).unwrap();
    // By @id too.
    let by_id = [("7".to_owned(), 2.0), ("n".to_owned(), 1.0)];
    assert!(apply_overrides(&module, OVERRIDES, &by_id).is_ok());
}

#[test]
fn unresolved_workgroup_size_is_an_error() {
    let module = check_wgsl("k.wgsl", OVERRIDES).unwrap();
    let m = message(interface(&module, OVERRIDES, "k.wgsl", None));
    assert!(m.contains("apply_overrides"), "{m}");
}

#[test]
fn unknown_override_lists_the_overridable_constants() {
    let module = check_wgsl("k.wgsl", OVERRIDES).unwrap();
    let m = message(apply_overrides(
        &module,
        OVERRIDES,
        &[("BLOK".to_owned(), 1.0)],
    ));
    assert_mentions(
        &m,
        &[
            "no `override` constant `BLOK`",
            "`BLOCK` (u32, default 64)",
            "`scale` (@id(7), f32, default 1.5)",
            "`n` (u32, no default: required)",
        ],
    );
}

#[test]
fn missing_override_value_says_which_and_where() {
    let module = check_wgsl("k.wgsl", OVERRIDES).unwrap();
    let missing = apply_overrides(&module, OVERRIDES, &[]).unwrap_err();
    // `override n: u32;` is line 3: the Playground marks it.
    assert_eq!(missing.line(), Some(3));
    let m = missing.to_string();
    assert!(m.contains("`n` (line 3) has no default value"), "{m}");
    assert!(m.contains("--override n=VALUE"), "{m}");
    let twice = [("n".to_owned(), 1.0), ("n".to_owned(), 2.0)];
    let twice = apply_overrides(&module, OVERRIDES, &twice).unwrap_err();
    assert_eq!(twice.line(), Some(3));
    assert!(twice.to_string().contains("twice"), "{twice}");
    // By `@id`, the line of the constant that has it.
    let misfit = apply_overrides(&module, OVERRIDES, &[("7".to_owned(), f64::NAN)]);
    assert_eq!(misfit.unwrap_err().line(), Some(2));
    let unknown = apply_overrides(&module, OVERRIDES, &[("BLOK".to_owned(), 1.0)]);
    assert_eq!(unknown.unwrap_err().line(), None);
}

#[test]
fn no_overrides_leaves_module_alone() {
    let module = check_wgsl("k.wgsl", KERNEL).unwrap();
    let resolved = apply_overrides(&module, KERNEL, &[]).unwrap();
    assert_eq!(
        resolved.global_variables.len(),
        module.global_variables.len()
    );
    let m = message(apply_overrides(&module, KERNEL, &[("x".to_owned(), 1.0)]));
    assert!(m.contains("declares no `override` constants"), "{m}");
}
