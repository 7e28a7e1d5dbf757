// Shared between the check library's discovery and its evaluator.
#pragma once

#include "hrx/check/Check.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hrx::check {

struct RawToken : Token {
  uint32_t offset = 0, end = 0;
  bool lineStart = false;
};

// Float8E4M3 is E4M3FN (no infinities, S.1111.111 is NaN, max 448) and Float8E5M2 IEEE-like, as
// hrxcc lowers f8E4M3/f8E5M2 (patches/loom LOOM-051), so generated values match the kernels'.
enum class ElementKind { Int, Float8E4M3, Float8E5M2, Half, BFloat, Float, Double };
struct ElementInfo {
  ElementKind kind;
  unsigned bits;
  unsigned bytes;
};
std::optional<ElementInfo> elementInfo(std::string_view element);

struct DimSpec {
  int64_t size = -1;  // -1: dynamic, named by `name`
  std::string name;
};
// A type as a check program writes it: a scalar (`i32`) or `tensor<4x[%n]xf32>`.
struct TypeSpec {
  bool tensor = false;
  std::vector<DimSpec> dims;
  std::string element;
};
std::optional<TypeSpec> parseTypeSpec(std::string_view written);
std::vector<std::string> splitTypeList(std::string_view written);
std::string joinTokens(const std::vector<Token> &toks, size_t begin, size_t end);

// A func.call in a check program and the wrapper kernel that performs it.
struct CallShape {
  std::string callee;
  std::vector<std::string> args;                   // SSA names
  std::vector<std::string> argTypes, resultTypes;  // as written
  std::vector<std::string> resultNames;            // the SSA names its results bind
};
std::optional<CallShape> callShape(const CheckOp &op);
// The impl and oracle calls of a check.compare (the impl twice without an oracle: once on the
// target, once on the host reference).
std::vector<CallShape> compareCalls(const CheckOp &op);
std::string wrapperKey(const CallShape &shape);
std::vector<CallShape> wrappedCalls(const CheckFile &file);
std::string wrapperName(size_t index);

}  // namespace hrx::check
