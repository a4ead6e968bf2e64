//! Where a loop's bound comes from, read on naga's IR for the cap message (`cap.rs`): the loop's
//! exit test, its counter told apart from its bound (the side that a store in the loop changes),
//! and the bound followed back through `let`s, `var`s assigned once, conversions and arithmetic
//! with constants to its source: a scalar of a buffer, an element at an index that varies, a
//! runtime array's length, a built-in input or a constant. The uniformity analysis does not
//! help here: it follows only what makes a value non-uniform, and a uniform buffer does not.

use naga::{
    AddressSpace, BinaryOperator, Expression, Function, GlobalVariable, Handle, Module, Statement,
    TypeInner, UnaryOperator,
};

use super::ir::{
    Step, emitted_in, operands, place_of, pointer_root, results_in, stored_locals, stores_to,
};
use super::loops::{exit_condition, find_loop, stored_before_loop};
use crate::naga_walk::each_statement;
use crate::profile::kernel::literal_u32;
use crate::source_map::SourceMap;

pub(super) use super::source::{LoopBound, Source};
use super::source::{add_input, one_source};

#[cfg(test)]
#[path = "bound_tests.rs"]
mod tests;

#[path = "bound_params.rs"]
mod params;

/// How deep the trace follows `var`s into `var`s before it gives up.
const MAX_DEPTH: usize = 16;

/// How deep the trace follows a workgroup or private variable into what is stored to it.
const MAX_GLOBAL_DEPTH: usize = 8;

/// The bound of the loop at `line` of `function` (the one on that line that comes first), when
/// its exit test is one comparison between a value the loop changes and one it does not.
/// `source` is the text naga parsed; `entry` says whether `function` is an entry point.
pub(super) fn loop_bound(
    module: &Module,
    function: &Function,
    entry: bool,
    source: &str,
    line: u32,
) -> Option<LoopBound> {
    let lines = SourceMap::new(source);
    let (body, continuing, break_if) = find_loop(&function.body, &lines, line)?;
    let (mut condition, mut runs_while) = exit_condition(body, break_if)?;
    while let Expression::Unary {
        op: UnaryOperator::LogicalNot,
        expr,
    } = function.expressions[condition]
    {
        condition = expr;
        runs_while = !runs_while;
    }
    let Expression::Binary { op, left, right } = function.expressions[condition] else {
        return None;
    };
    use BinaryOperator as B;
    if !matches!(
        op,
        B::Less | B::LessEqual | B::Greater | B::GreaterEqual | B::Equal | B::NotEqual
    ) {
        return None;
    }
    let mut changed = Vec::new();
    stored_locals(body, &function.expressions, &mut changed);
    stored_locals(continuing, &function.expressions, &mut changed);
    let mut made = Vec::new();
    results_in(body, &mut made);
    results_in(continuing, &mut made);
    let mut emitted = Vec::new();
    emitted_in(body, &mut emitted);
    emitted_in(continuing, &mut emitted);
    let changes = Changes {
        locals: &changed,
        results: &made,
        emitted: &emitted,
    };
    let trace = Trace {
        module,
        function,
        entry,
        source,
    };
    let (counter, bound) = match (trace.varies(left, &changes), trace.varies(right, &changes)) {
        (true, false) => (left, right),
        (false, true) => (right, left),
        _ => return None,
    };
    // Whether the comparison holds with the counter below the bound (`i < n`, `n > i`), and so
    // whether the loop runs while the counter is below it (the bound a ceiling) or above it.
    let holds_below = match op {
        B::Less | B::LessEqual => Some(counter == left),
        B::Greater | B::GreaterEqual => Some(counter == right),
        _ => None,
    };
    let ceiling = holds_below.map(|below| below == runs_while);
    let source = match trace.clamp_limit(bound, ceiling) {
        Some(limit) => Source::Clamped { limit },
        None => trace.source(bound, false, 0),
    };
    // Where the counter starts: the value stored to it just before the loop, or its `var`'s
    // initializer.
    let start = match function.expressions[counter] {
        Expression::Load { pointer } => match function.expressions[pointer] {
            Expression::LocalVariable(local) => {
                stored_before_loop(&function.body, &lines, line, local, &function.expressions)
                    .or(function.local_variables[local].init)
            }
            _ => None,
        },
        _ => None,
    };
    Some(LoopBound {
        start: start.map(|s| trace.source(s, false, 0)),
        text: trace.text(bound),
        counter: trace.text(counter),
        source,
        ceiling,
    })
}

/// What a loop changes at each trip: the locals it stores to, and the results its statements
/// make; and the expressions it evaluates at each trip.
struct Changes<'a> {
    locals: &'a [Handle<naga::LocalVariable>],
    results: &'a [Handle<Expression>],
    emitted: &'a [Handle<Expression>],
}

/// One function's expressions, read back to their sources.
struct Trace<'a> {
    module: &'a Module,
    function: &'a Function,
    entry: bool,
    source: &'a str,
}

impl Trace<'_> {
    fn text(&self, h: Handle<Expression>) -> String {
        if let Some(name) = self.function.named_expressions.get(&h) {
            return name.clone();
        }
        let Some(mut range) = self.function.expressions.get_span(h).to_range() else {
            // naga gives a load of a local no span: the local's name is what the source wrote.
            let local = match self.function.expressions[h] {
                Expression::Load { pointer } => match self.function.expressions[pointer] {
                    Expression::LocalVariable(v) => Some(v),
                    _ => None,
                },
                _ => None,
            };
            return local
                .and_then(|v| self.function.local_variables[v].name.clone())
                .unwrap_or_else(|| "the value".to_owned());
        };
        // naga's span of a builtin call covers its name only: take the arguments too.
        if self
            .source
            .get(range.end..)
            .is_some_and(|r| r.starts_with('('))
        {
            let mut depth = 0usize;
            for (i, c) in self.source[range.end..].char_indices() {
                depth = match c {
                    '(' => depth + 1,
                    ')' => depth - 1,
                    _ => depth,
                };
                if depth == 0 {
                    range.end += i + 1;
                    break;
                }
            }
        }
        self.source
            .get(range)
            .map_or_else(|| "the value".to_owned(), |t| t.trim().to_owned())
    }

    /// Whether `h` reads a local that the loop changes, or the result of a call (an atomic, a
    /// subgroup operation) the loop makes: one made before the loop is the same at every trip,
    /// and so is a load before it (`let batches = (count + 63u) / 64u;` above a loop that
    /// lowers `count`).
    fn varies(&self, h: Handle<Expression>, changes: &Changes<'_>) -> bool {
        let e = &self.function.expressions[h];
        match *e {
            Expression::Load { .. } if !changes.emitted.contains(&h) => false,
            Expression::LocalVariable(v) => changes.locals.contains(&v),
            Expression::CallResult(_)
            | Expression::AtomicResult { .. }
            | Expression::SubgroupBallotResult
            | Expression::SubgroupOperationResult { .. }
            | Expression::WorkGroupUniformLoadResult { .. } => changes.results.contains(&h),
            _ => {
                let mut ops = Vec::new();
                operands(e, &mut ops);
                ops.into_iter().any(|op| self.varies(op, changes))
            }
        }
    }

    fn source(&self, h: Handle<Expression>, computed: bool, depth: usize) -> Source {
        use Expression as E;
        if depth > MAX_DEPTH {
            return Source::Other(format!("`{}`, through too many variables", self.text(h)));
        }
        match self.function.expressions[h] {
            E::Literal(_) | E::Constant(_) | E::Override(_) | E::ZeroValue(_) => Source::Constant,
            E::As { expr, .. } => self.source(expr, computed, depth),
            E::Binary { left, right, .. } if self.is_constant(left) => {
                self.source(right, true, depth)
            }
            E::Binary { left, right, .. } if self.is_constant(right) => {
                self.source(left, true, depth)
            }
            E::Load { pointer } => self.place(pointer, Vec::new(), computed, depth),
            E::AccessIndex { base, index } => match self.function.expressions[base] {
                E::Load { pointer } => self.place(pointer, vec![Step::At(index)], computed, depth),
                E::FunctionArgument(arg) => self.argument(arg, Some(index), computed, depth),
                // A part of a workgroup variable: the inputs of what is stored to it.
                E::WorkGroupUniformLoadResult { .. } => self.source(base, true, depth + 1),
                // A channel of a texel (`.r`): the texel's.
                E::ImageLoad { .. } => self.source(base, computed, depth),
                // `vec2(a, b).x` is `a`, where each component is one scalar.
                E::Compose { ty, ref components }
                    if matches!(
                        self.module.types[ty].inner,
                        TypeInner::Vector { size, .. } if size as usize == components.len()
                    ) =>
                {
                    match components.get(index as usize) {
                        Some(&component) => self.source(component, computed, depth + 1),
                        None => self.other(h),
                    }
                }
                _ => self.other(h),
            },
            E::FunctionArgument(arg) => self.argument(arg, None, computed, depth),
            E::WorkGroupUniformLoadResult { .. } => match self.uniform_load_of(h) {
                Some(pointer) => self.place(pointer, Vec::new(), true, depth + 1),
                None => self.other(h),
            },
            E::ImageLoad {
                image, coordinate, ..
            } => match self.function.expressions[image] {
                E::GlobalVariable(global) => Source::Texel {
                    global,
                    coordinate: self.text(coordinate),
                },
                _ => self.other(h),
            },
            E::ArrayLength(pointer) => match self.root(pointer) {
                (&E::GlobalVariable(global), _) => Source::Length { global },
                _ => self.other(h),
            },
            _ => {
                let mut seen = Vec::new();
                self.several(&[h], &mut seen, depth)
                    .unwrap_or_else(|| self.other(h))
            }
        }
    }

    /// The inputs `values` are computed from, as one source: the one input where they read
    /// one (computed from it), else [`Source::Inputs`]; `None` where they read none.
    fn several(
        &self,
        values: &[Handle<Expression>],
        seen: &mut Vec<Handle<naga::LocalVariable>>,
        depth: usize,
    ) -> Option<Source> {
        let mut inputs = Vec::new();
        for &value in values {
            self.inputs(value, seen, depth, &mut inputs);
        }
        one_source(inputs)
    }

    /// Pushes to `out` each input `h` is computed from through arithmetic, `select`'s values,
    /// built-in functions and the `var`s it loads (each of their values; `seen` stops a `var`
    /// that adds to itself), once each.
    fn inputs(
        &self,
        h: Handle<Expression>,
        seen: &mut Vec<Handle<naga::LocalVariable>>,
        depth: usize,
        out: &mut Vec<Source>,
    ) {
        use Expression as E;
        let mut push = |source: Source| add_input(out, source);
        if depth > MAX_DEPTH {
            return push(Source::Other(format!(
                "`{}`, through too many variables",
                self.text(h)
            )));
        }
        match self.function.expressions[h] {
            E::Literal(_) | E::Constant(_) | E::Override(_) | E::ZeroValue(_) => {}
            ref e @ (E::As { .. }
            | E::Unary { .. }
            | E::Binary { .. }
            | E::Math { .. }
            | E::Compose { .. }
            | E::Splat { .. }) => {
                let mut ops = Vec::new();
                operands(e, &mut ops);
                for op in ops {
                    self.inputs(op, seen, depth, out);
                }
            }
            // `select(f, t, c)`: its false value first, as the source writes them; the
            // condition picks one, it does not bound.
            E::Select { accept, reject, .. } => {
                self.inputs(reject, seen, depth, out);
                self.inputs(accept, seen, depth, out);
            }
            E::Load { pointer } => match self.function.expressions[pointer] {
                E::LocalVariable(local) if seen.contains(&local) => {}
                E::LocalVariable(local) => {
                    seen.push(local);
                    let (values, other_writes) = self.values_of(local);
                    if other_writes {
                        push(self.assigned_in_several_places(local));
                    }
                    for value in values {
                        self.inputs(value, seen, depth + 1, out);
                    }
                }
                _ => push(self.source(h, true, depth + 1)),
            },
            E::AccessIndex { .. }
            | E::FunctionArgument(_)
            | E::ImageLoad { .. }
            | E::ArrayLength(_)
            | E::WorkGroupUniformLoadResult { .. } => push(self.source(h, true, depth + 1)),
            // A helper's result: every value it returns (`if (flag) { return p.n; } return
            // lens[0];`), read in the helper.
            E::CallResult(callee) => {
                let function = &self.module.functions[callee];
                let mut returned = Vec::new();
                each_statement(&function.body, &mut |statement| {
                    if let Statement::Return { value: Some(v) } = *statement {
                        returned.push(v);
                    }
                });
                let helper = self.in_function(function, false);
                for value in returned {
                    helper.inputs(value, &mut Vec::new(), depth + 1, out);
                }
            }
            _ => push(self.other(h)),
        }
    }

    /// The pointer of the `workgroupUniformLoad` whose result is `h`.
    fn uniform_load_of(&self, h: Handle<Expression>) -> Option<Handle<Expression>> {
        let mut found = None;
        each_statement(&self.function.body, &mut |statement| {
            if let Statement::WorkGroupUniformLoad { pointer, result } = *statement {
                found = found.or((result == h).then_some(pointer));
            }
        });
        found
    }

    fn other(&self, h: Handle<Expression>) -> Source {
        Source::Other(format!(
            "`{}`, which divlab does not follow to an input",
            self.text(h)
        ))
    }

    /// The constant that `bound` never passes on the side the loop runs towards (`ceiling`:
    /// from below, as in `i < min(8u, n)`; else from above, as in `i > max(0, n)`), where it is
    /// a `min`, `max` or `clamp` with a constant there.
    fn clamp_limit(&self, bound: Handle<Expression>, ceiling: Option<bool>) -> Option<String> {
        use naga::MathFunction as M;
        let mut bound = bound;
        while let Expression::As { expr, .. } = self.function.expressions[bound] {
            bound = expr;
        }
        let Expression::Math {
            fun,
            arg,
            arg1,
            arg2,
            ..
        } = self.function.expressions[bound]
        else {
            return None;
        };
        let limits: Vec<Handle<Expression>> = match (fun, ceiling?) {
            (M::Min, true) | (M::Max, false) => [Some(arg), arg1].into_iter().flatten().collect(),
            (M::Clamp, true) => arg2.into_iter().collect(),
            (M::Clamp, false) => arg1.into_iter().collect(),
            _ => return None,
        };
        let limit = limits.into_iter().find(|&h| self.is_constant(h))?;
        Some(self.text(limit))
    }

    fn is_constant(&self, h: Handle<Expression>) -> bool {
        matches!(
            self.function.expressions[h],
            Expression::Literal(_) | Expression::Constant(_) | Expression::ZeroValue(_)
        )
    }

    /// The pointer's root expression and the steps from it, outermost last.
    fn root(&self, mut pointer: Handle<Expression>) -> (&Expression, Vec<Step>) {
        let mut steps = Vec::new();
        loop {
            match self.function.expressions[pointer] {
                Expression::AccessIndex { base, index } => {
                    steps.push(Step::At(index));
                    pointer = base;
                }
                Expression::Access { base, index } => {
                    steps.push(match self.constant_index(index) {
                        Some(i) => Step::At(i),
                        None => Step::Dynamic(index),
                    });
                    pointer = base;
                }
                ref root => {
                    steps.reverse();
                    return (root, steps);
                }
            }
        }
    }

    fn constant_index(&self, h: Handle<Expression>) -> Option<u32> {
        literal_u32(&self.function.expressions[h])
    }

    /// What a load through `pointer` (then `after`) reads.
    fn place(
        &self,
        pointer: Handle<Expression>,
        after: Vec<Step>,
        computed: bool,
        depth: usize,
    ) -> Source {
        let (root, mut steps) = self.root(pointer);
        steps.extend(after);
        match *root {
            Expression::GlobalVariable(global) => self.global(global, &steps, computed, depth),
            Expression::LocalVariable(local) if steps.is_empty() => {
                self.local(local, computed, depth)
            }
            Expression::LocalVariable(local) => self.local_part(local, &steps, computed, depth),
            _ => Source::Other("a value behind a pointer parameter".to_owned()),
        }
    }

    fn global(
        &self,
        global: Handle<GlobalVariable>,
        steps: &[Step],
        computed: bool,
        depth: usize,
    ) -> Source {
        let var = &self.module.global_variables[global];
        let name = var.name.clone().unwrap_or_else(|| "?".to_owned());
        let buffer = matches!(
            var.space,
            AddressSpace::Uniform | AddressSpace::Storage { .. } | AddressSpace::Immediate
        );
        if !buffer {
            // What this function stores to it (Brush's tile range, loaded from a buffer into
            // workgroup memory and read back by `workgroupUniformLoad`), a few levels deep.
            let mut stored = Vec::new();
            each_statement(&self.function.body, &mut |statement| {
                if let Statement::Store { pointer, value } = *statement {
                    let root = &self.function.expressions
                        [pointer_root(&self.function.expressions, pointer)];
                    if matches!(*root, Expression::GlobalVariable(g) if g == global) {
                        stored.push(value);
                    }
                }
            });
            let followed = (depth < MAX_GLOBAL_DEPTH && !stored.is_empty())
                .then(|| self.several(&stored, &mut Vec::new(), depth + 1))
                .flatten();
            let space = match var.space {
                AddressSpace::WorkGroup => "workgroup",
                AddressSpace::Private => "private",
                _ => "module-scope",
            };
            return followed.unwrap_or_else(|| {
                Source::Other(format!(
                    "the {space} variable `{name}`, which the kernel computes itself"
                ))
            });
        }
        if let Some(index) = steps.iter().find_map(|s| match *s {
            Step::Dynamic(i) => Some(i),
            Step::At(_) => None,
        }) {
            return Source::Element {
                global,
                index: self.text(index),
            };
        }
        match place_of(self.module, var.ty, steps) {
            Some((path, offset, scalar)) => Source::Scalar {
                global,
                path: format!("{name}{path}"),
                offset,
                scalar,
                computed,
            },
            None => Source::Other(format!("a part of `{name}` divlab cannot lay out")),
        }
    }

    /// A local's value: its initializer or its one store, when it has exactly one of them;
    /// else the inputs of all of them, where they are stored whole.
    fn local(&self, local: Handle<naga::LocalVariable>, computed: bool, depth: usize) -> Source {
        match self.values_of(local) {
            (values, false) if values.len() == 1 => self.source(values[0], computed, depth + 1),
            (values, false) => self
                .several(&values, &mut vec![local], depth + 1)
                .unwrap_or_else(|| self.assigned_in_several_places(local)),
            (_, true) => self.assigned_in_several_places(local),
        }
    }

    /// A part of a local (`range.y`) that the kernel stores whole only: that part of each value
    /// stored (`range = ranges[t]` reads `ranges[t].y`), a constant's or a vector's component.
    fn local_part(
        &self,
        local: Handle<naga::LocalVariable>,
        steps: &[Step],
        computed: bool,
        depth: usize,
    ) -> Source {
        use Expression as E;
        let not_followed = || {
            let name = self.function.local_variables[local].name.as_deref();
            Source::Other(format!(
                "part of the variable `{}`, which divlab does not follow to an input",
                name.unwrap_or("?")
            ))
        };
        let (values, other_writes) = self.values_of(local);
        if other_writes || depth > MAX_DEPTH {
            return not_followed();
        }
        let mut parts = Vec::new();
        for &value in &values {
            let part = match (&self.function.expressions[value], steps) {
                (E::Load { pointer }, _) => {
                    self.place(*pointer, steps.to_vec(), computed, depth + 1)
                }
                (E::Literal(_) | E::Constant(_) | E::Override(_) | E::ZeroValue(_), _) => {
                    Source::Constant
                }
                (E::Compose { ty, components }, &[Step::At(i)])
                    if matches!(
                        self.module.types[*ty].inner,
                        TypeInner::Vector { size, .. } if size as usize == components.len()
                    ) =>
                {
                    self.source(components[i as usize], computed, depth + 1)
                }
                _ => return not_followed(),
            };
            parts.push(part);
        }
        if parts.len() == 1 {
            return parts.remove(0);
        }
        let other = parts
            .iter()
            .find(|p| matches!(p, Source::Other(_)))
            .cloned();
        let mut inputs = Vec::new();
        for part in parts {
            add_input(&mut inputs, part);
        }
        one_source(inputs).or(other).unwrap_or(Source::Constant)
    }

    /// The values stored to `local` whole, its initializer first, and whether it is also
    /// written in part or through a pointer.
    fn values_of(&self, local: Handle<naga::LocalVariable>) -> (Vec<Handle<Expression>>, bool) {
        let mut values = Vec::from_iter(self.function.local_variables[local].init);
        let mut other_writes = false;
        stores_to(
            &self.function.body,
            &self.function.expressions,
            local,
            &mut values,
            &mut other_writes,
        );
        (values, other_writes)
    }

    fn assigned_in_several_places(&self, local: Handle<naga::LocalVariable>) -> Source {
        let name = self.function.local_variables[local].name.as_deref();
        Source::Other(format!(
            "the variable `{}`, which the kernel assigns in several places",
            name.unwrap_or("?")
        ))
    }
}
