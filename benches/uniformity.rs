//! `divlab uniformity` against file length: the analysis and the human rendering (what the
//! command does after reading the file) of generated kernels of 2,500 to 20,000 lines, in three
//! shapes (one long function, 200-line functions, 20-line functions). The analysis should grow
//! about linearly: issue 36 asks for 20,000 lines within 2 s in a release build. Run with
//! `cargo bench --bench uniformity`; `cargo bench --bench uniformity -- --write DIR` also writes
//! the kernels to DIR (to time the command itself), `-- --lines N` times one size, and
//! `-- --shape long` (a word of a shape's name) times one shape, and `-- --show` prints the
//! diagnostics (the generated kernels should have none).

use std::time::{Duration, Instant};

use long_kernels::{Shape, generate};

#[path = "support/long_kernels.rs"]
mod long_kernels;

const SIZES: [usize; 4] = [2_500, 5_000, 10_000, 20_000];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let write = value("--write");
    let show = args.iter().any(|a| a == "--show");
    let sizes: Vec<usize> = match value("--lines") {
        Some(n) => vec![n.parse().expect("--lines takes a number")],
        None => SIZES.to_vec(),
    };
    let only = value("--shape");
    for shape in Shape::ALL {
        if only
            .as_ref()
            .is_some_and(|word| !shape.name().contains(word.as_str()))
        {
            continue;
        }
        for &lines in &sizes {
            let text = generate(shape, lines, 36);
            if let Some(dir) = &write {
                let slug = shape.name().replace(' ', "_");
                let path = format!("{dir}/{slug}_{lines}.wgsl");
                std::fs::write(&path, &text).expect("the kernel written");
            }
            bench(shape, &text, show);
        }
    }
}

fn bench(shape: Shape, text: &str, show: bool) {
    // naga's own share: the analysis parses and validates the text first.
    let parsing = Instant::now();
    let module = naga::front::wgsl::parse_str(&divlab::shaders::prepare_for_naga(text))
        .expect("a valid kernel");
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .expect("a valid kernel");
    let naga = parsing.elapsed();
    let started = Instant::now();
    let analysis = divlab::uniformity::analyze_source("long.wgsl", text).expect("a valid kernel");
    let analyzed = started.elapsed();
    let rendered = Instant::now();
    let out = divlab::uniformity::lint::render_analysis(&analysis, false);
    let render = rendered.elapsed();
    if show {
        print!("{out}");
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "uniformity: {:>6} lines, {:<18}: analysis {:>9.1} ms (naga's parse and validation \
         {:>7.1} ms of it), rendering {:>5.1} ms ({} diagnostics, {} bytes); {}",
        text.lines().count(),
        shape.name(),
        ms(analyzed),
        ms(naga),
        ms(render),
        analysis.diagnostics.len(),
        out.len(),
        divlab::uniformity::summary(&analysis),
    );
}
