// Template kernels (explicit instantiation and instantiation by a host launch), static kernels,
// `void __global__` and __attribute__((global)) spellings; host code in the file is parsed and
// ignored (hipMalloc, hipMemcpy, <<<...>>>, hipLaunchKernelGGL, dim3, streams, events).
// RUN: %hip_case --out %t %s | FileCheck %s
// CHECK: notes match
// CHECK-NOT: FAIL
#include <hip/hip_runtime.h>

template <typename T, int Scale>
__global__ void __launch_bounds__(64) scaled_copy(T *out, const T *in) {
  out[threadIdx.x] = in[threadIdx.x] * T(Scale);
}
// CASE: _Z11scaled_copyIiLi3EEvPT_PKS0_ workload=64
// ARG: 64xi32=0
// ARG: 64xi32=64:range
// EXPECT: 0 [3 * i for i in range(64)]
template __global__ void scaled_copy<int, 3>(int *, const int *);

// CASE: _Z11scaled_copyIfLi2EEvPT_PKS0_ workload=64
// ARG: 64xf32=0
// ARG: 64xf32=64:range
// EXPECT: 0 [2.0 * i for i in range(64)]

// CASE: _ZL12static_fill2Pi workload=64
// ARG: 64xi32=0
// EXPECT: 0 [7] * 64
static __global__ void __launch_bounds__(64) static_fill2(int *out) { out[threadIdx.x] = 7; }

// CASE: _Z9order_onePi workload=64
// ARG: 64xi32=0
// EXPECT: 0 [i + 1 for i in range(64)]
void __global__ __launch_bounds__(64) order_one(int *out) { out[threadIdx.x] = threadIdx.x + 1; }

// CASE: _Z10attributedPi workload=64
// ARG: 64xi32=0
// EXPECT: 0 [-i for i in range(64)]
__attribute__((global)) __launch_bounds__(64) void attributed(int *out) { out[threadIdx.x] = -(int)threadIdx.x; }

__device__ int helper(int x) { return x * x; }
__host__ __device__ int both(int x) { return x + 1; }

// CASE: _Z11uses_helperPi workload=64
// ARG: 64xi32=0
// EXPECT: 0 [i * i + 1 for i in range(64)]
__global__ void __launch_bounds__(64) uses_helper(int *out) {
  int t = threadIdx.x;
  assert(t < 64);
  out[t] = both(helper(t));
}

static int host_only_counter = 0;
int main() {
  float *in = nullptr, *out = nullptr;
  hipStream_t stream;
  hipEvent_t start;
  hipStreamCreate(&stream);
  hipEventCreate(&start);
  hipMalloc(&in, 64 * sizeof(float));
  hipMalloc(&out, 64 * sizeof(float));
  scaled_copy<float, 2><<<dim3(1), dim3(64), 0, stream>>>(out, in);
  hipLaunchKernelGGL(static_fill2, dim3(1), dim3(64), 0, 0, (int *)out);
  hipEventRecord(start, stream);
  hipMemcpy(in, out, 64 * sizeof(float), hipMemcpyDeviceToHost);
  hipDeviceSynchronize();
  int *leak = new int[4];  // host code: not checked, not compiled
  host_only_counter += leak[0];
  return hipGetLastError() == hipSuccess ? 0 : 1;
}
