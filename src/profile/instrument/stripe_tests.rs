//! The striped counters: the kernel counts into the copy its workgroup hashes to, and the host
//! folds the copies back into one (64-bit sums with their carries, cap-hit sums, header maxima).

use super::*;
use crate::shaders::{check_wgsl, prepare_for_naga};

/// Two blocks' worth of counters, one branch, two loops: 18 words a copy.
const LAYOUT: CounterLayout = CounterLayout {
    blocks: 2,
    branches: 1,
    loops: 2,
};

/// A zeroed buffer of `layout`'s stripes, and where word `word` of stripe `stripe` lives.
fn buffer(layout: &CounterLayout) -> (Vec<u32>, impl Fn(u32, usize) -> usize) {
    let stride = layout.stripe_stride() as usize;
    let at = move |stripe: u32, word: usize| stripe as usize * stride + word;
    (vec![0; layout.buffer_words() as usize], at)
}

#[test]
fn each_stripe_starts_on_a_line_of_its_own() {
    assert!(STRIPES.is_power_of_two());
    assert_eq!(LAYOUT.words(), 19);
    assert_eq!(LAYOUT.stripe_stride(), STRIPE_ALIGN_WORDS);
    assert_eq!(LAYOUT.buffer_words(), STRIPES * STRIPE_ALIGN_WORDS);
    // 4 header words + 4 × 6 blocks + 3 loops + the exits word = 32 words: exactly one line;
    // one more needs two.
    let full = CounterLayout {
        blocks: 6,
        branches: 0,
        loops: 3,
    };
    assert_eq!(full.words(), 32);
    assert_eq!(full.stripe_stride(), 32);
    let over = CounterLayout { loops: 4, ..full };
    assert_eq!(over.stripe_stride(), 64);
}

#[test]
fn fold_sums_the_stripes_64_bit_counters_with_their_carries() {
    let (mut words, at) = buffer(&LAYOUT);
    // Block 1's executions: 2^32 - 1 in stripe 0 and 1 in stripe 5 carry into the high word,
    // which no single stripe's pair did.
    words[at(0, LAYOUT.block_executions(1))] = u32::MAX;
    words[at(5, LAYOUT.block_executions(1))] = 1;
    // Block 0's active lanes: (2 << 32) + 2^32 - 1 in the last stripe, 3 in stripe 7.
    words[at(STRIPES - 1, LAYOUT.block_active_lanes(0))] = u32::MAX;
    words[at(STRIPES - 1, LAYOUT.block_active_lanes(0) + 1)] = 2;
    words[at(7, LAYOUT.block_active_lanes(0))] = 3;
    // The branch's evaluations, 1 in every stripe; its divergent ones in one stripe's high word.
    for stripe in 0..STRIPES {
        words[at(stripe, LAYOUT.branch_evaluations(0))] = 1;
    }
    words[at(9, LAYOUT.branch_divergent(0) + 1)] = 1;
    // Loop 1's cap hits, a u32 count: summed.
    words[at(0, LAYOUT.loop_cap_hits(1))] = 4;
    words[at(STRIPES - 1, LAYOUT.loop_cap_hits(1))] = 5;

    let one = LAYOUT.fold(&words).unwrap();
    assert_eq!(one.len(), LAYOUT.words() as usize);
    let c = LAYOUT.read(&one).unwrap();
    assert_eq!(c.blocks[1].executions, 1 << 32);
    assert_eq!(c.blocks[1].active_lanes, 0);
    assert_eq!(c.blocks[0].executions, 0);
    assert_eq!(c.blocks[0].active_lanes, (3 << 32) + 2);
    assert_eq!(
        c.branches[0],
        BranchCounts {
            evaluations: u64::from(STRIPES),
            divergent: 1 << 32,
        }
    );
    assert_eq!(c.loop_cap_hits, [0, 9]);
    assert_eq!(
        (c.cap_hit, c.max_active_lanes, c.subgroup_width),
        (None, None, None)
    );
    assert!(!c.driver_loop_limit);
}

#[test]
fn fold_takes_the_largest_of_the_stripes_header_words() {
    let (mut words, at) = buffer(&LAYOUT);
    // Loop 1 (id 2) crossed the cap in stripe 3, loop 0 (id 1) in stripe 40: the highest wins.
    words[at(3, CAP_HIT_WORD as usize)] = 2;
    words[at(40, CAP_HIT_WORD as usize)] = 1;
    // A partial subgroup's 5 lanes in stripe 1, full ones' 32 in stripe 2: not 37.
    words[at(1, MAX_LANES_WORD as usize)] = 5;
    words[at(2, MAX_LANES_WORD as usize)] = 32;
    words[at(2, SUBGROUP_WIDTH_WORD as usize)] = 32;
    words[at(STRIPES - 1, SUBGROUP_WIDTH_WORD as usize)] = 32;
    // One stripe's invocation found llvmpipe's loop limit run out.
    words[at(17, LOOP_LIMIT_WORD as usize)] = 1;
    let c = LAYOUT.read(&LAYOUT.fold(&words).unwrap()).unwrap();
    assert!(c.driver_loop_limit);
    assert_eq!(c.cap_hit, Some(1));
    assert_eq!(c.max_active_lanes, Some(32));
    assert_eq!(c.subgroup_width, Some(32));
}

#[test]
fn fold_ignores_the_padding_and_rejects_a_buffer_of_another_size() {
    let (mut words, at) = buffer(&LAYOUT);
    // Words past a copy's 19, up to the stride, belong to no counter.
    for stripe in 0..STRIPES {
        for pad in LAYOUT.words() as usize..LAYOUT.stripe_stride() as usize {
            words[at(stripe, pad)] = 7;
        }
    }
    assert_eq!(LAYOUT.fold(&words).unwrap(), vec![0; 19]);
    // One copy's words (the unstriped layout) are not the buffer.
    let err = LAYOUT.fold(&words[..19]).unwrap_err().to_string();
    assert!(err.contains("19 words read back"), "{err}");
    assert!(LAYOUT.fold(&words[1..]).is_err());
}

/// A branch in the entry and a loop that calls a helper: counts straight to the counters and
/// flushed from the private ones.
const KERNEL: &str = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

fn helper(x: u32) -> u32 {
    return x + 1u;
}

@compute @workgroup_size(4, 2)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    var acc = 0u;
    if gid.x > 2u {
        acc = 1u;
    }
    for (var k = 0u; k < gid.x; k++) {
        acc += helper(k);
    }
    out[gid.x + gid.y * 8u] = acc;
}
";

#[test]
fn every_counter_is_addressed_in_the_invocations_stripe() {
    for subgroups in [true, false] {
        let prepared = prepare_for_naga(KERNEL);
        let module = check_wgsl("stripes.wgsl", &prepared).expect("test kernel");
        let opts = InstrumentOptions {
            subgroups,
            ..InstrumentOptions::default()
        };
        let out = instrument(&module, &prepared, "main", &opts).expect("instrument");
        let wgsl = &out.wgsl;
        check_wgsl("instrumented.wgsl", wgsl).unwrap_or_else(|e| panic!("{e}\n{wgsl}"));
        assert_eq!(out.counter_words, out.layout.words());
        assert_eq!(out.buffer_words, STRIPES * out.layout.stripe_stride());
        // The stripe: the workgroup's hash masked to a copy, times the patched stride.
        let stripe = format!("& {}u) * {}u);", STRIPES - 1, out.layout.stripe_stride());
        assert!(wgsl.contains("divlab_stripe = ("), "{wgsl}");
        assert!(wgsl.contains(&stripe), "{stripe} in\n{wgsl}");
        assert!(wgsl.contains("@builtin(workgroup_id)"), "{wgsl}");
        // Every counter pointer adds the stripe base to its word: none is a constant index.
        let accesses: Vec<&str> = wgsl.split("&divlab_counters[").skip(1).collect();
        assert!(accesses.len() >= 4, "{wgsl}");
        for access in accesses {
            let index = &access[..access.find(']').expect("an index")];
            assert!(
                index.starts_with("(_e") && index.contains(" + "),
                "{index} in\n{wgsl}"
            );
        }
    }
}
