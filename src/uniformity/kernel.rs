//! Static verdicts for experiment kernels: what an experiment puts next to its dynamic
//! observations ("statically non-uniform here, and observed split 4/4 on this GPU").

use serde::{Deserialize, Serialize};

use super::{Analysis, Verdict};

/// The static verdict at one of an experiment's record points.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StaticPoint {
    /// The experiment's name for the point (e.g. "point 1").
    pub label: String,
    /// 1-based source line; `None` when the needle was not found.
    pub line: Option<u32>,
    /// Control flow at workgroup scope.
    pub verdict: Option<Verdict>,
    /// Control flow at subgroup scope.
    pub subgroup: Option<Verdict>,
    /// The verdict in words, with the reason when non-uniform.
    pub description: String,
}

impl Analysis {
    /// The first line (1-based) whose text contains `needle`, to find a kernel's record point.
    pub fn find_line(&self, needle: &str) -> Option<u32> {
        self.source
            .lines()
            .position(|l| l.contains(needle))
            .map(|i| i as u32 + 1)
    }

    /// A line's static verdict in words, for a result document: "statically non-uniform
    /// (non-uniform because ...)", "statically uniform", "never executed", or "no code".
    pub fn describe_line(&self, line: u32) -> String {
        let Some(l) = self.line(line) else {
            return "no code".to_owned();
        };
        match (l.verdict, l.subgroup) {
            (Verdict::Uniform, _) => "statically uniform".to_owned(),
            (Verdict::NotExecuted, _) => "never executed".to_owned(),
            (Verdict::NonUniform, Verdict::Uniform) => format!(
                "statically uniform in each subgroup, non-uniform in the workgroup ({})",
                l.reason.as_deref().unwrap_or_default()
            ),
            (Verdict::NonUniform, _) => format!(
                "statically non-uniform ({})",
                l.subgroup_reason
                    .as_deref()
                    .or(l.reason.as_deref())
                    .unwrap_or_default()
            ),
        }
    }

    /// The static verdicts at record points, each found as the first line containing its
    /// needle: `points(&[("point 1", "record(1u,")])`.
    pub fn points(&self, points: &[(&str, &str)]) -> Vec<StaticPoint> {
        points
            .iter()
            .map(|(label, needle)| {
                let line = self.find_line(needle);
                let verdicts = line.and_then(|l| self.line(l));
                StaticPoint {
                    label: (*label).to_owned(),
                    line,
                    verdict: verdicts.map(|v| v.verdict),
                    subgroup: verdicts.map(|v| v.subgroup),
                    description: line.map_or_else(
                        || format!("`{needle}` not found in {}", self.file),
                        |l| self.describe_line(l),
                    ),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uniformity::analyze_source;

    #[test]
    fn record_points_get_verdicts() {
        let src = "enable subgroups;\n\
                   @compute @workgroup_size(64)\n\
                   fn main(@builtin(subgroup_invocation_id) lane: u32) {\n\
                   let a = subgroupAdd(1u);\n\
                   if lane < 4u {\n\
                   let b = subgroupBroadcastFirst(lane);\n\
                   }\n\
                   }\n";
        let a = analyze_source("k.wgsl", src).unwrap();
        let p = a.points(&[("a", "let a"), ("b", "let b"), ("c", "let c")]);
        assert_eq!(p[0].verdict, Some(Verdict::Uniform));
        assert_eq!(p[1].line, Some(6));
        assert_eq!(p[1].subgroup, Some(Verdict::NonUniform));
        assert!(
            p[1].description
                .contains("`if` condition `lane < 4u` at 5:4"),
            "{}",
            p[1].description
        );
        assert_eq!(p[2].line, None);
        assert!(
            a.has_errors(),
            "the broadcast in the branch is a subgroup_uniformity error"
        );
    }
}
