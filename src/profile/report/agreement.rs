//! Whether the instrumented kernel wrote what the kernel alone writes: the check that the
//! counts are of the user's kernel, and not of a rewrite that computes something else.

use serde::{Deserialize, Serialize};

/// The kernel's outputs instrumented against alone: every storage buffer and storage texture it
/// can write, read back after the counted run and after a run of the kernel alone from the same
/// inputs (fresh resources, filled alike).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutputsRecord {
    /// One entry per `read_write` storage buffer, then per written storage texture, in the
    /// interface's order.
    pub resources: Vec<OutputComparison>,
    /// Why nothing was compared, where nothing was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_compared: Option<String>,
    /// Whether the kernel declares atomics, whose order between invocations follows the timing.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub atomics: bool,
}

/// One resource's values, instrumented against alone.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutputComparison {
    /// `` `name` (@group(G) @binding(B)) ``.
    pub label: String,
    /// What is counted: a buffer's scalars, or a texture's texels (every layer).
    pub unit: OutputUnit,
    /// How many were compared.
    pub compared: u64,
    /// How many differ, bit for bit.
    pub differing: u64,
    /// Where some differ: the first, and the kernel alone against itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difference: Option<OutputDifference>,
}

/// Where a resource's outputs differ, instrumented against alone.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutputDifference {
    /// The first that differs, with both values: `byte 12: 17u instrumented, 16u alone`.
    pub first: String,
    /// How many differ between the first run of the kernel alone and a later one from the same
    /// inputs, the most of any (0: the kernel alone repeats itself, so the difference came with
    /// the counters).
    pub differing_alone: u64,
    /// The runs of the kernel alone compared: the first, and then more until one differs from
    /// it or there are four (two in documents from before divlab ran more).
    #[serde(default = "two_runs")]
    pub runs_alone: u32,
    /// Where every value that differs is a finite 32- or 64-bit float: the largest gap between
    /// the two runs' values, in units in the last place (a buffer's, not a texture's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub float_ulps: Option<u64>,
}

fn two_runs() -> u32 {
    2
}

/// "two runs", "four runs": how many runs of the kernel alone a note speaks of.
fn runs_alone(n: u32) -> String {
    match n {
        2 => "two runs".to_owned(),
        3 => "three runs".to_owned(),
        4 => "four runs".to_owned(),
        n => format!("{n} runs"),
    }
}

/// The largest gap, in units in the last place, between the instrumented run's floats and the
/// kernel alone's that is called rounding: a relative 3·10⁻⁵ for a 32-bit float. Code that
/// fuses or reorders the operations differently moves a result by a few units per operation
/// (4 on lavapipe for a shading kernel of 32-trip loops and a `pow`), where another computation
/// (another side taken, a trip more or less) moves it by far more.
pub const ROUNDING_ULPS: u64 = 256;

/// What an [`OutputComparison`] counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutputUnit {
    /// A buffer's scalars, in layout order (padding left out).
    Values,
    /// Texels of a storage texture, every layer or depth slice.
    Texels,
}

impl OutputDifference {
    /// Whether every value that differs is a float within [`ROUNDING_ULPS`] of the kernel
    /// alone's: another rounding, not another computation.
    pub fn rounding(&self) -> bool {
        self.float_ulps.is_some_and(|u| u <= ROUNDING_ULPS)
    }

    /// Whether nothing but the counters explains the difference: the kernel alone repeats
    /// itself, and the values differ by more than a rounding.
    pub fn unexplained(&self) -> bool {
        self.differing_alone == 0 && !self.rounding()
    }
}

impl OutputUnit {
    /// `n` of them: `1 value`, `64 texels`.
    fn count(self, n: u64) -> String {
        let noun = match self {
            Self::Values => "value",
            Self::Texels => "texel",
        };
        format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
    }
}

impl OutputsRecord {
    /// Whether every resource compared holds the same bits instrumented and alone.
    pub fn agree(&self) -> bool {
        self.resources.iter().all(|r| r.differing == 0)
    }

    /// One line for the report: the same, what differs, or why nothing was compared.
    pub fn summary(&self) -> String {
        if let Some(why) = &self.not_compared {
            return format!("not compared with the kernel alone: {why}");
        }
        if self.resources.is_empty() {
            return "nothing to compare: the kernel writes no storage buffer or texture".to_owned();
        }
        if self.agree() {
            let each: Vec<String> = (self.resources.iter())
                .map(|r| format!("{} {}", r.label, r.unit.count(r.compared)))
                .collect();
            return format!(
                "the same as the kernel alone writes, bit for bit: {}",
                each.join(", ")
            );
        }
        let each: Vec<String> = (self.resources.iter())
            .filter(|r| r.differing > 0)
            .map(|r| {
                let first = (r.difference.as_ref())
                    .map_or_else(String::new, |d| format!(" (first at {})", d.first));
                format!(
                    "{} in {} of {}{first}",
                    r.label,
                    r.differing,
                    r.unit.count(r.compared)
                )
            })
            .collect();
        format!("differ from the kernel alone: {}", each.join("; "))
    }

    /// Where outputs differ, what else could make them differ, from the second run alone.
    pub fn notes(&self) -> Vec<String> {
        let labels = |keep: &dyn Fn(&OutputDifference) -> bool| -> Vec<&str> {
            (self.resources.iter())
                .filter(|r| r.difference.as_ref().is_some_and(keep))
                .map(|r| r.label.as_str())
                .collect()
        };
        let rounded = |d: &OutputDifference| d.differing_alone == 0 && d.rounding();
        let varies = labels(&|d| d.differing_alone > 0);
        let steady = labels(&OutputDifference::unexplained);
        // How many runs of the kernel alone agreed with each other where they did.
        let runs = (self.resources.iter())
            .filter_map(|r| r.difference.as_ref())
            .filter(|d| d.differing_alone == 0)
            .map(|d| d.runs_alone)
            .max()
            .map_or_else(String::new, runs_alone);
        let mut notes = Vec::new();
        if !varies.is_empty() {
            notes.push(format!(
                "{} also {} between runs of the kernel alone: the kernel's result depends \
                 on timing (a race between invocations, the order of atomic operations), so a \
                 difference instrumented says nothing of the counters",
                varies.join(", "),
                if varies.len() == 1 {
                    "differs"
                } else {
                    "differ"
                }
            ));
        }
        let ulps = (self.resources.iter())
            .filter_map(|r| r.difference.as_ref().filter(|d| rounded(d))?.float_ulps)
            .max();
        if let Some(ulps) = ulps {
            notes.push(format!(
                "{runs} of the kernel alone agree on {}, and the instrumented run's floats \
                 differ from theirs by at most {ulps} units in the last place: the size of the \
                 rounding a compiler's other choices make in the instrumented kernel's code (a \
                 multiply and an add fused in one and not the other, a sum in another order), \
                 not of another computation, which leaves the counts the kernel's unless a \
                 branch compares a value that close",
                labels(&rounded).join(", ")
            ));
        }
        if !steady.is_empty() && self.atomics {
            notes.push(format!(
                "{runs} of the kernel alone agree on {}, and the instrumented run does not. \
                 The kernel uses atomics: the order in which invocations reach them follows the \
                 timing, which the counters change, so a result that depends on that order can \
                 differ instrumented while the counts are still the kernel's. If the result \
                 should not depend on the order, the instrumentation changed it: please report \
                 it with this profile's --json",
                steady.join(", ")
            ));
        } else if !steady.is_empty() {
            notes.push(format!(
                "{runs} of the kernel alone agree on {}, and the instrumented run does not: \
                 the instrumented kernel computed something else. A race between invocations \
                 that the counters make come out another way can do that; otherwise it is a \
                 divlab bug, and the counts may not be the kernel's: please report it with this \
                 profile's --json",
                steady.join(", ")
            ));
        }
        notes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compared(label: &str, differing: u64, differing_alone: u64) -> OutputComparison {
        OutputComparison {
            label: format!("`{label}`"),
            unit: OutputUnit::Values,
            compared: 64,
            differing,
            difference: (differing > 0).then(|| OutputDifference {
                first: "byte 4: 2u instrumented, 1u alone".into(),
                differing_alone,
                runs_alone: if differing_alone > 0 { 2 } else { 4 },
                float_ulps: None,
            }),
        }
    }

    #[test]
    fn agreeing_outputs_say_so_and_need_no_note() {
        let record = OutputsRecord {
            resources: vec![compared("out", 0, 0)],
            not_compared: None,
            atomics: false,
        };
        assert!(record.agree());
        assert_eq!(
            record.summary(),
            "the same as the kernel alone writes, bit for bit: `out` 64 values"
        );
        assert!(record.notes().is_empty());
    }

    #[test]
    fn a_difference_is_blamed_on_timing_only_where_the_kernel_alone_varies() {
        let record = OutputsRecord {
            resources: vec![
                compared("hist", 3, 5),
                compared("out", 1, 0),
                compared("same", 0, 0),
            ],
            not_compared: None,
            atomics: false,
        };
        assert!(!record.agree());
        let summary = record.summary();
        assert!(summary.contains("`hist` in 3 of 64 values (first at byte 4"));
        assert!(summary.contains("`out` in 1 of 64"));
        assert!(!summary.contains("same"), "{summary}");
        let notes = record.notes();
        assert_eq!(notes.len(), 2);
        assert!(notes[0].starts_with("`hist` also differs"), "{notes:?}");
        assert!(
            notes[1].starts_with("four runs of the kernel alone agree on `out`"),
            "{notes:?}"
        );
        assert!(notes[1].contains("divlab bug"), "{notes:?}");
        let with_atomics = OutputsRecord {
            atomics: true,
            ..record
        };
        let notes = with_atomics.notes();
        assert!(notes[1].contains("The kernel uses atomics"), "{notes:?}");
        assert!(!notes[1].contains("divlab bug"), "{notes:?}");
    }

    /// Floats a few units in the last place apart are another rounding, not a bug; farther
    /// apart they are another computation.
    #[test]
    fn floats_that_differ_by_rounding_are_not_called_a_bug() {
        let with_ulps = |ulps| {
            let mut out = compared("radiance", 880, 0);
            if let Some(d) = out.difference.as_mut() {
                d.float_ulps = Some(ulps);
            }
            OutputsRecord {
                resources: vec![out],
                not_compared: None,
                atomics: false,
            }
        };
        let notes = with_ulps(4).notes();
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0].contains("at most 4 units in the last place"),
            "{notes:?}"
        );
        assert!(!notes[0].contains("divlab bug"), "{notes:?}");
        let notes = with_ulps(ROUNDING_ULPS + 1).notes();
        assert!(notes[0].contains("divlab bug"), "{notes:?}");
    }

    #[test]
    fn nothing_compared_says_why() {
        let record = OutputsRecord {
            resources: Vec::new(),
            not_compared: Some("too large".into()),
            atomics: false,
        };
        assert_eq!(
            record.summary(),
            "not compared with the kernel alone: too large"
        );
    }
}
