// Evaluation of Loom check programs: parameters, generators, launches of the code under test on
// the host reference device (through the chosen target's compiled host code), expectations.
#include "CheckInternal.h"

#include "hrx/format/Elf64Sections.h"
#include "hrx/loom/IR.h"
#include "hrx/runtime/HostDevice.h"
#include "hrx/runtime/Loader.h"

#include <algorithm>
#include <functional>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <sstream>
#include <thread>
#include <variant>

namespace hrx::check {

using loom::OpCode;

const char *runTargetName(const RunTarget &target) { return target.name.c_str(); }

namespace {

// ---- values ------------------------------------------------------------------------------------

struct Scalar {
  std::string element;
  uint64_t bits = 0;  // little-endian payload in the low bytes
};
struct Tensor {
  std::shared_ptr<std::vector<uint8_t>> storage;
  size_t offset = 0;
  std::string element;
  std::vector<int64_t> shape;
  size_t count() const {
    size_t n = 1;
    for (int64_t d : shape) n *= size_t(d);
    return n;
  }
  size_t bytes() const { return count() * elementInfo(element)->bytes; }
  uint8_t *data() const { return storage->data() + offset; }
};
struct Entropy {
  uint64_t state = 0;
};
using Value = std::variant<Scalar, Tensor, Entropy>;
using Env = std::map<std::string, Value>;

// A problem in the check program itself (located), a skip, or an expectation that failed.
constexpr uint64_t kMaxTensorBytes = uint64_t(1) << 30;
constexpr int64_t kMaxRepeats = int64_t(1) << 20;  // trials, configurations, parameter values
constexpr size_t kMaxSamples = size_t(1) << 16;    // parameter assignments of one case

struct Malformed {
  unsigned line, column;
  std::string message;
};
struct Skipped {
  std::string reason;
};
struct Failed {
  std::string message;
};

uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
uint64_t fnv(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : s) h = (h ^ uint8_t(c)) * 0x100000001b3ull;
  return h;
}

uint16_t toHalf(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  uint32_t sign = (x >> 16) & 0x8000;
  int32_t exp = int32_t((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffff;
  if (((x >> 23) & 0xff) == 0xff) return uint16_t(sign | 0x7c00 | (mant ? 0x200 : 0));
  if (exp >= 31) return uint16_t(sign | 0x7c00);
  if (exp <= 0) {
    if (exp < -10) return uint16_t(sign);
    mant |= 0x800000;
    uint32_t shift = uint32_t(14 - exp);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return uint16_t(sign | half);
  }
  uint32_t half = sign | (uint32_t(exp) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) ++half;
  return uint16_t(half);
}
float fromHalf(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  if (exp == 0) {
    float v = std::ldexp(float(mant), -24);
    return sign ? -v : v;
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000 | (mant << 13));
  return std::bit_cast<float>(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}
uint16_t toBf16(float f) {
  uint32_t x = std::bit_cast<uint32_t>(f);
  if (std::isnan(f)) return uint16_t((x >> 16) | 0x40);
  uint32_t rounding = 0x7fff + ((x >> 16) & 1);
  return uint16_t((x + rounding) >> 16);
}
float fromBf16(uint16_t b) { return std::bit_cast<float>(uint32_t(b) << 16); }

// An 8-bit float with `exponentBits` (bias 2^(e-1)-1) and 7 - e mantissa bits, rounded to nearest
// even. E5M2 is IEEE-like (an all-ones exponent holds inf and NaN; overflow goes to infinity).
// E4M3 is E4M3FN, as hrxcc lowers f8E4M3 (LOOM-051): no infinities, S.1111.111 is the only NaN,
// the largest finite value is 448, and overflow or infinity saturate to ±448 (upstream's
// fp8_encode.loom: +inf -> 0x7e). Both formats' NaN is S.1111111.
bool isFiniteOnly(unsigned exponentBits) { return exponentBits == 4; }
uint8_t toFloat8(float f, unsigned exponentBits) {
  const unsigned mantissaBits = 7 - exponentBits;
  const int bias = (1 << (exponentBits - 1)) - 1, maxExponent = (1 << exponentBits) - 1;
  const bool finiteOnly = isFiniteOnly(exponentBits);
  uint8_t sign = std::signbit(f) ? 0x80 : 0;
  uint8_t infinity = uint8_t(sign | (maxExponent << mantissaBits));
  uint8_t nan = uint8_t(sign | 0x7f);
  uint8_t overflow = finiteOnly ? uint8_t(sign | 0x7e) : infinity;
  if (std::isnan(f)) return nan;
  double a = std::fabs(double(f));
  if (std::isinf(a)) return overflow;
  if (a == 0) return sign;
  int e = std::ilogb(a);
  if (e < 1 - bias) e = 1 - bias;                       // subnormal: the minimum exponent's spacing
  double units = std::ldexp(a, int(mantissaBits) - e);  // the value in units of the last place
  double whole = std::nearbyint(units);                 // ties to even under the default rounding
  if (whole >= double(2u << mantissaBits)) whole /= 2, ++e;
  uint32_t mantissa = uint32_t(whole);
  bool normal = mantissa >> mantissaBits;
  int field = normal ? e + bias : 0;
  uint8_t bits = uint8_t(sign | (std::min(field, maxExponent) << mantissaBits) | (mantissa & ((1u << mantissaBits) - 1)));
  if (finiteOnly ? (field > maxExponent || (bits & 0x7f) == 0x7f) : field >= maxExponent) return overflow;
  return bits;
}
float fromFloat8(uint8_t bits, unsigned exponentBits) {
  const unsigned mantissaBits = 7 - exponentBits;
  const int bias = (1 << (exponentBits - 1)) - 1, maxExponent = (1 << exponentBits) - 1;
  int field = (bits >> mantissaBits) & maxExponent;
  unsigned mantissa = bits & ((1u << mantissaBits) - 1);
  float sign = (bits & 0x80) ? -1.0f : 1.0f;
  if (isFiniteOnly(exponentBits) ? (bits & 0x7f) == 0x7f : field == maxExponent)
    return mantissa != 0 || isFiniteOnly(exponentBits) ? std::copysign(NAN, sign) : sign * INFINITY;
  if (field == 0) return sign * std::ldexp(float(mantissa), 1 - bias - int(mantissaBits));
  return sign * std::ldexp(float(mantissa | (1u << mantissaBits)), field - bias - int(mantissaBits));
}

bool isFloat(const ElementInfo &e) { return e.kind != ElementKind::Int; }

// "a", "a or b", "a, b or c".
std::string joinOr(const std::vector<std::string> &names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

// Bits of one element from a number (integers wrap to the width; floats round to nearest).
uint64_t encodeNumber(const ElementInfo &e, double asFloat, int64_t asInt, bool written_as_float) {
  switch (e.kind) {
  case ElementKind::Int: {
    int64_t v = written_as_float ? int64_t(asFloat) : asInt;
    return e.bits == 64 ? uint64_t(v) : e.bits == 1 ? uint64_t(v & 1) : uint64_t(v) & ((1ull << e.bits) - 1);
  }
  case ElementKind::Float8E4M3: return toFloat8(float(written_as_float ? asFloat : double(asInt)), 4);
  case ElementKind::Float8E5M2: return toFloat8(float(written_as_float ? asFloat : double(asInt)), 5);
  case ElementKind::Half: return toHalf(float(written_as_float ? asFloat : double(asInt)));
  case ElementKind::BFloat: return toBf16(float(written_as_float ? asFloat : double(asInt)));
  case ElementKind::Float: return std::bit_cast<uint32_t>(float(written_as_float ? asFloat : double(asInt)));
  case ElementKind::Double: return std::bit_cast<uint64_t>(written_as_float ? asFloat : double(asInt));
  }
  return 0;
}
double decodeFloat(const ElementInfo &e, uint64_t bits) {
  switch (e.kind) {
  case ElementKind::Float8E4M3: return fromFloat8(uint8_t(bits), 4);
  case ElementKind::Float8E5M2: return fromFloat8(uint8_t(bits), 5);
  case ElementKind::Half: return fromHalf(uint16_t(bits));
  case ElementKind::BFloat: return fromBf16(uint16_t(bits));
  case ElementKind::Float: return std::bit_cast<float>(uint32_t(bits));
  case ElementKind::Double: return std::bit_cast<double>(bits);
  case ElementKind::Int: return double(int64_t(bits));
  }
  return 0;
}
int64_t decodeInt(const ElementInfo &e, uint64_t bits) {
  if (e.bits == 64) return int64_t(bits);
  if (e.bits == 1) return int64_t(bits & 1);
  uint64_t sign = 1ull << (e.bits - 1);
  bits &= (1ull << e.bits) - 1;
  return int64_t((bits ^ sign) - sign);
}
std::string formatElement(const ElementInfo &e, uint64_t bits) {
  if (e.kind == ElementKind::Int)
    return e.bits == 1 ? ((bits & 1) ? "true" : "false") : std::to_string(decodeInt(e, bits));
  double v = decodeFloat(e, bits);
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  std::ostringstream s;
  s.precision(e.kind == ElementKind::Double ? 17 : 9);
  s << v;
  return s.str();
}
uint64_t loadBits(const uint8_t *p, unsigned bytes) {
  uint64_t v = 0;
  std::memcpy(&v, p, bytes);
  return v;
}
void storeBits(uint8_t *p, unsigned bytes, uint64_t v) { std::memcpy(p, &v, bytes); }

// ---- the evaluator ------------------------------------------------------------------------------

struct LoadedCode {
  std::shared_ptr<runtime::HostCode> code;
  // --target=xdna: the .xdna image, whose NPU entries (pipeline.def) run from their array plan.
  std::shared_ptr<format::Artifact> artifact;
  std::vector<runtime::ArtifactEntry> entries;
  std::string problem;  // why it could not be compiled or loaded
  bool skip = false;    // the target cannot run this file's code (a SKIP, not a failure)
};

// Compiles and loads the code under test once per (target, implied configuration).
class CodeCache {
public:
  using Loader =
      std::function<LoadedCode(const RunTarget &, const std::string &, const std::map<std::string, std::string> &)>;
  explicit CodeCache(Loader load) : load_(std::move(load)) {}
  const LoadedCode &get(const RunTarget &target, const std::string &entry,
                        const std::map<std::string, std::string> &config) {
    std::string key = std::string(runTargetName(target)) + ";@" + entry;
    for (const auto &[k, v] : config) key += ";" + k + "=" + v;
    std::lock_guard lock(mutex_);
    auto it = cache_.find(key);
    if (it == cache_.end()) it = cache_.emplace(key, std::make_unique<LoadedCode>(load_(target, entry, config))).first;
    return *it->second;
  }

private:
  Loader load_;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<LoadedCode>> cache_;
};

struct Sample {
  std::map<std::string, Scalar> params;       // check.param name → value
  std::map<std::string, std::string> config;  // swept configuration key → value
};

class Evaluator {
public:
  Evaluator(const CheckFile &file, const CheckDefinition &def, CodeCache &code,
            const std::map<std::string, size_t> &wrappers, const RunOptions &options)
      : file_(file), def_(def), code_(code), wrappers_(wrappers), options_(options), target_(options.target) {}

  void run(const Sample &sample) {
    sample_ = &sample;
    if (def_.configureCount > kMaxRepeats)
      throw Malformed{def_.line, def_.column, "configure[N] must be at most 1048576"};
    if (def_.configureCount > 0 && def_.configureArgs.size() == 2) {
      for (int64_t c = 0; c < def_.configureCount; ++c) {
        Env env;
        env[def_.configureArgs[0]] = Scalar{"index", uint64_t(c)};
        env[def_.configureArgs[1]] = Entropy{splitmix(fnv(def_.name) ^ 0xc0f1ull ^ splitmix(uint64_t(c)))};
        try {
          runOps(def_.body, env);
        } catch (Failed &f) {
          f.message = "configuration " + std::to_string(c) + ": " + f.message;
          throw;
        }
      }
      return;
    }
    Env env;
    runOps(def_.body, env);
  }

private:
  [[noreturn]] void malformed(const CheckOp &op, std::string message) {
    throw Malformed{op.line, op.column, std::move(message)};
  }

  // Tokens inside `key( ... )`, or nullopt when the op has no such group.
  std::optional<std::vector<Token>> group(const CheckOp &op, std::string_view key) {
    const auto &t = op.tokens;
    for (size_t i = 0; i + 1 < t.size(); ++i) {
      if (t[i].kind != Token::Ident || t[i].text != key || t[i + 1].text != "(") continue;
      std::vector<Token> inner;
      int depth = 0;
      for (size_t j = i + 1; j < t.size(); ++j) {
        if (t[j].text == "(") {
          if (depth++ == 0) continue;
        } else if (t[j].text == ")") {
          if (--depth == 0) return inner;
        }
        inner.push_back(t[j]);
      }
      malformed(op, "unterminated '" + std::string(key) + "('");
    }
    return std::nullopt;
  }
  std::vector<Token> required(const CheckOp &op, std::string_view key) {
    auto g = group(op, key);
    if (!g || g->empty()) malformed(op, op.name + " requires " + std::string(key) + "(...)");
    return *g;
  }
  // The type after the last top-level ':' (or between ':' and '->' for `: T -> U`).
  std::string writtenType(const CheckOp &op, bool afterArrow = false) {
    const auto &t = op.tokens;
    size_t colon = t.size();
    int depth = 0;
    for (size_t i = 0; i < t.size(); ++i) {
      if (t[i].text == "(" || t[i].text == "[" || t[i].text == "{") ++depth;
      if (t[i].text == ")" || t[i].text == "]" || t[i].text == "}") --depth;
      if (depth == 0 && t[i].text == ":") colon = i;
    }
    if (colon == t.size()) malformed(op, op.name + " requires ': type'");
    size_t arrow = colon;
    while (arrow < t.size() && t[arrow].text != "->") ++arrow;
    return afterArrow ? joinTokens(t, arrow + 1, t.size()) : joinTokens(t, colon + 1, arrow);
  }
  TypeSpec type(const CheckOp &op, const std::string &written) {
    auto spec = parseTypeSpec(written);
    if (!spec) malformed(op, "unsupported type '" + written + "' in " + op.name);
    return *spec;
  }
  std::vector<int64_t> shape(const CheckOp &op, const TypeSpec &spec, const Env &env) {
    std::vector<int64_t> dims;
    for (const DimSpec &d : spec.dims) {
      if (d.size >= 0) {
        dims.push_back(d.size);
        continue;
      }
      const Scalar &s = scalar(op, env, d.name);
      int64_t v = decodeInt(*elementInfo(s.element), s.bits);
      if (v < 0) malformed(op, "dimension %" + d.name + " is negative (" + std::to_string(v) + ")");
      dims.push_back(v);
    }
    return dims;
  }
  const Value &lookup(const CheckOp &op, const Env &env, const std::string &name) {
    auto it = env.find(name);
    if (it == env.end())
      malformed(op, op.name + " uses %" + name + ", which no earlier op of the check program defines");
    return it->second;
  }
  const Scalar &scalar(const CheckOp &op, const Env &env, const std::string &name) {
    const Value &v = lookup(op, env, name);
    if (!std::holds_alternative<Scalar>(v)) malformed(op, "%" + name + " is not a scalar");
    return std::get<Scalar>(v);
  }
  Tensor tensor(const CheckOp &op, const Env &env, const std::string &name) {
    const Value &v = lookup(op, env, name);
    if (!std::holds_alternative<Tensor>(v)) malformed(op, "%" + name + " is not a tensor");
    return std::get<Tensor>(v);
  }
  // A number token (or %value) as int and float.
  struct Number {
    int64_t i = 0;
    double f = 0;
    bool isFloat = false;
  };
  Number number(const CheckOp &op, const std::vector<Token> &toks, const Env &env) {
    std::string text = joinTokens(toks, 0, toks.size());
    Number n;
    if (toks.size() == 1 && toks[0].kind == Token::Value) {
      const Scalar &s = scalar(op, env, toks[0].text.substr(1));
      ElementInfo e = *elementInfo(s.element);
      if (isFloat(e))
        n.f = decodeFloat(e, s.bits), n.isFloat = true;
      else
        n.i = decodeInt(e, s.bits), n.f = double(n.i);
      return n;
    }
    if (text == "true" || text == "false") return {text == "true" ? 1 : 0, text == "true" ? 1.0 : 0.0, false};
    if (text == "nan" || text == "inf" || text == "-inf") {
      n.isFloat = true;
      n.f = text == "nan" ? std::nan("") : text == "inf" ? INFINITY : -INFINITY;
      return n;
    }
    bool hex = text.find("0x") != std::string::npos || text.find("0X") != std::string::npos;
    bool floaty = !hex && text.find_first_of(".eE") != std::string::npos;
    errno = 0;
    char *end = nullptr;
    if (floaty) {
      n.isFloat = true;
      n.f = std::strtod(text.c_str(), &end);
    } else if (hex) {
      bool neg = text[0] == '-';
      n.i = int64_t(std::strtoull(text.c_str() + (neg ? 1 : 0), &end, 16));
      if (neg) n.i = -n.i;
      n.f = double(n.i);
    } else {
      n.i = std::strtoll(text.c_str(), &end, 10);
      if (errno == ERANGE) n.i = int64_t(std::strtoull(text.c_str(), &end, 10)), errno = 0;
      n.f = double(n.i);
    }
    if (text.empty() || !end || *end != '\0' || errno == ERANGE)
      malformed(op, "invalid number '" + text + "' in " + op.name);
    return n;
  }
  Tensor allocate(const CheckOp &op, const std::string &element, std::vector<int64_t> dims) {
    Tensor t;
    t.element = element;
    t.shape = std::move(dims);
    // A bound on what one generator may allocate: typos (tensor<100000000000xi32>) are errors,
    // not an exhausted machine.
    uint64_t count = 1;
    for (int64_t d : t.shape) {
      if (d < 0 || (d > 0 && count > kMaxTensorBytes / uint64_t(d)))
        malformed(op, "tensor too large for hrx check (over 1 GiB)");
      count *= uint64_t(d);
    }
    if (count * elementInfo(element)->bytes > kMaxTensorBytes)
      malformed(op, "tensor too large for hrx check (over 1 GiB)");
    t.storage = std::make_shared<std::vector<uint8_t>>(std::max<size_t>(t.bytes(), 1), 0);
    return t;
  }
  void define(const CheckOp &op, Env &env, Value v) {
    if (op.results.size() != 1) malformed(op, op.name + " defines exactly one result");
    env[op.results[0]] = std::move(v);
  }

  void runOps(const std::vector<CheckOp> &ops, Env &env) {
    for (const CheckOp &op : ops) {
      if (op.code == OpCode::CheckReturn) return;
      runOp(op, env);
    }
  }

  void runOp(const CheckOp &op, Env &env) {
    const loom::OpCode n = op.code;
    if (n == OpCode::CheckParamChoice || n == OpCode::CheckParamSeed || n == OpCode::CheckParamRange) {
      auto nameToks = group(op, "name");
      std::string pname = nameToks && !nameToks->empty() && (*nameToks)[0].text.size() >= 2
                              ? (*nameToks)[0].text.substr(1, (*nameToks)[0].text.size() - 2)
                          : op.results.empty() ? ""
                                               : op.results[0];
      auto it = sample_->params.find(pname);
      if (it == sample_->params.end()) malformed(op, "parameter '" + pname + "' has no value");
      define(op, env, it->second);
    } else if (n == OpCode::CheckLiteral || n == OpCode::IndexConstant || n == OpCode::ScalarConstant) {
      TypeSpec t = type(op, writtenType(op));
      std::vector<Token> v;
      if (n == OpCode::CheckLiteral)
        v = required(op, "value");
      else
        v.assign(op.tokens.begin(), op.tokens.begin() + std::min<size_t>(op.tokens.size(), 1));
      if (t.tensor) {
        Tensor out = allocate(op, t.element, shape(op, t, env));
        ElementInfo e = *elementInfo(t.element);
        std::vector<Token> items;
        for (const Token &k : v)
          if (k.text != "[" && k.text != "]" && k.text != ",") items.push_back(k);
        if (items.size() != out.count())
          malformed(op, "check.literal has " + std::to_string(items.size()) + " values for " +
                            std::to_string(out.count()) + " elements");
        for (size_t k = 0; k < items.size(); ++k) {
          Number num = number(op, {items[k]}, env);
          storeBits(out.data() + k * e.bytes, e.bytes, encodeNumber(e, num.f, num.i, num.isFloat));
        }
        define(op, env, out);
      } else {
        ElementInfo e = *elementInfo(t.element);
        Number num = number(op, v, env);
        define(op, env, Scalar{t.element, encodeNumber(e, num.f, num.i, num.isFloat)});
      }
    } else if (n == OpCode::CheckGenerateFill || n == OpCode::CheckGenerateIota ||
               n == OpCode::CheckGenerateRandomUniform) {
      TypeSpec t = type(op, writtenType(op));
      if (!t.tensor) malformed(op, op.name + " generates a tensor, but its type is '" + t.element + "'");
      Tensor out = allocate(op, t.element, shape(op, t, env));
      ElementInfo e = *elementInfo(t.element);
      size_t count = out.count();
      if (n == OpCode::CheckGenerateFill) {
        Number v = number(op, required(op, "value"), env);
        uint64_t bits = encodeNumber(e, v.f, v.i, v.isFloat);
        for (size_t k = 0; k < count; ++k) storeBits(out.data() + k * e.bytes, e.bytes, bits);
      } else if (n == OpCode::CheckGenerateIota) {
        auto off = group(op, "offset"), step = group(op, "step");
        // offset + (k mod period) * step; without period(N) the sequence never repeats.
        auto per = group(op, "period");
        Number o = off ? number(op, *off, env) : Number{}, s = step ? number(op, *step, env) : Number{1, 1.0, false};
        Number p = per ? number(op, *per, env) : Number{0, 0.0, false};
        if (per && p.i <= 0)
          malformed(op, "check.generate.iota period(" + std::to_string(p.i) + ") must be at least 1");
        for (size_t k = 0; k < count; ++k) {
          bool fl = isFloat(e) || o.isFloat || s.isFloat;
          size_t position = p.i > 0 ? k % size_t(p.i) : k;
          double f = o.f + double(position) * s.f;
          int64_t i = int64_t(uint64_t(o.i) + uint64_t(position) * uint64_t(s.i));
          storeBits(out.data() + k * e.bytes, e.bytes, encodeNumber(e, f, i, fl && isFloat(e)));
        }
      } else {
        Number seed = number(op, required(op, "seed"), env);
        auto range = required(op, "range");
        size_t to = 0;
        while (to < range.size() && range[to].text != "to") ++to;
        if (to == range.size()) malformed(op, "range(...) is written 'range(LOW to HIGH)'");
        Number lo = number(op, {range.begin(), range.begin() + to}, env);
        Number hi = number(op, {range.begin() + to + 1, range.end()}, env);
        uint64_t state = splitmix(uint64_t(seed.i) ^ 0x5eedull);
        for (size_t k = 0; k < count; ++k) {
          uint64_t r = splitmix(state + k);
          uint64_t bits;
          if (isFloat(e)) {
            double u = double(r >> 11) * 0x1.0p-53;
            bits = encodeNumber(e, lo.f + u * (hi.f - lo.f), 0, true);
          } else {
            if (hi.i < lo.i)
              malformed(op, "range(" + std::to_string(lo.i) + " to " + std::to_string(hi.i) + ") is empty");
            uint64_t span = uint64_t(hi.i) - uint64_t(lo.i) + 1;  // 0: the whole 64-bit range
            bits = encodeNumber(e, 0, int64_t(uint64_t(lo.i) + (span ? r % span : r)), false);
          }
          storeBits(out.data() + k * e.bytes, e.bytes, bits);
        }
      }
      define(op, env, out);
    } else if (n == OpCode::CheckFileReadNpy) {
      define(op, env, readNpy(op, env));
    } else if (n == OpCode::CheckTensorView) {
      if (op.tokens.empty() || op.tokens[0].kind != Token::Value)
        malformed(op, "check.tensor.view expects a tensor operand");
      Tensor base = tensor(op, env, op.tokens[0].text.substr(1));
      Number off = number(op, required(op, "offset"), env);
      TypeSpec t = type(op, writtenType(op, true));
      Tensor view;
      view.storage = base.storage;
      view.offset = base.offset + size_t(off.i);
      view.element = t.element;
      view.shape = shape(op, t, env);
      if (off.i < 0 || view.offset + view.bytes() > base.offset + base.bytes())
        malformed(op, "check.tensor.view of " + std::to_string(view.bytes()) + " bytes at offset " +
                          std::to_string(off.i) + " leaves its " + std::to_string(base.bytes()) + "-byte tensor");
      define(op, env, view);
    } else if (n == OpCode::CheckEntropyFork) {
      if (op.tokens.empty() || op.tokens[0].kind != Token::Value)
        malformed(op, "check.entropy.fork expects an entropy operand");
      const Value &v = lookup(op, env, op.tokens[0].text.substr(1));
      if (!std::holds_alternative<Entropy>(v)) malformed(op, "check.entropy.fork expects a check.entropy value");
      auto name = required(op, "name");
      define(op, env, Entropy{splitmix(std::get<Entropy>(v).state ^ fnv(name[0].text))});
    } else if (n == OpCode::CheckEntropyRead) {
      if (op.tokens.size() < 4 || op.tokens[0].kind != Token::Value)
        malformed(op, "check.entropy.read is written '%e[INDEX]'");
      const Value &v = lookup(op, env, op.tokens[0].text.substr(1));
      if (!std::holds_alternative<Entropy>(v)) malformed(op, "check.entropy.read expects a check.entropy value");
      Number index = number(op, {op.tokens[2]}, env);
      TypeSpec t = type(op, writtenType(op, true));
      ElementInfo e = *elementInfo(t.element);
      uint64_t r = splitmix(std::get<Entropy>(v).state + uint64_t(index.i) * 0x9e3779b97f4a7c15ull);
      define(op, env, Scalar{t.element, e.bits == 64 ? r : r & ((1ull << e.bits) - 1)});
    } else if (n == OpCode::KernelLaunch || n == OpCode::FuncCall) {
      launch(op, env);
    } else if (n == OpCode::CheckCompare) {
      compare(op, env);
    } else if (n == OpCode::CheckTrial) {
      trial(op, env);
    } else if (n == OpCode::CheckExpectEqual || n == OpCode::CheckExpectClose || n == OpCode::CheckExpectBitwise) {
      expect(op, env, env);
    } else if (n == OpCode::CheckExpectEvent) {
      event(op);
    } else if (n == OpCode::CheckRequires || n == OpCode::CheckSkipIf) {
      requirement(op);
    } else {
      malformed(op, "'" + op.name + "' is not an op hrx check runs in a check program");
    }
  }

  // check.file.read.npy path("f.npy") : tensor<...>: a C-order little-endian array whose dtype
  // has the element's size and kind (f: float, i/u/b: integer, V: raw bytes such as bf16).
  Tensor readNpy(const CheckOp &op, const Env &env) {
    auto written = required(op, "path");
    if (written.size() != 1 || written[0].kind != Token::String || written[0].text.size() < 2)
      malformed(op, "check.file.read.npy is written check.file.read.npy path(\"file.npy\") : tensor<...>");
    std::string relative = written[0].text.substr(1, written[0].text.size() - 2);
    TypeSpec t = type(op, writtenType(op));
    if (!t.tensor) malformed(op, "check.file.read.npy reads a tensor, but its type is '" + t.element + "'");
    std::filesystem::path path(relative);
    if (path.is_relative()) path = std::filesystem::path(file_.path).parent_path() / path;
    std::string where = file_.path + ":" + std::to_string(op.line) + ":" + std::to_string(op.column) + ": ";
    std::ifstream in(path, std::ios::binary);
    if (!in)
      throw Skipped{where + "check.file.read.npy cannot open '" + path.string() + "' (" + std::strerror(errno) +
                    "): the case's data file is not here"};
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto bad = [&](const std::string &why) {
      malformed(op, "'" + path.string() + "' is not a usable .npy file: " + why);
    };
    if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) bad("no \\x93NUMPY magic");
    unsigned major = uint8_t(bytes[6]);
    if (major < 1 || major > 3) bad("format version " + std::to_string(major) + " (1, 2 or 3 expected)");
    size_t lengthBytes = major == 1 ? 2 : 4, start = 8 + lengthBytes;
    if (bytes.size() < start) bad("truncated header");
    uint64_t headerLength = loadBits(reinterpret_cast<const uint8_t *>(bytes.data()) + 8, unsigned(lengthBytes));
    if (bytes.size() < start + headerLength) bad("truncated header");
    std::string header = bytes.substr(start, headerLength);
    // The header is a Python dict literal: {'descr': '<f4', 'fortran_order': False, 'shape': (6, 2), }
    auto field = [&](std::string_view key) -> std::string {
      size_t at = header.find("'" + std::string(key) + "'");
      if (at == std::string::npos) bad("its header has no '" + std::string(key) + "'");
      size_t colon = header.find(':', at);
      if (colon == std::string::npos) bad("its header's '" + std::string(key) + "' has no value");
      size_t begin = header.find_first_not_of(" ", colon + 1);
      if (begin == std::string::npos) bad("its header's '" + std::string(key) + "' has no value");
      char open = header[begin];
      size_t end = open == '\'' || open == '"' ? header.find(open, begin + 1)
                   : open == '('               ? header.find(')', begin)
                                               : header.find_first_of(",}", begin);
      if (end == std::string::npos) bad("its header's '" + std::string(key) + "' is not closed");
      return open == '\'' || open == '"' ? header.substr(begin + 1, end - begin - 1)
                                         : header.substr(begin, end - begin + (open == '('));
    };
    std::string descr = field("descr"), order = field("fortran_order"), shapeText = field("shape");
    ElementInfo e = *elementInfo(t.element);
    if (descr.size() < 3 ||
        (descr[0] != '<' && descr[0] != '|' && descr[0] != '=' && !(descr[0] == '>' && e.bytes == 1)))
      bad("dtype '" + descr + "' is not little-endian");
    char kind = descr[1];
    unsigned size = unsigned(std::strtoul(descr.c_str() + 2, nullptr, 10));
    bool kindFits = kind == 'V' || (isFloat(e) ? kind == 'f' : kind == 'i' || kind == 'u' || kind == 'b');
    if (!kindFits || size != e.bytes) bad("dtype '" + descr + "' does not hold " + t.element + " elements");
    std::vector<int64_t> dims;
    for (size_t k = 1; k < shapeText.size();) {
      size_t digit = shapeText.find_first_of("0123456789", k);
      if (digit == std::string::npos) break;
      size_t past = shapeText.find_first_not_of("0123456789", digit);
      dims.push_back(std::strtoll(shapeText.substr(digit, past - digit).c_str(), nullptr, 10));
      k = past;
    }
    std::vector<int64_t> expected = shape(op, t, env);
    auto spell = [](const std::vector<int64_t> &d) {
      std::string s;
      for (int64_t x : d) s += (s.empty() ? "" : "x") + std::to_string(x);
      return s.empty() ? std::string("a scalar") : s;
    };
    size_t count = 1;
    for (int64_t d : dims) count *= size_t(d);
    if (dims != expected) bad("its shape " + spell(dims) + " is not the type's " + spell(expected));
    if (order.find("True") != std::string::npos && dims.size() > 1) bad("Fortran-order arrays are not read");
    Tensor out = allocate(op, t.element, expected);
    if (bytes.size() < start + headerLength + count * e.bytes)
      bad("it holds " + std::to_string(bytes.size() - start - headerLength) + " data bytes, the shape needs " +
          std::to_string(count * e.bytes));
    std::memcpy(out.data(), bytes.data() + start + headerLength, count * e.bytes);
    return out;
  }

  // <provider> {k = v, ...} of check.requires / check.expect.event.
  std::pair<std::string, std::map<std::string, std::string>> providerAndAttrs(const CheckOp &op) {
    std::string provider;
    std::map<std::string, std::string> attrs;
    const auto &t = op.tokens;
    size_t i = 0;
    if (i < t.size() && t[i].text == "<") {
      for (++i; i < t.size() && t[i].text != ">"; ++i)
        provider += t[i].kind == Token::String ? t[i].text.substr(1, t[i].text.size() - 2) : t[i].text;
      ++i;
    }
    if (i < t.size() && t[i].text == "{")
      for (++i; i + 2 < t.size() && t[i].text != "}";) {
        std::string value = t[i + 2].text;
        if (t[i + 2].kind == Token::String) value = value.substr(1, value.size() - 2);
        attrs[t[i].text] = value;
        i += 3;
        if (i < t.size() && t[i].text == ",") ++i;
      }
    if (provider.empty()) malformed(op, op.name + " names its provider: " + op.name + "<provider> {key = value}");
    return {provider, attrs};
  }

  void requirement(const CheckOp &op) {
    auto [provider, attrs] = providerAndAttrs(op);
    std::string want;
    for (const auto &[k, v] : attrs) want += (want.empty() ? "" : ", ") + k + " = \"" + v + "\"";
    std::string spelled = provider + (want.empty() ? "" : " {" + want + "}");
    std::string target = runTargetName(target_);
    // The target's own facts (its backend says which predicates its devices meet), else a bare
    // provider or a target/device name naming this target or its backend.
    auto names = [&](const std::string &v) {
      return v == target_.backend ||
             std::find(target_.spellings.begin(), target_.spellings.end(), v) != target_.spellings.end();
    };
    bool holds = std::find(target_.checkFacts.begin(), target_.checkFacts.end(), spelled) != target_.checkFacts.end();
    if (!holds && (provider == "target" || provider == "device")) {
      holds = true;
      for (const auto &[k, v] : attrs)
        if ((k == "target" || k == "name" || k == "arch") && !names(v)) holds = false;
    } else if (!holds && attrs.empty()) {
      std::string family = provider.starts_with("hal.") ? provider.substr(4, provider.find('.', 4) - 4) : provider;
      holds = names(family);
    }
    bool skip = op.code == OpCode::CheckSkipIf ? holds : !holds;
    if (skip)
      throw Skipped{(op.code == OpCode::CheckSkipIf ? "skip_if " : "requires ") + spelled +
                    " (running --target=" + target + " on the host reference device)"};
  }

  void event(const CheckOp &op) {
    auto [provider, attrs] = providerAndAttrs(op);
    int64_t count = 1;
    if (auto it = attrs.find("count"); it != attrs.end()) count = std::strtoll(it->second.c_str(), nullptr, 10);
    std::string type = attrs.count("type") ? attrs["type"] : "any";
    // The host reference device reports no device events (no sanitizer runs here).
    if (count != 0)
      throw Failed{"expected " + std::to_string(count) + " " + provider + " event(s) of type \"" + type +
                   "\", got 0 (line " + std::to_string(op.line) + ")"};
  }

  // `actual(%a) expected(%e) [atol(x) rtol(y) nan(same|any)] : T`
  void expect(const CheckOp &op, const Env &actualEnv, const Env &expectedEnv) {
    auto a = required(op, "actual"), e = required(op, "expected");
    if (a.size() != 1 || a[0].kind != Token::Value || e.size() != 1 || e[0].kind != Token::Value)
      malformed(op, op.name + " compares two values: actual(%a) expected(%b)");
    TypeSpec t = type(op, writtenType(op));
    ElementInfo info = *elementInfo(t.element);
    const Value &av = lookup(op, actualEnv, a[0].text.substr(1));
    const Value &ev = lookup(op, expectedEnv, e[0].text.substr(1));
    const uint8_t *ap, *ep;
    size_t count = 1;
    std::vector<int64_t> dims;
    uint64_t as = 0, es = 0;
    if (t.tensor) {
      if (!std::holds_alternative<Tensor>(av) || !std::holds_alternative<Tensor>(ev))
        malformed(op, op.name + " on a tensor type compares tensors");
      const Tensor &at = std::get<Tensor>(av), &et = std::get<Tensor>(ev);
      if (at.element != t.element || et.element != t.element || at.count() != et.count())
        malformed(op, op.name + ": the operands' types differ from '" + joinTokens({}, 0, 0) + writtenType(op) + "'");
      ap = at.data();
      ep = et.data();
      count = at.count();
      dims = at.shape;
    } else {
      if (!std::holds_alternative<Scalar>(av) || !std::holds_alternative<Scalar>(ev))
        malformed(op, op.name + " on a scalar type compares scalars");
      as = std::get<Scalar>(av).bits;
      es = std::get<Scalar>(ev).bits;
      ap = reinterpret_cast<const uint8_t *>(&as);
      ep = reinterpret_cast<const uint8_t *>(&es);
    }
    double atol = 0, rtol = 0;
    std::string nan = "same";
    if (op.code == OpCode::CheckExpectClose) {
      if (auto g = group(op, "atol")) atol = number(op, *g, actualEnv).f;
      if (auto g = group(op, "rtol")) rtol = number(op, *g, actualEnv).f;
      if (auto g = group(op, "nan"); g && !g->empty()) nan = (*g)[0].text;
      if (nan != "same" && nan != "any" && nan != "never" && nan != "distinct")
        malformed(op, "nan(" + nan + ") is not a NaN policy (same, any, never)");
      if (!isFloat(info))
        malformed(op,
                  "check.expect.close compares floating-point values; use check.expect.equal for '" + t.element + "'");
    }
    for (size_t k = 0; k < count; ++k) {
      uint64_t x = loadBits(ap + k * info.bytes, info.bytes), y = loadBits(ep + k * info.bytes, info.bytes);
      bool ok;
      if (op.code == OpCode::CheckExpectBitwise || !isFloat(info)) {
        ok = info.bits == 1 ? ((x ^ y) & 1) == 0 : x == y;
      } else {
        double xf = decodeFloat(info, x), yf = decodeFloat(info, y);
        if (std::isnan(xf) || std::isnan(yf))
          ok = std::isnan(xf) && std::isnan(yf) &&
               (op.code != OpCode::CheckExpectClose || nan == "same" || nan == "any");
        else if (op.code == OpCode::CheckExpectClose)
          ok = std::fabs(xf - yf) <= atol + rtol * std::fabs(yf) || xf == yf;
        else
          ok = xf == yf;
      }
      if (ok) continue;
      std::string where;
      if (t.tensor) {
        where = " at index " + std::to_string(k);
        if (dims.size() > 1) {
          std::vector<int64_t> coord(dims.size());
          size_t rest = k;
          for (size_t d = dims.size(); d-- > 0;) coord[d] = int64_t(rest % size_t(dims[d])), rest /= size_t(dims[d]);
          where += " [";
          for (size_t d = 0; d < coord.size(); ++d) where += (d ? ", " : "") + std::to_string(coord[d]);
          where += "]";
        }
      }
      std::string shown = op.code == OpCode::CheckExpectBitwise ? " (bits 0x" +
                                                                      [&] {
                                                                        std::ostringstream s;
                                                                        s << std::hex << y << " vs 0x" << x;
                                                                        return s.str();
                                                                      }() +
                                                                      ")"
                                                                : "";
      auto shortest = [](double v) {
        std::ostringstream s;
        s << v;  // 6 significant digits: tolerances are written that way
        return s.str();
      };
      std::string tol =
          op.code == OpCode::CheckExpectClose ? " within atol " + shortest(atol) + ", rtol " + shortest(rtol) : "";
      throw Failed{"expected " + formatElement(info, y) + ", got " + formatElement(info, x) + where + tol + shown +
                   " (" + op.name + " at line " + std::to_string(op.line) + ")"};
    }
  }

  void trial(const CheckOp &op, Env &env) {
    // check.trial[N](%trial: index, %entropy: check.entropy) { ... }
    const auto &t = op.tokens;
    if (t.size() < 3 || t[0].text != "[")
      malformed(op, "check.trial is written check.trial[N](%trial: index, %entropy: check.entropy)");
    Number count = number(op, {t[1]}, env);
    if (count.i < 0 || count.i > kMaxRepeats)
      malformed(op, "check.trial[" + std::to_string(count.i) + "] must be between 0 and 1048576");
    std::vector<std::string> args;
    for (const Token &k : t)
      if (k.kind == Token::Value) args.push_back(k.text.substr(1));
    if (args.size() != 2) malformed(op, "check.trial takes (%trial: index, %entropy: check.entropy)");
    for (int64_t i = 0; i < count.i; ++i) {
      Env inner = env;
      inner[args[0]] = Scalar{"index", uint64_t(i)};
      inner[args[1]] = Entropy{splitmix(fnv(def_.name) ^ splitmix(uint64_t(i)))};
      try {
        runOps(op.region, inner);
      } catch (Failed &f) {
        f.message = "trial " + std::to_string(i) + ": " + f.message;
        throw;
      }
    }
  }

  // An independent copy of the storage behind the tensors named in `names`: every tensor of the
  // environment on that storage (views of it, the tensor it views) sees the copy.
  Env copyArgs(const Env &env, const std::vector<std::string> &names) {
    Env copy = env;
    std::map<const std::vector<uint8_t> *, std::shared_ptr<std::vector<uint8_t>>> fresh;
    for (const std::string &name : names) {
      auto it = env.find(name);
      if (it == env.end() || !std::holds_alternative<Tensor>(it->second)) continue;
      const auto &storage = std::get<Tensor>(it->second).storage;
      if (!fresh.count(storage.get())) fresh[storage.get()] = std::make_shared<std::vector<uint8_t>>(*storage);
    }
    for (auto &[name, value] : copy)
      if (auto *t = std::get_if<Tensor>(&value))
        if (auto f = fresh.find(t->storage.get()); f != fresh.end()) t->storage = f->second;
    return copy;
  }

  void compare(const CheckOp &op, Env &env) {
    // check.compare<@impl[, @oracle]>(args) : (types) -> () { expectations }
    std::vector<CallShape> calls = compareCalls(op);
    if (calls.empty())
      malformed(op, "check.compare is written check.compare<@impl[, @oracle]>(args) : (types) -> () or -> "
                    "[actual(%a: T, ...), expected(%e: T, ...)] with the same result types");
    Env actual = copyArgs(env, calls.front().args), expected = copyArgs(env, calls.front().args);
    invoke(op, calls.front(), actual, target_);
    invoke(op, calls.back(), expected, options_.hostReference);
    for (const CheckOp &e : op.region) {
      if (e.code == OpCode::CheckReturn || e.code == OpCode::CheckYield) continue;
      if (!e.name.starts_with("check.expect."))
        malformed(e, "a check.compare region holds expectations only, found '" + e.name + "'");
      if (e.code == OpCode::CheckExpectEvent)
        event(e);
      else
        expect(e, actual, expected);
    }
  }

  // The configuration a launch of `callee` with `args` implies (docs/hrx.md: extent rules).
  std::map<std::string, std::string> impliedConfig(const CheckOp &op, const std::string &callee,
                                                   const std::vector<std::string> &args, const Env &env) {
    std::map<std::string, std::string> config;
    static const std::vector<ExtentRule> kNoExtents;
    auto it = file_.extentRules.find(callee);
    const std::vector<ExtentRule> &extents = it == file_.extentRules.end() ? kNoExtents : it->second;
    std::map<std::string, int64_t> known;
    // A tensor of the view's rank and element size gives each dimension; otherwise its byte size
    // gives the one dimension still unknown. Values found by one rule can complete another.
    for (bool progress = true; progress;) {
      progress = false;
      for (const ExtentRule &rule : extents) {
        if (rule.param >= args.size()) continue;
        auto v = env.find(args[rule.param]);
        if (v == env.end() || !std::holds_alternative<Tensor>(v->second)) continue;
        const Tensor &t = std::get<Tensor>(v->second);
        if (t.shape.size() == rule.dims.size() && elementInfo(t.element)->bytes == rule.elementBytes) {
          for (size_t d = 0; d < rule.dims.size(); ++d)
            if (!rule.dims[d].key.empty() && !known.count(rule.dims[d].key))
              known[rule.dims[d].key] = t.shape[d], progress = true;
          continue;
        }
        uint64_t unit = rule.elementBytes;
        const std::string *unknown = nullptr;
        int unknowns = 0;
        for (const ExtentDim &d : rule.dims) {
          if (d.size >= 0)
            unit *= uint64_t(d.size);
          else if (auto k = known.find(d.key); !d.key.empty() && k != known.end())
            unit *= uint64_t(k->second);
          else
            unknown = &d.key, unknowns += d.key.empty() ? 2 : 1;  // sized by something else: no rule
        }
        size_t bytes = t.bytes();
        if (unknowns == 1 && unit && bytes % unit == 0) known[*unknown] = int64_t(bytes / unit), progress = true;
      }
    }
    // A capacity no extent gives is the index value it bounds (the least capacity admitting it).
    if (auto c = file_.capacityRules.find(callee); c != file_.capacityRules.end())
      for (const CapacityRule &rule : c->second) {
        if (rule.param >= args.size() || known.count(rule.key)) continue;
        auto v = env.find(args[rule.param]);
        if (v == env.end() || !std::holds_alternative<Scalar>(v->second)) continue;
        const Scalar &s = std::get<Scalar>(v->second);
        if (s.element == "index" || s.element.starts_with('i')) known[rule.key] = int64_t(s.bits);
      }
    for (const auto &[key, value] : known) config[key] = std::to_string(value);
    if (sample_)
      for (const auto &[key, value] : sample_->config) config.try_emplace(key, value);
    return config;
  }

  // Kernel and function code runs from a host object or twin; an array-plan target runs pipelines.
  void requireKernelPath(const std::string &symbol, const RunTarget &where) const {
    if (where.path == RunTarget::Path::ArrayPlan)
      throw Skipped{"requires a kernel target (" + joinOr(options_.kernelTargets) + "): --target=" + where.name +
                    " runs pipeline.def code through the NPU array plan, and @" + symbol + " is not a pipeline"};
  }

  void invoke(const CheckOp &op, const CallShape &shape, Env &env, const RunTarget &where) {
    if (file_.pipelines.count(shape.callee)) {
      executePipeline(op, shape.callee, shape.args, shape.argTypes, env);
      return;
    }
    requireKernelPath(shape.callee, where);
    std::map<std::string, std::string> config = impliedConfig(op, shape.callee, shape.args, env);
    if (file_.kernels.count(shape.callee)) {  // a func.call of a kernel launches it
      const LoadedCode &code = code_.get(where, shape.callee, config);
      if (!shape.resultTypes.empty()) malformed(op, "@" + shape.callee + " is a kernel, which returns no results");
      execute(op, shape.callee, implicitWorkload(op, shape.callee, shape.args, env), shape.args, shape.argTypes, {}, {},
              env, code, where);
      return;
    }
    auto it = wrappers_.find(wrapperKey(shape));
    if (it == wrappers_.end() && !file_.foreignLinks && !file_.symbols.count(shape.callee))
      malformed(op, "@" + shape.callee + " is not defined in this file or the Loom files it is linked with (--link)");
    if (it == wrappers_.end()) malformed(op, "no wrapper for the call of @" + shape.callee + " (internal)");
    if (shape.resultNames.size() != shape.resultTypes.size())
      malformed(op, op.name + " names " + std::to_string(shape.resultNames.size()) + " result(s) for " +
                        std::to_string(shape.resultTypes.size()) + " result type(s)");
    const LoadedCode &code = code_.get(where, wrapperName(it->second), config);
    execute(op, wrapperName(it->second), {}, shape.args, shape.argTypes, shape.resultTypes, shape.resultNames, env,
            code, where);
  }

  void launch(const CheckOp &op, Env &env) {
    std::string symbol;
    std::vector<std::string> argNames, argTypes, resultTypes;
    std::vector<uint64_t> workload;
    if (op.code == OpCode::FuncCall) {
      auto shape = callShape(op);
      if (!shape) malformed(op, "func.call is written func.call @f(%a, ...) : (types) [-> (types)]");
      invoke(op, *shape, env, target_);
      return;
    } else {
      // kernel.launch @k[%w, ...](%a, ...) : [types](types)
      const auto &t = op.tokens;
      if (t.empty() || t[0].kind != Token::Symbol)
        malformed(op, "kernel.launch names its kernel: kernel.launch @k(...)");
      symbol = t[0].text.substr(1);
      size_t i = 1;
      if (i < t.size() && t[i].text == "[") {
        for (++i; i < t.size() && t[i].text != "]"; ++i) {
          if (t[i].text == ",") continue;
          Number w = number(op, {t[i]}, env);
          workload.push_back(uint64_t(w.i));
        }
        ++i;
      }
      if (i >= t.size() || t[i].text != "(") malformed(op, "kernel.launch expects (arguments)");
      for (++i; i < t.size() && t[i].text != ")"; ++i)
        if (t[i].kind == Token::Value) argNames.push_back(t[i].text.substr(1));
      std::string types = writtenType(op);
      if (types.starts_with("[")) types = types.substr(types.find(']') + 1);
      argTypes = splitTypeList(types);
      if (argTypes.size() != argNames.size())
        malformed(op, "kernel.launch passes " + std::to_string(argNames.size()) + " argument(s) with " +
                          std::to_string(argTypes.size()) + " type(s)");
    }
    if (file_.pipelines.count(symbol)) return executePipeline(op, symbol, argNames, argTypes, env);
    if (workload.empty()) workload = implicitWorkload(op, symbol, argNames, env);
    requireKernelPath(symbol, target_);
    const LoadedCode &code = code_.get(target_, symbol, impliedConfig(op, symbol, argNames, env));
    execute(op, symbol, workload, argNames, argTypes, resultTypes, {}, env, code, target_);
  }

  // A pipeline.def entry: compiled for xdna, run on the host reference device from its array
  // plan, its buffer arguments bound in launch order.
  void executePipeline(const CheckOp &op, const std::string &symbol, const std::vector<std::string> &argNames,
                       const std::vector<std::string> &argTypes, Env &env) {
    if (target_.path != RunTarget::Path::ArrayPlan)
      throw Skipped{"requires --target=" + joinOr(options_.pipelineTargets) + ": @" + symbol +
                    " is a pipeline.def, which runs through the NPU array plan"};
    const LoadedCode &code = code_.get(target_, "", {});
    if (code.skip) throw Skipped{code.problem};
    if (!code.artifact) throw Failed{code.problem};
    auto entry = runtime::findEntry(code.entries, symbol, runtime::Engine::Npu);
    if (!entry) throw Failed{"@" + symbol + ": " + entry.status().message()};
    std::vector<runtime::BindingSpan> bindings;
    for (size_t k = 0; k < argNames.size(); ++k) {
      TypeSpec spec = type(op, argTypes[k]);
      if (!spec.tensor) malformed(op, "@" + symbol + " is a pipeline: its launch arguments are tensors (buffers)");
      Tensor t = tensor(op, env, argNames[k]);
      bindings.push_back({reinterpret_cast<std::byte *>(t.data()), t.bytes()});
    }
    const auto &contract = (*entry)->contract.bindings;
    if (contract.size() != bindings.size())
      malformed(op, "@" + symbol + " takes " + std::to_string(contract.size()) + " buffer(s), this launch passes " +
                        std::to_string(bindings.size()));
    for (size_t k = 0; k < contract.size(); ++k)
      if (bindings[k].length < contract[k].bytes)
        malformed(op, "argument %" + argNames[k] + " has " + std::to_string(bindings[k].length) + " bytes; @" + symbol +
                          " reads " + std::to_string(contract[k].bytes) + " bytes from binding " + std::to_string(k));
    auto kernel = runtime::loadOnHost(**entry, {});
    if (!kernel) throw Failed{"cannot load @" + symbol + ": " + kernel.status().message()};
    auto started = std::chrono::steady_clock::now();
    if (Status s = (*kernel)->run(bindings, {}); !s) throw Failed{"@" + symbol + " failed: " + s.message()};
    launchMicros += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - started).count();
  }

  // The workload of a launch that writes none: each workload parameter takes the launch
  // argument of the same name.
  std::vector<uint64_t> implicitWorkload(const CheckOp &op, const std::string &kernel,
                                         const std::vector<std::string> &args, const Env &env) {
    auto it = file_.kernels.find(kernel);
    if (it == file_.kernels.end()) return {};
    std::vector<uint64_t> workload;
    for (const std::string &w : it->second.workload) {
      auto at = std::find(it->second.launch.begin(), it->second.launch.end(), w);
      if (at == it->second.launch.end() || size_t(at - it->second.launch.begin()) >= args.size())
        malformed(op, "@" + kernel + " takes the workload %" + w +
                          ", which this launch does not give: write kernel.launch @" + kernel + "[...](...)");
      workload.push_back(scalar(op, env, args[size_t(at - it->second.launch.begin())]).bits);
    }
    return workload;
  }

  void execute(const CheckOp &op, const std::string &symbol, const std::vector<uint64_t> &workload,
               const std::vector<std::string> &argNames, const std::vector<std::string> &argTypes,
               const std::vector<std::string> &resultTypes, const std::vector<std::string> &resultNames, Env &env,
               const LoadedCode &code, const RunTarget &where) {
    if (code.skip) throw Skipped{code.problem};
    if (!code.code) throw Failed{code.problem};
    format::KernelContract contract;
    runtime::GpuLaunchLayout layout;
    std::vector<runtime::BindingSpan> bindings;
    std::vector<std::byte> constants;
    std::vector<Tensor> results;
    uint64_t kernarg = 0;
    auto addBuffer = [&](const Tensor &t) {
      contract.bindings.push_back({std::max<uint64_t>(t.bytes(), 1), 1, format::ContractAccess::ReadWrite, "tensor"});
      layout.arguments.push_back({kernarg, 8, format::LaunchArgumentKind::Buffer});
      kernarg += 8;
      bindings.push_back({reinterpret_cast<std::byte *>(t.data()), std::max<uint64_t>(t.bytes(), 1)});
    };
    for (size_t k = 0; k < argNames.size(); ++k) {
      const Value &v = lookup(op, env, argNames[k]);
      TypeSpec spec = type(op, argTypes[k]);
      if (spec.tensor) {
        if (!std::holds_alternative<Tensor>(v)) malformed(op, "argument %" + argNames[k] + " is not a tensor");
        addBuffer(std::get<Tensor>(v));
      } else {
        if (!std::holds_alternative<Scalar>(v)) malformed(op, "argument %" + argNames[k] + " is not a scalar");
        ElementInfo e = *elementInfo(spec.element);
        uint64_t bits = std::get<Scalar>(v).bits;
        layout.arguments.push_back({kernarg, e.bytes, format::LaunchArgumentKind::Value});
        kernarg += e.bytes;
        const std::byte *p = reinterpret_cast<const std::byte *>(&bits);
        constants.insert(constants.end(), p, p + e.bytes);
      }
    }
    for (const std::string &r : resultTypes) {
      TypeSpec spec = type(op, r);
      if (spec.tensor) malformed(op, "func.call results are scalars in a check program");
      results.push_back(allocate(op, spec.element == "i1" ? "i8" : spec.element, {1}));
      addBuffer(results.back());
    }
    auto kernel = runtime::makeHostGpuKernel(symbol, code.code, contract, workload, layout);
    if (!kernel) throw Failed{"cannot load @" + symbol + ": " + kernel.status().message()};
    auto started = std::chrono::steady_clock::now();
    if (Status s = (*kernel)->run(bindings, constants); !s) throw Failed{"@" + symbol + " failed: " + s.message()};
    launchMicros += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - started).count();
    for (size_t k = 0; k < results.size(); ++k) {
      ElementInfo e = *elementInfo(results[k].element);
      env[resultNames[k]] =
          Scalar{resultTypes[k], loadBits(results[k].data(), e.bytes) & (resultTypes[k] == "i1" ? 1 : ~0ull)};
    }
  }

public:
  double launchMicros = 0;

private:
  const CheckFile &file_;
  const CheckDefinition &def_;
  CodeCache &code_;
  const std::map<std::string, size_t> &wrappers_;
  const RunOptions &options_;
  const RunTarget &target_;
  const Sample *sample_ = nullptr;
};

// The parameter sweep of a definition: the cartesian product of its check.param values.
struct Param {
  std::string name, element;
  std::vector<uint64_t> values;
};
std::vector<Param> collectParams(const CheckDefinition &def, std::string &problem) {
  std::vector<Param> params;
  for (const CheckOp &op : def.body) {
    if (!op.name.starts_with("check.param.")) continue;
    Param p;
    auto find = [&](std::string_view key) -> std::vector<Token> {
      for (size_t i = 0; i + 1 < op.tokens.size(); ++i)
        if (op.tokens[i].text == key && op.tokens[i + 1].text == "(") {
          std::vector<Token> inner;
          for (size_t j = i + 2; j < op.tokens.size() && op.tokens[j].text != ")"; ++j) inner.push_back(op.tokens[j]);
          return inner;
        }
      return {};
    };
    // Without name("..."), a parameter is named after its result.
    auto name = find("name");
    if (!name.empty() && name[0].kind == Token::String)
      p.name = name[0].text.substr(1, name[0].text.size() - 2);
    else if (op.results.size() == 1)
      p.name = op.results[0];
    else {
      problem = std::to_string(op.line) + ":" + std::to_string(op.column) + ": " + op.name +
                " requires name(\"...\") or one result";
      return {};
    }
    size_t colon = op.tokens.size();
    for (size_t i = 0; i < op.tokens.size(); ++i)
      if (op.tokens[i].text == ":") colon = i;
    p.element = joinTokens(op.tokens, colon + 1, op.tokens.size());
    auto info = elementInfo(p.element);
    if (!info) {
      problem = std::to_string(op.line) + ":" + std::to_string(op.column) + ": " + op.name +
                " has the unsupported type '" + p.element + "'";
      return {};
    }
    auto integer = [&](const std::vector<Token> &toks) -> std::optional<int64_t> {
      if (toks.size() != 1) return std::nullopt;
      char *end = nullptr;
      long long v = std::strtoll(toks[0].text.c_str(), &end, 0);
      if (!end || *end) return std::nullopt;
      return v;
    };
    if (op.code == OpCode::CheckParamChoice) {
      for (const Token &t : find("values"))
        if (t.text != "[" && t.text != "]" && t.text != ",") {
          auto v = integer({t});
          if (!v) {
            problem =
                std::to_string(t.line) + ":" + std::to_string(t.column) + ": invalid parameter value '" + t.text + "'";
            return {};
          }
          p.values.push_back(encodeNumber(*info, 0, *v, false));
        }
    } else if (op.code == OpCode::CheckParamSeed) {
      auto base = integer(find("base")), count = integer(find("count"));
      if (!base || !count || *count < 1) {
        problem = std::to_string(op.line) + ":" + std::to_string(op.column) +
                  ": check.param.seed requires base(N) count(N >= 1)";
        return {};
      }
      if (*count > kMaxRepeats) {
        problem = std::to_string(op.line) + ":" + std::to_string(op.column) +
                  ": check.param.seed count must be at most 1048576";
        return {};
      }
      for (int64_t k = 0; k < *count; ++k) p.values.push_back(uint64_t(*base + k));
    } else if (op.code == OpCode::CheckParamRange) {
      auto lo = integer(find("begin")), hi = integer(find("end"));
      auto step = integer(find("step"));
      if (!lo || !hi) {
        problem = std::to_string(op.line) + ":" + std::to_string(op.column) +
                  ": check.param.range requires begin(N) end(N) [step(N)]";
        return {};
      }
      if (step.value_or(1) < 1) {
        problem =
            std::to_string(op.line) + ":" + std::to_string(op.column) + ": check.param.range step must be at least 1";
        return {};
      }
      for (int64_t v = *lo; v < *hi && p.values.size() <= size_t(kMaxRepeats); v += step.value_or(1))
        p.values.push_back(uint64_t(v));
    }
    if (p.values.empty()) {
      problem = std::to_string(op.line) + ":" + std::to_string(op.column) + ": " + op.name + " has no values";
      return {};
    }
    params.push_back(std::move(p));
  }
  return params;
}

// The configuration a case sweeps: the keys its callees read that nothing else binds (the user,
// a tensor's extent, a capacity), each over its declared range; empty when there is none or the
// values would number more than kMaxSweep.
constexpr size_t kMaxSweep = 64;
std::vector<std::map<std::string, std::string>> configSweep(const CheckFile &file, const CheckDefinition &def,
                                                            const RunOptions &options) {
  std::set<std::string> symbols;
  std::function<void(const std::vector<CheckOp> &)> collect = [&](const std::vector<CheckOp> &ops) {
    for (const CheckOp &op : ops) {
      for (const Token &t : op.tokens)
        if (t.kind == Token::Symbol) symbols.insert(t.text.substr(1));
      collect(op.region);
    }
  };
  collect(def.body);
  std::set<std::string> keys, derived;
  for (const std::string &symbol : symbols) {
    if (auto it = file.configReads.find(symbol); it != file.configReads.end())
      keys.insert(it->second.begin(), it->second.end());
    if (auto it = file.extentRules.find(symbol); it != file.extentRules.end())
      for (const ExtentRule &rule : it->second)
        for (const ExtentDim &d : rule.dims) derived.insert(d.key);
    if (auto it = file.capacityRules.find(symbol); it != file.capacityRules.end())
      for (const CapacityRule &rule : it->second) derived.insert(rule.key);
  }
  std::vector<std::map<std::string, std::string>> combos(1);
  for (const std::string &key : keys) {
    auto range = file.configRanges.find(key);
    if (range == file.configRanges.end() || derived.count(key) || options.boundConfigs.count(key)) continue;
    auto [lo, hi] = range->second;
    if (hi < lo || uint64_t(hi - lo) >= kMaxSweep || combos.size() * size_t(hi - lo + 1) > kMaxSweep) return {};
    std::vector<std::map<std::string, std::string>> next;
    for (const auto &combo : combos)
      for (int64_t v = lo; v <= hi; ++v) {
        auto c = combo;
        c[key] = std::to_string(v);
        next.push_back(std::move(c));
      }
    combos = std::move(next);
  }
  return combos.size() == 1 && combos[0].empty() ? std::vector<std::map<std::string, std::string>>{} : combos;
}

bool selected(const CheckDefinition &def, const std::optional<std::regex> &filter) {
  return !filter || std::regex_search(def.name, *filter);
}

}  // namespace

std::vector<CaseResult> listChecks(const CheckFile &file, const RunOptions &options) {
  std::optional<std::regex> filter;
  if (!options.filter.empty()) filter = std::regex(options.filter);
  std::vector<CaseResult> out;
  for (const CheckDefinition &def : file.definitions)
    if (selected(def, filter))
      out.push_back({file.path, def.line, def.name,
                     def.code == OpCode::CheckBenchmark ? Outcome::Benchmark : Outcome::Pass, def.kind});
  return out;
}

std::vector<CaseResult> runChecks(const CheckFile &file, const RunOptions &options, const CompileFn &compile) {
  std::optional<std::regex> filter;
  if (!options.filter.empty()) filter = std::regex(options.filter);
  std::vector<const CheckDefinition *> work;
  for (const CheckDefinition &def : file.definitions)
    if (selected(def, filter)) work.push_back(&def);
  std::vector<CaseResult> results(work.size());
  if (work.empty()) return results;

  std::map<std::string, size_t> wrappers;
  std::vector<CallShape> calls = wrappedCalls(file);
  for (size_t k = 0; k < calls.size(); ++k) wrappers.emplace(wrapperKey(calls[k]), k);
  std::string source = codeUnderTest(file);
  auto load = [&](const RunTarget &target, const std::string &entry, const std::map<std::string, std::string> &config) {
    LoadedCode loaded;
    auto bytes = compile(source, file.path, target, entry, config);
    if (!bytes) {
      loaded.problem = bytes.status().message();
      loaded.skip = bytes.status().code() == StatusCode::Unimplemented;
      return loaded;
    }
    std::vector<uint8_t> hostCode = std::move(*bytes);
    if (target.path == RunTarget::Path::ArrayPlan) {
      auto artifact = format::readArtifact(hostCode);
      if (!artifact) {
        loaded.problem = "the xdna image does not load: " + artifact.status().message();
        return loaded;
      }
      loaded.artifact = std::make_shared<format::Artifact>(std::move(*artifact));
      auto entries = runtime::listEntries(*loaded.artifact);
      if (!entries)
        loaded.problem = entries.status().message();
      else
        loaded.entries = std::move(*entries);
      return loaded;
    }
    if (target.path == RunTarget::Path::HostTwin) {
      auto elf = format::readElf64Sections(hostCode);
      const format::SectionPayload *section = elf ? elf->section(".hrx.host") : nullptr;
      if (!section) {
        loaded.problem = "the " + std::string(runTargetName(target)) + " artifact carries no .hrx.host code";
        return loaded;
      }
      hostCode = section->bytes;
    }
    auto code =
        runtime::HostCode::load(std::span(reinterpret_cast<const std::byte *>(hostCode.data()), hostCode.size()),
                                file.path + " (" + runTargetName(target) + ")");
    if (!code)
      loaded.problem = code.status().message();
    else
      loaded.code = *code;
    return loaded;
  };
  CodeCache cache(load);

  std::map<std::string, const CheckDefinition *> byName;
  for (const CheckDefinition &def : file.definitions)
    if (def.code != OpCode::CheckBenchmark) byName[def.name] = &def;

  auto runOne = [&](size_t index) {
    const CheckDefinition &def = *work[index];
    CaseResult &r = results[index];
    r.file = file.path;
    r.line = def.line;
    r.name = def.name;
    const CheckDefinition *body = &def;
    bool benchmark = def.code == OpCode::CheckBenchmark;
    if (benchmark) {
      auto it = byName.find(def.benchmarkOf);
      if (it == byName.end()) {
        r.outcome = Outcome::Fail;
        r.message = file.path + ":" + std::to_string(def.line) + ":" + std::to_string(def.column) +
                    ": check.benchmark names @" + def.benchmarkOf +
                    ", which is no check.case or check.scenario of this file";
        return;
      }
      body = it->second;
    }
    std::string problem;
    std::vector<Param> params = collectParams(*body, problem);
    if (!problem.empty()) {
      r.outcome = Outcome::Fail;
      r.message = file.path + ":" + problem;
      return;
    }
    if (benchmark)
      for (const auto &[name, value] : def.fixed) {
        auto p = std::find_if(params.begin(), params.end(), [&](const Param &q) { return q.name == name; });
        if (p == params.end()) {
          r.outcome = Outcome::Fail;
          r.message = file.path + ":" + std::to_string(def.line) + ":" + std::to_string(def.column) + ": @" +
                      def.benchmarkOf + " has no parameter '" + name + "'";
          return;
        }
        p->values = {uint64_t(std::strtoll(value.c_str(), nullptr, 0))};
      }
    // Every assignment of the parameters, the first parameter varying slowest.
    std::vector<Sample> samples(1);
    size_t assignments = 1;
    for (const Param &p : params) {
      assignments = p.values.size() && assignments > kMaxSamples / p.values.size() ? kMaxSamples + 1
                                                                                   : assignments * p.values.size();
      if (assignments > kMaxSamples) {
        r.outcome = Outcome::Fail;
        r.message = file.path + ":" + std::to_string(body->line) + ":" + std::to_string(body->column) +
                    ": the parameters of @" + body->name + " have more than 65536 assignments";
        return;
      }
    }
    for (const Param &p : params) {
      std::vector<Sample> next;
      for (const Sample &s : samples)
        for (uint64_t v : p.values) {
          Sample t = s;
          t.params[p.name] = Scalar{p.element, v};
          next.push_back(std::move(t));
        }
      samples = std::move(next);
    }
    // Configuration nothing binds sweeps its declared range: the case holds for every value.
    if (std::vector<std::map<std::string, std::string>> sweep = configSweep(file, *body, options); !sweep.empty()) {
      if (samples.size() * sweep.size() > kMaxSamples) {
        r.outcome = Outcome::Fail;
        r.message = file.path + ":" + std::to_string(body->line) + ":" + std::to_string(body->column) +
                    ": the parameters and swept configuration of @" + body->name + " have more than 65536 assignments";
        return;
      }
      std::vector<Sample> next;
      for (const Sample &s : samples)
        for (const auto &config : sweep) {
          Sample t = s;
          t.config = config;
          next.push_back(std::move(t));
        }
      samples = std::move(next);
    }
    auto describe = [&](const Sample &s) {
      std::string out;
      for (const Param &p : params)
        out +=
            (out.empty() ? "" : ", ") + p.name + "=" + formatElement(*elementInfo(p.element), s.params.at(p.name).bits);
      for (const auto &[key, value] : s.config) out += (out.empty() ? "" : ", ") + key + "=" + value;
      return out;
    };
    std::vector<double> timings;
    unsigned repetitions = benchmark ? std::max(1u, options.benchmarkRepetitions) : 1;
    try {
      for (const Sample &s : samples) {
        for (unsigned rep = 0; rep < repetitions; ++rep) {
          Evaluator ev(file, *body, cache, wrappers, options);
          auto started = std::chrono::steady_clock::now();
          try {
            ev.run(s);
          } catch (Failed &f) {
            if (!describe(s).empty()) f.message += " [" + describe(s) + "]";
            throw;
          }
          timings.push_back(
              std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - started).count());
          ++r.samples;
        }
      }
      r.outcome = benchmark ? Outcome::Benchmark : Outcome::Pass;
    } catch (const Failed &f) {
      r.outcome = Outcome::Fail;
      r.message = f.message;
    } catch (const Skipped &s) {
      r.outcome = Outcome::Skip;
      r.message = s.reason;
    } catch (const Malformed &m) {
      r.outcome = Outcome::Fail;
      r.message = file.path + ":" + std::to_string(m.line) + ":" + std::to_string(m.column) + ": " + m.message;
    }
    if (benchmark) {
      if (r.outcome == Outcome::Fail || r.outcome == Outcome::Skip) {  // a benchmark never fails or skips a run
        r.outcome = Outcome::Benchmark;
        r.message = "not measured: " + r.message;
      } else if (r.outcome == Outcome::Benchmark && !timings.empty()) {
        std::sort(timings.begin(), timings.end());
        r.minUs = timings.front();
        r.medianUs = timings[timings.size() / 2];
        r.p95Us = timings[std::min(timings.size() - 1, size_t(double(timings.size()) * 0.95))];
      }
    }
  };
  unsigned jobs = std::max(1u, std::min<unsigned>(options.jobs, unsigned(work.size())));
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  auto worker = [&] {
    for (size_t k; (k = next.fetch_add(1)) < work.size();) runOne(k);
  };
  for (unsigned j = 1; j < jobs; ++j) pool.emplace_back(worker);
  worker();
  for (std::thread &t : pool) t.join();
  return results;
}

}  // namespace hrx::check
