//! The statement walk: every function the entry point reaches, block by block, numbering the
//! sites and asking the counting, cap and `--lanes` code for what each site adds.

use std::cell::Cell;
use std::collections::HashSet;

use naga::{
    BinaryOperator, Block, Expression, Function, Handle, LocalVariable, Module, Span, Statement,
    SwitchCase, SwitchValue, UnaryOperator,
};

use super::Pass;
use super::cap::CapCheck;
use super::clause::Chains;
use super::control::{self, Sides, hoistable, may_leave, split_exit_test};
use super::count::VotedIf;
use super::elect::Election;
use super::emit::{Emitter, Patches};
use super::fixed;
use super::hoist::mark_failed_links;
use super::sites::{
    BlockKind, BlockSite, BranchKind, Derived, LetSpans, Opener, borrowed_let_spans, decl_line,
    own_lines,
};
use crate::naga_walk::reachable_functions;

/// Where the walk is in the function being instrumented.
pub(super) struct Walk {
    /// The function's name, for its sites.
    pub name: String,
    /// Whether it is the entry point, whose exits flush the private counts.
    pub is_entry: bool,
    /// What opens the block being walked (a continuation's opener).
    pub opener: Opener,
    /// The block whose count is that of the statement being walked: it ran exactly when the
    /// statement did. `None` in a loop's exit test and an uncounted `for` update.
    pub in_force: Option<usize>,
    /// Walking a hoisted loop's exit test: no vote and no count at entry, as `hoist.rs` makes
    /// them after the loop.
    pub quiet: bool,
    /// Inside a loop (or a function called from one): counts go to the private counts, as a
    /// global atomic per trip would have every subgroup contend for the same words.
    pub hot: bool,
    /// Walking the body of a hoisted loop: the `if`s at its top level, which every lane runs at
    /// every trip, count per trip without an election and are counted after the loop
    /// (`hoist.rs`).
    pub trip_ifs: Option<TripIfs>,
    /// The election made at this point of the block being walked, while nothing since could
    /// have changed the lanes that run it (only straight-line statements): the next count
    /// takes it instead of a subgroup operation of its own. Cleared at a block's entry and
    /// after every statement that branches, loops or calls.
    pub election: Cell<Option<Election>>,
    /// The short-circuit chains seen so far, to name the clause each `if` tests.
    pub chains: Chains,
    /// Where the function's `let`s of a borrowed span are written (`sites::own_lines`).
    pub lets: LetSpans,
    /// The statement before the one being walked in its block, when it is a store (`Emit`s
    /// aside): a fixed loop's counter may start there (`fixed.rs`).
    pub stored_before: Option<(Handle<Expression>, Handle<Expression>)>,
    /// Inside a loop of the function being walked.
    pub in_loop: bool,
    /// The function's locals written by one statement alone (`fixed::written_once`).
    pub written_once: HashSet<Handle<LocalVariable>>,
}

impl Walk {
    pub fn new(name: &str, is_entry: bool, lets: LetSpans) -> Self {
        Self {
            name: name.to_owned(),
            is_entry,
            opener: Opener::Function,
            in_force: None,
            quiet: false,
            hot: false,
            trip_ifs: None,
            election: Cell::new(None),
            chains: Chains::default(),
            lets,
            stored_before: None,
            in_loop: false,
            written_once: HashSet::new(),
        }
    }
}

/// The `if`s at the top level of a hoisted loop's body (block site `body`).
pub(super) struct TripIfs {
    pub body: usize,
    pub ifs: Vec<TripIf>,
}

/// An `if` at the top level of a hoisted loop's body: its branch, the sides it counts, and
/// each lane's per-trip sums, made without an election: the trips at which it diverged and at
/// which some lane took the accept side (the same in every lane that ran the trip, so the lane
/// that ran every trip holds the subgroup's), and the lane's own accept sides.
pub(super) struct TripIf {
    pub branch: usize,
    pub sides: [Option<usize>; 2],
    pub divergent: Handle<LocalVariable>,
    pub accepted: Handle<LocalVariable>,
    pub lane_accepted: Handle<LocalVariable>,
}

/// What a block does at its entry besides its count.
#[derive(Clone, Copy, Default)]
pub(super) struct Entry {
    /// A loop body's cap check.
    pub cap_check: Option<CapCheck>,
    /// No count at entry: it is made after a hoisted loop (`hoist.rs`) or on the host from the
    /// calls ([`super::Instrumented::derived`]).
    pub counted_elsewhere: bool,
    /// A hoisted loop body whose test has `&&` links: the variable their reject sides mark
    /// with the first link a lane's last test rejected (`hoist.rs`).
    pub failed_link: Option<Handle<LocalVariable>>,
}

/// What one function's instrumentation leaves to fill in once every site is numbered.
pub(super) struct Patched {
    /// `&divlab_counters[word]` pointers.
    pub counters: Patches,
    /// `&divlab_local[word]` pointers.
    pub local: Patches,
}

impl Pass<'_> {
    /// Walks the entry point, then every function it reaches, callers before callees (naga's
    /// arena holds a callee before its callers), so a function's call sites are all known when
    /// it is walked. Returns each function's pointers to patch (`None` is the entry point).
    pub fn functions(
        &mut self,
        module: &mut Module,
        source: &str,
        entry: &str,
    ) -> Vec<(Option<Handle<Function>>, Patched)> {
        let reachable = reachable_functions(module, &module.entry_points[0].function);
        let entry_line = decl_line(source, &self.lines, entry);
        let function = &mut module.entry_points[0].function;
        let lets = borrowed_let_spans(source, function);
        let mut patches = vec![(None, self.function(function, None, entry, entry_line, lets))];
        for handle in reachable.into_iter().rev() {
            let line = self.lines.span_line(module.functions.get_span(handle));
            let function = &mut module.functions[handle];
            let name = function.name.clone().unwrap_or_default();
            let lets = borrowed_let_spans(source, function);
            let p = self.function(function, Some(handle), &name, line, lets);
            patches.push((Some(handle), p));
        }
        patches
    }

    /// Instruments one function (`handle` is `None` for the entry point); returns its counter
    /// pointers to patch. A function whose every call is in a counted block is counted on the
    /// host from those blocks ([`super::Instrumented::derived`]): a tight loop's callee costs nothing.
    fn function(
        &mut self,
        function: &mut Function,
        handle: Option<Handle<Function>>,
        name: &str,
        decl_line: Option<u32>,
        lets: LetSpans,
    ) -> Patched {
        let is_entry = handle.is_none();
        let calls = self.sites.calls_of(handle);
        let derived_from = (!calls.is_empty())
            .then(|| {
                calls
                    .iter()
                    .map(|&(block, _)| block)
                    .collect::<Option<Vec<usize>>>()
            })
            .flatten();
        let written_once = fixed::written_once(function);
        let body = std::mem::take(&mut function.body);
        let mut fx = Emitter::new(function, self.g.u32_ty, self.g.bool_ty);
        fx.ballot_words = self.opts.ballot_words;
        self.at = Walk::new(name, is_entry, lets);
        self.at.written_once = written_once;
        self.at.hot = calls.iter().any(|&(_, hot)| hot);
        let first =
            own_lines(&self.lines, (fx.function, &self.at.lets), &body).map_or(1, |(l, _)| l);
        let line = decl_line.unwrap_or(first);
        let index = self.sites.blocks.len();
        let entry = Entry {
            counted_elsewhere: derived_from.is_some(),
            ..Entry::default()
        };
        // Before the body's own derived counts, which may be made from it.
        if let Some(callers) = derived_from {
            let block = index;
            self.sites.derived.push(Derived::Calls { block, callers });
        }
        let site = (BlockKind::FunctionBody, Opener::Function, line);
        let mut new_body = self.block(&mut fx, body, site, entry);
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
        fx: &mut Emitter<'_>,
        block: Block,
        (kind, opener, parent_line): (BlockKind, Opener, u32),
        entry: Entry,
    ) -> Block {
        // A function body is reported at its `fn` line, every other block at its first line.
        let line_is_parent = kind == BlockKind::FunctionBody;
        let own = own_lines(&self.lines, (fx.function, &self.at.lets), &block);
        let (line, lines, empty) = match own {
            Some((first, range)) if !line_is_parent => (first, range, false),
            Some((_, range)) => (parent_line, range, false),
            None => (parent_line, parent_line..=parent_line, true),
        };
        let index = self.sites.new_block(BlockSite {
            kind,
            function: self.at.name.clone(),
            line,
            lines,
            empty,
            parent_line,
            opener,
        });
        let saved = fx.span;
        let saved_opener = std::mem::replace(&mut self.at.opener, opener);
        if let Some((_, span)) = block.span_iter().find(|(_, s)| s.is_defined()) {
            fx.span = *span;
        }
        let mut out = Block::with_capacity(block.len() + 8);
        let parent_election = self.at.election.take();
        self.at.stored_before = None;
        if let Some(check) = entry.cap_check {
            self.cap_check(fx, check, &mut out);
        }
        let saved_in_force = self.at.in_force.take();
        // A `for`/`while` body starts with its exit test, `if cond {} else { break; }`: the body
        // proper is counted after it, so its lines count the trips that ran it, not the test.
        let (mut test, block) = if kind == BlockKind::LoopBody {
            split_exit_test(block, &self.lines, parent_line)
        } else {
            (Block::new(), block)
        };
        if !test.is_empty() {
            fx.span = saved;
            if let Some(failed) = entry.failed_link {
                mark_failed_links(fx, &mut test, failed, &mut out);
            }
            let first = self.sites.branches.len();
            self.at.quiet = entry.counted_elsewhere;
            self.statements(fx, test, &mut out);
            self.at.quiet = false;
            if let Opener::Loop(lp) = opener {
                self.sites.loops[lp].exit_test = self.sites.branches.len().checked_sub(1);
                self.sites.loops[lp].test_branches = first..self.sites.branches.len();
            }
        }
        // A block with no code costs nothing to run and shows on no line, and a `for` loop's
        // `continuing` (the `i++` on the loop's own line) is reported with the loop: counting
        // them would add an election to every trip of the loop for nothing a reader sees.
        let header_continuing = kind == BlockKind::LoopContinuing
            && self.sites.blocks[index].lines == (parent_line..=parent_line);
        if index == 0 {
            // Before anything counts: the counts go to the stripe, and the election compares the
            // private lane id.
            self.keep_entry_builtins(fx, &mut out);
        }
        if !self.sites.blocks[index].empty && !header_continuing {
            if !entry.counted_elsewhere && !self.at.quiet {
                self.count_block(fx, index, &mut out);
            }
            self.at.in_force = Some(index);
        }
        if index == 0 && self.opts.subgroups {
            self.record_max_lanes(fx, &mut out);
        }
        if self.opts.lanes_block == Some(index) {
            self.record_lanes(fx, &mut out);
        }
        fx.span = saved;
        self.statements(fx, block, &mut out);
        self.at.opener = saved_opener;
        self.at.in_force = saved_in_force;
        self.at.election.set(parent_election);
        out
    }

    /// The block's statements, each instrumented, appended to `out`. After a statement that
    /// can take lanes out of the block (a `return`, or a `break`/`continue` of an enclosing
    /// loop, inside a branch), the rest is a [`BlockKind::Continuation`] with its own count:
    /// the lanes that left must not be counted on the lines after it.
    fn statements(&mut self, fx: &mut Emitter<'_>, block: Block, out: &mut Block) {
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
    fn continuation(&mut self, fx: &mut Emitter<'_>, rest: Block, after: Span, out: &mut Block) {
        let Some((first, lines)) = own_lines(&self.lines, (fx.function, &self.at.lets), &rest)
        else {
            self.statements(fx, rest, out);
            return;
        };
        let index = self.sites.new_block(BlockSite {
            kind: BlockKind::Continuation,
            function: self.at.name.clone(),
            line: first,
            lines,
            empty: false,
            parent_line: self.lines.span_lines(after).map_or(first, |(l, _)| l),
            opener: self.at.opener,
        });
        // The election in force is the one the statement before it left: for the lanes that
        // run on, or none.
        self.count_block(fx, index, out);
        self.at.in_force = Some(index);
        if self.opts.lanes_block == Some(index) {
            self.record_lanes(fx, out);
        }
        self.statements(fx, rest, out);
    }

    /// One statement, instrumented, appended to `out`.
    fn statement(
        &mut self,
        fx: &mut Emitter<'_>,
        statement: Statement,
        span: Span,
        out: &mut Block,
    ) {
        let saved = fx.span;
        fx.span = span;
        let line = self.lines.span_lines(span).map_or(0, |(l, _)| l);
        // The election in force after a statement that is not straight-line.
        let mut after = None;
        let stored = match statement {
            Statement::Store { pointer, value } => Some(Some((pointer, value))),
            Statement::Emit(_) => None,
            _ => Some(None),
        };
        // After these the lanes that run on are those that ran before.
        let straight_line = matches!(
            statement,
            Statement::Emit(_)
                | Statement::Block(_)
                | Statement::Store { .. }
                | Statement::ImageStore { .. }
                | Statement::Atomic { .. }
                | Statement::ImageAtomic { .. }
                | Statement::WorkGroupUniformLoad { .. }
                | Statement::SubgroupBallot { .. }
                | Statement::SubgroupGather { .. }
                | Statement::SubgroupCollectiveOperation { .. }
        );
        match statement {
            Statement::Block(inner) => {
                // An election made inside is out of scope after it.
                let before = self.at.election.get();
                let inner = fx.nested(out, |fx, b| self.statements(fx, inner, b));
                fx.statement(Statement::Block(inner), out);
                if self.at.election.get() != before {
                    self.at.election.set(None);
                }
            }
            Statement::If {
                condition,
                accept,
                reject,
            } => after = self.walk_if(fx, (condition, accept, reject), line, out),
            Statement::Switch { selector, cases } => {
                self.walk_switch(fx, selector, cases, line, out);
            }
            Statement::Loop {
                body,
                continuing,
                break_if,
            } => {
                // Counts after a hoisted loop elect anew.
                self.at.election.set(None);
                self.walk_loop(fx, (body, continuing, break_if), line, out);
            }
            Statement::Call {
                function,
                arguments,
                result,
            } => {
                let call = (function, self.at.in_force, self.at.hot);
                self.sites.call_sites.push(call);
                let call = Statement::Call {
                    function,
                    arguments,
                    result,
                };
                fx.statement(call, out);
            }
            Statement::Return { value } if self.at.is_entry => {
                self.flush(fx, out);
                fx.statement(Statement::Return { value }, out);
            }
            other => fx.statement(other, out),
        }
        if !straight_line {
            self.at.election.set(after);
        }
        if let Some(stored) = stored {
            self.at.stored_before = stored;
        }
        fx.span = saved;
    }

    /// An `if`: its vote in the enclosing block, then each side as a block site. In a loop,
    /// returns the election for the lanes that run on after it, where the vote tells them
    /// (as if the lanes that take a side run it together and meet again after it).
    fn walk_if(
        &mut self,
        fx: &mut Emitter<'_>,
        (condition, accept, reject): (Handle<Expression>, Block, Block),
        line: u32,
        out: &mut Block,
    ) -> Option<Election> {
        let clause = self.at.chains.clause(
            fx.function,
            &self.lines,
            (condition, &accept, &reject),
            fx.span,
        );
        let branch = self
            .sites
            .new_branch(BranchKind::If, (line, &self.at.name), self.at.opener);
        self.sites.branches[branch].clause = clause;
        self.sites.branches[branch].exits = control::exits(&[&accept, &reject], false);
        let how = control::sides(&accept, &reject);
        let voted = self.opts.subgroups && !self.at.quiet;
        // In a loop the sides are counted from the vote, with its election, not each at its
        // entry with one of its own: an election is a subgroup operation at every trip.
        let from_vote = voted && self.at.hot;
        // At the top of a hoisted loop's body, from two votes and no election at all; but not
        // an `if` that lets lanes out (a `continue`), whose vote's ballot elects the lanes
        // after it without a subgroup operation of their own.
        let per_trip = from_vote
            && how == Sides::Stay
            && self
                .at
                .trip_ifs
                .as_ref()
                .is_some_and(|t| self.at.in_force == Some(t.body));
        fx.flush(out);
        let opener = Opener::Branch(branch);
        let entry = Entry {
            counted_elsewhere: from_vote,
            ..Entry::default()
        };
        let accept_site = self.sites.blocks.len();
        let accept = self.block(fx, accept, (BlockKind::IfAccept, opener, line), entry);
        let reject_site = self.sites.blocks.len();
        let reject = self.block(fx, reject, (BlockKind::IfReject, opener, line), entry);
        // The vote goes before the `if` in the enclosing block, where every lane that reaches
        // it is active (the sides' blocks restore that block's election).
        let mut after = None;
        let counted = |site: usize| (from_vote && !self.sites.blocks[site].empty).then_some(site);
        let vote = VotedIf {
            branch,
            condition,
            sides: [counted(accept_site), counted(reject_site)],
        };
        if per_trip {
            let trip_if = self.count_trip_if(fx, vote, out);
            let trip_ifs = self.at.trip_ifs.as_mut().expect("checked above");
            trip_ifs.ifs.push(trip_if);
        } else if voted {
            let (election, taken) = self.count_if_and_sides(fx, vote, out);
            // In a loop, the election for the lanes that run on after the `if`, where the vote
            // tells them.
            after = match how {
                _ if !from_vote => None,
                Sides::Stay => Some(election),
                Sides::Leave(accept_leaves) => {
                    let stay = if accept_leaves {
                        let not_taken = fx.unary(UnaryOperator::BitwiseNot, taken);
                        fx.binary(BinaryOperator::And, election.active, not_taken)
                    } else {
                        taken
                    };
                    Some(self.elect_among(fx, stay, out))
                }
                Sides::Other => None,
            };
        }
        let statement = Statement::If {
            condition,
            accept,
            reject,
        };
        fx.statement(statement, out);
        after
    }

    /// A `switch`: its vote in the enclosing block, then each case as a block site.
    fn walk_switch(
        &mut self,
        fx: &mut Emitter<'_>,
        selector: Handle<Expression>,
        cases: Vec<SwitchCase>,
        line: u32,
        out: &mut Block,
    ) {
        let branch =
            self.sites
                .new_branch(BranchKind::Switch, (line, &self.at.name), self.at.opener);
        let bodies: Vec<&Block> = cases.iter().map(|case| &case.body).collect();
        self.sites.branches[branch].exits = control::exits(&bodies, true);
        if self.opts.subgroups && !self.at.quiet {
            let ty = cases.iter().find_map(|case| match case.value {
                SwitchValue::I32(_) => Some(self.g.i32_ty),
                SwitchValue::U32(_) => Some(self.g.u32_ty),
                SwitchValue::Default => None,
            });
            self.count_switch(fx, branch, selector, ty, out);
        }
        fx.flush(out);
        let site = (BlockKind::SwitchCase, Opener::Branch(branch), line);
        let cases = cases
            .into_iter()
            .map(|mut case| {
                // `case a, b:` is a run of empty fall-through cases ending in the one with the
                // body: one site.
                if !(case.fall_through && case.body.is_empty()) {
                    case.body = self.block(fx, case.body, site, Entry::default());
                }
                case
            })
            .collect();
        fx.statement(Statement::Switch { selector, cases }, out);
    }

    /// A loop: its cap check (and, when hoisted, its own trip counter), its body and
    /// `continuing` as block sites (in the private counts: they run per trip), and, when it is
    /// hoisted, its counts after it; a fixed one is counted on the host (`fixed.rs`).
    fn walk_loop(
        &mut self,
        fx: &mut Emitter<'_>,
        (body, continuing, break_if): (Block, Block, Option<Handle<Expression>>),
        line: u32,
        out: &mut Block,
    ) {
        let lp = self.sites.new_loop((line, &self.at.name), self.at.opener);
        self.sites.loops[lp].break_if = break_if.is_some();
        let links = if self.opts.subgroups {
            let expressions = &fx.function.expressions;
            hoistable(
                &body,
                &continuing,
                break_if,
                expressions,
                (&self.lines, line),
            )
        } else {
            None
        };
        let hoisted = links.is_some();
        let fixed = match links {
            Some(0) => self.fixed(fx, lp, (&body, &continuing)),
            _ => None,
        };
        let check = self.new_cap_check(fx, lp, hoisted && fixed.is_none(), out);
        let failed_link = match links {
            Some(links) if links > 0 => Some(self.new_failed_link(fx, lp, links, out)),
            _ => None,
        };
        let opener = Opener::Loop(lp);
        let outer_hot = std::mem::replace(&mut self.at.hot, true);
        let outer_in_loop = std::mem::replace(&mut self.at.in_loop, true);
        let body_site = self.sites.blocks.len();
        if let Some((from, times)) = fixed {
            // Before the body, whose fixed loops may be counted from it.
            let block = body_site;
            (self.sites.derived).push(Derived::Scaled { block, from, times });
        }
        let site = (BlockKind::LoopBody, opener, line);
        let entry = Entry {
            cap_check: Some(check),
            counted_elsewhere: hoisted,
            failed_link,
        };
        let trip_ifs = hoisted.then_some(TripIfs {
            body: body_site,
            ifs: Vec::new(),
        });
        let outer_ifs = std::mem::replace(&mut self.at.trip_ifs, trip_ifs);
        let body = self.block(fx, body, site, entry);
        let trip_ifs = std::mem::replace(&mut self.at.trip_ifs, outer_ifs);
        let trip_ifs = trip_ifs.map_or_else(Vec::new, |t| t.ifs);
        self.zero_trip_ifs(fx, &trip_ifs, out);
        let continuing_site = self.sites.blocks.len();
        let site = (BlockKind::LoopContinuing, opener, line);
        let entry = Entry {
            counted_elsewhere: hoisted,
            ..Entry::default()
        };
        let continuing = self.block(fx, continuing, site, entry);
        self.at.hot = outer_hot;
        self.at.in_loop = outer_in_loop;
        let statement = Statement::Loop {
            body,
            continuing,
            break_if,
        };
        fx.statement(statement, out);
        if hoisted {
            let site = &self.sites.blocks[continuing_site];
            let counted = !site.empty && site.lines != (line..=line);
            let blocks = [Some(body_site), counted.then_some(continuing_site)];
            if let Some(fixed) = fixed {
                self.count_fixed(fx, (lp, fixed), blocks[1], &trip_ifs, out);
            } else {
                let trips = check.trips.expect("a hoisted loop counts its own trips");
                self.count_hoisted(fx, (lp, trips, failed_link), blocks, &trip_ifs, out);
            }
        }
    }
}
