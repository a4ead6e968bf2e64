//! The IR transformation behind `divlab profile`: counters injected into a user's compute kernel
//! on naga's IR (never on its text), so that one run reports, per block of the source, how many
//! subgroup executions it had and how many lanes were active, and per `if`/`switch` whether the
//! active lanes agreed.
//!
//! [`instrument`] takes the module naga parsed from the user's source (after
//! [`crate::shaders::prepare_for_naga`], which keeps line numbers) and returns the instrumented
//! module, its WGSL, and the sites ([`BlockSite`], [`BranchSite`], [`LoopSite`]) in counter order.
//! The host binds one `array<atomic<u32>>` of [`Instrumented::buffer_words`] zeroed words at
//! `@group(counters_group) @binding(0)`, runs the kernel, reads the words back and decodes them
//! with [`Instrumented::read_counters`] (or by hand with [`CounterLayout::fold`] and
//! [`CounterLayout::read`]). The buffer holds [`STRIPES`] copies of the counters; each
//! subgroup counts into the copy its workgroup id hashes to (`divlab_stripe`, set at the
//! kernel's entry), and the host folds them into one.
//!
//! # What the instrumented kernel does
//!
//! With `subgroups` (the adapter supports subgroup operations), counts are made by one elected
//! lane, the lowest active one (naga 30 has no `subgroupElect`; see below for how it is
//! found):
//! - at the entry of every block (function bodies, both sides of each `if`, each `switch` case,
//!   each loop body and `continuing`, and the statements after one that can take lanes out, a
//!   [`BlockKind::Continuation`]): 1 *execution* and the subgroup's *active lanes* (the bits of
//!   `subgroupBallot(true)`);
//! - just before every `if` and `switch`, in the enclosing block (where every lane that reaches
//!   the branch is still active), a vote on whether the lanes agree: for an `if`, divergent iff
//!   `subgroupAny(cond) && !subgroupAll(cond)`; for a `switch`, divergent iff
//!   `!subgroupAll(selector == subgroupBroadcastFirst(selector))`: 1 *evaluation*, and 1
//!   *divergent* one when they disagree;
//! - at the kernel's entry, `atomicMax` of the active lanes into [`MAX_LANES_WORD`] (the widest
//!   ballot), and by the elected lane of the `subgroup_size` builtin into
//!   [`SUBGROUP_WIDTH_WORD`]: the width the pipeline runs with, which a workgroup smaller than
//!   a subgroup does not fill.
//!
//! Where those counts go depends on how often they run:
//! - outside every loop (at most once per invocation): straight into the 64-bit counters;
//! - inside a loop (or a function called from one): into the invocation's private counts
//!   (`divlab_local`, each lane adds its 1 to the active lanes, the elected lane the rest), which
//!   `divlab_flush()` sums over the subgroup (`subgroupAdd`) and adds to the counters where the
//!   invocation leaves the kernel (every `return` of the entry point, and its end);
//! - an `if` inside a loop counts its sides from its vote, by the vote's elected lane: a side
//!   ran when some lane took it (`subgroupAny(c)`, `!subgroupAll(c)`), and each lane that took
//!   it adds its 1 to the active lanes; a count at each side's entry would be an election, a
//!   subgroup operation, at every trip;
//! - a `for`/`while` loop that can only leave by its test (`control::hoistable`, a test of
//!   `&&`s included) counts nothing per trip but the `if`s at the top level of its body that
//!   let no lane out, two votes and three private sums each, no election. After it, each
//!   lane's trip counter (and the first `&&` its last test rejected) gives its body's and
//!   test's counts, ballots of the trip counters' differing bits how many distinct trips lanes
//!   left at, and the sums of the lane that ran every trip (`subgroupMax`) each `if`'s counts
//!   (`hoist.rs`). On the H200 any subgroup operation in a loop costs most of a small kernel's
//!   time alone (docs/findings.md);
//! - a loop of fixed trips (`fixed.rs`: a counter from a constant to a constant, added to or
//!   scaled by a constant (a reduction's halving stride) in its `continuing` or at the end of a
//!   `while` body, and written nowhere else, so that every lane runs the same trips, known
//!   before the run) counts nothing per trip but the `if`s at the top of its body, and nothing
//!   after it but theirs: its body, test and exit are its trips times the block it stands in,
//!   on the host ([`Instrumented::derived`]). 294 of the 587 loops of 274 entry points, public
//!   and test kernels, were such;
//! - a function whose every call sits in a counted block is not counted at its entry: its
//!   executions and lanes are those of the calling blocks, summed on the host
//!   ([`Instrumented::derived`]).
//!
//! One election serves every count of a block until a statement that branches, loops or
//! calls (`Walk::election`): a block's count and the vote of the `if` after it share one. In a
//! loop it also serves after an `if`, whose sides rejoin (the lanes that reached it run on), and
//! after an `if` whose one side always leaves the election follows from the vote: the lanes of
//! the other side run on. An election is a ballot, `subgroupBallot(true)`, whose lowest lane
//! is elected (in a 2-D or 3-D workgroup a lane's bit is its rank at the entry,
//! `subgroupExclusiveAdd(1u)`, as every lane is active there), and the vote on an `if` is
//! `subgroupBallot(c)` compared with it; both read only the words of a ballot that the
//! adapter's largest subgroup can fill ([`InstrumentOptions::ballot_words`]). The exit flush and
//! `--lanes` elect the same way.
//!
//! Without `subgroups`, no subgroup builtin appears at all (an adapter without the feature
//! rejects any): every invocation counts 1 per entry into its block's *executions* (so they count
//! invocations, not subgroups) in its private counts and adds them at exit, into its
//! workgroup's stripe as with subgroups; *active lanes* and branch counters stay 0.
//!
//! Either way every loop gets an iteration cap, the safety net that keeps a user kernel from
//! hanging the GPU: one private trip counter per invocation (`divlab_trips`), incremented at
//! the top of every loop body, those of called functions too. The trip that takes it past
//! `loop_cap` records the hit in its loop (`atomicMax` of the loop's index + 1 into
//! [`CAP_HIT_WORD`], `atomicAdd` of 1 to the loop's cap-hit count) and `break`s; every later
//! trip of the invocation, in that loop's enclosing loops or any other, breaks at once. So an
//! invocation runs at most `loop_cap` loop iterations in all: nested loops bounded by inputs
//! end after `loop_cap` trips, not `loop_cap` to the power of their depth. (A per-entry cap
//! let two nested loops run 10^12 trips per invocation.)
//!
//! Functions the entry point calls (directly or not) are instrumented once; their counters
//! aggregate all calls. Other entry points are dropped from the instrumented module (their
//! functions stay, uninstrumented unless the kernel calls them too), so the module holds
//! exactly the kernel being profiled. naga's WGSL writer renames an entry point named like a
//! WGSL builtin or enumerant (`step`, `read`) or ending in a digit; [`Instrumented::entry`] is
//! the name it wrote, which the pipeline must use.
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
//! - But on a big dispatch of a short kernel every subgroup still added into the *same* few
//!   words, and same-address atomics serialise: `assets/kernels/edges.wgsl` over 1280×800
//!   (32,000 subgroups of 32) took 15.2 µs alone and 333 µs instrumented (21.9x). So the buffer
//!   holds [`STRIPES`] (64) copies of the counters, and a subgroup counts into the copy its
//!   `workgroup_id` hashes to (`divlab_stripe`, the copy's first word, set once at the
//!   entry): 64 addresses per counter instead of one, for one private load and add per
//!   counter. The copies are copy-major, each padded to a 128-byte line
//!   ([`STRIPE_ALIGN_WORDS`]), so two stripes never share a line (interleaving them, word ×
//!   64 + stripe, would put a word's 64 copies on two lines, which the L2 may still serialise);
//!   the host folds them ([`CounterLayout::fold`]). The widest ballot's `atomicMax` is made by
//!   the elected lane only (every lane made it, with the same value). On the H200 the edge
//!   profile then took 26.2 µs instead of 333 µs (15.4 µs alone).
//! - The carry of a 64-bit count waited for each `atomicAdd`'s old value, a round trip to
//!   memory at every counted site: most of a short kernel's cost (particles 4.6 µs alone,
//!   9.7 µs instrumented). Counts that cannot wrap take a plain `atomicAdd` ([`Wide`]): 5.8 µs.
//!   Over the 83 timed runs of the corpus the median overhead went from 2.11x to 1.40x.
//! - Collatz's loop ran 15 subgroup operations a trip (an election per counted side, a vote of
//!   two and an election per `if`): 13.8x. Sides counted from the vote and one election per
//!   block: 9 a trip, 8.4x. Elections and votes from ballots, and the election after an `if`
//!   from its vote: 4 ballots a trip, 5.5x (82.1 µs, the kernel alone 15 µs).
//!
//! # Overflow
//!
//! Every executions/lanes/evaluations/divergent counter in the buffer is 64-bit: two words, low
//! then high. A count that cannot reach 2^32 ([`Wide`]: the dispatch's invocations, the call
//! paths to the function and, in loops, the loop cap bound it) is a plain `atomicAdd` to the
//! low word. Otherwise the elected lane adds to the low word with `atomicAdd`, and when the
//! returned old value plus the addend wraps (`old + n < n`), it adds 1 to the high word; the
//! flush keeps each old value and takes the carries after its last add, so that it waits for
//! the atomics once. After the dispatch
//! completes each stripe's pair is exact; [`CounterLayout::fold`] joins each stripe's pair
//! before summing the stripes (a carry of one stripe is never lost in another's low word), so
//! the total is exact up to 2^64, and [`CounterLayout::read`] decodes the folded copy. The private
//! counts are 32-bit: one invocation would need over 4 billion entries into one block, more
//! than any cap lets its loops run. Cap-hit counts are one word each (at most one hit per
//! invocation).
//!
//! # The naga WGSL writer
//!
//! naga 30's WGSL writer never emits `enable subgroups;` (its `write_enable_declarations` knows
//! no such extension) and writes subgroup operations as the plain builtins (`subgroupBallot(..)`,
//! `subgroupExclusiveAdd(..)`, `subgroupAll(..)`, `subgroupBroadcastFirst(..)`), which is what
//! naga 30's front end, and so wgpu 30, accepts: the text needs no post-processing. The tests
//! round-trip it through [`crate::shaders::check_wgsl`].
//!
//! # Where each part lives
//!
//! Like naga's own passes (`compact/`, `back/spv/`), one concern per file, most of them an
//! `impl Pass` block:
//! - `sites.rs`: the site tables ([`BlockSite`], [`BranchSite`], [`LoopSite`]) and their lines;
//! - `layout.rs`: the counter layout the host decodes, its stripes and their fold
//!   ([`CounterLayout`], [`read_lanes`]);
//! - `control.rs`: the pure control-flow checks (which statements let lanes leave, which loops
//!   are hoisted, where an exit test ends, which functions are reached);
//! - `globals.rs`: the globals the pass adds;
//! - `emit.rs`: the `Emitter`, which appends IR in the pass's vocabulary;
//! - `walk.rs`: the statement walk (`walk_if`, `walk_switch`, `walk_loop`);
//! - `count.rs`: the votes and the counts, through one sink (the counters or the private
//!   counts);
//! - `cap.rs`, `flush.rs`, `hoist.rs`, `elect.rs`, `lanes.rs`: the loop cap, the exit flush,
//!   hoisted loops, the election (and the stripe, set beside it at the entry) and `--lanes`;
//! - `patch.rs`: the counter indices (and the stripes' stride), patched once every site is
//!   numbered.

mod cap;
mod clause;
mod control;
mod count;
mod depth;
mod elect;
mod emit;
mod fixed;
mod flush;
mod globals;
mod hoist;
mod keep;
mod lanes;
mod layout;
mod patch;
mod sites;
#[cfg(test)]
mod stripe_tests;
#[cfg(test)]
mod tests;
mod walk;

use naga::{Module, ShaderStage};

pub use self::clause::ClauseSite;
use self::globals::Globals;
pub use self::layout::{
    BLOCK_WORDS, BRANCH_WORDS, BlockCounts, BranchCounts, CAP_HIT_WORD, CounterLayout, Counters,
    HEADER_WORDS, LANE_RECORD_WORDS, LANE_RECORD_WORDS_MULTI, LANE_RECORDS, LANES_COMPLETE,
    LANES_CONTIGUOUS, LOOP_LIMIT_WORD, LOOP_WORDS, LaneRecordRaw, MAX_LANES_WORD,
    STRIPE_ALIGN_WORDS, STRIPES, SUBGROUP_WIDTH_WORD, read_lanes,
};
use self::sites::Sites;
pub use self::sites::{BlockKind, BlockSite, BranchKind, BranchSite, Derived, LoopSite, Opener};
use self::walk::Walk;
use super::error::Error as ProfileError;
use crate::Result;
use crate::source_map::SourceMap;

/// How to instrument a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InstrumentOptions {
    /// Use subgroup operations (per-subgroup executions, active lanes, branch uniformity). Off:
    /// per-invocation executions only, and no subgroup builtin in the output.
    pub subgroups: bool,
    /// The most loop iterations one invocation may run, of all its loops together (those of
    /// the functions it calls too); the trip that would be one more records a cap hit in its
    /// loop and breaks out, and so does every later trip of the invocation.
    pub loop_cap: u32,
    /// The bind group of the counters buffer (at binding 0). The user's kernel must not use
    /// `@group(counters_group) @binding(0)` itself.
    pub counters_group: u32,
    /// With subgroups: the block whose every subgroup execution records its ballot, workgroup
    /// and first active lane into the lanes buffer at `@group(counters_group) @binding(1)`
    /// (`divlab profile --lanes LINE`; the host finds the block that owns the line).
    pub lanes_block: Option<usize>,
    /// The invocations of the dispatch, `u64::MAX` when not known. With the call paths and the
    /// loop cap they bound every count, and a counter whose count cannot reach 2^32 takes a
    /// plain `atomicAdd` with no carry ([`Wide`]).
    pub invocations: u64,
    /// The words of a ballot that can hold lanes, `⌈subgroup_max_size / 32⌉` (1 where no
    /// subgroup is wider than 32 lanes; 4, every word, when not known): the elections, votes
    /// and lane counts made from ballots read only those.
    pub ballot_words: u32,
    /// For llvmpipe, which ends the loops of a subgroup after 65535 passes of all its loops
    /// together (its lanes' and divlab's own), silently: a kernel with loops ends by probing
    /// whether that limit ran out, with a loop of two passes that runs one once it has, and sets
    /// [`LOOP_LIMIT_WORD`] if so. The cap counts one invocation's trips, so it alone cannot be
    /// set to fire first on every kernel.
    pub probe_loop_limit: bool,
}

/// Which counters may wrap their low word and so take the carry into their high word. The
/// carry check reads the value `atomicAdd` returns, a round trip to memory that the invocation
/// waits out at every counted site: on the H200 it was most of what a short kernel paid for
/// its counts (4.6 µs alone, 9.7 µs instrumented, 6.0 µs without the checks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Wide {
    /// The counts made outside loops: each at most one per invocation and call path (a block
    /// runs once per entry of its function, with each lane counted once).
    pub direct: bool,
    /// The private counts of sites in loops, flushed at the exit: at most `loop_cap + 1` per
    /// invocation and call path.
    pub flushed: bool,
}

impl Wide {
    fn of(opts: &InstrumentOptions, call_paths: u64) -> Self {
        let direct = opts.invocations.saturating_mul(call_paths);
        let flushed = direct.saturating_mul(u64::from(opts.loop_cap) + 1);
        Self {
            direct: direct >= 1 << 32,
            flushed: flushed >= 1 << 32,
        }
    }
}

impl Default for InstrumentOptions {
    fn default() -> Self {
        Self {
            subgroups: true,
            loop_cap: 1 << 20,
            counters_group: 3,
            lanes_block: None,
            invocations: u64::MAX,
            ballot_words: 4,
            probe_loop_limit: false,
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
    /// The entry point's name in `wgsl`, which the pipeline names: naga's writer renames one
    /// that is a WGSL keyword or builtin (`step` becomes `step_`, `read` becomes `read_`).
    pub entry: String,
    /// Words per record of the lanes buffer (`--lanes`): [`LANE_RECORD_WORDS`], or
    /// [`LANE_RECORD_WORDS_MULTI`] in a 2-D or 3-D workgroup.
    pub lane_record_words: u32,
    /// One per instrumented block, in counter order (index = block slot of the layout).
    pub blocks: Vec<BlockSite>,
    /// One per `if`/`switch`, in counter order.
    pub branches: Vec<BranchSite>,
    /// One per loop, in counter order.
    pub loops: Vec<LoopSite>,
    /// Counts made nowhere in the kernel but on the host from others: a function body whose
    /// every call site is in a counted block, a loop of fixed trips. [`Self::read_counters`]
    /// fills them in.
    pub derived: Vec<Derived>,
    /// Where each counter lives in the counters buffer.
    pub layout: CounterLayout,
    /// The words of one copy of the counters (`layout.words()`), as [`Self::read_counters`]
    /// folds them.
    pub counter_words: u32,
    /// The size of the counters buffer in `u32` words (`layout.buffer_words()`: [`STRIPES`]
    /// copies); bind it zeroed.
    pub buffer_words: u32,
    /// The options it was built with.
    pub options: InstrumentOptions,
    /// The largest loop cap under which no count of this kernel can wrap (its call paths and
    /// the subgroup's lanes bound each sum); a larger cap is lowered to it.
    pub max_loop_cap: u32,
    /// Whether the exit flush counts the lanes it adds private counts for
    /// ([`Counters::exits`]): with subgroups, where there are private counts (a site in a
    /// loop, or in a function called from one). The lanes that entered are the entry block's.
    pub exits_counted: bool,
}

impl Instrumented {
    /// What opens the block that the branch or loop `site` stands in (a function body stands in
    /// nothing: its own opener).
    pub fn enclosing(&self, site: Opener) -> Opener {
        match site {
            Opener::Branch(r) => self.branches[r].enclosing,
            Opener::Loop(l) => self.loops[l].enclosing,
            Opener::Function => Opener::Function,
        }
    }

    /// Decodes the counters buffer read back after the dispatch (its stripes folded into
    /// one), and fills in the [`Self::derived`] counts (callers are numbered before their
    /// callees, a loop before what it holds, so a count's sources are complete when it is
    /// reached).
    pub fn read_counters(&self, words: &[u32]) -> Result<Counters> {
        let mut counters = self.layout.read(&self.layout.fold(words)?)?;
        for derived in &self.derived {
            let blocks = &mut counters.blocks;
            match *derived {
                Derived::Calls { block, ref callers } => {
                    blocks[block] =
                        callers
                            .iter()
                            .fold(BlockCounts::default(), |sum, &b| BlockCounts {
                                executions: sum.executions + blocks[b].executions,
                                active_lanes: sum.active_lanes + blocks[b].active_lanes,
                            });
                }
                Derived::Scaled { block, from, times } => {
                    blocks[block] = BlockCounts {
                        executions: blocks[from].executions * u64::from(times),
                        active_lanes: blocks[from].active_lanes * u64::from(times),
                    };
                }
                Derived::ExitTest {
                    branch,
                    from,
                    times,
                } => {
                    counters.branches[branch] = BranchCounts {
                        evaluations: blocks[from].executions * u64::from(times),
                        divergent: 0,
                    };
                }
            }
        }
        Ok(counters)
    }
}

/// The pass over one module: its options, the globals it added, the source's lines, the sites
/// numbered so far, and where the walk is.
struct Pass<'s> {
    opts: InstrumentOptions,
    wide: Wide,
    g: Globals,
    lines: SourceMap<'s>,
    sites: Sites,
    at: Walk,
    /// The module's integer constants, which a fixed loop's bounds may name.
    constants: fixed::Constants,
}

/// Instruments entry point `entry` of `module` (parsed from `source`, the text after
/// `prepare_for_naga`) as the module documentation describes.
///
/// Fails when there is no compute entry point `entry` or the kernel already uses the counters
/// binding, and with [`ProfileError::Internal`] if the result does not validate or naga cannot
/// write it (a divlab bug).
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
            ProfileError::UnknownEntryPoint {
                wanted: entry.to_owned(),
                why: format!("the kernel has no compute entry point `{entry}`"),
            }
        })?;
    let mut module = module.clone();
    let entry_point = module.entry_points.swap_remove(ep_index);
    module.entry_points = vec![entry_point];
    let call_paths = control::call_paths(&module);
    let wide = Wide::of(opts, call_paths);
    let mut pass = Pass {
        opts: *opts,
        wide,
        g: Globals::add(&mut module, opts)?,
        lines: SourceMap::new(source),
        sites: Sites::default(),
        at: Walk::new(entry, true, Default::default()),
        constants: fixed::integer_constants(&module),
    };
    let mut patches = pass.functions(&mut module, source, entry);
    let slots = patch::private_slots(&patches);
    patches.push((Some(pass.g.flush_fn), pass.write_flush(&mut module, &slots)));
    let layout = CounterLayout {
        blocks: pass.sites.blocks.len() as u32,
        branches: pass.sites.branches.len() as u32,
        loops: pass.sites.loops.len() as u32,
    };
    patch::apply(&mut module, patches, &layout, &slots);
    pass.g.size_local(&mut module, slots.len() as u32);
    depth::name_deep_expressions(&mut module);
    let (braces, line) = depth::deepest_braces(&module, &pass.lines);
    if braces > depth::MAX_BRACE_DEPTH {
        return Err(ProfileError::NestedTooDeep {
            line: line.unwrap_or(0),
            depth: braces,
            limit: depth::MAX_BRACE_DEPTH,
        }
        .into());
    }
    let (wgsl, written_entry) = validated_wgsl(&module, entry)?;
    let lane_record_words = if pass.g.multi_dim {
        LANE_RECORD_WORDS_MULTI
    } else {
        LANE_RECORD_WORDS
    };
    Ok(Instrumented {
        module,
        wgsl,
        entry: written_entry,
        lane_record_words,
        blocks: pass.sites.blocks,
        branches: pass.sites.branches,
        loops: pass.sites.loops,
        derived: pass.sites.derived,
        layout,
        counter_words: layout.words(),
        buffer_words: layout.buffer_words(),
        options: *opts,
        max_loop_cap: max_loop_cap(opts, call_paths),
        exits_counted: flush::counts_exits(opts, &slots),
    })
}

/// The largest loop cap under which no count can wrap before its carry is taken: a lane's
/// private count of a block in a loop is at most `(cap + 1) × call_paths` in 32 bits, and the
/// exit flush and the hoisted loops add such counts over a subgroup's lanes (up to 32 a ballot
/// word) in 32 bits, before the 64-bit add. At least 1.
fn max_loop_cap(opts: &InstrumentOptions, call_paths: u64) -> u32 {
    let lanes = if opts.subgroups {
        32 * u64::from(opts.ballot_words.max(1))
    } else {
        1
    };
    let most = u64::from(u32::MAX) / lanes.saturating_mul(call_paths.max(1));
    most.saturating_sub(1).clamp(1, u64::from(u32::MAX - 1)) as u32
}

/// What `--emit-instrumented` starts with where the counters use subgroup operations: naga's
/// writer leaves out the `enable` (naga reads WGSL without one; a browser does not), and the
/// counters vote in control flow that WGSL's uniformity rules call non-uniform.
const SUBGROUP_DIRECTIVES: &str = "enable subgroups;\n\
    // divlab's counters vote (ballots, reductions) inside the kernel's branches, on purpose.\n\
    diagnostic(off, subgroup_uniformity);\n";

impl Instrumented {
    /// [`Self::wgsl`] as a browser's WebGPU compiles it too: with the directives naga's writer
    /// leaves out ([`SUBGROUP_DIRECTIVES`]). What `--emit-instrumented` writes.
    pub fn portable_wgsl(&self) -> String {
        if self.options.subgroups {
            format!("{SUBGROUP_DIRECTIVES}{}", self.wgsl)
        } else if uses_subgroups(&self.module) {
            // `--counts invocations` on a kernel with subgroup operations of its own.
            format!("enable subgroups;\n{}", self.wgsl)
        } else {
            self.wgsl.clone()
        }
    }
}

/// Whether `module` uses a subgroup operation or builtin: it does not validate without them.
fn uses_subgroups(module: &Module) -> bool {
    let without = naga::valid::Capabilities::all()
        - naga::valid::Capabilities::SUBGROUP
        - naga::valid::Capabilities::SUBGROUP_BARRIER;
    naga::valid::Validator::new(naga::valid::ValidationFlags::all(), without)
        .validate(module)
        .is_err()
}

/// naga's WGSL of the instrumented module, once it validates, and the name it gives the entry
/// point (its namer escapes keywords and builtins, so it is read back from the text).
fn validated_wgsl(module: &Module, entry: &str) -> Result<(String, String)> {
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(module)
    .map_err(|e| ProfileError::internal(entry, "the instrumented module does not validate", &e))?;
    let wgsl =
        naga::back::wgsl::write_string(module, &info, naga::back::wgsl::WriterFlags::empty())
            .map_err(|e| {
                ProfileError::internal(entry, "naga cannot write the instrumented module", &e)
            })?;
    let written = naga::front::wgsl::parse_str(&wgsl).map_err(|e| {
        ProfileError::internal(entry, "naga cannot read the instrumented module back", &e)
    })?;
    let name = match written.entry_points.as_slice() {
        [ep] => ep.name.clone(),
        _ => {
            return Err(ProfileError::Internal {
                entry: entry.to_owned(),
                what: "the instrumented module does not have one entry point".to_owned(),
                detail: format!("{} entry points", written.entry_points.len()),
            }
            .into());
        }
    };
    let validator = || {
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
    };
    let written_info = validator().validate(&written).map_err(|e| {
        ProfileError::internal(
            entry,
            "the instrumented module read back does not validate",
            &e,
        )
    })?;
    let Some(restored) =
        keep::restore_phony_uses((module, &info), (&written, &written_info), &wgsl, &name)
    else {
        return Ok((wgsl, name));
    };
    let reread = naga::front::wgsl::parse_str(&restored).map_err(|e| {
        ProfileError::internal(entry, "naga cannot read the restored phony uses", &e)
    })?;
    validator().validate(&reread).map_err(|e| {
        ProfileError::internal(entry, "the restored phony uses do not validate", &e)
    })?;
    Ok((restored, name))
}
