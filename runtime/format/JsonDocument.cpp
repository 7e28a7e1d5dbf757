#include "JsonDocument.h"

#include "hrx/support/Utf8.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstring>
#include <unordered_map>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace hrx::format::detail {

namespace {

// Bytes a string holds as they are (no quote, backslash, control byte or UTF-8 lead), and JSON
// whitespace: one table lookup per byte.
constexpr uint8_t kPlain = 1, kSpace = 2;
constexpr std::array<uint8_t, 256> kClasses = [] {
  std::array<uint8_t, 256> classes{};
  for (int c = 0x20; c < 0x80; ++c) classes[c] = kPlain;
  classes['"'] = classes['\\'] = 0;
  classes[' '] = kPlain | kSpace;
  classes['\n'] = classes['\r'] = classes['\t'] = kSpace;
  return classes;
}();

// The bytes of `word` (little-endian) that may end the plain run of a string, as their high
// bits (SWAR: a byte below 0x20 or above 0x7F, a quote or a backslash). Borrows can mark bytes
// above the first such byte too, never below it: the lowest bit set is exact.
inline uint64_t plainRunEnds(uint64_t word) {
  constexpr uint64_t ones = 0x0101010101010101, highs = 0x8080808080808080;
  auto zeroByte = [&](uint64_t v) { return (v - ones) & ~v & highs; };
  uint64_t control = (word - ones * 0x20) & ~word & highs;
  return zeroByte(word ^ (ones * '"')) | zeroByte(word ^ (ones * '\\')) | control | (word & highs);
}

}  // namespace

// Recursive descent over RFC 8259 with nlohmann's extensions and limits (a leading UTF-8 BOM
// is skipped; a NUL byte after the value ends the input; strings must be valid UTF-8; a lone
// surrogate escape is an error). Any rejection
// throws Reject; the document is then left empty.
class JsonParser {
public:
  JsonParser(JsonDocument &document, std::string_view text, size_t maxDepth)
      : document_(document), begin_(text.data()), p_(text.data()), end_(text.data() + text.size()),
        maxDepth_(maxDepth) {}

  void run() {
    // Rough shares of a pretty-printed document (about 16 bytes a value), so that the arrays
    // rarely grow while parsing.
    // Capped: a large text grows the arrays as it goes.
    // Compact documents (the writers' plans) hold about a value per 11 bytes and a member per 15.
    size_t bytes = std::min<size_t>(size_t(end_ - begin_), size_t(1) << 20);
    document_.nodes_.reserve(std::max<size_t>(16, bytes / 8));
    document_.members_.reserve(std::max<size_t>(16, bytes / 12));
    document_.elements_.reserve(std::max<size_t>(16, bytes / 32));
    elementStack_.reserve(64);
    memberStack_.reserve(64);
    if (end_ - p_ >= 1 && uint8_t(*p_) == 0xEF) {
      if (end_ - p_ < 3 || uint8_t(p_[1]) != 0xBB || uint8_t(p_[2]) != 0xBF) throw Reject{};
      p_ += 3;
    }
    skipSpace();
    value(0);
    skipSpace();
    // nlohmann's lexer reads a NUL byte as the end of the input.
    if (p_ != end_ && *p_ != '\0') throw Reject{};
  }

  struct Reject {};

private:
  using Node = JsonDocument::Node;

  void skipSpace() {
    while (p_ != end_ && (kClasses[uint8_t(*p_)] & kSpace)) ++p_;
  }

  uint32_t addNode(JsonType type) {
    auto &nodes = document_.nodes_;
    uint32_t index = uint32_t(nodes.size());
    nodes.emplace_back().type = type;
    return index;
  }

  void literal(std::string_view word) {
    if (size_t(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word) throw Reject{};
    p_ += word.size();
  }

  // `depth` counts the containers around this value.
  uint32_t value(size_t depth) {
    if (depth > maxDepth_ || p_ == end_) throw Reject{};
    switch (*p_) {
    case '{': return object(depth);
    case '[': return array(depth);
    case '"': {
      uint32_t index = addNode(JsonType::String);
      std::string_view text = string();
      document_.nodes_[index].text = text;
      return index;
    }
    case 't': literal("true"); return boolean(true);
    case 'f': literal("false"); return boolean(false);
    case 'n': literal("null"); return addNode(JsonType::Null);
    default: return number();
    }
  }

  uint32_t boolean(bool v) {
    uint32_t index = addNode(JsonType::Boolean);
    document_.nodes_[index].boolean = v;
    return index;
  }

  uint32_t number() {
    const char *start = p_;
    // The common case, a plain unsigned integer of at most 19 digits: no sign, fraction or
    // exponent follows.
    if (p_ != end_ && *p_ >= '0' && *p_ <= '9') {
      uint64_t magnitude = 0;
      const char *q = p_;
      if (*q == '0')
        ++q;
      else
        for (; q != end_ && *q >= '0' && *q <= '9' && q - p_ < 19; ++q) magnitude = magnitude * 10 + unsigned(*q - '0');
      if (q == end_ || (*q != '.' && *q != 'e' && *q != 'E' && !(*q >= '0' && *q <= '9'))) {
        p_ = q;
        uint32_t index = addNode(JsonType::Unsigned);
        Node &node = document_.nodes_[index];
        node.number = magnitude;
        node.text = std::string_view(start, size_t(p_ - start));
        return index;
      }
    }
    return generalNumber(start);
  }

  // Any other number (sign, fraction, exponent, leading zeros, long digit runs) at `start`.
  [[gnu::noinline]] uint32_t generalNumber(const char *start) {
    p_ = start;
    bool negative = p_ != end_ && *p_ == '-';
    if (negative) ++p_;
    auto digit = [&] { return p_ != end_ && *p_ >= '0' && *p_ <= '9'; };
    if (!digit()) throw Reject{};
    uint64_t magnitude = 0;
    bool overflow = false;
    // The power of ten of the first significant digit (for telling float overflow from
    // underflow), saturating; INT64_MIN while every digit so far is zero.
    int64_t leading = INT64_MIN;
    if (*p_ == '0') {
      ++p_;
    } else {
      int64_t digits = 0;
      const char *first = p_;
      for (; digit(); ++p_, ++digits) magnitude = magnitude * 10 + unsigned(*p_ - '0');
      if (digits > 19) {  // 19 digits always fit 64 bits; longer runs are checked digit by digit
        magnitude = 0;
        for (const char *q = first; q != p_; ++q) {
          unsigned d = unsigned(*q - '0');
          overflow |= magnitude > (UINT64_MAX - d) / 10;
          magnitude = magnitude * 10 + d;
        }
      }
      leading = digits - 1;
    }
    bool isFloat = false;
    if (p_ != end_ && *p_ == '.') {
      ++p_;
      if (!digit()) throw Reject{};
      for (int64_t position = -1; digit(); ++p_, --position)
        if (leading == INT64_MIN && *p_ != '0') leading = position;
      isFloat = true;
    }
    if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
      ++p_;
      bool negativeExponent = p_ != end_ && *p_ == '-';
      if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
      if (!digit()) throw Reject{};
      int64_t exponent = 0;
      for (; digit(); ++p_) exponent = std::min<int64_t>(exponent * 10 + (*p_ - '0'), int64_t(1) << 40);
      if (leading != INT64_MIN) leading += negativeExponent ? -exponent : exponent;
      isFloat = true;
    }
    // nlohmann keeps an integer that overflows its type as a float.
    JsonType type = isFloat || overflow ? JsonType::Float
                    : negative          ? (magnitude > uint64_t(INT64_MAX) + 1 ? JsonType::Float : JsonType::Integer)
                                        : JsonType::Unsigned;
    if (type == JsonType::Float) {
      // nlohmann refuses a float that overflows to infinity (its out_of_range.406 error); one
      // that underflows reads as zero or a denormal.
      double value;
      auto result = std::from_chars(start, p_, value);
      if (result.ec == std::errc::result_out_of_range && leading != INT64_MIN && leading >= 0) throw Reject{};
    }
    uint32_t index = addNode(type);
    Node &node = document_.nodes_[index];
    node.number = magnitude;
    node.text = std::string_view(start, size_t(p_ - start));
    return index;
  }

  static int hexDigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  uint32_t hex4() {
    if (end_ - p_ < 4) throw Reject{};
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      int d = hexDigit(p_[i]);
      if (d < 0) throw Reject{};
      v = v << 4 | uint32_t(d);
    }
    p_ += 4;
    return v;
  }

  // One UTF-8 sequence starting at p_ (a byte >= 0x80): strict RFC 3629, as nlohmann's lexer
  // accepts them (hrx/support/Utf8.h).
  void utf8Sequence() {
    uint32_t cp = 0;
    size_t length = text::decodeUtf8(std::string_view(p_, static_cast<size_t>(end_ - p_)), 0, cp);
    if (length == 0) throw Reject{};
    p_ += length;
  }

  void appendUtf8(std::vector<char> &out, uint32_t cp) {
    if (cp < 0x80) {
      out.push_back(char(cp));
    } else if (cp < 0x800) {
      out.push_back(char(0xC0 | cp >> 6));
      out.push_back(char(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out.push_back(char(0xE0 | cp >> 12));
      out.push_back(char(0x80 | (cp >> 6 & 0x3F)));
      out.push_back(char(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(char(0xF0 | cp >> 18));
      out.push_back(char(0x80 | (cp >> 12 & 0x3F)));
      out.push_back(char(0x80 | (cp >> 6 & 0x3F)));
      out.push_back(char(0x80 | (cp & 0x3F)));
    }
  }

  // A string at p_ (the opening quote): a view of the text, or of the decoded copy when it has
  // escapes.
  std::string_view string() {
    ++p_;
    const char *start = p_;
#if defined(__SSE2__)
    // 16 bytes at a time: a quote, a backslash, or (signed) below 0x20, which takes the control
    // bytes and every byte from 0x80 (UTF-8, checked below).
    while (end_ - p_ >= 16) {
      __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p_));
      __m128i stop = _mm_or_si128(
          _mm_or_si128(_mm_cmpeq_epi8(bytes, _mm_set1_epi8('"')), _mm_cmpeq_epi8(bytes, _mm_set1_epi8('\\'))),
          _mm_cmplt_epi8(bytes, _mm_set1_epi8(0x20)));
      if (int mask = _mm_movemask_epi8(stop)) {
        p_ += std::countr_zero(unsigned(mask));
        goto scanned;
      }
      p_ += 16;
    }
#endif
    while (end_ - p_ >= 8) {
      uint64_t word;
      std::memcpy(&word, p_, 8);
      if (uint64_t ends = plainRunEnds(word)) {
        p_ += std::countr_zero(ends) / 8;  // the first byte that is not plain
        break;
      }
      p_ += 8;
    }
    while (p_ != end_ && (kClasses[uint8_t(*p_)] & kPlain)) ++p_;
#if defined(__SSE2__)
  scanned:
#endif
    while (true) {
      if (p_ == end_) throw Reject{};
      uint8_t c = uint8_t(*p_);
      if (c == '"') {
        std::string_view text(start, size_t(p_ - start));
        ++p_;
        return text;
      }
      if (c == '\\') break;
      if (c < 0x20) throw Reject{};
      if (c >= 0x80)
        utf8Sequence();
      else
        ++p_;
    }
    // Escapes: decode into the document. Decoded text is never longer than its source, so one
    // reservation of the rest of the text (from the first string with an escape) keeps every
    // earlier view valid.
    std::vector<char> &out = document_.decoded_;
    if (out.capacity() == 0) out.reserve(size_t(end_ - start));
    size_t first = out.size();
    out.insert(out.end(), start, p_);
    while (true) {
      if (p_ == end_) throw Reject{};
      uint8_t c = uint8_t(*p_);
      if (c == '"') {
        ++p_;
        return std::string_view(out.data() + first, out.size() - first);
      }
      if (c < 0x20) throw Reject{};
      if (c >= 0x80) {
        const char *sequence = p_;
        utf8Sequence();
        out.insert(out.end(), sequence, p_);
        continue;
      }
      if (c != '\\') {
        out.push_back(char(c));
        ++p_;
        continue;
      }
      if (++p_ == end_) throw Reject{};
      char e = *p_++;
      switch (e) {
      case '"': out.push_back('"'); break;
      case '\\': out.push_back('\\'); break;
      case '/': out.push_back('/'); break;
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      case 'u': {
        uint32_t cp = hex4();
        if (cp >= 0xDC00 && cp <= 0xDFFF) throw Reject{};
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (end_ - p_ < 2 || p_[0] != '\\' || p_[1] != 'u') throw Reject{};
          p_ += 2;
          uint32_t low = hex4();
          if (low < 0xDC00 || low > 0xDFFF) throw Reject{};
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        appendUtf8(out, cp);
        break;
      }
      default: throw Reject{};
      }
    }
  }

  uint32_t array(size_t depth) {
    const char *start = p_++;
    uint32_t index = addNode(JsonType::Array);
    size_t base = elementStack_.size();
    skipSpace();
    if (p_ != end_ && *p_ == ']') {
      ++p_;
    } else {
      while (true) {
        skipSpace();
        elementStack_.push_back(value(depth + 1));
        skipSpace();
        if (p_ == end_) throw Reject{};
        if (*p_ == ',') {
          ++p_;
          continue;
        }
        if (*p_ != ']') throw Reject{};
        ++p_;
        break;
      }
    }
    auto &elements = document_.elements_;
    Node &node = document_.nodes_[index];
    node.first = uint32_t(elements.size());
    node.count = uint32_t(elementStack_.size() - base);
    node.text = std::string_view(start, size_t(p_ - start));
    elements.insert(elements.end(), elementStack_.begin() + ptrdiff_t(base), elementStack_.end());
    elementStack_.resize(base);
    return index;
  }

  uint32_t object(size_t depth) {
    const char *start = p_++;
    uint32_t index = addNode(JsonType::Object);
    size_t base = memberStack_.size();
    skipSpace();
    if (p_ != end_ && *p_ == '}') {
      ++p_;
    } else {
      while (true) {
        skipSpace();
        if (p_ == end_ || *p_ != '"') throw Reject{};
        std::string_view key = string();
        skipSpace();
        if (p_ == end_ || *p_ != ':') throw Reject{};
        ++p_;
        skipSpace();
        uint32_t member = value(depth + 1);
        memberStack_.push_back({key, member});
        skipSpace();
        if (p_ == end_) throw Reject{};
        if (*p_ == ',') {
          ++p_;
          continue;
        }
        if (*p_ != '}') throw Reject{};
        ++p_;
        break;
      }
    }
    mergeDuplicates(base);
    auto &members = document_.members_;
    Node &node = document_.nodes_[index];
    node.first = uint32_t(members.size());
    node.count = uint32_t(memberStack_.size() - base);
    node.text = std::string_view(start, size_t(p_ - start));
    members.insert(members.end(), memberStack_.begin() + ptrdiff_t(base), memberStack_.end());
    memberStack_.resize(base);
    return index;
  }

  // nlohmann's ordered_json keeps a repeated key once, where it first appeared, with the last
  // value given.
  void mergeDuplicates(size_t base) {
    auto first = memberStack_.begin() + ptrdiff_t(base), last = memberStack_.end();
    size_t count = size_t(last - first);
    if (count < 2) return;
    bool duplicate = false;
    if (count <= 8) {
      // Few keys: compare every pair of equal length.
      for (size_t i = 1; i < count && !duplicate; ++i)
        for (size_t j = 0; j < i; ++j)
          if (first[ptrdiff_t(i)].key.size() == first[ptrdiff_t(j)].key.size() &&
              first[ptrdiff_t(i)].key == first[ptrdiff_t(j)].key) {
            duplicate = true;
            break;
          }
    } else if (count <= 16) {
      // Length and first and last byte tell most keys apart without a comparison.
      // A 64-bit filter of the sketches seen: only a key whose bit is taken is compared.
      uint32_t sketch[16];
      uint64_t filter = 0;
      for (size_t i = 0; i < count && !duplicate; ++i) {
        std::string_view key = first[ptrdiff_t(i)].key;
        sketch[i] =
            key.empty() ? 0 : uint32_t(key.size()) << 16 | uint32_t(uint8_t(key.front())) << 8 | uint8_t(key.back());
        uint64_t bit = uint64_t(1) << ((sketch[i] * 0x9E3779B1u) >> 26);
        bool seen = (filter & bit) != 0;
        filter |= bit;
        if (!seen) continue;
        for (size_t j = 0; j < i; ++j)
          if (sketch[j] == sketch[i] && first[ptrdiff_t(j)].key == key) {
            duplicate = true;
            break;
          }
      }
    } else {
      keys_.clear();
      for (auto i = first; i != last; ++i) keys_.push_back(i->key);
      std::sort(keys_.begin(), keys_.end());
      duplicate = std::adjacent_find(keys_.begin(), keys_.end()) != keys_.end();
    }
    if (!duplicate) return;
    std::unordered_map<std::string_view, uint32_t> lastValue;
    for (auto i = first; i != last; ++i) lastValue[i->key] = i->value;
    std::vector<JsonMember> merged;
    for (auto i = first; i != last; ++i) {
      auto it = lastValue.find(i->key);
      if (it == lastValue.end()) continue;
      merged.push_back({i->key, it->second});
      lastValue.erase(it);
    }
    memberStack_.resize(base);
    memberStack_.insert(memberStack_.end(), merged.begin(), merged.end());
  }

  JsonDocument &document_;
  const char *begin_, *p_, *end_;
  size_t maxDepth_;
  std::vector<uint32_t> elementStack_;
  std::vector<JsonMember> memberStack_;
  std::vector<std::string_view> keys_;
};

bool JsonDocument::parse(std::string_view text, size_t maxDepth) {
  nodes_.clear();
  elements_.clear();
  members_.clear();
  decoded_ = {};  // no capacity: the parser reserves what the text needs
  try {
    JsonParser(*this, text, maxDepth).run();
    return true;
  } catch (const JsonParser::Reject &) {
    nodes_.clear();
    elements_.clear();
    members_.clear();
    decoded_.clear();
    return false;
  }
}

std::string_view JsonValue::typeName() const {
  switch (type()) {
  case JsonType::Null: return "null";
  case JsonType::Boolean: return "boolean";
  case JsonType::Unsigned:
  case JsonType::Integer:
  case JsonType::Float: return "number";
  case JsonType::String: return "string";
  case JsonType::Array: return "array";
  case JsonType::Object: return "object";
  }
  return "?";
}

bool JsonValue::boolean() const { return document_->nodes_[index_].boolean; }
uint64_t JsonValue::unsignedValue() const { return isUnsigned() ? document_->nodes_[index_].number : 0; }
std::string_view JsonValue::string() const { return isString() ? document_->nodes_[index_].text : std::string_view(); }
std::string_view JsonValue::source() const {
  const auto &node = document_->nodes_[index_];
  switch (node.type) {
  case JsonType::Array:
  case JsonType::Object: return node.text;
  default: return {};
  }
}

std::string JsonValue::numberText() const {
  if (!isNumber()) return {};
  std::string_view token = document_->nodes_[index_].text;
  return nlohmann::ordered_json::parse(token.begin(), token.end()).dump();
}

std::optional<JsonValue> JsonValue::find(std::string_view key) const {
  for (const JsonMember &m : members())
    if (m.key == key) return JsonValue(*document_, m.value);
  return std::nullopt;
}

}  // namespace hrx::format::detail
