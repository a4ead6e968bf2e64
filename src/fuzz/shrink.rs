//! Shrinking: greedy delta debugging over the program tree. Each step tries the one-edit
//! variants of the program, largest cuts first, and keeps the first that still fails; it stops
//! when no variant fails or the attempt budget is spent.

use crate::model::reconvergence::{Program, Stmt};

/// Shrinks `program` while `fails` holds, trying at most `attempts` variants. Returns the
/// smallest failing program found and how many variants were tried.
pub fn shrink(
    program: &Program,
    attempts: usize,
    mut fails: impl FnMut(&Program) -> bool,
) -> (Program, usize) {
    let mut best = program.clone();
    let mut tried = 0;
    'outer: while tried < attempts {
        for candidate in variants(&best) {
            if tried >= attempts {
                break 'outer;
            }
            tried += 1;
            if fails(&candidate) {
                best = candidate;
                continue 'outer;
            }
        }
        break;
    }
    (best, tried)
}

/// Every program one edit away from `program`: in `main`, then in each function.
pub fn variants(program: &Program) -> Vec<Program> {
    let mut out: Vec<Program> = block_variants(&program.main)
        .into_iter()
        .map(|main| Program {
            main,
            ..program.clone()
        })
        .collect();
    for (f, body) in program.functions.iter().enumerate() {
        for body in block_variants(body) {
            let mut p = program.clone();
            p.functions[f] = body;
            out.push(p);
        }
    }
    out
}

/// One-edit variants of a block: drop a statement; put a construct's inner block in its
/// place (which keeps `break`/`continue` inside the same loop, since only `if`, `switch` and
/// elect blocks are lifted, never a loop's body with its own exits); drop a switch case; or
/// edit inside a nested block.
fn block_variants(block: &[Stmt]) -> Vec<Vec<Stmt>> {
    let mut out = Vec::new();
    for i in 0..block.len() {
        let mut v = block.to_vec();
        v.remove(i);
        out.push(v);
    }
    for (i, s) in block.iter().enumerate() {
        for inner in liftable(s) {
            let mut v = block[..i].to_vec();
            v.extend(inner.iter().cloned());
            v.extend(block[i + 1..].iter().cloned());
            out.push(v);
        }
    }
    for (i, s) in block.iter().enumerate() {
        for replacement in stmt_variants(s) {
            let mut v = block.to_vec();
            v[i] = replacement;
            out.push(v);
        }
    }
    out
}

fn liftable(s: &Stmt) -> Vec<&Vec<Stmt>> {
    match s {
        Stmt::If {
            then, otherwise, ..
        } => vec![then, otherwise],
        Stmt::Elect { body } | Stmt::ElectLoop { body } => vec![body],
        Stmt::Switch { cases, default, .. } => {
            cases.iter().map(|(_, b)| b).chain([default]).collect()
        }
        _ => Vec::new(),
    }
}

/// `s` with one edit inside it.
fn stmt_variants(s: &Stmt) -> Vec<Stmt> {
    match s {
        Stmt::If {
            cond,
            then,
            otherwise,
        } => {
            let mut out: Vec<Stmt> = block_variants(then)
                .into_iter()
                .map(|then| Stmt::If {
                    cond: *cond,
                    then,
                    otherwise: otherwise.clone(),
                })
                .collect();
            out.extend(
                block_variants(otherwise)
                    .into_iter()
                    .map(|otherwise| Stmt::If {
                        cond: *cond,
                        then: then.clone(),
                        otherwise,
                    }),
            );
            out
        }
        Stmt::For { bound, body } => block_variants(body)
            .into_iter()
            .map(|body| Stmt::For {
                bound: *bound,
                body,
            })
            .collect(),
        Stmt::ElectLoop { body } => block_variants(body)
            .into_iter()
            .map(|body| Stmt::ElectLoop { body })
            .collect(),
        Stmt::Elect { body } => block_variants(body)
            .into_iter()
            .map(|body| Stmt::Elect { body })
            .collect(),
        Stmt::Switch {
            selector,
            cases,
            default,
        } => {
            let mut out = Vec::new();
            for c in 0..cases.len() {
                let mut fewer = cases.clone();
                fewer.remove(c);
                out.push(Stmt::Switch {
                    selector: *selector,
                    cases: fewer,
                    default: default.clone(),
                });
            }
            for (c, (values, body)) in cases.iter().enumerate() {
                for body in block_variants(body) {
                    let mut edited = cases.clone();
                    edited[c] = (values.clone(), body);
                    out.push(Stmt::Switch {
                        selector: *selector,
                        cases: edited,
                        default: default.clone(),
                    });
                }
            }
            out.extend(
                block_variants(default)
                    .into_iter()
                    .map(|default| Stmt::Switch {
                        selector: *selector,
                        cases: cases.clone(),
                        default,
                    }),
            );
            out
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::reconvergence::Cond;

    #[test]
    fn shrinking_keeps_only_what_the_failure_needs() {
        // "Fails" while a ballot numbered 7 remains: everything else should go.
        let program = Program {
            main: vec![
                Stmt::Ballot(1),
                Stmt::If {
                    cond: Cond::LaneMask(0),
                    then: vec![
                        Stmt::Ballot(2),
                        Stmt::For {
                            bound: crate::model::reconvergence::Bound::Uniform(2),
                            body: vec![Stmt::Ballot(7), Stmt::Break],
                        },
                    ],
                    otherwise: vec![Stmt::Ballot(3)],
                },
                Stmt::Ballot(4),
            ],
            functions: vec![],
            lane_masks: vec![0b1010],
            id_masks: vec![],
        };
        let has_7 = |p: &Program| format!("{p:?}").contains("Ballot(7)");
        let (small, tried) = shrink(&program, 1000, has_7);
        assert!(tried < 1000);
        assert_eq!(
            small.main,
            vec![Stmt::For {
                bound: crate::model::reconvergence::Bound::Uniform(2),
                body: vec![Stmt::Ballot(7)],
            }]
        );
    }
}
