//! The user's kernel, read once: parsed and validated, its uniformity analysed, its overrides
//! resolved and its interface read. Everything one profile makes of the source (the
//! instrumented module, the timing run, the explanations of its inputs) starts from this
//! [`Kernel`], so the source is parsed once per profile.

use naga::{Function, Module};

use super::{KernelInterface, apply_overrides, interface};
use crate::Result;
use crate::shaders::{check_kernel_wgsl, prepare_for_naga};
use crate::uniformity::{Analysis, analyze_module, blank_statement_filters};

/// A user's kernel, parsed once.
#[derive(Debug)]
pub struct Kernel {
    /// The file, as the user named it (for messages and the report).
    pub file: String,
    /// Its WGSL as the user wrote it, less any `@diagnostic` attribute on a statement (blanked:
    /// naga 30 rejects them, and a filter does not change what runs), with the `return`s naga
    /// needed ([`Analysis::added_returns`]): the text the timing run and the cost variants
    /// compile.
    pub source: String,
    /// The text naga parsed ([`prepare_for_naga`]: the same lines and columns).
    pub prepared: String,
    /// The module, with the overrides resolved to constants.
    pub module: Module,
    /// `--override NAME=VALUE`: the timing run passes them to the user's own source as
    /// pipeline constants.
    pub overrides: Vec<(String, f64)>,
    /// The entry point, workgroup size and bindings.
    pub interface: KernelInterface,
    /// WGSL's uniformity analysis of the source as written (before the overrides, as a browser
    /// would judge it).
    pub analysis: Analysis,
}

impl Kernel {
    /// Parses and validates `source`, resolves `overrides`, reads the interface of `entry` (or
    /// the only compute entry point) and analyses the uniformity.
    pub fn parse(
        file: &str,
        source: &str,
        overrides: &[(String, f64)],
        entry: Option<&str>,
    ) -> Result<Self> {
        let checked = check_kernel_wgsl(file, &blank_statement_filters(source))?;
        let (runnable, parsed) = (checked.text, checked.module);
        let module = apply_overrides(&parsed, &runnable, overrides)?;
        let prepared = prepare_for_naga(&runnable);
        let interface = interface(&module, &prepared, file, entry)?;
        // The analysis reads every filter, statement attributes included, from the source.
        let analysis = analyze_module(file, source, &parsed, checked.added_returns);
        Ok(Self {
            file: file.to_owned(),
            source: runnable,
            prepared,
            module,
            overrides: overrides.to_vec(),
            interface,
            analysis,
        })
    }

    /// The function named `name` (an entry point's or another), and whether it is an entry
    /// point.
    pub fn function(&self, name: &str) -> Option<(&Function, bool)> {
        let entry = self.module.entry_points.iter().find(|ep| ep.name == name);
        match entry {
            Some(ep) => Some((&ep.function, true)),
            None => (self.module.functions.iter())
                .map(|(_, f)| f)
                .find(|f| f.name.as_deref() == Some(name))
                .map(|f| (f, false)),
        }
    }

    /// The overrides as pipeline constants.
    pub fn constants(&self) -> Vec<(&str, f64)> {
        (self.overrides.iter())
            .map(|(name, value)| (name.as_str(), *value))
            .collect()
    }
}
