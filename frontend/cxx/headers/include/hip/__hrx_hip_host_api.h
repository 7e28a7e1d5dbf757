// The host side of the HIP runtime API, declared so that host code in a HIP unit type-checks.
// hrx compiles device code only (clang --cuda-device-only semantics): none of these is defined
// or called; kernels are launched through hrx-run or the hrx runtime.
#ifndef HRX_HIP_HOST_API_H
#define HRX_HIP_HOST_API_H

struct dim3 {
  uint32_t x, y, z;
  __host__ __device__ constexpr dim3(uint32_t x_ = 1, uint32_t y_ = 1, uint32_t z_ = 1) : x(x_), y(y_), z(z_) {}
};

enum hipError_t {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorOutOfMemory = 2,
  hipErrorMemoryAllocation = 2,
  hipErrorNotInitialized = 3,
  hipErrorInvalidDevice = 101,
  hipErrorNoDevice = 100,
  hipErrorNotReady = 600,
  hipErrorUnknown = 999,
};
enum hipMemcpyKind {
  hipMemcpyHostToHost = 0,
  hipMemcpyHostToDevice = 1,
  hipMemcpyDeviceToHost = 2,
  hipMemcpyDeviceToDevice = 3,
  hipMemcpyDefault = 4,
};
typedef struct ihipStream_t *hipStream_t;
typedef struct ihipEvent_t *hipEvent_t;
typedef struct ihipModule_t *hipModule_t;
typedef struct ihipModuleSymbol_t *hipFunction_t;
typedef int hipDevice_t;
#define hipStreamDefault 0
#define hipStreamNonBlocking 1
#define hipEventDefault 0
#define hipHostMallocDefault 0
#define hipHostMallocPortable 0x1
#define hipHostMallocMapped 0x2
#define hipHostMallocWriteCombined 0x4
#define hipHostMallocNumaUser 0x20000000
#define hipHostMallocCoherent 0x40000000
#define hipHostMallocNonCoherent 0x80000000
#define hipHostRegisterDefault 0x0
#define hipHostRegisterPortable 0x1
#define hipHostRegisterMapped 0x2
#define hipEventBlockingSync 0x1
#define hipEventDisableTiming 0x2
#define hipDeviceScheduleAuto 0x0
#define hipDeviceMapHost 0x8
enum hipDeviceAttribute_t {
  hipDeviceAttributeCooperativeLaunch = 2,
  hipDeviceAttributeCooperativeMultiDeviceLaunch = 3,
  hipDeviceAttributeMaxThreadsPerBlock = 56,
  hipDeviceAttributeWarpSize = 87,
  hipDeviceAttributeMultiprocessorCount = 63,
  hipDeviceAttributeMaxSharedMemoryPerBlock = 74,
  hipDeviceAttributeClockRate = 5,
  hipDeviceAttributeComputeCapabilityMajor = 23,
  hipDeviceAttributeComputeCapabilityMinor = 61,
  hipDeviceAttributeIntegrated = 50,
};
#define hipMemAttachGlobal 1

struct hipDeviceProp_t {
  char name[256];
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  int clockRate;
  int memoryClockRate;
  int memoryBusWidth;
  size_t totalConstMem;
  int major;
  int minor;
  int multiProcessorCount;
  int l2CacheSize;
  int maxThreadsPerMultiProcessor;
  int computeMode;
  int clockInstructionRate;
  int concurrentKernels;
  int pciBusID;
  int pciDeviceID;
  size_t maxSharedMemoryPerMultiProcessor;
  int isMultiGpuBoard;
  int canMapHostMemory;
  int gcnArch;
  char gcnArchName[256];
  int integrated;
  int cooperativeLaunch;
  int managedMemory;
};

#define __HRX_HOST_API extern "C" __host__
__HRX_HOST_API hipError_t hipMalloc(void **ptr, size_t size);
__HRX_HOST_API hipError_t hipMallocManaged(void **ptr, size_t size, unsigned flags = hipMemAttachGlobal);
__HRX_HOST_API hipError_t hipHostMalloc(void **ptr, size_t size, unsigned flags = hipHostMallocDefault);
__HRX_HOST_API hipError_t hipFree(void *ptr);
__HRX_HOST_API hipError_t hipHostFree(void *ptr);
__HRX_HOST_API hipError_t hipMemcpy(void *dst, const void *src, size_t size, hipMemcpyKind kind);
__HRX_HOST_API hipError_t hipMemcpyAsync(void *dst, const void *src, size_t size, hipMemcpyKind kind,
                                         hipStream_t stream = 0);
__HRX_HOST_API hipError_t hipMemset(void *dst, int value, size_t size);
__HRX_HOST_API hipError_t hipMemsetAsync(void *dst, int value, size_t size, hipStream_t stream = 0);
__HRX_HOST_API hipError_t hipMemcpyToSymbol(const void *symbol, const void *src, size_t size, size_t offset = 0,
                                            hipMemcpyKind kind = hipMemcpyHostToDevice);
__HRX_HOST_API hipError_t hipMemcpyFromSymbol(void *dst, const void *symbol, size_t size, size_t offset = 0,
                                              hipMemcpyKind kind = hipMemcpyDeviceToHost);
__HRX_HOST_API hipError_t hipGetSymbolAddress(void **ptr, const void *symbol);
__HRX_HOST_API hipError_t hipGetSymbolSize(size_t *size, const void *symbol);
__HRX_HOST_API hipError_t hipDeviceSynchronize(void);
__HRX_HOST_API hipError_t hipDeviceReset(void);
__HRX_HOST_API hipError_t hipGetLastError(void);
__HRX_HOST_API hipError_t hipPeekAtLastError(void);
__HRX_HOST_API const char *hipGetErrorString(hipError_t error);
__HRX_HOST_API const char *hipGetErrorName(hipError_t error);
__HRX_HOST_API hipError_t hipGetDeviceProperties(hipDeviceProp_t *props, int device);
// The first HIP's name for it (hipify of 2016 mapped cudaGetDeviceProperties here); ROCm 6's
// headers declare it again, as the entry point behind hipGetDeviceProperties.
__HRX_HOST_API hipError_t hipDeviceGetProperties(hipDeviceProp_t *props, int device);
__HRX_HOST_API hipError_t hipGetDeviceCount(int *count);
__HRX_HOST_API hipError_t hipGetDevice(int *device);
__HRX_HOST_API hipError_t hipSetDevice(int device);
__HRX_HOST_API hipError_t hipStreamCreate(hipStream_t *stream);
__HRX_HOST_API hipError_t hipStreamCreateWithFlags(hipStream_t *stream, unsigned flags);
__HRX_HOST_API hipError_t hipStreamDestroy(hipStream_t stream);
__HRX_HOST_API hipError_t hipStreamSynchronize(hipStream_t stream);
__HRX_HOST_API hipError_t hipEventCreate(hipEvent_t *event);
__HRX_HOST_API hipError_t hipEventCreateWithFlags(hipEvent_t *event, unsigned flags);
__HRX_HOST_API hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream = 0);
__HRX_HOST_API hipError_t hipEventSynchronize(hipEvent_t event);
__HRX_HOST_API hipError_t hipEventElapsedTime(float *ms, hipEvent_t start, hipEvent_t stop);
__HRX_HOST_API hipError_t hipEventDestroy(hipEvent_t event);
__HRX_HOST_API hipError_t hipLaunchKernel(const void *function, dim3 grid, dim3 block, void **args, size_t dynamicLds,
                                          hipStream_t stream);
__HRX_HOST_API hipError_t hipConfigureCall(dim3 grid, dim3 block, size_t dynamicLds = 0, hipStream_t stream = 0);
__HRX_HOST_API unsigned __hipPushCallConfiguration(dim3 grid, dim3 block, size_t dynamicLds = 0, hipStream_t stream = 0);
__HRX_HOST_API hipError_t __hipPopCallConfiguration(dim3 *grid, dim3 *block, size_t *dynamicLds, hipStream_t *stream);
__HRX_HOST_API hipError_t hipOccupancyMaxPotentialBlockSize(int *gridSize, int *blockSize, const void *function,
                                                            size_t dynamicLds = 0, int blockSizeLimit = 0);
__HRX_HOST_API hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *function, int blockSize,
                                                                       size_t dynamicLds = 0);
__HRX_HOST_API hipError_t hipLaunchCooperativeKernel(const void *function, dim3 grid, dim3 block, void **args,
                                                     unsigned dynamicLds = 0, hipStream_t stream = 0);
__HRX_HOST_API hipError_t hipHostGetDevicePointer(void **device, void *host, unsigned flags);
__HRX_HOST_API hipError_t hipHostRegister(void *host, size_t size, unsigned flags);
__HRX_HOST_API hipError_t hipHostUnregister(void *host);
__HRX_HOST_API hipError_t hipDeviceGetAttribute(int *value, hipDeviceAttribute_t attribute, int device);
__HRX_HOST_API hipError_t hipSetDeviceFlags(unsigned flags);
__HRX_HOST_API hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned flags = 0);
__HRX_HOST_API hipError_t hipStreamQuery(hipStream_t stream);
__HRX_HOST_API hipError_t hipEventQuery(hipEvent_t event);
__HRX_HOST_API hipError_t hipMemGetInfo(size_t *free, size_t *total);
__HRX_HOST_API hipError_t hipDriverGetVersion(int *version);
__HRX_HOST_API hipError_t hipRuntimeGetVersion(int *version);
__HRX_HOST_API hipError_t hipDeviceCanAccessPeer(int *canAccess, int device, int peer);
__HRX_HOST_API hipError_t hipDeviceEnablePeerAccess(int peer, unsigned flags);
__HRX_HOST_API hipError_t hipDeviceDisablePeerAccess(int peer);
__HRX_HOST_API hipError_t hipMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t size);
__HRX_HOST_API hipError_t hipMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                      size_t height, hipMemcpyKind kind);
__HRX_HOST_API hipError_t hipMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height);
#undef __HRX_HOST_API

template <class T>
__host__ inline hipError_t hipMalloc(T **ptr, size_t size) { return hipMalloc((void **)ptr, size); }
template <class T>
__host__ inline hipError_t hipMallocManaged(T **ptr, size_t size, unsigned flags = hipMemAttachGlobal) {
  return hipMallocManaged((void **)ptr, size, flags);
}
template <class T>
__host__ inline hipError_t hipHostMalloc(T **ptr, size_t size, unsigned flags = hipHostMallocDefault) {
  return hipHostMalloc((void **)ptr, size, flags);
}
template <class T>
__host__ inline hipError_t hipGetSymbolAddress(void **ptr, const T &symbol) { return hipGetSymbolAddress(ptr, (const void *)&symbol); }
template <class T>
__host__ inline hipError_t hipGetSymbolSize(size_t *size, const T &symbol) { return hipGetSymbolSize(size, (const void *)&symbol); }
template <class T>
__host__ inline hipError_t hipMemcpyToSymbol(const T &symbol, const void *src, size_t size, size_t offset = 0,
                                             hipMemcpyKind kind = hipMemcpyHostToDevice) {
  return hipMemcpyToSymbol((const void *)&symbol, src, size, offset, kind);
}
template <class T>
__host__ inline hipError_t hipMemcpyFromSymbol(void *dst, const T &symbol, size_t size, size_t offset = 0,
                                               hipMemcpyKind kind = hipMemcpyDeviceToHost) {
  return hipMemcpyFromSymbol(dst, (const void *)&symbol, size, offset, kind);
}

// Kernels given by name where the C API takes a function address.
template <class F>
__host__ inline hipError_t hipOccupancyMaxPotentialBlockSize(int *gridSize, int *blockSize, F function,
                                                             size_t dynamicLds = 0, int blockSizeLimit = 0) {
  return hipOccupancyMaxPotentialBlockSize(gridSize, blockSize, reinterpret_cast<const void *>(function), dynamicLds,
                                           blockSizeLimit);
}
template <class F>
__host__ inline hipError_t hipOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, F function, int blockSize,
                                                                        size_t dynamicLds = 0) {
  return hipOccupancyMaxActiveBlocksPerMultiprocessor(blocks, reinterpret_cast<const void *>(function), blockSize,
                                                      dynamicLds);
}
template <class F>
__host__ inline hipError_t hipLaunchCooperativeKernel(F function, dim3 grid, dim3 block, void **args,
                                                      unsigned dynamicLds = 0, hipStream_t stream = 0) {
  return hipLaunchCooperativeKernel(reinterpret_cast<const void *>(function), grid, block, args, dynamicLds, stream);
}
template <class T>
__host__ inline hipError_t hipHostGetDevicePointer(T **device, void *host, unsigned flags) {
  return hipHostGetDevicePointer((void **)device, host, flags);
}
template <class T>
__host__ inline hipError_t hipMallocPitch(T **ptr, size_t *pitch, size_t width, size_t height) {
  return hipMallocPitch((void **)ptr, pitch, width, height);
}

// HIP before ROCm 4 (hcc-era hipcc): every kernel's first parameter was a hipLaunchParm, an int
// the launch filled in, and hipLaunchKernel took the kernel and its arguments like
// hipLaunchKernelGGL. Accepted with a warning naming the modern form.
typedef int hipLaunchParm __attribute__((
    deprecated("hipLaunchParm is the removed first kernel parameter of HIP before ROCm 4 (an int here); declare the "
               "kernel without it and launch it with hipLaunchKernelGGL or <<<...>>>")));
template <class F, class... Args>
[[deprecated("hipLaunchKernel(kernel, grid, block, lds, stream, args...) is HIP before ROCm 4; use "
             "hipLaunchKernelGGL with the same arguments (and drop the kernel's hipLaunchParm)")]] __host__ inline hipError_t
hipLaunchKernel(F kernel, dim3 grid, dim3 block, size_t dynamicLds, hipStream_t stream, Args &&...) {
  return hipLaunchKernel(reinterpret_cast<const void *>(kernel), grid, block, nullptr, dynamicLds, stream);
}
// ROCm before 5 counted occupancy in uint32_t.
template <class F>
[[deprecated("HIP's occupancy queries take int *, not uint32_t *, since ROCm 5")]] __host__ inline hipError_t
hipOccupancyMaxPotentialBlockSize(unsigned *gridSize, unsigned *blockSize, F function, size_t dynamicLds = 0,
                                  int blockSizeLimit = 0) {
  return hipOccupancyMaxPotentialBlockSize(reinterpret_cast<int *>(gridSize), reinterpret_cast<int *>(blockSize),
                                           reinterpret_cast<const void *>(function), dynamicLds, blockSizeLimit);
}
template <class F>
[[deprecated("HIP's occupancy queries take int *, not uint32_t *, since ROCm 5")]] __host__ inline hipError_t
hipOccupancyMaxActiveBlocksPerMultiprocessor(unsigned *blocks, F function, int blockSize, size_t dynamicLds = 0) {
  return hipOccupancyMaxActiveBlocksPerMultiprocessor(reinterpret_cast<int *>(blocks),
                                                      reinterpret_cast<const void *>(function), blockSize, dynamicLds);
}

#define HIP_SYMBOL(symbol) symbol
#define HIP_KERNEL_NAME(...) __VA_ARGS__
#define hipLaunchKernelGGL(kernel, grid, block, dynamicLds, stream, ...) \
  do {                                                                   \
    (kernel)<<<(grid), (block), (dynamicLds), (stream)>>>(__VA_ARGS__);  \
  } while (0)

// Device-side printf: the GPU's hostcall printf; the host twin's is the C library's.
#if defined(__HRX_HOST_HEADERS__) && defined(__HRX_TARGET_AMDGPU__)
// <stdio.h> declared the host's printf; device code gets its own overload, as in ROCm's headers.
extern "C" __device__ int printf(const char *format, ...);
#elif defined(__HRX_HOST_HEADERS__)
// The host twin: the C library's printf, declared for host and device by <hip/__hrx_hip_device.h>.
#else
extern "C" __host__ __device__ int printf(const char *format, ...);
#endif

#endif  // HRX_HIP_HOST_API_H
