//! What the user is told about the kernel's inputs: which input a loop that hit the cap reads
//! its bound from, with the value the run used and what to pass instead; and which integer
//! fields of a uniform buffer the default fill set to the dispatch's invocations.

use naga::{Module, Scalar, ScalarKind, Statement};

use super::Fills;
use super::bound::{LoopBound, Source, loop_bound};
use super::loops::{enclosing_loops, loops_around};
use super::spin::{Spin, spin_of};
use crate::profile::fill::{self, Fill, Resolved};
use crate::profile::instrument::LoopSite;
use crate::profile::kernel::{Access, Binding, Kernel};
use crate::profile::report::and_list;
use crate::source_map::SourceMap;

/// The message for a run whose loop `site` hit the cap of `loop_cap` iterations: where the
/// loop is, and where its bound comes from when divlab can tell. `held_down`: the cap is
/// lower than asked (llvmpipe's own loop limit, or the width of the counters' sums), so
/// raising it does not help.
pub fn cap_message(
    kernel: &Kernel,
    fills: Fills<'_>,
    site: &LoopSite,
    (loop_cap, held_down): (u32, bool),
) -> String {
    let line = site.line;
    let head = format!(
        "{}:{line}: an invocation hit the loop cap in the loop here, after {loop_cap} loop \
         iterations in all (the cap counts every loop of one invocation together)",
        kernel.file
    );
    let tail = if held_down {
        "The profile below is of the cut-short run; divlab holds the cap below what --loop-cap \
         asked, for the reason the note gives, so a larger --loop-cap does not raise it"
    } else {
        "The profile below is of the cut-short run; raise the cap with --loop-cap if the loops \
         are meant to run longer"
    };
    let inputs = Inputs::new(kernel, fills);
    let spin = spin_at(kernel, site);
    // A loop that waits for a flag to equal a constant, and reads an atomic at each trip, is
    // told as the wait it is (below), not as a count towards the constant.
    let own = bound_of(kernel, site)
        .filter(|b| !(b.equality() && b.source == Source::Constant && spin.is_some()));
    // The cap counts the trips of the loops around this one too: the nearest whose bound comes
    // from another input may be what ran long (a tile loop inside a loop over `shape.x`), and
    // where this loop's own trips are fixed, a wait around it (a look-back's retry loop).
    let own_source = own.as_ref().map(|b| &b.source);
    let module = &kernel.module;
    let input_bound = |function: &naga::Function, entry: bool, line: u32| {
        let bound = loop_bound(module, function, entry, &kernel.prepared, line)?;
        let input = !matches!(
            bound.source,
            Source::Constant | Source::Clamped { .. } | Source::Other(_)
        );
        (input && own_source != Some(&bound.source)).then_some(bound)
    };
    let waits = |function: &naga::Function, _: bool, line: u32| {
        spin_of(module, function, &kernel.prepared, line)
    };
    let around = match around_of(kernel, site, &input_bound) {
        Some((what, line, bound)) => {
            let why = inputs.explain(&bound, loop_cap);
            format!(" The loop around {what} at line {line} {why}.")
        }
        None => own_source
            .filter(|source| source.is_fixed())
            .and_then(|_| around_of(kernel, site, &waits))
            .map(|(what, line, spin)| {
                format!(
                    " The loop around {what} at line {line} {}.",
                    inputs.spin(&spin)
                )
            })
            .unwrap_or_default(),
    };
    let Some(bound) = own else {
        return match spin {
            Some(spin) => format!("{head}. It {}.{around} {tail}", inputs.spin(&spin)),
            None if around.is_empty() => {
                format!("{head}; the kernel may never end on this input. {tail}")
            }
            None => format!("{head}.{around} {tail}"),
        };
    };
    let why = match site.fixed_trips {
        // The pass read this loop's trips before the run: they are not what ran long.
        Some(trips) if bound.source == Source::Constant => format!(
            "runs {trips} trips at each entry (`{}` steps from a constant to `{}`), known before \
             the run, so the trips that reached the cap were those of other loops: around it, \
             or before it",
            bound.counter, bound.text
        ),
        _ => inputs.explain(&bound, loop_cap),
    };
    format!("{head}. It {why}.{around} {tail}")
}

/// The nearest loop around `site` that `pick` (given the function, whether it is the entry
/// point, and the loop's line) finds something in: in its function, else, in a helper, around
/// its calls. What it is around ("it", "its call"), its line and what `pick` found.
fn around_of<T>(
    kernel: &Kernel,
    site: &LoopSite,
    pick: &dyn Fn(&naga::Function, bool, u32) -> Option<T>,
) -> Option<(&'static str, u32, T)> {
    let (function, entry) = kernel.function(&site.function)?;
    let lines = SourceMap::new(&kernel.prepared);
    let module = &kernel.module;
    let first = |function: &naga::Function, entry: bool, around: Vec<u32>| {
        (around.into_iter()).find_map(|line| pick(function, entry, line).map(|found| (line, found)))
    };
    let own = enclosing_loops(&function.body, &lines, site.line)?;
    if let Some((line, found)) = first(function, entry, own) {
        return Some(("it", line, found));
    }
    let (helper, _) = (module.functions.iter()).find(|(_, f)| std::ptr::eq(*f, function))?;
    let callers = (module.functions.iter().map(|(_, f)| (f, false)))
        .chain(module.entry_points.iter().map(|ep| (&ep.function, true)));
    callers
        .filter_map(|(caller, entry)| {
            let calls_it = |s: &Statement, _| {
                matches!(s, Statement::Call { function, .. } if *function == helper)
            };
            let around = loops_around(&caller.body, &lines, &calls_it)?;
            first(caller, entry, around)
        })
        .next()
        .map(|(line, found)| ("its call", line, found))
}

/// The bound of the loop at `site`, in the module the run instrumented.
fn bound_of(kernel: &Kernel, site: &LoopSite) -> Option<LoopBound> {
    let (function, entry) = kernel.function(&site.function)?;
    loop_bound(&kernel.module, function, entry, &kernel.prepared, site.line)
}

/// The atomic the loop at `site` waits on, it seems, in the module the run instrumented.
fn spin_at(kernel: &Kernel, site: &LoopSite) -> Option<Spin> {
    let (function, _) = kernel.function(&site.function)?;
    spin_of(&kernel.module, function, &kernel.prepared, site.line)
}

/// The naga variable of `binding`.
pub(super) fn global_of<'m>(
    module: &'m Module,
    binding: &Binding,
) -> Option<(naga::Handle<naga::GlobalVariable>, &'m naga::GlobalVariable)> {
    module
        .global_variables
        .iter()
        .find(|(_, var)| is_var(var, binding))
}

/// Whether `binding` is the variable `var`: by its slot, or an immediates block by its name.
fn is_var(var: &naga::GlobalVariable, binding: &Binding) -> bool {
    match var.binding {
        Some(ref slot) => slot.group == binding.group && slot.binding == binding.binding,
        None => binding.access == Access::Immediate && var.name.as_deref() == Some(&binding.name),
    }
}

/// One input of a bound, as the cap message gives it.
struct Described {
    /// The input with its value (`` `grid.width` (values fill: 3000) ``).
    named: String,
    /// `--buffer PATH=N`, where that sets it.
    set: Option<String>,
    /// What else to pass (`--buffer grid=values:...`), with the scalar's position in layout
    /// order and how many the binding has.
    advice: Option<(String, Option<(usize, u64)>)>,
}

/// The kernel's inputs as the run filled them.
struct Inputs<'a> {
    interface: &'a crate::profile::kernel::KernelInterface,
    module: &'a Module,
    resolved: &'a [Resolved],
    invocations: u64,
}

impl<'a> Inputs<'a> {
    fn new(kernel: &'a Kernel, fills: Fills<'a>) -> Self {
        Self {
            interface: &kernel.interface,
            module: &kernel.module,
            resolved: fills.resolved,
            invocations: fills.invocations,
        }
    }

    /// The binding of a buffer variable and its resolved fill.
    fn binding(&self, global: naga::Handle<naga::GlobalVariable>) -> Option<(&Binding, &Resolved)> {
        let var = &self.module.global_variables[global];
        self.resolved.iter().find_map(|r| {
            let b = &self.interface.bindings[r.index];
            is_var(var, b).then_some((b, r))
        })
    }

    /// "a texel of `spans`".
    fn texel(&self, texture: naga::Handle<naga::GlobalVariable>) -> String {
        let name = self.module.global_variables[texture].name.as_deref();
        format!("a texel of `{}`", name.unwrap_or("?"))
    }

    /// What sets a texture's texels: `--texture spans=values:...`.
    fn texture_fill(&self, texture: naga::Handle<naga::GlobalVariable>) -> String {
        let name = self.module.global_variables[texture].name.as_deref();
        format!(
            "`--texture {}=values:...` (or `zeros`)",
            name.unwrap_or("?")
        )
    }

    /// "reads its bound from ...; pass ...": the sentence after "It".
    fn explain(&self, bound: &LoopBound, loop_cap: u32) -> String {
        let text = &bound.text;
        match bound.source {
            Source::Scalar {
                global,
                ref path,
                offset,
                scalar,
                computed,
            } => {
                let Some((binding, r)) = self.binding(global) else {
                    return format!("reads its bound from `{path}`");
                };
                self.scalar(
                    binding,
                    r,
                    (path, offset, scalar),
                    computed.then_some(text),
                    loop_cap,
                )
            }
            Source::Element { global, ref index } => {
                let Some((binding, r)) = self.binding(global) else {
                    return format!("reads its bound from `{text}`, an element of a buffer");
                };
                format!(
                    "reads its bound from `{text}`, an element of `{name}` loaded at the index \
                     `{index}`, which is not a constant, so each invocation may get another \
                     ({fill}); pass `--buffer {name}=values:...` (or `iota`) with smaller \
                     elements there",
                    name = binding.name,
                    fill = fill_kind(binding, r),
                )
            }
            Source::Texel {
                global,
                ref coordinate,
            } => format!(
                "reads its bound from `{text}`, {} at `{coordinate}`, which is not a constant, so \
                 each invocation may get another (random, unless `--texture` filled it); pass {} \
                 with smaller texels there",
                self.texel(global),
                self.texture_fill(global)
            ),
            Source::Length { global } => {
                let Some((binding, r)) = self.binding(global) else {
                    return format!("reads its bound from `{text}`, the length of a buffer");
                };
                let bytes = binding.size.bytes(r.len_or(self.invocations));
                let len = binding.size.len_for(bytes);
                format!(
                    "reads its bound from `{text}`, the length of `{name}` ({len} elements here, \
                     {from}); pass a smaller `--len {name}=N`",
                    name = binding.name,
                    from = if r.len.is_some() {
                        "from --len"
                    } else {
                        "one per invocation of the dispatch"
                    },
                )
            }
            Source::Builtin(ref builtin) if builtin.starts_with("subgroup_size") => format!(
                "reads its bound from `{text}`, the subgroup size (`{builtin}`), which the device \
                 fixes: no option changes this loop's trips"
            ),
            Source::Builtin(ref builtin) => {
                let what = if builtin.starts_with("num_workgroups") {
                    "the dispatch's size"
                } else {
                    "an invocation id"
                };
                format!(
                    "reads its bound from `{text}`, {what} (`{builtin}`), not from a buffer: \
                     the dispatch has {} invocations; dispatch fewer workgroups if the bound \
                     grows with them",
                    self.invocations
                )
            }
            Source::Constant | Source::Clamped { .. } => {
                let limit = match bound.source {
                    Source::Clamped { ref limit } => format!(", which never passes `{limit}`"),
                    _ => String::new(),
                };
                format!(
                    "compares `{counter}`, which the loop changes, with `{text}`{limit}, a \
                     constant: either the loops are meant to run that long (the cap counts the \
                     trips of the loops around this one too), or `{counter}` does not reach it \
                     on this input (look at where `{counter}` starts, and how it steps)",
                    counter = bound.counter
                )
            }
            Source::Inputs(ref inputs) => self.several(text, inputs),
            // The bound itself is what divlab did not follow: named once.
            Source::Other(ref what) => match what.strip_prefix(&format!("`{text}`")) {
                Some(rest) => format!("reads its bound `{text}`{rest}"),
                None => format!("reads its bound `{text}` from {what}"),
            },
        }
    }

    /// The sentence for a bound computed from several inputs: each with the value the run
    /// gave it, then what to pass: a `--buffer PATH=N` for each scalar it works for, and once
    /// per binding (with its scalars' layout positions) or for the dispatch.
    fn several(&self, text: &str, inputs: &[Source]) -> String {
        let described: Vec<Described> = inputs.iter().map(|i| self.describe(i)).collect();
        let sets: Vec<String> = described.iter().filter_map(|d| d.set.clone()).collect();
        // Each piece of advice once, with the positions of the scalars it covers (1-based).
        let mut advice: Vec<(&str, Vec<String>, u64)> = Vec::new();
        for (what, position) in described.iter().filter_map(|d| d.advice.as_ref()) {
            let i = advice
                .iter()
                .position(|(w, ..)| w == what)
                .unwrap_or_else(|| {
                    advice.push((what, Vec::new(), 0));
                    advice.len() - 1
                });
            if let Some((k, total)) = *position {
                advice[i].1.push((k + 1).to_string());
                advice[i].2 = total;
            }
        }
        let one_each = match &sets[..] {
            [] => None,
            [one] => Some(format!("{one}, which sets that scalar alone")),
            _ => Some(format!("{}, each setting one scalar", and_list(&sets))),
        };
        let ways: Vec<String> = (one_each.into_iter())
            .chain(
                advice
                    .into_iter()
                    .map(|(what, numbers, total)| match &numbers[..] {
                        [] => what.to_owned(),
                        [one] => format!("{what} (value {one} of {total} in layout order)"),
                        _ => format!(
                            "{what} (values {} of {total} in layout order)",
                            and_list(&numbers)
                        ),
                    }),
            )
            .collect();
        let named: Vec<String> = described.into_iter().map(|d| d.named).collect();
        format!(
            "reads its bound `{text}` from {} inputs: {}; pass smaller values there with {}",
            inputs.len(),
            and_list(&named),
            ways.join(", or with ")
        )
    }

    /// One input of a bound computed from several, for [`Self::several`].
    fn describe(&self, input: &Source) -> Described {
        let only = |named: String| Described {
            named,
            set: None,
            advice: None,
        };
        match *input {
            Source::Scalar {
                global,
                ref path,
                offset,
                scalar,
                ..
            } => {
                let Some((b, r)) = self.binding(global) else {
                    return only(format!("`{path}`"));
                };
                let bytes = fill::initial(b, r, self.invocations).unwrap_or_default();
                let value = read_scalar(&bytes, offset, scalar).unwrap_or_default();
                let (k, total) = layout_position(b, &bytes, offset);
                Described {
                    named: format!("`{path}` ({}: {value})", scalar_kind(b, r, offset)),
                    set: settable(b, path, offset).then(|| format!("`--buffer {path}=N`")),
                    advice: Some((
                        format!("`--buffer {}=values:...`", b.name),
                        k.map(|k| (k, total)),
                    )),
                }
            }
            Source::Element { global, ref index } => match self.binding(global) {
                Some((b, r)) => Described {
                    named: format!(
                        "an element of `{}` at the index `{index}`, which is not a constant ({})",
                        b.name,
                        fill_kind(b, r)
                    ),
                    set: None,
                    advice: Some((
                        format!("`--buffer {}=values:...` (or `iota`)", b.name),
                        None,
                    )),
                },
                None => only(format!("an element of a buffer at `{index}`")),
            },
            Source::Length { global } => match self.binding(global) {
                Some((b, r)) => {
                    let len = b.size.len_for(b.size.bytes(r.len_or(self.invocations)));
                    Described {
                        named: format!("the length of `{}` ({len} elements)", b.name),
                        set: None,
                        advice: Some((format!("a smaller `--len {}=N`", b.name), None)),
                    }
                }
                None => only("the length of a buffer".to_owned()),
            },
            Source::Texel {
                global,
                ref coordinate,
            } => Described {
                named: format!(
                    "{} at `{coordinate}`, which is not a constant",
                    self.texel(global)
                ),
                set: None,
                advice: Some((self.texture_fill(global), None)),
            },
            Source::Builtin(ref builtin) => Described {
                named: format!("`{builtin}`"),
                set: None,
                advice: Some(("fewer workgroups (`--dispatch`)".to_owned(), None)),
            },
            Source::Other(ref what) => only(what.clone()),
            // Not among a bound's inputs.
            Source::Constant | Source::Clamped { .. } | Source::Inputs(_) => only(String::new()),
        }
    }

    /// "It ...": the sentences for a loop that reads an atomic at each trip and has no bound
    /// the trace follows.
    fn spin(&self, spin: &Spin) -> String {
        let Spin {
            name, line, code, ..
        } = spin;
        if spin.retry {
            return format!(
                "has no bound divlab can trace, but retries a compare-exchange on `{name}` at \
                 each trip (line {line}: `{code}`) with the value it last read: each failed try \
                 means another invocation wrote it in between, so the retries end unless others \
                 keep writing it; the cap also counts the trips of the loops around it"
            );
        }
        if let Some(step) = &spin.probe {
            let fill = match self.binding(spin.global) {
                Some((binding, r)) => format!(
                    "on its {} it may find none: pass `--buffer {name}=...` (zeros, \
                     values:...) with the entries it looks for",
                    fill_kind(binding, r)
                ),
                None => "it is workgroup memory, which only the kernel fills".to_owned(),
            };
            return format!(
                "has no bound divlab can trace, but reads the atomic `{name}` at an index the \
                 loop steps (`{step}`, line {line}: `{code}`): a probe, which ends where it \
                 finds the entry it looks for (a free slot, a key); {fill}; the cap also counts \
                 the trips of the loops around it"
            );
        }
        let start = match self.binding(spin.global) {
            Some((binding, r)) => format!(
                "`{name}` started as its {}: pass `--buffer {name}=...` (zeros, values:...) \
                 with the state the wait expects, and",
                fill_kind(binding, r)
            ),
            None => format!(
                "`{name}` is workgroup memory, zero when the workgroup starts, so no option \
                 changes it:"
            ),
        };
        format!(
            "has no bound divlab can trace, but reads the atomic `{name}` at each trip (line \
             {line}: `{code}`): if it waits there for another invocation to change it (a lock, \
             a flag, a ticket), the wait may never end, since WGSL promises no invocation \
             progress while another spins (for the lanes of one subgroup, `divlab bench` measures \
             what this adapter does in scheduling.forward_progress); {start} give the wait a \
             bound in the kernel"
        )
    }

    /// The sentence for a bound read from one scalar of a buffer.
    fn scalar(
        &self,
        binding: &Binding,
        r: &Resolved,
        (path, offset, scalar): (&str, u64, Scalar),
        computed: Option<&String>,
        loop_cap: u32,
    ) -> String {
        let name = &binding.name;
        let bytes = fill::initial(binding, r, self.invocations).unwrap_or_default();
        let Some(value) = read_scalar(&bytes, offset, scalar) else {
            return format!("reads its bound from `{path}`");
        };
        let through = computed.map_or_else(String::new, |t| format!(" through `{t}`"));
        let below = match (computed, value.parse::<f64>()) {
            (None, Ok(v)) if v <= f64::from(loop_cap) => {
                ", which is below the cap: the loop's counter may not be stepping toward it, or \
                 the invocation's other loops, or the loops around this one, spent the rest"
            }
            _ => "",
        };
        // A buffer the kernel writes may have changed under the loop: the value is the fill's.
        let when = if binding.access == Access::StorageReadWrite {
            " before the run"
        } else {
            ""
        };
        let read = format!(
            "reads its bound from `{path}`{through} ({}: {value}{when}){below}",
            scalar_kind(binding, r, offset)
        );
        let (position, total) = layout_position(binding, &bytes, offset);
        let values = position.map(|k| {
            format!(
                "`--buffer {name}=values:...` with `{path}` as value {} of {total} in layout order",
                k + 1
            )
        });
        let n = self.invocations;
        // The dispatch's invocations as an example, unless the scalar held that already.
        let example = if value.parse::<f64>().ok() == Some(n as f64) {
            "a smaller N".to_owned()
        } else {
            format!("e.g. `--buffer {path}={n}`, the dispatch's {n} invocations")
        };
        match (settable(binding, path, offset), values) {
            (true, Some(values)) => format!(
                "{read}; pass `--buffer {path}=N` ({example}), which sets that scalar alone, or \
                 {values}"
            ),
            (true, None) => format!("{read}; pass `--buffer {path}=N`"),
            (false, Some(values)) => format!("{read}; pass {values}"),
            (false, None) => read,
        }
    }
}

/// Whether `--buffer PATH=N` sets the scalar of `binding` at `offset` that `path` (from the
/// variable's name) names: the suggestion is given only where it works.
fn settable(binding: &Binding, path: &str, offset: u64) -> bool {
    (path.strip_prefix(binding.name.as_str()))
        .and_then(|place| binding.shape.scalar_at(place).ok())
        .is_some_and(|(at, _)| at == offset)
}

/// The position of the scalar at `offset` among those a `values:` fill of `binding` writes, in
/// layout order, and how many it writes.
fn layout_position(binding: &Binding, bytes: &[u8], offset: u64) -> (Option<usize>, u64) {
    let len = binding.size.len_for(bytes.len() as u64);
    let total = binding.shape.scalar_count(len);
    let mut seen = 0usize;
    let mut position = None;
    let _ = binding.shape.for_each_scalar(0, len, &mut |at, _| {
        if at == offset {
            position = Some(seen);
            return std::ops::ControlFlow::Break(());
        }
        seen += 1;
        std::ops::ControlFlow::Continue(())
    });
    (position, total)
}

/// The scalar of type `scalar` at `offset` of `bytes`, little-endian, as text.
fn read_scalar(bytes: &[u8], offset: u64, scalar: Scalar) -> Option<String> {
    let at = usize::try_from(offset).ok()?;
    let width = usize::from(scalar.width);
    let raw = bytes.get(at..at + width)?;
    let mut word = [0u8; 8];
    word[..width].copy_from_slice(raw);
    let bits = u64::from_le_bytes(word);
    let bits_wide = u32::from(scalar.width) * 8;
    Some(match (scalar.kind, scalar.width) {
        (ScalarKind::Uint, _) => bits.to_string(),
        (ScalarKind::Sint, _) => {
            let shift = 64 - bits_wide;
            (((bits << shift) as i64) >> shift).to_string()
        }
        (ScalarKind::Float, 4) => f32::from_bits(bits as u32).to_string(),
        (ScalarKind::Float, 8) => f64::from_bits(bits).to_string(),
        (ScalarKind::Float, _) => format!("0x{bits:04x} (f16 bits)"),
        _ => return None,
    })
}

/// How the scalar at `offset` got its value: "set by --buffer" where a `--buffer PATH=N` names
/// it, "default fill" where a loop bound's default set it ([`fill::Inferred::Bound`]), else
/// [`fill_kind`].
fn scalar_kind(binding: &Binding, r: &Resolved, offset: u64) -> String {
    let bound =
        |i: &fill::Inferred| matches!(*i, fill::Inferred::Bound { offset: at, .. } if at == offset);
    if r.sets.iter().any(|set| set.offset == offset) {
        "set by --buffer".to_owned()
    } else if r.inferred.iter().any(bound) {
        "default fill".to_owned()
    } else {
        fill_kind(binding, r)
    }
}

/// "random fill", "default fill", ...: how the binding was filled, for the message.
fn fill_kind(binding: &Binding, r: &Resolved) -> String {
    match (r.given, binding.access) {
        (false, Access::Uniform) => return "default fill".to_owned(),
        (false, _) => {
            return match r.counts() {
                Some((largest, _)) => format!("default random fill, cut to 0 to {largest}"),
                None => "default random fill".to_owned(),
            };
        }
        (true, _) => {}
    }
    match &r.fill {
        Fill::Random(seed) if *seed == fill::DEFAULT_SEED => "random fill".to_owned(),
        Fill::Random(seed) => format!("random fill, seed {seed}"),
        Fill::Values(_) => "values fill".to_owned(),
        Fill::Iota => "iota fill".to_owned(),
        Fill::Zeros => "zeros fill".to_owned(),
        other => format!("{other} fill"),
    }
}

/// `` `a`, `b` and `c` ``.
pub(super) fn quoted(names: &[String]) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    and_list(&q)
}
