// Emission of AIE2P assembly into bundles with a scoreboard, shared by the selector
// (Aie2pCodegen.cpp) and the core main program (Aie2pMain.cpp); docs/aie2p.md "Codegen".
//
// An instruction goes into the earliest bundle at or after the floor (the last label, branch,
// lock, `done` or stack adjustment) where every register it reads has landed (the table's write
// cycle), no earlier instruction still reads or writes what it writes, memory order is kept (a
// load after the last store, a store after the last access) and the bundle's slots plus its own
// have a format. Otherwise it opens a new bundle, after nops where nothing is ready. Everything in
// flight lands before a label or a branch. HRX_AIE2P_NO_PACKING=1 puts one instruction per bundle.
#pragma once

#include "hrx/aie2p/Isa.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace hrx::xdna {

class BundleEmitter {
public:
  void emit(std::string_view row, const std::string &text, const std::vector<std::string> &reads,
            const std::vector<std::string> &writes) {
    const aie2p::InstrInfo *info = aie2p::findInstruction(row);
    unsigned write = 1, read = 1;
    if (info)
      for (const auto &op : info->operands) write = std::max(write, op.writeCycle), read = std::max(read, op.readCycle);
    bool branch = info && info->delaySlots;
    bool barrier = !info || branch || !packing_ || isBarrier(info->semantic);
    bool load = info && isLoad(info->semantic);
    bool store = info && isStore(info->semantic);
    uint64_t need = barrier ? bundles_.size() : floor_;
    for (const auto &r : reads) need = std::max(need, readyAt(r));
    for (const auto &w : writes) {
      need = std::max(need, readyAt(w));  // no write may overtake an earlier one
      if (auto it = lastRead_.find(w); it != lastRead_.end()) need = std::max(need, it->second);
    }
    if (load) need = std::max(need, afterStore_);
    if (store) need = std::max(need, afterAccess_);
    uint16_t bit = info ? aie2p::slotBit(info->slot) : 0;
    uint64_t at = need;
    for (; at < bundles_.size(); ++at)
      if (!(bundles_[at].slots & bit) && fits(bundles_[at].slots | bit)) break;
    while (bundles_.size() <= at) nop();
    items_[bundles_[at].item].instrs.push_back(text);
    bundles_[at].slots |= bit;
    for (const auto &w : writes) ready_[w] = at + write;
    for (const auto &r : reads) lastRead_[r] = std::max(lastRead_[r], at + read - 1);
    if (load || store) afterAccess_ = std::max(afterAccess_, at + 1);
    if (store) afterStore_ = std::max(afterStore_, at + 1);
    if (barrier) floor_ = at + 1;
    if (branch) {
      for (unsigned i = 0; i < info->delaySlots; ++i) nop();
      floor_ = bundles_.size();
    }
  }
  void nop() {
    items_.push_back({"", {}});
    bundles_.push_back({items_.size() - 1, 0});
  }
  // Control flow: everything in flight lands before a label or a branch.
  void flush() {
    uint64_t need = bundles_.size();
    for (const auto &[reg, at] : ready_) need = std::max(need, at);
    while (bundles_.size() < need) nop();
    ready_.clear();
    lastRead_.clear();
    floor_ = afterStore_ = afterAccess_ = bundles_.size();
  }
  void label(const std::string &name) {
    flush();
    items_.push_back({name, {}});
  }
  void branch(std::string_view row, const std::string &text, const std::vector<std::string> &reads) {
    flush();
    emit(row, text, reads, {});
  }
  // Lines emitted so far (labels and bundles), to mark where a region starts.
  size_t itemCount() const { return items_.size(); }
  // Puts label `name` on the last bundle (a zero-overhead loop's end), first opening a nop
  // bundle when no bundle was emitted since item `regionStart`.
  void labelLastBundle(const std::string &name, size_t regionStart) {
    flush();
    if (bundles_.empty() || bundles_.back().item < regionStart) nop();
    items_.insert(items_.begin() + long(bundles_.back().item), Item{name, {}});
    ++bundles_.back().item;
  }
  std::string text() const {
    std::string t;
    for (const Item &item : items_) {
      if (!item.label.empty()) {
        t += item.label + ":\n";
        continue;
      }
      std::string bundle;
      for (const std::string &i : item.instrs) bundle += (bundle.empty() ? "" : "; ") + i;
      t += "  " + (bundle.empty() ? std::string("nop") : bundle) + "\n";
    }
    return t;
  }

private:
  struct Item {
    std::string label;  // a label line, or (empty) a bundle of these instructions (none: nop)
    std::vector<std::string> instrs;
  };
  struct BundleAt {
    size_t item;
    uint16_t slots;
  };
  static bool isBarrier(aie2p::Semantic s) {
    using S = aie2p::Semantic;
    return s == S::Acquire || s == S::Release || s == S::Done || s == S::StackAdd;
  }
  static bool isLoad(aie2p::Semantic s) {
    using S = aie2p::Semantic;
    return s == S::Load || s == S::LoadS8 || s == S::LoadU8 || s == S::LoadS16 || s == S::LoadU16 || s == S::VectorLoad;
  }
  static bool isStore(aie2p::Semantic s) {
    using S = aie2p::Semantic;
    return s == S::Store || s == S::Store8 || s == S::Store16 || s == S::VectorStore;
  }
  static bool fits(uint16_t slots) {
    for (const aie2p::FormatInfo &f : aie2p::formats())
      if ((f.slotMask & slots) == slots) return true;
    return false;
  }
  uint64_t readyAt(const std::string &reg) const {
    auto it = ready_.find(reg);
    return it == ready_.end() ? 0 : it->second;
  }

  std::vector<Item> items_;
  std::vector<BundleAt> bundles_;
  uint64_t floor_ = 0, afterStore_ = 0, afterAccess_ = 0;
  std::map<std::string, uint64_t> ready_, lastRead_;
  bool packing_ = std::getenv("HRX_AIE2P_NO_PACKING") == nullptr;
};

}  // namespace hrx::xdna
