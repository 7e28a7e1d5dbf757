// TU → LLVM IR time of the importer on the example workers: the first import of each
// (worker, target) in the process, then the median of warm imports reusing the importer, next to
// the median wall time of a clang-22 process doing the same (-S -emit-llvm, same flags and headers).
//   cxx_import_bench [warm-iterations=20]
#include "hrx/bridge/TargetBackend.h"
#include "hrx/cxx/CxxImporter.h"
#include "hrx/diag/Diagnostic.h"
#include "hrx/diag/TextDiagnosticPrinter.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>

#include <spawn.h>
#include <sys/wait.h>

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
double importOnce(hrx::cxx::CxxImporter &importer, const CxxUnit &unit, const ImportTarget &target) {
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

// The clang-22 command line equivalent to one import (Clang's driver, then cc1, as a process).
std::vector<std::string> clangCommand(const std::string &file, const ImportTarget &target,
                                      const std::string &headerDir) {
  bool cxx = !llvm::StringRef(file).ends_with(".c");
  std::string headers = HRX_CXX_HEADERS_DIR;
  std::vector<std::string> args = {
      HRX_CLANG,   cxx ? "-std=c++26" : "-std=c23", "-nostdinc", "-ffreestanding",    "-O2",
      "-Xclang",   "-disable-llvm-passes",          "-S",        "-emit-llvm",        "-o",
      "/dev/null", "-Wno-unknown-attributes",       "-isystem",  headers + "/include"};
  if (cxx)
    args.insert(args.end(), {"-nostdinc++", "-fno-exceptions", "-fno-rtti", "-fdeclspec", "-fno-threadsafe-statics",
                             "-isystem", headers + "/include-c++"});
  args.push_back("--target=" + target.triple);
  if (!target.offloadArch.empty()) args.push_back("-nogpulib");
  for (const std::string &define : target.defines) args.push_back("-D" + define);
  args.push_back(target.cpu.empty() ? "-march=x86-64-v2" : "-mcpu=" + target.cpu);
  args.push_back("-I" + headerDir);
  args.push_back("--embed-dir=" + headerDir);
  args.push_back(std::string(HRX_CXX_WORKERS_DIR) + "/" + file);
  return args;
}

// Runs the command and returns its wall time in ms, or a negative value when it fails.
double runProcess(const std::vector<std::string> &args) {
  std::vector<char *> argv;
  for (const std::string &arg : args) argv.push_back(const_cast<char *>(arg.c_str()));
  argv.push_back(nullptr);
  auto start = std::chrono::steady_clock::now();
  pid_t pid;
  if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) return -1.0;
  int status = 0;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1.0;
  return millisecondsSince(start);
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
  // The import targets as this build's backends describe them (loom-bridge/<target>/).
  auto named = [](const char *name) {
    std::optional<ImportTarget> target = hrx::bridge::cxxImportTargetNamed(name);
    if (!target) {
      std::fprintf(stderr, "no backend describes the import target '%s'\n", name);
      std::exit(1);
    }
    return *target;
  };
  const ImportTarget gfx1151 = named("gfx1151"), gfx11Generic = named("gfx11-generic"), host = named("host"),
                     xdnaWorker = named("xdna-worker");
  const std::vector<Workload> workloads = {
      {"affine.cpp", {gfx1151, gfx11Generic, host}, {}},
      {"gemm_worker.cpp", {xdnaWorker, gfx1151}, {}},
      {"scale_worker.c", {xdnaWorker, host}, {{"coefficients.bin", coefficients}}},
  };

  // The clang-22 processes read the virtual headers from a scratch directory.
  llvm::SmallString<128> scratch;
  if (llvm::sys::fs::createUniqueDirectory("cxx-import-bench", scratch)) {
    std::fprintf(stderr, "cannot create a scratch directory\n");
    return 1;
  }
  std::string headerDir = scratch.str().str();
  for (const Workload &workload : workloads)
    for (const auto &[path, contents] : workload.headers) {
      std::FILE *out = std::fopen((headerDir + "/" + path).c_str(), "wb");
      if (!out || std::fwrite(contents.data(), 1, contents.size(), out) != contents.size()) return 1;
      std::fclose(out);
    }

  auto constructStart = std::chrono::steady_clock::now();
  hrx::cxx::CxxImporter importer;
  std::printf("importer construction: %.3f ms\n", millisecondsSince(constructStart));
  std::printf("%-16s %-14s %10s %10s %10s %12s\n", "worker", "target", "first ms", "warm ms", "warm min",
              "clang-22 ms");
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
    for (const ImportTarget &target : workload.targets) {
      double first = importOnce(importer, unit, target);
      std::vector<double> times;
      for (int i = 0; i < warm && first >= 0; ++i) times.push_back(importOnce(importer, unit, target));
      if (first < 0 || std::any_of(times.begin(), times.end(), [](double t) { return t < 0; })) {
        std::fprintf(stderr, "import of %s for %s failed\n", workload.file, target.name.c_str());
        return 1;
      }
      std::sort(times.begin(), times.end());
      std::vector<double> processes;
      for (int i = 0; i < 5; ++i) processes.push_back(runProcess(clangCommand(workload.file, target, headerDir)));
      std::sort(processes.begin(), processes.end());
      std::printf("%-16s %-14s %10.3f %10.3f %10.3f %12.3f\n", workload.file, target.name.c_str(), first,
                  times[times.size() / 2], times.front(), processes[2]);
    }
  }
  llvm::sys::fs::remove_directories(headerDir);
  return 0;
}
