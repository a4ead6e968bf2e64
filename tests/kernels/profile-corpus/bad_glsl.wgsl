// divlab-profile: --dispatch 4
// divlab-profile-expect: exit 2
// A GLSL compute shader saved with the wrong extension.
#version 450
layout(local_size_x = 64) in;

layout(std430, binding = 0) buffer Data {
    float values[];
};

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < values.length()) {
        values[i] = values[i] * 2.0;
    }
}
