// Queries over the Loom IR shared by link, specialize, contracts and lowering.
#pragma once

#include "hrx/bridge/Program.h"

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace hrx::bridge::ir {

// The argument types of signature `region` of a func/kernel/pipeline op (its entry block).
std::vector<const loom::Type *> signatureTypes(const loom::Operation &op, unsigned region);
std::span<loom::Value *const> signatureValues(const loom::Operation &op, unsigned region);
// The declared result types of a func.def/func.decl.
std::vector<const loom::Type *> functionResultTypes(const loom::Operation &op);
// Structural type equality (types are uniqued per module only).
bool sameType(const loom::Type *a, const loom::Type *b);

// One entry of an index list: an SSA value or a static integer.
using IndexEntry = std::variant<const loom::Value *, int64_t>;
std::vector<IndexEntry> indexList(const loom::Operation &op, std::string_view group);

// Every predicate attribute of `op` (where-clauses, config.decl facts, assume facts).
std::vector<const loom::Attribute *> predicates(const loom::Operation &op);
// Whether `predicate` holds for the bound `value`; nullopt if it names other runtime values.
std::optional<bool> evaluatePredicate(const loom::Attribute &predicate, const ConfigValue &value);
std::string predicateText(const loom::Attribute &predicate);
// A config.def value attribute as a ConfigValue (integers, booleans, floats).
bool attributeValue(const loom::Attribute *attr, ConfigValue &value);

// Size in bytes of a scalar element type (index/offset: 8).
uint64_t elementBytes(const loom::Type &type);
// The integer attribute `name` of `op` or of its {...} dictionary.
std::optional<int64_t> integerAttr(const loom::Operation &op, std::string_view name);

}  // namespace hrx::bridge::ir
