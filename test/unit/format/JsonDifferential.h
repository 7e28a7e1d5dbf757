// Differential check of the format library's flat JSON reader against nlohmann::json, shared by
// JsonDocumentTest and the JsonDocumentFuzzer: both must accept the same texts (within the
// 64-level nesting bound), read the same values, and fail with nlohmann's error text.
#pragma once

#include "JsonFields.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace hrx::format::testing {

using detail::JsonType;
using detail::JsonValue;
using Reference = nlohmann::ordered_json;

// Containers around the deepest value, counted up to `limit` + 1 (the recursion stays bounded).
inline size_t referenceDepth(const Reference &value, size_t limit) {
  size_t deepest = 0;
  if (value.is_structured() && limit > 0)
    for (const auto &child : value) deepest = std::max(deepest, 1 + referenceDepth(child, limit - 1));
  else if (value.is_structured() && !value.empty())
    deepest = 1;
  return deepest;
}

// An empty string when `flat` and `reference` hold the same value, else where they differ.
inline std::string differs(JsonValue flat, const Reference &reference, const std::string &at = "$") {
  auto kind = [](const Reference &r) {
    switch (r.type()) {
    case Reference::value_t::null: return JsonType::Null;
    case Reference::value_t::boolean: return JsonType::Boolean;
    case Reference::value_t::number_unsigned: return JsonType::Unsigned;
    case Reference::value_t::number_integer: return JsonType::Integer;
    case Reference::value_t::number_float: return JsonType::Float;
    case Reference::value_t::string: return JsonType::String;
    case Reference::value_t::array: return JsonType::Array;
    default: return JsonType::Object;
    }
  };
  if (flat.type() != kind(reference))
    return at + ": type " + std::string(flat.typeName()) + " vs " + reference.type_name();
  if (flat.typeName() != std::string_view(reference.type_name())) return at + ": type name";
  switch (flat.type()) {
  case JsonType::Boolean: return flat.boolean() == reference.get<bool>() ? "" : at + ": boolean";
  case JsonType::Unsigned: return flat.unsignedValue() == reference.get<uint64_t>() ? "" : at + ": unsigned value";
  case JsonType::Integer:
  case JsonType::Float:
    return flat.numberText() == reference.dump() ? ""
                                                 : at + ": number " + flat.numberText() + " vs " + reference.dump();
  case JsonType::String: return flat.string() == reference.get_ref<const std::string &>() ? "" : at + ": string";
  case JsonType::Array: {
    if (flat.size() != reference.size()) return at + ": array size";
    for (size_t i = 0; i < flat.size(); ++i)
      if (std::string d = differs(flat[i], reference[i], at + "[" + std::to_string(i) + "]"); !d.empty()) return d;
    return "";
  }
  case JsonType::Object: {
    if (flat.size() != reference.size())
      return at + ": member count " + std::to_string(flat.size()) + " vs " + std::to_string(reference.size());
    size_t i = 0;
    for (auto it = reference.begin(); it != reference.end(); ++it, ++i) {
      const detail::JsonMember &member = flat.members()[i];
      if (member.key != it.key()) return at + ": key " + std::to_string(i);
      if (std::string d = differs(flat.document().value(member.value), it.value(), at + "." + it.key()); !d.empty())
        return d;
    }
    if (Reference::parse(flat.source()) != reference) return at + ": source text";
    return "";
  }
  case JsonType::Null: return "";
  }
  return at + ": ?";
}

// What the nlohmann-based reader before the flat one said about `text`: nothing when it read
// it, else its error (the nesting bound checked in nlohmann's parse callback, which reports
// whichever of a too-deep nesting and a syntax error comes first).
inline std::string nlohmannReaderError(std::string_view text, Reference &out) {
  struct TooDeep {};
  try {
    out = Reference::parse(text.begin(), text.end(), [](int depth, Reference::parse_event_t, Reference &) {
      if (depth > 64) throw TooDeep{};
      return true;
    });
    return "";
  } catch (const TooDeep &) {
    return "the text nests deeper than 64 levels";
  } catch (const nlohmann::json::parse_error &error) {
    return "the text is not valid JSON (byte " + std::to_string(error.byte) + ")";
  } catch (const nlohmann::json::exception &error) {  // a float overflow: guarded() reports it as is
    return error.what();
  }
}

// An empty string when the flat reader and nlohmann agree about `text`, else the disagreement.
inline std::string disagreement(std::string_view text) {
  constexpr size_t kMaxDepth = 64;
  detail::JsonDocument flat;
  bool flatAccepts = flat.parse(text, kMaxDepth);
  Reference reference;
  std::string referenceError = nlohmannReaderError(text, reference);
  if (referenceError.empty() && referenceDepth(reference, kMaxDepth) > kMaxDepth)
    return "the reference accepts too deep a nesting";
  if (flatAccepts != referenceError.empty())
    return std::string("acceptance: flat ") + (flatAccepts ? "accepts" : "rejects");
  std::string readerError;
  try {
    detail::parseJson(text, "the text");
  } catch (const detail::FormatError &error) {
    readerError = error.message;
  } catch (const nlohmann::json::exception &error) {
    readerError = error.what();
  }
  if (readerError != referenceError) return "error text: " + readerError + " vs " + referenceError;
  if (!flatAccepts) return "";
  return differs(flat.root(), reference);
}

}  // namespace hrx::format::testing
