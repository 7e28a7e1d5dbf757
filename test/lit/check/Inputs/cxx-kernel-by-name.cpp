// A C++ kernel with C++ linkage: Loom names it by its source name (`@shift_words`), not by its
// mangled symbol.
[[loom::kernel, loom::workgroup_size(1, 1, 1), loom::workgroup_count(1, 1, 1)]]
void shift_words(const unsigned *input, unsigned *output) {
  for (int i = 0; i < 8; ++i) output[i] = input[i + 4] << 1;
}
