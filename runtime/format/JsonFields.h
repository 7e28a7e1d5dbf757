// Strict JSON reading for the format library: every field is typed and range-checked, unknown
// fields are errors, and every error names its JSON path ("channels[2].capacity").
// Internal to runtime/format; errors travel as FormatError and become a Status at the API edge.
// Readers walk a flat JsonDocument; writers build nlohmann::ordered_json (Json).
#pragma once

#include "JsonDocument.h"
#include "hrx/runtime/Status.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hrx::format::detail {

using Json = nlohmann::ordered_json;

struct FormatError {
  std::string message;
};

[[noreturn]] void fail(std::string message);
[[noreturn]] void failAt(const std::string &path, std::string_view message);

// Parses `text` (nesting at most 64 containers deep); a syntax error names `what` and the byte
// offset.
JsonDocument parseJson(std::string_view text, std::string_view what);

class JsonObject {
public:
  static constexpr size_t kNoIndex = SIZE_MAX;
  JsonObject(JsonValue value, std::string path);
  // The object at `key` of `parent` (or element `index` of the array there), which must outlive
  // it; the path is spelled only when an error needs it.
  JsonObject(JsonValue value, const JsonObject &parent, std::string_view key, size_t index = kNoIndex);
  // The object at `key` of this one.
  JsonObject member(std::string_view key) { return JsonObject(required(key), *this, key); }
  JsonValue required(std::string_view key);
  std::optional<JsonValue> optional(std::string_view key);
  std::string pathOf(std::string_view key) const;
  std::string path() const;
  JsonValue value() const { return value_; }
  // Fails on the first field that was never asked for.
  void finish() const;
  // The interface CanonicalObject (CanonicalJson.h) shares, for readers written once for both.
  bool has(std::string_view key) const { return value_.find(key).has_value(); }
  std::optional<JsonObject> optionalMember(std::string_view key) {
    if (auto value = optional(key)) return JsonObject(*value, *this, key);
    return std::nullopt;
  }
  // A [column, row] pair of u32 at `key`.
  std::pair<uint32_t, uint32_t> columnRow(std::string_view key);
  template <typename E> E enumeration(std::span<const std::pair<std::string_view, E>> names, std::string_view key);
  // Fails at this object's path.
  [[noreturn]] void reject(std::string_view message) const { failAt(path(), message); }
  // Calls `row(object)` for each element of the array at `key` (objects all), then finishes it.
  template <typename F> void eachRow(std::string_view key, F &&row) {
    JsonValue rows = array(key);
    for (size_t i = 0; i < rows.size(); ++i) {
      JsonObject element(rows[i], *this, key, i);
      row(element);
      element.finish();
    }
  }

  uint64_t u64(std::string_view key, uint64_t max = UINT64_MAX);
  uint32_t u32(std::string_view key) { return uint32_t(u64(key, UINT32_MAX)); }
  std::optional<uint32_t> optionalU32(std::string_view key);
  std::string string(std::string_view key);
  JsonValue array(std::string_view key);

private:
  void requireObject() const;

  JsonValue value_;
  std::string path_;  // when there is no parent
  const JsonObject *parent_ = nullptr;
  std::string_view key_;
  size_t index_ = kNoIndex;
  // Which members were asked for, by member index (most objects have few).
  uint64_t seenLow_ = 0;
  size_t cursor_ = 0;  // where the next lookup starts
  std::vector<bool> seenHigh_;
};

uint64_t asU64(JsonValue value, const std::string &path, uint64_t max = UINT64_MAX);
std::string asString(JsonValue value, const std::string &path);
JsonValue asArray(JsonValue value, const std::string &path);

// Name tables for enums: {spelling, value} pairs.
template <typename E> using EnumNames = std::span<const std::pair<std::string_view, E>>;

template <typename E> std::string_view enumName(EnumNames<E> names, E value) {
  for (const auto &[name, v] : names)
    if (v == value) return name;
  return "?";
}

template <typename E> E parseEnum(EnumNames<E> names, JsonValue value, const std::string &path) {
  if (value.isString())
    for (const auto &[name, v] : names)
      if (name == value.string()) return v;
  std::string text = asString(value, path);
  std::string expected;
  for (const auto &[name, v] : names) {
    if (name == text) return v;
    expected += expected.empty() ? "" : ", ";
    expected += "\"" + std::string(name) + "\"";
  }
  failAt(path, "expected one of " + expected + ", found \"" + text + "\"");
}

// Field `key` of `object` (its value `value`) as one of `names`; the path is spelled on errors only.
template <typename E> E enumField(EnumNames<E> names, JsonObject &object, std::string_view key, JsonValue value) {
  if (value.isString())
    for (const auto &[name, v] : names)
      if (name == value.string()) return v;
  return parseEnum<E>(names, value, object.pathOf(key));
}

template <typename E>
E JsonObject::enumeration(std::span<const std::pair<std::string_view, E>> names, std::string_view key) {
  return enumField<E>(names, *this, key, required(key));
}

// Runs `body`, turning a FormatError (or a JSON library exception) into InvalidArgument with
// `prefix` in front.
template <typename F> auto guarded(std::string_view prefix, F &&body) -> decltype(body()) {
  try {
    return body();
  } catch (const FormatError &error) {
    return Status(StatusCode::InvalidArgument, std::string(prefix) + error.message);
  } catch (const nlohmann::json::exception &error) {
    return Status(StatusCode::InvalidArgument, std::string(prefix) + error.what());
  }
}

}  // namespace hrx::format::detail
