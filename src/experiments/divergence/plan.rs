//! What the divergence study runs on a device: k values, dispatch sizes, occupancy levels and
//! the time a k = 1 dispatch should take.

/// The study's plan for one device.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// Path counts, ascending: every k up to min(SG, 32), then powers of two up to 4*SG (2*SG
    /// when quick), at most 128.
    pub ks: Vec<u32>,
    /// Workgroup size of the main sweep.
    pub workgroup_size: u32,
    /// Invocations that fill the device.
    pub saturating_invocations: u32,
    /// Occupancy levels: (workgroup size, invocations), sparse to saturating.
    pub occupancy: Vec<(u32, u32)>,
    /// How long the predicated k = 1 dispatch should take; trip counts are calibrated to it.
    pub target_ns: f64,
    /// Paths in the unbalanced-vs-balanced comparison.
    pub unbalanced_k: u32,
    /// The observed subgroup size the plan is for.
    pub subgroup_size: u32,
}

impl Plan {
    /// Plans for a subgroup size on a device type. `max_workgroup` is the device's
    /// `max_compute_invocations_per_workgroup`.
    pub fn new(
        subgroup_size: u32,
        quick: bool,
        device_type: wgpu::DeviceType,
        max_workgroup: u32,
    ) -> Self {
        let sg = subgroup_size.max(1);
        let dense = sg.min(32);
        let top = (if quick { 2 * sg } else { 4 * sg }).min(128);
        let mut ks: Vec<u32> = (1..=dense).collect();
        ks.extend(
            (0..8)
                .map(|i| 1u32 << i)
                .filter(|&p| p > dense && p <= top.max(sg)),
        );
        let cpu = device_type == wgpu::DeviceType::Cpu;
        // A GPU needs ~a million lanes to fill. A CPU device (lavapipe) is full with a few
        // workgroups per core, but with 64 workgroups its threads balance the load when one of
        // them is interrupted; with 8 they did not (T_div stopped growing at k = 5).
        let saturating_invocations = if cpu { 4096 } else { 1 << 20 };
        let workgroup_size = 64u32.max(sg);
        let occupancy = [32u32, 64, 128, 256]
            .into_iter()
            .filter(|&wg| wg >= sg && wg % sg == 0 && wg <= max_workgroup)
            .flat_map(|wg| {
                [64, 8, 1].map(move |fraction| (wg, (saturating_invocations / fraction).max(wg)))
            })
            .collect();
        // The target is for the predicated kernel, which calibrates every form (a branchy
        // path costs about the same). On lavapipe, paths of ~2 ms gave F(8) of 6.8-7.3 (fixed
        // per-dispatch costs and a noisy shared CPU); ~8 ms gave 7.7-7.9.
        let target_ns = match (cpu, quick) {
            (true, true) => 8e6,
            (true, false) => 16e6,
            (false, true) => 2e5,
            (false, false) => 2.5e5,
        };
        Self {
            ks,
            workgroup_size,
            saturating_invocations,
            occupancy,
            target_ns,
            unbalanced_k: sg.min(8),
            subgroup_size: sg,
        }
    }
}

impl Plan {
    /// Plans for an adapter without subgroup operations, whose width is not known yet: k up to
    /// 128 (every k to 32, 16 when quick, then steps), so that the knee of F(k) shows the
    /// width, and workgroups that hold whole blocks of 128 invocations, over which the
    /// control's selector is uniform. `subgroup_size` is the largest k until timing has
    /// inferred the real width ([`Plan::set_subgroup_size`]).
    ///
    /// On a CPU device k stops at 32: llvmpipe took 3 s to compile a 32-path kernel, 29 s for 64
    /// paths and minutes for 128, and CPU SIMD widths (4 to 16 lanes) show their knee by 32.
    pub fn without_subgroups(
        quick: bool,
        device_type: wgpu::DeviceType,
        max_workgroup: u32,
    ) -> Self {
        let top = if device_type == wgpu::DeviceType::Cpu {
            32
        } else {
            128
        };
        let mut plan = Self::new(top, quick, device_type, max_workgroup);
        let dense = if quick { 16 } else { 32 };
        plan.ks = (1..=dense)
            .chain(
                [24, 32, 48, 64, 96, 128]
                    .into_iter()
                    .filter(|&k| k > dense && k <= top),
            )
            .collect();
        plan.workgroup_size = 128;
        plan
    }

    /// Sets the subgroup size once known (inferred from timing), and what depends on it.
    pub fn set_subgroup_size(&mut self, subgroup_size: u32) {
        self.subgroup_size = subgroup_size;
        self.unbalanced_k = subgroup_size.min(8);
    }

    /// The largest k: the number of paths the branchy kernels are compiled with.
    pub fn max_k(&self) -> u32 {
        *self.ks.last().expect("ks is never empty")
    }

    /// The most paths one subgroup runs one after another in any of the study's dispatches:
    /// a subgroup's lanes hold at most `subgroup_size` distinct selectors.
    pub fn serialized_paths(&self) -> u32 {
        self.max_k().min(self.subgroup_size)
    }

    /// The k of the occupancy sweep and the result check: the subgroup size, or the largest k.
    pub fn occupancy_k(&self) -> u32 {
        self.ks
            .iter()
            .copied()
            .find(|&k| k >= self.subgroup_size)
            .unwrap_or(self.max_k())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ks_cover_every_k_to_sg_then_powers_of_two() {
        let gpu = Plan::new(32, false, wgpu::DeviceType::DiscreteGpu, 1024);
        let mut expected: Vec<u32> = (1..=32).collect();
        expected.extend([64, 128]);
        assert_eq!(gpu.ks, expected);
        let lavapipe = Plan::new(8, true, wgpu::DeviceType::Cpu, 1024);
        assert_eq!(lavapipe.ks, vec![1, 2, 3, 4, 5, 6, 7, 8, 16]);
        let wave64 = Plan::new(64, false, wgpu::DeviceType::DiscreteGpu, 1024);
        assert_eq!(wave64.ks.last(), Some(&128));
        assert!(wave64.ks.contains(&64));
    }

    #[test]
    fn occupancy_levels_hold_whole_subgroups() {
        let plan = Plan::new(64, false, wgpu::DeviceType::DiscreteGpu, 1024);
        assert!(
            plan.occupancy
                .iter()
                .all(|&(wg, n)| wg % 64 == 0 && n >= wg)
        );
        assert_eq!(plan.occupancy.len(), 9);
    }
}
