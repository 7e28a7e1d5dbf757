// Pairwise fp32 products and sums of one record (float-products.loom's worker): the scalar
// multiply is an integer routine on AIE2P, the add goes through the vector unit.
extern "C" void products(const float *in, float *out) {
  for (int i = 0; i < 32; ++i) out[i] = in[2 * i] * in[2 * i + 1];
  for (int i = 0; i < 32; ++i) out[32 + i] = in[2 * i] + in[2 * i + 1];
}
