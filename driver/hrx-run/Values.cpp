#include "Values.h"

#include "hrx/format/FileIO.h"
#include "hrx/format/HostTexture.h"

#include <filesystem>
#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <new>
#include <optional>
#include <sstream>

namespace hrx::run {
namespace {

struct TypeInfo {
  ElementType type;
  const char *name;
  size_t size;
  const char *npy;  // NumPy descr; null when NumPy has none
};
constexpr TypeInfo kTypes[] = {
    {ElementType::I8, "i8", 1, "|i1"},    {ElementType::I16, "i16", 2, "<i2"},     {ElementType::I32, "i32", 4, "<i4"},
    {ElementType::I64, "i64", 8, "<i8"},  {ElementType::U8, "ui8", 1, "|u1"},      {ElementType::U16, "ui16", 2, "<u2"},
    {ElementType::U32, "ui32", 4, "<u4"}, {ElementType::U64, "ui64", 8, "<u8"},    {ElementType::F32, "f32", 4, "<f4"},
    {ElementType::F64, "f64", 8, "<f8"},  {ElementType::BF16, "bf16", 2, nullptr}, {ElementType::F16, "f16", 2, "<f2"},
};

const TypeInfo &info(ElementType type) { return kTypes[static_cast<size_t>(type)]; }

bool isFloat(ElementType t) {
  return t == ElementType::F32 || t == ElementType::F64 || t == ElementType::BF16 || t == ElementType::F16;
}
bool isSigned(ElementType t) {
  return t == ElementType::I8 || t == ElementType::I16 || t == ElementType::I32 || t == ElementType::I64;
}

Status invalid(const std::string &spec, const std::string &what) {
  return Status(StatusCode::InvalidArgument, "invalid value '" + spec + "': " + what);
}

StatusOr<std::vector<uint8_t>> readFile(const std::string &path, uint64_t maxBytes) {
  return io::readFile(path, maxBytes);
}

uint16_t toBf16(float f) {
  uint32_t bits = std::bit_cast<uint32_t>(f);
  if (std::isnan(f)) return 0x7fc0;
  bits += 0x7fff + ((bits >> 16) & 1);  // round to nearest even
  return static_cast<uint16_t>(bits >> 16);
}

double loadElement(ElementType type, const uint8_t *p) {
  auto get = [&]<typename T>(T) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return static_cast<double>(v);
  };
  switch (type) {
  case ElementType::I8: return get(int8_t{});
  case ElementType::I16: return get(int16_t{});
  case ElementType::I32: return get(int32_t{});
  case ElementType::I64: return get(int64_t{});
  case ElementType::U8: return get(uint8_t{});
  case ElementType::U16: return get(uint16_t{});
  case ElementType::U32: return get(uint32_t{});
  case ElementType::U64: return get(uint64_t{});
  case ElementType::F32: return get(float{});
  case ElementType::F64: return get(double{});
  case ElementType::BF16: {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return std::bit_cast<float>(uint32_t(h) << 16);
  }
  case ElementType::F16: return get(_Float16{});
  }
  return 0;
}

std::string elementText(ElementType type, const uint8_t *p) {
  std::ostringstream os;
  if (type == ElementType::I64 || type == ElementType::U64) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    if (type == ElementType::I64)
      os << static_cast<int64_t>(v);
    else
      os << v;
  } else {
    os.precision(isFloat(type) ? 9 : 20);
    os << loadElement(type, p);
  }
  return os.str();
}

// Appends one literal of `type` to `out`.
Status appendLiteral(ElementType type, const std::string &text, std::vector<uint8_t> &out, const std::string &spec) {
  auto put = [&](auto v) {
    const auto *b = reinterpret_cast<const uint8_t *>(&v);
    out.insert(out.end(), b, b + sizeof v);
  };
  char *end = nullptr;
  errno = 0;
  if (isFloat(type)) {
    double v = std::strtod(text.c_str(), &end);
    if (*end || end == text.c_str()) return invalid(spec, "'" + text + "' is not a number");
    if (type == ElementType::F32) put(static_cast<float>(v));
    if (type == ElementType::F64) put(v);
    if (type == ElementType::BF16) put(toBf16(static_cast<float>(v)));
    if (type == ElementType::F16) put(static_cast<_Float16>(v));  // round to nearest even
    return Status::ok();
  }
  auto checkRange = [&](bool fits) {
    return fits ? Status::ok() : invalid(spec, "'" + text + "' is out of range for " + elementTypeName(type));
  };
  if (isSigned(type)) {
    long long v = std::strtoll(text.c_str(), &end, 0);
    if (*end || end == text.c_str()) return invalid(spec, "'" + text + "' is not an integer");
    unsigned bits = static_cast<unsigned>(elementSize(type) * 8);
    bool fits = errno != ERANGE && (bits == 64 || (v >= -(1ll << (bits - 1)) && v < (1ll << (bits - 1))));
    if (Status s = checkRange(fits); !s) return s;
    for (unsigned i = 0; i < bits / 8; ++i)
      out.push_back(static_cast<uint8_t>(static_cast<unsigned long long>(v) >> (8 * i)));
    return Status::ok();
  }
  if (text.starts_with('-')) return invalid(spec, "'" + text + "' is negative for unsigned " + elementTypeName(type));
  unsigned long long v = std::strtoull(text.c_str(), &end, 0);
  if (*end || end == text.c_str()) return invalid(spec, "'" + text + "' is not an integer");
  unsigned bits = static_cast<unsigned>(elementSize(type) * 8);
  if (Status s = checkRange(errno != ERANGE && (bits == 64 || v < (1ull << bits))); !s) return s;
  for (unsigned i = 0; i < bits / 8; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  return Status::ok();
}

// A NumPy header value for `key` ("'descr': '<i4'" -> "<i4"; "'shape': (2, 3)" -> "2, 3").
std::optional<std::string> npyField(const std::string &header, const std::string &key) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos) return std::nullopt;
  size_t colon = header.find(':', at);
  if (colon == std::string::npos) return std::nullopt;
  size_t begin = header.find_first_not_of(' ', colon + 1);
  if (begin == std::string::npos) return std::nullopt;
  char open = header[begin];
  char close = open == '\'' ? '\'' : open == '(' ? ')' : ',';
  size_t end = header.find(close, begin + 1);
  if (end == std::string::npos) return std::nullopt;
  if (close == ',') return header.substr(begin, end - begin);
  return header.substr(begin + 1, end - begin - 1);
}

// Byte size of a shape, or nullopt when it overflows or exceeds `maxBytes`.
std::optional<uint64_t> shapeBytes(const std::vector<uint64_t> &shape, size_t elementBytes, uint64_t maxBytes) {
  uint64_t bytes = elementBytes;
  for (uint64_t d : shape)
    if (__builtin_mul_overflow(bytes, d, &bytes)) return std::nullopt;
  if (bytes > maxBytes) return std::nullopt;
  return bytes;
}

std::string tooLarge(uint64_t maxBytes) {
  return "the shape is too large (more than " + std::to_string(maxBytes) + " bytes)";
}

StatusOr<Value> parseNpy(const std::string &path, const std::vector<uint8_t> &file, uint64_t maxBytes) {
  auto bad = [&](const std::string &what) {
    return Status(StatusCode::InvalidArgument, path + ": not a valid .npy file: " + what);
  };
  if (file.size() < 10 || std::memcmp(file.data(), "\x93NUMPY", 6) != 0) return bad("missing the \\x93NUMPY magic");
  uint8_t major = file[6];
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = file[8] | size_t(file[9]) << 8;
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (file.size() < 12) return bad("truncated header");
    headerLength = file[8] | size_t(file[9]) << 8 | size_t(file[10]) << 16 | size_t(file[11]) << 24;
    headerStart = 12;
  } else {
    return bad("format version " + std::to_string(major) + " is not 1, 2 or 3");
  }
  if (headerStart + headerLength > file.size()) return bad("the header runs past the end of the file");
  std::string header(file.begin() + headerStart, file.begin() + headerStart + headerLength);
  auto descr = npyField(header, "descr");
  auto shape = npyField(header, "shape");
  auto fortran = npyField(header, "fortran_order");
  if (!descr || !shape || !fortran) return bad("the header lacks descr, fortran_order or shape");
  Value value;
  std::string d = *descr;
  if (d.size() == 3 && d[0] == '=') d[0] = '<';
  if (d == "<i1" || d == "<u1") d[0] = '|';
  for (const TypeInfo &t : kTypes)
    if (t.npy && d == t.npy) value.type = t.type;
  if (!value.type) return bad("unsupported dtype '" + *descr + "'");
  std::stringstream dims(*shape);
  for (std::string dim; std::getline(dims, dim, ',');) {
    size_t first = dim.find_first_not_of(' ');
    if (first == std::string::npos) continue;
    value.shape.push_back(std::strtoull(dim.c_str() + first, nullptr, 10));
  }
  if (fortran->starts_with("True") && value.shape.size() > 1) return bad("Fortran-order arrays are not supported");
  if (!shapeBytes(value.shape, elementSize(*value.type), maxBytes)) return bad(tooLarge(maxBytes));
  value.bytes.assign(file.begin() + headerStart + headerLength, file.end());
  if (value.bytes.size() != value.elementCount() * elementSize(*value.type))
    return bad("the data holds " + std::to_string(value.bytes.size()) + " bytes, the shape needs " +
               std::to_string(value.elementCount() * elementSize(*value.type)));
  return value;
}

}  // namespace

const char *elementTypeName(ElementType type) { return info(type).name; }
size_t elementSize(ElementType type) { return info(type).size; }

uint64_t Value::elementCount() const {
  if (!type) return bytes.size();
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;
  return n;
}

namespace {
StatusOr<Value> parseValueOrThrow(const std::string &spec, uint64_t maxBytes);

// texture<OPTIONS>(VALUE): OPTIONS are comma-separated words: the filter (point, the default, or
// linear), address modes (wrap, clamp, mirror, border: one word for every dimension, or one per
// dimension in x, y, z order; default clamp), normalized, channels=1|2|4. VALUE is an f32 value
// whose shape is [depth x] [height x] width [x channels].
StatusOr<Value> parseTexture(const std::string &spec, uint64_t maxBytes) {
  size_t close = spec.find('>');
  if (close == std::string::npos || close + 1 >= spec.size() || spec[close + 1] != '(' || !spec.ends_with(')'))
    return invalid(spec, "expected texture<OPTIONS>(VALUE), e.g. texture<linear,mirror,normalized>(4x8xf32=@img.bin)");
  std::string options = spec.substr(8, close - 8), inner = spec.substr(close + 2, spec.size() - close - 3);
  hrx_host_texture header{};
  std::memcpy(header.magic, HRX_HOST_TEXTURE_MAGIC, sizeof(header.magic));
  header.channels = 1;
  std::vector<uint32_t> address;
  std::stringstream words(options);
  for (std::string word; std::getline(words, word, ',');) {
    if (word == "point")
      header.filter = HRX_TEXTURE_FILTER_POINT;
    else if (word == "linear")
      header.filter = HRX_TEXTURE_FILTER_LINEAR;
    else if (word == "normalized")
      header.normalized = 1;
    else if (word == "wrap")
      address.push_back(HRX_TEXTURE_ADDRESS_WRAP);
    else if (word == "clamp")
      address.push_back(HRX_TEXTURE_ADDRESS_CLAMP);
    else if (word == "mirror")
      address.push_back(HRX_TEXTURE_ADDRESS_MIRROR);
    else if (word == "border")
      address.push_back(HRX_TEXTURE_ADDRESS_BORDER);
    else if (word == "channels=1" || word == "channels=2" || word == "channels=4")
      header.channels = word.back() - '0';
    else
      return invalid(spec, "unknown texture option '" + word +
                               "' (point, linear, wrap, clamp, mirror, border, normalized, channels=1|2|4)");
  }
  auto texels = parseValueOrThrow(inner, maxBytes);
  if (!texels) return texels.status();
  if (texels->type != ElementType::F32 || texels->hostTexture)
    return invalid(spec, "texels are f32 values ([depth x] [height x] width [x channels] xf32=...)");
  std::vector<uint64_t> extent = texels->shape;
  if (header.channels > 1) {
    if (extent.empty() || extent.back() != header.channels)
      return invalid(spec, "channels=" + std::to_string(header.channels) + " needs a last dimension of " +
                               std::to_string(header.channels));
    extent.pop_back();
  }
  if (extent.empty() || extent.size() > 3)
    return invalid(spec, "a texture has 1 to 3 dimensions; the shape gives " + std::to_string(extent.size()));
  header.dimensions = uint32_t(extent.size());
  if (address.size() > 1 && address.size() != extent.size())
    return invalid(spec, std::to_string(address.size()) + " address modes for a " + std::to_string(extent.size()) +
                             "-D texture (give one, or one per dimension)");
  for (uint32_t d = 0; d < 3; ++d) {
    uint64_t n = d < extent.size() ? extent[extent.size() - 1 - d] : 1;  // the shape is z, y, x
    if (n == 0 || n > (uint64_t(1) << 24))
      return invalid(spec, "texture extent " + std::to_string(n) + " is out of range (1 to 16777216)");
    header.extent[d] = uint32_t(n);
    header.address[d] = address.empty() ? HRX_TEXTURE_ADDRESS_CLAMP : address[address.size() == 1 ? 0 : d];
  }
  Value value;
  value.hostTexture = true;
  value.bytes.resize(sizeof(header) + texels->bytes.size());
  std::memcpy(value.bytes.data(), &header, sizeof(header));
  std::memcpy(value.bytes.data() + sizeof(header), texels->bytes.data(), texels->bytes.size());
  value.shape = {value.bytes.size()};
  return value;
}

// parseValue without its out-of-memory guard.
StatusOr<Value> parseValueOrThrow(const std::string &spec, uint64_t maxBytes) {
  if (spec.starts_with("texture<")) return parseTexture(spec, maxBytes);
  if (spec.starts_with('@')) {
    std::string path = spec.substr(1);
    auto file = readFile(path, maxBytes + 128 * 1024);  // a .npy header, then at most maxBytes
    if (!file) return file.status();
    if (path.ends_with(".npy")) return parseNpy(path, *file, maxBytes);
    Value raw;
    raw.shape = {file->size()};
    raw.bytes = std::move(*file);
    return raw;
  }
  size_t eq = spec.find('=');
  if (eq == std::string::npos) return invalid(spec, "expected [DIMSx]TYPE=VALUES, @file.npy or @file.bin");
  std::string lhs = spec.substr(0, eq), rhs = spec.substr(eq + 1);
  Value value;
  std::vector<std::string> parts;
  std::stringstream ss(lhs);
  for (std::string part; std::getline(ss, part, 'x');) parts.push_back(part);
  if (parts.empty()) return invalid(spec, "missing element type");
  std::string typeName = parts.back();
  parts.pop_back();
  for (const TypeInfo &t : kTypes)
    if (typeName == t.name) value.type = t.type;
  if (!value.type) return invalid(spec, "unknown element type '" + typeName + "'");
  for (const std::string &dim : parts) {
    char *end = nullptr;
    unsigned long long n = std::strtoull(dim.c_str(), &end, 10);
    if (dim.empty() || *end || n == ULLONG_MAX) return invalid(spec, "bad dimension '" + dim + "'");
    value.shape.push_back(n);
  }
  if (!shapeBytes(value.shape, elementSize(*value.type), maxBytes)) return invalid(spec, tooLarge(maxBytes));
  uint64_t count = value.elementCount();
  size_t size = elementSize(*value.type);
  if (rhs.starts_with('@')) {
    auto file = readFile(rhs.substr(1), maxBytes);
    if (!file) return file.status();
    if (file->size() != count * size)
      return invalid(spec, rhs.substr(1) + " holds " + std::to_string(file->size()) + " bytes, the shape needs " +
                               std::to_string(count * size));
    value.bytes = std::move(*file);
    return value;
  }
  for (char &c : rhs)
    if (c == '[' || c == ']' || c == ',') c = ' ';
  std::stringstream literals(rhs);
  for (std::string literal; literals >> literal;)
    if (Status s = appendLiteral(*value.type, literal, value.bytes, spec); !s) return s;
  uint64_t given = value.bytes.size() / size;
  if (given == 1 && count > 1) {  // splat: one allocation, then copies of doubling length
    value.bytes.resize(count * size);
    for (uint64_t filled = size; filled < count * size; filled *= 2)
      std::memcpy(value.bytes.data() + filled, value.bytes.data(), std::min(filled, count * size - filled));
  } else if (given != count) {
    return invalid(spec, "the shape has " + std::to_string(count) + " elements but " + std::to_string(given) +
                             " values were given");
  }
  return value;
}

}  // namespace

StatusOr<Value> parseValue(const std::string &spec, uint64_t maxBytes) {
  try {
    return parseValueOrThrow(spec, maxBytes);
  } catch (const std::bad_alloc &) {
    return Status(StatusCode::ResourceExhausted, "input '" + spec.substr(0, 64) + (spec.size() > 64 ? "...'" : "'") +
                                                     ": not enough memory to hold it");
  }
}

std::string formatValue(const Value &value, size_t limit) {
  std::ostringstream os;
  if (!value.type) {
    os << value.bytes.size() << "xui8=";
    for (size_t i = 0; i < value.bytes.size() && i < limit; ++i) os << (i ? " " : "") << unsigned(value.bytes[i]);
    if (value.bytes.size() > limit) os << " ...";
    return os.str();
  }
  for (uint64_t d : value.shape) os << d << "x";
  os << elementTypeName(*value.type) << "=";
  size_t size = elementSize(*value.type);
  uint64_t n = value.bytes.size() / size;
  // IREE's nesting: every dimension but the outermost is bracketed, "2x3xf32=[1 2 3][4 5 6]".
  std::vector<uint64_t> spans;  // elements per bracket, outer to inner
  for (size_t d = value.shape.size(); d-- > 1;) {
    uint64_t span = d + 1 < value.shape.size() ? spans.front() : 1;
    spans.insert(spans.begin(), span * value.shape[d]);
  }
  uint64_t shown = std::min<uint64_t>(n, limit);
  size_t open = 0;
  for (uint64_t i = 0; i < shown; ++i) {
    for (uint64_t span : spans)
      if (span && i % span == 0) {
        os << "[";
        ++open;
      }
    if (i && (spans.empty() || i % spans.back() != 0)) os << " ";
    os << elementText(*value.type, &value.bytes[i * size]);
    for (size_t k = spans.size(); k-- > 0;)
      if (spans[k] && (i + 1) % spans[k] == 0) {
        os << "]";
        --open;
      }
  }
  if (n > limit) os << " ...";
  for (; open; --open) os << "]";
  return os.str();
}

Status writeValue(const std::string &path, const Value &value, bool append) {
  bool npy = path.ends_with(".npy");
  if (npy && (!value.type || !info(*value.type).npy))
    return Status(StatusCode::InvalidArgument,
                  "cannot write '" + path +
                      "' as .npy: the binding's element type is unknown or has no NumPy dtype; "
                      "give it a typed --input, or write raw bytes with a .bin path");
  std::vector<uint8_t> file;
  if (npy) {
    std::string shape;
    for (size_t i = 0; i < value.shape.size(); ++i) shape += (i ? ", " : "") + std::to_string(value.shape[i]);
    if (value.shape.size() == 1) shape += ",";
    std::string header =
        "{'descr': '" + std::string(info(*value.type).npy) + "', 'fortran_order': False, 'shape': (" + shape + "), }";
    size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header.push_back('\n');
    const char magic[8] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0};
    file.insert(file.end(), magic, magic + 8);
    file.push_back(static_cast<uint8_t>(header.size() & 0xff));
    file.push_back(static_cast<uint8_t>(header.size() >> 8));
    file.insert(file.end(), header.begin(), header.end());
  }
  file.insert(file.end(), value.bytes.begin(), value.bytes.end());
  if (append && std::filesystem::exists(path)) {
    // IREE's --output=+PATH: the value goes after what the file holds; still one atomic write.
    auto existing = io::readFile(path);
    if (!existing) return existing.status();
    file.insert(file.begin(), existing->begin(), existing->end());
  }
  return io::writeFileAtomically(path, std::span<const uint8_t>(file));
}

std::optional<std::string> compareValues(const Value &expected, const Value &actual, double tolerance) {
  if (expected.bytes.size() != actual.bytes.size())
    return "holds " + std::to_string(actual.bytes.size()) + " bytes; expected " + std::to_string(expected.bytes.size());
  if (!expected.type) {
    for (size_t i = 0; i < expected.bytes.size(); ++i)
      if (expected.bytes[i] != actual.bytes[i])
        return "byte at index " + std::to_string(i) + " (" + std::to_string(actual.bytes[i]) +
               ") does not match the expected (" + std::to_string(expected.bytes[i]) + ")";
    return std::nullopt;
  }
  ElementType type = *expected.type;
  size_t size = elementSize(type);
  for (size_t i = 0; i * size < expected.bytes.size(); ++i) {
    const uint8_t *e = &expected.bytes[i * size], *a = &actual.bytes[i * size];
    bool equal = isFloat(type) ? std::fabs(loadElement(type, e) - loadElement(type, a)) <= tolerance ||
                                     (std::isnan(loadElement(type, e)) && std::isnan(loadElement(type, a)))
                               : std::memcmp(e, a, size) == 0;
    if (!equal)
      return "element at index " + std::to_string(i) + " (" + elementText(type, a) + ") does not match the expected (" +
             elementText(type, e) + ")";
  }
  return std::nullopt;
}

}  // namespace hrx::run
