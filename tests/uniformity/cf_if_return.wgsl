// A non-uniform return makes the rest of the function non-uniform: the if's behavior is {Next, Return}.
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    if lid >= 32u {
        return;
    }
    workgroupBarrier();
}
