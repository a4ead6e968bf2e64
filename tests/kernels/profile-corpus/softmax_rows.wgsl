// divlab-profile: --dispatch 1,4 --buffer shape=values:256,4,1,0
// Row-wise softmax, one workgroup per row: strided loops over the row (length from a uniform),
// then max and sum reductions in workgroup memory, halving the active lanes each round.
const BLOCK: u32 = 64u;

@group(0) @binding(0) var<uniform> shape: vec4<u32>;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

var<workgroup> sketch: array<f32, BLOCK>;
var<workgroup> row_max: f32;
var<workgroup> row_sum: f32;

fn reduce_max(i: u32, stride: u32) {
    if (i < stride) {
        sketch[i] = max(sketch[i], sketch[i + stride]);
    }
    workgroupBarrier();
}

fn reduce_sum(i: u32, stride: u32) {
    if (i < stride) {
        sketch[i] += sketch[i + stride];
    }
    workgroupBarrier();
}

@compute @workgroup_size(BLOCK, 1, 1)
fn softmax(@builtin(local_invocation_id) lid: vec3<u32>,
           @builtin(workgroup_id) wid: vec3<u32>) {
    let cols = shape.x;
    let row = wid.y;
    let base = row * cols;
    let n = arrayLength(&x);
    sketch[lid.x] = -1.0e30;
    for (var i = lid.x; i < cols; i += BLOCK) {
        sketch[lid.x] = max(sketch[lid.x], x[(base + i) % n]);
    }
    workgroupBarrier();
    for (var s = BLOCK / 2u; s > 0u; s >>= 1u) {
        reduce_max(lid.x, s);
    }
    if (lid.x == 0u) {
        row_max = sketch[0];
    }
    workgroupBarrier();
    sketch[lid.x] = 0.0;
    for (var i = lid.x; i < cols; i += BLOCK) {
        sketch[lid.x] += exp(x[(base + i) % n] - row_max);
    }
    workgroupBarrier();
    for (var s = BLOCK / 2u; s > 0u; s >>= 1u) {
        reduce_sum(lid.x, s);
    }
    if (lid.x == 0u) {
        row_sum = sketch[0];
    }
    workgroupBarrier();
    for (var i = lid.x; i < cols; i += BLOCK) {
        y[(base + i) % arrayLength(&y)] = exp(x[(base + i) % n] - row_max) / row_sum;
    }
}
