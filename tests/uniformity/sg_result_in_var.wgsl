// A reduction of a non-uniform value stays non-uniform at subgroup scope, in a var too.
enable subgroups;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var m = subgroupMax(lid);
    let v = m;
    if v > 8u {
        let s = subgroupAdd(1u);
    }
}
