//! Hostile input to the kernel paths (the issue "Bounded on every input"): each run must end
//! within its bound and exit 0, 1, 2 or 3 with a message that says what to do, never by a
//! signal (134: a stack overflow's abort; 139: a driver's crash) or a hang.

use std::path::Path;
use std::time::Duration;

use crate::util::{Run, divlab, run_within, temp_dir};

/// Runs `divlab ARGS` in `dir`; a run past `bound` is killed and fails the test.
fn bounded(dir: &Path, args: &[&str], bound: Duration) -> Run {
    let mut cmd = divlab(dir);
    cmd.args(args);
    let r = run_within(cmd, bound);
    assert!(!r.stderr.contains("panicked"), "divlab panicked\n{r}");
    r
}

/// Runs `divlab ARGS` in `dir` within a minute; it must exit 2 (refused) and say each of
/// `says`.
fn refused(dir: &Path, args: &[&str], says: &[&str]) -> Run {
    let r = bounded(dir, args, Duration::from_secs(60));
    r.assert_code(2);
    for phrase in says {
        assert!(r.stderr.contains(phrase), "{phrase}\n{r}");
    }
    r
}

/// A file of the repository, as an argument.
fn repo_file(path: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    path.to_str().expect("a UTF-8 path").to_owned()
}

/// `@compute` kernel whose one statement is `out[0] = out[1]` followed by `n` `+ 1u`s.
fn chained_sum(n: usize) -> String {
    format!(
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
         @compute @workgroup_size(8)\n\
         fn main() {{\n    out[0] = out[1]{};\n}}\n",
        " + 1u".repeat(n)
    )
}

/// Runs `divlab ARGS --timeout SECONDS` in a fresh folder: it must give up on the device with
/// exit 3 and say so, well within 90 s.
fn timed_out(args: &[&str], seconds: u32) -> Run {
    let dir = temp_dir();
    let timeout = seconds.to_string();
    let args: Vec<&str> = args
        .iter()
        .copied()
        .chain(["--timeout", &timeout])
        .collect();
    let r = bounded(dir.path(), &args, Duration::from_secs(90));
    r.assert_code(3);
    let says = format!("did not finish within {seconds}s (--timeout)");
    assert!(r.stderr.contains(&says), "{says}\n{r}");
    r
}

#[test]
fn a_dispatch_that_outlives_the_timeout_ends_the_process_with_exit_3() {
    let kernel = repo_file("assets/kernels/collatz.wgsl");
    // About 67 million invocations, each walking its Collatz chain: minutes on lavapipe.
    let dispatch = [
        "--dispatch",
        "65535,1024",
        "--len",
        "seeds=1024",
        "--len",
        "steps=1024",
    ];
    let args: Vec<&str> = ["profile", &kernel].into_iter().chain(dispatch).collect();
    let r = timed_out(&args, 2);
    assert!(r.stderr.contains("fewer workgroups (--dispatch)"), "{r}");
    assert!(!r.stderr.contains("--quick"), "profile has no --quick\n{r}");
}

/// On GL, llvmpipe compiles a kernel inside the queue's submit, where no timeout reached: this
/// corpus kernel's instrumented form kept LLVM busy for more than five minutes, and divlab
/// waited. The submission is part of the step --timeout bounds.
#[test]
fn a_gl_submission_that_outlives_the_timeout_ends_the_process_with_exit_3() {
    let kernel = repo_file("tests/kernels/profile-corpus/big_workgroup_tile.wgsl");
    let run = ["--dispatch", "2", "--buffer", "dims=values:64,64"];
    let args: Vec<&str> = ["--backend", "gl", "profile", &kernel]
        .into_iter()
        .chain(run)
        .collect();
    let r = timed_out(&args, 3);
    // The instrumented form is what compiles long, and the message says so.
    let says = "`first run of ";
    assert!(
        r.stderr.contains(says) && r.stderr.contains("(instrumented)`"),
        "{r}"
    );
    assert!(
        r.stderr
            .contains("The instrumented form counts in every block and loop"),
        "{r}"
    );
}

#[test]
fn a_dispatch_of_2_to_the_32_workgroups_is_refused_not_wrapped() {
    let dir = temp_dir();
    let kernel = repo_file("assets/kernels/collatz.wgsl");
    for (dispatch, says) in [
        (
            "4096,4096,256",
            "4294967296 workgroups, and the most divlab profiles in one dispatch",
        ),
        (
            "65536,1,1",
            "65536 workgroups along x, and this adapter's `max_compute_workgroups_per_dimension`",
        ),
    ] {
        let args = [
            "profile",
            &kernel,
            "--dispatch",
            dispatch,
            "--len",
            "seeds=64",
            "--len",
            "steps=64",
        ];
        refused(dir.path(), &args, &[says]);
    }
}

/// A workgroup past the adapter's limits (an override's value here) is refused by divlab, in
/// the user's terms, not by wgpu against the instrumented pipeline.
#[test]
fn a_workgroup_past_the_adapters_limits_is_refused_before_instrumenting() {
    let dir = temp_dir();
    let file = dir.path().join("wide.wgsl");
    std::fs::write(
        &file,
        "override WG: u32;\n\
         @group(0) @binding(0) var<storage, read_write> v: array<u32>;\n\
         @compute @workgroup_size(WG)\n\
         fn main(@builtin(global_invocation_id) g: vec3<u32>) {\n\
             if (g.x % 3u == 0u) { v[g.x] = 1u; }\n\
         }\n",
    )
    .unwrap();
    let file = file.to_str().unwrap();
    let r = refused(
        dir.path(),
        &["profile", file, "--override", "WG=2000"],
        &[
            "workgroup size [2000, 1, 1] (2000 invocations)",
            "make @workgroup_size smaller",
        ],
    );
    assert!(!r.stderr.contains("instrumented"), "{r}");
}

/// A kernel with subgroup operations, or one that enables `f16`, on an adapter without them
/// (llvmpipe's GL) is told what it lacks and where to look, not only wgpu's capability name or
/// naga's "extension is not supported" under a validation error.
#[test]
fn a_kernel_needing_what_gl_lacks_says_what_to_run_it_on() {
    let dir = temp_dir();
    for (kernel, says) in [
        (
            "assets/kernels/lane_bits_switch.wgsl",
            [
                "needs subgroup operations, which the kernel uses",
                "the `subgroups` column of `divlab adapters`",
            ],
        ),
        (
            "tests/kernels/profile-corpus/f16_gelu.wgsl",
            [
                "needs 16-bit floats (`enable f16;`; wgpu's SHADER_F16",
                "`shader_f16` in `divlab adapters --json -`",
            ],
        ),
    ] {
        let kernel = repo_file(kernel);
        let args = ["--backend", "gl", "profile", &kernel, "--dispatch", "4"];
        refused(dir.path(), &args, &says);
    }
}

#[test]
fn twenty_thousand_chained_operators_are_read_not_a_stack_overflow() {
    let dir = temp_dir();
    let file = dir.path().join("chain.wgsl");
    std::fs::write(&file, chained_sum(20_000)).unwrap();
    let file = file.to_str().unwrap();
    bounded(dir.path(), &["uniformity", file], Duration::from_secs(120)).assert_code(0);
    let r = bounded(
        dir.path(),
        &["profile", file, "--reps", "1", "--json", "p.json"],
        Duration::from_secs(180),
    );
    r.assert_code(0);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("p.json")).unwrap()).unwrap();
    // One workgroup of 8 invocations: the statement ran once per subgroup of the dispatch.
    let line4 = doc["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["line"] == 4)
        .unwrap_or_else(|| panic!("no line 4\n{r}"));
    assert_eq!(line4["active_lanes"], 8, "{r}");
}

#[test]
fn three_hundred_chained_operators_round_trip_through_the_instrumented_wgsl() {
    let dir = temp_dir();
    let file = dir.path().join("chain.wgsl");
    std::fs::write(&file, chained_sum(300)).unwrap();
    let r = bounded(
        dir.path(),
        &[
            "profile",
            file.to_str().unwrap(),
            "--reps",
            "1",
            "--emit-instrumented",
            "i.wgsl",
        ],
        Duration::from_secs(60),
    );
    r.assert_code(0);
    assert!(!r.stderr.contains("divlab bug"), "{r}");
    let written = std::fs::read_to_string(dir.path().join("i.wgsl")).unwrap();
    assert!(written.contains("let divlab_part"), "{written}");
}

#[test]
fn overrides_that_do_not_fit_or_break_the_kernel_say_why() {
    let dir = temp_dir();
    let file = dir.path().join("k.wgsl");
    std::fs::write(
        &file,
        "override K: u32 = 4;\n\
         @group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
         var<workgroup> tile: array<u32, 64 / K>;\n\
         @compute @workgroup_size(64)\n\
         fn main(@builtin(local_invocation_index) lid: u32) {\n\
         \x20   tile[lid % (64u / K)] = lid;\n\
         \x20   out[lid] = tile[0];\n\
         }\n",
    )
    .unwrap();
    let file = file.to_str().unwrap();
    for (value, says) in [
        (
            "K=-1",
            "the constant is a u32, which takes whole numbers from 0 to 4294967295",
        ),
        ("K=2.5", "whole numbers"),
        (
            "K=0",
            "with these --override values the kernel is not valid WGSL: Division by zero",
        ),
    ] {
        refused(dir.path(), &["profile", file, "--override", value], &[says]);
    }
    refused(
        dir.path(),
        &["profile", file, "--loop-cap", "18446744073709551615"],
        &["give a whole number from 1 to 4294967295"],
    );
}

/// A PNG file with its header and no pixel data: enough for a reader to learn the size.
fn png_header(width: u32, height: u32) -> Vec<u8> {
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }
    let mut header = width.to_be_bytes().to_vec();
    header.extend(height.to_be_bytes());
    header.extend([8, 6, 0, 0, 0]); // 8-bit RGBA, no interlace
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    for (kind, data) in [
        (b"IHDR", header),
        (b"IDAT", Vec::new()),
        (b"IEND", Vec::new()),
    ] {
        let chunk: Vec<u8> = kind.iter().chain(&data).copied().collect();
        png.extend((data.len() as u32).to_be_bytes());
        png.extend(&chunk);
        png.extend(crc32(&chunk).to_be_bytes());
    }
    png
}

#[test]
fn an_image_larger_than_the_adapters_textures_is_refused_from_its_header() {
    let dir = temp_dir();
    std::fs::write(dir.path().join("huge.png"), png_header(20_000, 20_000)).unwrap();
    let kernel = repo_file("tests/kernels/profile/image_filter.wgsl");
    let r = bounded(
        dir.path(),
        &[
            "profile",
            &kernel,
            "--texture",
            "src=file:huge.png",
            "--sampler",
            "smp=linear,clamp",
        ],
        Duration::from_secs(60),
    );
    r.assert_code(2);
    assert!(
        r.stderr
            .contains("it is 20000×20000 pixels, and this adapter's textures are at most"),
        "{r}"
    );
}

#[test]
fn byte_order_marks_cr_line_breaks_and_deep_nesting_are_read_as_an_editor_shows_them() {
    let dir = temp_dir();
    let limit = Duration::from_secs(60);
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let kernel = "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
                  @compute @workgroup_size(8)\n\
                  fn main(@builtin(local_invocation_index) lid: u32) { out[lid] = lid; }\n";
    let bom = write("bom.wgsl", &format!("\u{feff}{kernel}"));
    bounded(dir.path(), &["uniformity", &bom], limit).assert_code(0);
    bounded(dir.path(), &["profile", &bom, "--reps", "1"], limit).assert_code(0);

    // Classic Mac OS line breaks: the error is on line 4, not "1:196".
    let cr = write(
        "cr.wgsl",
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\r\
         @compute @workgroup_size(8)\r\
         fn main(@builtin(local_invocation_index) lid: u32) {\r\
         \x20 out[lid] = lid + ;\r\
         }\r",
    );
    for command in ["uniformity", "profile"] {
        let r = bounded(dir.path(), &[command, &cr], limit);
        r.assert_code(2);
        let said = format!("{}{}", r.stdout, r.stderr);
        assert!(said.contains("cr.wgsl:4:"), "{command}\n{r}");
    }

    let parens = write(
        "parens.wgsl",
        &format!(
            "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
             @compute @workgroup_size(1)\n\
             fn main() {{ out[0] = {}1u{}; }}\n",
            "(".repeat(100_000),
            ")".repeat(100_000)
        ),
    );
    for command in ["uniformity", "profile"] {
        let r = bounded(dir.path(), &[command, &parens], limit);
        r.assert_code(2);
        let said = format!("{}{}", r.stdout, r.stderr);
        assert!(
            said.contains("nested 100001 deep") && said.contains("parens.wgsl:3:"),
            "{command}\n{r}"
        );
    }
}

#[test]
fn a_broken_vulkan_driver_path_warns_before_gl_is_used() {
    let dir = temp_dir();
    let kernel = repo_file("assets/kernels/collatz.wgsl");
    let mut cmd = divlab(dir.path());
    cmd.env("VK_ICD_FILENAMES", "/nonexistent/icd.json")
        .env_remove("VK_DRIVER_FILES")
        .args(["profile", &kernel, "--reps", "1"]);
    let r = run_within(cmd, Duration::from_secs(60));
    r.assert_code(0);
    assert!(
        r.stderr
            .contains("warning: VK_ICD_FILENAMES=/nonexistent/icd.json names a Vulkan driver")
            && r.stdout.contains("(gl)"),
        "{r}"
    );
}

#[test]
fn an_edited_or_deeply_nested_profile_document_is_refused_on_import() {
    let dir = temp_dir();
    let limit = Duration::from_secs(60);
    let kernel = repo_file("assets/kernels/collatz.wgsl");
    bounded(
        dir.path(),
        &["profile", &kernel, "--reps", "1", "--json", "p.json"],
        limit,
    )
    .assert_code(0);
    let text = std::fs::read_to_string(dir.path().join("p.json")).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let line = doc["lines"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|l| l["active_lanes"].is_u64())
        .expect("a line with lanes");
    line["active_lanes"] = serde_json::json!(1_000_000);
    std::fs::write(dir.path().join("edited.json"), doc.to_string()).unwrap();
    let r = bounded(dir.path(), &["profile", "--import", "edited.json"], limit);
    r.assert_code(2);
    assert!(
        r.stderr.contains("1000000 active lanes in") && r.stderr.contains("edited or damaged"),
        "{r}"
    );

    let nested = format!("{}1{}", "[".repeat(500), "]".repeat(500));
    std::fs::write(dir.path().join("nested.json"), nested).unwrap();
    let r = bounded(dir.path(), &["profile", "--import", "nested.json"], limit);
    r.assert_code(2);
    assert!(
        r.stderr.contains("nested deeper than any profile document"),
        "{r}"
    );
}

#[test]
fn a_kernel_the_uniformity_rules_reject_is_profiled_with_a_note() {
    let dir = temp_dir();
    let file = dir.path().join("barrier.wgsl");
    std::fs::write(
        &file,
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
         @compute @workgroup_size(64)\n\
         fn main(@builtin(local_invocation_index) lid: u32) {\n\
         \x20   if (lid > 3u) {\n\
         \x20       workgroupBarrier();\n\
         \x20   }\n\
         \x20   out[lid] = lid;\n\
         }\n",
    )
    .unwrap();
    let r = bounded(
        dir.path(),
        &["profile", file.to_str().unwrap(), "--reps", "1"],
        Duration::from_secs(60),
    );
    r.assert_code(0);
    assert!(
        r.stdout
            .contains("WGSL's uniformity rules reject this kernel (1 error, the first at line 5"),
        "{r}"
    );
}

#[test]
fn a_short_file_fill_is_zero_padded_with_a_note() {
    let dir = temp_dir();
    std::fs::write(dir.path().join("short.bin"), [7u8; 100]).unwrap();
    let kernel = repo_file("assets/kernels/collatz.wgsl");
    let r = bounded(
        dir.path(),
        &[
            "profile",
            &kernel,
            "--buffer",
            "seeds=file:short.bin",
            "--reps",
            "1",
        ],
        Duration::from_secs(60),
    );
    r.assert_code(0);
    assert!(
        r.stdout
            .contains("file:short.bin holds 100: the last 156 bytes are zeros"),
        "{r}"
    );
}

/// An `else if` chain is flat in WGSL but nested in naga's IR, and naga writes each link as an
/// `else` block holding an `if`: a chain too long for WGSL's 127 braces once written is refused
/// with the kernel's line (exit 2), not called a divlab bug (exit 4), and a shorter one profiles.
#[test]
fn an_else_if_chain_past_wgsls_brace_limit_is_refused_with_its_line() {
    let dir = temp_dir();
    let limit = Duration::from_secs(60);
    let chain = |links: u32| {
        let mut s = String::from(
            "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
             @compute @workgroup_size(64)\n\
             fn main(@builtin(local_invocation_index) i: u32) {\n\
             if i == 0u { out[i] = 0u; }\n",
        );
        for k in 1..=links {
            s += &format!("else if i == {k}u {{ out[i] = {k}u; }}\n");
        }
        let path = dir.path().join(format!("chain{links}.wgsl"));
        std::fs::write(&path, s + "}\n").unwrap();
        path.to_str().unwrap().to_owned()
    };
    let (short, long) = (chain(100), chain(130));
    bounded(dir.path(), &["profile", &short, "--reps", "1"], limit).assert_code(0);
    let r = bounded(dir.path(), &["profile", &long, "--reps", "1"], limit);
    r.assert_code(2);
    assert!(
        r.stderr.contains("line 134 of the kernel would sit")
            && r.stderr.contains("past WGSL's limit of 127"),
        "{r}"
    );
}

/// naga 30's SPIR-V writer panics on valid WGSL that passes a pointer to a local array's
/// element to a function ("Expression [N] is not cached"): the profile ends with an error that
/// quotes it and names another backend (exit 2), never a crash (exit 101); where the backend
/// translates the kernel, it profiles.
#[test]
fn a_kernel_naga_cannot_translate_is_an_error_not_a_crash() {
    let dir = temp_dir();
    let path = dir.path().join("element_pointer.wgsl");
    std::fs::write(
        &path,
        "@group(0) @binding(0) var<storage, read_write> out: array<u32>;\n\
         fn bump(p: ptr<function, u32>, by: u32) { *p += by; }\n\
         @compute @workgroup_size(64)\n\
         fn main(@builtin(local_invocation_index) i: u32) {\n\
         var a = array<u32, 4>(i, i * 2u, 7u, 40u);\n\
         bump(&a[1], i);\n\
         out[i] = a[1];\n\
         }\n",
    )
    .unwrap();
    let path = path.to_str().unwrap();
    let r = bounded(
        dir.path(),
        &["profile", path, "--reps", "1"],
        Duration::from_secs(60),
    );
    if r.code != Some(0) {
        r.assert_code(2);
        assert!(
            r.stderr.contains("hit an internal error on this kernel")
                && r.stderr.contains("--backend gl"),
            "{r}"
        );
    }
}
