// A sample-style helper header next to its sources (found through the includer's directory):
// host C++ (iostream, vector, chrono) and a host+device helper, as HIP samples write them.
#pragma once
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>
#include <hip/hip_runtime.h>

#define SAMPLE_CHECK(call)                                                          \
  do {                                                                              \
    hipError_t status_ = (call);                                                    \
    if (status_ != hipSuccess) {                                                    \
      std::cerr << "HIP error " << hipGetErrorString(status_) << " at " << __LINE__; \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)

template <class T, class U>
__host__ __device__ constexpr T round_up_div(T value, U divisor) {
  return (value + divisor - 1) / divisor;
}

inline double elapsed_ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
}
