// divlab-profile: --dispatch 4 --len bodies=256 --len accel=256
// N-body gravity in tiles: the workgroup loads WG bodies into workgroup memory, everyone sums
// their pull, then the next tile; the tile loop is bounded by the array's length.
const WG: u32 = 64u;
const SOFTENING: f32 = 0.01;

@group(0) @binding(0) var<storage, read> bodies: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> accel: array<vec4<f32>>;

var<workgroup> tile: array<vec4<f32>, WG>;

@compute @workgroup_size(WG)
fn main(@builtin(global_invocation_id) gid: vec3<u32>,
        @builtin(local_invocation_id) lid: vec3<u32>) {
    let n = arrayLength(&bodies);
    let me = min(gid.x, n - 1u);
    let p = bodies[me];
    var a = vec3<f32>(0.0);
    let tiles = (n + WG - 1u) / WG;
    for (var t = 0u; t < tiles; t++) {
        let j = t * WG + lid.x;
        tile[lid.x] = select(vec4<f32>(0.0), bodies[min(j, n - 1u)], j < n);
        workgroupBarrier();
        for (var k = 0u; k < WG; k++) {
            let q = tile[k];
            let d = q.xyz - p.xyz;
            let r2 = dot(d, d) + SOFTENING;
            a += q.w * d * inverseSqrt(r2 * r2 * r2);
        }
        workgroupBarrier();
    }
    if (gid.x < arrayLength(&accel)) {
        accel[gid.x] = vec4<f32>(a, 0.0);
    }
}
