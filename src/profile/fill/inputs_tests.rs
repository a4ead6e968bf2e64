//! The default of a uniform buffer's integer fields and the size limits, on small kernels.

use crate::profile::error::Error;
use crate::profile::fill::tests::{kernel, words};
use crate::profile::fill::*;

const PARAMS: &str = "\
struct Inner { lo: i32, hi: u32 }
struct Params {
    count: u32,
    scale: f32,
    @align(16) inner: Inner,
    @align(16) dims: vec2<u32>,
    table: array<vec4<u32>, 2>,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<uniform> n: u32;
@group(0) @binding(2) var<storage, read_write> data: array<u32>;
@compute @workgroup_size(4) fn main() {
    data[0] = params.count + u32(params.scale) + u32(params.inner.lo) + params.inner.hi
        + params.dims.x + params.table[1].y + n;
}
";

/// Layout of Params: count 0, scale 4, inner 16 (lo 16, hi 20), dims 32..40, table 48..80.
#[test]
fn a_uniforms_integer_fields_default_to_the_invocations_and_the_rest_stays_random() {
    let k = kernel(PARAMS);
    let resolved = resolve(&k, &[], &[]).unwrap();
    assert!(resolved.iter().all(|r| !r.given));
    let params = &k.bindings[0];
    assert_eq!(
        count_scalars(&params.shape)
            .iter()
            .map(|(at, _)| *at)
            .collect::<Vec<_>>(),
        [0, 16, 20, 32, 36],
        "count, inner.lo, inner.hi and dims' two components; not the array"
    );
    let got = words(&initial(params, &resolved[0], 256).unwrap());
    let random = words(&contents(params, params.size.bytes(0), &Fill::default()).unwrap());
    assert_eq!(
        (got[0], got[4], got[5], got[8], got[9]),
        (256, 256, 256, 256, 256)
    );
    for i in [1usize, 12, 13, 19] {
        assert_eq!(got[i], random[i], "word {i} keeps the random fill");
    }
    assert_eq!(
        words(&initial(&k.bindings[1], &resolved[1], 256).unwrap()),
        [256]
    );
    // A storage buffer keeps the random fill.
    let data = &k.bindings[2];
    assert_eq!(
        initial(data, &resolved[2], 4).unwrap(),
        contents(data, data.size.bytes(4), &Fill::default()).unwrap()
    );
    // Clamped to the type: an i32 holds at most 2^31 - 1.
    let big = words(&initial(params, &resolved[0], 1 << 40).unwrap());
    assert_eq!(
        (big[0], big[4], big[5]),
        (u32::MAX, i32::MAX as u32, u32::MAX)
    );
}

#[test]
fn a_given_fill_is_left_alone_even_random() {
    let k = kernel(PARAMS);
    let specs = ["params=random".parse().unwrap()];
    let resolved = resolve(&k, &specs, &[]).unwrap();
    assert!(resolved[0].given && !resolved[1].given);
    let params = &k.bindings[0];
    assert_eq!(
        initial(params, &resolved[0], 256).unwrap(),
        contents(params, params.size.bytes(0), &Fill::Random(DEFAULT_SEED)).unwrap()
    );
}

/// Each `--buffer` option parsed.
fn specs(written: &[&str]) -> Vec<BufferSpec> {
    written.iter().map(|s| s.parse().unwrap()).collect()
}

/// `--buffer BINDING.PLACE=N` sets one scalar, found by its WGSL path, over the default fill
/// (which stays the default: the other integer fields keep the invocations) or a given one.
#[test]
fn a_place_sets_one_scalar_over_the_fill() {
    let k = kernel(PARAMS);
    let specs = specs(&[
        "params.inner.hi=7",
        "params.dims.y=9",
        "params.table[1].z=11",
        "params.scale=0.5",
        "n=3",
        "data=iota",
        "data[2]=40",
    ]);
    let resolved = resolve(&k, &specs, &[]).unwrap();
    assert!(!resolved[0].given && !resolved[1].given && resolved[2].given);
    let got = words(&initial(&k.bindings[0], &resolved[0], 256).unwrap());
    assert_eq!(
        (got[0], got[4], got[5]),
        (256, 256, 7),
        "count, inner.lo, inner.hi"
    );
    assert_eq!((got[9], got[12 + 4 + 2]), (9, 11), "dims.y, table[1].z");
    assert_eq!(f32::from_bits(got[1]), 0.5);
    assert_eq!(
        words(&initial(&k.bindings[1], &resolved[1], 256).unwrap()),
        [3]
    );
    assert_eq!(
        words(&initial(&k.bindings[2], &resolved[2], 4).unwrap()),
        [0, 1, 40, 3]
    );
    assert_eq!(resolved[0].sets[0].path, "params.inner.hi");
    assert_eq!(specs[1].to_string(), "params.dims.y=9", "the record's form");
}

/// `--buffer BINDING.PLACE=values:...` sets each scalar under the place in layout order: a
/// vector's components, a struct's members, an array's elements, the first elements of a
/// runtime-sized array; each is recorded with its own path.
#[test]
fn a_place_with_values_sets_each_scalar_under_it() {
    let dims: BufferSpec = "params.dims=values:5,6".parse().unwrap();
    assert_eq!(
        dims.to_string(),
        "params.dims=values:5,6",
        "the record's form"
    );
    let k = kernel(PARAMS);
    let others = ["params.inner=values:-2,9", "params.table[1]=values:1,2,3,4"];
    let resolved = resolve(&k, &[vec![dims], specs(&others)].concat(), &[]).unwrap();
    let got = words(&initial(&k.bindings[0], &resolved[0], 256).unwrap());
    assert_eq!((got[8], got[9]), (5, 6), "dims");
    assert_eq!((got[4] as i32, got[5]), (-2, 9), "inner.lo, inner.hi");
    assert_eq!(got[16..20], [1, 2, 3, 4], "table[1]");
    assert_eq!(got[0], 256, "count keeps the default");
    let paths: Vec<&str> = resolved[0].sets.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "params.dims.x",
            "params.dims.y",
            "params.inner.lo",
            "params.inner.hi",
            "params.table[1].x",
            "params.table[1].y",
            "params.table[1].z",
            "params.table[1].w",
        ]
    );
    // A runtime-sized array under the place: its first elements, as many as given. A small
    // fixed-size array's elements are `[i]`, not a vector's `.x`.
    let tail = kernel(
        "struct Tail { n: u32, pair: array<u32, 2>, items: array<u32> }
@group(0) @binding(0) var<storage, read_write> t: Tail;
@compute @workgroup_size(4) fn main() { t.items[0] = t.n + t.pair[1]; }",
    );
    let resolved = resolve(
        &tail,
        &specs(&["t.items=values:7,8,9", "t.pair=values:5,6"]),
        &[],
    )
    .unwrap();
    let got = words(&initial(&tail.bindings[0], &resolved[0], 4).unwrap());
    assert_eq!(
        (got.len(), &got[1..6]),
        (7, &[5, 6, 7, 8, 9][..]),
        "pair, then items[0..3], after n"
    );
    let paths: Vec<&str> = resolved[0].sets.iter().map(|s| s.path.as_str()).collect();
    assert_eq!(paths[3..], ["t.pair[0]", "t.pair[1]"]);
    let why = |spec: &str| match resolve(&k, &[spec.parse().unwrap()], &[]) {
        Err(Error::BadFill { why, .. }) => why,
        other => panic!("{spec}: {other:?}"),
    };
    let m = why("params.dims=values:1,2,3");
    assert!(
        m.contains("3 values for `.dims`, which holds 2 scalars"),
        "{m}"
    );
    let m = why("params.count=values:1,2");
    assert!(
        m.contains("2 values for `.count`, which holds 1 scalars"),
        "{m}"
    );
    let m = "params.dims=zeros".parse::<BufferSpec>().unwrap_err();
    assert!(m.contains("or values:... for each scalar under it"), "{m}");
}

#[test]
fn a_place_that_names_no_one_scalar_says_why() {
    let k = kernel(PARAMS);
    let why = |spec: &str| match resolve(&k, &[spec.parse().unwrap()], &[]) {
        Err(Error::BadFill { why, .. }) => why,
        other => panic!("{spec}: {other:?}"),
    };
    for (spec, part) in [
        (
            "params.cout=1",
            "no member `cout` (the members: count, scale, inner, dims, table)",
        ),
        ("params.dims=1", "`.dims` holds 2 scalars, not one"),
        ("params.dims.w=1", "index 3 is past the end (2 elements)"),
        (
            "params.table[2].x=1",
            "index 2 is past the end (2 elements)",
        ),
        ("params.count.x=1", "`.x` names a member of no struct"),
        ("params.table[i].x=1", "`[i]` is not a constant index"),
    ] {
        let m = why(spec);
        assert!(
            m.contains(&format!("--buffer {spec}")) && m.contains(part),
            "{spec}: {m}"
        );
    }
    // A runtime-sized array's index is checked against its length when it is filled.
    let resolved = resolve(&k, &["data[9]=1".parse().unwrap()], &[]).unwrap();
    match initial(&k.bindings[2], &resolved[2], 4) {
        Err(Error::BadFill { why, .. }) => {
            assert!(why.contains("past the end of `data`"), "{why}");
            assert!(why.contains("holds 4 elements"), "{why}");
        }
        other => panic!("{other:?}"),
    }
    let resolved = resolve(&k, &["params.count=-1".parse().unwrap()], &[]).unwrap();
    assert!(
        initial(&k.bindings[0], &resolved[0], 4).is_err(),
        "-1 does not fit a u32"
    );
    let m = "params.count=lots".parse::<BufferSpec>().unwrap_err();
    assert!(
        m.contains("`lots` is not a number; a place takes one"),
        "{m}"
    );
}

#[test]
fn limits_name_the_tighter_limit_and_the_longest_array_that_fits() {
    let k = kernel(PARAMS);
    let limits = wgpu::Limits {
        max_storage_buffer_binding_size: 1 << 20,
        max_uniform_buffer_binding_size: 48,
        max_buffer_size: 1 << 30,
        ..wgpu::Limits::default()
    };
    let check = |lens: &[(BindingRef, u64)], invocations, limits: &wgpu::Limits| {
        let resolved = resolve(&k, &[], lens).unwrap();
        check_limits(&k, &resolved, invocations, limits)
    };
    // Params takes 80 bytes, over the uniform limit of 48.
    match check(&[], 4, &limits) {
        Err(Error::BufferLimit {
            buffer,
            asked,
            limit,
            max,
            ..
        }) => {
            assert_eq!(
                (buffer.as_str(), asked, limit, max),
                (
                    "`params` (@group(0) @binding(0))",
                    80,
                    "max_uniform_buffer_binding_size",
                    48
                )
            );
        }
        other => panic!("{other:?}"),
    }
    let limits = wgpu::Limits {
        max_uniform_buffer_binding_size: 1 << 16,
        ..limits
    };
    assert_eq!(check(&[], 4, &limits), Ok(()));
    // 2^18 elements of 4 bytes fit exactly; one more does not.
    let len = |n| [(BindingRef::Name("data".to_owned()), n)];
    assert_eq!(check(&len(1 << 18), 4, &limits), Ok(()));
    let e = check(&len((1 << 18) + 1), 4, &limits)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("would take 1048580 bytes (--len data=262145)")
            && e.contains("`max_storage_buffer_binding_size` is 1048576 bytes")
            && e.contains("pass --len data=N with N at most 262144"),
        "{e}"
    );
    // The default length, one element per invocation, and a smaller max_buffer_size.
    let limits = wgpu::Limits {
        max_buffer_size: 1 << 12,
        ..limits
    };
    let e = check(&[], 2048, &limits).unwrap_err().to_string();
    assert!(
        e.contains("(2048 elements, one per invocation of the dispatch)")
            && e.contains("`max_buffer_size` is 4096 bytes")
            && e.contains("N at most 1024, or dispatch fewer workgroups"),
        "{e}"
    );
}

/// A `file:` fill: a file larger than the buffer is refused from its size without reading it
/// whole, with a --len that then fits the binding limit; a file no --len can fit names the
/// limit instead (it once advised a --len the limit refused); a short file gets a note.
#[test]
fn file_fills_are_sized_before_they_are_read() {
    let k = kernel(PARAMS);
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str, len: u64| {
        let path = dir.path().join(name);
        std::fs::File::create(&path).unwrap().set_len(len).unwrap();
        format!("data=file:{}", path.display())
    };
    let limits = wgpu::Limits {
        max_storage_buffer_binding_size: 1 << 20,
        max_uniform_buffer_binding_size: 1 << 16,
        max_buffer_size: 1 << 30,
        ..wgpu::Limits::default()
    };
    let spec = |s: &str| vec![s.parse::<BufferSpec>().unwrap()];
    // 1000 bytes for 4 invocations' 16 bytes: refused with a --len that fits.
    let specs = spec(&file("mid.bin", 1000));
    let resolved = resolve(&k, &specs, &[]).unwrap();
    check_limits(&k, &resolved, 4, &limits).unwrap();
    let data = &k.bindings[2];
    let e = initial(data, &resolved[2], 4).unwrap_err().to_string();
    assert!(
        e.contains("has 1000 bytes but `data`") && e.contains("pass --len data=250 to fit it"),
        "{e}"
    );
    // 2 MiB: more than the limit, so no --len can fit it, and none is advised.
    let specs = spec(&file("big.bin", 2 << 20));
    let resolved = resolve(&k, &specs, &[]).unwrap();
    let e = check_limits(&k, &resolved, 4, &limits)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("has 2097152 bytes, more than `data`")
            && e.contains("max_storage_buffer_binding_size is 1048576 bytes: 262144 elements")
            && e.contains("give a file of at most 1048576 bytes")
            && !e.contains("--len"),
        "{e}"
    );
    // 10 bytes in a buffer of 16: the note says the rest is zeros.
    let specs = spec(&file("short.bin", 10));
    let resolved = resolve(&k, &specs, &[]).unwrap();
    let notes = file_notes(&k, &resolved, invocations(k.workgroup_size, [1, 1, 1]));
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("`data` (@group(0) @binding(2)) takes 16 bytes")
            && notes[0].contains("holds 10: the last 6 bytes are zeros")
            && notes[0].contains("pass --len data=3"),
        "{}",
        notes[0]
    );
    // With --len data=3 the array is the shortest that holds the 10 bytes: no hint to pass it.
    let lens = [(BindingRef::Name("data".to_owned()), 3)];
    let resolved = resolve(&k, &specs, &lens).unwrap();
    let notes = file_notes(&k, &resolved, 4);
    assert!(
        notes[0].contains("takes 12 bytes") && !notes[0].contains("--len"),
        "{notes:?}"
    );
    // /dev/zero never ends: it is refused unread, as no regular file.
    #[cfg(unix)]
    {
        let specs = spec("data=file:/dev/zero");
        let resolved = resolve(&k, &specs, &[]).unwrap();
        check_limits(&k, &resolved, 4, &limits).unwrap();
        let e = initial(data, &resolved[2], 4).unwrap_err().to_string();
        assert!(
            e.contains("it is a character device, not a regular file"),
            "{e}"
        );
    }
}
