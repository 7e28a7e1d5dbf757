#include "square.h"
__global__ void square_kernel(int *out, const int *in, unsigned size) {
  unsigned i = threadIdx.x + blockIdx.x * blockDim.x;
  if (i < size) out[i] = device_square(in[i]);
}
__global__ void halve_kernel(float *data) { data[threadIdx.x] = lib::halve(data[threadIdx.x]); }
__device__ int nowhere(int);
__global__ void missing_kernel(int *data) { data[threadIdx.x] = nowhere(data[threadIdx.x]); }
