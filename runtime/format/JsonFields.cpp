#include "JsonFields.h"

#include <algorithm>
#include <cstring>

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
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == ']' || c == '}') {
      depth -= depth > 0;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ':') continue;
    if (depth > maxDepth) return true;
    if (c == '"')
      inString = true;
    else if (c == '[' || c == '{')
      ++depth;
  }
  return false;
}

// Copying and printing a JSON DOM recurse: bound the nesting so hostile input cannot exhaust
// the stack (the flat reader does not recurse past the bound either).
constexpr size_t kMaxDepth = 64;

// nlohmann's account of why `text` is not JSON (the byte offset it gives); the flat reader
// accepts exactly what nlohmann accepts, so its error text stays the one users see.
[[noreturn]] static void failAsNlohmann(std::string_view text, std::string_view what) {
  try {
    auto limitDepth = [&](int depth, Json::parse_event_t, Json &) {
      if (size_t(depth) > kMaxDepth)
        fail(std::string(what) + " nests deeper than " + std::to_string(kMaxDepth) + " levels");
      return true;
    };
    if (!nestsDeeper(text, kMaxDepth))
      (void)Json::parse(text.begin(), text.end());
    else
      (void)Json::parse(text.begin(), text.end(), limitDepth);
  } catch (const nlohmann::json::parse_error &error) {
    fail(std::string(what) + " is not valid JSON (byte " + std::to_string(error.byte) + ")");
  }
  fail(std::string(what) + " could not be read (the JSON reader rejected what nlohmann accepts)");
}

JsonDocument parseJson(std::string_view text, std::string_view what) {
  JsonDocument document;
  if (!document.parse(text, kMaxDepth)) failAsNlohmann(text, what);
  return document;
}

JsonObject::JsonObject(JsonValue value, std::string path) : value_(value), path_(std::move(path)) { requireObject(); }

JsonObject::JsonObject(JsonValue value, const JsonObject &parent, std::string_view key, size_t index)
    : value_(value), parent_(&parent), key_(key), index_(index) {
  requireObject();
}

void JsonObject::requireObject() const {
  if (!value_.isObject()) failAt(path(), "expected an object, found " + std::string(value_.typeName()));
}

std::string JsonObject::path() const {
  if (!parent_) return path_;
  std::string path = parent_->pathOf(key_);
  if (index_ != kNoIndex) path += "[" + std::to_string(index_) + "]";
  return path;
}

std::string JsonObject::pathOf(std::string_view key) const {
  std::string path = this->path();
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

std::optional<uint32_t> JsonObject::optionalU32(std::string_view key) {
  auto value = optional(key);
  if (!value) return std::nullopt;
  if (value->isUnsigned() && value->unsignedValue() <= UINT32_MAX) return uint32_t(value->unsignedValue());
  return uint32_t(asU64(*value, pathOf(key), UINT32_MAX));
}

// Whether two keys are equal: field names are short, and a libc call costs more than comparing
// them here (two overlapping loads cover 4 to 16 bytes).
static bool sameKey(std::string_view a, std::string_view b) {
  size_t n = a.size();
  if (n != b.size()) return false;
  auto load = [](const char *p, auto word) {
    std::memcpy(&word, p, sizeof word);
    return word;
  };
  if (n >= 8 && n <= 16)
    return load(a.data(), uint64_t()) == load(b.data(), uint64_t()) &&
           load(a.data() + n - 8, uint64_t()) == load(b.data() + n - 8, uint64_t());
  if (n >= 4 && n < 8)
    return load(a.data(), uint32_t()) == load(b.data(), uint32_t()) &&
           load(a.data() + n - 4, uint32_t()) == load(b.data() + n - 4, uint32_t());
  return a == b;
}

std::optional<JsonValue> JsonObject::optional(std::string_view key) {
  auto members = value_.members();
  // Readers ask for fields mostly in the order writers emit them: start after the last one.
  for (size_t n = 0, i = cursor_; n < members.size(); ++n, i = i + 1 == members.size() ? 0 : i + 1) {
    if (!sameKey(members[i].key, key)) continue;
    cursor_ = i + 1 == members.size() ? 0 : i + 1;
    if (i < 64) {
      seenLow_ |= uint64_t(1) << i;
    } else {
      if (seenHigh_.empty()) seenHigh_.resize(members.size() - 64);
      seenHigh_[i - 64] = true;
    }
    return JsonValue(value_.document(), members[i].value);
  }
  return std::nullopt;
}

JsonValue JsonObject::required(std::string_view key) {
  if (auto value = optional(key)) return *value;
  failAt(pathOf(key), "required field is missing");
}

void JsonObject::finish() const {
  auto members = value_.members();
  for (size_t i = 0; i < members.size(); ++i) {
    bool seen = i < 64 ? (seenLow_ >> i & 1) != 0 : !seenHigh_.empty() && seenHigh_[i - 64];
    if (!seen) failAt(pathOf(members[i].key), "unknown field");
  }
}

// The well-typed case returns before the error path is spelled out.
uint64_t JsonObject::u64(std::string_view key, uint64_t max) {
  JsonValue value = required(key);
  if (value.isUnsigned() && value.unsignedValue() <= max) return value.unsignedValue();
  return asU64(value, pathOf(key), max);
}
std::string JsonObject::string(std::string_view key) {
  JsonValue value = required(key);
  if (value.isString()) return std::string(value.string());
  return asString(value, pathOf(key));
}
JsonValue JsonObject::array(std::string_view key) {
  JsonValue value = required(key);
  if (value.isArray()) return value;
  return asArray(value, pathOf(key));
}

std::pair<uint32_t, uint32_t> JsonObject::columnRow(std::string_view key) {
  JsonValue a = required(key);
  if (a.isArray() && a.size() == 2 && a[0].isUnsigned() && a[1].isUnsigned() && a[0].unsignedValue() <= UINT32_MAX &&
      a[1].unsignedValue() <= UINT32_MAX)
    return {uint32_t(a[0].unsignedValue()), uint32_t(a[1].unsignedValue())};
  std::string path = pathOf(key);
  asArray(a, path);
  if (a.size() != 2) failAt(path, "expected [column, row]");
  return {uint32_t(asU64(a[0], path + "[0]", UINT32_MAX)), uint32_t(asU64(a[1], path + "[1]", UINT32_MAX))};
}

uint64_t asU64(JsonValue value, const std::string &path, uint64_t max) {
  if (!value.isUnsigned())
    failAt(path, "expected a non-negative integer, found " + std::string(value.typeName()) +
                     (value.isNumber() ? " " + value.numberText() : ""));
  uint64_t result = value.unsignedValue();
  if (result > max) failAt(path, "value " + std::to_string(result) + " exceeds the maximum " + std::to_string(max));
  return result;
}

std::string asString(JsonValue value, const std::string &path) {
  if (!value.isString()) failAt(path, "expected a string, found " + std::string(value.typeName()));
  return std::string(value.string());
}

JsonValue asArray(JsonValue value, const std::string &path) {
  if (!value.isArray()) failAt(path, "expected an array, found " + std::string(value.typeName()));
  return value;
}

}  // namespace hrx::format::detail
