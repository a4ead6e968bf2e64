//! A bound read from a function's parameter (`bound.rs`): in a helper, followed to what its
//! calls pass; in an entry point, the built-in input it is.

use naga::{Expression, Function, Handle, TypeInner};

use super::{Source, Trace};
use crate::profile::explain::ir::{builtin_name, calls_in};
use crate::profile::kernel::COMPONENTS;

impl Trace<'_> {
    /// Every call of this function in the module: the caller, whether it is an entry point,
    /// and the arguments passed.
    fn calls_of_this(&self) -> Vec<(&Function, bool, Vec<Handle<Expression>>)> {
        let Some(this) = self
            .module
            .functions
            .iter()
            .find(|(_, f)| std::ptr::eq(*f, self.function))
            .map(|(h, _)| h)
        else {
            return Vec::new();
        };
        let callers = self.module.functions.iter().map(|(_, f)| (f, false));
        let entries = self
            .module
            .entry_points
            .iter()
            .map(|ep| (&ep.function, true));
        let mut calls = Vec::new();
        for (caller, entry) in callers.chain(entries) {
            let mut found = Vec::new();
            calls_in(&caller.body, this, &mut found);
            calls.extend(found.into_iter().map(|args| (caller, entry, args)));
        }
        calls
    }

    /// The same trace, in `function` (a caller, or a helper called; an entry point or not).
    pub(super) fn in_function<'b>(&'b self, function: &'b Function, entry: bool) -> Trace<'b> {
        Trace {
            function,
            entry,
            ..*self
        }
    }

    /// What the `calls` of this helper pass as its parameter `arg`: the one call's argument,
    /// or the inputs of what each passes, where they read any.
    fn passed(
        &self,
        calls: &[(&Function, bool, Vec<Handle<Expression>>)],
        arg: u32,
        computed: bool,
        depth: usize,
    ) -> Option<Source> {
        if let [(caller, entry, arguments)] = calls {
            let argument = arguments[arg as usize];
            return Some(
                self.in_function(caller, *entry)
                    .source(argument, computed, depth + 1),
            );
        }
        let mut inputs = Vec::new();
        for (caller, entry, arguments) in calls {
            let trace = self.in_function(caller, *entry);
            trace.inputs(
                arguments[arg as usize],
                &mut Vec::new(),
                depth + 1,
                &mut inputs,
            );
        }
        inputs
            .iter()
            .any(Source::is_input)
            .then(|| match <[Source; 1]>::try_from(inputs) {
                Ok([one]) => one,
                Err(several) => Source::Inputs(several),
            })
    }

    pub(super) fn argument(
        &self,
        arg: u32,
        member: Option<u32>,
        computed: bool,
        depth: usize,
    ) -> Source {
        let argument = &self.function.arguments[arg as usize];
        let name = argument.name.as_deref().unwrap_or("?");
        if !self.entry {
            let calls = self.calls_of_this();
            // A member of a struct parameter is not followed into the callers.
            if member.is_none()
                && let Some(found) = self.passed(&calls, arg, computed, depth)
            {
                return found;
            }
            return Source::Other(format!(
                "the parameter `{name}` of `fn {}`, which {}",
                self.function.name.as_deref().unwrap_or("?"),
                match calls.len() {
                    0 => "its callers pass",
                    1 => "its one call passes",
                    _ => "several calls pass",
                }
            ));
        }
        let builtin = |b: &Option<naga::Binding>| match b {
            Some(naga::Binding::BuiltIn(b)) => Some(builtin_name(*b)),
            _ => None,
        };
        let found = match (&self.module.types[argument.ty].inner, member) {
            (TypeInner::Struct { members, .. }, Some(m)) => {
                members.get(m as usize).and_then(|m| builtin(&m.binding))
            }
            (TypeInner::Vector { .. }, Some(c)) => {
                builtin(&argument.binding).map(|b| format!("{b}.{}", COMPONENTS[c as usize % 4]))
            }
            (_, None) => builtin(&argument.binding),
            _ => None,
        };
        match found {
            Some(b) => Source::Builtin(b),
            None => Source::Other(format!("the entry point's input `{name}`")),
        }
    }
}
