// The worker of pipeline.loom, with a mounted and a virtual header (depfile.test).
#include "record.h"
#include <hrx/util.h>

extern "C" void copy_record(const int *input, int *output) {
  for (int i = 0; i < RECORD_WORDS; ++i) output[i] = input[i] + zero();
}
