//! The counters buffer as the host decodes it: where each counter lives, how the buffer's
//! [`STRIPES`] copies of it fold into one, the decoded counts, and the lanes buffer of
//! `--lanes`. The kernel side writes these words through [`Word`]s, resolved to indices once
//! every site is numbered (`patch.rs`).

use super::super::error::Error as ProfileError;
use crate::Result;

/// Word 0 of the counters buffer: the index + 1 of the highest-indexed loop in which an
/// invocation's trips crossed the loop cap (`atomicMax`), 0 when none did.
pub const CAP_HIT_WORD: u32 = 0;
/// Words before the first block record.
pub const HEADER_WORDS: u32 = 4;
/// The largest active-lane count any subgroup showed at the entry point's entry: the subgroup
/// size this pipeline runs with (0 without subgroups).
pub const MAX_LANES_WORD: u32 = 1;
/// The `subgroup_size` builtin the kernel saw at its entry (`atomicMax`): the width of the
/// pipeline's subgroups, however few of their lanes a workgroup fills (0 without subgroups).
pub const SUBGROUP_WIDTH_WORD: u32 = 2;
/// 1 where an invocation found, as it left the kernel, that the driver had ended its loops
/// early on its own (`atomicMax`; [`InstrumentOptions::probe_loop_limit`]): llvmpipe's silent
/// limit on the loop passes of a subgroup ran out before the loop cap fired.
///
/// [`InstrumentOptions::probe_loop_limit`]: super::InstrumentOptions::probe_loop_limit
pub const LOOP_LIMIT_WORD: u32 = 3;
/// Words per block: executions (low, high), active lanes (low, high).
pub const BLOCK_WORDS: u32 = 4;
/// Words per branch: evaluations (low, high), divergent evaluations (low, high).
pub const BRANCH_WORDS: u32 = 4;
/// Words per loop: invocations that hit the cap (one word).
pub const LOOP_WORDS: u32 = 1;
/// Copies of the counters in the buffer: a subgroup counts into the copy its workgroup hashes
/// to, so the dispatch's subgroups spread their atomics over this many addresses per counter
/// instead of contending for one. A power of two (the kernel masks the hash with it).
pub const STRIPES: u32 = 64;
/// Each copy starts on a line of its own: [`CounterLayout::stripe_stride`] is a multiple of
/// this many words (128 bytes, the L2 line of NVIDIA GPUs and a multiple of most others').
pub const STRIPE_ALIGN_WORDS: u32 = 32;

/// Words per record of the lanes buffer: the ballot (4), the workgroup id (3), and the local
/// invocation index of the lowest active lane (1). Word 0 of the buffer counts executions.
pub const LANE_RECORD_WORDS: u32 = 8;
/// Words per record in a 2-D or 3-D workgroup, where the ballot's lane numbers cannot be read
/// as local indices: the 1-D record, then which invocations were the active lanes (4: bit i for
/// local index `first_local_index + i`) and what the kernel checked about them (1:
/// [`LANES_COMPLETE`], [`LANES_CONTIGUOUS`]).
pub const LANE_RECORD_WORDS_MULTI: u32 = 13;
/// Flag of a 2-D/3-D record: every active lane's local index is within 128 of the first, so the
/// invocations mask names them all.
pub const LANES_COMPLETE: u32 = 1;
/// Flag of a 2-D/3-D record: checked in every active lane (by a shuffle of its local index from
/// the lane it should be), lane `lowest + i` of the ballot ran local index
/// `first_local_index + i`.
pub const LANES_CONTIGUOUS: u32 = 2;
/// Records the lanes buffer holds; later executions are counted but not recorded.
pub const LANE_RECORDS: u32 = 1 << 16;

/// One subgroup execution of the block `--lanes` names, as recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneRecordRaw {
    /// The active lanes.
    pub ballot: [u32; 4],
    /// `workgroup_id`.
    pub workgroup: [u32; 3],
    /// `local_invocation_index` of the smallest-indexed active lane.
    pub first_local_index: u32,
    /// 2-D and 3-D workgroups: bit i set when local index `first_local_index + i` was an
    /// active lane, and the [`LANES_COMPLETE`] / [`LANES_CONTIGUOUS`] flags.
    pub invocations: Option<([u32; 4], u32)>,
}

/// Decodes the lanes buffer of records of `record_words` words ([`LANE_RECORD_WORDS`], or
/// [`LANE_RECORD_WORDS_MULTI`] in a 2-D or 3-D workgroup): every execution's count, and the
/// records kept.
pub fn read_lanes(words: &[u32], record_words: u32) -> (u64, Vec<LaneRecordRaw>) {
    let executions = u64::from(words.first().copied().unwrap_or(0));
    let kept = executions.min(u64::from(LANE_RECORDS)) as usize;
    let records = words
        .get(1..)
        .unwrap_or_default()
        .chunks_exact(record_words as usize)
        .take(kept)
        .map(|r| LaneRecordRaw {
            ballot: [r[0], r[1], r[2], r[3]],
            workgroup: [r[4], r[5], r[6]],
            first_local_index: r[7],
            invocations: (r.len() >= LANE_RECORD_WORDS_MULTI as usize)
                .then(|| ([r[8], r[9], r[10], r[11]], r[12])),
        })
        .collect();
    (executions, records)
}

/// The counters buffer's layout, all in `u32` words:
///
/// | words | what |
/// |---|---|
/// | `0` | [`CAP_HIT_WORD`] |
/// | `1` | [`MAX_LANES_WORD`] |
/// | `2` | [`SUBGROUP_WIDTH_WORD`] |
/// | `3` | [`LOOP_LIMIT_WORD`] |
/// | `4 + 4b ..= 4 + 4b + 3` | block `b`: executions lo, hi; active lanes lo, hi |
/// | `4 + 4B + 4r ..` | branch `r`: evaluations lo, hi; divergent lo, hi |
/// | `4 + 4B + 4R + l` | loop `l`: cap hits |
/// | `4 + 4B + 4R + L` | [`CounterLayout::exits`]: lanes that reached the exit flush |
///
/// (`B` blocks, `R` branches, `L` loops.) Each 64-bit counter is `lo + (hi << 32)`. The buffer holds
/// [`STRIPES`] copies of these words, copy `s` at word `s * stripe_stride()`
/// ([`Self::fold`] sums them, or takes their max for the header words).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CounterLayout {
    /// Number of block records.
    pub blocks: u32,
    /// Number of branch records.
    pub branches: u32,
    /// Number of loop records.
    pub loops: u32,
}

impl CounterLayout {
    /// The word of a block's executions counter (low word; the high word follows).
    pub fn block_executions(&self, block: usize) -> usize {
        (HEADER_WORDS + BLOCK_WORDS * block as u32) as usize
    }

    /// The word of a block's active-lanes counter (low word; the high word follows).
    pub fn block_active_lanes(&self, block: usize) -> usize {
        self.block_executions(block) + 2
    }

    /// The word of a branch's evaluations counter (low word; the high word follows).
    pub fn branch_evaluations(&self, branch: usize) -> usize {
        (HEADER_WORDS + BLOCK_WORDS * self.blocks + BRANCH_WORDS * branch as u32) as usize
    }

    /// The word of a branch's divergent-evaluations counter (low word; the high word follows).
    pub fn branch_divergent(&self, branch: usize) -> usize {
        self.branch_evaluations(branch) + 2
    }

    /// The word of a loop's cap-hit counter.
    pub fn loop_cap_hits(&self, lp: usize) -> usize {
        (HEADER_WORDS
            + BLOCK_WORDS * self.blocks
            + BRANCH_WORDS * self.branches
            + LOOP_WORDS * lp as u32) as usize
    }

    /// The word that counts the lanes that reached the exit flush, modulo 2^32 (with
    /// subgroups, where the kernel keeps private counts; 0 otherwise): with the lanes that
    /// entered, it tells whether every invocation's private counts were added.
    pub fn exits(&self) -> usize {
        self.loop_cap_hits(self.loops as usize)
    }

    /// The buffer's size in words.
    pub fn words(&self) -> u32 {
        self.exits() as u32 + 1
    }

    /// Words from one stripe's copy of the counters to the next: [`Self::words`] rounded up to
    /// [`STRIPE_ALIGN_WORDS`].
    pub fn stripe_stride(&self) -> u32 {
        self.words().div_ceil(STRIPE_ALIGN_WORDS) * STRIPE_ALIGN_WORDS
    }

    /// The size of the buffer the kernel counts into, in words: [`STRIPES`] copies.
    pub fn buffer_words(&self) -> u32 {
        STRIPES * self.stripe_stride()
    }

    /// Folds a buffer of [`Self::buffer_words`] words into one copy of [`Self::words`] words,
    /// as if every subgroup had counted into one: the 64-bit counters summed (each copy's pair
    /// joined first, so a carry in any copy is kept), the cap-hit counts summed, and the header
    /// words (each an `atomicMax`) the largest of the copies.
    pub fn fold(&self, words: &[u32]) -> Result<Vec<u32>> {
        if words.len() != self.buffer_words() as usize {
            return Err(ProfileError::Internal {
                entry: "?".to_owned(),
                what: "the counters buffer does not match its layout".to_owned(),
                detail: format!(
                    "{} words read back, {} laid out ({STRIPES} stripes of {})",
                    words.len(),
                    self.buffer_words(),
                    self.stripe_stride()
                ),
            }
            .into());
        }
        let copies: Vec<&[u32]> = words
            .chunks_exact(self.stripe_stride() as usize)
            .map(|copy| &copy[..self.words() as usize])
            .collect();
        let (header, loops) = (HEADER_WORDS as usize, self.loop_cap_hits(0));
        let mut one = vec![0; self.words() as usize];
        for (at, word) in one.iter_mut().enumerate() {
            let each = copies.iter().map(|copy| copy[at]);
            *word = if at < header {
                each.max().unwrap_or(0)
            } else {
                each.fold(0, u32::wrapping_add)
            };
        }
        for low in (header..loops).step_by(2) {
            let sum = copies.iter().fold(0u64, |sum, copy| {
                sum.wrapping_add(u64::from(copy[low]) | (u64::from(copy[low + 1]) << 32))
            });
            (one[low], one[low + 1]) = (sum as u32, (sum >> 32) as u32);
        }
        Ok(one)
    }

    pub(super) fn word(&self, word: Word) -> u32 {
        let index = match word {
            Word::StripeStride => return self.stripe_stride(),
            Word::CapHit => CAP_HIT_WORD as usize,
            Word::MaxLanes => MAX_LANES_WORD as usize,
            Word::SubgroupWidth => SUBGROUP_WIDTH_WORD as usize,
            Word::LoopLimit => LOOP_LIMIT_WORD as usize,
            Word::Block(b, offset) => self.block_executions(b) + offset as usize,
            Word::Branch(r, offset) => self.branch_evaluations(r) + offset as usize,
            Word::Loop(l) => self.loop_cap_hits(l),
            Word::Exits => self.exits(),
        };
        index as u32
    }

    /// Decodes a counters buffer of exactly [`Self::words`] words.
    pub fn read(&self, words: &[u32]) -> Result<Counters> {
        if words.len() != self.words() as usize {
            return Err(ProfileError::Internal {
                entry: "?".to_owned(),
                what: "the counters buffer does not match its layout".to_owned(),
                detail: format!("{} words read back, {} laid out", words.len(), self.words()),
            }
            .into());
        }
        let wide = |at: usize| u64::from(words[at]) | (u64::from(words[at + 1]) << 32);
        Ok(Counters {
            cap_hit: words[CAP_HIT_WORD as usize]
                .checked_sub(1)
                .map(|l| l as usize),
            max_active_lanes: Some(words[MAX_LANES_WORD as usize]).filter(|&n| n > 0),
            subgroup_width: Some(words[SUBGROUP_WIDTH_WORD as usize]).filter(|&n| n > 0),
            driver_loop_limit: words[LOOP_LIMIT_WORD as usize] > 0,
            blocks: (0..self.blocks as usize)
                .map(|b| BlockCounts {
                    executions: wide(self.block_executions(b)),
                    active_lanes: wide(self.block_active_lanes(b)),
                })
                .collect(),
            branches: (0..self.branches as usize)
                .map(|r| BranchCounts {
                    evaluations: wide(self.branch_evaluations(r)),
                    divergent: wide(self.branch_divergent(r)),
                })
                .collect(),
            loop_cap_hits: (0..self.loops as usize)
                .map(|l| words[self.loop_cap_hits(l)])
                .collect(),
            exits: words[self.exits()],
        })
    }
}

/// The decoded counters of one run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// The largest ballot any subgroup showed at the kernel's entry (see [`MAX_LANES_WORD`]);
    /// `None` without subgroups.
    pub max_active_lanes: Option<u32>,
    /// The width of the pipeline's subgroups, the `subgroup_size` builtin (see
    /// [`SUBGROUP_WIDTH_WORD`]): above `max_active_lanes` when a workgroup has fewer
    /// invocations than a subgroup has lanes. `None` without subgroups.
    pub subgroup_width: Option<u32>,
    /// The loop whose trip crossed the loop cap, if an invocation's did (the highest-indexed
    /// one when several invocations' did; see `loop_cap_hits` for all).
    pub cap_hit: Option<usize>,
    /// The driver ended loops of a subgroup on its own, before the cap fired (see
    /// [`LOOP_LIMIT_WORD`]): the counts are of a run cut short where nothing says.
    pub driver_loop_limit: bool,
    /// Per block, in site order.
    pub blocks: Vec<BlockCounts>,
    /// Per branch, in site order (all zero without subgroups).
    pub branches: Vec<BranchCounts>,
    /// Per loop: how many invocations' trips crossed the cap in it (each at most once: then
    /// every loop of the invocation breaks out).
    pub loop_cap_hits: Vec<u32>,
    /// The lanes that reached the exit flush, modulo 2^32, where
    /// [`super::Instrumented::exits_counted`] (0 otherwise).
    pub exits: u32,
}

/// One block's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockCounts {
    /// Subgroup executions of the block (invocations without subgroups).
    pub executions: u64,
    /// Sum over those executions of the active lanes (0 without subgroups).
    pub active_lanes: u64,
}

impl BlockCounts {
    /// Mean active lanes per execution, `None` when it never ran.
    pub fn mean_active_lanes(&self) -> Option<f64> {
        (self.executions > 0).then(|| self.active_lanes as f64 / self.executions as f64)
    }

    /// Active lanes / (executions × subgroup size), `None` when it never ran.
    pub fn efficiency(&self, subgroup_size: u32) -> Option<f64> {
        (self.executions > 0 && subgroup_size > 0)
            .then(|| self.active_lanes as f64 / (self.executions as f64 * f64::from(subgroup_size)))
    }
}

/// One branch's counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BranchCounts {
    /// Subgroup evaluations of the condition or selector.
    pub evaluations: u64,
    /// Those in which the active lanes disagreed.
    pub divergent: u64,
}

/// A counter word, resolved to an index once every site is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Word {
    /// Not a counter: the kernel's stripe base multiplies it ([`CounterLayout::stripe_stride`]).
    StripeStride,
    CapHit,
    MaxLanes,
    SubgroupWidth,
    LoopLimit,
    /// Block, offset within its record.
    Block(usize, u32),
    /// Branch, offset within its record.
    Branch(usize, u32),
    Loop(usize),
    /// [`CounterLayout::exits`].
    Exits,
}

impl Word {
    /// The high word of a 64-bit counter whose low word this is.
    pub(super) fn high(self) -> Word {
        match self {
            Word::Block(b, offset) => Word::Block(b, offset + 1),
            Word::Branch(r, offset) => Word::Branch(r, offset + 1),
            other => unreachable!("{other:?} is not a 64-bit counter"),
        }
    }
}
