// A read-only JSON document in flat arrays, for the format readers: one parse of the text into
// nodes (strings and numbers are views of the text; only strings with escapes are decoded into
// the document), no per-value heap objects. It accepts exactly what nlohmann::json accepts and
// gives values the same meaning (number kinds, a duplicate key's last value); on bad input it
// reports nlohmann's own error text (parseJsonDocument in JsonFields.h). Internal to
// runtime/format.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hrx::format::detail {

// The kinds nlohmann distinguishes; typeName spells them as nlohmann's type_name() does.
enum class JsonType : uint8_t { Null, Boolean, Unsigned, Integer, Float, String, Array, Object };

class JsonDocument;

struct JsonMember;

// A handle to one value of a document (which must outlive it).
class JsonValue {
public:
  JsonValue(const JsonDocument &document, uint32_t index) : document_(&document), index_(index) {}

  const JsonDocument &document() const { return *document_; }
  JsonType type() const;
  bool isNull() const { return type() == JsonType::Null; }
  bool isBoolean() const { return type() == JsonType::Boolean; }
  bool isUnsigned() const { return type() == JsonType::Unsigned; }
  bool isNumber() const {
    return type() == JsonType::Unsigned || type() == JsonType::Integer || type() == JsonType::Float;
  }
  bool isString() const { return type() == JsonType::String; }
  bool isArray() const { return type() == JsonType::Array; }
  bool isObject() const { return type() == JsonType::Object; }
  std::string_view typeName() const;

  bool boolean() const;
  uint64_t unsignedValue() const;
  std::string_view string() const;  // decoded contents of a string
  // A number as nlohmann prints it ("-1", "1.5"), for error messages.
  std::string numberText() const;
  // An array's or object's JSON text exactly as it appears in the source (empty for others).
  std::string_view source() const;

  // Arrays: element count and elements; objects: member count (duplicates merged).
  size_t size() const;
  bool empty() const { return size() == 0; }
  JsonValue operator[](size_t i) const;
  std::span<const JsonMember> members() const;
  // The member named `key` of an object (the last one, as nlohmann keeps it).
  std::optional<JsonValue> find(std::string_view key) const;

private:
  const JsonDocument *document_;
  uint32_t index_;
};

struct JsonMember {
  std::string_view key;
  uint32_t value;  // node index
};

class JsonDocument {
public:
  JsonDocument() = default;
  // Values view into the document's own storage: moving keeps it, copying would not.
  JsonDocument(JsonDocument &&) = default;
  JsonDocument &operator=(JsonDocument &&) = default;
  JsonDocument(const JsonDocument &) = delete;
  JsonDocument &operator=(const JsonDocument &) = delete;

  // Parses `text`, nesting at most `maxDepth` containers deep. Returns false (and an empty
  // document) when the text is not JSON this reader takes; the caller then asks nlohmann why.
  bool parse(std::string_view text, size_t maxDepth);

  JsonValue root() const { return JsonValue(*this, 0); }
  JsonValue value(uint32_t index) const { return JsonValue(*this, index); }

private:
  friend class JsonValue;
  friend class JsonParser;
  struct Node {
    JsonType type = JsonType::Null;
    bool boolean = false;
    uint32_t first = 0, count = 0;  // containers: the range in elements_ or members_
    uint64_t number = 0;            // Unsigned
    std::string_view text;          // String: contents; numbers: the token; containers: the source
  };
  std::vector<Node> nodes_;
  std::vector<uint32_t> elements_;
  std::vector<JsonMember> members_;
  std::vector<char> decoded_;  // strings with escapes; reserved once, so views stay valid
};

// The accessors readers call per field, inline.
inline JsonType JsonValue::type() const { return document_->nodes_[index_].type; }

inline size_t JsonValue::size() const {
  const auto &node = document_->nodes_[index_];
  return node.type == JsonType::Array || node.type == JsonType::Object ? node.count : 0;
}

inline JsonValue JsonValue::operator[](size_t i) const {
  const auto &node = document_->nodes_[index_];
  uint32_t child =
      node.type == JsonType::Object ? document_->members_[node.first + i].value : document_->elements_[node.first + i];
  return JsonValue(*document_, child);
}

inline std::span<const JsonMember> JsonValue::members() const {
  const auto &node = document_->nodes_[index_];
  if (node.type != JsonType::Object) return {};
  return std::span(document_->members_).subspan(node.first, node.count);
}

}  // namespace hrx::format::detail
