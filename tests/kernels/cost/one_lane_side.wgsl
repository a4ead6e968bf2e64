// divlab-profile: --dispatch 64
// The first invocation of each workgroup sums a row alone, as a layer norm's serial reduction
// does, and the `if` has no `else`. Diverged, the workgroup's first subgroup runs the loop with
// one lane; following its first lane, the same subgroup runs it with all of them, and the
// others skip it as before: nothing is saved, though all but one lane of that subgroup idle
// through the loop. The model predicts 0: the variant drops no subgroup execution.
@group(0) @binding(0) var<storage, read> input: array<f32>;
@group(0) @binding(1) var<storage, read_write> output: array<f32>;

var<workgroup> row_sum: f32;

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wg: vec3u) {
    if (lid == 0u) { // the branch
        var sum = 0.0;
        for (var i = 0u; i < 2048u; i++) {
            sum = fma(sum, 0.999, input[(wg.x * 64u + i) % arrayLength(&input)]);
        }
        row_sum = sum;
    }
    workgroupBarrier();
    let at = wg.x * 64u + lid;
    output[at] = input[at] / max(row_sum, 1.0);
}
