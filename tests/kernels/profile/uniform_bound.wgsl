// divlab-profile: --dispatch 2
// Every invocation sums a strided slice of a table whose length comes from a uniform, as
// reductions and n-body kernels do: `params.count` bounds the guard and the loop. With the default
// fill it holds the dispatch's invocations (128 here), the table's default length.
struct Params {
    count: u32,
    scale: f32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> table: array<f32>;
@group(0) @binding(2) var<storage, read_write> sums: array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= params.count) { // guard
        return; // out of range
    }
    var acc = 0.0;
    for (var j = 0u; j < params.count; j++) { // loop
        if ((i + j) % 3u == 0u) { // every third
            acc += table[j] * params.scale; // add
        }
    }
    sums[i] = acc; // store
}
