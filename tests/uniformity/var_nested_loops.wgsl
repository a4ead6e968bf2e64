// A value assigned in an inner loop reaches the outer loop's next iteration.
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32) {
    var x = 0u;
    for (var i = 0u; i < 4u; i++) {
        let top = x;
        for (var j = 0u; j < 2u; j++) {
            x = lid;
        }
    }
    let after = x;
}
