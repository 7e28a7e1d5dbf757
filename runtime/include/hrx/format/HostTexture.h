/* The host texture record: what a HIP texture object (hipTextureObject_t) points at on the host
 * reference device. hrx-run builds one from --input=texture<...>(VALUE) (docs/hrx-run.md); the
 * host twin's tex1D/tex2D/tex3D/tex1Dfetch read it through this very header, which hrxcc ships
 * in its in-memory headers as <hrx/format/HostTexture.h> (frontend/cxx/CMakeLists.txt): keep it
 * C, self-contained, and free of anything device code cannot parse. A 64-byte header, then the
 * texels: f32, row-major (x fastest), `channels` floats per texel. C-compatible, little-endian.
 */
#ifndef HRX_FORMAT_HOSTTEXTURE_H
#define HRX_FORMAT_HOSTTEXTURE_H

#include <stdint.h>

#define HRX_HOST_TEXTURE_MAGIC "hrxtex1" /* 8 bytes with the NUL */
#define HRX_HOST_TEXTURE_HEADER_BYTES 64u

enum hrx_host_texture_filter { HRX_TEXTURE_FILTER_POINT = 0, HRX_TEXTURE_FILTER_LINEAR = 1 };
/* HIP's hipTextureAddressMode values. */
enum hrx_host_texture_address {
  HRX_TEXTURE_ADDRESS_WRAP = 0,
  HRX_TEXTURE_ADDRESS_CLAMP = 1,
  HRX_TEXTURE_ADDRESS_MIRROR = 2,
  HRX_TEXTURE_ADDRESS_BORDER = 3
};

typedef struct hrx_host_texture {
  char magic[8];       /* HRX_HOST_TEXTURE_MAGIC */
  uint32_t dimensions; /* 1, 2 or 3 */
  uint32_t channels;   /* 1, 2 or 4 */
  uint32_t extent[3];  /* width, height, depth in texels (1 past `dimensions`) */
  uint32_t filter;     /* hrx_host_texture_filter */
  uint32_t address[3]; /* hrx_host_texture_address per dimension */
  uint32_t normalized; /* 1: coordinates in [0, 1) scale by the extent */
  float border[4];     /* the border colour (address mode border) */
} hrx_host_texture;

#ifdef __cplusplus
static_assert(sizeof(hrx_host_texture) == HRX_HOST_TEXTURE_HEADER_BYTES, "host texture header is 64 bytes");
#endif

#endif /* HRX_FORMAT_HOSTTEXTURE_H */
