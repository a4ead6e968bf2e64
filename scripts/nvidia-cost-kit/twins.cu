// CUDA twins of divlab's --cost test kernels (tests/kernels/cost/) and of the Collatz example
// (assets/kernels/collatz.wgsl), line for line where CUDA allows, so that Nsight Compute's
// source view (per-line divergent branches) and the SASS (which branches nvcc kept as branches
// and which it predicated or turned into selects) can be held against divlab's verdicts.
// Built by ./run with `nvcc -lineinfo`; each kernel is launched once on the same sizes as the
// WGSL's `divlab-profile:` header (workgroups of 64).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void parity_equal_sides(float* data) {
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    float x = data[gid];
    if (gid % 2u == 0u) { // the branch
        for (unsigned i = 0; i < 768u; i++) x = fmaf(x, 0.999f, 0.25f);
    } else {
        for (unsigned i = 0; i < 768u; i++) x = fmaf(x, 1.001f, -0.25f);
    }
    data[gid] = x;
}

__global__ void cheap_sides(float* data) {
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    float x = data[gid];
    if (gid % 2u == 0u) { // the branch
        x = x * 1.5f;
    } else {
        x = x + 0.5f;
    }
    for (unsigned i = 0; i < 1024u; i++) x = fmaf(x, 0.999f, 0.5f);
    data[gid] = x;
}

__global__ void steers_loop(float* data) {
    unsigned gid = blockIdx.x * blockDim.x + threadIdx.x;
    float x = data[gid];
    unsigned trips = 0;
    if (gid % 2u == 0u) { // the branch
        trips = 96u;
    } else {
        trips = 12u;
    }
    for (unsigned i = 0; i < trips; i++) x = fmaf(x, 0.999f, 0.5f);
    data[gid] = x;
}

__global__ void collatz(const unsigned* seeds, unsigned* steps, unsigned n_seeds) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_seeds) return;
    unsigned n = seeds[i] % 10000u + 1u;
    unsigned count = 0;
    while (n != 1u && count < 1000u) {
        if ((n & 1u) == 0u) { // the branch
            n = n / 2u;
        } else {
            n = 3u * n + 1u;
        }
        count += 1u;
    }
    steps[i] = count;
}

int main() {
    const unsigned block = 64, n = 1024 * block;
    float* data;
    unsigned *seeds, *steps;
    cudaMalloc(&data, n * sizeof(float));
    cudaMalloc(&seeds, n * sizeof(unsigned));
    cudaMalloc(&steps, n * sizeof(unsigned));
    cudaMemset(data, 0, n * sizeof(float));
    // Seeds that vary by lane, as divlab's random fill does.
    unsigned* host = new unsigned[n];
    for (unsigned i = 0; i < n; i++) host[i] = i * 2654435761u;
    cudaMemcpy(seeds, host, n * sizeof(unsigned), cudaMemcpyHostToDevice);
    parity_equal_sides<<<64, block>>>(data);
    cheap_sides<<<64, block>>>(data);
    steers_loop<<<16, block>>>(data);
    collatz<<<1024, block>>>(seeds, steps, n);
    cudaError_t e = cudaDeviceSynchronize();
    printf("twins ran: %s\n", cudaGetErrorString(e));
    return e == cudaSuccess ? 0 : 1;
}
