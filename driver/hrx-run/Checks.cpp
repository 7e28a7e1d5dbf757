#include "Checks.h"

#include <cctype>

namespace hrx::run {
namespace {

constexpr ElementType kAllTypes[] = {ElementType::I8,  ElementType::I16, ElementType::I32, ElementType::I64,
                                     ElementType::U8,  ElementType::U16, ElementType::U32, ElementType::U64,
                                     ElementType::F32, ElementType::F64, ElementType::BF16};

bool isInteger(ElementType t) {
  return t != ElementType::F32 && t != ElementType::F64 && t != ElementType::BF16 && t != ElementType::F16;
}

bool compatible(ElementType given, ElementType required) {
  if (given == required) return true;
  return isInteger(given) && isInteger(required) && elementSize(given) == elementSize(required);
}

std::string typeOf(const Value &value) {
  std::string shape;
  for (uint64_t d : value.shape) shape += std::to_string(d) + "x";
  return shape + elementTypeName(*value.type);
}

}  // namespace

std::optional<ElementType> layoutElementType(const std::string &layout) {
  // Element types appear as whole words, or after the 'x' of a shape ("4xf32", "[%n]xbf16").
  for (size_t i = 0; i < layout.size();) {
    if (!std::isalnum(static_cast<unsigned char>(layout[i]))) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < layout.size() && std::isalnum(static_cast<unsigned char>(layout[end]))) ++end;
    std::string word = layout.substr(i, end - i);
    i = end;
    // "4xf32" -> "f32", "xbf16" (after "[%n]") -> "bf16".
    size_t x = word.rfind('x');
    std::string tail = x == std::string::npos ? word : word.substr(x + 1);
    for (const std::string &candidate : {word, tail})
      for (ElementType t : kAllTypes)
        if (candidate == elementTypeName(t)) return t;
  }
  return std::nullopt;
}

Status checkElementType(const Value &value, const format::BindingContract &binding, size_t ordinal,
                        const std::string &what) {
  if (!value.type) return Status::ok();
  std::optional<ElementType> required = layoutElementType(binding.layout);
  if (!required || compatible(*value.type, *required)) return Status::ok();
  return Status(StatusCode::InvalidArgument, what + " is " + typeOf(value) + ", but binding " +
                                                 std::to_string(ordinal) + " holds " + elementTypeName(*required) +
                                                 " elements (" + binding.layout + "); give it as " +
                                                 elementTypeName(*required) + " values, or as raw bytes (@file.bin)");
}

Status checkExpectedType(const Value &expected, const Value &actual, size_t ordinal) {
  if (!expected.type || !actual.type || compatible(*expected.type, *actual.type)) return Status::ok();
  return Status(StatusCode::InvalidArgument,
                "--expected_output for binding " + std::to_string(ordinal) + " is " + typeOf(expected) +
                    ", but the binding holds " + elementTypeName(*actual.type) +
                    " values; give the expected value as " + elementTypeName(*actual.type));
}

}  // namespace hrx::run
