//! The fill grammar, resolution and encoding on small kernels.

use std::fmt;

use super::encode::f16_bits;
use super::*;
use crate::profile::error::{Error, Result};
use crate::profile::kernel::{BufferSize, KernelInterface, interface};
use crate::shaders::check_wgsl;

pub(super) fn kernel(src: &str) -> KernelInterface {
    let module = check_wgsl("k.wgsl", src).unwrap();
    interface(&module, src, "k.wgsl", None).unwrap()
}

fn settings_error<T: fmt::Debug>(r: Result<T>) -> String {
    match r {
        Err(Error::BadFill { why, .. }) => why,
        other => panic!("expected BadFill, got {other:?}"),
    }
}

#[test]
fn fill_parses_every_form() {
    let cases = [
        ("zeros", Fill::Zeros),
        ("iota", Fill::Iota),
        ("random", Fill::Random(DEFAULT_SEED)),
        ("random:42", Fill::Random(42)),
        ("random:0x10", Fill::Random(16)),
        ("values:1,2.5,-3", Fill::Values(vec![1.0, 2.5, -3.0])),
        ("values: 7 , 0x10", Fill::Values(vec![7.0, 16.0])),
        ("file:data/in.bin", Fill::File("data/in.bin".into())),
    ];
    for (text, fill) in cases {
        assert_eq!(text.parse::<Fill>(), Ok(fill.clone()), "{text}");
        // Display writes a form that parses back.
        assert_eq!(fill.to_string().parse::<Fill>(), Ok(fill), "{text}");
    }
    assert_eq!(Fill::default(), Fill::Random(DEFAULT_SEED));
}

#[test]
fn malformed_fills_quote_the_input() {
    for (text, why) in [
        ("values:1,x", "`x` is not a finite number"),
        ("values:", "at least one value"),
        ("values:1,inf", "`inf` is not a finite number"),
        ("random:abc", "seed `abc`"),
        ("random:-1", "seed `-1`"),
        ("file:", "needs a path"),
        ("nope", "unknown fill `nope`"),
        ("zeros:3", "takes no argument"),
        ("values", "needs `values:...`"),
    ] {
        let m = text.parse::<Fill>().unwrap_err();
        assert!(m.starts_with(&format!("`{text}` is not a fill")), "{m}");
        assert!(m.contains(why), "{text}: {m}");
        assert!(m.contains("values:V1,V2,..."), "{m}");
    }
}

#[test]
fn buffer_spec_and_binding_ref_parse() {
    let spec: BufferSpec = "data=iota".parse().unwrap();
    assert_eq!(spec.target, BindingRef::Name("data".into()));
    assert_eq!(spec.fill, Fill::Iota);
    let spec: BufferSpec = "1:2=file:a=b.bin".parse().unwrap();
    assert_eq!(
        spec.target,
        BindingRef::Slot {
            group: 1,
            binding: 2
        }
    );
    assert_eq!(spec.fill, Fill::File("a=b.bin".into()));

    let m = "data".parse::<BufferSpec>().unwrap_err();
    assert!(m.contains("`data` is not BINDING=FILL"), "{m}");
    let m = "data=nope".parse::<BufferSpec>().unwrap_err();
    assert!(m.contains("`nope` is not a fill"), "{m}");
    let m = "1x=zeros".parse::<BufferSpec>().unwrap_err();
    assert!(m.contains("`1x` is not a binding"), "{m}");
    let m = "0:y=zeros".parse::<BufferSpec>().unwrap_err();
    assert!(m.contains("`0:y` is not a binding"), "{m}");
    assert!(m.contains("GROUP:BINDING"), "{m}");
}

#[test]
fn len_override_dispatch_parse() {
    assert_eq!(
        parse_len("data=4096"),
        Ok((BindingRef::Name("data".into()), 4096))
    );
    assert_eq!(
        parse_len("0:3=8"),
        Ok((
            BindingRef::Slot {
                group: 0,
                binding: 3
            },
            8
        ))
    );
    for bad in ["data", "data=0", "data=-1", "data=x"] {
        let m = parse_len(bad).unwrap_err();
        assert!(m.contains(&format!("`{bad}`")), "{m}");
        assert!(m.contains("BINDING=N"), "{m}");
    }

    assert_eq!(parse_override("BLOCK=64"), Ok(("BLOCK".into(), 64.0)));
    assert_eq!(parse_override("scale=-0.5"), Ok(("scale".into(), -0.5)));
    assert_eq!(parse_override("on=true"), Ok(("on".into(), 1.0)));
    assert_eq!(parse_override("on=false"), Ok(("on".into(), 0.0)));
    for bad in ["BLOCK", "=3", "BLOCK=big", "BLOCK=nan"] {
        let m = parse_override(bad).unwrap_err();
        assert!(m.contains(&format!("`{bad}`")), "{m}");
        assert!(m.contains("NAME=VALUE"), "{m}");
    }

    assert_eq!(parse_dispatch("64"), Ok([64, 1, 1]));
    assert_eq!(parse_dispatch("8,4"), Ok([8, 4, 1]));
    assert_eq!(parse_dispatch("2, 3, 4"), Ok([2, 3, 4]));
    for bad in ["", "0", "1,2,3,4", "a", "4,,1", "-1"] {
        let m = parse_dispatch(bad).unwrap_err();
        assert!(m.contains(&format!("`{bad}`")), "{m}");
        assert!(m.contains("X,Y,Z"), "{m}");
    }
    assert_eq!(invocations([64, 2, 1], [8, 4, 1]), 64 * 2 * 8 * 4);
}

const PADDED: &str = "struct P { a: u32, b: vec3<f32>, c: f32 }
@group(0) @binding(0) var<storage, read_write> p: P;
@group(0) @binding(1) var<storage, read_write> ps: array<P>;
@group(0) @binding(2) var<uniform> u: vec4<u32>;
@compute @workgroup_size(4) fn main() { p.c = ps[0].b.x + f32(u.x); }
";

/// The little-endian `u32` words of `bytes`.
pub(super) fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn values_land_at_layout_offsets() {
    let k = kernel(PADDED);
    let p = &k.bindings[0];
    // a: u32 at 0; b: vec3<f32> aligned to 16, at 16..28; c: f32 at 28. Size 32.
    assert_eq!(p.size, BufferSize::Fixed(32));
    let fill: Fill = "values:7,1.5,2.5,3.5,4.5".parse().unwrap();
    let bytes = contents(p, p.size.bytes(0), &fill).unwrap();
    let f = |x: f32| x.to_bits();
    assert_eq!(words(&bytes), [7, 0, 0, 0, f(1.5), f(2.5), f(3.5), f(4.5)]);

    // The runtime array: element stride 32; values run on into the second element, the
    // rest stay zero.
    let ps = &k.bindings[1];
    let fill: Fill = "values:1,2,3,4,5,6".parse().unwrap();
    let bytes = contents(ps, ps.size.bytes(3), &fill).unwrap();
    assert_eq!(bytes.len(), 96);
    let w = words(&bytes);
    assert_eq!(w[..8], [1, 0, 0, 0, f(2.0), f(3.0), f(4.0), f(5.0)]);
    assert_eq!(w[8..], [6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
}

#[test]
fn values_that_do_not_fit_are_errors() {
    let k = kernel(PADDED);
    let p = &k.bindings[0];
    let m = settings_error(contents(p, 32, &Fill::Values(vec![1.5])));
    assert!(
        m.contains("value 1 (1.5)") && m.contains("u32 at byte 0"),
        "{m}"
    );
    let m = settings_error(contents(p, 32, &Fill::Values(vec![-1.0])));
    assert!(m.contains("u32"), "{m}");
    let m = settings_error(contents(p, 32, &Fill::Values(vec![0.0; 6])));
    assert!(
        m.contains("gives 6 values") && m.contains("holds 5 scalars"),
        "{m}"
    );
    let ps = &k.bindings[1];
    let m = settings_error(contents(ps, 32, &Fill::Values(vec![0.0; 6])));
    assert!(m.contains("larger --len"), "{m}");
}

#[test]
fn iota_and_random_follow_the_element_type() {
    let k = kernel(PADDED);
    let p = &k.bindings[0];
    let bytes = contents(p, 32, &Fill::Iota).unwrap();
    let f = |x: f32| x.to_bits();
    assert_eq!(words(&bytes), [0, 0, 0, 0, f(1.0), f(2.0), f(3.0), f(4.0)]);

    let ps = &k.bindings[1];
    let a = contents(ps, ps.size.bytes(64), &Fill::Random(9)).unwrap();
    assert_eq!(
        a,
        contents(ps, ps.size.bytes(64), &Fill::Random(9)).unwrap()
    );
    assert_ne!(
        a,
        contents(ps, ps.size.bytes(64), &Fill::Random(10)).unwrap()
    );
    let w = words(&a);
    for element in w.chunks(8) {
        // Padding stays zero; floats lie in [0, 1).
        assert_eq!(element[1..4], [0, 0, 0]);
        for &bits in &element[4..] {
            assert!((0.0..1.0).contains(&f32::from_bits(bits)), "{bits:#x}");
        }
    }
    // The u32 members take values across the whole range.
    assert!(w.chunks(8).any(|e| e[0] > u32::MAX / 2));
    // Two buffers with one seed differ.
    let u = &k.bindings[2];
    let b = contents(u, 16, &Fill::Random(9)).unwrap();
    assert_ne!(b[..], a[..16]);
}

#[test]
fn file_fills_pads_and_rejects_oversize() {
    let k = kernel(PADDED);
    let ps = &k.bindings[1];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("in.bin");
    std::fs::write(&path, [1u8, 2, 3, 4, 5]).unwrap();
    let bytes = contents(ps, 64, &Fill::File(path.clone())).unwrap();
    assert_eq!(bytes[..6], [1, 2, 3, 4, 5, 0]);
    assert_eq!(bytes.len(), 64);

    std::fs::write(&path, [0u8; 70]).unwrap();
    let m = settings_error(contents(ps, 64, &Fill::File(path.clone())));
    assert!(
        m.contains("has 70 bytes") && m.contains("takes 64 bytes"),
        "{m}"
    );
    assert!(m.contains("--len ps=3"), "{m}");

    let missing = dir.path().join("missing.bin");
    let m = settings_error(contents(ps, 64, &Fill::File(missing.clone())));
    assert!(m.contains(&missing.display().to_string()), "{m}");
}

#[test]
fn resolve_matches_bindings() {
    let k = kernel(PADDED);
    let specs: Vec<BufferSpec> = ["ps=iota", "0:2=zeros"]
        .iter()
        .map(|s| s.parse().unwrap())
        .collect();
    let lens = [parse_len("ps=10").unwrap()];
    let r = resolve(&k, &specs, &lens).unwrap();
    assert_eq!(r.len(), 3);
    assert_eq!((r[0].fill.clone(), r[0].len), (Fill::default(), None));
    assert_eq!((r[1].fill.clone(), r[1].len), (Fill::Iota, Some(10)));
    assert_eq!((r[2].fill.clone(), r[2].len), (Fill::Zeros, None));

    let unknown = ["q=iota".parse().unwrap()];
    let m = settings_error(resolve(&k, &unknown, &[]));
    assert!(
        m.contains("--buffer q=...") && m.contains("uses no binding `q`"),
        "{m}"
    );
    assert!(m.contains("p at 0:0 (storage, read_write)"), "{m}");
    assert!(m.contains("u at 0:2 (uniform)"), "{m}");

    let m = settings_error(resolve(&k, &[], &[parse_len("3:0=4").unwrap()]));
    assert!(m.contains("--len 3:0=..."), "{m}");

    let m = settings_error(resolve(&k, &[], &[parse_len("p=4").unwrap()]));
    assert!(m.contains("fixed size of 32 bytes"), "{m}");

    let twice = ["p=iota".parse().unwrap(), "0:0=zeros".parse().unwrap()];
    let m = settings_error(resolve(&k, &twice, &[]));
    assert!(m.contains("twice"), "{m}");
}

#[test]
fn f16_conversion() {
    for (x, bits) in [
        (1.0f32, 0x3c00u16),
        (0.5, 0x3800),
        (-2.0, 0xc000),
        (65504.0, 0x7bff),
        (65520.0, 0x7c00),
        (0.1, 0x2e66),
        (1e-7, 0x0002),
        (6.0e-8, 0x0001),
        (0.0, 0x0000),
    ] {
        assert_eq!(f16_bits(x), bits, "{x}");
    }
}
