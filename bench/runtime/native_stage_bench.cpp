// Per-record cost of running a worker's native AIE2P code on the plan path: a fresh simulated
// tile and core per record (runNativeStage, what the plan executor did before) beside one
// prepared NativeStage reused for every record (what it does now). Both run the same records in
// the same process; the outputs and simulated cycles must agree. Host wall time, not hardware.
//
// usage: hrx_native_stage_bench IMAGE.xdna ENTRY RECORD_BYTES[,RECORD_BYTES...] [CALLS]
// Record 0 is filled with the i32 value 3, the others with 0.
#include "hrx/format/Xdna.h"
#include "hrx/runtime/NativeCore.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<uint8_t> readFile(const char *path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

int main(int argc, char **argv) {
  using namespace hrx;
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s IMAGE.xdna ENTRY RECORD_BYTES[,RECORD_BYTES...] [CALLS]\n", argv[0]);
    return 1;
  }
  std::vector<uint8_t> file = readFile(argv[1]);
  auto image = format::xdna::readImage(file);
  if (!image) {
    std::fprintf(stderr, "%s: %s\n", argv[1], image.status().message().c_str());
    return 1;
  }
  auto code = runtime::nativeCoreCode(*image, argv[2]);
  if (!code || code->empty()) {
    std::fprintf(stderr, "%s: entry %s has no native core code\n", argv[1], argv[2]);
    return 1;
  }
  const std::vector<uint8_t> &program = code->begin()->second;
  std::vector<uint32_t> recordBytes;
  std::stringstream list(argv[3]);
  for (std::string item; std::getline(list, item, ',');) recordBytes.push_back(uint32_t(std::stoul(item)));
  const unsigned calls = argc > 4 ? unsigned(std::stoul(argv[4])) : 256;

  auto fill = [&](std::vector<std::vector<uint8_t>> &storage, std::vector<void *> &records) {
    storage.assign(recordBytes.size(), {});
    records.clear();
    for (size_t i = 0; i < recordBytes.size(); ++i) {
      storage[i].assign(recordBytes[i], 0);
      if (i == 0)
        for (uint32_t b = 0; b + 4 <= recordBytes[i]; b += 4) {
          int32_t three = 3;
          std::memcpy(storage[i].data() + b, &three, 4);
        }
      records.push_back(storage[i].data());
    }
  };
  std::vector<std::vector<uint8_t>> freshData, preparedData;
  std::vector<void *> freshRecords, preparedRecords;

  // Rounds alternate the two ways; each way's figure is its fastest round (the machine is shared,
  // and the minimum is the least disturbed measurement).
  constexpr int kRounds = 5;
  fill(freshData, freshRecords);
  fill(preparedData, preparedRecords);
  runtime::NativeStage stage(program, recordBytes);
  double freshNs = 1e300, preparedNs = 1e300;
  uint64_t freshCycles = 0, preparedCycles = 0;
  for (int round = 0; round < kRounds; ++round) {
    auto before = runtime::nativeCoreTotals();
    auto start = std::chrono::steady_clock::now();
    for (unsigned c = 0; c < calls; ++c)
      if (Status s = runtime::runNativeStage(program, freshRecords, recordBytes, "bench"); !s) {
        std::fprintf(stderr, "%s\n", s.message().c_str());
        return 1;
      }
    freshNs =
        std::min(freshNs, std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count());
    auto middle = runtime::nativeCoreTotals();
    start = std::chrono::steady_clock::now();
    for (unsigned c = 0; c < calls; ++c)
      if (Status s = stage.run(preparedRecords, [] { return std::string("bench"); }); !s) {
        std::fprintf(stderr, "%s\n", s.message().c_str());
        return 1;
      }
    preparedNs = std::min(preparedNs,
                          std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count());
    auto after = runtime::nativeCoreTotals();
    freshCycles = middle.cycles - before.cycles, preparedCycles = after.cycles - middle.cycles;
  }

  bool same = freshData == preparedData && freshCycles == preparedCycles;
  std::printf("%s @%s, %u calls per round, fastest of %d rounds, %llu simulated cycles per call\n", argv[1], argv[2],
              calls, kRounds, static_cast<unsigned long long>(preparedCycles / calls));
  std::printf("  fresh tile and core per call (runNativeStage): %.1f us per call\n", freshNs / calls / 1000);
  std::printf("  prepared NativeStage reused:                   %.1f us per call (%.2fx)\n", preparedNs / calls / 1000,
              freshNs / preparedNs);
  std::printf("  outputs and cycles identical: %s\n", same ? "yes" : "NO");
  return same ? 0 : 2;
}
