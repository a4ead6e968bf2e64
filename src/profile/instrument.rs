//! The IR transformation behind `divlab profile`: counters injected into a user's compute kernel
//! on naga's IR (never on its text), so that one run reports, per block of the source, how many
//! subgroup executions it had and how many lanes were active, and per `if`/`switch` whether the
//! active lanes agreed.
//!
//! [`instrument`] takes the module naga parsed from the user's source (after
//! [`crate::shaders::prepare_for_naga`], which keeps line numbers) and returns the instrumented
//! module, its WGSL, and the sites ([`BlockSite`], [`BranchSite`], [`LoopSite`]) in counter order.
//! The host binds one `array<atomic<u32>>` of [`Instrumented::counter_words`] zeroed words at
//! `@group(counters_group) @binding(0)`, runs the kernel, reads the words back and decodes them
//! with [`Instrumented::read_counters`] (or by hand with [`CounterLayout`]).
//!
//! # What the instrumented kernel does
//!
//! With `subgroups` (the adapter supports subgroup operations), counts are made by one elected
//! lane (the lowest active one: its `subgroup_invocation_id`, kept in a private copy from the
//! entry's arguments, equals `subgroupBroadcastFirst` of it; naga 30 has no `subgroupElect`):
//! - at the entry of every block (function bodies, both sides of each `if`, each `switch` case,
//!   each loop body and `continuing`, and the statements after one that can take lanes out, a
//!   [`BlockKind::Continuation`]): 1 *execution* and the subgroup's *active lanes* (the bits of
//!   `subgroupBallot(true)`);
//! - just before every `if` and `switch`, in the enclosing block (where every lane that reaches
//!   the branch is still active), a vote on whether the lanes agree: for an `if`, divergent iff
//!   `subgroupAny(cond) && !subgroupAll(cond)`; for a `switch`, divergent iff
//!   `!subgroupAll(selector == subgroupBroadcastFirst(selector))`: 1 *evaluation*, and 1
//!   *divergent* one when they disagree;
//! - at the kernel's entry, `atomicMax` of the active lanes into [`MAX_LANES_WORD`]: the
//!   subgroup size the pipeline runs with.
//!
//! Where those counts go depends on how often they run:
//! - outside every loop (at most once per invocation): straight into the 64-bit counters;
//! - inside a loop (or a function called from one): into the invocation's private counts
//!   (`divlab_local`, each lane adds its 1 to the active lanes, the elected lane the rest), which
//!   `divlab_flush()` sums over the subgroup (`subgroupAdd`) and adds to the counters where the
//!   invocation leaves the kernel (every `return` of the entry point, and its end);
//! - a `for`/`while` loop that can only leave by its test ([`hoistable`]) counts nothing per
//!   trip: after it, each lane's trip counter gives its body's and test's counts
//!   ([`Sites::count_hoisted`]);
//! - a function whose every call sits in a counted block is not counted at its entry: its
//!   executions and lanes are those of the calling blocks, summed on the host
//!   ([`Instrumented::derived`]).
//!
//! Without `subgroups`, no subgroup builtin appears at all (an adapter without the feature
//! rejects any): every invocation counts 1 per entry into its block's *executions* (so they count
//! invocations, not subgroups) in its private counts and adds them at exit; *active lanes* and
//! branch counters stay 0.
//!
//! Either way every loop gets an iteration cap, the safety net that keeps a user kernel from
//! hanging the GPU: a function-local counter, reset just before the loop and incremented at the
//! top of its body; when it exceeds `loop_cap` the invocation records the hit (`atomicMax` of the
//! loop's index + 1 into [`CAP_HIT_WORD`], `atomicAdd` of 1 to the loop's cap-hit count) and
//! `break`s, so each invocation runs at most `loop_cap` iterations of each loop entry.
//!
//! Functions the entry point calls (directly or not) are instrumented once; their counters
//! aggregate all calls. Other entry points are dropped from the instrumented module (their
//! functions stay), so the module holds exactly the kernel being profiled.
//!
//! # Why this layout (measured on an H200, the study's switch kernel at k = 32 / 8 / 2)
//!
//! - A global atomic at every block entry, trips included: every subgroup of the dispatch
//!   contended for the same words, 42x / 74x / 96x the kernel alone. (Workgroup-memory partial
//!   sums would need a `workgroupBarrier()` every invocation reaches, which an early `return` or
//!   a loop left at different trips makes undefined behaviour.)
//! - Private counts for every block, one flush loop over all of them at exit, an election and a
//!   vote at every trip: 9.8x / 13.9x / 31x after the cheapest election.
//! - Loop counts hoisted out of the loop and callees counted from their calls: 3.1x / 7.4x /
//!   24x. The flush loop was then most of it: it read a 416-word private array by a dynamic index
//!   (local memory) for every subgroup, about 15 ms of the 1M-invocation dispatch.
//! - Counts outside loops straight to the counters, and only in-loop counts private, flushed by
//!   constant indices: 1.49x / 1.13x / 1.15x.
//!
//! # Overflow
//!
//! Every executions/lanes/evaluations/divergent counter in the buffer is 64-bit: two words, low
//! then high. The elected lane adds to the low word with `atomicAdd`, and when the returned old
//! value plus the addend wraps (`old + n < n`), it adds 1 to the high word. After the dispatch
//! completes the pair is exact (up to 2^64); [`CounterLayout::read`] joins them. The private
//! counts are 32-bit: one invocation would need over 4 billion entries into one block (a cap of
//! a million trips on each of two nested loops) to wrap one. Cap-hit counts are one word each
//! (at most one hit per invocation per loop entry).
//!
//! # The naga WGSL writer
//!
//! naga 30's WGSL writer never emits `enable subgroups;` (its `write_enable_declarations` knows
//! no such extension) and writes subgroup operations as the plain builtins (`subgroupBallot(..)`,
//! `subgroupExclusiveAdd(..)`, `subgroupAll(..)`, `subgroupBroadcastFirst(..)`), which is what
//! naga 30's front end, and so wgpu 30, accepts: the text needs no post-processing. The tests
//! round-trip it through [`crate::shaders::check_wgsl`].

use std::ops::RangeInclusive;

use naga::{
    AddressSpace, ArraySize, AtomicFunction, BinaryOperator, Block, CollectiveOperation,
    Expression, Function, GatherMode, GlobalVariable, Handle, Literal, LocalVariable, MathFunction,
    Module, ResourceBinding, Scalar, ShaderStage, Span, Statement, StorageAccess,
    SubgroupOperation, SwitchValue, Type, TypeInner, UnaryOperator,
};

use crate::{Error, Result};

/// How to instrument a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InstrumentOptions {
    /// Use subgroup operations (per-subgroup executions, active lanes, branch uniformity). Off:
    /// per-invocation executions only, and no subgroup builtin in the output.
    pub subgroups: bool,
    /// The most iterations one invocation may run of one entry into any loop; the next one
    /// records a cap hit and breaks out.
    pub loop_cap: u32,
    /// The bind group of the counters buffer (at binding 0). The user's kernel must not use
    /// `@group(counters_group) @binding(0)` itself.
    pub counters_group: u32,
    /// With subgroups: the block whose every subgroup execution records its ballot, workgroup
    /// and first active lane into the lanes buffer at `@group(counters_group) @binding(1)`
    /// (`divlab profile --lanes LINE`; the host finds the block that owns the line).
    pub lanes_block: Option<usize>,
}

impl Default for InstrumentOptions {
    fn default() -> Self {
        Self {
            subgroups: true,
            loop_cap: 1 << 20,
            counters_group: 3,
            lanes_block: None,
        }
    }
}

/// An instrumented kernel.
#[derive(Clone, Debug)]
pub struct Instrumented {
    /// The instrumented module, validated with `Capabilities::all()`.
    pub module: naga::Module,
    /// naga's WGSL for `module`, as `crate::gpu::compile_wgsl` takes it.
    pub wgsl: String,
    /// One per instrumented block, in counter order (index = block slot of the layout).
    pub blocks: Vec<BlockSite>,
    /// One per `if`/`switch`, in counter order.
    pub branches: Vec<BranchSite>,
    /// One per loop, in counter order.
    pub loops: Vec<LoopSite>,
    /// Blocks counted nowhere in the kernel: a function body whose every call site is in a
    /// counted block, paired with those blocks (one per call). Its executions and lanes are the
    /// sum of theirs; [`Self::read_counters`] adds them up.
    pub derived: Vec<(usize, Vec<usize>)>,
    /// Where each counter lives in the counters buffer.
    pub layout: CounterLayout,
    /// The size of the counters buffer in `u32` words (`layout.words()`); bind it zeroed.
    pub counter_words: u32,
    /// The options it was built with.
    pub options: InstrumentOptions,
}

impl Instrumented {
    /// Decodes the counters buffer read back after the dispatch.
    /// Decodes the counters buffer read back after the dispatch, and fills in the
    /// [`Self::derived`] blocks (callers are numbered before their callees, so a block's
    /// sources are complete when it is reached).
    pub fn read_counters(&self, words: &[u32]) -> Result<Counters> {
        let mut counters = self.layout.read(words)?;
        for (block, sources) in &self.derived {
            let sum = sources.iter().fold(BlockCounts::default(), |sum, &b| {
                let c = counters.blocks[b];
                BlockCounts {
                    executions: sum.executions + c.executions,
                    active_lanes: sum.active_lanes + c.active_lanes,
                }
            });
            counters.blocks[*block] = sum;
        }
        Ok(counters)
    }
}

/// What kind of block a [`BlockSite`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlockKind {
    /// The body of the entry point or of a function it calls.
    FunctionBody,
    /// The `accept` side of an `if`.
    IfAccept,
    /// The `else` side of an `if` (empty when the source has no `else`).
    IfReject,
    /// The body of one `switch` case (a `case a, b:` list is one site).
    SwitchCase,
    /// The body of a loop (`loop`, `for`, `while`).
    LoopBody,
    /// A loop's `continuing` block (a `for` loop's update).
    LoopContinuing,
    /// The statements after one that can take lanes out of the block (an `if` with a `return`
    /// or a `break` inside): counted anew, so the lanes that left are not counted there.
    Continuation,
}

/// An instrumented block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockSite {
    /// What block it is.
    pub kind: BlockKind,
    /// The function it is in (the entry point's name for its body).
    pub function: String,
    /// 1-based source line the block is reported at: for a function body the line of its `fn`;
    /// otherwise the line of the block's first statement, or of its parent statement (the
    /// `if`, `switch` or loop) when the block has no statement with a source location.
    pub line: u32,
    /// The source lines the block's own statements cover, nested blocks excluded (a nested
    /// `if`/`switch`/loop contributes its first line). `line..=line` when the block is empty.
    pub lines: RangeInclusive<u32>,
    /// Whether the block has no statement with a source location (an implicit `else`, an empty
    /// case, the empty side of a `for` loop's exit test).
    pub empty: bool,
    /// The line of the statement that opens the block: its `if`, `switch` or loop (its `fn`
    /// for a function body).
    pub parent_line: u32,
    /// The site that opens the block.
    pub opener: Opener,
}

/// What opens a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Opener {
    /// A function body.
    Function,
    /// An arm of branch site `index` (an `if` side, a `switch` case).
    Branch(usize),
    /// The body or `continuing` of loop site `index`.
    Loop(usize),
}

/// What kind of branch a [`BranchSite`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BranchKind {
    /// An `if` (also the exit test naga puts at the top of a `for` or `while` body).
    If,
    /// A `switch`.
    Switch,
}

/// An instrumented `if` or `switch`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BranchSite {
    /// `if` or `switch`.
    pub kind: BranchKind,
    /// 1-based line of the statement (of the loop header for a loop's exit test).
    pub line: u32,
    /// The function it is in.
    pub function: String,
}

/// An instrumented loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopSite {
    /// The branch site of its `for`/`while` condition, `if c {} else { break; }`, whose
    /// divergence is the loop's: the trips on which the subgroup's lanes disagreed about going
    /// on. `None` for a `loop` without a leading test.
    pub exit_test: Option<usize>,
    /// Every branch site of the condition: the exit test and the `if`s naga makes of a
    /// short-circuit `&&`/`||` in it.
    pub test_branches: std::ops::Range<usize>,
    /// 1-based line of the loop statement.
    pub line: u32,
    /// The function it is in.
    pub function: String,
}

/// Word 0 of the counters buffer: the index + 1 of the highest-indexed loop that hit its cap
/// (`atomicMax`), 0 when none did.
pub const CAP_HIT_WORD: u32 = 0;
/// Words before the first block record.
pub const HEADER_WORDS: u32 = 2;
/// The largest active-lane count any subgroup showed at the entry point's entry: the subgroup
/// size this pipeline runs with (0 without subgroups).
pub const MAX_LANES_WORD: u32 = 1;
/// Words per block: executions (low, high), active lanes (low, high).
pub const BLOCK_WORDS: u32 = 4;
/// Words per branch: evaluations (low, high), divergent evaluations (low, high).
pub const BRANCH_WORDS: u32 = 4;
/// Words per loop: invocations that hit the cap (one word).
pub const LOOP_WORDS: u32 = 1;

/// Words per record of the lanes buffer: the ballot (4), the workgroup id (3), and the local
/// invocation index of the lowest active lane (1). Word 0 of the buffer counts executions.
pub const LANE_RECORD_WORDS: u32 = 8;
/// Records the lanes buffer holds; later executions are counted but not recorded.
pub const LANE_RECORDS: u32 = 1 << 16;

/// One subgroup execution of the block `--lanes` names, as recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneRecordRaw {
    /// The active lanes.
    pub ballot: [u32; 4],
    /// `workgroup_id`.
    pub workgroup: [u32; 3],
    /// `local_invocation_index` of the lowest active lane.
    pub first_local_index: u32,
}

/// Decodes the lanes buffer: every execution's count, and the records kept.
pub fn read_lanes(words: &[u32]) -> (u64, Vec<LaneRecordRaw>) {
    let executions = u64::from(words.first().copied().unwrap_or(0));
    let kept = executions.min(u64::from(LANE_RECORDS)) as usize;
    let records = words
        .get(1..)
        .unwrap_or_default()
        .chunks_exact(LANE_RECORD_WORDS as usize)
        .take(kept)
        .map(|r| LaneRecordRaw {
            ballot: [r[0], r[1], r[2], r[3]],
            workgroup: [r[4], r[5], r[6]],
            first_local_index: r[7],
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
/// | `2 + 4b ..= 2 + 4b + 3` | block `b`: executions lo, hi; active lanes lo, hi |
/// | `2 + 4B + 4r ..` | branch `r`: evaluations lo, hi; divergent lo, hi |
/// | `2 + 4B + 4R + l` | loop `l`: cap hits |
///
/// (`B` blocks, `R` branches.) Each 64-bit counter is `lo + (hi << 32)`.
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

    /// The buffer's size in words.
    pub fn words(&self) -> u32 {
        HEADER_WORDS
            + BLOCK_WORDS * self.blocks
            + BRANCH_WORDS * self.branches
            + LOOP_WORDS * self.loops
    }

    fn word(&self, word: Word) -> u32 {
        let index = match word {
            Word::CapHit => CAP_HIT_WORD as usize,
            Word::MaxLanes => MAX_LANES_WORD as usize,
            Word::Block(b, offset) => self.block_executions(b) + offset as usize,
            Word::Branch(r, offset) => self.branch_evaluations(r) + offset as usize,
            Word::Loop(l) => self.loop_cap_hits(l),
        };
        index as u32
    }

    /// Decodes a counters buffer of exactly [`Self::words`] words.
    pub fn read(&self, words: &[u32]) -> Result<Counters> {
        if words.len() != self.words() as usize {
            return Err(Error::InvalidSettings(format!(
                "the profile counters buffer has {} words; its layout has {}",
                words.len(),
                self.words()
            )));
        }
        let wide = |at: usize| u64::from(words[at]) | (u64::from(words[at + 1]) << 32);
        Ok(Counters {
            cap_hit: words[CAP_HIT_WORD as usize]
                .checked_sub(1)
                .map(|l| l as usize),
            max_active_lanes: Some(words[MAX_LANES_WORD as usize]).filter(|&n| n > 0),
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
        })
    }
}

/// The decoded counters of one run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// The largest ballot any subgroup showed at the kernel's entry (see [`MAX_LANES_WORD`]);
    /// `None` without subgroups.
    pub max_active_lanes: Option<u32>,
    /// The highest-indexed loop that hit its cap, if any did (see `loop_cap_hits` for all).
    pub cap_hit: Option<usize>,
    /// Per block, in site order.
    pub blocks: Vec<BlockCounts>,
    /// Per branch, in site order (all zero without subgroups).
    pub branches: Vec<BranchCounts>,
    /// Per loop: how many times an invocation hit the cap and broke out.
    pub loop_cap_hits: Vec<u32>,
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

/// Counter pointers (`AccessIndex` expressions) and the words they must point at.
type Patches = Vec<(Handle<Expression>, Word)>;

/// What one function's instrumentation leaves to fill in once every site is numbered.
struct Patched {
    /// `&divlab_counters[word]` pointers.
    counters: Patches,
    /// `&divlab_local[word]` pointers.
    local: Patches,
}

/// Whether `statement` can take some lanes out of the block it is in while others go on: a
/// `return` (or `kill`) anywhere in it, or a `break`/`continue` that leaves an enclosing loop
/// (not one of a loop or, for `break`, a `switch` nested in it). Only a branch lets some lanes
/// leave while others stay; a bare `return` ends the block for every lane.
fn may_leave(statement: &Statement, in_loop: bool, in_switch: bool) -> bool {
    match statement {
        Statement::If { .. } | Statement::Switch { .. } | Statement::Loop { .. } => {
            escapes(statement, in_loop, in_switch, true)
        }
        _ => false,
    }
}

/// Whether `statement` leaves the block it is in: a `return` or `kill` anywhere in it, a
/// `break` that is not of a loop or `switch` nested in it, and (when `continues`) a `continue`
/// that is not of a nested loop.
fn escapes(statement: &Statement, in_loop: bool, in_switch: bool, continues: bool) -> bool {
    let any = |block: &Block, in_loop, in_switch| {
        block
            .iter()
            .any(|s| escapes(s, in_loop, in_switch, continues))
    };
    match statement {
        Statement::Return { .. } | Statement::Kill => true,
        Statement::Break => !in_loop && !in_switch,
        Statement::Continue => continues && !in_loop,
        Statement::Block(b) => any(b, in_loop, in_switch),
        Statement::If { accept, reject, .. } => {
            any(accept, in_loop, in_switch) || any(reject, in_loop, in_switch)
        }
        Statement::Switch { cases, .. } => cases.iter().any(|c| any(&c.body, in_loop, true)),
        Statement::Loop {
            body, continuing, ..
        } => any(body, true, in_switch) || any(continuing, true, in_switch),
        _ => false,
    }
}

/// Whether a loop's counts can be hoisted out of it ([`Sites::count_hoisted`]): a
/// `for`/`while` whose only way out is its exit test, a single `if c {} else { break; }`
/// (no short-circuit `&&`/`||`, no call in the condition), with no `break if`, and no
/// `return` or `break` of it anywhere in its body or `continuing`. Then a lane's trips are
/// its exit-test evaluations less one, and every lane that entered leaves at the loop's end.
fn hoistable(
    body: &Block,
    continuing: &Block,
    break_if: Option<Handle<Expression>>,
    lines: &LineIndex,
    loop_line: u32,
) -> bool {
    let Some(test) = exit_test_len(body, lines, loop_line) else {
        return false;
    };
    let statements: Vec<&Statement> = body.iter().collect();
    let (test, rest) = statements.split_at(test);
    let (last, before) = test.split_last().expect("an exit test ends in an `if`");
    let leaves = |s: &&Statement| escapes(s, false, false, false);
    break_if.is_none()
        && matches!(last, Statement::If { .. })
        && before.iter().all(|s| matches!(s, Statement::Emit(_)))
        && !rest.iter().any(leaves)
        && !continuing.iter().any(|s| leaves(&s))
}

/// How many statements of a loop body are its leading exit test (see [`split_exit_test`]).
fn exit_test_len(block: &Block, lines: &LineIndex, loop_line: u32) -> Option<usize> {
    let is_break = |b: &Block| matches!(b.iter().collect::<Vec<_>>()[..], [Statement::Break]);
    let is_exit = |s: &Statement| match s {
        Statement::If { accept, reject, .. } => {
            (accept.is_empty() && is_break(reject)) || (is_break(accept) && reject.is_empty())
        }
        _ => false,
    };
    let on_header = |span: &Span| lines.span_lines(*span).is_none_or(|(l, _)| l == loop_line);
    let header = block
        .span_iter()
        .take_while(|(_, span)| on_header(span))
        .count();
    let on_line: Vec<&Statement> = block.iter().take(header).collect();
    on_line.iter().rposition(|s| is_exit(s)).map(|i| i + 1)
}

/// Splits a loop body into its leading exit test and the rest. naga makes a `for`/`while`
/// condition into statements on the loop's own line (`Emit`s, an `if` per short-circuit `&&` or
/// `||`) ending in `if c {} else { break; }`; the test is the longest run of statements on
/// `loop_line` (or without a location) that ends in such an `if`. No such run: an empty test.
fn split_exit_test(block: Block, lines: &LineIndex, loop_line: u32) -> (Block, Block) {
    let Some(split) = exit_test_len(&block, lines, loop_line) else {
        return (Block::new(), block);
    };
    let mut test = Block::new();
    let mut rest = Block::new();
    for (i, (statement, span)) in block.span_into_iter().enumerate() {
        if i < split {
            test.push(statement, span);
        } else {
            rest.push(statement, span);
        }
    }
    (test, rest)
}

/// What a block does at its entry besides its count.
#[derive(Clone, Copy, Default)]
struct Entry {
    /// A loop body's cap check.
    cap_check: Option<CapCheck>,
    /// No count at entry: it is made after a hoisted loop ([`Sites::count_hoisted`]) or on the
    /// host from the calls ([`Instrumented::derived`]).
    counted_elsewhere: bool,
}

/// A loop's cap check: its trip counter, the cap, the loop's index.
#[derive(Clone, Copy)]
struct CapCheck {
    trips: Handle<LocalVariable>,
    cap: u32,
    lp: usize,
}

/// A counter word, resolved to an index once every site is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Word {
    CapHit,
    MaxLanes,
    /// Block, offset within its record.
    Block(usize, u32),
    /// Branch, offset within its record.
    Branch(usize, u32),
    Loop(usize),
}

impl Word {
    /// The high word of a 64-bit counter whose low word this is.
    fn high(self) -> Word {
        match self {
            Word::Block(b, offset) => Word::Block(b, offset + 1),
            Word::Branch(r, offset) => Word::Branch(r, offset + 1),
            other => unreachable!("{other:?} is not a 64-bit counter"),
        }
    }
}

/// Instruments entry point `entry` of `module` (parsed from `source`, the text after
/// `prepare_for_naga`) as the module documentation describes.
///
/// Fails with `InvalidSettings` when there is no compute entry point `entry` or the kernel
/// already uses the counters binding, and with `InvalidWgsl` if the result does not validate
/// or naga cannot write it (a divlab bug).
pub fn instrument(
    module: &Module,
    source: &str,
    entry: &str,
    opts: &InstrumentOptions,
) -> Result<Instrumented> {
    let ep_index = module
        .entry_points
        .iter()
        .position(|ep| ep.name == entry && ep.stage == ShaderStage::Compute)
        .ok_or_else(|| {
            // `kernel::interface` has already chosen the entry point and named the choices.
            Error::InvalidSettings(format!("the kernel has no compute entry point `{entry}`"))
        })?;
    let mut module = module.clone();
    let entry_point = module.entry_points.swap_remove(ep_index);
    module.entry_points = vec![entry_point];

    let u32_ty = scalar_type(&mut module, Scalar::U32);
    let i32_ty = scalar_type(&mut module, Scalar::I32);
    let bool_ty = scalar_type(&mut module, Scalar::BOOL);
    let atomic_ty = module.types.insert(
        Type {
            name: None,
            inner: TypeInner::Atomic(Scalar::U32),
        },
        Span::UNDEFINED,
    );
    let array_ty = module.types.insert(
        Type {
            name: None,
            inner: TypeInner::Array {
                base: atomic_ty,
                size: ArraySize::Dynamic,
                stride: 4,
            },
        },
        Span::UNDEFINED,
    );
    let counters = buffer_global(
        &mut module,
        "divlab_counters",
        opts.counters_group,
        0,
        "its profile counters",
        array_ty,
    )?;

    // The private counts' length is known once every site is numbered; the type is set then,
    // and so is the body of the function that flushes them.
    let local = private_global(&mut module, "divlab_local", u32_ty);
    let flush_fn = module.functions.append(
        Function {
            name: Some("divlab_flush".to_owned()),
            ..Function::default()
        },
        Span::UNDEFINED,
    );

    let lanes = match opts.lanes_block {
        Some(_) if opts.subgroups => {
            let vec3_ty = module.types.insert(
                Type {
                    name: None,
                    inner: TypeInner::Vector {
                        size: naga::VectorSize::Tri,
                        scalar: Scalar::U32,
                    },
                },
                Span::UNDEFINED,
            );
            let buffer = buffer_global(
                &mut module,
                "divlab_lanes",
                opts.counters_group,
                1,
                "its lane records",
                array_ty,
            )?;
            Some(LaneGlobals {
                buffer,
                workgroup: private_global(&mut module, "divlab_workgroup", vec3_ty),
                local_index: private_global(&mut module, "divlab_local_index", u32_ty),
                workgroup_arg: entry_builtin(
                    &mut module,
                    naga::BuiltIn::WorkGroupId,
                    vec3_ty,
                    "divlab_workgroup_id",
                ),
                local_index_arg: entry_builtin(
                    &mut module,
                    naga::BuiltIn::LocalInvocationIndex,
                    u32_ty,
                    "divlab_local_invocation_index",
                ),
            })
        }
        _ => None,
    };

    let lane_id = opts.subgroups.then(|| {
        let global = private_global(&mut module, "divlab_lane", u32_ty);
        let arg = entry_builtin(
            &mut module,
            naga::BuiltIn::SubgroupInvocationId,
            u32_ty,
            "divlab_subgroup_invocation_id",
        );
        (global, arg)
    });

    let lines = LineIndex::new(source);
    let mut sites = Sites {
        opts: *opts,
        counters,
        local,
        flush_fn,
        u32_ty,
        i32_ty,
        bool_ty,
        lines,
        blocks: Vec::new(),
        branches: Vec::new(),
        loops: Vec::new(),
        call_sites: Vec::new(),
        derived: Vec::new(),
        lanes,
        lane_id,
    };

    // The entry point first, then every function it reaches, callers before callees (naga's
    // arena holds a callee before its callers), so a function's call sites are all known when
    // it is instrumented.
    let reachable = reachable_functions(&module);
    let entry_line = decl_line(source, &sites.lines, entry);
    let mut patches: Vec<(Option<Handle<Function>>, Patched)> = Vec::new();
    {
        let function = &mut module.entry_points[0].function;
        let p = sites.function(function, None, entry, entry_line);
        patches.push((None, p));
    }
    for handle in reachable.into_iter().rev() {
        let span = module.functions.get_span(handle);
        let function = &mut module.functions[handle];
        let name = function.name.clone().unwrap_or_default();
        let line = span
            .is_defined()
            .then(|| sites.lines.line(span_start(span)));
        let p = sites.function(function, Some(handle), &name, line);
        patches.push((Some(handle), p));
    }

    // One private slot per counter a loop counts into, in order of first use.
    let mut slots: Vec<Word> = Vec::new();
    for &(_, word) in patches.iter().flat_map(|(_, p)| &p.local) {
        if !slots.contains(&word) {
            slots.push(word);
        }
    }
    {
        let function = &mut module.functions[flush_fn];
        let mut fx = FnCx::new(function, "divlab_flush", u32_ty, false);
        let mut body = Block::new();
        sites.flush_body(&mut fx, &slots, &mut body);
        let p = Patched {
            counters: fx.patches,
            local: fx.local_patches,
        };
        fx.function.body = body;
        patches.push((Some(flush_fn), p));
    }

    let layout = CounterLayout {
        blocks: sites.blocks.len() as u32,
        branches: sites.branches.len() as u32,
        loops: sites.loops.len() as u32,
    };
    let local_words = slots.len() as u32;
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
            if let Expression::AccessIndex { ref mut index, .. } =
                *function.expressions.get_mut(expr)
            {
                *index = at;
            }
        }
    }
    let local_ty = module.types.insert(
        Type {
            name: None,
            inner: TypeInner::Array {
                base: u32_ty,
                size: ArraySize::Constant(
                    std::num::NonZeroU32::new(local_words.max(1)).expect("at least one"),
                ),
                stride: 4,
            },
        },
        Span::UNDEFINED,
    );
    module.global_variables.get_mut(local).ty = local_ty;

    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| {
        bug(
            entry,
            format!("the instrumented module does not validate: {e:?}"),
        )
    })?;
    let wgsl =
        naga::back::wgsl::write_string(&module, &info, naga::back::wgsl::WriterFlags::empty())
            .map_err(|e| {
                bug(
                    entry,
                    format!("naga cannot write the instrumented module: {e}"),
                )
            })?;

    Ok(Instrumented {
        module,
        wgsl,
        blocks: sites.blocks,
        branches: sites.branches,
        loops: sites.loops,
        derived: sites.derived,
        layout,
        counter_words: layout.words(),
        options: *opts,
    })
}

fn bug(entry: &str, message: String) -> Error {
    Error::InvalidWgsl {
        file: format!("{entry} (profile instrumentation)"),
        line: 0,
        column: 0,
        message: format!("{message} (a divlab bug: please report it with the kernel)"),
    }
}

fn scalar_type(module: &mut Module, scalar: Scalar) -> Handle<Type> {
    module.types.insert(
        Type {
            name: None,
            inner: TypeInner::Scalar(scalar),
        },
        Span::UNDEFINED,
    )
}

/// Functions reachable by calls from the (only) entry point, in arena order.
fn reachable_functions(module: &Module) -> Vec<Handle<Function>> {
    let mut seen = vec![false; module.functions.len()];
    let mut stack = Vec::new();
    calls(&module.entry_points[0].function.body, &mut stack);
    while let Some(h) = stack.pop() {
        if !std::mem::replace(&mut seen[h.index()], true) {
            calls(&module.functions[h].body, &mut stack);
        }
    }
    module
        .functions
        .iter()
        .map(|(h, _)| h)
        .filter(|h| seen[h.index()])
        .collect()
}

fn calls(block: &Block, out: &mut Vec<Handle<Function>>) {
    for statement in block.iter() {
        match *statement {
            Statement::Call { function, .. } => out.push(function),
            Statement::Block(ref b) => calls(b, out),
            Statement::If {
                ref accept,
                ref reject,
                ..
            } => {
                calls(accept, out);
                calls(reject, out);
            }
            Statement::Switch { ref cases, .. } => {
                for case in cases {
                    calls(&case.body, out);
                }
            }
            Statement::Loop {
                ref body,
                ref continuing,
                ..
            } => {
                calls(body, out);
                calls(continuing, out);
            }
            _ => {}
        }
    }
}

/// 1-based lines of byte offsets.
struct LineIndex {
    starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    fn new(source: &str) -> Self {
        let starts = std::iter::once(0)
            .chain(source.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Self {
            starts,
            len: source.len(),
        }
    }

    fn line(&self, offset: usize) -> u32 {
        let offset = offset.min(self.len);
        self.starts.partition_point(|&s| s <= offset) as u32
    }

    /// First and last line of a defined span.
    fn span_lines(&self, span: Span) -> Option<(u32, u32)> {
        let range = span.to_range()?;
        let last = range.end.max(range.start + 1) - 1;
        Some((self.line(range.start), self.line(last)))
    }
}

fn span_start(span: Span) -> usize {
    span.to_range().map_or(0, |r| r.start)
}

/// The line of `fn name` in the source (entry points carry no span in naga's IR), skipping
/// line comments.
fn decl_line(source: &str, lines: &LineIndex, name: &str) -> Option<u32> {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    source.match_indices("fn").find_map(|(at, _)| {
        let before = &source[..at];
        if before.chars().next_back().is_some_and(ident) {
            return None;
        }
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        if before[line_start..].contains("//") {
            return None;
        }
        let rest = &source[at + 2..];
        let trimmed = rest.trim_start();
        if trimmed.len() == rest.len() {
            return None;
        }
        let after = trimmed.strip_prefix(name)?;
        if after.chars().next().is_some_and(ident) {
            return None;
        }
        Some(lines.line(at))
    })
}

/// The first line and the line range of a block's own statements (recursing into plain
/// `{ }` blocks; a nested `if`/`switch`/loop contributes its first line).
fn own_lines(lines: &LineIndex, block: &Block) -> Option<(u32, RangeInclusive<u32>)> {
    let mut first = None;
    let mut range: Option<(u32, u32)> = None;
    own_lines_into(lines, block, &mut first, &mut range);
    Some((first?, range.map(|(a, b)| a..=b)?))
}

fn own_lines_into(
    lines: &LineIndex,
    block: &Block,
    first: &mut Option<u32>,
    range: &mut Option<(u32, u32)>,
) {
    for (statement, span) in block.span_iter() {
        if let Statement::Block(ref inner) = *statement {
            own_lines_into(lines, inner, first, range);
            continue;
        }
        let Some((start, end)) = lines.span_lines(*span) else {
            continue;
        };
        let end = match *statement {
            Statement::If { .. } | Statement::Switch { .. } | Statement::Loop { .. } => start,
            _ => end,
        };
        first.get_or_insert(start);
        *range = Some(match *range {
            None => (start, end),
            Some((a, b)) => (a.min(start), b.max(end)),
        });
    }
}

/// Everything shared while instrumenting: the options, the handles added to the module, and
/// the sites found so far.
struct Sites {
    opts: InstrumentOptions,
    counters: Handle<GlobalVariable>,
    /// `var<private> divlab_local: array<u32, K>`: each invocation's own counts of the blocks
    /// and branches in loops, added into `counters` once, when it leaves the kernel.
    local: Handle<GlobalVariable>,
    /// `divlab_flush()`, which adds them; its body is written last.
    flush_fn: Handle<Function>,
    u32_ty: Handle<Type>,
    i32_ty: Handle<Type>,
    bool_ty: Handle<Type>,
    lines: LineIndex,
    blocks: Vec<BlockSite>,
    branches: Vec<BranchSite>,
    loops: Vec<LoopSite>,
    /// Every call instrumented so far: the callee, the block whose count is the call's (`None`
    /// where no block's is: a loop's exit test, a `for` loop's update), and whether the call
    /// runs in a loop.
    call_sites: Vec<(Handle<Function>, Option<usize>, bool)>,
    /// See [`Instrumented::derived`].
    derived: Vec<(usize, Vec<usize>)>,
    /// With `--lanes`: the buffer and the private copies of the entry's builtins.
    lanes: Option<LaneGlobals>,
    /// With subgroups: the private copy of `subgroup_invocation_id` the election compares, and
    /// the entry argument (and struct member) it is copied from.
    lane_id: Option<(Handle<GlobalVariable>, EntryArg)>,
}

/// An entry point argument, and the member of it when it is a struct: where a builtin comes in.
type EntryArg = (u32, Option<u32>);

/// What `--lanes` adds: the lanes buffer, private copies of two builtins (so a callee can read
/// them), and where the entry point gets them.
struct LaneGlobals {
    buffer: Handle<GlobalVariable>,
    workgroup: Handle<GlobalVariable>,
    local_index: Handle<GlobalVariable>,
    /// The entry argument (and struct member) holding `workgroup_id`.
    workgroup_arg: EntryArg,
    /// The entry argument (and struct member) holding `local_invocation_index`.
    local_index_arg: EntryArg,
}

/// A `var<private>` of divlab's own: one value per invocation.
fn private_global(module: &mut Module, name: &str, ty: Handle<Type>) -> Handle<GlobalVariable> {
    module.global_variables.append(
        GlobalVariable {
            name: Some(name.to_owned()),
            space: AddressSpace::Private,
            binding: None,
            ty,
            init: None,
            memory_decorations: Default::default(),
        },
        Span::UNDEFINED,
    )
}

/// A storage buffer of divlab's own at `@group(group) @binding(binding)`, which the kernel must
/// leave free; `what` names its use in the error.
fn buffer_global(
    module: &mut Module,
    name: &str,
    group: u32,
    binding: u32,
    what: &str,
    ty: Handle<Type>,
) -> Result<Handle<GlobalVariable>> {
    let slot = ResourceBinding { group, binding };
    if let Some((_, var)) = module
        .global_variables
        .iter()
        .find(|(_, var)| var.binding == Some(slot))
    {
        return Err(Error::InvalidSettings(format!(
            "the kernel's `{}` already uses @group({group}) @binding({binding}), where divlab \
             binds {what}; pick another counters group",
            var.name.as_deref().unwrap_or("?"),
        )));
    }
    Ok(module.global_variables.append(
        GlobalVariable {
            name: Some(name.to_owned()),
            space: AddressSpace::Storage {
                access: StorageAccess::LOAD | StorageAccess::STORE,
            },
            binding: Some(slot),
            ty,
            init: None,
            memory_decorations: Default::default(),
        },
        Span::UNDEFINED,
    ))
}

/// The entry point's argument (and struct member) with builtin `builtin`, added as a new
/// argument when the kernel does not take it.
fn entry_builtin(
    module: &mut Module,
    builtin: naga::BuiltIn,
    ty: Handle<Type>,
    name: &str,
) -> EntryArg {
    let wanted = Some(naga::Binding::BuiltIn(builtin));
    let function = &module.entry_points[0].function;
    for (i, arg) in function.arguments.iter().enumerate() {
        if arg.binding == wanted {
            return (i as u32, None);
        }
        if let TypeInner::Struct { members, .. } = &module.types[arg.ty].inner
            && let Some(m) = members.iter().position(|m| m.binding == wanted)
        {
            return (i as u32, Some(m as u32));
        }
    }
    let function = &mut module.entry_points[0].function;
    function.arguments.push(naga::FunctionArgument {
        name: Some(name.to_owned()),
        ty,
        binding: wanted,
    });
    (function.arguments.len() as u32 - 1, None)
}

/// The function being instrumented and its pending `Emit` run: new expressions that need an
/// `Emit` are appended back to back from `pending` on, and flushed into the block being built
/// before any statement or any expression that must not be emitted (literals, variables,
/// statement results).
struct FnCx<'f> {
    function: &'f mut Function,
    name: String,
    pending: Option<usize>,
    span: Span,
    u32_ty: Handle<Type>,
    /// Counter pointers whose index is known only once every site is numbered.
    patches: Patches,
    /// What opens the block being instrumented (a continuation's opener).
    opener: Opener,
    /// Whether this is the entry point, whose exits flush the private counts.
    is_entry: bool,
    /// Private-count pointers whose index is known only once every site is numbered.
    local_patches: Patches,
    /// The block whose count is that of the statement being instrumented: it ran exactly when
    /// the statement did. `None` in a loop's exit test and an uncounted `for` update.
    in_force: Option<usize>,
    /// Instrumenting a hoisted loop's exit test: no vote and no count at entry, as
    /// [`Sites::count_hoisted`] makes them after the loop.
    quiet: bool,
    /// Inside a loop (or a function called from one): counts go to the private counts, as a
    /// global atomic per trip would have every subgroup contend for the same words.
    hot: bool,
}

impl<'f> FnCx<'f> {
    fn new(function: &'f mut Function, name: &str, u32_ty: Handle<Type>, is_entry: bool) -> Self {
        FnCx {
            function,
            name: name.to_owned(),
            pending: None,
            span: Span::UNDEFINED,
            u32_ty,
            patches: Vec::new(),
            opener: Opener::Function,
            is_entry,
            local_patches: Vec::new(),
            in_force: None,
            quiet: false,
            hot: false,
        }
    }

    fn flush(&mut self, out: &mut Block) {
        if let Some(start) = self.pending.take() {
            let range = self.function.expressions.range_from(start);
            out.push(Statement::Emit(range), self.span);
        }
    }

    /// An expression that needs an `Emit`.
    fn emitted(&mut self, expr: Expression) -> Handle<Expression> {
        debug_assert!(!expr.needs_pre_emit());
        if self.pending.is_none() {
            self.pending = Some(self.function.expressions.len());
        }
        self.function.expressions.append(expr, self.span)
    }

    /// An expression that must not be emitted: a literal, a variable, a statement's result.
    fn unemitted(&mut self, expr: Expression, out: &mut Block) -> Handle<Expression> {
        self.flush(out);
        self.function.expressions.append(expr, self.span)
    }

    /// `*pointer += 1u` for a `u32` variable; returns the new value.
    fn increment(&mut self, pointer: Handle<Expression>, out: &mut Block) -> Handle<Expression> {
        let before = self.emitted(Expression::Load { pointer });
        let one = self.literal(Literal::U32(1), out);
        let after = self.binary(BinaryOperator::Add, before, one);
        self.statement(
            Statement::Store {
                pointer,
                value: after,
            },
            out,
        );
        after
    }

    /// `left op right`, emitted.
    fn binary(
        &mut self,
        op: BinaryOperator,
        left: Handle<Expression>,
        right: Handle<Expression>,
    ) -> Handle<Expression> {
        self.emitted(Expression::Binary { op, left, right })
    }

    fn literal(&mut self, literal: Literal, out: &mut Block) -> Handle<Expression> {
        self.unemitted(Expression::Literal(literal), out)
    }

    fn statement(&mut self, statement: Statement, out: &mut Block) {
        self.flush(out);
        out.push(statement, self.span);
    }

    /// A block built by `build`, after flushing `out` so the pending run stays in `out`.
    fn nested(&mut self, out: &mut Block, build: impl FnOnce(&mut Self, &mut Block)) -> Block {
        self.flush(out);
        let mut block = Block::new();
        build(self, &mut block);
        self.flush(&mut block);
        block
    }

    fn if_then(&mut self, condition: Handle<Expression>, accept: Block, out: &mut Block) {
        self.statement(
            Statement::If {
                condition,
                accept,
                reject: Block::new(),
            },
            out,
        );
    }
}

impl Sites {
    /// Instruments one function (`handle` is `None` for the entry point); returns its counter
    /// pointers to patch. A function whose every call is in a counted block is counted on the
    /// host from those blocks ([`Instrumented::derived`]): a tight loop's callee costs nothing.
    fn function(
        &mut self,
        function: &mut Function,
        handle: Option<Handle<Function>>,
        name: &str,
        decl_line: Option<u32>,
    ) -> Patched {
        let is_entry = handle.is_none();
        let calls: Vec<(Option<usize>, bool)> = self
            .call_sites
            .iter()
            .filter(|(callee, ..)| Some(*callee) == handle)
            .map(|&(_, block, hot)| (block, hot))
            .collect();
        let derived_from = (!calls.is_empty())
            .then(|| {
                calls
                    .iter()
                    .map(|&(block, _)| block)
                    .collect::<Option<Vec<usize>>>()
            })
            .flatten();
        let body = std::mem::take(&mut function.body);
        let mut fx = FnCx::new(function, name, self.u32_ty, is_entry);
        fx.hot = calls.iter().any(|&(_, hot)| hot);
        let first = own_lines(&self.lines, &body).map_or(1, |(l, _)| l);
        let line = decl_line.unwrap_or(first);
        let index = self.blocks.len();
        let entry = Entry {
            counted_elsewhere: derived_from.is_some(),
            ..Entry::default()
        };
        let mut new_body = self.block(
            &mut fx,
            body,
            (BlockKind::FunctionBody, Opener::Function),
            line,
            true,
            entry,
        );
        if let Some(sources) = derived_from {
            self.derived.push((index, sources));
        }
        if is_entry && !matches!(new_body.last(), Some(Statement::Return { .. })) {
            self.flush(&mut fx, &mut new_body);
            fx.flush(&mut new_body);
        }
        fx.function.body = new_body;
        Patched {
            counters: fx.patches,
            local: fx.local_patches,
        }
    }

    /// Instruments a block that is a site of its own: counts its executions, then its
    /// statements. A loop body's cap check goes before the count.
    fn block(
        &mut self,
        fx: &mut FnCx<'_>,
        block: Block,
        (kind, opener): (BlockKind, Opener),
        parent_line: u32,
        line_is_parent: bool,
        entry: Entry,
    ) -> Block {
        let own = own_lines(&self.lines, &block);
        let (line, lines, empty) = match own {
            Some((first, range)) if !line_is_parent => (first, range, false),
            Some((_, range)) => (parent_line, range, false),
            None => (parent_line, parent_line..=parent_line, true),
        };
        let index = self.blocks.len();
        self.blocks.push(BlockSite {
            kind,
            function: fx.name.clone(),
            line,
            lines,
            empty,
            parent_line,
            opener,
        });
        let saved = fx.span;
        let saved_opener = std::mem::replace(&mut fx.opener, opener);
        if let Some((_, span)) = block.span_iter().find(|(_, s)| s.is_defined()) {
            fx.span = *span;
        }
        let mut out = Block::with_capacity(block.len() + 8);
        if let Some(check) = entry.cap_check {
            self.cap_check(fx, check, &mut out);
        }
        let saved_in_force = fx.in_force.take();
        // A `for`/`while` body starts with its exit test, `if cond {} else { break; }`: the body
        // proper is counted after it, so its lines count the trips that ran it, not the test.
        let (test, block) = if kind == BlockKind::LoopBody {
            split_exit_test(block, &self.lines, parent_line)
        } else {
            (Block::new(), block)
        };
        if !test.is_empty() {
            fx.span = saved;
            let first = self.branches.len();
            fx.quiet = entry.counted_elsewhere;
            self.statements(fx, test, &mut out);
            fx.quiet = false;
            if let Opener::Loop(lp) = opener {
                self.loops[lp].exit_test = self.branches.len().checked_sub(1);
                self.loops[lp].test_branches = first..self.branches.len();
            }
        }
        // A block with no code costs nothing to run and shows on no line, and a `for` loop's
        // `continuing` (the `i++` on the loop's own line) is reported with the loop: counting
        // them would add an election to every trip of the loop for nothing a reader sees.
        let header_continuing = kind == BlockKind::LoopContinuing
            && self.blocks[index].lines == (parent_line..=parent_line);
        if index == 0 && self.opts.subgroups {
            // Before anything elects: the election compares the private lane id.
            self.keep_entry_builtins(fx, &mut out);
        }
        if !self.blocks[index].empty && !header_continuing {
            if !entry.counted_elsewhere && !fx.quiet {
                self.count_block(fx, index, &mut out);
            }
            fx.in_force = Some(index);
        }
        if index == 0 && self.opts.subgroups {
            self.record_max_lanes(fx, &mut out);
        }
        if self.opts.lanes_block == Some(index) {
            self.record_lanes(fx, &mut out);
        }
        fx.span = saved;
        self.statements(fx, block, &mut out);
        fx.opener = saved_opener;
        fx.in_force = saved_in_force;
        out
    }

    /// At the kernel's entry: `atomicMax` of the subgroup's active lanes, so the host learns the
    /// subgroup size this pipeline runs with.
    fn record_max_lanes(&self, fx: &mut FnCx<'_>, out: &mut Block) {
        let lanes = self.active_lanes(fx, out);
        let pointer = counter(fx, self.counters, Word::MaxLanes, out);
        fx.statement(
            Statement::Atomic {
                pointer,
                fun: AtomicFunction::Max,
                value: lanes,
                result: None,
            },
            out,
        );
    }

    /// The subgroup's active lanes: the bits of `subgroupBallot(true)`.
    fn active_lanes(&self, fx: &mut FnCx<'_>, out: &mut Block) -> Handle<Expression> {
        let yes = fx.literal(Literal::Bool(true), out);
        let ballot = fx.unemitted(Expression::SubgroupBallotResult, out);
        fx.statement(
            Statement::SubgroupBallot {
                result: ballot,
                predicate: Some(yes),
            },
            out,
        );
        let bits = fx.emitted(Expression::Math {
            fun: MathFunction::CountOneBits,
            arg: ballot,
            arg1: None,
            arg2: None,
            arg3: None,
        });
        let mut lanes = fx.emitted(Expression::AccessIndex {
            base: bits,
            index: 0,
        });
        for index in 1..4 {
            let word = fx.emitted(Expression::AccessIndex { base: bits, index });
            lanes = fx.emitted(Expression::Binary {
                op: BinaryOperator::Add,
                left: lanes,
                right: word,
            });
        }
        lanes
    }

    /// At the kernel's entry: the private copy of `subgroup_invocation_id` (for the election)
    /// and, with `--lanes`, of `workgroup_id` and `local_invocation_index`, which a callee
    /// cannot read from the entry's arguments.
    fn keep_entry_builtins(&self, fx: &mut FnCx<'_>, out: &mut Block) {
        let lanes = self.lanes.iter().flat_map(|lanes| {
            [
                (lanes.workgroup, lanes.workgroup_arg),
                (lanes.local_index, lanes.local_index_arg),
            ]
        });
        for (global, (arg, member)) in self.lane_id.into_iter().chain(lanes) {
            let argument = fx.unemitted(Expression::FunctionArgument(arg), out);
            let value = match member {
                Some(index) => fx.emitted(Expression::AccessIndex {
                    base: argument,
                    index,
                }),
                None => argument,
            };
            let pointer = fx.unemitted(Expression::GlobalVariable(global), out);
            fx.statement(Statement::Store { pointer, value }, out);
        }
    }

    /// With `--lanes`, at the block's entry: the elected lane takes the next record of the lanes
    /// buffer and writes the subgroup's ballot, its workgroup and its lowest active lane's
    /// local index.
    fn record_lanes(&self, fx: &mut FnCx<'_>, out: &mut Block) {
        let Some(lanes) = &self.lanes else { return };
        let yes = fx.literal(Literal::Bool(true), out);
        let ballot = fx.unemitted(Expression::SubgroupBallotResult, out);
        fx.statement(
            Statement::SubgroupBallot {
                result: ballot,
                predicate: Some(yes),
            },
            out,
        );
        let local_pointer = fx.unemitted(Expression::GlobalVariable(lanes.local_index), out);
        let local_index = fx.emitted(Expression::Load {
            pointer: local_pointer,
        });
        let first = fx.unemitted(Expression::SubgroupOperationResult { ty: self.u32_ty }, out);
        fx.statement(
            Statement::SubgroupCollectiveOperation {
                op: SubgroupOperation::Min,
                collective_op: CollectiveOperation::Reduce,
                argument: local_index,
                result: first,
            },
            out,
        );
        let elected = self.elect(fx, out);
        let (buffer, workgroup) = (lanes.buffer, lanes.workgroup);
        let accept = fx.nested(out, |fx, b| {
            let base = fx.unemitted(Expression::GlobalVariable(buffer), b);
            let count = fx.emitted(Expression::AccessIndex { base, index: 0 });
            let one = fx.literal(Literal::U32(1), b);
            let slot = fx.unemitted(
                Expression::AtomicResult {
                    ty: fx.u32_ty,
                    comparison: false,
                },
                b,
            );
            fx.statement(
                Statement::Atomic {
                    pointer: count,
                    fun: AtomicFunction::Add,
                    value: one,
                    result: Some(slot),
                },
                b,
            );
            let capacity = fx.literal(Literal::U32(LANE_RECORDS), b);
            let room = fx.binary(BinaryOperator::Less, slot, capacity);
            let write = fx.nested(b, |fx, b| {
                let words = fx.literal(Literal::U32(LANE_RECORD_WORDS), b);
                let one = fx.literal(Literal::U32(1), b);
                let scaled = fx.binary(BinaryOperator::Multiply, slot, words);
                let start = fx.binary(BinaryOperator::Add, scaled, one);
                let group_pointer = fx.unemitted(Expression::GlobalVariable(workgroup), b);
                let group = fx.emitted(Expression::Load {
                    pointer: group_pointer,
                });
                let mut values = Vec::new();
                for index in 0..4 {
                    values.push(fx.emitted(Expression::AccessIndex {
                        base: ballot,
                        index,
                    }));
                }
                for index in 0..3 {
                    values.push(fx.emitted(Expression::AccessIndex { base: group, index }));
                }
                values.push(first);
                for (offset, value) in values.into_iter().enumerate() {
                    let at = fx.literal(Literal::U32(offset as u32), b);
                    let word = fx.binary(BinaryOperator::Add, start, at);
                    let base = fx.unemitted(Expression::GlobalVariable(buffer), b);
                    let pointer = fx.emitted(Expression::Access { base, index: word });
                    fx.statement(Statement::Store { pointer, value }, b);
                }
            });
            fx.if_then(room, write, b);
        });
        fx.if_then(elected, accept, out);
    }

    /// The block's statements, each instrumented, appended to `out`. After a statement that
    /// can take lanes out of the block (a `return`, or a `break`/`continue` of an enclosing
    /// loop, inside a branch), the rest is a [`BlockKind::Continuation`] with its own count:
    /// the lanes that left must not be counted on the lines after it.
    fn statements(&mut self, fx: &mut FnCx<'_>, block: Block, out: &mut Block) {
        let mut items: std::collections::VecDeque<(Statement, Span)> =
            block.span_into_iter().collect();
        while let Some((statement, span)) = items.pop_front() {
            let exits = !items.is_empty() && may_leave(&statement, false, false);
            self.statement(fx, statement, span, out);
            if exits {
                let mut rest = Block::with_capacity(items.len());
                for (statement, span) in items.drain(..) {
                    rest.push(statement, span);
                }
                self.continuation(fx, rest, span, out);
            }
        }
        fx.flush(out);
    }

    /// The statements after one that can take lanes out: counted as a block of their own.
    fn continuation(&mut self, fx: &mut FnCx<'_>, rest: Block, after: Span, out: &mut Block) {
        let Some((first, lines)) = own_lines(&self.lines, &rest) else {
            self.statements(fx, rest, out);
            return;
        };
        let index = self.blocks.len();
        self.blocks.push(BlockSite {
            kind: BlockKind::Continuation,
            function: fx.name.clone(),
            line: first,
            lines,
            empty: false,
            parent_line: self.lines.span_lines(after).map_or(first, |(l, _)| l),
            opener: fx.opener,
        });
        self.count_block(fx, index, out);
        fx.in_force = Some(index);
        if self.opts.lanes_block == Some(index) {
            self.record_lanes(fx, out);
        }
        self.statements(fx, rest, out);
    }

    /// Numbers a new branch site.
    fn new_branch(&mut self, kind: BranchKind, line: u32, fx: &FnCx<'_>) -> usize {
        self.branches.push(BranchSite {
            kind,
            line,
            function: fx.name.clone(),
        });
        self.branches.len() - 1
    }

    /// One statement, instrumented, appended to `out`.
    fn statement(&mut self, fx: &mut FnCx<'_>, statement: Statement, span: Span, out: &mut Block) {
        {
            let saved = fx.span;
            fx.span = span;
            let line = self.lines.span_lines(span).map_or(0, |(l, _)| l);
            match statement {
                Statement::Block(inner) => {
                    let inner = fx.nested(out, |fx, b| self.statements(fx, inner, b));
                    fx.statement(Statement::Block(inner), out);
                }
                Statement::If {
                    condition,
                    accept,
                    reject,
                } => {
                    let branch = self.new_branch(BranchKind::If, line, fx);
                    if self.opts.subgroups && !fx.quiet {
                        self.count_if(fx, branch, condition, out);
                    }
                    fx.flush(out);
                    let opener = Opener::Branch(branch);
                    let accept = self.block(
                        fx,
                        accept,
                        (BlockKind::IfAccept, opener),
                        line,
                        false,
                        Entry::default(),
                    );
                    let reject = self.block(
                        fx,
                        reject,
                        (BlockKind::IfReject, opener),
                        line,
                        false,
                        Entry::default(),
                    );
                    fx.statement(
                        Statement::If {
                            condition,
                            accept,
                            reject,
                        },
                        out,
                    );
                }
                Statement::Switch { selector, cases } => {
                    let branch = self.new_branch(BranchKind::Switch, line, fx);
                    if self.opts.subgroups && !fx.quiet {
                        let ty = cases.iter().find_map(|case| match case.value {
                            SwitchValue::I32(_) => Some(self.i32_ty),
                            SwitchValue::U32(_) => Some(self.u32_ty),
                            SwitchValue::Default => None,
                        });
                        self.count_switch(fx, branch, selector, ty, out);
                    }
                    fx.flush(out);
                    let cases = cases
                        .into_iter()
                        .map(|mut case| {
                            // `case a, b:` is a run of empty fall-through cases ending in the
                            // one with the body: one site.
                            if !(case.fall_through && case.body.is_empty()) {
                                case.body = self.block(
                                    fx,
                                    case.body,
                                    (BlockKind::SwitchCase, Opener::Branch(branch)),
                                    line,
                                    false,
                                    Entry::default(),
                                );
                            }
                            case
                        })
                        .collect();
                    fx.statement(Statement::Switch { selector, cases }, out);
                }
                Statement::Loop {
                    body,
                    continuing,
                    break_if,
                } => {
                    let lp = self.loops.len();
                    self.loops.push(LoopSite {
                        exit_test: None,
                        test_branches: 0..0,
                        line,
                        function: fx.name.clone(),
                    });
                    let trips = fx.function.local_variables.append(
                        LocalVariable {
                            name: Some(format!("divlab_trips{lp}")),
                            ty: self.u32_ty,
                            init: None,
                        },
                        span,
                    );
                    let pointer = fx.unemitted(Expression::LocalVariable(trips), out);
                    let zero = fx.literal(Literal::U32(0), out);
                    fx.statement(
                        Statement::Store {
                            pointer,
                            value: zero,
                        },
                        out,
                    );
                    let check = CapCheck {
                        trips,
                        cap: self.opts.loop_cap,
                        lp,
                    };
                    let hoisted = self.opts.subgroups
                        && hoistable(&body, &continuing, break_if, &self.lines, line);
                    let opener = Opener::Loop(lp);
                    let outer_hot = std::mem::replace(&mut fx.hot, true);
                    let body_site = self.blocks.len();
                    let body = self.block(
                        fx,
                        body,
                        (BlockKind::LoopBody, opener),
                        line,
                        false,
                        Entry {
                            cap_check: Some(check),
                            counted_elsewhere: hoisted,
                        },
                    );
                    let continuing_site = self.blocks.len();
                    let continuing = self.block(
                        fx,
                        continuing,
                        (BlockKind::LoopContinuing, opener),
                        line,
                        false,
                        Entry {
                            cap_check: None,
                            counted_elsewhere: hoisted,
                        },
                    );
                    fx.hot = outer_hot;
                    fx.statement(
                        Statement::Loop {
                            body,
                            continuing,
                            break_if,
                        },
                        out,
                    );
                    if hoisted {
                        let site = &self.blocks[continuing_site];
                        let counted = !site.empty && site.lines != (line..=line);
                        let blocks = [Some(body_site), counted.then_some(continuing_site)];
                        self.count_hoisted(fx, lp, trips, blocks, out);
                    }
                }
                Statement::Call {
                    function,
                    arguments,
                    result,
                } => {
                    self.call_sites.push((function, fx.in_force, fx.hot));
                    fx.statement(
                        Statement::Call {
                            function,
                            arguments,
                            result,
                        },
                        out,
                    );
                }
                Statement::Return { value } if fx.is_entry => {
                    self.flush(fx, out);
                    fx.statement(Statement::Return { value }, out);
                }
                other => fx.statement(other, out),
            }
            fx.span = saved;
        }
    }

    /// Block entry. Where it runs at most once per invocation (outside every loop), the elected
    /// lane adds 1 execution and the subgroup's active lanes straight to the counters. Inside a
    /// loop, in the invocation's private counts (flushed where it leaves the kernel): every lane
    /// adds 1 to the block's active lanes and the elected lane 1 execution. Without subgroups
    /// every invocation adds 1 execution to its private count.
    fn count_block(&self, fx: &mut FnCx<'_>, block: usize, out: &mut Block) {
        let local = self.local;
        if self.opts.subgroups && !fx.hot {
            let lanes = self.active_lanes(fx, out);
            let elected = self.elect(fx, out);
            let counters = self.counters;
            let add = fx.nested(out, |fx, b| {
                let one = fx.literal(Literal::U32(1), b);
                add64(fx, counters, Word::Block(block, 0), one, b);
                add64(fx, counters, Word::Block(block, 2), lanes, b);
            });
            fx.if_then(elected, add, out);
            return;
        }
        if !self.opts.subgroups {
            let one = fx.literal(Literal::U32(1), out);
            local_add(fx, local, Word::Block(block, 0), one, out);
            return;
        }
        let elected = self.elect(fx, out);
        let one = fx.literal(Literal::U32(1), out);
        local_add(fx, local, Word::Block(block, 2), one, out);
        local_add_if(fx, local, Word::Block(block, 0), elected, one, out);
    }

    /// Where the invocation leaves the kernel (each `return` of the entry point, and its end):
    /// a call of `divlab_flush`, whose body ([`Sites::flush_body`]) is written once every
    /// private count is known.
    fn flush(&self, fx: &mut FnCx<'_>, out: &mut Block) {
        fx.statement(
            Statement::Call {
                function: self.flush_fn,
                arguments: Vec::new(),
                result: None,
            },
            out,
        );
    }

    /// `divlab_flush`: each private count (`words[slot]` counts into `words`' counter), summed
    /// over the subgroup's active lanes, added by the elected lane to its 64-bit counter
    /// (without subgroups each invocation adds its own). A vote skips a count that is 0 in
    /// every lane, as most are (blocks this subgroup never ran). The slots are spelled out, not
    /// looped over: indexed by constants only, the private counts can live in registers.
    fn flush_body(&self, fx: &mut FnCx<'_>, words: &[Word], out: &mut Block) {
        let (local, counters) = (self.local, self.counters);
        let elected = self.opts.subgroups.then(|| self.elect(fx, out));
        for (slot, &word) in words.iter().enumerate() {
            let base = fx.unemitted(Expression::GlobalVariable(local), out);
            let pointer = fx.emitted(Expression::AccessIndex {
                base,
                index: slot as u32,
            });
            let mine = fx.emitted(Expression::Load { pointer });
            let zero = fx.literal(Literal::U32(0), out);
            let some = fx.binary(BinaryOperator::NotEqual, mine, zero);
            let Some(elected) = elected else {
                let add = fx.nested(out, |fx, b| add64(fx, counters, word, mine, b));
                fx.if_then(some, add, out);
                continue;
            };
            let any = self.reduce(fx, SubgroupOperation::Any, some, out);
            let accept = fx.nested(out, |fx, b| {
                let total = self.collective(fx, SubgroupOperation::Add, mine, fx.u32_ty, b);
                let add = fx.nested(b, |fx, b| add64(fx, counters, word, total, b));
                fx.if_then(elected, add, b);
            });
            fx.if_then(any, accept, out);
        }
        fx.flush(out);
    }

    /// After a hoisted loop ([`hoistable`]), every count its trips would have made, from each
    /// lane's exit-test evaluations `t` (its cap counter): the body (and a counted `continuing`)
    /// ran `t - 1` times in the lane and `max(t) - 1` times in the subgroup; the test was
    /// evaluated `max(t)` times, divergent on all but the last of the distinct `t`s; the `break`
    /// ran once per distinct `t`. Exact when the lanes that enter together run their trips
    /// together (they leave together here: the loop has no other exit), and free of any
    /// subgroup operation inside the loop, where it cost the study's switch kernel most of its
    /// instrumented time.
    fn count_hoisted(
        &self,
        fx: &mut FnCx<'_>,
        lp: usize,
        trips: Handle<LocalVariable>,
        blocks: [Option<usize>; 2],
        out: &mut Block,
    ) {
        let exit = self.loops[lp]
            .exit_test
            .expect("a hoisted loop has an exit test");
        let leave = (0..self.blocks.len())
            .find(|&b| self.blocks[b].opener == Opener::Branch(exit) && !self.blocks[b].empty)
            .expect("the exit test's `break`");
        let local = self.local;
        let pointer = fx.unemitted(Expression::LocalVariable(trips), out);
        let tests = fx.emitted(Expression::Load { pointer });
        let most = self.collective(fx, SubgroupOperation::Max, tests, self.u32_ty, out);
        let distinct = self.distinct(fx, tests, out);
        let elected = self.elect(fx, out);
        let one = fx.literal(Literal::U32(1), out);
        let ran = fx.binary(BinaryOperator::Subtract, tests, one);
        let most_ran = fx.binary(BinaryOperator::Subtract, most, one);
        let splits = fx.binary(BinaryOperator::Subtract, distinct, one);
        if !fx.hot {
            let all_ran = self.collective(fx, SubgroupOperation::Add, ran, self.u32_ty, out);
            let lanes = self.active_lanes(fx, out);
            let counters = self.counters;
            let add = fx.nested(out, |fx, b| {
                for block in blocks.into_iter().flatten() {
                    add64(fx, counters, Word::Block(block, 0), most_ran, b);
                    add64(fx, counters, Word::Block(block, 2), all_ran, b);
                }
                add64(fx, counters, Word::Branch(exit, 0), most, b);
                add64(fx, counters, Word::Branch(exit, 2), splits, b);
                add64(fx, counters, Word::Block(leave, 0), distinct, b);
                add64(fx, counters, Word::Block(leave, 2), lanes, b);
            });
            fx.if_then(elected, add, out);
            return;
        }
        for block in blocks.into_iter().flatten() {
            local_add(fx, local, Word::Block(block, 2), ran, out);
            local_add_if(fx, local, Word::Block(block, 0), elected, most_ran, out);
        }
        local_add_if(fx, local, Word::Branch(exit, 0), elected, most, out);
        local_add_if(fx, local, Word::Branch(exit, 2), elected, splits, out);
        local_add(fx, local, Word::Block(leave, 2), one, out);
        local_add_if(fx, local, Word::Block(leave, 0), elected, distinct, out);
    }

    /// How many distinct values `value` has over the subgroup's active lanes: one round per
    /// value, each taking out the lanes that hold the smallest one left. Bounded by the largest
    /// subgroup size (128) plus the round that finds none left.
    fn distinct(
        &self,
        fx: &mut FnCx<'_>,
        value: Handle<Expression>,
        out: &mut Block,
    ) -> Handle<Expression> {
        let (u32_ty, bool_ty) = (self.u32_ty, self.bool_ty);
        let var = |fx: &mut FnCx<'_>, name: &str, ty, init: Literal, out: &mut Block| {
            let variable = fx.function.local_variables.append(
                LocalVariable {
                    name: Some(name.to_owned()),
                    ty,
                    init: None,
                },
                fx.span,
            );
            let pointer = fx.unemitted(Expression::LocalVariable(variable), out);
            let value = fx.literal(init, out);
            fx.statement(Statement::Store { pointer, value }, out);
            pointer
        };
        let left = var(fx, "divlab_left", bool_ty, Literal::Bool(true), out);
        let count = var(fx, "divlab_distinct", u32_ty, Literal::U32(0), out);
        let round = var(fx, "divlab_round", u32_ty, Literal::U32(0), out);
        let body = fx.nested(out, |fx, b| {
            let rounds = fx.increment(round, b);
            let bound = fx.literal(Literal::U32(129), b);
            let over = fx.binary(BinaryOperator::Greater, rounds, bound);
            let stop = fx.nested(b, |fx, b| fx.statement(Statement::Break, b));
            fx.if_then(over, stop, b);
            let mine = fx.emitted(Expression::Load { pointer: left });
            let any = self.reduce(fx, SubgroupOperation::Any, mine, b);
            let none = fx.emitted(Expression::Unary {
                op: UnaryOperator::LogicalNot,
                expr: any,
            });
            let stop = fx.nested(b, |fx, b| fx.statement(Statement::Break, b));
            fx.if_then(none, stop, b);
            let max = fx.literal(Literal::U32(u32::MAX), b);
            let key = fx.emitted(Expression::Select {
                condition: mine,
                accept: value,
                reject: max,
            });
            let least = self.collective(fx, SubgroupOperation::Min, key, u32_ty, b);
            fx.increment(count, b);
            let other = fx.binary(BinaryOperator::NotEqual, value, least);
            let still = fx.binary(BinaryOperator::LogicalAnd, mine, other);
            fx.statement(
                Statement::Store {
                    pointer: left,
                    value: still,
                },
                b,
            );
        });
        fx.statement(
            Statement::Loop {
                body,
                continuing: Block::new(),
                break_if: None,
            },
            out,
        );
        fx.emitted(Expression::Load { pointer: count })
    }

    /// `lane == subgroupBroadcastFirst(lane)`: true in the lowest active lane only. One ballot
    /// and one shuffle; the `subgroupExclusiveAdd(1u) == 0u` it replaced was a scan of five
    /// shuffles, and on the H200 it was three quarters of the instrumented switch kernel's time
    /// (the kernel alone 10.6 ms at k = 32: 210 ms with the scan, 52 ms with no election).
    fn elect(&self, fx: &mut FnCx<'_>, out: &mut Block) -> Handle<Expression> {
        let (global, _) = self.lane_id.expect("elections need subgroups");
        let pointer = fx.unemitted(Expression::GlobalVariable(global), out);
        let lane = fx.emitted(Expression::Load { pointer });
        let first = fx.unemitted(Expression::SubgroupOperationResult { ty: self.u32_ty }, out);
        fx.statement(
            Statement::SubgroupGather {
                mode: GatherMode::BroadcastFirst,
                argument: lane,
                result: first,
            },
            out,
        );
        fx.emitted(Expression::Binary {
            op: BinaryOperator::Equal,
            left: lane,
            right: first,
        })
    }

    /// `reduce` (`subgroupAll`/`subgroupAny`) of a bool.
    fn reduce(
        &self,
        fx: &mut FnCx<'_>,
        op: SubgroupOperation,
        argument: Handle<Expression>,
        out: &mut Block,
    ) -> Handle<Expression> {
        self.collective(fx, op, argument, self.bool_ty, out)
    }

    /// `op` over the subgroup's active lanes of `argument`, of type `ty`.
    fn collective(
        &self,
        fx: &mut FnCx<'_>,
        op: SubgroupOperation,
        argument: Handle<Expression>,
        ty: Handle<Type>,
        out: &mut Block,
    ) -> Handle<Expression> {
        let result = fx.unemitted(Expression::SubgroupOperationResult { ty }, out);
        fx.statement(
            Statement::SubgroupCollectiveOperation {
                op,
                collective_op: CollectiveOperation::Reduce,
                argument,
                result,
            },
            out,
        );
        result
    }

    /// Before an `if`: divergent iff `subgroupAny(c) && !subgroupAll(c)`.
    fn count_if(
        &self,
        fx: &mut FnCx<'_>,
        branch: usize,
        condition: Handle<Expression>,
        out: &mut Block,
    ) {
        let all = self.reduce(fx, SubgroupOperation::All, condition, out);
        let any = self.reduce(fx, SubgroupOperation::Any, condition, out);
        let not_all = fx.emitted(Expression::Unary {
            op: UnaryOperator::LogicalNot,
            expr: all,
        });
        let divergent = fx.emitted(Expression::Binary {
            op: BinaryOperator::LogicalAnd,
            left: any,
            right: not_all,
        });
        self.count_branch(fx, branch, divergent, out);
    }

    /// Before a `switch`: divergent iff `!subgroupAll(s == subgroupBroadcastFirst(s))`. A switch
    /// with only a `default` case cannot diverge (and its selector type is not at hand).
    fn count_switch(
        &self,
        fx: &mut FnCx<'_>,
        branch: usize,
        selector: Handle<Expression>,
        ty: Option<Handle<Type>>,
        out: &mut Block,
    ) {
        let divergent = match ty {
            Some(ty) => {
                let first = fx.unemitted(Expression::SubgroupOperationResult { ty }, out);
                fx.statement(
                    Statement::SubgroupGather {
                        mode: GatherMode::BroadcastFirst,
                        argument: selector,
                        result: first,
                    },
                    out,
                );
                let same = fx.emitted(Expression::Binary {
                    op: BinaryOperator::Equal,
                    left: selector,
                    right: first,
                });
                let all = self.reduce(fx, SubgroupOperation::All, same, out);
                fx.emitted(Expression::Unary {
                    op: UnaryOperator::LogicalNot,
                    expr: all,
                })
            }
            None => fx.literal(Literal::Bool(false), out),
        };
        self.count_branch(fx, branch, divergent, out);
    }

    fn cap_check(&self, fx: &mut FnCx<'_>, check: CapCheck, out: &mut Block) {
        cap_check_at(fx, self.counters, check, out);
    }

    /// The elected lane adds 1 evaluation, and 1 divergent evaluation when `divergent`.
    fn count_branch(
        &self,
        fx: &mut FnCx<'_>,
        branch: usize,
        divergent: Handle<Expression>,
        out: &mut Block,
    ) {
        let elected = self.elect(fx, out);
        let local = self.local;
        if !fx.hot {
            let counters = self.counters;
            let add = fx.nested(out, |fx, b| {
                let one = fx.literal(Literal::U32(1), b);
                add64(fx, counters, Word::Branch(branch, 0), one, b);
                let diverged = fx.nested(b, |fx, b| {
                    add64(fx, counters, Word::Branch(branch, 2), one, b);
                });
                fx.if_then(divergent, diverged, b);
            });
            fx.if_then(elected, add, out);
            return;
        }
        let one = fx.literal(Literal::U32(1), out);
        local_add_if(fx, local, Word::Branch(branch, 0), elected, one, out);
        let both = fx.binary(BinaryOperator::LogicalAnd, elected, divergent);
        local_add_if(fx, local, Word::Branch(branch, 2), both, one, out);
    }
}

/// `&divlab_counters[word]`, its index patched once the layout is known.
fn counter(
    fx: &mut FnCx<'_>,
    counters: Handle<GlobalVariable>,
    word: Word,
    out: &mut Block,
) -> Handle<Expression> {
    let base = fx.unemitted(Expression::GlobalVariable(counters), out);
    let pointer = fx.emitted(Expression::AccessIndex { base, index: 0 });
    fx.patches.push((pointer, word));
    pointer
}

/// 64-bit add of `value` (a `u32`) to the pair whose low word is `word` (the high word
/// follows): `old = atomicAdd(&lo, v); if old + v < v { atomicAdd(&hi, 1u); }`.
fn add64(
    fx: &mut FnCx<'_>,
    counters: Handle<GlobalVariable>,
    word: Word,
    value: Handle<Expression>,
    out: &mut Block,
) {
    let pointer = counter(fx, counters, word, out);
    let old = fx.unemitted(
        Expression::AtomicResult {
            ty: fx.u32_ty,
            comparison: false,
        },
        out,
    );
    fx.statement(
        Statement::Atomic {
            pointer,
            fun: AtomicFunction::Add,
            value,
            result: Some(old),
        },
        out,
    );
    let sum = fx.binary(BinaryOperator::Add, old, value);
    let wrapped = fx.binary(BinaryOperator::Less, sum, value);
    let carry = fx.nested(out, |fx, b| {
        let one = fx.literal(Literal::U32(1), b);
        let pointer = counter(fx, counters, word.high(), b);
        fx.statement(
            Statement::Atomic {
                pointer,
                fun: AtomicFunction::Add,
                value: one,
                result: None,
            },
            b,
        );
    });
    fx.if_then(wrapped, carry, out);
}

/// `divlab_local[word] += select(0u, value, condition)`. A `select`, not an `if`: a branch at
/// every block entry of a loop would itself diverge.
fn local_add_if(
    fx: &mut FnCx<'_>,
    local: Handle<GlobalVariable>,
    word: Word,
    condition: Handle<Expression>,
    value: Handle<Expression>,
    out: &mut Block,
) {
    let zero = fx.literal(Literal::U32(0), out);
    let mine = fx.emitted(Expression::Select {
        condition,
        accept: value,
        reject: zero,
    });
    local_add(fx, local, word, mine, out);
}

/// `divlab_local[word] += value`: the invocation's private count of a counter `word` (whose
/// private index is patched once the layout is known).
fn local_add(
    fx: &mut FnCx<'_>,
    local: Handle<GlobalVariable>,
    word: Word,
    value: Handle<Expression>,
    out: &mut Block,
) {
    let base = fx.unemitted(Expression::GlobalVariable(local), out);
    let pointer = fx.emitted(Expression::AccessIndex { base, index: 0 });
    fx.local_patches.push((pointer, word));
    let old = fx.emitted(Expression::Load { pointer });
    let new = fx.emitted(Expression::Binary {
        op: BinaryOperator::Add,
        left: old,
        right: value,
    });
    fx.statement(
        Statement::Store {
            pointer,
            value: new,
        },
        out,
    );
}

/// The top of a loop body: `trips += 1u; if trips > cap { atomicMax(&cap_hit, loop + 1u);
/// atomicAdd(&cap_hits[loop], 1u); break; }`.
fn cap_check_at(
    fx: &mut FnCx<'_>,
    counters: Handle<GlobalVariable>,
    check: CapCheck,
    out: &mut Block,
) {
    let CapCheck { trips, cap, lp } = check;
    let pointer = fx.unemitted(Expression::LocalVariable(trips), out);
    let after = fx.increment(pointer, out);
    let cap = fx.literal(Literal::U32(cap), out);
    let over = fx.emitted(Expression::Binary {
        op: BinaryOperator::Greater,
        left: after,
        right: cap,
    });
    let hit = fx.nested(out, |fx, b| {
        let first = counter(fx, counters, Word::CapHit, b);
        let id = fx.literal(Literal::U32(lp as u32 + 1), b);
        fx.statement(
            Statement::Atomic {
                pointer: first,
                fun: AtomicFunction::Max,
                value: id,
                result: None,
            },
            b,
        );
        let hits = counter(fx, counters, Word::Loop(lp), b);
        let one = fx.literal(Literal::U32(1), b);
        fx.statement(
            Statement::Atomic {
                pointer: hits,
                fun: AtomicFunction::Add,
                value: one,
                result: None,
            },
            b,
        );
        fx.statement(Statement::Break, b);
    });
    fx.if_then(over, hit, out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shaders::{check_wgsl, prepare_for_naga};

    /// If/else, an early return, a switch with a case list and an empty default, a `for` loop
    /// with per-lane trips, and a helper call (the helper has an early return of its own).
    const KERNEL: &str = "\
@group(0) @binding(0) var<storage, read_write> out: array<u32>;

fn helper(x: u32) -> u32 {
    if x > 4u {
        return x * 2u;
    }
    return x;
}
// fn main is the entry point (a comment naming it does not move its line)
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if i >= arrayLength(&out) {
        return;
    }
    var acc = 0u;
    if (i & 1u) == 0u {
        acc = 1u;
    } else {
        acc = 2u;
    }
    switch i % 3u {
        case 0u: { acc += 10u; }
        case 1u, 2u: { acc += 20u; }
        default: { }
    }
    for (var k = 0u; k < i % 5u; k++) {
        acc += helper(k);
    }
    out[i] = acc;
}

fn unused() -> u32 {
    if true { return 1u; }
    return 0u;
}
";

    fn run(source: &str, subgroups: bool, loop_cap: u32) -> Instrumented {
        let prepared = prepare_for_naga(source);
        let module = check_wgsl("test.wgsl", &prepared).expect("test kernel");
        let opts = InstrumentOptions {
            subgroups,
            loop_cap,
            counters_group: 1,
            lanes_block: None,
        };
        let out = instrument(&module, &prepared, "main", &opts).expect("instrument");
        // The emitted WGSL goes back through divlab's own naga path, as the GPU will take it.
        check_wgsl("instrumented.wgsl", &out.wgsl)
            .unwrap_or_else(|e| panic!("{e}\n--- emitted WGSL ---\n{}", out.wgsl));
        assert!(!out.wgsl.contains("enable subgroups"));
        out
    }

    /// A block site: its kind, function, line and own lines, and what opens it (the opening
    /// statement's line and site).
    fn block(
        (kind, function): (BlockKind, &str),
        line: u32,
        lines: RangeInclusive<u32>,
        (parent_line, opener): (u32, Opener),
    ) -> BlockSite {
        BlockSite {
            kind,
            function: function.to_owned(),
            empty: false,
            line,
            lines,
            parent_line,
            opener,
        }
    }

    fn empty(kind: BlockKind, function: &str, (line, opener): (u32, Opener)) -> BlockSite {
        BlockSite {
            empty: true,
            ..block((kind, function), line, line..=line, (line, opener))
        }
    }

    #[test]
    fn sites_lines_and_round_trip() {
        use BlockKind::*;
        let out = run(KERNEL, true, 1000);
        let (main, helper) = ("main", "helper");
        let (function, branch, lp) = (Opener::Function, Opener::Branch, Opener::Loop);
        let expected = vec![
            block((FunctionBody, main), 11, 12..=30, (11, function)),
            block((IfAccept, main), 14, 14..=14, (13, branch(0))),
            empty(IfReject, main, (13, branch(0))),
            // After the early return, the lanes that stayed are counted anew (`var acc = 0u;`
            // is an initialized local, not a statement).
            block((Continuation, main), 17, 17..=30, (13, function)),
            block((IfAccept, main), 18, 18..=18, (17, branch(1))),
            block((IfReject, main), 20, 20..=20, (17, branch(1))),
            block((SwitchCase, main), 23, 23..=23, (22, branch(2))),
            block((SwitchCase, main), 24, 24..=24, (22, branch(2))),
            empty(SwitchCase, main, (22, branch(2))),
            // The `for` body: naga's exit test (line 27) and the user's body (line 28).
            block((LoopBody, main), 27, 27..=28, (27, lp(0))),
            empty(IfAccept, main, (27, branch(3))),
            block((IfReject, main), 27, 27..=27, (27, branch(3))),
            block((LoopContinuing, main), 27, 27..=27, (27, lp(0))),
            block((FunctionBody, helper), 3, 4..=7, (3, function)),
            block((IfAccept, helper), 5, 5..=5, (4, branch(4))),
            empty(IfReject, helper, (4, branch(4))),
            block((Continuation, helper), 7, 7..=7, (4, function)),
        ];
        assert_eq!(out.blocks, expected);
        let branches: Vec<(BranchKind, u32, &str)> = out
            .branches
            .iter()
            .map(|b| (b.kind, b.line, b.function.as_str()))
            .collect();
        assert_eq!(
            branches,
            [
                (BranchKind::If, 13, "main"),
                (BranchKind::If, 17, "main"),
                (BranchKind::Switch, 22, "main"),
                (BranchKind::If, 27, "main"),
                (BranchKind::If, 4, "helper"),
            ]
        );
        assert_eq!(
            out.loops,
            [LoopSite {
                exit_test: Some(3),
                test_branches: 3..4,
                line: 27,
                function: "main".to_owned()
            }]
        );
        assert_eq!(out.counter_words, 2 + 4 * 17 + 4 * 5 + 1);
        assert_eq!(out.layout.words(), out.counter_words);
        // Only the profiled entry point is left; the counters are bound where asked.
        assert_eq!(out.module.entry_points.len(), 1);
        assert!(out.wgsl.contains("@group(1) @binding(0)"));
        for op in [
            "subgroupBallot(true)",
            "countOneBits(",
            "= divlab_lane;",
            "subgroupBroadcastFirst(",
            "subgroupAll(",
            "subgroupAny(",
            "subgroupBroadcastFirst(",
            "atomicAdd(",
        ] {
            assert!(out.wgsl.contains(op), "no {op} in\n{}", out.wgsl);
        }
        // `helper` is called only in the `for` body (block 9): counted on the host from it.
        assert_eq!(out.derived, [(13, vec![9])]);
        // The `for` loop's counts are hoisted out of it: no subgroup operation runs per trip.
        let cap = out.wgsl.find("> 1000u").expect("the for loop's cap check");
        let at = out.wgsl[..cap].rfind("loop {").expect("the for loop");
        let trip = &out.wgsl[at..at + out.wgsl[at..].find("continuing").expect("continuing")];
        assert!(
            !trip.contains("subgroup"),
            "a subgroup operation per trip:\n{trip}"
        );
        // `unused` is not reachable from `main`: not instrumented.
        assert!(out.blocks.iter().all(|b| b.function != "unused"));
    }

    #[test]
    fn without_subgroups_no_subgroup_builtin() {
        let out = run(KERNEL, false, 1000);
        assert_eq!(out.blocks.len(), 17);
        assert_eq!(out.branches.len(), 5);
        for word in ["subgroup", "quad"] {
            assert!(!out.wgsl.contains(word), "{word} in\n{}", out.wgsl);
        }
        assert!(out.wgsl.contains("atomicAdd("));
    }

    #[test]
    fn loop_has_cap_check() {
        for subgroups in [true, false] {
            let out = run(KERNEL, subgroups, 12345);
            let at = out.wgsl.find("loop {").expect("a loop");
            let body = &out.wgsl[at..];
            let check = body.find("12345u").expect("cap check in the loop");
            let tail = &body[check..];
            let brk = tail.find("break;").expect("break after the cap check");
            let max = tail.find("atomicMax(").expect("cap hit recorded");
            assert!(max < brk, "the hit is recorded before the break");
            // The cap is checked before the body's first user statement (`helper`'s call).
            assert!(check < body.find("helper(").expect("call in the body"));
        }
    }

    #[test]
    fn loop_continuing_break_if_and_nested_calls() {
        let src = "\
@group(0) @binding(0) var<storage, read_write> data: array<i32>;

fn leaf(v: i32) -> i32 {
    switch v {
        case 1: { return 3; }
        default: { return v; }
    }
}

fn mid(v: i32) -> i32 {
    var s = 0;
    while s < v {
        s += leaf(s);
    }
    return s;
}

@compute @workgroup_size(32)
fn main(@builtin(local_invocation_index) li: u32) {
    var n = 0;
    loop {
        n += mid(i32(li));
        continuing {
            n += 1;
            break if n > 10;
        }
    }
    data[li] = n;
}
";
        let out = run(src, true, 7);
        let functions: Vec<&str> = out
            .blocks
            .iter()
            .filter(|b| b.kind == BlockKind::FunctionBody)
            .map(|b| b.function.as_str())
            .collect();
        // Callers before callees: a callee's calls are all known when it is reached.
        assert_eq!(functions, ["main", "mid", "leaf"]);
        // `mid` runs from `main`'s loop body (block 1) and `leaf` from `mid`'s `while` body:
        // both are counted on the host from those blocks.
        let body_of = |function: &str| {
            let at = |b: &&BlockSite| b.function == function && b.kind == BlockKind::LoopBody;
            out.blocks.iter().position(|b| at(&b)).expect("loop body")
        };
        let function_body = |function: &str| {
            let at = |b: &BlockSite| b.function == function && b.kind == BlockKind::FunctionBody;
            out.blocks.iter().position(at).expect("function body")
        };
        assert_eq!(
            out.derived,
            [
                (function_body("mid"), vec![body_of("main")]),
                (function_body("leaf"), vec![body_of("mid")]),
            ]
        );
        let continuing: Vec<&BlockSite> = out
            .blocks
            .iter()
            .filter(|b| b.kind == BlockKind::LoopContinuing)
            .collect();
        assert_eq!(continuing[0].function, "main");
        assert_eq!(continuing[0].lines, 24..=25);
        let loops: Vec<(u32, &str)> = out
            .loops
            .iter()
            .map(|l| (l.line, l.function.as_str()))
            .collect();
        assert_eq!(loops, [(21, "main"), (12, "mid")]);
        let switch = out
            .branches
            .iter()
            .find(|b| b.kind == BranchKind::Switch)
            .expect("switch");
        assert_eq!((switch.line, switch.function.as_str()), (4, "leaf"));
        run(src, false, 7);
    }

    #[test]
    fn rejects_missing_entry_and_taken_binding() {
        let prepared = prepare_for_naga(KERNEL);
        let module = check_wgsl("test.wgsl", &prepared).unwrap();
        let mut opts = InstrumentOptions::default();
        let err = instrument(&module, &prepared, "nope", &opts).unwrap_err();
        assert!(err.to_string().contains("`nope`"), "{err}");
        opts.counters_group = 0;
        let err = instrument(&module, &prepared, "main", &opts).unwrap_err();
        assert!(err.to_string().contains("@group(0) @binding(0)"), "{err}");
    }

    #[test]
    fn layout_reads_wide_counters() {
        let layout = CounterLayout {
            blocks: 2,
            branches: 1,
            loops: 2,
        };
        assert_eq!(layout.words(), 2 + 8 + 4 + 2);
        assert_eq!(layout.block_active_lanes(1), 8);
        assert_eq!(layout.branch_divergent(0), 12);
        assert_eq!(layout.loop_cap_hits(1), 15);
        let mut words = vec![0u32; 16];
        words[0] = 2;
        words[1] = 32;
        words[layout.block_executions(1)] = 5;
        words[layout.block_active_lanes(1)] = 7;
        words[layout.block_active_lanes(1) + 1] = 1;
        words[layout.branch_evaluations(0)] = 3;
        words[layout.branch_divergent(0)] = 1;
        words[layout.loop_cap_hits(1)] = 9;
        let c = layout.read(&words).unwrap();
        assert_eq!(c.cap_hit, Some(1));
        assert_eq!(c.max_active_lanes, Some(32));
        assert_eq!(c.blocks[0], BlockCounts::default());
        assert_eq!(c.blocks[1].executions, 5);
        assert_eq!(c.blocks[1].active_lanes, (1 << 32) + 7);
        assert_eq!(
            c.branches[0],
            BranchCounts {
                evaluations: 3,
                divergent: 1
            }
        );
        assert_eq!(c.loop_cap_hits, [0, 9]);
        assert!(layout.read(&words[1..]).is_err());
        let b = BlockCounts {
            executions: 4,
            active_lanes: 64,
        };
        assert_eq!(b.mean_active_lanes(), Some(16.0));
        assert_eq!(b.efficiency(32), Some(0.5));
    }
}
