// Hand-built array plans for host-device tests (until hrxcc produces them).
#pragma once

#include "hrx/format/ArrayPlan.h"

namespace hrx::test {

class PlanBuilder {
public:
  explicit PlanBuilder(std::string name) { plan_.name = std::move(name); }

  uint32_t binding(uint32_t ordinal, format::PlanAccess access, uint64_t bytes) {
    plan_.bindings.push_back({ordinal, access, bytes});
    return static_cast<uint32_t>(plan_.bindings.size() - 1);
  }
  uint32_t worker(std::string entry, uint32_t iterations, uint32_t row) {
    format::PlanWorker w;
    w.entry = std::move(entry);
    w.iterations = iterations;
    w.tile = {0, row};
    plan_.workers.push_back(std::move(w));
    return static_cast<uint32_t>(plan_.workers.size() - 1);
  }
  // A contiguous transfer of `count` records, `repeat` times.
  static format::BindingTransfer contiguous(uint32_t binding, uint32_t recordBytes, uint32_t count, uint32_t repeat = 1,
                                            uint64_t offset = 0) {
    format::BindingTransfer t;
    t.binding = binding;
    t.byteOffset = offset;
    t.runBytes = recordBytes;
    t.recordStride = recordBytes;
    t.recordCount = count;
    t.repeatCount = repeat;
    return t;
  }
  uint32_t channel(uint32_t recordBytes, uint32_t capacity, format::ChannelEnd sender, format::ChannelEnd receiver) {
    format::PlanChannel c;
    c.transport = sender.worker && receiver.worker ? format::Transport::NeighborMemory : format::Transport::ExternalDma;
    c.recordBytes = recordBytes;
    c.capacity = capacity;
    c.sender = std::move(sender);
    c.receiver = std::move(receiver);
    plan_.channels.push_back(std::move(c));
    uint32_t id = static_cast<uint32_t>(plan_.channels.size() - 1);
    plan_.locks.push_back({id, {0, 2}, 2 * id, format::LockRole::Credit, capacity});
    plan_.locks.push_back({id, {0, 2}, 2 * id + 1, format::LockRole::Ready, 0});
    return id;
  }
  static format::ChannelEnd fromBinding(format::BindingTransfer t) { return {std::move(t), std::nullopt}; }
  static format::ChannelEnd port(uint32_t worker, uint32_t port) {
    return {std::nullopt, format::WorkerEndpoint{worker, port}};
  }
  void addPort(uint32_t worker, format::PortDirection direction, std::optional<uint32_t> channel, uint32_t recordBytes,
               uint32_t period = 1) {
    plan_.workers[worker].ports.push_back({direction, channel, recordBytes, period});
  }
  format::ArrayPlan &plan() { return plan_; }

private:
  format::ArrayPlan plan_;
};

}  // namespace hrx::test
