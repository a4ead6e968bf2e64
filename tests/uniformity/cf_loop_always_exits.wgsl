// A loop whose body always breaks or returns has no back edge: a barrier before a non-uniform return is uniform.
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    loop {
        workgroupBarrier();
        if lid > 3u {
            return;
        }
        break;
        continuing {
            break if lid > 5u;
        }
    }
}
