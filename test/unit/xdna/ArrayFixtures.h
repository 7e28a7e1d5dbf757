// Scaffolding shared by the xdna tests that build an image and execute its commands on the
// transaction array model (ImageTest, TransactionModelTest, Aie2pMainTest): the contract of a
// hand-built graph, the COMMAND allocation's bytes, the SHIM_ADDRESS relocations applied, and one
// dispatch's commands executed in the image's order.
#pragma once

#include "hrx/array/ArrayModel.h"
#include "hrx/bridge/Contract.h"
#include "hrx/format/Transaction.h"
#include "hrx/format/Xdna.h"
#include "hrx/xdna/PipelineGraph.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace hrx::xdna::testing {

inline bridge::KernelContract contractOf(const PipelineGraph &g) {
  bridge::KernelContract c;
  c.symbol = g.name;
  for (const GraphBinding &b : g.bindings) {
    bridge::BindingContract row;
    row.name = b.name.substr(1);
    row.used = b.used;
    row.bytes = b.bytes;
    row.alignment = 64;
    row.access = b.access == format::PlanAccess::Read ? bridge::Access::Read : bridge::Access::Write;
    row.addressSpace = "global";
    c.bindings.push_back(row);
  }
  return c;
}

// The image's first allocation (the COMMAND allocation hrxcc writes) as its loads fill it.
inline std::vector<uint8_t> commandOf(const format::xdna::Image &image) {
  std::vector<uint8_t> command(image.allocations[0].byteLength, 0);
  for (const format::xdna::Load &l : image.loads)
    std::copy(l.bytes.begin(), l.bytes.end(), command.begin() + long(l.offset));
  return command;
}

// Binding i's device address in these tests: (i + 1) << 36, as the transaction kernel places it.
inline uint64_t bindingBase(uint32_t ordinal) { return uint64_t(ordinal + 1) << 36; }

// Patches entry 0's dynamic relocations with bindingBase of each source binding.
inline Status relocate(const format::xdna::Image &image, std::vector<uint8_t> &command) {
  for (uint32_t i = 0; i < image.entries[0].dynamicRelocationCount; ++i) {
    const format::xdna::Relocation &rel = image.relocations[image.entries[0].firstDynamicRelocation + i];
    if (Status s = format::xdna::applyShimAddress(std::span<uint8_t, 8>(command.data() + rel.byteOffset, 8),
                                                  bindingBase(rel.sourceOrdinal), rel);
        !s)
      return s;
  }
  return Status::ok();
}

// Alters a decoded command (by invocation index) before the array model executes it.
using CommandEdit = std::function<void(format::txn::Transaction &, uint32_t)>;

// One dispatch: starts every core's invocation, executes the invocations the dispatch order gives
// (the establish command first, then the continuation) and finishes the invocation.
inline Status dispatchOnModel(array::ArrayModel &model, const format::xdna::Image &image,
                              std::span<const uint8_t> command, bool &established, uint32_t &next,
                              const std::string &label, const CommandEdit &edit = {}) {
  for (const auto &c : model.cores()) c->startInvocation();
  for (uint32_t i : format::xdna::dispatchOrder(image.invocations, established, next)) {
    const format::xdna::Invocation &inv = image.invocations[i];
    auto t = format::txn::decodeTransaction(command.subspan(inv.byteOffset, inv.byteLength));
    if (!t) return t.status();
    if (edit) edit(*t, i);
    if (Status s = model.execute(*t, "invocation " + std::to_string(i)); !s) return s;
    next = inv.nextInvocation;
  }
  if (Status s = model.finishInvocation(label); !s) return s;
  established = true;
  return Status::ok();
}

}  // namespace hrx::xdna::testing
