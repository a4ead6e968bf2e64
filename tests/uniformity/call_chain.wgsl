// Call-site tags propagate through a chain of calls.
fn inner() { workgroupBarrier(); }
fn middle() { inner(); }
fn outer() { middle(); }
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid > 7u {
        outer();
    }
}
