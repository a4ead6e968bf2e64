//! Every WGSL file divlab ships, listed once: its name, its path and its text (the one
//! `include_str!` of each), with the Rust structs and constants that mirror it, one module per
//! file. Experiments, the app's source view and the tests read them from here.

pub mod bounds;
pub mod convergence;
pub mod divergence;
mod endless;
pub mod fma_chain;
pub mod fuzz;
pub mod layout;
pub mod scheduling;
pub mod subgroup_ops;
pub mod subgroup_size;
mod wgsl;

use layout::{Mirror, MirroredConst};

pub use endless::{AddedReturn, close_endless_functions, with_added_returns};
#[cfg(test)]
pub use wgsl::parsed_texts;
pub use wgsl::{
    CheckedKernel, blanked, check_kernel_wgsl, check_wgsl, mask_comments, mend_endless_functions,
    normalize_line_breaks, parse_error_message, parse_wgsl, prepare_for_naga, required_extensions,
    span_is_borrowed,
};

/// A WGSL file under `shaders/`.
#[derive(Debug)]
pub struct ShaderFile {
    /// The file stem, e.g. `divergence`.
    pub name: &'static str,
    /// The path from the repository root, e.g. `shaders/divergence.wgsl`.
    pub path: &'static str,
    /// The WGSL text, spec-valid (it keeps `enable subgroups;`).
    pub source: &'static str,
    /// The Rust structs that mirror its structs; the layout test checks every one, and that
    /// every struct in a storage or uniform binding has one.
    pub mirrors: &'static [Mirror],
    /// The Rust constants that mirror its `const`s.
    pub constants: &'static [MirroredConst],
}

/// The file `shaders/<name>.wgsl`; with `$host`, mirrored by that module's `MIRRORS` and
/// `CONSTANTS`. A kernel that shares no struct or constant with the host (it takes its
/// constants as overrides) needs no module.
macro_rules! shader_file {
    ($name:literal) => {
        ShaderFile {
            name: $name,
            path: concat!("shaders/", $name, ".wgsl"),
            source: include_str!(concat!("../../shaders/", $name, ".wgsl")),
            mirrors: &[],
            constants: &[],
        }
    };
    ($name:literal, $($host:ident)::+) => {
        ShaderFile {
            mirrors: $($host)::+::MIRRORS,
            constants: $($host)::+::CONSTANTS,
            ..shader_file!($name)
        }
    };
}

/// Declares each file's constant and [`ALL`], which lists every one: a file is named once.
macro_rules! shader_files {
    ($($(#[$doc:meta])* $konst:ident = $file:expr;)+) => {
        $($(#[$doc])* pub const $konst: ShaderFile = $file;)+

        /// Every file in `shaders/`.
        pub const ALL: &[&ShaderFile] = &[$(&$konst),+];
    };
}

shader_files! {
    /// Scenarios of structured reconvergence, one entry point each.
    CONVERGENCE = shader_file!("convergence", convergence);
    /// The divergence study's template; the forms are generated from it.
    DIVERGENCE = shader_file!("divergence", divergence);
    /// A pure-arithmetic kernel with known work.
    FMA_CHAIN = shader_file!("fma_chain", fma_chain);
    /// A capped spin on a flag set by the other side of a branch.
    SCHEDULING_FORWARD_PROGRESS =
        shader_file!("scheduling_forward_progress", scheduling::forward_progress);
    /// Two sides of a branch that each wait for the other.
    SCHEDULING_HANDSHAKE = shader_file!("scheduling_handshake", scheduling::handshake);
    /// Tickets taken by both sides of a divergent branch.
    SCHEDULING_INTERLEAVING = shader_file!("scheduling_interleaving", scheduling::interleaving);
    /// A barrier-free reduction that only lockstep execution would make correct.
    SCHEDULING_LOCKSTEP_RACE =
        shader_file!("scheduling_lockstep_race", scheduling::lockstep_race);
    /// A long side and a short side, timed apart and together.
    SCHEDULING_RUN_AHEAD = shader_file!("scheduling_run_ahead", scheduling::run_ahead);
    /// Ballots on each path of a k-way lane divergence.
    SIMT_EFFICIENCY = shader_file!("simt_efficiency");
    /// The subgroup-operation catalog.
    SUBGROUP_OPS = shader_file!("subgroup_ops", subgroup_ops);
    /// The subgroup probe.
    SUBGROUP_SIZE = shader_file!("subgroup_size", subgroup_size);
}

/// The file with this path, e.g. `shaders/divergence.wgsl`.
pub fn by_path(path: &str) -> Option<&'static ShaderFile> {
    ALL.iter().copied().find(|f| f.path == path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shader added to `shaders/` but not to [`ALL`] would be shipped by nothing.
    #[test]
    fn every_file_in_shaders_is_listed() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/shaders");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .expect("shaders/ exists")
            .map(|e| {
                e.expect("readable entry")
                    .file_name()
                    .into_string()
                    .unwrap()
            })
            .filter(|name| name.ends_with(".wgsl"))
            .map(|name| format!("shaders/{name}"))
            .collect();
        on_disk.sort();
        let mut listed: Vec<String> = ALL.iter().map(|f| f.path.to_owned()).collect();
        listed.sort();
        assert_eq!(on_disk, listed);
    }

    #[test]
    fn every_file_is_valid_wgsl() {
        for file in ALL {
            if let Err(e) = check_wgsl(file.path, file.source) {
                panic!("{e}");
            }
        }
    }

    /// Parsed the way divlab hands WGSL to naga.
    fn parse(what: &str, source: &str) -> naga::Module {
        let prepared = prepare_for_naga(source);
        naga::front::wgsl::parse_str(&prepared)
            .unwrap_or_else(|e| panic!("{what}: {}", e.emit_to_string_with_path(&prepared, what)))
    }

    /// WGSL that host-shared types mirror: a file, or what divlab generates from one.
    struct Subject {
        what: String,
        source: String,
        mirrors: &'static [Mirror],
        constants: &'static [MirroredConst],
        /// Structs in a binding that the host fills without a mirror.
        unmirrored: &'static [&'static str],
    }

    impl Subject {
        fn of(file: &'static ShaderFile) -> Self {
            Self {
                what: file.path.to_owned(),
                source: file.source.to_owned(),
                mirrors: file.mirrors,
                constants: file.constants,
                unmirrored: &[],
            }
        }
    }

    /// Every Rust struct and constant that mirrors WGSL matches naga's layout of it: each
    /// kernel file, each generated divergence form, and a generated fuzz program.
    #[test]
    fn every_mirror_matches_its_wgsl() {
        let mut subjects: Vec<Subject> = ALL.iter().map(|f| Subject::of(f)).collect();
        for form in divergence::Form::ALL {
            for selection in [
                divergence::Selection::Subgroup,
                divergence::Selection::Block,
            ] {
                subjects.push(Subject {
                    what: format!("{} as {form:?} ({selection:?})", DIVERGENCE.path),
                    source: form.source(8, selection),
                    ..Subject::of(&DIVERGENCE)
                });
            }
        }
        let program = crate::model::reconvergence::Program {
            main: vec![crate::model::reconvergence::Stmt::Ballot(0)],
            functions: Vec::new(),
            lane_masks: Vec::new(),
            id_masks: Vec::new(),
        };
        subjects.push(Subject {
            what: "the generated fuzz program".to_owned(),
            source: crate::fuzz::wgsl::emit(&program),
            mirrors: fuzz::MIRRORS,
            constants: &[],
            // The host fills `Params` with plain `u32` ones.
            unmirrored: &["Params"],
        });
        let mut failures = Vec::new();
        for s in &subjects {
            let module = parse(&s.what, &s.source);
            failures.extend(layout::check::mismatches(
                &s.what,
                &module,
                s.mirrors,
                s.constants,
                s.unmirrored,
            ));
        }
        assert!(failures.is_empty(), "\n{}", failures.join("\n"));
    }

    /// The check itself: a member deleted from a WGSL struct fails it, naming file and struct.
    #[test]
    fn a_deleted_wgsl_member_is_caught() {
        let file = &SCHEDULING_FORWARD_PROGRESS;
        let damaged = file.source.replacen("    _pad2: u32,\n}", "}", 1);
        assert_ne!(damaged, file.source);
        let module = parse(file.path, &damaged);
        let failures = layout::check::mismatches(file.path, &module, file.mirrors, &[], &[]);
        assert!(
            failures
                .iter()
                .any(|f| f.contains(file.path) && f.contains("struct SpinParams")),
            "{failures:?}"
        );
    }
}
