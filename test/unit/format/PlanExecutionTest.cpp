// The array-plan semantics of docs/formats/array-plan.md are complete enough to run a
// pipeline: a small sequential interpreter (credit/ready rings, binding transfers, ports with
// periods, state resets) executes the split-k sample and checks the result.
#include "Samples.h"

#include <gtest/gtest.h>

#include <deque>
#include <functional>
#include <map>

using namespace hrx::format;

namespace {

using Record = std::vector<uint8_t>;
using Stage = std::function<void(std::vector<Record *> &)>;

// Runs one invocation; returns false on deadlock (no worker or DMA can make progress).
bool run(const ArrayPlan &plan, std::vector<std::vector<uint8_t>> &bindings,
         const std::map<std::string, Stage> &stages) {
  std::vector<std::deque<Record>> rings(plan.channels.size());
  std::vector<uint64_t> moved(plan.channels.size());  // external records moved so far
  std::vector<uint32_t> iteration(plan.workers.size());
  std::vector<std::vector<Record>> held(plan.workers.size());
  for (size_t w = 0; w < plan.workers.size(); ++w)
    for (const WorkerPort &p : plan.workers[w].ports) held[w].push_back(Record(p.recordBytes));
  auto gather = [&](const BindingTransfer &t, uint64_t k, uint32_t recordBytes, bool read, Record &record) {
    uint64_t start = t.byteOffset + (k % t.recordCount) * t.recordStride;
    size_t out = 0;
    std::vector<uint32_t> index(t.dims.size());
    for (;;) {
      uint64_t at = start;
      for (size_t d = 0; d < t.dims.size(); ++d) at += index[d] * t.dims[d].strideBytes;
      for (uint32_t i = 0; i < t.runBytes; ++i, ++out)
        read ? void(record[out] = bindings[t.binding][at + i]) : void(bindings[t.binding][at + i] = record[out]);
      size_t d = 0;
      while (d < index.size() && ++index[d] == t.dims[d].size) index[d++] = 0;
      if (d == index.size()) break;
    }
    EXPECT_EQ(out, recordBytes);
  };
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t c = 0; c < plan.channels.size(); ++c) {
      const PlanChannel &ch = plan.channels[c];
      if (ch.sender.binding && rings[c].size() < ch.capacity && moved[c] < ch.sender.binding->recordsMoved()) {
        Record r(ch.recordBytes);
        gather(*ch.sender.binding, moved[c]++, ch.recordBytes, true, r);
        rings[c].push_back(std::move(r));
        progress = true;
      }
      if (ch.receiver.binding && !rings[c].empty()) {
        gather(*ch.receiver.binding, moved[c]++, ch.recordBytes, false, rings[c].front());
        rings[c].pop_front();
        progress = true;
      }
    }
    for (size_t w = 0; w < plan.workers.size(); ++w) {
      const PlanWorker &worker = plan.workers[w];
      uint32_t i = iteration[w];
      if (i == worker.iterations) continue;
      bool ready = true;
      for (const WorkerPort &p : worker.ports) {
        if (p.direction == PortDirection::Input && i % p.period == 0) ready &= !rings[*p.channel].empty();
        if (p.direction == PortDirection::Output && (i + 1) % p.period == 0)
          ready &= rings[*p.channel].size() < plan.channels[*p.channel].capacity;
      }
      if (!ready) continue;
      std::vector<Record *> records;
      for (size_t k = 0; k < worker.ports.size(); ++k) {
        const WorkerPort &p = worker.ports[k];
        if (p.direction == PortDirection::Input && i % p.period == 0) {
          held[w][k] = std::move(rings[*p.channel].front());
          rings[*p.channel].pop_front();
        }
        if (p.direction == PortDirection::State && i % p.period == 0)
          std::fill(held[w][k].begin(), held[w][k].end(), 0);
        records.push_back(&held[w][k]);
      }
      stages.at(worker.entry)(records);
      for (size_t k = 0; k < worker.ports.size(); ++k) {
        const WorkerPort &p = worker.ports[k];
        if (p.direction == PortDirection::Output && (i + 1) % p.period == 0) rings[*p.channel].push_back(held[w][k]);
      }
      ++iteration[w];
      progress = true;
    }
  }
  for (size_t w = 0; w < plan.workers.size(); ++w)
    if (iteration[w] != plan.workers[w].iterations) return false;
  return true;
}

TEST(PlanExecution, SplitKScatterStagesReduceFoldWrite) {
  const uint32_t records = 8;
  ArrayPlan plan = samples::splitKPlan(records);
  ASSERT_TRUE(validateArrayPlan(plan).isOk()) << validateArrayPlan(plan).message();
  std::vector<std::vector<uint8_t>> bindings = {std::vector<uint8_t>(2 * records * 16), std::vector<uint8_t>(16)};
  for (size_t i = 0; i < bindings[0].size(); ++i) bindings[0][i] = uint8_t(i % 7);
  std::map<std::string, Stage> stages = {{"stage",
                                          [](std::vector<Record *> &r) {
                                            for (size_t i = 0; i < 16; ++i) (*r[1])[i] = uint8_t((*r[0])[i] + 1);
                                          }},
                                         {"reduce", [](std::vector<Record *> &r) {
                                            for (size_t i = 0; i < 16; ++i) {
                                              (*r[2])[i] = uint8_t((*r[2])[i] + (*r[0])[i] + (*r[1])[i]);
                                              (*r[3])[i] = (*r[2])[i];
                                            }
                                          }}};
  ASSERT_TRUE(run(plan, bindings, stages));
  for (size_t i = 0; i < 16; ++i) {
    uint32_t expected = 0;
    for (size_t k = 0; k < 2 * records; ++k) expected += bindings[0][k * 16 + i] + 1;
    EXPECT_EQ(bindings[1][i], uint8_t(expected)) << i;
  }
}

TEST(PlanExecution, CopyWithAGatherPattern) {
  ArrayPlan plan = samples::copyPlan(4, 8);
  // Records are two 4-byte runs 16 bytes apart: record k gathers bytes [8k, 8k+4) and
  // [8k+16, 8k+20) ... within a 64-byte binding.
  plan.bindings[0].bytes = 64;
  plan.channels[0].sender.binding->runBytes = 4;
  plan.channels[0].sender.binding->dims = {{2, 16}};
  plan.channels[0].sender.binding->recordStride = 4;
  ASSERT_TRUE(validateArrayPlan(plan).isOk()) << validateArrayPlan(plan).message();
  std::vector<std::vector<uint8_t>> bindings = {std::vector<uint8_t>(64), std::vector<uint8_t>(32)};
  for (size_t i = 0; i < 64; ++i) bindings[0][i] = uint8_t(i);
  std::map<std::string, Stage> stages = {{"copy_stage", [](std::vector<Record *> &r) { *r[1] = *r[0]; }}};
  ASSERT_TRUE(run(plan, bindings, stages));
  EXPECT_EQ(bindings[1], (std::vector<uint8_t>{0, 1, 2,  3,  16, 17, 18, 19, 4,  5,  6,  7,  20, 21, 22, 23,
                                               8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31}));
}

}  // namespace
