// TU → LLVM IR time of the importer on the example workers: the first import of each
// (worker, target) in the process, then the median of warm imports reusing the importer.
//   cxx_import_bench [warm-iterations=20]
#include "hrx/cxx/CxxImporter.h"
#include "hrx/diag/Diagnostic.h"
#include "hrx/diag/TextDiagnosticPrinter.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

namespace {

using hrx::cxx::CxxUnit;
using hrx::cxx::ImportTarget;

struct Workload {
  const char *file;
  std::vector<ImportTarget> targets;
  std::vector<std::pair<std::string, std::string>> headers;
};

double millisecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// One import into a fresh context and engine; returns the time in ms, or a negative value on failure.
double importOnce(hrx::cxx::CxxImporter &importer, const CxxUnit &unit, ImportTarget target) {
  hrx::diag::SourceManager sm;
  hrx::diag::DiagnosticEngine engine(sm);
  hrx::diag::TextDiagnosticPrinter printer(std::cerr);
  engine.addConsumer(&printer);
  llvm::LLVMContext context;
  auto start = std::chrono::steady_clock::now();
  auto result = importer.import(unit, target, context, engine);
  double ms = millisecondsSince(start);
  return result ? ms : -1.0;
}

}  // namespace

int main(int argc, char **argv) {
  int warm = argc > 1 ? std::atoi(argv[1]) : 20;
  if (argc > 2 || warm < 1 || warm > 10000) {
    std::fprintf(stderr, "usage: cxx_import_bench [warm-iterations=20 (1..10000)]\n");
    return 2;
  }
  std::string coefficients(16, '\0');
  for (int i = 0; i < 16; ++i) coefficients[i] = static_cast<char>(i + 1);
  const std::vector<Workload> workloads = {
      {"affine.cpp", {ImportTarget::AmdgpuGfx1151, ImportTarget::AmdgpuGfx11Generic, ImportTarget::Host}, {}},
      {"gemm_worker.cpp", {ImportTarget::XdnaWorker, ImportTarget::AmdgpuGfx1151}, {}},
      {"scale_worker.c", {ImportTarget::XdnaWorker, ImportTarget::Host}, {{"coefficients.bin", coefficients}}},
  };

  auto constructStart = std::chrono::steady_clock::now();
  hrx::cxx::CxxImporter importer;
  std::printf("importer construction: %.3f ms\n", millisecondsSince(constructStart));
  std::printf("%-16s %-14s %10s %10s %10s\n", "worker", "target", "first ms", "warm ms", "warm min");
  for (const Workload &workload : workloads) {
    auto buffer = llvm::MemoryBuffer::getFile(std::string(HRX_CXX_WORKERS_DIR) + "/" + workload.file);
    if (!buffer) {
      std::fprintf(stderr, "cannot read %s\n", workload.file);
      return 1;
    }
    CxxUnit unit;
    unit.name = workload.file;
    unit.text = (*buffer)->getBuffer().str();
    unit.headers = workload.headers;
    for (ImportTarget target : workload.targets) {
      double first = importOnce(importer, unit, target);
      std::vector<double> times;
      for (int i = 0; i < warm && first >= 0; ++i) times.push_back(importOnce(importer, unit, target));
      if (first < 0 || std::any_of(times.begin(), times.end(), [](double t) { return t < 0; })) {
        std::fprintf(stderr, "import of %s for %s failed\n", workload.file, hrx::cxx::targetName(target));
        return 1;
      }
      std::sort(times.begin(), times.end());
      std::printf("%-16s %-14s %10.3f %10.3f %10.3f\n", workload.file, hrx::cxx::targetName(target), first,
                  times[times.size() / 2], times.front());
    }
  }
  return 0;
}
