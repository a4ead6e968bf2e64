// divlab-profile: --dispatch 2,2 --texture board=checker:2
// The game of life on two rgba8unorm storage textures (read, then write), wrapping at the edges.
// A cell is alive when its red channel is above one half.
@group(0) @binding(0) var board: texture_storage_2d<rgba8unorm, read>;
@group(0) @binding(1) var next_board: texture_storage_2d<rgba8unorm, write>;

fn alive(p: vec2<i32>, size: vec2<i32>) -> u32 {
    let q = (p + size) % size;
    return select(0u, 1u, textureLoad(board, q).r > 0.5);
}

@compute @workgroup_size(8, 8)
fn step(@builtin(global_invocation_id) gid: vec3<u32>) {
    let size = vec2<i32>(textureDimensions(board));
    let p = vec2<i32>(gid.xy);
    if (p.x >= size.x || p.y >= size.y) {
        return;
    }
    var n = 0u;
    for (var dy = -1; dy <= 1; dy++) {
        for (var dx = -1; dx <= 1; dx++) {
            if (dx != 0 || dy != 0) {
                n += alive(p + vec2<i32>(dx, dy), size);
            }
        }
    }
    let me = alive(p, size);
    var out = vec4<f32>(0.0, 0.0, 0.0, 1.0);
    if (n == 3u || (n == 2u && me == 1u)) {
        out = vec4<f32>(1.0);
    }
    textureStore(next_board, p, out);
}
