//! Long WGSL compute kernels in the pattern of real ones, for timing `divlab uniformity` against
//! file length: storage and uniform buffers, a workgroup tile with barriers, `let` chains, `var`
//! accumulators, `if`/`else` on uniform and on per-invocation values, `for` loops with uniform
//! and non-uniform bounds, `switch`, subgroup reductions, and calls to helpers (by value and
//! through `ptr<function>`; each helper calls the one before). Seeded, so every run times the same text. Every kernel is valid
//! WGSL and passes the uniformity check: barriers and subgroup builtins sit in uniform control
//! flow, as a working kernel's do.

use std::fmt::Write as _;

/// How the lines are spread over functions.
#[derive(Clone, Copy, Debug)]
pub enum Shape {
    /// One entry point holds nearly every line (an unrolled kernel).
    OneLongFunction,
    /// Functions of about 200 lines, each calling the one before.
    MediumFunctions,
    /// Functions of about 20 lines (a library of helpers) and an entry point that calls them.
    ManySmallFunctions,
}

impl Shape {
    pub const ALL: [Shape; 3] = [
        Shape::OneLongFunction,
        Shape::MediumFunctions,
        Shape::ManySmallFunctions,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Shape::OneLongFunction => "one long function",
            Shape::MediumFunctions => "200-line functions",
            Shape::ManySmallFunctions => "20-line functions",
        }
    }

    /// Lines per function body.
    fn function_lines(self, total: usize) -> usize {
        match self {
            Shape::OneLongFunction => total,
            Shape::MediumFunctions => 200,
            Shape::ManySmallFunctions => 20,
        }
    }
}

const HEADER: &str = "\
enable subgroups;

struct Params {
    n: u32,
    stride: u32,
    seed: u32,
    mode: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<u32>;
@group(0) @binding(2) var<storage, read_write> output: array<u32>;
var<workgroup> tile: array<u32, 64>;

fn accumulate(p: ptr<function, u32>, x: u32) {
    *p = *p + x;
}

fn mix(a: u32, b: u32) -> u32 {
    return (a ^ (b << 5u)) * 1664525u + 1013904223u;
}

fn tile_sum(lid: u32, x: u32) -> u32 {
    tile[lid] = x;
    workgroupBarrier();
    let s = tile[(lid + 1u) & 63u] + tile[(lid + 7u) & 63u];
    workgroupBarrier();
    return s;
}
";

/// A kernel of about `lines` lines in `shape`, from `seed`.
pub fn generate(shape: Shape, lines: usize, seed: u64) -> String {
    let mut g = Gen {
        rng: fastrand::Rng::with_seed(seed),
        out: String::from(HEADER),
        lines: HEADER.lines().count(),
        next: 0,
        scopes: Vec::new(),
        vars: Vec::new(),
        in_entry: false,
        helpers: Vec::new(),
    };
    let per_function = shape.function_lines(lines);
    // Helpers first, each about `per_function` lines; the entry point gets what is left, at
    // least 40 lines, and calls the helpers.
    while g.lines + per_function + 40 < lines && !matches!(shape, Shape::OneLongFunction) {
        g.helper(per_function);
    }
    let rest = lines.saturating_sub(g.lines + 10).max(40);
    g.entry(rest);
    g.out
}

struct Gen {
    rng: fastrand::Rng,
    out: String,
    lines: usize,
    /// The next fresh name's number.
    next: usize,
    /// `u32` values in scope, innermost scope last; each knows whether it is uniform.
    scopes: Vec<Vec<(String, bool)>>,
    /// `var`s in scope (`u32`), innermost last.
    vars: Vec<Vec<String>>,
    in_entry: bool,
    /// (name, whether it may run in non-uniform control flow: no barrier inside).
    helpers: Vec<(String, bool)>,
}

impl Gen {
    fn line(&mut self, depth: usize, text: &str) {
        for _ in 0..depth + 1 {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
        self.lines += 1;
    }

    fn fresh(&mut self, stem: &str) -> String {
        self.next += 1;
        format!("{stem}{}", self.next)
    }

    /// Values in scope; a `var` counts as non-uniform (it may be assigned anywhere).
    fn values(&self) -> Vec<(String, bool)> {
        let vars = self.vars.iter().flatten().map(|v| (v.clone(), false));
        self.scopes.iter().flatten().cloned().chain(vars).collect()
    }

    fn pick(&mut self) -> (String, bool) {
        let all = self.values();
        // Favour recent values, as real code reads what it just computed.
        let n = all.len();
        let i = if n > 6 && self.rng.u8(..) < 200 {
            n - 1 - self.rng.usize(..6)
        } else {
            self.rng.usize(..n)
        };
        all[i].clone()
    }

    fn pick_uniform(&mut self) -> String {
        let uniform: Vec<String> = self
            .values()
            .into_iter()
            .filter(|(_, u)| *u)
            .map(|(n, _)| n)
            .collect();
        if uniform.is_empty() || self.rng.bool() {
            ["params.n", "params.stride", "params.seed"][self.rng.usize(..3)].to_owned()
        } else {
            uniform[self.rng.usize(..uniform.len())].clone()
        }
    }

    /// A short `u32` expression and whether it is uniform.
    fn expr(&mut self) -> (String, bool) {
        let (a, ua) = self.pick();
        let (b, ub) = self.pick();
        let k = self.rng.u32(1..97);
        let helpers: Vec<String> = self
            .helpers
            .iter()
            .filter(|(_, anywhere)| *anywhere)
            .map(|(n, _)| n.clone())
            .collect();
        let text = match self.rng.u8(..10) {
            0 => format!("{a} + {b} * {k}u"),
            1 => format!("({a} ^ {b}) >> {}u", k % 7),
            2 => format!("min({a}, {b} + {k}u)"),
            3 => format!("select({a}, {b}, {a} > {b})"),
            4 => format!("input[({a} + {k}u) & 1023u]"),
            5 => format!("mix({a}, {b})"),
            6 if !helpers.is_empty() => {
                let h = &helpers[self.rng.usize(..helpers.len())];
                format!("{h}({a}, {b})")
            }
            7 => format!("max({a} & 0xffffu, {k}u) % {}u", k + 3),
            8 => format!("countOneBits({a}) + {b}"),
            _ => format!("{a} * {k}u + {b}"),
        };
        (text, ua && ub)
    }

    fn cond(&mut self) -> (String, bool) {
        let (a, u) = self.pick();
        let k = self.rng.u32(1..200);
        match self.rng.u8(..4) {
            0 => (format!("{a} > {k}u"), u),
            1 => (format!("({a} & {}u) == 0u", k & 15), u),
            2 => {
                let p = self.pick_uniform();
                (format!("{p} > {k}u"), true)
            }
            _ => (format!("{a} < params.n"), u),
        }
    }

    /// Statements at `depth` until about `budget` lines are written. `uniform` says whether
    /// control flow here is uniform (barriers and subgroup builtins only then).
    fn block(&mut self, depth: usize, budget: usize, uniform: bool) {
        let end = self.lines + budget;
        while self.lines < end {
            let left = end - self.lines;
            self.statement(depth, left, uniform);
        }
    }

    fn statement(&mut self, depth: usize, left: usize, uniform: bool) {
        let roll = self.rng.u8(..100);
        let nest = depth < 4 && left > 6;
        match roll {
            0..=29 => {
                let (e, u) = self.expr();
                let name = self.fresh("t");
                self.line(depth, &format!("let {name} = {e};"));
                self.scopes
                    .last_mut()
                    .expect("a scope")
                    .push((name, u && uniform));
            }
            30..=37 => {
                let (e, _) = self.expr();
                let name = self.fresh("acc");
                self.line(depth, &format!("var {name} = {e};"));
                self.vars.last_mut().expect("a scope").push(name);
            }
            38..=49 => {
                let vars: Vec<String> = self.vars.iter().flatten().cloned().collect();
                if vars.is_empty() {
                    return self.statement(depth, left, uniform);
                }
                let v = vars[self.rng.usize(..vars.len())].clone();
                let (e, _) = self.expr();
                if self.rng.u8(..3) == 0 {
                    self.line(depth, &format!("accumulate(&{v}, {e});"));
                } else {
                    self.line(depth, &format!("{v} = {v} + {e};"));
                }
            }
            50..=57 => {
                let (a, _) = self.pick();
                let (e, _) = self.expr();
                self.line(
                    depth,
                    &format!("output[({a} * params.stride) & 1023u] = {e};"),
                );
            }
            58..=71 if nest => {
                let (c, u) = self.cond();
                let inner = (left / 3).clamp(2, 40);
                self.line(depth, &format!("if {c} {{"));
                self.scoped(depth + 1, inner, uniform && u);
                if self.rng.bool() {
                    self.line(depth, "} else {");
                    self.scoped(depth + 1, inner / 2 + 1, uniform && u);
                }
                self.line(depth, "}");
            }
            72..=79 if nest => {
                let i = self.fresh("i");
                let (bound, u) = if self.rng.u8(..3) == 0 {
                    let (a, u) = self.pick();
                    (format!("({a} & 15u)"), u)
                } else {
                    (format!("min({}, 16u)", self.pick_uniform()), true)
                };
                let inner = (left / 3).clamp(2, 40);
                self.line(
                    depth,
                    &format!("for (var {i} = 0u; {i} < {bound}; {i}++) {{"),
                );
                self.scopes.push(vec![(i, u && uniform)]);
                self.vars.push(Vec::new());
                self.block(depth + 1, inner, uniform && u);
                if self.rng.u8(..4) == 0 {
                    // A non-uniform `break` would make the next iteration's barriers wrong.
                    let (c, cu) = self.cond();
                    let c = if cu || !(uniform && u) {
                        c
                    } else {
                        format!("{} == {}u", self.pick_uniform(), self.rng.u32(..9))
                    };
                    self.line(depth + 1, &format!("if {c} {{ break; }}"));
                }
                self.scopes.pop();
                self.vars.pop();
                self.line(depth, "}");
            }
            80..=84 if nest => {
                let (a, u) = self.pick();
                self.line(depth, &format!("switch {a} & 3u {{"));
                for case in ["case 0u, 1u", "case 2u", "default"] {
                    self.line(depth + 1, &format!("{case}: {{"));
                    self.scoped(depth + 2, 2, uniform && u);
                    self.line(depth + 1, "}");
                }
                self.line(depth, "}");
            }
            85..=89 if uniform && self.in_entry && depth == 0 => {
                let (a, _) = self.pick();
                let name = self.fresh("s");
                self.line(depth, &format!("let {name} = tile_sum(lid, {a});"));
                // A load from workgroup memory: non-uniform.
                self.scopes.last_mut().expect("a scope").push((name, false));
            }
            90..=93 if uniform && self.in_entry => {
                let (a, _) = self.pick();
                let name = self.fresh("r");
                self.line(depth, &format!("let {name} = subgroupAdd({a});"));
                // Uniform in its subgroup only: non-uniform at workgroup scope.
                self.scopes.last_mut().expect("a scope").push((name, false));
            }
            _ => {
                let (e, _) = self.expr();
                let (a, _) = self.pick();
                self.line(depth, &format!("output[{a} & 1023u] = {e};"));
            }
        }
    }

    fn scoped(&mut self, depth: usize, budget: usize, uniform: bool) {
        self.scopes.push(Vec::new());
        self.vars.push(Vec::new());
        self.block(depth, budget, uniform);
        self.scopes.pop();
        self.vars.pop();
    }

    /// `fn hN(a: u32, b: u32) -> u32` of about `lines` lines.
    fn helper(&mut self, lines: usize) {
        let name = self.fresh("h");
        let _ = writeln!(self.out, "\nfn {name}(a: u32, b: u32) -> u32 {{");
        self.lines += 2;
        self.scopes = vec![vec![("a".into(), true), ("b".into(), true)]];
        self.vars = vec![vec!["total".into()]];
        self.line(0, "var total = a;");
        // Each helper calls the one before, so the entry point reaches every one.
        if let Some((previous, _)) = self.helpers.last().cloned() {
            self.line(0, &format!("total = total + {previous}(b, a);"));
        }
        self.block(0, lines.saturating_sub(5), true);
        let (e, _) = self.expr();
        self.line(0, &format!("return total + {e};"));
        self.out.push_str("}\n");
        self.lines += 1;
        self.helpers.push((name, true));
    }

    fn entry(&mut self, lines: usize) {
        self.out.push_str(
            "\n@compute @workgroup_size(64)\nfn main(\n    @builtin(local_invocation_index) lid: u32,\n    @builtin(global_invocation_id) gid: vec3<u32>,\n    @builtin(workgroup_id) wid: vec3<u32>,\n) {\n",
        );
        self.lines += 7;
        self.in_entry = true;
        self.scopes = vec![vec![
            ("lid".into(), false),
            ("wid.x".into(), true),
            ("gid.x".into(), false),
        ]];
        self.vars = vec![Vec::new()];
        if let Some((last, _)) = self.helpers.last().cloned() {
            self.line(0, &format!("let first = {last}(lid, wid.x);"));
            self.scopes[0].push(("first".into(), false));
        }
        self.block(0, lines.saturating_sub(3), true);
        self.out.push_str("}\n");
        self.lines += 1;
    }
}
