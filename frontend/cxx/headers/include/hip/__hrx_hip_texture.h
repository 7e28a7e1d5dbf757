// Part of hrx's HIP device API (<hip/__hrx_hip_device.h>): texture objects. A texture object
// points at an image descriptor (12 dwords) followed by a sampler (8 dwords), as in ROCm; on
// amdgcn tex1D/tex2D/tex3D sample through ockl's image functions and tex1Dfetch loads. The host
// device has no texture unit: a kernel that samples gets no host code (LINK/044). The host API
// (hipCreateTextureObject...) is declared for host code, which is parsed and not compiled.
#ifndef HRX_HIP_TEXTURE_H
#define HRX_HIP_TEXTURE_H

typedef struct __hip_texture *hipTextureObject_t;

enum hipResourceType {
  hipResourceTypeArray = 0,
  hipResourceTypeMipmappedArray = 1,
  hipResourceTypeLinear = 2,
  hipResourceTypePitch2D = 3
};
enum hipTextureAddressMode {
  hipAddressModeWrap = 0,
  hipAddressModeClamp = 1,
  hipAddressModeMirror = 2,
  hipAddressModeBorder = 3
};
enum hipTextureFilterMode { hipFilterModePoint = 0, hipFilterModeLinear = 1 };
enum hipTextureReadMode { hipReadModeElementType = 0, hipReadModeNormalizedFloat = 1 };
enum hipChannelFormatKind {
  hipChannelFormatKindSigned = 0,
  hipChannelFormatKindUnsigned = 1,
  hipChannelFormatKindFloat = 2,
  hipChannelFormatKindNone = 3
};
struct hipChannelFormatDesc {
  int x, y, z, w;
  enum hipChannelFormatKind f;
};
typedef struct hipArray *hipArray_t;
typedef struct hipMipmappedArray *hipMipmappedArray_t;
struct hipResourceDesc {
  enum hipResourceType resType;
  union {
    struct {
      hipArray_t array;
    } array;
    struct {
      hipMipmappedArray_t mipmap;
    } mipmap;
    struct {
      void *devPtr;
      struct hipChannelFormatDesc desc;
      size_t sizeInBytes;
    } linear;
    struct {
      void *devPtr;
      struct hipChannelFormatDesc desc;
      size_t width;
      size_t height;
      size_t pitchInBytes;
    } pitch2D;
  } res;
};
struct hipTextureDesc {
  enum hipTextureAddressMode addressMode[3];
  enum hipTextureFilterMode filterMode;
  enum hipTextureReadMode readMode;
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned int maxAnisotropy;
  enum hipTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
};
struct hipResourceViewDesc;

extern "C" __host__ hipError_t hipCreateTextureObject(hipTextureObject_t *texture, const hipResourceDesc *resource,
                                                      const hipTextureDesc *texture_desc,
                                                      const struct hipResourceViewDesc *view);
extern "C" __host__ hipError_t hipDestroyTextureObject(hipTextureObject_t texture);
extern "C" __host__ hipChannelFormatDesc hipCreateChannelDesc(int x, int y, int z, int w, hipChannelFormatKind f);
template <class T>
__host__ inline hipChannelFormatDesc hipCreateChannelDesc() {
  constexpr hipChannelFormatKind kind =
      __is_floating_point(T) ? hipChannelFormatKindFloat
      : __is_signed(T)       ? hipChannelFormatKindSigned
                             : hipChannelFormatKindUnsigned;
  return hipCreateChannelDesc(int(sizeof(T) * 8), 0, 0, 0, kind);
}

#if defined(__HRX_TARGET_AMDGPU__)
typedef float __hrx_float2_native __attribute__((ext_vector_type(2)));
typedef float __hrx_float4_native __attribute__((ext_vector_type(4)));
typedef const __attribute__((address_space(4))) unsigned int *__hrx_image_descriptor;
extern "C" __device__ __hrx_float4_native __ockl_image_sample_1D(__hrx_image_descriptor image,
                                                                __hrx_image_descriptor sampler, float c);
extern "C" __device__ __hrx_float4_native __ockl_image_sample_2D(__hrx_image_descriptor image,
                                                                __hrx_image_descriptor sampler,
                                                                __hrx_float2_native c);
extern "C" __device__ __hrx_float4_native __ockl_image_sample_3D(__hrx_image_descriptor image,
                                                                __hrx_image_descriptor sampler,
                                                                __hrx_float4_native c);
extern "C" __device__ __hrx_float4_native __ockl_image_load_1Db(__hrx_image_descriptor image, int c);

template <class T>
__device__ inline T __hrx_texel(__hrx_float4_native v) {
  if constexpr (__is_same(T, float))
    return v.x;
  else if constexpr (__is_same(T, float2))
    return make_float2(v.x, v.y);
  else if constexpr (__is_same(T, float4))
    return make_float4(v.x, v.y, v.z, v.w);
  else
    static_assert(sizeof(T) == 0, "hrx samples textures as float, float2 or float4");
}
__device__ inline __hrx_image_descriptor __hrx_texture_image(hipTextureObject_t texture) {
  return (__hrx_image_descriptor)texture;
}
__device__ inline __hrx_image_descriptor __hrx_texture_sampler(hipTextureObject_t texture) {
  return (__hrx_image_descriptor)texture + 12;  // the sampler follows the 12-dword image descriptor
}
template <class T>
__device__ inline T tex1D(hipTextureObject_t texture, float x) {
  return __hrx_texel<T>(__ockl_image_sample_1D(__hrx_texture_image(texture), __hrx_texture_sampler(texture), x));
}
template <class T>
__device__ inline T tex2D(hipTextureObject_t texture, float x, float y) {
  return __hrx_texel<T>(__ockl_image_sample_2D(__hrx_texture_image(texture), __hrx_texture_sampler(texture),
                                               __hrx_float2_native{x, y}));
}
template <class T>
__device__ inline T tex3D(hipTextureObject_t texture, float x, float y, float z) {
  return __hrx_texel<T>(__ockl_image_sample_3D(__hrx_texture_image(texture), __hrx_texture_sampler(texture),
                                               __hrx_float4_native{x, y, z, 0.0f}));
}
template <class T>
__device__ inline T tex1Dfetch(hipTextureObject_t texture, int x) {
  return __hrx_texel<T>(__ockl_image_load_1Db(__hrx_texture_image(texture), x));
}
#else
// The host device has no texture unit; the error drops the kernel from the host twin (LINK/044).
#define __HRX_NO_HOST_TEXTURES __attribute__((unavailable("texture sampling has no meaning on the host device")))
template <class T>
__device__ T tex1D(hipTextureObject_t, float) __HRX_NO_HOST_TEXTURES;
template <class T>
__device__ T tex2D(hipTextureObject_t, float, float) __HRX_NO_HOST_TEXTURES;
template <class T>
__device__ T tex3D(hipTextureObject_t, float, float, float) __HRX_NO_HOST_TEXTURES;
template <class T>
__device__ T tex1Dfetch(hipTextureObject_t, int) __HRX_NO_HOST_TEXTURES;
#undef __HRX_NO_HOST_TEXTURES
#endif

#endif  // HRX_HIP_TEXTURE_H
