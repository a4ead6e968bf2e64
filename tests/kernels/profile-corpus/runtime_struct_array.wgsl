// divlab-profile: --dispatch 4
// Older-style buffers: a struct whose last member is a runtime-sized array, arrayLength through
// the member, a pointer parameter to a function-local accumulator, and `loop` with a
// `continuing { break if }` tail.
struct Data {
    scale: f32,
    values: array<f32>,
}

@group(0) @binding(0) var<storage, read> data_in: Data;
@group(0) @binding(1) var<storage, read_write> data_out: Data;

fn accumulate(acc: ptr<function, f32>, v: f32) {
    if (v > 0.0) {
        *acc += v;
    } else {
        *acc -= 0.5 * v;
    }
}

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = arrayLength(&data_in.values);
    if (gid.x >= n || gid.x >= arrayLength(&data_out.values)) {
        return;
    }
    var acc = 0.0;
    var k = 0u;
    loop {
        accumulate(&acc, data_in.values[(gid.x + k) % n]);
        k++;
        continuing {
            break if k >= 4u + (gid.x % 4u);
        }
    }
    data_out.values[gid.x] = acc * data_in.scale;
}
