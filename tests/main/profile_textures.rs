//! `divlab profile` on image and grid kernels: textures, samplers, storage textures written and
//! saved, and push constants, run through the `divlab` binary on lavapipe with the arguments in
//! each kernel's `// divlab-profile:` header. Every expected figure comes from a CPU model of the
//! kernel written here, tallied per subgroup for the device's subgroup size SG: lanes are the
//! invocations that run a line, executions the subgroups with at least one of them, where a
//! subgroup is SG consecutive `local_invocation_index`es of a workgroup (the record of
//! `--lanes` shows that layout; the 2-D lane tests check it).

use std::path::{Path, PathBuf};

use divlab::profile::report::{BranchProfile, Profile};

use crate::util;
use crate::util::{divlab, line, path_in, run, temp_dir};

/// The kernel file `name` of tests/kernels/profile.
fn kernel(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/kernels/profile")
        .join(name)
}

/// Profiles kernel `name` with its header's arguments and `extra`, in `dir`; returns the
/// profile and the text report.
fn profile_in(dir: &Path, name: &str, extra: &[&str]) -> (Profile, String) {
    let _gpu = util::gpu_shared();
    let path = kernel(name);
    let mut cmd = divlab(dir);
    cmd.arg("profile")
        .arg(&path)
        .args(
            util::header_args(&std::fs::read_to_string(&path).unwrap())
                .unwrap_or_else(|| panic!("{} has no `// divlab-profile:` header", path.display())),
        )
        .args(extra)
        .args(["--reps", "3", "--json", "-"]);
    let out = run(cmd);
    out.assert_code(0);
    let profile: Profile = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("{name}: the JSON does not parse: {e}\n{out}"));
    (profile, out.stderr.clone())
}

/// The 1-based line of `marker` in kernel `name` (it must mark one line).
fn line_of(name: &str, marker: &str) -> u32 {
    util::line_of(&std::fs::read_to_string(kernel(name)).unwrap(), marker)
}

/// The `if` at line `n`.
fn branch(p: &Profile, n: u32) -> &BranchProfile {
    util::branch(p, n, "if")
}

/// The device's subgroup size, as the profile saw it.
fn subgroup_size(p: &Profile) -> u32 {
    let sg = p.subgroup_size.expect("lavapipe has subgroups");
    assert_eq!(sg, util::expected_subgroup_size());
    sg
}

/// Per-subgroup tallies of a predicate over a 2-D dispatch of `wg`-sized workgroups covering
/// `global` invocations: (subgroups with a lane where `runs`, lanes where `runs`, subgroups
/// where `runs` splits the lanes, subgroups).
fn tally(global: [u32; 2], wg: [u32; 2], sg: u32, runs: impl Fn(u32, u32) -> bool) -> [u64; 4] {
    let mut out = [0u64; 4];
    for wy in 0..global[1] / wg[1] {
        for wx in 0..global[0] / wg[0] {
            let lanes: Vec<bool> = (0..wg[0] * wg[1])
                .map(|i| runs(wx * wg[0] + i % wg[0], wy * wg[1] + i / wg[0]))
                .collect();
            for chunk in lanes.chunks(sg as usize) {
                let n = chunk.iter().filter(|&&r| r).count() as u64;
                out[0] += u64::from(n > 0);
                out[1] += n;
                out[2] += u64::from(n > 0 && n < chunk.len() as u64);
                out[3] += 1;
            }
        }
    }
    out
}

fn assert_line(p: &Profile, n: u32, [executions, lanes, ..]: [u64; 4], what: &str) {
    let l = line(p, n);
    assert_eq!(l.executions, executions, "{what}: executions of line {n}");
    assert_eq!(
        l.active_lanes,
        Some(lanes),
        "{what}: active lanes of line {n}"
    );
}

/// Decodes a PNG that `--save` wrote.
fn png(path: &Path) -> image::RgbaImage {
    image::open(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .into_rgba8()
}

/// The image filter samples a checker board (4×4 cells, the odd ones 1) through a linear sampler
/// at texel centres, so each pixel reads its own texel; the bright ones take the branch.
#[test]
fn image_filter_branches_where_the_texture_is_bright_and_saves_its_output() {
    let dir = temp_dir();
    let name = "image_filter.wgsl";
    let (p, text) = profile_in(dir.path(), name, &["--save", "dst=out.png"]);
    let sg = subgroup_size(&p);
    assert_eq!(p.kernel.workgroup_size, [8, 8, 1]);
    // 2×2 workgroups of 8×8: the texture defaults to the dispatch's 16×16.
    let bright = |x: u32, y: u32| (x / 4 + y / 4) % 2 == 1;
    let want = tally([16, 16], [8, 8], sg, bright);
    assert_line(&p, line_of(name, "// a bright pixel"), want, "bright");
    let b = branch(&p, line_of(name, "if (c.r > 0.5)"));
    assert_eq!(b.executions, want[3], "every subgroup reaches the branch");
    assert_eq!(b.divergent, want[2]);
    // What the kernel wrote: bright pixels (0.4, 0.2, 0, 1), dark ones the black texel. (0.4
    // and 0.2 are 102 and 51 of 255, no rounding tie: NVIDIA writes 0.5 as 127, lavapipe 128.)
    let img = png(&path_in(&dir, "out.png"));
    assert_eq!(img.dimensions(), (16, 16));
    for (x, y, px) in img.enumerate_pixels() {
        let want = if bright(x, y) {
            [102, 51, 0, 255]
        } else {
            [0, 0, 0, 255]
        };
        assert_eq!(px.0, want, "pixel ({x}, {y})");
    }
    // The report says what the kernel ran on.
    assert!(
        text.contains("rgba8unorm, 16×16, filled checker:4"),
        "{text}"
    );
    assert!(text.contains("sampler `smp`"), "{text}");
    // The document records the texture options as given.
    assert_eq!(
        p.request.textures,
        [
            "--texture src=checker:4",
            "--sampler smp=linear,clamp",
            "--save dst=out.png"
        ]
    );
}

/// One generation of life on a 16×16 torus that starts as a checker board of 3×3 cells (cut at
/// the wrap-around): 18 cells survive and 52 are born, which lanes of one subgroup disagree on.
#[test]
fn game_of_life_on_storage_textures_counts_who_survives_and_who_is_born() {
    let dir = temp_dir();
    let name = "life.wgsl";
    let (p, text) = profile_in(dir.path(), name, &["--save", "next=next.png"]);
    let sg = subgroup_size(&p);
    let board = |x: u32, y: u32| (x / 3 + y / 3) % 2 == 1;
    let neighbours = |x: u32, y: u32| {
        let mut n = 0;
        for dy in [15, 0, 1] {
            for dx in [15, 0, 1] {
                if (dx, dy) != (0, 0) && board((x + dx) % 16, (y + dy) % 16) {
                    n += 1;
                }
            }
        }
        n
    };
    let survives = |x, y| board(x, y) && (neighbours(x, y) == 2 || neighbours(x, y) == 3);
    let born = |x, y| !board(x, y) && neighbours(x, y) == 3;
    let count = |f: &dyn Fn(u32, u32) -> bool| (0..256).filter(|i| f(i % 16, i / 16)).count();
    assert_eq!((count(&survives), count(&born)), (18, 52), "the model");
    assert_line(
        &p,
        line_of(name, "// survives"),
        tally([16, 16], [8, 8], sg, survives),
        "survives",
    );
    assert_line(
        &p,
        line_of(name, "// born"),
        tally([16, 16], [8, 8], sg, born),
        "born",
    );
    // The `continue` runs once per invocation: in the subgroup's trip (0, 0), all lanes.
    let all = tally([16, 16], [8, 8], sg, |_, _| true);
    assert_line(&p, line_of(name, "continue;"), all, "continue");
    let img = png(&path_in(&dir, "next.png"));
    for (x, y, px) in img.enumerate_pixels() {
        let alive = survives(x, y) || born(x, y);
        assert_eq!(px.0[0], if alive { 255 } else { 0 }, "cell ({x}, {y})");
    }
    assert!(text.contains("storage<r32uint, read>"), "{text}");
}

/// Push constants set with the dispatch: 100 of 256 invocations are below the limit.
#[test]
fn immediates_are_filled_like_buffers() {
    let dir = temp_dir();
    let name = "immediates.wgsl";
    let (p, _) = profile_in(dir.path(), name, &[]);
    let sg = u64::from(subgroup_size(&p));
    let below = line(&p, line_of(name, "// below"));
    assert_eq!(below.active_lanes, Some(100));
    assert_eq!(below.executions, 100u64.div_ceil(sg));
    let b = branch(&p, line_of(name, "if (gid.x < params.limit)"));
    assert_eq!(b.executions, 256 / sg);
    assert_eq!(b.divergent, u64::from(100 % sg != 0));
}

/// What cannot be done says so: exit 2, the texture named, no panic, no output file.
#[test]
fn bad_texture_input_is_a_clear_error() {
    let _gpu = util::gpu_shared();
    let dir = temp_dir();
    std::fs::write(path_in(&dir, "not-an-image.png"), "plain text, not a PNG").unwrap();
    image::RgbaImage::new(16, 16)
        .save(path_in(&dir, "in.png"))
        .unwrap();
    let picture = std::fs::read(path_in(&dir, "in.png")).unwrap();
    // wgpu makes 64-bit texels only with a feature divlab does not ask for.
    std::fs::write(
        path_in(&dir, "r64.wgsl"),
        "@group(0) @binding(0) var dst: texture_storage_2d<r64uint, write>;\n\
         @compute @workgroup_size(16)\n\
         fn main(@builtin(global_invocation_id) gid: vec3<u32>) {\n\
         \x20   textureStore(dst, gid.xy, vec4<u64>(1lu));\n}\n",
    )
    .unwrap();
    let r64 = path_in(&dir, "r64.wgsl");
    let filter = kernel("image_filter.wgsl");
    let life = kernel("life.wgsl");
    let cases: &[(&Path, &[&str], &str)] = &[
        (
            &filter,
            &["--size", "nothing=4x4"],
            "uses no texture `nothing`",
        ),
        (&filter, &["--size", "src=4x4x4x4"], "is not a size"),
        (&filter, &["--size", "src=4x4x4"], "whose size is WxH"),
        (
            &filter,
            &["--texture", "src=file:not-an-image.png"],
            "not-an-image.png",
        ),
        (
            &filter,
            &["--format", "src=rgba32float"],
            "must be filterable",
        ),
        (&filter, &["--format", "src=r32uint"], "cannot back"),
        (&filter, &["--format", "dst=rgba8unorm"], "drop --format"),
        (&filter, &["--format", "src=bogus"], "not a texture format"),
        (
            &filter,
            &["--size", "src=100000x4"],
            "max_texture_dimension_2d",
        ),
        (&filter, &["--sampler", "smp=cubic"], "not a sampler mode"),
        (&filter, &["--save", "src=x.png"], "cannot write"),
        (&filter, &["--texture", "src=checker:0"], "cell size"),
        (&r64, &[], "cannot make `dst`"),
        (
            &filter,
            &["--texture", "src=file:in.png", "--save", "dst=in.png"],
            "--save in.png would overwrite an input file",
        ),
        (&life, &["--texture", "current=values:1.5"], "cannot"),
        (
            &kernel("immediates.wgsl"),
            &["--buffer", "params=gradient"],
            "textures only",
        ),
        (
            &kernel("immediates.wgsl"),
            &["--texture", "params=gradient"],
            "`params` is the immediates (var<immediate>), which --texture does not take; fill \
             it with --buffer params=FILL",
        ),
    ];
    for (path, args, needle) in cases {
        let mut cmd = divlab(dir.path());
        cmd.arg("profile")
            .arg(path)
            .args(["--dispatch", "2,2"])
            .args(*args);
        let out = run(cmd);
        out.assert_code(2);
        assert!(
            out.stderr.contains(needle),
            "{args:?}: expected `{needle}`\n{out}"
        );
        assert!(!out.stderr.contains("panicked"), "{out}");
    }
    // An option that names a resource of another kind says what it is, and which option
    // takes it, led by the line that declares it (`file:line:`, for an editor).
    let at = |marker: &str| {
        let line = line_of("image_filter.wgsl", marker);
        format!("{}:{line}: ", filter.display())
    };
    let wrong_kind: [(&[&str], String); 4] = [
        (
            &["--sampler", "src=linear"],
            format!("{}--sampler src=...: `src` is a texture", at("var src")),
        ),
        (
            &["--buffer", "src=zeros"],
            format!("{}--buffer src=...: `src` is a texture", at("var src")),
        ),
        (
            &["--len", "smp=4"],
            format!("{}--len smp=...: `smp` is a sampler", at("var smp")),
        ),
        (
            &["--texture", "smp=gradient"],
            format!("{}--texture smp=...: `smp` is a sampler", at("var smp")),
        ),
    ];
    for (args, needle) in wrong_kind {
        let mut cmd = divlab(dir.path());
        cmd.arg("profile").arg(&filter).args(args);
        let out = run(cmd);
        out.assert_code(2);
        assert!(
            out.stderr.contains(&needle),
            "{args:?}: expected `{needle}`\n{out}"
        );
    }
    assert!(!path_in(&dir, "x.png").exists());
    assert_eq!(
        std::fs::read(path_in(&dir, "in.png")).unwrap(),
        picture,
        "the input is kept"
    );
}

/// Every texture type a compute entry point can bind, each branched on once: the checker
/// boards (1 in every other texel) send half the lanes in, the multisampled textures (cleared
/// to 1) and the cube samples (always ≥ 0) all of them.
#[test]
fn every_texture_type_binds_with_its_fill() {
    let dir = temp_dir();
    let name = "texture_types.wgsl";
    let (p, text) = profile_in(dir.path(), name, &[]);
    let sg = u64::from(subgroup_size(&p));
    let half = ["t1", "t2a", "t3", "td", "cmp", "tu", "ti"];
    let all = ["cube", "tms", "tdms"];
    for (marker, lanes) in half
        .iter()
        .map(|m| (m, 32))
        .chain(all.iter().map(|m| (m, 64)))
    {
        // `// t1` also starts `// t2a`'s marker: match the whole comment, to the line's end.
        let n = std::fs::read_to_string(kernel(name))
            .unwrap()
            .lines()
            .position(|l| l.trim_end().ends_with(&format!("// {marker}")))
            .unwrap_or_else(|| panic!("no `// {marker}` line")) as u32
            + 1;
        let l = line(&p, n);
        assert_eq!(l.active_lanes, Some(lanes), "{marker}");
        assert_eq!(
            l.executions,
            64 / sg,
            "{marker}: every subgroup has such lanes"
        );
    }
    for kind in [
        "1d sampled<f32>",
        "2d_array sampled<f32> as rgba8unorm, 8×8, 2 layers",
        "3d sampled<f32>",
        "cube sampled<f32>",
        "cube_array sampled<f32> as rgba8unorm, 4×4, 2 cubes",
        "2d multisampled sampled<f32>",
        "2d depth as depth16unorm",
        "2d multisampled depth",
        "sampled<u32> as rgba32uint",
        "sampled<i32> as rgba32sint",
        "compares less-equal",
    ] {
        assert!(text.contains(kind), "`{kind}` missing:\n{text}");
    }
}

/// A texture made larger than the dispatch covers (by `--size` or an image) gets a note with
/// the dispatch that covers it: a newcomer who forgot `--dispatch` would profile one corner.
#[test]
fn a_texture_larger_than_the_dispatch_says_which_dispatch_covers_it() {
    let dir = temp_dir();
    let (p, text) = profile_in(dir.path(), "image_filter.wgsl", &["--size", "src=40x24"]);
    assert!(
        text.contains("the dispatch runs 16×16 invocations and `src` (@group(0) @binding(0)) is 40×24: if each invocation handles one texel, --dispatch 5,3 covers it"),
        "{text}"
    );
    assert!(p.notes.iter().any(|n| n.contains("--dispatch 5,3")));
    // The header's own dispatch covers its texture: no such note.
    let (p, _) = profile_in(dir.path(), "image_filter.wgsl", &[]);
    assert!(
        !p.notes.iter().any(|n| n.contains("to cover it")),
        "{:#?}",
        p.notes
    );
}

/// wgpu's GL backend binds one slice of a 3-D storage texture, so the profile would count a
/// kernel that sees a texture one slice deep: divlab refuses it there, with what to do.
#[test]
fn a_3d_storage_texture_on_gl_is_refused_with_what_to_do() {
    let _gpu = util::gpu_shared();
    let dir = temp_dir();
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/profile-corpus/advect_3d.wgsl");
    let mut cmd = divlab(dir.path());
    cmd.args(["--backend", "gl", "profile"])
        .arg(&path)
        .args(["--dispatch", "2,2,2"]);
    let out = run(cmd);
    out.assert_code(2);
    assert!(
        out.stderr.contains("3-D storage texture `density_out`")
            && out
                .stderr
                .contains("profile the kernel on Vulkan, Metal or DX12"),
        "{out}"
    );
}
