// A HIP file as samples are written: host C++ (<vector>, <iostream>, <algorithm>, std::chrono, a
// main with hipMalloc, <<<...>>> and hipLaunchKernelGGL) beside the kernels, a helper header
// next to the source ("Inputs/sample_utils.h", found through the includer's directory), and
// cooperative groups. --host-headers mounts the host's C/C++ headers; the host code is parsed
// and not compiled, the kernels run on the host device against their oracles.
// HRXCC-FLAGS: --host-headers
// RUN: %hip_case --out %t %s | FileCheck %s
// CHECK: notes match
// CHECK-NOT: FAIL
#include "Inputs/sample_utils.h"
#include <hip/hip_cooperative_groups.h>
#include <hip/hip_runtime.h>

#include <algorithm>
#include <numeric>

namespace cg = cooperative_groups;

// A reduction over any group, given by value (a block or a tile keeps what it is).
__device__ int group_sum(cg::thread_group group, int *scratch, int value) {
  unsigned rank = group.thread_rank();
  for (unsigned half = group.size() / 2; half > 0; half /= 2) {
    scratch[rank] = value;
    group.sync();
    if (rank < half) value += scratch[rank + half];
    group.sync();
  }
  return rank == 0 ? value : 0;
}

// CASE: _Z10group_sumsILj16EEvPiS0_PKi workload=64
// ARG: 1xi32=0
// ARG: 4xi32=0
// ARG: 64xi32=64:range
// EXPECT: 0 [sum(range(64))]
// EXPECT: 1 [sum(range(16 * k, 16 * k + 16)) for k in range(4)]
template <unsigned TileSize>
__global__ void __launch_bounds__(64) group_sums(int *block_total, int *tile_totals, const int *in) {
  cg::thread_block block = cg::this_thread_block();
  __shared__ int scratch[64];
  int value = in[block.thread_rank()];
  int total = group_sum(block, scratch, value);
  if (block.thread_rank() == 0) block_total[0] = total;
  cg::thread_block_tile<TileSize> tile = cg::tiled_partition<TileSize>(block);
  unsigned base = block.thread_rank() - tile.thread_rank();
  int part = group_sum(tile, &scratch[base], value);
  if (tile.thread_rank() == 0) tile_totals[tile.meta_group_rank()] = part;
}

// CASE: tile_shuffle_sums workload=32
// ARG: 4xi32=0
// ARG: 32xi32=32:range
// EXPECT: 0 [sum(range(8 * k, 8 * k + 8)) for k in range(4)]
extern "C" __global__ void __launch_bounds__(32) tile_shuffle_sums(int *out, const int *in) {
  cg::thread_block_tile<8> tile = cg::tiled_partition<8>(cg::this_thread_block());
  int value = in[threadIdx.x];
  for (unsigned offset = 4; offset > 0; offset /= 2) value += tile.shfl_down(value, offset);
  if (tile.thread_rank() == 0) out[tile.meta_group_rank()] = value;
}

// CASE: scaled_copy workload=100
// ARG: 100xf32=0
// ARG: 100xf32=100:range
// ARG: i32=100
// EXPECT: 0 [f32(i * 0.5) for i in range(100)]
extern "C" __global__ void scaled_copy(float *out, const float *in, int count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = in[i] * 0.5f;
}

int main() {
  constexpr int count = 64;
  std::vector<int> host(count);
  std::iota(host.begin(), host.end(), 0);
  int *in = nullptr, *total = nullptr, *tiles = nullptr;
  SAMPLE_CHECK(hipMalloc(&in, count * sizeof(int)));
  SAMPLE_CHECK(hipMalloc(&total, sizeof(int)));
  SAMPLE_CHECK(hipMalloc(&tiles, 4 * sizeof(int)));
  SAMPLE_CHECK(hipMemcpy(in, host.data(), count * sizeof(int), hipMemcpyHostToDevice));
  auto start = std::chrono::steady_clock::now();
  group_sums<16><<<dim3(1), dim3(count), 0, hipStreamDefault>>>(total, tiles, in);
  hipLaunchKernelGGL(tile_shuffle_sums, dim3(1), dim3(32), 0, 0, tiles, in);
  float *fin = nullptr, *fout = nullptr;
  SAMPLE_CHECK(hipMalloc(&fin, 100 * sizeof(float)));
  SAMPLE_CHECK(hipMalloc(&fout, 100 * sizeof(float)));
  scaled_copy<<<round_up_div(100, 64u), 64>>>(fout, fin, 100);
  SAMPLE_CHECK(hipDeviceSynchronize());
  int result = 0;
  SAMPLE_CHECK(hipMemcpy(&result, total, sizeof(int), hipMemcpyDeviceToHost));
  std::cout << "sum " << result << " in " << elapsed_ms(start) << " ms" << std::endl;
  SAMPLE_CHECK(hipFree(in));
  return result == std::accumulate(host.begin(), host.end(), 0) ? 0 : 1;
}
