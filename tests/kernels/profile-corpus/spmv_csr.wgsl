// divlab-profile: --dispatch 4
// Sparse matrix times vector in CSR form, one row per invocation: the inner loop runs from
// row_ptr[row] to row_ptr[row + 1], so its trip count is whatever the offsets buffer holds
// (random offsets: loops of up to four billion trips, and the cap).
struct Dims {
    rows: u32,
    cols: u32,
}

@group(0) @binding(0) var<uniform> dims: Dims;
@group(0) @binding(1) var<storage, read> row_ptr: array<u32>;
@group(0) @binding(2) var<storage, read> col_idx: array<u32>;
@group(0) @binding(3) var<storage, read> vals: array<f32>;
@group(0) @binding(4) var<storage, read> x: array<f32>;
@group(0) @binding(5) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(64)
fn spmv(@builtin(global_invocation_id) gid: vec3<u32>) {
    let row = gid.x;
    if (row >= dims.rows || row + 1u >= arrayLength(&row_ptr) || row >= arrayLength(&y)) {
        return;
    }
    var sum = 0.0;
    for (var j = row_ptr[row]; j < row_ptr[row + 1u]; j++) {
        let k = j % arrayLength(&col_idx);
        sum += vals[k % arrayLength(&vals)] * x[col_idx[k] % arrayLength(&x)];
    }
    y[row] = sum;
}
