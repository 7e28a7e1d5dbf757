// Strict JSON reading for the format library: every field is typed and range-checked, unknown
// fields are errors, and every error names its JSON path ("channels[2].capacity").
// Internal to runtime/format; errors travel as FormatError and become a Status at the API edge.
#pragma once

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

// Parses `text`; a syntax error names `what` and the byte offset.
Json parseJson(std::string_view text, std::string_view what);

class JsonObject {
public:
  JsonObject(const Json &value, std::string path);
  const Json &required(std::string_view key);
  const Json *optional(std::string_view key);
  std::string pathOf(std::string_view key) const;
  const std::string &path() const { return path_; }
  const Json &value() const { return value_; }
  // Fails on the first field that was never asked for.
  void finish() const;

  uint64_t u64(std::string_view key, uint64_t max = UINT64_MAX);
  uint32_t u32(std::string_view key) { return uint32_t(u64(key, UINT32_MAX)); }
  std::string string(std::string_view key);
  const Json::array_t &array(std::string_view key);

private:
  const Json &value_;
  std::string path_;
  std::vector<std::string_view> seen_;
};

uint64_t asU64(const Json &value, const std::string &path, uint64_t max = UINT64_MAX);
std::string asString(const Json &value, const std::string &path);
const Json::array_t &asArray(const Json &value, const std::string &path);

// Name tables for enums: {spelling, value} pairs.
template <typename E> using EnumNames = std::span<const std::pair<std::string_view, E>>;

template <typename E> std::string_view enumName(EnumNames<E> names, E value) {
  for (const auto &[name, v] : names)
    if (v == value) return name;
  return "?";
}

template <typename E> E parseEnum(EnumNames<E> names, const Json &value, const std::string &path) {
  if (value.is_string())
    for (const auto &[name, v] : names)
      if (name == value.get_ref<const std::string &>()) return v;
  std::string text = asString(value, path);
  std::string expected;
  for (const auto &[name, v] : names) {
    if (name == text) return v;
    expected += expected.empty() ? "" : ", ";
    expected += "\"" + std::string(name) + "\"";
  }
  failAt(path, "expected one of " + expected + ", found \"" + text + "\"");
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
