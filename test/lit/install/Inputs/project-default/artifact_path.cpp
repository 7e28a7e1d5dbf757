// Prints the artifact path CMake baked in from $<TARGET_PROPERTY:copy,ARTIFACT>.
#include <cstdio>

int main() {
  std::puts(COPY_ARTIFACT);
  return 0;
}
