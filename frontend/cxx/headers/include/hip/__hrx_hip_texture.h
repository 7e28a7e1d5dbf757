// Part of hrx's HIP device API (<hip/__hrx_hip_device.h>): texture objects. A texture object
// points at an image descriptor (12 dwords) followed by a sampler (8 dwords), as in ROCm; on
// amdgcn tex1D/tex2D/tex3D sample through ockl's image functions and tex1Dfetch loads. The host
// device samples hrx's host texture record in software (below). The host API
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
// The host device: a texture object points at hrx's host texture record, which hrx-run builds
// from --input=texture<...>(VALUE): the runtime's own header, shipped as it is (a 64-byte header,
// then f32 texels row-major with the channels innermost; filter and address modes are HIP's
// values). Sampling follows HIP's documented formulas (docs/cxx.md, "Texture objects"): point is
// T[floor(x)], linear is (1-a)T[i] + aT[i+1] with i = floor(x - 0.5) and a its fraction, per
// dimension; the address mode applies to each texel index.
#include <hrx/format/HostTexture.h>
typedef hrx_host_texture __hrx_host_texture;
__device__ inline const __hrx_host_texture *__hrx_host_texture_of(hipTextureObject_t texture) {
  return (const __hrx_host_texture *)(const void *)texture;
}
// The texels after the header.
__device__ inline const float *__hrx_host_texels(const __hrx_host_texture *t) {
  return (const float *)(const void *)((const char *)t + HRX_HOST_TEXTURE_HEADER_BYTES);
}
// The texel index `i` of a dimension of `n` texels under `mode`; -1 for the border.
__device__ inline int __hrx_host_texel_index(int i, int n, unsigned mode) {
  switch (mode) {
  case hipAddressModeWrap: return ((i % n) + n) % n;
  case hipAddressModeMirror: {
    int m = ((i % (2 * n)) + 2 * n) % (2 * n);
    return m < n ? m : 2 * n - 1 - m;
  }
  case hipAddressModeBorder: return i < 0 || i >= n ? -1 : i;
  default: return i < 0 ? 0 : (i >= n ? n - 1 : i);
  }
}
struct __hrx_host_texel {
  float c[4];
};
__device__ inline __hrx_host_texel __hrx_host_fetch(const __hrx_host_texture *t, int i, int j, int k) {
  int index[3] = {i, j, k};
  unsigned offset = 0, stride = 1;
  for (unsigned d = 0; d < 3; ++d) {
    int n = (int)t->extent[d];
    int at = d < t->dimensions ? __hrx_host_texel_index(index[d], n, t->address[d]) : 0;
    if (at < 0) return __hrx_host_texel{{t->border[0], t->border[1], t->border[2], t->border[3]}};
    offset += (unsigned)at * stride;
    stride *= (unsigned)n;
  }
  __hrx_host_texel out = {{0.0f, 0.0f, 0.0f, 0.0f}};
  const float *texels = __hrx_host_texels(t);
  for (unsigned c = 0; c < t->channels && c < 4; ++c) out.c[c] = texels[offset * t->channels + c];
  return out;
}
__device__ inline __hrx_host_texel __hrx_host_sample(hipTextureObject_t texture, float x, float y, float z) {
  const __hrx_host_texture *t = __hrx_host_texture_of(texture);
  float at[3] = {x, y, z};
  for (unsigned d = 0; d < t->dimensions; ++d)
    if (t->normalized) at[d] *= (float)t->extent[d];
  if (t->filter != hipFilterModeLinear)
    return __hrx_host_fetch(t, (int)__builtin_floorf(at[0]), (int)__builtin_floorf(at[1]),
                            (int)__builtin_floorf(at[2]));
  int base[3] = {0, 0, 0};
  float frac[3] = {0.0f, 0.0f, 0.0f};
  for (unsigned d = 0; d < t->dimensions; ++d) {
    float b = at[d] - 0.5f;
    float f = __builtin_floorf(b);
    base[d] = (int)f;
    frac[d] = b - f;
  }
  // The sum over the 2^dimensions corners, weights (1-a) or a per dimension, in HIP's order
  // (x varies fastest).
  __hrx_host_texel out = {{0.0f, 0.0f, 0.0f, 0.0f}};
  unsigned corners = 1u << t->dimensions;
  for (unsigned corner = 0; corner < corners; ++corner) {
    float weight = 1.0f;
    for (unsigned d = 0; d < t->dimensions; ++d) weight *= (corner >> d & 1) ? frac[d] : 1.0f - frac[d];
    __hrx_host_texel v = __hrx_host_fetch(t, base[0] + (int)(corner & 1), base[1] + (int)(corner >> 1 & 1),
                                          base[2] + (int)(corner >> 2 & 1));
    for (unsigned c = 0; c < 4; ++c) out.c[c] += weight * v.c[c];
  }
  return out;
}
template <class T> __device__ inline T __hrx_host_texel_as(__hrx_host_texel v) {
  if constexpr (__is_same(T, float))
    return v.c[0];
  else if constexpr (__is_same(T, float2))
    return make_float2(v.c[0], v.c[1]);
  else if constexpr (__is_same(T, float4))
    return make_float4(v.c[0], v.c[1], v.c[2], v.c[3]);
  else
    static_assert(sizeof(T) == 0, "hrx samples textures as float, float2 or float4");
}
template <class T> __device__ inline T tex1D(hipTextureObject_t texture, float x) {
  return __hrx_host_texel_as<T>(__hrx_host_sample(texture, x, 0.0f, 0.0f));
}
template <class T> __device__ inline T tex2D(hipTextureObject_t texture, float x, float y) {
  return __hrx_host_texel_as<T>(__hrx_host_sample(texture, x, y, 0.0f));
}
template <class T> __device__ inline T tex3D(hipTextureObject_t texture, float x, float y, float z) {
  return __hrx_host_texel_as<T>(__hrx_host_sample(texture, x, y, z));
}
// Linear memory by integer index: no filtering, no address mode; outside the texels it is 0.
template <class T> __device__ inline T tex1Dfetch(hipTextureObject_t texture, int x) {
  const __hrx_host_texture *t = __hrx_host_texture_of(texture);
  __hrx_host_texel v = {{0.0f, 0.0f, 0.0f, 0.0f}};
  if (x >= 0 && (unsigned)x < t->extent[0])
    for (unsigned c = 0; c < t->channels && c < 4; ++c) v.c[c] = __hrx_host_texels(t)[(unsigned)x * t->channels + c];
  return __hrx_host_texel_as<T>(v);
}
#endif

#endif  // HRX_HIP_TEXTURE_H
