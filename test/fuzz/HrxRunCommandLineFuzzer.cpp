// hrx-run's whole command line on the host reference device: driver/hrx-run (compiled in with
// HRX_RUN_NO_MAIN) runs in-process on a fuzzed argument vector and fuzzed input files, against
// one of the artifacts in $HRX_FUZZ_ARTIFACTS (scripts/fuzz.sh compiles them). The artifacts are
// fixed: mutating their host code would only fuzz x86 code, and XdnaImageFuzzer and
// Elf64SectionFuzzer cover the artifact readers.
//
// Input layout: byte 0 picks the artifact; byte 1 the number of input files (0..3); each file is
// a little-endian u16 length and its bytes (file k is written as in<k>.npy for even k, in<k>.bin
// for odd k); the rest is the argument vector, one argument per line, where "%k" names file k
// and "%a" the artifact.
#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int hrxRunMain(int argc, char **argv);

namespace {

const std::vector<std::string> &artifacts() {
  static const std::vector<std::string> list = [] {
    std::vector<std::string> out;
    const char *dir = std::getenv("HRX_FUZZ_ARTIFACTS");
    if (!dir || !*dir) return out;
    if (DIR *d = opendir(dir)) {
      while (dirent *e = readdir(d))
        if (e->d_name[0] != '.') out.push_back(std::string(dir) + "/" + e->d_name);
      closedir(d);
    }
    std::sort(out.begin(), out.end());
    return out;
  }();
  return list;
}

// A private working directory: relative output and trace paths land here.
void enterWorkDirectory() {
  static bool entered = [] {
    std::string dir = "/tmp/hrx-run-cli-fuzzer-" + std::to_string(getpid());
    std::string command = "mkdir -p " + dir;
    if (std::system(command.c_str()) != 0 || chdir(dir.c_str()) != 0) std::abort();
    return true;
  }();
  (void)entered;
}

bool writeFile(const std::string &path, const uint8_t *data, size_t size) {
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  bool ok = std::fwrite(data, 1, size, f) == size;
  return std::fclose(f) == 0 && ok;
}

// Bounds what one input may ask for, as the value fuzzer does: shapes ("1000x1000xf32") of at
// most 16 Mi elements and workloads of at most 2^20 items keep each run short and small.
bool withinBudget(const std::string &arg) {
  uint64_t product = 1;
  for (size_t i = 0; i < arg.size();) {
    if (arg[i] < '0' || arg[i] > '9') {
      if (arg[i] == '=' || arg[i] == ' ' || arg[i] == ',') product = 1;
      ++i;
      continue;
    }
    size_t end = i;
    while (end < arg.size() && arg[end] >= '0' && arg[end] <= '9') ++end;
    if (end - i > 9) return false;
    uint64_t value = std::strtoull(arg.substr(i, end - i).c_str(), nullptr, 10);
    product *= std::max<uint64_t>(value, 1);
    if (product > (uint64_t(1) << 24)) return false;
    i = end;
  }
  return true;
}

bool allowed(const std::string &arg) {
  // The fuzzer fixes the device and never waits for a timeout (hrx-run _Exits on one).
  for (const char *flag : {"--device", "--timeout", "--repeat", "--image"})
    if (arg.starts_with(flag)) return false;
  return arg.find('/') == std::string::npos && arg.find("..") == std::string::npos && withinBudget(arg);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::vector<std::string> &list = artifacts();
  if (list.empty() || size < 2) return 0;
  enterWorkDirectory();
  std::string artifact = list[data[0] % list.size()];
  size_t files = data[1] % 4, at = 2;
  std::vector<std::string> names;
  for (size_t k = 0; k < files; ++k) {
    if (at + 2 > size) return 0;
    size_t length = data[at] | size_t(data[at + 1]) << 8;
    at += 2;
    if (at + length > size) return 0;
    std::string name = "in" + std::to_string(k) + (k % 2 ? ".bin" : ".npy");
    if (!writeFile(name, data + at, length)) return 0;
    names.push_back(name);
    at += length;
  }
  std::vector<std::string> args = {"hrx-run", "--device=host", artifact};
  std::string text(reinterpret_cast<const char *>(data + at), size - at);
  for (size_t begin = 0; begin <= text.size() && args.size() < 32;) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    std::string arg = text.substr(begin, end - begin);
    begin = end + 1;
    if (arg.empty() || arg.find('\0') != std::string::npos || !allowed(arg)) continue;
    for (size_t p; (p = arg.find("%a")) != std::string::npos;) arg.replace(p, 2, artifact);
    for (size_t k = 0; k < 4; ++k)
      for (size_t p; (p = arg.find("%" + std::to_string(k))) != std::string::npos;)
        arg.replace(p, 2, k < names.size() ? names[k] : "missing" + std::to_string(k));
    args.push_back(arg);
  }
  std::vector<char *> argv;
  for (std::string &a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  (void)hrxRunMain(static_cast<int>(args.size()), argv.data());
  return 0;
}
