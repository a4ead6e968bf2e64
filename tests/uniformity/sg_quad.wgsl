// Quad builtins are subgroup builtins for the analysis.
enable subgroups;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    let q = quadBroadcast(lid, 0u);
    if lid % 4u == 0u {
        let x = quadSwapX(lid);
    }
}
