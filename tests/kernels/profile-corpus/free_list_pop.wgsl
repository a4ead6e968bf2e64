// divlab-profile: --dispatch 2 --buffer free_head=0 --buffer next_free=values:1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,4294967295
// A particle emitter in the pattern of GPU particle systems: dead particles' slots wait on a
// free list, and every third invocation pops one with a compare-and-swap loop. `pop_free`
// leaves its loop only by `return`, which WGSL allows and naga 30 rejects: divlab adds the
// `return` naga wants and says so in a note.

struct Particle {
    pos: vec2<f32>,
    vel: vec2<f32>,
    life: f32,
    alive: u32,
}

const EMPTY: u32 = 0xffffffffu;

@group(0) @binding(0) var<storage, read_write> particles: array<Particle>;
@group(0) @binding(1) var<storage, read_write> next_free: array<u32>;
@group(0) @binding(2) var<storage, read_write> free_head: atomic<u32>;

fn pop_free() -> u32 {
    // Each failed swap means another invocation popped: at most one try per slot, and a cap.
    var tries = 0u;
    loop {
        let head = atomicLoad(&free_head);
        if head == EMPTY || head >= arrayLength(&next_free) || tries == 1024u {
            return EMPTY;
        }
        tries += 1u;
        let swapped = atomicCompareExchangeWeak(&free_head, head, next_free[head]);
        if swapped.exchanged {
            return head;
        }
    }
}

@compute @workgroup_size(64)
fn emit(@builtin(global_invocation_id) id: vec3<u32>) {
    if id.x % 3u != 0u {
        return;
    }
    let slot = pop_free();
    if slot == EMPTY || slot >= arrayLength(&particles) {
        return;
    }
    particles[slot] = Particle(vec2<f32>(f32(id.x), 0.0), vec2<f32>(0.0, 1.0), 1.0, 1u);
}
