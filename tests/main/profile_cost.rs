//! `divlab profile --cost` on kernels whose answers follow by hand (tests/kernels/cost/): each
//! branch's measured saving and verdict. Timing assertions are ratios with wide margins, and
//! the tests that assert them hold the device alone.

use std::time::Duration;

use divlab::experiments::divergence::Divergence;
use divlab::experiments::{Experiment, Lab, RunConfig, run_experiment};
use divlab::profile::cost::DEFAULT_COST_PLACEMENTS;
use divlab::profile::report::{BranchCost, BranchProfile, CostVerdict, Profile};
use divlab::profile::run::Request;

use crate::util;

fn kernel(name: &str) -> (String, String) {
    let path = format!("{}/tests/kernels/cost/{name}", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    (path, source)
}

/// `name` profiled with `--cost` (or without, `cost: false`) with its header's dispatch, as
/// many as `reps` timed rounds.
fn profiled(lab: &Lab, name: &str, cost: bool, reps: usize) -> Profile {
    profiled_top(lab, name, cost.then_some(5), reps)
}

/// `name` profiled with `--cost-top` `top` (`None`: no `--cost`).
fn profiled_top(lab: &Lab, name: &str, top: Option<usize>, reps: usize) -> Profile {
    let (path, source) = kernel(name);
    let args = util::header_args(&source).unwrap_or_default();
    let mut request = Request::new(path, source.clone());
    if let Some(at) = args.iter().position(|a| a == "--dispatch") {
        request.dispatch = divlab::profile::fill::parse_dispatch(&args[at + 1]).unwrap();
    }
    request.reps = reps;
    request.time_budget = Duration::from_secs(60);
    request.cost_top = top;
    divlab::profile::run::profile(lab, &request)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .profile
}

/// The cost of the branch on the line marked `// the branch`.
fn cost_of<'a>(profile: &'a Profile, source: &str) -> &'a BranchCost {
    let line = util::line_of(source, "// the branch");
    let branch = (profile.branches.iter())
        .find(|b| b.line == line && b.kind != "loop")
        .unwrap_or_else(|| panic!("no branch at line {line}: {:#?}", profile.branches));
    branch
        .cost
        .as_ref()
        .unwrap_or_else(|| panic!("no cost at line {line}: {branch:#?}"))
}

fn costed(lab: &Lab, name: &str, reps: usize) -> (Profile, BranchCost) {
    let profile = profiled(lab, name, true, reps);
    let cost = cost_of(&profile, &kernel(name).1).clone();
    (profile, cost)
}

#[test]
fn equal_sides_of_a_lane_parity_if_serialize_and_cost_one_side() {
    let _gpu = util::gpu_exclusive();
    let lab = Lab::new(util::gpu());
    let (profile, cost) = costed(&lab, "parity_equal_sides.wgsl", 21);
    assert_eq!(cost.verdict, CostVerdict::Serialized, "{cost:#?}");
    // One side of two equal ones: about half the kernel, allowing for the work around them
    // and for lavapipe's masked loops, which cost more per trip diverged than together.
    let share = cost.saved_fraction.unwrap();
    assert!((0.3..=0.8).contains(&share), "saved {share}: {cost:#?}");
    // Every lane of a diverged subgroup idles on one side: the model predicts the same half.
    let predicted = cost.predicted_ns.unwrap() / profile.timing.as_ref().unwrap().kernel_ns;
    assert!((0.3..=0.7).contains(&predicted), "{cost:#?}");
    assert_eq!(cost.outside_change, Some(0.0));
    // The variant's code, every lane deciding, runs near the kernel alone: its control is not
    // what the pair measures (past 1.5x the verdict would be `confounded`).
    let alone = profile.timing.as_ref().unwrap().kernel_ns;
    let placebo = cost.placebo_ns.expect("the placebo's time");
    assert!(
        placebo > 0.0 && placebo / alone < 1.5,
        "{placebo} against {alone}"
    );
    // Timed on the default placements of the buffers, each saving; the interval spans them.
    let each = cost.placement_saved_ns.as_ref().expect("placements");
    assert_eq!(each.len(), DEFAULT_COST_PLACEMENTS, "{cost:#?}");
    let [low, high] = cost.interval_ns.unwrap();
    assert!(
        each.iter().all(|&s| s > 0.0 && (low..=high).contains(&s)),
        "{cost:#?}"
    );

    // The variants change nothing the profile counts.
    let plain = profiled(&lab, "parity_equal_sides.wgsl", false, 3);
    assert_eq!(plain.lines, profile.lines);
    let uncosted: Vec<_> = (profile.branches.iter().cloned())
        .map(|mut b| {
            b.cost = None;
            b
        })
        .collect();
    assert_eq!(plain.branches, uncosted);
    assert!(plain.branches.iter().all(|b| b.cost.is_none()));
}

/// The study's F(SG) for the switch form on this adapter.
fn study_switch_factor(lab: &Lab) -> f64 {
    let config = RunConfig {
        quick: true,
        reps: Some(15),
        fuzz_seeds: None,
    };
    let forms = Divergence::all();
    let switch = forms.iter().find(|e| e.id() == "divergence.switch");
    let result = run_experiment(lab, switch.expect("the switch form"), &config, &|_| {});
    let figure = result.metrics.get("serialization_at_sg").copied();
    figure.unwrap_or_else(|| panic!("no F(SG): {:#?}", result.metrics))
}

#[test]
fn a_switch_over_every_lane_saves_what_the_studys_serialization_factor_says() {
    let _gpu = util::gpu_exclusive();
    let lab = Lab::new(util::gpu());
    let width = lab.subgroup().expect("subgroup probe").size;
    assert_eq!(
        width, 8,
        "the kernel switches over 8 lanes: run it on lavapipe's width"
    );
    // lavapipe's timings on a shared machine are noisy: a miss is measured once more,
    // independently, and fails only if both miss.
    let attempt = || {
        let f = study_switch_factor(&lab);
        let (_, cost) = costed(&lab, "lane_switch.wgsl", 21);
        let expected = 1.0 - 1.0 / f;
        let share = cost.saved_fraction.unwrap_or(f64::NAN);
        let off = (share - expected).abs() / expected;
        let text = format!("F(8) = {f:.2}: expected {expected:.3}, saved {share:.3}; {cost:#?}");
        (cost.verdict == CostVerdict::Serialized && off <= 0.15, text)
    };
    let (ok, first) = attempt();
    if !ok {
        let (ok, second) = attempt();
        assert!(ok, "missed twice.\nfirst: {first}\nsecond: {second}");
    }
}

#[test]
fn a_branch_on_the_workgroup_never_diverges_and_runs_no_variant() {
    let _gpu = util::gpu_shared();
    let lab = Lab::new(util::gpu());
    let (profile, cost) = costed(&lab, "workgroup_branch.wgsl", 3);
    assert_eq!(cost.verdict, CostVerdict::NotDivergent, "{cost:#?}");
    assert_eq!(cost.variant_reps, 0);
    assert_eq!(cost.saved_ns, None);
    // --cost was asked for: the report says why it shows no saving, not nothing.
    let text = divlab::profile::report::render_text(&profile);
    assert!(
        text.contains("(--cost): no branch or loop diverged in 1% or more of its evaluations"),
        "{text}"
    );
}

/// `name`'s branch moves work that lies outside its statement's lines but is its own: no work
/// outside it moves, the model predicts about half the kernel, and the saving is timed.
fn costs_the_work_it_moves_as_its_own(name: &str) -> (Profile, BranchCost) {
    let _gpu = util::gpu_exclusive();
    let lab = Lab::new(util::gpu());
    let (profile, cost) = costed(&lab, name, 21);
    assert_eq!(cost.outside_change, Some(0.0), "{cost:#?}");
    // Counted again from the same fills, the kernel runs the same lanes.
    assert_eq!(cost.repeat_change, Some(0.0), "{cost:#?}");
    let unsteady = profile
        .notes
        .iter()
        .find(|n| n.contains("second counted run"));
    assert_eq!(unsteady, None);
    let predicted = cost.predicted_ns.unwrap() / profile.timing.as_ref().unwrap().kernel_ns;
    assert!((0.3..=0.7).contains(&predicted), "{cost:#?}");
    assert_eq!(cost.verdict, CostVerdict::Serialized, "{cost:#?}");
    let share = cost.saved_fraction.unwrap();
    assert!((0.2..=0.8).contains(&share), "saved {share}: {cost:#?}");
    (profile, cost)
}

/// Before the functions' lines counted as the sides', this read 50% outside, confounded,
/// predicted 0.05% of the kernel.
#[test]
fn work_the_sides_do_in_functions_is_the_branchs_not_work_outside_it() {
    costs_the_work_it_moves_as_its_own("sides_call_functions.wgsl");
}

/// Before the rest of the loop body counted as the `if`'s, this read 50% outside, confounded,
/// predicted 0.2% of the kernel.
#[test]
fn the_code_an_if_skips_by_continuing_is_its_else() {
    costs_the_work_it_moves_as_its_own("continue_skips_rest.wgsl");
}

/// A subgroup runs the loop until its last lane breaks; following its first lane, it leaves on
/// that lane's trip. Before the loop counted as the `if`'s, the later trips were work outside it.
#[test]
fn the_loop_an_if_breaks_out_of_is_its_work() {
    let (profile, cost) = costs_the_work_it_moves_as_its_own("break_ends_trips.wgsl");
    assert!(
        (cost.reason).contains("lines 16 to 23, the loop its `break` leaves, count as its work"),
        "{cost:#?}"
    );
    // The loop's own row, counted only, names the `if` that was measured with it.
    let the_loop = profile.branches.iter().find(|b| b.line == 16).unwrap();
    let loop_cost = the_loop.cost.as_ref().unwrap();
    assert_eq!(loop_cost.verdict, CostVerdict::CountOnly, "{loop_cost:#?}");
    assert!(
        (loop_cost.reason).contains("line 17's `if`, which leaves it by `break`, is costed"),
        "{loop_cost:#?}"
    );
}

/// A `return` in a loop skips the loop's later trips and the rest of the function. Before the
/// loop counted as the `if`'s, the `if`'s own line, evaluated once a trip, moved outside it:
/// 44% of the work outside, `confounded`.
#[test]
fn a_return_that_ends_its_own_loops_trips_costs_that_loop_as_its_work() {
    let (_, cost) = costs_the_work_it_moves_as_its_own("return_in_loop.wgsl");
    assert!(
        (cost.reason)
            .contains("lines 15 to 22, the loop its `return` leaves and the rest of the function"),
        "{cost:#?}"
    );
}

/// `name`'s branch, costed: `confounded`, with more than `moved` of the work outside it moved.
fn confounded_by_work_outside(name: &str, moved: f64) -> BranchCost {
    let _gpu = util::gpu_shared();
    let lab = Lab::new(util::gpu());
    let (_, cost) = costed(&lab, name, 5);
    assert_eq!(cost.verdict, CostVerdict::Confounded, "{cost:#?}");
    assert!(cost.outside_change.unwrap() > moved, "{cost:#?}");
    // The kernel alone, counted again, moves nothing: the branch did.
    assert_eq!(cost.repeat_change, Some(0.0), "{cost:#?}");
    assert!(
        cost.reason.contains("result steers later work"),
        "{cost:#?}"
    );
    cost
}

/// Half the lanes run 96 trips instead of 12 in the variant.
#[test]
fn a_branch_that_sets_a_later_loops_trips_is_confounded() {
    let cost = confounded_by_work_outside("steers_loop.wgsl", 0.5);
    assert!(
        cost.saved_ns.is_some(),
        "its number is shown, as confounded"
    );
}

#[test]
fn one_cheap_assignment_per_side_before_heavy_uniform_work_costs_little() {
    let _gpu = util::gpu_exclusive();
    let lab = Lab::new(util::gpu());
    let (_, cost) = costed(&lab, "cheap_sides.wgsl", 21);
    let share = cost.saved_fraction.unwrap();
    assert!(
        cost.verdict == CostVerdict::FreeHere || share < 0.05,
        "saved {share}: {cost:#?}"
    );
}

#[test]
fn a_side_that_one_lane_takes_alone_is_predicted_to_save_nothing() {
    let _gpu = util::gpu_shared();
    let lab = Lab::new(util::gpu());
    let (profile, cost) = costed(&lab, "one_lane_side.wgsl", 5);
    // Every lane but the first of its subgroup idles through the loop...
    let line = util::line_of(&kernel("one_lane_side.wgsl").1, "// the branch");
    let branch = (profile.branches.iter()).find(|b| b.line == line && b.kind == "if");
    let idle = branch.and_then(|b| b.wasted_lane_slots).unwrap_or(0);
    assert!(idle > 0, "{:#?}", profile.branches);
    // ...but the subgroups that run it run it all the same when their first lane decides: the
    // model saves no execution, so it predicts nothing (priced idle slots predicted most of
    // the kernel).
    assert_eq!(cost.predicted_ns, Some(0.0), "{cost:#?}");
    assert_ne!(cost.verdict, CostVerdict::Serialized, "{cost:#?}");
}

#[test]
fn branches_that_share_a_line_take_no_cost_top_slot() {
    let _gpu = util::gpu_shared();
    let lab = Lab::new(util::gpu());
    let name = "packed_line.wgsl";
    let profile = profiled_top(&lab, name, Some(1), 3);
    let source = kernel(name).1;
    let packed = util::line_of(&source, "if (gid.x % 2u == 0u)");
    let on_packed: Vec<&BranchCost> = (profile.branches.iter())
        .filter(|b| b.line == packed)
        .filter_map(|b| b.cost.as_ref())
        .collect();
    assert_eq!(on_packed.len(), 3, "{:#?}", profile.branches);
    for cost in &on_packed {
        assert_eq!(cost.verdict, CostVerdict::NotMeasured, "{cost:#?}");
        assert!(cost.reason.contains("more than one `if`"), "{cost:#?}");
    }
    // They rank above the branch by idle lane slots, and still it is the one measured.
    let idle = |line: u32| {
        (profile.branches.iter())
            .find(|b| b.line == line)
            .and_then(|b| b.wasted_lane_slots)
            .unwrap_or(0)
    };
    let line = util::line_of(&source, "// the branch");
    assert!(idle(packed) > idle(line), "{:#?}", profile.branches);
    let cost = cost_of(&profile, &source);
    assert!(cost.saved_ns.is_some(), "{cost:#?}");
    assert!(cost.variant_reps > 0, "{cost:#?}");
    // The report prints the three alike once.
    let text = divlab::profile::report::render_text(&profile);
    assert!(text.contains("(3 branches alike)"), "{text}");
}

#[test]
fn a_chains_clauses_are_costed_against_every_lane_evaluating_the_next_one() {
    let _gpu = util::gpu_exclusive();
    let lab = Lab::new(util::gpu());
    let name = "chain_clauses.wgsl";
    let profile = profiled(&lab, name, true, 9);
    let source = kernel(name).1;
    let line = |marker: &str| util::line_of(&source, marker);
    let rows = |line: u32| -> Vec<&BranchProfile> {
        (profile.branches.iter())
            .filter(|b| b.line == line && b.kind == "if")
            .collect()
    };
    let operator = |b: &BranchProfile| b.clause.as_ref().and_then(|c| c.operator.clone());
    let cost = |b: &BranchProfile| b.cost.clone().unwrap_or_else(|| panic!("{b:#?}"));
    // The `if`'s own row is a first-lane variant, with the model's prediction; its clause's
    // row is timed against `&`, which leaves no path out: no prediction.
    let (clause, whole): (Vec<_>, Vec<_>) = rows(line("// the branch"))
        .into_iter()
        .partition(|b| operator(b).is_some());
    assert_eq!(
        (clause.len(), whole.len()),
        (1, 1),
        "{:#?}",
        profile.branches
    );
    let (of_clause, of_if) = (cost(clause[0]), cost(whole[0]));
    assert!(
        of_if.variant_reps > 0 && of_if.predicted_ns.is_some(),
        "{of_if:#?}"
    );
    assert!(of_clause.variant_reps > 0, "{of_clause:#?}");
    assert_eq!(of_clause.predicted_ns, None, "{of_clause:#?}");
    assert!(!of_clause.reason.contains("first lane"), "{of_clause:#?}");
    // The `let`'s chain, its clauses in parentheses, holds no `if` and is costed all the same.
    let marked = rows(line("let marked"));
    let texts: Vec<&str> = (marked.iter())
        .filter_map(|b| b.clause.as_ref().map(|c| c.text.as_str()))
        .collect();
    assert_eq!(texts, ["(i % 2u == 1u)", "(i % 3u == 0u)"]);
    assert!(
        marked.iter().all(|b| cost(b).variant_reps > 0),
        "{marked:#?}"
    );
    // 256 multiply-adds in every subgroup instead of one in eight (lavapipe) or two (SG 32):
    // the short-circuit pays, and evaluating the clause in every lane is far slower.
    let rare = cost(rows(line("let rare"))[0]);
    assert_eq!(rare.verdict, CostVerdict::FreeHere, "{rare:#?}");
    assert!(
        rare.interval_ns.is_some_and(|[_, high]| high < 0.0),
        "{rare:#?}"
    );
    assert!(rare.reason.contains("the short-circuit pays"), "{rare:#?}");
    // The function the clause calls is its work, not work outside it.
    assert!(rare.outside_change.is_some_and(|o| o <= 0.01), "{rare:#?}");
    // The report says what the clauses were timed against.
    let text = divlab::profile::report::render_text(&profile);
    assert!(
        text.contains("a `&&`/`||` clause's variant is another: every lane evaluates"),
        "{text}"
    );
}

#[test]
fn an_else_ifs_and_a_break_ifs_clauses_are_costed_where_their_conditions_are_read() {
    use divlab::profile::cost::chain::{self, ClauseAt};
    use divlab::profile::cost::variant::Form;
    let _gpu = util::gpu_shared();
    let lab = Lab::new(util::gpu());
    let name = "chain_else_if.wgsl";
    let profile = profiled_top(&lab, name, Some(9), 9);
    let source = kernel(name).1;
    let module = naga::front::wgsl::parse_str(&source).unwrap();
    let rows: Vec<&BranchProfile> = (profile.branches.iter())
        .filter(|b| b.clause.as_ref().is_some_and(|c| c.operator.is_some()))
        .collect();
    let clauses: Vec<ClauseAt<'_>> = (rows.iter())
        .filter_map(|b| b.clause.as_ref())
        .map(|c| ClauseAt {
            line: c.line,
            column: c.column,
            text: &c.text,
            operator: c.operator.as_deref().unwrap(),
        })
        .collect();
    let wrong = util::line_of(&source, "// wrong");
    for marker in ["// the else if", "// the break if"] {
        let line = util::line_of(&source, marker);
        let at = (rows.iter().position(|b| b.line == line))
            .unwrap_or_else(|| panic!("no clause row at line {line}: {rows:#?}"));
        let cost = rows[at].cost.clone().unwrap();
        let text = &rows[at].clause.as_ref().unwrap().text;
        assert!(!text.contains("odd"), "a comment is no part of `{text}`");
        assert!(
            cost.variant_reps > 0 && cost.outside_change.is_some_and(|o| o <= 0.01),
            "{marker}: {cost:#?}"
        );
        // What was timed, either way the control buffer says, computes what the kernel does:
        // no lane reaches the line that says it went wrong.
        let found = chain::find(&source, &module, &clauses, at).unwrap();
        let timed = chain::write(&source, &found, Form::Timed, 1);
        for control in ["0", "1"] {
            let mut request = Request::new(format!("{name} ({marker}, timed)"), timed.clone());
            request.dispatch = [4, 1, 1];
            request.reps = 1;
            request.buffers = vec![format!("divlab_ctl=values:{control}").parse().unwrap()];
            let run = divlab::profile::run::profile(&lab, &request)
                .unwrap_or_else(|e| panic!("{marker}: {e}\n{timed}"));
            let lines = &run.profile.lines;
            let reached = lines.iter().find(|l| l.line == wrong).map(|l| l.executions);
            assert_eq!(reached, Some(0), "{marker}, control {control}:\n{timed}");
        }
    }
}

#[test]
fn the_command_line_prints_the_cost_table_writes_it_and_imports_it() {
    let _gpu = util::gpu_shared();
    let dir = util::temp_dir();
    let (path, _) = kernel("steers_loop.wgsl");
    let json = util::path_in(&dir, "p.json");
    let mut cmd = util::divlab(dir.path());
    cmd.args([
        "profile",
        &path,
        "--dispatch",
        "4",
        "--reps",
        "3",
        "--cost",
        "--cost-placements",
        "2",
        "--json",
    ])
    .arg(&json);
    let run = util::run(cmd);
    run.assert_code(0);
    assert!(
        run.stdout
            .contains("95% interval over 2 buffer placements)"),
        "{run}"
    );
    assert!(
        run.stdout.contains("confounded: the variant changed more"),
        "{run}"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["schema_version"], 3);
    assert_eq!(doc["request"]["cost_top"], 5);
    assert_eq!(doc["request"]["cost_placements"], 2);
    let costs: Vec<&serde_json::Value> = (doc["branches"].as_array().unwrap().iter())
        .filter_map(|b| b.get("cost"))
        .collect();
    assert!(
        costs.iter().any(|c| c["verdict"] == "confounded"),
        "{doc:#}"
    );
    assert!(
        costs.iter().any(|c| c["verdict"] == "count_only"),
        "{doc:#}"
    );
    // An empty kernel over the same workgroups was timed with it, and the predictions price
    // only the time above it: none exceeds it (on lavapipe the floor is most of this small
    // kernel's time, so pricing the whole time would).
    let kernel_ns = doc["timing"]["kernel_ns"].as_f64().unwrap();
    let floor_ns = doc["timing"]["floor_ns"]
        .as_f64()
        .expect("--cost times the floor");
    assert!(floor_ns > 0.0, "{doc:#}");
    assert!(
        run.stdout
            .contains("an empty kernel over the same workgroups"),
        "{run}"
    );
    // The time the predictions price, with its interval, on the time line.
    let time = (run.stdout.lines()).find(|l| l.starts_with("time:"));
    let time = time.unwrap_or_else(|| panic!("no time line: {run}"));
    assert!(
        time.contains("predictions leave out: they price the ") && time.contains("95% interval"),
        "{time}"
    );
    for cost in &costs {
        if let Some(predicted) = cost["predicted_ns"].as_f64() {
            assert!(
                predicted <= (kernel_ns - floor_ns).max(0.0) + 1e-6,
                "{predicted} ns predicted, above the kernel's {kernel_ns} ns less its floor \
                 {floor_ns} ns: {cost:#}"
            );
        }
    }
    // The timed rows say, as documents and as CSV, on how many placements.
    let timed = (costs.iter()).find(|c| c["saved_ns"].is_number());
    let timed = timed.unwrap_or_else(|| panic!("no timed branch: {doc:#}"));
    assert_eq!(
        timed["placement_saved_ns"].as_array().map(Vec::len),
        Some(2)
    );
    let csv = util::path_in(&dir, "p.csv");
    let mut cmd = util::divlab(dir.path());
    cmd.args(["profile", "--import"])
        .arg(&json)
        .arg("--csv")
        .arg(&csv);
    let again = util::run(cmd);
    again.assert_code(0);
    assert!(
        again
            .stdout
            .contains("95% interval over 2 buffer placements)"),
        "{again}"
    );
    let mut table = csv::Reader::from_path(&csv).unwrap();
    let header = table.headers().unwrap().clone();
    let rows: Vec<csv::StringRecord> = table.records().map(Result::unwrap).collect();
    let cells = |name: &str| -> Vec<String> {
        let column = header.iter().position(|h| h == name);
        let column = column.unwrap_or_else(|| panic!("no {name} column: {header:?}"));
        (rows.iter().map(|row| row[column].to_owned()))
            .filter(|cell| !cell.is_empty())
            .collect()
    };
    let placements = cells("cost_placements");
    assert!(
        !placements.is_empty() && placements.iter().all(|p| p == "2"),
        "{placements:?}"
    );
    // Each timed branch's placebo time, in the document and in its CSV row.
    let placebos: Vec<f64> = (costs.iter())
        .filter_map(|c| c["placebo_ns"].as_f64())
        .collect();
    assert_eq!(placebos.len(), placements.len(), "{doc:#}");
    assert!(placebos.iter().all(|&p| p > 0.0), "{placebos:?}");
    let in_csv: Vec<f64> = (cells("placebo_ns").iter())
        .map(|c| c.parse().unwrap())
        .collect();
    assert_eq!(in_csv, placebos);
}
