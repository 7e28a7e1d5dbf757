// cg::inclusive_scan, cg::exclusive_scan and cg::reduce over thread_block_tile (ROCm 6's
// <hip/cooperative_groups/hip_scan.h> and hip_reduce.h), with the default plus and the cg
// functors; the exclusive scan's first member gets the operation's identity, as on AMD. A
// thread_block_tile<64> compiles for wave32 (samples instantiate one per wave size).
// RUN: %hip_case --out %t %s | FileCheck %s
// CHECK: notes match
// CHECK-NOT: FAIL
#include <hip/cooperative_groups/hip_reduce.h>
#include <hip/cooperative_groups/hip_scan.h>
#include <hip/hip_cooperative_groups.h>
#include <hip/hip_runtime.h>

namespace cg = cooperative_groups;

// CASE: _Z4scanILj16EEvPKjPjS2_S2_ grid=2 block=32
// ARG: 64xi32=64:range
// ARG: 64xi32=0
// ARG: 64xi32=0
// ARG: 64xi32=0
// EXPECT: 1 [sum(range(i - i % 16, i + 1)) for i in range(64)]
// EXPECT: 2 [sum(range(i - i % 16, i)) for i in range(64)]
// EXPECT: 3 [sum(range(i - i % 16, i - i % 16 + 16)) for i in range(64)]
// CASE: _Z4scanILj32EEvPKjPjS2_S2_ grid=2 block=32
// ARG: 64xi32=64:range
// ARG: 64xi32=0
// ARG: 64xi32=0
// ARG: 64xi32=0
// EXPECT: 1 [sum(range(i - i % 32, i + 1)) for i in range(64)]
// EXPECT: 2 [sum(range(i - i % 32, i)) for i in range(64)]
// EXPECT: 3 [sum(range(i - i % 32, i - i % 32 + 32)) for i in range(64)]
template <unsigned TileSize>
__global__ void scan(const unsigned *in, unsigned *inclusive, unsigned *exclusive, unsigned *total) {
  cg::thread_block_tile<TileSize> tile = cg::tiled_partition<TileSize>(cg::this_thread_block());
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = in[i];
  inclusive[i] = cg::inclusive_scan(tile, v);
  exclusive[i] = cg::exclusive_scan(tile, v);
  total[i] = cg::reduce(tile, v);
}
template __global__ void scan<16>(const unsigned *, unsigned *, unsigned *, unsigned *);
template __global__ void scan<32>(const unsigned *, unsigned *, unsigned *, unsigned *);
template __global__ void scan<64>(const unsigned *, unsigned *, unsigned *, unsigned *);

// Minimum, maximum and xor over 8-wide tiles of signed values; exclusive identities are
// INT_MAX (less), INT_MIN (greater) and 0 (bit_xor).
// CASE: ops grid=1 block=16
// ARG: 16xi32=[5,-3,9,0,7,-8,2,2,-1,4,-6,3,10,-10,1,0]
// ARG: 16xi32=0
// ARG: 16xi32=0
// ARG: 16xi32=0
// ARG: 16xi32=0
// ARG: 16xi32=0
// EXPECT: 1 [min([5,-3,9,0,7,-8,2,2,-1,4,-6,3,10,-10,1,0][i - i % 8:i + 1]) for i in range(16)]
// EXPECT: 2 [max([5,-3,9,0,7,-8,2,2,-1,4,-6,3,10,-10,1,0][i - i % 8:i]) if i % 8 else -2**31 for i in range(16)]
// EXPECT: 3 [min([5,-3,9,0,7,-8,2,2,-1,4,-6,3,10,-10,1,0][i - i % 8:i]) if i % 8 else 2**31 - 1 for i in range(16)]
// EXPECT: 4 [__import__("functools").reduce(lambda a, b: a ^ b, [5,-3,9,0,7,-8,2,2,-1,4,-6,3,10,-10,1,0][i - i % 8:i], 0) for i in range(16)]
// EXPECT: 5 [max([5,-3,9,0,7,-8,2,2,-1,4,-6,3,10,-10,1,0][i - i % 8:i - i % 8 + 8]) for i in range(16)]
extern "C" __global__ void ops(const int *in, int *running_min, int *excl_max, int *excl_min, int *excl_xor,
                               int *tile_max) {
  auto tile = cg::tiled_partition<8>(cg::this_thread_block());
  int v = in[threadIdx.x];
  running_min[threadIdx.x] = cg::inclusive_scan(tile, v, cg::less<int>());
  excl_max[threadIdx.x] = cg::exclusive_scan(tile, v, cg::greater<int>());
  excl_min[threadIdx.x] = cg::exclusive_scan(tile, v, cg::less<int>());
  excl_xor[threadIdx.x] = cg::exclusive_scan(tile, v, cg::bit_xor<int>());
  tile_max[threadIdx.x] = cg::reduce(tile, v, cg::greater<int>());
}
