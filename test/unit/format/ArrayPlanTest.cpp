#include "Samples.h"
#include "hrx/format/ArrayPlanWriter.h"

#include <gtest/gtest.h>

#include <functional>

using namespace hrx::format;

namespace {

std::string validationError(const std::function<void(ArrayPlan &)> &mutate) {
  ArrayPlan plan = samples::copyPlan();
  mutate(plan);
  hrx::Status status = validateArrayPlan(plan);
  return status.isOk() ? "OK" : status.message();
}

TEST(ArrayPlan, SampleIsValid) { EXPECT_TRUE(validateArrayPlan(samples::copyPlan()).isOk()); }

TEST(ArrayPlan, JsonRoundTrip) {
  ArrayPlan plan = samples::copyPlan();
  plan.channels[0].partition = Partition{0, 1, 64};
  plan.channels[0].sender.binding->dims = {{2, 32}};
  plan.channels[0].sender.binding->runBytes = 32;
  std::string json = writeArrayPlans(std::span(&plan, 1));
  auto read = readArrayPlans(json);
  ASSERT_TRUE(read.isOk()) << read.status().message();
  ASSERT_EQ(read->size(), 1u);
  EXPECT_EQ(printArrayPlan((*read)[0]), printArrayPlan(plan));
  EXPECT_EQ(writeArrayPlans(*read), json);
}

TEST(ArrayPlan, PrintsRowsOfTheLoomShape) {
  std::string text = printArrayPlan(samples::copyPlan());
  EXPECT_NE(text.find("array @copy family=amd.xdna.npu2 columns=1 groups=1 workers=1 bindings=2 channels=2 slots=4 "
                      "locks=4 dma=4 routes=8\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  worker index=0 group=0 lane=0 entry=@copy_stage tile=(0,2) code-bytes=512 iterations=16\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  lock channel=0 tile=(0,2) id=0 role=credit initial=2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  dma channel=0 tile=(0,0) side=shim direction=memory-to-stream engine-channel=0 bd-start=0 "
                      "bd-count=1 binding=0 address=0x0 length-words=256 repeat=1\n"),
            std::string::npos)
      << text;
}

TEST(ArrayPlan, RejectsUnknownFieldsAndBadJson) {
  ArrayPlan plan = samples::copyPlan();
  std::string json = writeArrayPlans(std::span(&plan, 1));
  std::string extra = json;
  extra.replace(extra.find("\"groups\""), 8, "\"groupz\"");
  EXPECT_EQ(readArrayPlans(extra).status().message(), "array plan: plans[0].groups: required field is missing");
  std::string unknown = json;
  unknown.insert(unknown.find("\"groups\""), "\"colour\": 1, ");
  EXPECT_EQ(readArrayPlans(unknown).status().message(), "array plan: plans[0].colour: unknown field");
  EXPECT_EQ(readArrayPlans("{").status().message(), "array plan: the document is not valid JSON (byte 2)");
  std::string negative = json;
  negative.replace(negative.find("\"capacity\": 2"), 13, "\"capacity\": -2");
  EXPECT_EQ(readArrayPlans(negative).status().message(),
            "array plan: plans[0].channels[0].capacity: expected a non-negative integer, found number -2");
}

TEST(ArrayPlan, ValidatorNamesTableRowAndField) {
  EXPECT_EQ(validationError([](ArrayPlan &p) { p.columns = 9; }),
            "array plan 'copy': columns: must be in 1..8, found 9");
  EXPECT_EQ(validationError([](ArrayPlan &p) { p.channels[1].capacity = 0; }),
            "array plan 'copy': channels[1].capacity: must be in 1..63 (a credit lock counts the free slots), found 0");
  EXPECT_EQ(validationError([](ArrayPlan &p) { p.workers[0].tile = {0, 1}; }),
            "array plan 'copy': workers[0].tile: workers need a compute tile (rows 2-5), found (0,1)");
  EXPECT_EQ(validationError([](ArrayPlan &p) { p.workers[0].tile = {1, 2}; }),
            "array plan 'copy': workers[0].tile: tile (1,2) lies outside the 1-column partition");
  EXPECT_EQ(validationError([](ArrayPlan &p) { p.workers[0].ports[0].channel = 1; }),
            "array plan 'copy': workers[0].ports[0].channel: channel 1 does not name this port as its receiver");
  EXPECT_EQ(validationError([](ArrayPlan &p) { p.workers[0].iterations = 8; }),
            "array plan 'copy': channels[0].receiver: receives 8 records per invocation but 16 are sent");
  EXPECT_EQ(validationError([](ArrayPlan &p) { p.channels[0].sender.binding->recordCount = 17; }),
            "array plan 'copy': channels[0].sender.offset: pattern reaches byte 1088 of binding 0, which has 1024");
  EXPECT_EQ(validationError([](ArrayPlan &p) { p.channels[0].sender.binding->binding = 1; }),
            "array plan 'copy': channels[0].sender.binding: binding 1 is write-only but this end reads it");
  EXPECT_EQ(validationError([](ArrayPlan &p) { p.channels[0].sender.binding->binding = 7; }),
            "array plan 'copy': channels[0].sender.binding: refers to binding 7 but the plan has 2 bindings");
  EXPECT_EQ(validationError([](ArrayPlan &p) { p.slots[1].offset = 0x20; }),
            "array plan 'copy': slots[1].offset: overlaps slots[0]");
  EXPECT_EQ(validationError([](ArrayPlan &p) { p.slots.pop_back(); }),
            "array plan 'copy': channels[1].capacity: channel has 1 slots for capacity 2");
  EXPECT_EQ(validationError([](ArrayPlan &p) { p.slots[0].offset = 0xFFF0; }),
            "array plan 'copy': slots[0].offset: slot 0xfff0+64 exceeds the 65536-byte data memory of tile (0,2)");
  EXPECT_EQ(validationError([](ArrayPlan &p) { p.locks[0].initial = 1; }),
            "array plan 'copy': locks[0].initial: a credit lock starts at the capacity 2, found 1");
  EXPECT_EQ(validationError([](ArrayPlan &p) { p.locks[1].id = 16; }),
            "array plan 'copy': locks[1].id: lock 16 but a compute tile has 16");
  EXPECT_EQ(validationError([](ArrayPlan &p) { p.locks.pop_back(); }),
            "array plan 'copy': channels[1].locks: channel has no ready lock");
  EXPECT_EQ(validationError([](ArrayPlan &p) { p.dmas[1].bdStart = 16; }),
            "array plan 'copy': dma[1].bd_count: BDs 16+1 exceed the 16 buffer descriptors of tile (0,2)");
  EXPECT_EQ(validationError([](ArrayPlan &p) { p.dmas[0].shimPattern.reset(); }),
            "array plan 'copy': dma[0].shim_bd: a shim DMA needs its buffer-descriptor pattern");
  EXPECT_EQ(validationError([](ArrayPlan &p) { p.dmas[0].shimPattern->repeatCount = 257; }),
            "array plan 'copy': dma[0].shim_bd.repeat_count: must be in 1..256");
  EXPECT_EQ(validationError([](ArrayPlan &p) { p.routes[3].destination = {PortBundle::Dma, 2}; }),
            "array plan 'copy': routes[3].destination: dma[2] does not exist on tile (0,2) (2 ports)");
  EXPECT_EQ(validationError([](ArrayPlan &p) { p.routes[2].kind = RouteKind::ShimMux; }),
            "array plan 'copy': routes[2].kind: a shim-mux route needs a shim tile, found (0,1)");
  EXPECT_EQ(validationError([](ArrayPlan &p) { p.channels[0].transport = Transport::NeighborMemory; }),
            "array plan 'copy': channels[0].transport: neighbor-memory needs workers on both ends");
  EXPECT_EQ(validationError([](ArrayPlan &p) { p.bindings[1].ordinal = 0; }),
            "array plan 'copy': bindings[1].ordinal: ordinals must be strictly increasing");
}

TEST(ArrayPlan, MemTileBdParity) {
  EXPECT_EQ(
      validationError([](ArrayPlan &p) { p.dmas.push_back({0, {0, 1}, DmaDirection::StreamToMemory, 1, 0, 1, {}}); }),
      "array plan 'copy': dma[4].bd_start: memtile channel 1 may only use BDs 24-47");
  EXPECT_EQ(
      validationError([](ArrayPlan &p) { p.dmas.push_back({0, {0, 1}, DmaDirection::StreamToMemory, 1, 24, 1, {}}); }),
      "OK");
}

}  // namespace

namespace {

// The plans' text as hrxcc writes it (compact), which readArrayPlans reads in one pass, and
// the same text after a space, which it reads through the JSON document: both readers must
// agree on every text.
std::string readOutcome(const std::string &json) {
  auto read = readArrayPlans(json);
  if (!read.isOk()) return "error: " + read.status().message();
  std::string printed;
  for (const ArrayPlan &plan : *read) printed += printArrayPlan(plan);
  return printed;
}

void expectReadersAgree(const std::string &compact) {
  std::string oneByOne = readOutcome(compact), viaDocument = readOutcome(" " + compact);
  // A syntax error names its byte offset, which the leading space moves.
  if (oneByOne.starts_with("error: ") && oneByOne.find("is not valid JSON") != std::string::npos)
    EXPECT_TRUE(viaDocument.starts_with("error: ")) << oneByOne;
  else
    EXPECT_EQ(oneByOne, viaDocument);
}

}  // namespace

TEST(ArrayPlan, CompactFormReadsAsTheDocumentReaderReadsIt) {
  std::vector<ArrayPlan> plans{samples::copyPlan(), samples::splitKPlan()};
  plans[0].channels[0].partition = Partition{0, 1, 64};
  std::string compact = writeArrayPlans(plans, /*indent=*/-1);
  ASSERT_EQ(compact.find(' '), std::string::npos);
  EXPECT_EQ(readOutcome(compact), readOutcome(writeArrayPlans(plans)));
  EXPECT_EQ(writeArrayPlans(*readArrayPlans(compact), -1), compact);
  expectReadersAgree(compact);
  expectReadersAgree(compact + "\n");
  // Every byte deleted, doubled or replaced: fields out of order, repeated, unknown or missing,
  // numbers out of range, escapes, wrong types, bad syntax, invalid plans.
  for (size_t i = 0; i < compact.size(); ++i) {
    expectReadersAgree(compact.substr(0, i) + compact.substr(i + 1));
    expectReadersAgree(compact.substr(0, i + 1) + compact.substr(i));
    for (char c : {'0', '9', '"', ',', ':', '}', ']', '[', 'x', '\\', '-', '.', ' ', '\x80'}) {
      std::string mutated = compact;
      mutated[i] = c;
      expectReadersAgree(mutated);
    }
  }
  // A field repeated (the last value counts) and fields in another order.
  std::string repeated = compact;
  repeated.insert(repeated.find("\"groups\""), "\"columns\":1,");
  expectReadersAgree(repeated);
  std::string reordered = compact, head = "\"format\":\"hrx.array-plan\",\"version\":1";
  ASSERT_EQ(reordered.find(head), 1u);
  reordered.replace(1, head.size(), "\"version\":1,\"format\":\"hrx.array-plan\"");
  EXPECT_EQ(readOutcome(reordered), readOutcome(compact));
}
