// A loop whose body always returns has behavior {Return}, break-if or not: what follows is unreachable.
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    loop {
        if lid > 3u {
            return;
        }
        return;
        continuing {
            break if lid > 5u;
        }
    }
    if lid > 1u {
        workgroupBarrier();
    }
}
