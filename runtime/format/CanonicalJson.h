// A one-pass reader of JSON in its writer's own form: compact (no whitespace), fields in the
// order the reader asks for them, strings of printable ASCII without escapes, plain unsigned
// integers. It builds no document: a format reader written against JsonObject's interface (as a
// template) reads straight into its typed result. Anything else (another field order, an
// unknown or repeated field, whitespace, escapes, a number out of range, a wrong type, an
// unknown enum spelling) throws NotCanonical, and the caller reads the text again through
// JsonDocument (as it does when a check of the reader's own fails on the way), which accepts all
// JSON and reports every error: both readers agree on every text this one accepts. Internal to
// runtime/format.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace hrx::format::detail {

struct NotCanonical {};

// The per-field methods are inlined into the reader: with the key a literal there, its
// comparison folds into a few loads.
class CanonicalObject {
public:
  // The object that starts at `*cursor`; `cursor` moves past what is read.
  explicit CanonicalObject(const char *&cursor, const char *end) : p_(cursor), end_(end) { expect('{'); }

  [[gnu::always_inline]] bool has(std::string_view key) const { return atKey(key); }
  [[gnu::always_inline]] uint64_t u64(std::string_view key, uint64_t max = UINT64_MAX) {
    field(key);
    return number(max);
  }
  [[gnu::always_inline]] uint32_t u32(std::string_view key) { return uint32_t(u64(key, UINT32_MAX)); }
  std::optional<uint32_t> optionalU32(std::string_view key) {
    if (!has(key)) return std::nullopt;
    return u32(key);
  }
  std::string string(std::string_view key) {
    field(key);
    return std::string(text());
  }
  // The value at `key`, one of `names`.
  template <typename E> E enumeration(std::span<const std::pair<std::string_view, E>> names, std::string_view key) {
    field(key);
    std::string_view spelled = text();
    for (const auto &[name, value] : names)
      if (name == spelled) return value;
    throw NotCanonical{};
  }
  // A [column, row] pair of u32 at `key`.
  std::pair<uint32_t, uint32_t> columnRow(std::string_view key) {
    field(key);
    expect('[');
    uint32_t first = uint32_t(number(UINT32_MAX));
    expect(',');
    uint32_t second = uint32_t(number(UINT32_MAX));
    expect(']');
    return {first, second};
  }
  CanonicalObject member(std::string_view key) {
    field(key);
    return CanonicalObject(p_, end_);
  }
  std::optional<CanonicalObject> optionalMember(std::string_view key) {
    if (!has(key)) return std::nullopt;
    return member(key);
  }
  // Calls `row(object)` for each element of the array at `key` (objects all), then finishes it.
  template <typename F> void eachRow(std::string_view key, F &&row) {
    field(key);
    expect('[');
    if (p_ != end_ && *p_ == ']') {
      ++p_;
      return;
    }
    for (;;) {
      CanonicalObject element(p_, end_);
      row(element);
      element.finish();
      if (p_ != end_ && *p_ == ',') {
        ++p_;
        continue;
      }
      expect(']');
      return;
    }
  }
  // The text is not what the reader expects: the document reader reads it and reports why.
  [[noreturn]] void reject(std::string_view) const { throw NotCanonical{}; }
  // Every field was read: the object ends here (as JsonObject's, a second call checks nothing).
  void finish() {
    if (!finished_) expect('}');
    finished_ = true;
  }

private:
  [[gnu::always_inline]] void expect(char c) {
    if (p_ == end_ || *p_ != c) throw NotCanonical{};
    ++p_;
  }
  // The next field is `key` (after the comma that separates it from the previous one).
  [[gnu::always_inline]] bool atKey(std::string_view key) const {
    if (!first_ && (p_ == end_ || *p_ != ',')) return false;
    const char *q = p_ + (first_ ? 0 : 1);
    return size_t(end_ - q) >= key.size() + 3 && q[0] == '"' && std::memcmp(q + 1, key.data(), key.size()) == 0 &&
           q[key.size() + 1] == '"' && q[key.size() + 2] == ':';
  }
  [[gnu::always_inline]] void field(std::string_view key) {
    if (!atKey(key)) throw NotCanonical{};
    p_ += key.size() + 3 + (first_ ? 0 : 1);
    first_ = false;
  }
  // A plain unsigned integer of at most 19 digits (no leading zero) that a separator ends.
  [[gnu::always_inline]] uint64_t number(uint64_t max) {
    const char *start = p_;
    uint64_t value = 0;
    if (p_ != end_ && *p_ == '0') {
      ++p_;
    } else {
      for (; p_ != end_ && *p_ >= '0' && *p_ <= '9' && p_ - start < 19; ++p_) value = value * 10 + unsigned(*p_ - '0');
      if (p_ == start) throw NotCanonical{};
    }
    if (p_ == end_ || (*p_ != ',' && *p_ != '}' && *p_ != ']') || value > max) throw NotCanonical{};
    return value;
  }
  // A string of printable ASCII other than the quote and the backslash.
  std::string_view text() {
    expect('"');
    const char *start = p_;
    while (p_ != end_ && uint8_t(*p_) >= 0x20 && uint8_t(*p_) < 0x7F && *p_ != '"' && *p_ != '\\') ++p_;
    std::string_view contents(start, size_t(p_ - start));
    expect('"');
    return contents;
  }

  const char *&p_;
  const char *end_;
  bool first_ = true;  // no field read yet
  bool finished_ = false;
};

}  // namespace hrx::format::detail
