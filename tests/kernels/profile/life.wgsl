// divlab-profile: --dispatch 2,2 --texture current=checker:3
// Conway's game of life on a torus, one generation: read the board from one storage texture,
// write the next one to another.
@group(0) @binding(0) var current: texture_storage_2d<r32uint, read>;
@group(0) @binding(1) var next: texture_storage_2d<r32uint, write>;

@compute @workgroup_size(8, 8)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let size = vec2<i32>(textureDimensions(current));
    let cell = vec2<i32>(gid.xy);
    if (cell.x >= size.x || cell.y >= size.y) {
        return;
    }
    var neighbours = 0u;
    for (var dy = -1; dy <= 1; dy++) {
        for (var dx = -1; dx <= 1; dx++) {
            if (dx == 0 && dy == 0) {
                continue;
            }
            let at = (cell + vec2<i32>(dx, dy) + size) % size;
            neighbours += textureLoad(current, at).r;
        }
    }
    let alive = textureLoad(current, cell).r == 1u;
    var state = 0u;
    if (alive && (neighbours == 2u || neighbours == 3u)) {
        state = 1u; // survives
    } else if (!alive && neighbours == 3u) {
        state = 1u; // born
    }
    textureStore(next, cell, vec4<u32>(state, 0u, 0u, 0u));
}
