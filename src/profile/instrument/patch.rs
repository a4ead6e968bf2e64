//! Index patching: counter pointers are written with index 0 while the walk numbers the sites,
//! and pointed at their words once every site, and so the layout, is known. A pointer into the
//! counters is patched in its word's literal (it adds the stripe base); one into the private
//! counts in its `AccessIndex`.

use naga::{Expression, Function, Handle, Literal, Module};

use super::layout::{CounterLayout, Word};
use super::walk::Patched;

/// One private slot per counter a loop counts into, in order of first use.
pub(super) fn private_slots(patches: &[(Option<Handle<Function>>, Patched)]) -> Vec<Word> {
    let mut slots: Vec<Word> = Vec::new();
    for &(_, word) in patches.iter().flat_map(|(_, p)| &p.local) {
        if !slots.contains(&word) {
            slots.push(word);
        }
    }
    slots
}

/// Points every patched `AccessIndex` or word literal at its word: of the counters by `layout`
/// (the stripe stride too), of the private counts by `slots`. `None` is the entry point (the
/// module's only one).
pub(super) fn apply(
    module: &mut Module,
    patches: Vec<(Option<Handle<Function>>, Patched)>,
    layout: &CounterLayout,
    slots: &[Word],
) {
    let local_index = |word: Word| {
        slots
            .iter()
            .position(|&slot| slot == word)
            .expect("every private count has a slot") as u32
    };
    for (function, patched) in patches {
        let function = match function {
            None => &mut module.entry_points[0].function,
            Some(h) => &mut module.functions[h],
        };
        let indices = patched
            .counters
            .into_iter()
            .map(|(expr, word)| (expr, layout.word(word)))
            .chain(
                patched
                    .local
                    .into_iter()
                    .map(|(expr, word)| (expr, local_index(word))),
            );
        for (expr, at) in indices {
            match *function.expressions.get_mut(expr) {
                Expression::AccessIndex { ref mut index, .. } => *index = at,
                Expression::Literal(Literal::U32(ref mut index)) => *index = at,
                ref other => unreachable!("a patched {other:?}"),
            }
        }
    }
}
