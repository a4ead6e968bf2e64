//! The CPU twin of `shaders/divergence.wgsl`: which path each lane takes, what it computes, and
//! how much serialized work the SIMT cost model predicts for a dispatch.

use crate::shaders::divergence::{
    DivergenceParams, FMAS_PER_CHAIN_PER_TRIP, Form, Mode, Selection, UNIFORM_BLOCK, path_constants,
};

/// The path an invocation takes. `subgroup_first` is the global index of its subgroup's first
/// invocation (what `subgroupBroadcastFirst(gid.x)` returns when all lanes are active).
pub fn selector(
    selection: Selection,
    mode: Mode,
    k: u32,
    lane: u32,
    subgroup_first: u32,
    subgroup_size: u32,
) -> u32 {
    let gid = subgroup_first + lane;
    match (selection, mode) {
        (Selection::Subgroup, Mode::LaneDivergent) => lane % k,
        (Selection::Subgroup, Mode::SubgroupUniform) => (subgroup_first / subgroup_size) % k,
        (Selection::Block, Mode::LaneDivergent) => gid % k,
        (Selection::Block, Mode::SubgroupUniform) => (gid / UNIFORM_BLOCK) % k,
    }
}

fn trips(params: &DivergenceParams, j: u32) -> u32 {
    params.trips[(j / 4) as usize][(j % 4) as usize]
}

/// The (trips, path) an invocation with selector `sel` runs in `form`.
fn lane_work(form: Form, params: &DivergenceParams, sel: u32) -> (u32, u32) {
    match form {
        Form::IfChain | Form::Switch | Form::NestedIf => (trips(params, sel), sel),
        Form::Loop => (trips(params, sel), 0),
        Form::Predicated => (trips(params, 0), sel),
    }
}

/// What invocation `global_index` stores, computed as the kernel does (f32 fused multiply-add).
pub fn expected_result(
    form: Form,
    params: &DivergenceParams,
    sel: u32,
    global_index: u32,
) -> [f32; 4] {
    let (n, path) = lane_work(form, params, sel);
    let (m, c) = path_constants(path);
    let seed = (global_index & 255) as f32 * 1e-3;
    let a = [seed, seed + 0.1, seed + 0.2, seed + 0.3];
    let mut chains = [0.0, 0.5, 1.0, 1.5].map(|offset| a.map(|x| x + offset));
    for _ in 0..n {
        for chain in &mut chains {
            for _ in 0..FMAS_PER_CHAIN_PER_TRIP {
                *chain = chain.map(|x| x.mul_add(m, c));
            }
        }
    }
    let mut sum = [0.0f32; 4];
    for chain in &chains {
        for (s, x) in sum.iter_mut().zip(chain) {
            *s += x;
        }
    }
    sum
}

/// Loop trips the SIMT cost model says a dispatch issues, summed over its subgroups: a subgroup
/// issues every distinct path its lanes take, one after another (branchy forms); a loop runs
/// until its longest lane is done; predication issues one path.
///
/// Assumes whole subgroups and a linear lane mapping (`subgroup_first = s * subgroup_size`),
/// which the `subgroup.size` experiment checks on each device.
pub fn issued_trips(
    form: Form,
    params: &DivergenceParams,
    (mode, selection): (Mode, Selection),
    subgroup_size: u32,
    invocations: u32,
) -> f64 {
    let subgroups = invocations / subgroup_size;
    let mut total = 0u64;
    let mut seen = Vec::new();
    for s in 0..subgroups {
        seen.clear();
        for lane in 0..subgroup_size {
            let sel = selector(
                selection,
                mode,
                params.k,
                lane,
                s * subgroup_size,
                subgroup_size,
            );
            if !seen.contains(&sel) {
                seen.push(sel);
            }
        }
        let per_path = seen
            .iter()
            .map(|&sel| u64::from(lane_work(form, params, sel).0));
        total += match form {
            Form::IfChain | Form::Switch | Form::NestedIf => per_path.sum(),
            Form::Loop | Form::Predicated => per_path.max().unwrap_or(0),
        };
    }
    total as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn balanced(k: u32, mode: Mode) -> DivergenceParams {
        DivergenceParams::new(k, mode, |_| 10)
    }

    /// Issued trips of a lane-divergent dispatch of `n` invocations, subgroups of 8.
    fn lane_divergent(form: Form, params: &DivergenceParams, n: u32) -> f64 {
        issued_trips(
            form,
            params,
            (Mode::LaneDivergent, Selection::Subgroup),
            8,
            n,
        )
    }

    /// T_div/T_uniform of the switch form at k, subgroups of 8, `n` invocations.
    fn switch_ratio(k: u32, selection: Selection, n: u32) -> f64 {
        let issued = |mode| issued_trips(Form::Switch, &balanced(k, mode), (mode, selection), 8, n);
        issued(Mode::LaneDivergent) / issued(Mode::SubgroupUniform)
    }

    #[test]
    fn branchy_divergent_serializes_min_k_sg() {
        for k in [1, 2, 5, 8, 16] {
            let ratio = switch_ratio(k, Selection::Subgroup, 64);
            assert_eq!(ratio, f64::from(k.min(8)), "k = {k}");
        }
    }

    #[test]
    fn loop_form_issues_the_longest_lane() {
        let params = DivergenceParams::new(4, Mode::LaneDivergent, |j| 10 * (j + 1));
        // Every subgroup of 8 lanes has sel 0..3, so it runs 40 trips.
        assert_eq!(lane_divergent(Form::Loop, &params, 16), 80.0);
    }

    #[test]
    fn predicated_issues_one_path() {
        let params = balanced(8, Mode::LaneDivergent);
        assert_eq!(lane_divergent(Form::Predicated, &params, 8), 10.0);
    }

    #[test]
    fn paths_compute_different_results() {
        let params = balanced(2, Mode::LaneDivergent);
        let r0 = expected_result(Form::Switch, &params, 0, 3);
        let r1 = expected_result(Form::Switch, &params, 1, 3);
        assert_ne!(r0, r1);
        // The loop form uses path 0's constants for every lane.
        assert_eq!(expected_result(Form::Loop, &params, 1, 3), r0);
    }

    #[test]
    fn block_selection_holds_min_k_w_paths_per_subgroup() {
        // Without subgroups, consecutive invocations take consecutive paths: a subgroup of 8
        // holds min(k, 8) of them, and the control is uniform per block of 128.
        for k in [1, 3, 8, 16, 128] {
            let ratio = switch_ratio(k, Selection::Block, 1024);
            assert_eq!(ratio, f64::from(k.min(8)), "k = {k}");
        }
    }
}
