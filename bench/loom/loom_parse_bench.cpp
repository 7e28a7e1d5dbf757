// Parses and verifies a generated ~10 MB Loom module and prints throughput and peak memory.
// Usage: loom_parse_bench [megabytes=10]. A benchmark, not a test: it prints figures only.
#include "hrx/diag/TextDiagnosticPrinter.h"
#include "hrx/loom/IR.h"

#include <sys/resource.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>

namespace {

// One copy of a representative kernel/function mix; `i` keeps symbols unique.
void appendUnit(std::string &out, int i) {
  std::string n = std::to_string(i);
  out += "// unit " + n + "\n";
  out += "func.def target(@core) @tile_" + n +
         "(%in: buffer, %out: buffer, %n: index) {\n"
         "  %a, %b = buffer.assume.alignment %in, %out {minimum_alignment = 64} : buffer, buffer\n"
         "  %origin = index.constant 0 : offset\n"
         "  %src = buffer.view %a[%origin] : buffer -> view<[%n]x64xf32>\n"
         "  %dst = buffer.view %b[%origin] : buffer -> view<[%n]x64xf32>\n"
         "  %lo = index.constant 0 : index\n"
         "  %step = index.constant 1 : index\n"
         "  %init = vector.constant 0.0 : vector<16xf32>\n"
         "  %sum = scf.for %row = [%lo to %n step %step](%acc = %init : vector<16xf32>) -> (vector<16xf32>) {\n"
         "    %c16 = index.constant 16 : index\n"
         "    %x = vector.load %src[%row, %c16] : view<[%n]x64xf32> -> vector<16xf32>\n"
         "    %y = vector.mulf %x, %x : vector<16xf32>\n"
         "    %z = vector.addf %acc, %y : vector<16xf32>\n"
         "    vector.store %z, %dst[%row, %c16] : vector<16xf32>, view<[%n]x64xf32>\n"
         "    scf.yield %z : vector<16xf32>\n"
         "  }\n"
         "  %zero = scalar.constant 0.0 : f32\n"
         "  %total = vector.reduce<addf> %sum, %zero : vector<16xf32>, f32\n"
         "  %big = scalar.cmpf ogt, %total, %zero : f32\n"
         "  %pick = scf.select %big, %total, %zero : f32\n"
         "  %last = index.sub %n, %step : index\n"
         "  view.store %pick, %dst[%last, 0] : f32, view<[%n]x64xf32>\n"
         "  func.return\n"
         "}\n\n";
}

}  // namespace

int main(int argc, char **argv) {
  using namespace hrx;
  double megabytes = argc > 1 ? std::atof(argv[1]) : 10.0;
  if (megabytes <= 0) megabytes = 10.0;
  std::string text = "aie2p.target<core> @core\n\n";
  size_t target = size_t(megabytes * 1024 * 1024);
  for (int i = 0; text.size() < target; ++i) appendUnit(text, i);
  size_t bytes = text.size();

  diag::SourceManager sm;
  diag::DiagnosticEngine diags(sm);
  diag::TextDiagnosticPrinter printer(std::cerr);
  diags.addConsumer(&printer);
  uint32_t file = sm.addBuffer("generated.loom", std::move(text));

  struct rusage before;
  getrusage(RUSAGE_SELF, &before);
  auto start = std::chrono::steady_clock::now();
  loom::OwningModule module = loom::parseModule(sm, file, diags);
  auto parsed = std::chrono::steady_clock::now();
  bool ok = module && !diags.hasErrors() && loom::verifyModule(*module, diags);
  auto verified = std::chrono::steady_clock::now();
  struct rusage after;
  getrusage(RUSAGE_SELF, &after);

  double parseSec = std::chrono::duration<double>(parsed - start).count();
  double totalSec = std::chrono::duration<double>(verified - start).count();
  auto seconds = [](const timeval &t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
  double cpuSec =
      seconds(after.ru_utime) + seconds(after.ru_stime) - seconds(before.ru_utime) - seconds(before.ru_stime);
  double mb = double(bytes) / (1024.0 * 1024.0);
  double peakMb = double(after.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
  std::cout << "source:        " << mb << " MiB\n"
            << "parse:         " << parseSec << " s (" << mb / parseSec << " MiB/s)\n"
            << "parse+verify:  " << totalSec << " s (" << mb / totalSec << " MiB/s)\n"
            << "CPU time:      " << cpuSec << " s (" << mb / cpuSec
            << " MiB/s; wall time suffers on a loaded machine)\n"
            << "IR arena:      " << double(module ? module->bytesAllocated() : 0) / (1024.0 * 1024.0) << " MiB\n"
            << "peak RSS:      " << peakMb << " MiB (" << peakMb / mb << "x source; includes the source text)\n"
            << "result:        " << (ok ? "verified" : "FAILED") << "\n";
  return ok ? 0 : 1;
}
