//! The generator's statements that leave a block or cross into a helper: `break`, `continue`,
//! `return`, calls with value and pointer arguments (whole and partial references), and the
//! pointers `workgroupUniformLoad` takes.

use std::fmt::Write as _;

use super::{Generator, Param, Params, Place};

impl Generator {
    /// A local variable or part of one, or in a function sometimes what a function-space
    /// pointer parameter points to (or part of it).
    pub(super) fn assignable(&mut self, place: Place) -> String {
        if let Some(f) = place.function {
            let pointers: Vec<String> = self.functions[f]
                .iter()
                .filter_map(|(name, kind)| match kind {
                    Param::Function => Some(format!("*{name}")),
                    Param::FunctionArray => Some(format!("(*{name})[{}]", self.rng.u32(0..2))),
                    _ => None,
                })
                .collect();
            if !pointers.is_empty() && self.chance(0.4) {
                return pointers[self.rng.usize(..pointers.len())].clone();
            }
        }
        if place.aggregates && self.chance(0.3) {
            return self
                .pick(&["va[0]", "va[1]", "vs.a", "vs.b", "vo[0]"])
                .to_owned();
        }
        let n = self.variables(place);
        format!("v{}", self.rng.u32(0..n))
    }

    /// The pointer a `workgroupUniformLoad` reads: `&wgu`, `&wp[i]`, or in a function sometimes
    /// a `ptr<workgroup, u32>` parameter.
    pub(super) fn uniform_load_pointer(&mut self, place: Place) -> String {
        if let Some(f) = place.function {
            let params: Vec<String> = self.functions[f]
                .iter()
                .filter(|(_, kind)| *kind == Param::Workgroup)
                .map(|(name, _)| name.clone())
                .collect();
            if !params.is_empty() && self.chance(0.7) {
                return params[self.rng.usize(..params.len())].clone();
            }
        }
        if self.chance(0.5) {
            "&wgu".to_owned()
        } else {
            let i = self.expr(place, 1);
            format!("&wp[{i} % 64u]")
        }
    }

    /// Sometimes ends a loop body with a jump, so that the body always exits: `break;`,
    /// `return`, or a conditional `break` and `return` (the spec's December 2025 loop rules).
    /// Returns whether it did.
    pub(super) fn maybe_exit(&mut self, place: Place, p: f64) -> bool {
        if !self.chance(p) {
            return false;
        }
        self.indent(place.depth);
        let ret = match place.function {
            Some(_) => format!("return {};", self.expr(place, 1)),
            None => "return;".to_owned(),
        };
        match self.rng.u32(0..4) {
            0 | 1 => self.out.push_str("break;\n"),
            2 => {
                let _ = writeln!(self.out, "{ret}");
            }
            _ => {
                let c = self.condition(place);
                let _ = writeln!(self.out, "if {c} {{ break; }} else {{ {ret} }}");
            }
        }
        true
    }

    pub(super) fn in_loop(&self, place: Place) -> Place {
        Place {
            in_loop: true,
            in_switch: false,
            ..place
        }
    }

    pub(super) fn close(&mut self, depth: u32) {
        self.indent(depth);
        self.out.push_str("}\n");
    }

    /// `break`, `continue` or `return` under a condition, where each is allowed.
    pub(super) fn jump(&mut self, place: Place) {
        let mut jumps = vec!["return"];
        if place.in_loop || place.in_switch {
            jumps.push("break");
        }
        if place.in_loop && !place.in_switch {
            jumps.push("continue");
        }
        let jump = jumps[self.rng.usize(..jumps.len())];
        let c = self.condition(place);
        let jump = match (jump, place.function) {
            ("return", Some(_)) => {
                let e = self.expr(place, 1);
                format!("return {e};")
            }
            (j, _) => format!("{j};"),
        };
        let _ = writeln!(self.out, "if {c} {{ {jump} }}");
    }

    /// `vN = fK(args)` (or `fK(args);`): a call to a higher-numbered function, or an assignment
    /// when there is none, or when a pointer argument has no variable left to point to.
    pub(super) fn call(&mut self, place: Place) {
        let first = place.function.map_or(0, |f| f + 1);
        let v = self.rng.u32(0..self.variables(place));
        let f = self.rng.usize(first..self.functions.len().max(first + 1));
        let args = if f < self.functions.len() {
            self.arguments(place, f)
        } else {
            None
        };
        let Some((lets, args)) = args else {
            let e = self.expr(place, 2);
            let _ = writeln!(self.out, "v{v} = {e};");
            return;
        };
        for l in lets {
            let _ = writeln!(self.out, "{l}");
            self.indent(place.depth);
        }
        let call = format!("f{f}({})", args.join(", "));
        if self.chance(0.2) {
            let _ = writeln!(self.out, "{call};");
        } else {
            let _ = writeln!(self.out, "v{v} = {call};");
        }
    }

    /// The arguments of a call to `f`, and the `let`s of pointers to write before it.
    pub(super) fn arguments(
        &mut self,
        place: Place,
        f: usize,
    ) -> Option<(Vec<String>, Vec<String>)> {
        let params = self.functions[f].clone();
        let own: Params = place
            .function
            .map_or_else(Vec::new, |g| self.functions[g].clone());
        // Function-space pointer arguments have distinct roots: WGSL forbids aliasing ones.
        let mut roots: Vec<String> = (0..self.variables(place))
            .map(|v| format!("v{v}"))
            .collect();
        if place.aggregates {
            roots.extend(["va", "vs", "vo"].map(str::to_owned));
        }
        roots.extend(
            own.iter()
                .filter(|(_, k)| matches!(k, Param::Function | Param::FunctionArray))
                .map(|(n, _)| n.clone()),
        );
        let mut lets = Vec::new();
        let mut args = Vec::new();
        for &(_, kind) in &params {
            let same: Vec<String> = own
                .iter()
                .filter(|(_, k)| *k == kind)
                .map(|(n, _)| n.clone())
                .collect();
            let passed_on = (!same.is_empty() && self.chance(0.5))
                .then(|| same[self.rng.usize(..same.len())].clone());
            let arg = match kind {
                Param::Value => self.expr(place, 2),
                Param::Workgroup => passed_on.unwrap_or_else(|| {
                    let i = self.expr(place, 1);
                    format!("&wp[{i} % 64u]")
                }),
                Param::Private => passed_on.unwrap_or_else(|| {
                    let i = self.expr(place, 1);
                    format!("&pp[{i} % 4u]")
                }),
                Param::ReadOnly => passed_on.unwrap_or_else(|| {
                    let i = self.expr(place, 1);
                    format!("&ro[{i} % 64u]")
                }),
                Param::FunctionArray => {
                    let options: Vec<(String, String)> = roots
                        .iter()
                        .filter_map(|r| match r.as_str() {
                            "va" => Some(("va".to_owned(), "&va".to_owned())),
                            n if same.iter().any(|s| s == n) => Some((n.to_owned(), n.to_owned())),
                            _ => None,
                        })
                        .collect();
                    let (root, arg) = options.get(self.rng.usize(..options.len().max(1)))?.clone();
                    roots.retain(|r| *r != root);
                    arg
                }
                Param::Function => {
                    if roots.is_empty() {
                        return None;
                    }
                    let root = roots.remove(self.rng.usize(..roots.len()));
                    let arg = match root.as_str() {
                        "va" => match self.rng.u32(0..3) {
                            0 => "&va[0]".to_owned(),
                            1 => "&va[1]".to_owned(),
                            _ => format!("&va[{} % 2u]", self.expr(place, 1)),
                        },
                        "vs" => self.pick(&["&vs.a", "&vs.b"]).to_owned(),
                        "vo" => "&vo[0]".to_owned(),
                        r if r.starts_with('v') => format!("&{r}"),
                        // A parameter of the function making the call.
                        r => match own.iter().find(|(n, _)| n == r).map(|(_, k)| *k) {
                            Some(Param::FunctionArray) => {
                                format!("&(*{r})[{}]", self.rng.u32(0..2))
                            }
                            _ => r.to_owned(),
                        },
                    };
                    if arg.starts_with('&') && self.chance(0.25) {
                        // A let-bound pointer: the spec substitutes its initializer.
                        let name = format!("lp{}", self.counters);
                        self.counters += 1;
                        lets.push(format!("let {name} = {arg};"));
                        name
                    } else {
                        arg
                    }
                }
            };
            args.push(arg);
        }
        Some((lets, args))
    }
}
