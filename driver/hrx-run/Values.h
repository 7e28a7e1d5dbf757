// hrx-run's buffer values: IREE-style typed literals ("4xi32=1 2 3 4"), NumPy files
// ("@x.npy"), raw files ("@x.bin", "4xf32=@x.bin"), their printing and comparison.
#pragma once

#include "hrx/runtime/Status.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hrx::run {

enum class ElementType { I8, I16, I32, I64, U8, U16, U32, U64, F32, F64, BF16, F16 };

// Contents of one binding. `type` is empty for raw bytes of unknown type.
struct Value {
  std::optional<ElementType> type;
  std::vector<uint64_t> shape;
  std::vector<uint8_t> bytes;
  bool hostTexture = false;  // a host texture record (texture<...>(VALUE)), not plain elements
  uint64_t elementCount() const;
};

inline constexpr uint64_t kMaxValueBytes = uint64_t(1) << 34;  // 16 GiB

// "[DIMSx]TYPE=v v ...", "[DIMSx]TYPE=@raw.bin", "@file.npy" or "@raw.bin". A single literal
// value is splatted over the shape. "texture<OPTIONS>(VALUE)" is a HIP texture object for the host
// reference device: the host texture record (hrx/format/HostTexture.h) over VALUE's f32 texels
// (docs/hrx-run.md, "Texture objects"). Brackets and commas in literals are ignored. A value whose
// shape needs more than `maxBytes` is refused before anything is allocated.
StatusOr<Value> parseValue(const std::string &spec, uint64_t maxBytes = kMaxValueBytes);

// "4xi32=1 2 3 4", "2x3xf32=[1 2 3][4 5 6]" as IREE prints them (at most `limit` elements,
// then "...").
std::string formatValue(const Value &value, size_t limit = 1024);

// NumPy .npy (format 1.0) when `path` ends in .npy and the type is known; raw bytes otherwise.
// `append` adds to the end of the file (IREE's --output=+PATH: concatenated .npy arrays).
Status writeValue(const std::string &path, const Value &value, bool append = false);

// Empty when equal (floats within `tolerance`, absolute); otherwise the first difference:
// "element at index 3 (5) does not match the expected (4)".
std::optional<std::string> compareValues(const Value &expected, const Value &actual, double tolerance);

const char *elementTypeName(ElementType type);
size_t elementSize(ElementType type);

}  // namespace hrx::run
