#include "JsonFields.h"

#include <algorithm>

namespace hrx::format::detail {

void fail(std::string message) { throw FormatError{std::move(message)}; }

void failAt(const std::string &path, std::string_view message) {
  fail((path.empty() ? std::string("(top level)") : path) + ": " + std::string(message));
}

// Whether a value (or key) of `text` sits inside more than `maxDepth` containers, scanning the
// bytes outside strings. Exact for valid JSON.
static bool nestsDeeper(std::string_view text, size_t maxDepth) {
  size_t depth = 0;  // containers open at the current byte
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\') ++i;
      else if (c == '"') inString = false;
      continue;
    }
    if (c == ']' || c == '}') {
      depth -= depth > 0;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ':') continue;
    if (depth > maxDepth) return true;
    if (c == '"') inString = true;
    else if (c == '[' || c == '{') ++depth;
  }
  return false;
}

Json parseJson(std::string_view text, std::string_view what) {
  // Copying and printing JSON recurse: bound the nesting so hostile input cannot exhaust the
  // stack. The parser's callback mode enforces the bound but is slow, so it runs only when a
  // scan of the bytes finds too deep a nesting (and then reports what it meets first: the
  // nesting or a syntax error).
  constexpr size_t kMaxDepth = 64;
  try {
    if (!nestsDeeper(text, kMaxDepth)) return Json::parse(text.begin(), text.end());
    auto limitDepth = [&](int depth, Json::parse_event_t, Json &) {
      if (size_t(depth) > kMaxDepth) fail(std::string(what) + " nests deeper than " + std::to_string(kMaxDepth) + " levels");
      return true;
    };
    return Json::parse(text.begin(), text.end(), limitDepth);
  } catch (const nlohmann::json::parse_error &error) {
    fail(std::string(what) + " is not valid JSON (byte " + std::to_string(error.byte) + ")");
  }
}

static std::string_view typeName(const Json &value) { return value.type_name(); }

JsonObject::JsonObject(const Json &value, std::string path) : value_(value), path_(std::move(path)) {
  if (!value_.is_object())
    failAt(path_, "expected an object, found " + std::string(typeName(value_)));
}

std::string JsonObject::pathOf(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

const Json *JsonObject::optional(std::string_view key) {
  auto it = value_.find(key);
  if (it == value_.end()) return nullptr;
  seen_.push_back(it.key());
  return &*it;
}

const Json &JsonObject::required(std::string_view key) {
  if (const Json *value = optional(key)) return *value;
  failAt(pathOf(key), "required field is missing");
}

void JsonObject::finish() const {
  for (auto it = value_.begin(); it != value_.end(); ++it)
    if (std::find(seen_.begin(), seen_.end(), std::string_view(it.key())) == seen_.end())
      failAt(pathOf(it.key()), "unknown field");
}

// The well-typed case returns before the error path is spelled out.
uint64_t JsonObject::u64(std::string_view key, uint64_t max) {
  const Json &value = required(key);
  if (value.is_number_unsigned() && value.get<uint64_t>() <= max) return value.get<uint64_t>();
  return asU64(value, pathOf(key), max);
}
std::string JsonObject::string(std::string_view key) {
  const Json &value = required(key);
  if (value.is_string()) return value.get<std::string>();
  return asString(value, pathOf(key));
}
const Json::array_t &JsonObject::array(std::string_view key) {
  const Json &value = required(key);
  if (value.is_array()) return value.get_ref<const Json::array_t &>();
  return asArray(value, pathOf(key));
}

uint64_t asU64(const Json &value, const std::string &path, uint64_t max) {
  if (!value.is_number_unsigned())
    failAt(path, "expected a non-negative integer, found " + std::string(typeName(value)) +
                     (value.is_number() ? " " + value.dump() : ""));
  uint64_t result = value.get<uint64_t>();
  if (result > max) failAt(path, "value " + std::to_string(result) + " exceeds the maximum " + std::to_string(max));
  return result;
}

std::string asString(const Json &value, const std::string &path) {
  if (!value.is_string()) failAt(path, "expected a string, found " + std::string(typeName(value)));
  return value.get<std::string>();
}

const Json::array_t &asArray(const Json &value, const std::string &path) {
  if (!value.is_array()) failAt(path, "expected an array, found " + std::string(typeName(value)));
  return value.get_ref<const Json::array_t &>();
}

}  // namespace hrx::format::detail
