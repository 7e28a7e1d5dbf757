// Loads an artifact with the installed libhrx-runtime and prints its entries.
#include "hrx/format/Artifact.h"
#include "hrx/runtime/Loader.h"
#include <cstdio>
#include <fstream>
#include <iterator>

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: list_entries <artifact>\n");
    return 2;
  }
  std::ifstream file(argv[1], std::ios::binary);
  if (!file) {
    std::fprintf(stderr, "error: cannot open %s\n", argv[1]);
    return 1;
  }
  std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
  auto artifact = hrx::format::readArtifact(bytes);
  if (!artifact) {
    std::fprintf(stderr, "error: %s\n", artifact.status().message().c_str());
    return 1;
  }
  auto entries = hrx::runtime::listEntries(*artifact);
  if (!entries) {
    std::fprintf(stderr, "error: %s\n", entries.status().message().c_str());
    return 1;
  }
  for (const auto &entry : *entries)
    std::printf("entry %s (%u column(s))\n", entry.name.c_str(), entry.columns);
  return 0;
}
