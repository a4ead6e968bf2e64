//! Seeded WGSL programs for testing uniformity analyses against each other (divlab's and Tint's):
//! barriers, `workgroupUniformLoad`, subgroup and quad builtins (shuffle `delta` and `mask`
//! included) and `diagnostic` filters, placed in `if`, `switch`, `for`, `while`, `loop` with
//! `break if`, `break`, `continue`, early `return` and calls with value and pointer parameters,
//! and fed from uniform sources (`workgroup_id`, `num_workgroups`, `subgroup_size`, uniform and
//! read-only storage buffers, constants) and non-uniform ones (invocation ids, read-write
//! storage, workgroup and private variables). The same seed gives the same text.
//!
//! They also exercise the spec's 2025–2026 rules: pointers into `workgroup`, `private` and
//! read-only `storage` passed through helpers (to `workgroupUniformLoad`, to reads, and on to
//! other helpers), partial references (`&va[1]`, `&vs.b`, `&vo[0]` of a one-element array,
//! `&(*p)[1]`, let-bound ones) passed to helpers that store through them, and loops whose bodies
//! always `break` or `return`, with and without a `continuing { break if .. }`.
//!
//! The programs are compiled, never run: loops are bounded by `min(.., 4u)` anyway, so any of
//! them would end.

mod calls;

use std::fmt::Write as _;

/// The module scope every program shares.
const PRELUDE: &str = "\
@group(0) @binding(0) var<storage, read_write> rw: array<u32, 64>;
@group(0) @binding(1) var<storage, read> ro: array<u32, 64>;
@group(0) @binding(2) var<uniform> un: vec4<u32>;
var<workgroup> wg: array<u32, 64>;
var<workgroup> wgu: u32;
var<private> pv: u32;
var<workgroup> wp: array<u32, 64>;
var<private> pp: array<u32, 4>;
struct S { a: u32, b: u32 }
";

const SEVERITIES: [&str; 4] = ["off", "info", "warning", "error"];

/// Leaves that are uniform at workgroup scope (and so at subgroup scope).
const UNIFORM_LEAVES: [&str; 7] = ["7u", "un.x", "un.y", "ro[3]", "wid.x", "nwg.y", "sgs"];
/// The uniform leaves a function other than the entry point sees (no built-in values).
const MODULE_UNIFORM_LEAVES: [&str; 4] = ["7u", "un.x", "un.y", "ro[3]"];
/// The non-uniform leaves a function other than the entry point sees.
const MODULE_VARYING_LEAVES: [&str; 3] = ["rw[3]", "wg[1]", "pv"];
/// Leaves that may be non-uniform at every scope.
const VARYING_LEAVES: [&str; 7] = [
    "lid",
    "sli",
    "ro[lid % 64u]",
    "rw[3]",
    "wg[1]",
    "pv",
    "rw[lid % 64u]",
];

/// Subgroup builtins on a u32 (`$a` for the argument) whose result is as uniform as the
/// argument at subgroup scope.
const SUBGROUP_REDUCTIONS: [&str; 9] = [
    "subgroupAdd($a)",
    "subgroupMax($a)",
    "subgroupMin($a)",
    "subgroupOr($a)",
    "subgroupBroadcastFirst($a)",
    "subgroupBroadcast($a, 1u)",
    "subgroupBallot($a > 2u).x",
    "select(0u, 1u, subgroupAll($a > 2u))",
    "select(0u, 1u, subgroupAny($a == 1u))",
];

/// Subgroup and quad builtins whose result may be non-uniform at every scope.
const SUBGROUP_VARYING: [&str; 7] = [
    "subgroupExclusiveAdd($a)",
    "subgroupInclusiveMul($a)",
    "select(0u, 1u, subgroupElect())",
    "quadBroadcast($a, 0u)",
    "quadSwapX($a)",
    "quadSwapDiagonal($a)",
    "subgroupShuffle($a, 0u)",
];

/// Builtins with an argument the spec requires to be subgroup-uniform (`$b`).
const SHUFFLES: [&str; 3] = [
    "subgroupShuffleXor($a, $b)",
    "subgroupShuffleDown($a, $b)",
    "subgroupShuffleUp($a, $b)",
];

/// What a helper's parameter is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Param {
    Value,
    /// `ptr<function, u32>`: gets `&vN`, or a partial reference (`&va[1]`, `&vs.b`, `&vo[0]`).
    Function,
    /// `ptr<function, array<u32, 2>>`: gets `&va`; its elements are partial references.
    FunctionArray,
    /// `ptr<workgroup, u32>`: gets `&wp[i]`; read, or passed to `workgroupUniformLoad`.
    Workgroup,
    /// `ptr<private, u32>`: gets `&pp[i]`; read.
    Private,
    /// `ptr<storage, u32, read>`: gets `&ro[i]`; read (as uniform as the memory view).
    ReadOnly,
}

impl Param {
    fn ty(self) -> &'static str {
        match self {
            Param::Value => "u32",
            Param::Function => "ptr<function, u32>",
            Param::FunctionArray => "ptr<function, array<u32, 2>>",
            Param::Workgroup => "ptr<workgroup, u32>",
            Param::Private => "ptr<private, u32>",
            Param::ReadOnly => "ptr<storage, u32, read>",
        }
    }
}

/// One function's parameters: (name, kind).
type Params = Vec<(String, Param)>;

struct Generator {
    rng: fastrand::Rng,
    out: String,
    /// Statements still to write in the program.
    budget: u32,
    /// Loop counters made so far (each `for` declares a fresh one).
    counters: u32,
    /// Function signatures, by index; a function calls only higher-numbered ones.
    functions: Vec<Params>,
    /// The share of non-uniform leaves in this program: programs range from mostly uniform
    /// (most accepted) to mostly not (most rejected).
    varying: f64,
    /// The share of expressions that are subgroup or quad builtins.
    subgroup: f64,
}

/// Where a statement is written.
#[derive(Clone, Copy)]
struct Place {
    depth: u32,
    /// Inside a loop body (not a `continuing`): `break`/`continue` may appear.
    in_loop: bool,
    /// Inside a `switch` case within that loop: `continue` may not appear here.
    in_switch: bool,
    /// The function being written: `None` for the entry point.
    function: Option<usize>,
    /// How many of the locals `v0`..`v2` are declared here.
    locals: u32,
    /// Whether `va: array<u32, 2>`, `vs: S` and `vo: array<u32, 1>` are declared here.
    aggregates: bool,
}

/// The program of `seed`.
pub fn program(seed: u64) -> String {
    let mut rng = fastrand::Rng::with_seed(seed);
    let varying = [0.0, 0.03, 0.1, 0.3, 0.5][rng.usize(..5)];
    let subgroup = [0.05, 0.15, 0.4][rng.usize(..3)];
    let budget = rng.u32(8..=24);
    let mut g = Generator {
        rng,
        out: String::new(),
        budget,
        counters: 0,
        functions: Vec::new(),
        varying,
        subgroup,
    };
    let _ = writeln!(
        g.out,
        "// divlab::fuzz::uniformity seed {seed}: non-uniform leaves {varying}, subgroup builtins {subgroup}"
    );
    g.module();
    g.out
}

impl Generator {
    fn chance(&mut self, p: f64) -> bool {
        self.rng.f64() < p
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.rng.usize(..items.len())]
    }

    fn module(&mut self) {
        self.out.push_str("enable subgroups;\n");
        if self.chance(0.3) {
            self.out.push_str("requires subgroup_uniformity;\n");
        }
        if self.chance(0.2) {
            let severity = self.pick(&SEVERITIES);
            let _ = writeln!(self.out, "diagnostic({severity}, subgroup_uniformity);");
        }
        self.out.push_str(PRELUDE);
        let count = self.rng.usize(0..=2);
        self.functions = (0..count)
            .map(|_| {
                let n = self.rng.usize(0..=2);
                (0..n)
                    .map(|i| {
                        let kind = match self.rng.u32(0..20) {
                            0..=9 => Param::Value,
                            10..=13 => Param::Function,
                            14 => Param::FunctionArray,
                            15..=17 => Param::Workgroup,
                            18 => Param::Private,
                            _ => Param::ReadOnly,
                        };
                        (format!("a{i}"), kind)
                    })
                    .collect()
            })
            .collect();
        for f in 0..count {
            self.function(f);
        }
        self.entry_point();
    }

    fn attribute(&mut self) -> String {
        let severity = self.pick(&SEVERITIES);
        format!("@diagnostic({severity}, subgroup_uniformity) ")
    }

    fn function(&mut self, f: usize) {
        let params: Vec<String> = self.functions[f]
            .iter()
            .map(|(name, kind)| format!("{name}: {}", kind.ty()))
            .collect();
        let attribute = if self.chance(0.2) {
            self.attribute()
        } else {
            String::new()
        };
        let _ = writeln!(
            self.out,
            "\n{attribute}fn f{f}({}) -> u32 {{\n    var v0 = 0u;\n    var v1 = 1u;\n    var v2 = 2u;",
            params.join(", ")
        );
        let mut place = Place {
            depth: 1,
            in_loop: false,
            in_switch: false,
            function: Some(f),
            locals: 3,
            aggregates: false,
        };
        if self.chance(0.3) {
            self.out.push_str(
                "    var va = array<u32, 2>(un.x, 0u);\n    var vs = S(un.y, pv);\n    \
                 var vo = array<u32, 1>(ro[2]);\n",
            );
            place.aggregates = true;
        }
        self.block(place, 3);
        let result = self.expr(place, 2);
        let _ = writeln!(self.out, "    return {result};\n}}");
    }

    fn entry_point(&mut self) {
        self.out.push_str(
            "\n@compute @workgroup_size(64)\nfn main(@builtin(local_invocation_index) lid: u32, \
             @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, \
             @builtin(subgroup_size) sgs: u32, @builtin(subgroup_invocation_id) sli: u32) {\n",
        );
        let mut place = Place {
            depth: 1,
            in_loop: false,
            in_switch: false,
            function: None,
            locals: 0,
            aggregates: false,
        };
        for v in 0..3 {
            let init = self.expr(place, 1);
            let _ = writeln!(self.out, "    var v{v} = {init};");
            place.locals = v + 1;
        }
        if self.chance(0.4) {
            let [a, b, c, d, e] = [0; 5].map(|_| self.expr(place, 1));
            let _ = writeln!(
                self.out,
                "    var va = array<u32, 2>({a}, {b});\n    var vs = S({c}, {d});\n    \
                 var vo = array<u32, 1>({e});"
            );
            place.aggregates = true;
        }
        self.block(place, 6);
        self.out.push_str("    rw[lid] = v0 + v1 + v2;\n}\n");
    }

    fn indent(&mut self, depth: u32) {
        for _ in 0..depth {
            self.out.push_str("    ");
        }
    }

    /// The local variables `v0`..`v2` every function declares, once declared.
    fn variables(&self, place: Place) -> u32 {
        place.locals
    }

    /// A u32 expression of at most `depth` levels.
    fn expr(&mut self, place: Place, depth: u32) -> String {
        let roll = self.rng.u32(0..100);
        if depth == 0 || roll < 35 {
            return self.leaf(place);
        }
        let a = self.expr(place, depth - 1);
        if !self.chance(self.subgroup) {
            let b = self.expr(place, depth - 1);
            return match roll % 4 {
                0 => format!("min({a}, {b})"),
                1 => format!("({a} + {b})"),
                2 => format!("({a} ^ {b})"),
                _ => format!("({a} * {b})"),
            };
        }
        match roll % 10 {
            0..=6 if !self.chance(self.varying + 0.05) => {
                self.pick(&SUBGROUP_REDUCTIONS).replace("$a", &a)
            }
            0..=6 => self.pick(&SUBGROUP_VARYING).replace("$a", &a),
            _ => {
                let y = self.expr(place, depth - 1);
                self.pick(&SHUFFLES).replace("$a", &a).replace("$b", &y)
            }
        }
    }

    fn leaf(&mut self, place: Place) -> String {
        let roll = self.rng.u32(0..100);
        let (uniform, varying): (&[&str], &[&str]) = match place.function {
            None => (&UNIFORM_LEAVES, &VARYING_LEAVES),
            Some(_) => (&MODULE_UNIFORM_LEAVES, &MODULE_VARYING_LEAVES),
        };
        if roll < 55 {
            let pool = if self.chance(self.varying) {
                varying
            } else {
                uniform
            };
            return self.pick(pool).to_owned();
        }
        if let Some(f) = place.function {
            let params = self.functions[f].clone();
            if !params.is_empty() && roll < 80 {
                let (name, kind) = &params[self.rng.usize(..params.len())];
                return match kind {
                    Param::Value => name.clone(),
                    Param::FunctionArray => format!("(*{name})[{}]", self.rng.u32(0..2)),
                    _ => format!("*{name}"),
                };
            }
        }
        if place.aggregates && roll >= 88 {
            return self
                .pick(&["va[0]", "va[1]", "vs.a", "vs.b", "vo[0]"])
                .to_owned();
        }
        match self.variables(place) {
            0 => self.pick(&UNIFORM_LEAVES).to_owned(),
            n => format!("v{}", self.rng.u32(0..n)),
        }
    }

    /// A condition: a comparison, sometimes joined by a short-circuit operator.
    fn condition(&mut self, place: Place) -> String {
        let mut a = self.expr(place, 2);
        if a == "7u" {
            // `7u > c || x` is a constant Tint folds, and it then wants x to be constant too.
            a = "(7u + un.z)".to_owned();
        }
        let c = self.rng.u32(1..9);
        let first = format!("{a} > {c}u");
        if self.chance(0.2) {
            let b = self.expr(place, 1);
            let op = self.pick(&["&&", "||"]);
            format!("({first}) {op} ({b} == 0u)")
        } else {
            first
        }
    }

    fn block(&mut self, place: Place, max: u32) {
        let n = self.rng.u32(1..=max);
        for _ in 0..n {
            if self.budget == 0 {
                return;
            }
            self.budget -= 1;
            self.statement(place);
        }
    }

    fn nested(&self, place: Place) -> Place {
        Place {
            depth: place.depth + 1,
            ..place
        }
    }

    fn statement(&mut self, place: Place) {
        let deep = place.depth >= 4;
        let roll = if deep {
            self.rng.u32(0..40)
        } else {
            self.rng.u32(0..100)
        };
        let inner = self.nested(place);
        self.indent(place.depth);
        match roll {
            0..=9 => {
                let target = self.assignable(place);
                let e = self.expr(place, 3);
                let _ = writeln!(self.out, "{target} = {e};");
            }
            10..=17 => {
                let barrier = self.pick(&["workgroupBarrier();", "storageBarrier();"]);
                self.out.push_str(barrier);
                self.out.push('\n');
            }
            18..=22 => {
                let v = self.rng.u32(0..self.variables(place));
                let pointer = self.uniform_load_pointer(place);
                let _ = writeln!(self.out, "v{v} = workgroupUniformLoad({pointer});");
            }
            23..=27 => self.call(place),
            28..=31 => self.jump(place),
            32..=39 => {
                let i = self.rng.u32(0..64);
                let e = self.expr(place, 2);
                let target = self
                    .pick(&["pv", "wg[I]", "rw[I]"])
                    .replace('I', &format!("{i}"));
                let _ = writeln!(self.out, "{target} = {e};");
            }
            40..=59 => {
                let attribute = if self.chance(0.1) {
                    self.attribute()
                } else {
                    String::new()
                };
                let c = self.condition(place);
                let _ = writeln!(self.out, "{attribute}if {c} {{");
                self.block(inner, 3);
                self.close(place.depth);
                if self.chance(0.4) {
                    self.indent(place.depth);
                    self.out.push_str("else {\n");
                    self.block(inner, 2);
                    self.close(place.depth);
                }
            }
            60..=67 => {
                let e = self.expr(place, 2);
                let _ = writeln!(self.out, "switch {e} % 3u {{");
                let case = Place {
                    depth: place.depth + 2,
                    in_switch: place.in_loop || place.in_switch,
                    ..place
                };
                for label in ["case 0u", "case 1u, 2u", "default"] {
                    self.indent(place.depth + 1);
                    let _ = writeln!(self.out, "{label} {{");
                    self.block(case, 2);
                    self.close(place.depth + 1);
                }
                self.close(place.depth);
            }
            68..=77 => {
                let i = self.counters;
                self.counters += 1;
                let bound = self.expr(place, 2);
                let _ = writeln!(
                    self.out,
                    "for (var i{i} = 0u; i{i} < min({bound}, 4u); i{i}++) {{"
                );
                self.block(self.in_loop(inner), 3);
                self.maybe_exit(inner, 0.25);
                self.close(place.depth);
            }
            78..=84 => {
                let c = self.condition(place);
                let _ = writeln!(self.out, "while {c} {{");
                self.block(self.in_loop(inner), 3);
                self.maybe_exit(inner, 0.25);
                self.close(place.depth);
            }
            85..=91 => {
                self.out.push_str("loop {\n");
                self.block(self.in_loop(inner), 3);
                // A body that always exits may leave out the `continuing` (its `break if`
                // would never run); one that does not needs it to end.
                let exits = self.maybe_exit(inner, 0.35);
                if !exits || self.chance(0.5) {
                    self.indent(inner.depth);
                    let c = self.condition(place);
                    let _ = writeln!(self.out, "continuing {{ break if {c}; }}");
                }
                self.close(place.depth);
            }
            _ => {
                let attribute = self.attribute();
                let _ = writeln!(self.out, "{attribute}{{");
                self.block(inner, 3);
                self.close(place.depth);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_one_program() {
        assert_eq!(program(7), program(7));
        assert_ne!(program(7), program(8));
    }

    #[test]
    fn programs_are_valid_wgsl_for_naga() {
        // Every program must reach the uniformity analysis: invalid ones test nothing.
        for seed in 0..200 {
            let text = program(seed);
            if let Err(e) = crate::uniformity::analyze_source(&format!("seed{seed}.wgsl"), &text) {
                panic!("seed {seed} is not valid WGSL: {e}\n{text}");
            }
        }
    }
}
