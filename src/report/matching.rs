//! Matching verdicts across result files, and telling observations apart by kind.
//!
//! Verdicts match by their stable key. Files written before keys (schema < 3) match by wording:
//! checks name numbers that depend on the device ("T(k) = a + s*k for k <= 8" on lavapipe,
//! "... <= 32" on an H200), so a check that is not word for word in every file matches with its
//! numbers ignored, in order. Observations differ in counts everywhere (12 sets on one device, 6
//! on another); what matters is whether all, none or some of them did a thing.

use std::collections::{HashMap, HashSet};

use crate::report::{ExperimentResult, Verdict, VerdictStatus};

/// One check across the files: its verdict and detail in each.
#[derive(Clone, Debug, PartialEq)]
pub struct VerdictRow {
    /// The check's stable key; empty where the files predate keys (schema < 3).
    pub key: String,
    /// The check; numbers that differ between the files' wordings are shown as `n`, and
    /// wordings that differ in their words are joined by " / ".
    pub check: String,
    /// The verdict in each file; `None` where the file lacks the check.
    pub statuses: Vec<Option<VerdictStatus>>,
    /// The detail in each file.
    pub details: Vec<Option<String>>,
}

impl VerdictRow {
    /// What names the check in every file: its key, or its wording in files before keys.
    pub fn id(&self) -> &str {
        if self.key.is_empty() {
            &self.check
        } else {
            &self.key
        }
    }

    /// Whether a file gives this check a verdict other than file `baseline`'s (both have it).
    pub fn differs_from(&self, baseline: usize) -> bool {
        let Some(Some(base)) = self.statuses.get(baseline) else {
            return false;
        };
        self.statuses.iter().flatten().any(|s| s != base)
    }

    /// Whether two files give this check different verdicts.
    pub fn differs(&self) -> bool {
        let mut present = self.statuses.iter().flatten();
        present
            .next()
            .is_some_and(|first| present.any(|s| s != first))
    }
}

/// How a verdict is matched across files.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    /// The check word for word, and which repeat of it (a check may appear twice).
    Exact(String, usize),
    /// The check with its numbers replaced by `#`, and which repeat of that.
    Numberless(String, usize),
}

/// Pairs each file's verdicts: a check worded the same in every file that has verdicts matches
/// exactly; the others match with numbers ignored, in order. Rows come in first-seen order.
pub(crate) fn match_verdicts(present: &[Option<&ExperimentResult>]) -> Vec<VerdictRow> {
    let n = present.len();
    let exact: Vec<Vec<Key>> = present
        .iter()
        .map(|e| {
            // The stable key where the file has one; the wording in files before keys.
            let checks = e.map_or(&[][..], |e| &e.verdicts).iter();
            with_repeats(checks.map(identity), Key::Exact)
        })
        .collect();
    let sets: Vec<HashSet<&Key>> = exact
        .iter()
        .filter(|keys| !keys.is_empty())
        .map(|keys| keys.iter().collect())
        .collect();
    let mut rows: Vec<VerdictRow> = Vec::new();
    let mut texts: Vec<Vec<Option<String>>> = Vec::new();
    let mut index: HashMap<Key, usize> = HashMap::new();
    for (f, e) in present.iter().enumerate() {
        let Some(e) = e else { continue };
        let shared = |k: &Key| sets.iter().all(|s| s.contains(k));
        let fallback_keys = with_repeats(
            e.verdicts
                .iter()
                .zip(&exact[f])
                .filter(|(_, k)| !shared(k))
                .map(|(v, _)| numberless(&v.check)),
            Key::Numberless,
        );
        let mut fallback = fallback_keys.into_iter();
        for (v, k) in e.verdicts.iter().zip(&exact[f]) {
            let key = if shared(k) {
                k.clone()
            } else {
                fallback
                    .next()
                    .expect("one numberless key per unshared check")
            };
            let row = *index.entry(key).or_insert_with(|| {
                rows.push(VerdictRow {
                    key: v.key.clone(),
                    check: String::new(),
                    statuses: vec![None; n],
                    details: vec![None; n],
                });
                texts.push(vec![None; n]);
                rows.len() - 1
            });
            // A repeat within one file that matched the same row keeps the first.
            if rows[row].key.is_empty() {
                rows[row].key.clone_from(&v.key);
            }
            if rows[row].statuses[f].is_none() {
                rows[row].statuses[f] = Some(v.status);
                rows[row].details[f] = Some(v.detail.clone());
                texts[row][f] = Some(v.check.clone());
            }
        }
    }
    for (row, wordings) in rows.iter_mut().zip(&texts) {
        row.check = merge_wordings(wordings.iter().flatten().map(String::as_str));
    }
    rows
}

/// What identifies a verdict across files: its key, or its wording where it has none.
fn identity(v: &Verdict) -> String {
    if v.key.is_empty() {
        v.check.clone()
    } else {
        format!("key:{}", v.key)
    }
}

/// Keys for a sequence of texts, each numbered by how often the same text came before it.
fn with_repeats(texts: impl Iterator<Item = String>, key: fn(String, usize) -> Key) -> Vec<Key> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    texts
        .map(|t| {
            let count = counts.entry(t.clone()).or_insert(0);
            *count += 1;
            key(t, *count - 1)
        })
        .collect()
}

/// Splits text into runs of ASCII digits and runs of anything else.
fn runs(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = s.as_bytes();
    for i in 1..=bytes.len() {
        if i == bytes.len() || bytes[i].is_ascii_digit() != bytes[i - 1].is_ascii_digit() {
            out.push(&s[start..i]);
            start = i;
        }
    }
    out
}

fn is_number(run: &str) -> bool {
    run.as_bytes().first().is_some_and(u8::is_ascii_digit)
}

/// The text with every run of digits replaced by `#`.
fn numberless(s: &str) -> String {
    runs(s)
        .into_iter()
        .map(|r| if is_number(r) { "#" } else { r })
        .collect()
}

/// One wording for a check worded differently in different files. Wordings that differ only in
/// numbers merge, and numbers on which they disagree become `n` ("T(k) = a + s*k for k <= n").
/// Wordings that differ in their words (one stable key, worded per device: "F(8) matches the
/// SIMT model" with ballots, "the subgroup width inferred from timing ..." without) are each
/// kept, in first-seen order, joined by " / ": only a number is ever replaced by `n`.
fn merge_wordings<'a>(wordings: impl Iterator<Item = &'a str>) -> String {
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    for w in wordings {
        let shape = numberless(w);
        match groups.iter_mut().find(|(s, _)| *s == shape) {
            Some((_, merged)) => {
                for (m, o) in merged.iter_mut().zip(runs(w)) {
                    if *m != o && is_number(m) && is_number(o) {
                        *m = "n";
                    }
                }
            }
            None => groups.push((shape, runs(w))),
        }
    }
    groups
        .iter()
        .map(|(_, merged)| merged.concat())
        .collect::<Vec<_>>()
        .join(" / ")
}

/// What kind of thing an observation says: numbers dropped, signs with them, except that a
/// fraction `a/b` reads as all, none or some. "12/12 sets" on one device and "6/6" on another
/// observed the same, as did "interval -0.00..0.00" and "interval 0.00..0.00".
pub(crate) fn observation_kind(detail: &str) -> String {
    let parts = runs(detail);
    let mut out = String::new();
    let mut i = 0;
    while i < parts.len() {
        if i + 2 < parts.len()
            && is_number(parts[i])
            && parts[i + 1] == "/"
            && is_number(parts[i + 2])
        {
            let (a, b) = (parts[i].parse::<u64>(), parts[i + 2].parse::<u64>());
            out.push_str(match (a, b) {
                (Ok(0), _) => "none",
                (Ok(a), Ok(b)) if a == b => "all",
                _ => "some",
            });
            i += 3;
        } else if is_number(parts[i]) {
            out.push('#');
            i += 1;
        } else {
            let signed = parts.get(i + 1).is_some_and(|next| is_number(next));
            out.push_str(if signed {
                without_sign(parts[i])
            } else {
                parts[i]
            });
            i += 1;
        }
    }
    out
}

/// The text before a number without the number's minus sign: "interval -" becomes "interval ",
/// but the hyphen of "SG-32" stays.
fn without_sign(before: &str) -> &str {
    match before.strip_suffix('-') {
        Some(rest) if !rest.ends_with(|c: char| c.is_alphanumeric() || c == ')') => rest,
        _ => before,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wordings_merge_on_numbers() {
        let a = "efficiency falls as 8/k: F(8) matches the SIMT model";
        let b = "efficiency falls as 32/k: F(32) matches the SIMT model";
        assert_eq!(numberless(a), numberless(b));
        assert_eq!(
            merge_wordings([a, b].into_iter()),
            "efficiency falls as n/k: F(n) matches the SIMT model"
        );
        assert_eq!(merge_wordings([a, a].into_iter()), a);
        // Different words under one key: both wordings stay, nothing becomes `n`.
        let c = "the subgroup width inferred from timing is 8";
        assert_eq!(
            merge_wordings([a, c, b].into_iter()),
            format!("efficiency falls as n/k: F(n) matches the SIMT model / {c}")
        );
        assert_eq!(merge_wordings(std::iter::empty()), "");
    }

    #[test]
    fn observations_compare_by_kind() {
        let kind = observation_kind;
        assert_eq!(kind("yes (12/12 sets)"), kind("yes (6/6 sets)"));
        assert_ne!(
            kind("held in 12/16 subgroups"),
            kind("held in 16/16 subgroups")
        );
        assert_ne!(kind("0/4 lanes"), kind("2/4 lanes"));
        assert_eq!(
            kind("linear (sid = lid % 4)"),
            kind("linear (sid = lid % 8)")
        );
        assert_ne!(kind("linear"), kind("not linear"));
        // A tiny negative median rounds to -0.00 on one run and 0.00 on the next.
        assert_eq!(
            kind("overlap 0.00 (interval -0.00..0.00; quartiles -0.01..-0.00, min -0.02)"),
            kind("overlap 0.00 (interval 0.00..0.00; quartiles 0.00..0.00, min 0.00)")
        );
        assert_ne!(kind("SG-32"), kind("SG 32"));
        assert_ne!(kind("T(k)-1"), kind("T(k) 1"));
    }
}
