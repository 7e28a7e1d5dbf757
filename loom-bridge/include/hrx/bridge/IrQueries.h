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

namespace hrx::bridge::ir {

// The providers a template.apply<@family> / func.apply<key> may specialise to: every
// template.def<@family> / func.template<key> of the program, in source order.
std::vector<const loom::Operation *> providerCandidates(const Program &program, const loom::Operation &apply);

// The provider a use specialises to for a target: candidates whose target record (if any) has
// the target's family ("amdgpu", "aie2p", "host"), whose `requires [#target.subgroup.size<N>]`
// holds for `subgroupSize`, and whose `where` facts do not fail on the use's constant
// arguments; the highest priority wins, the first in source order among equals. Null if none.
const loom::Operation *selectProvider(const Program &program, const loom::Operation &apply,
                                      std::string_view targetFamily, uint64_t subgroupSize);

}  // namespace hrx::bridge::ir

namespace hrx::bridge::ir {

// buffer.alloca's memory space and alignment, in either spelling: `buffer.alloca<workgroup>
// align(16) %n` or `buffer.alloca %n {memory_space = workgroup, base_alignment = 16}`.
std::string_view allocaSpace(const loom::Operation &alloca);
int64_t allocaAlignment(const loom::Operation &alloca);

}  // namespace hrx::bridge::ir
