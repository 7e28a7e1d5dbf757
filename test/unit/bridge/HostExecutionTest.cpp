// Execution tests: small Loom programs compiled for the host target through the Compiler API,
// loaded with dlopen and called through their HostAbi.h entry points.
#include "Bfp16Oracle.h"
#include "CompileHelpers.h"
#include "HostLibrary.h"

#include "hrx/format/HostAbi.h"

#include <cstring>

namespace hrx::bridge::test {
namespace {

using StageFn = void (*)(void *const *records);
using KernelFn = void (*)(const hrx_host_dispatch *);
using LaunchFn = void (*)(const uint64_t *, uint32_t *);

// Compiles `source` and loads it; fails the test on any error.
std::unique_ptr<HostLibrary> build(const std::string &source, std::map<std::string, std::string> config = {}) {
  Compiled c = compileLoom(source, std::move(config));
  EXPECT_TRUE(c.result.ok) << c.diagnostics;
  if (!c.result.ok) return nullptr;
  auto library = std::make_unique<HostLibrary>(c.result.bytes);
  EXPECT_TRUE(library->loaded()) << library->error();
  return library->loaded() ? std::move(library) : nullptr;
}

template <typename... Buffers>
void runStage(const HostLibrary &library, const std::string &symbol, Buffers *...buffers) {
  auto stage = library.lookup<StageFn>(HRX_HOST_STAGE_PREFIX + symbol);
  ASSERT_NE(stage, nullptr) << symbol;
  void *records[] = {static_cast<void *>(buffers)...};
  stage(records);
}

uint16_t bf16Bits(float value) { return static_cast<uint16_t>(std::bit_cast<uint32_t>(value) >> 16); }

constexpr const char *kCopy = R"(
aie2p.target<array> @array
aie2p.target<core> @core
config.decl @copy.packets : %value: index where [range(%value, 1, 16384)]
pipeline.def<kernel> public retain target(@array) @copy() launch(%src: buffer, %dst: buffer) {
  %packets = config.get @copy.packets : index
  %one = index.constant 1 : index
  %zero = index.constant 0 : offset
  %workers = group.create %one : index -> group
  %in = buffer.view %src[%zero] : buffer -> view<[%packets]x1024xi32>
  %out = buffer.view %dst[%zero] : buffer -> view<[%packets]x1024xi32>
  %records = pipeline.read %in on %workers : view<[%packets]x1024xi32>, group -> pipeline.flow<tile<1024xi32>>
  %copies = pipeline.stage @copy_packet on %workers(%records) : (group, pipeline.flow<tile<1024xi32>>) -> (pipeline.flow<tile<1024xi32>>)
  pipeline.write %copies to %out : pipeline.flow<tile<1024xi32>>, view<[%packets]x1024xi32>
  pipeline.return
}
func.def target(@core) @copy_packet(%input: buffer, %output: buffer) {
  %a, %b = buffer.assume.alignment %input, %output {minimum_alignment = 64} : buffer, buffer
  %zero = index.constant 0 : offset
  %in = buffer.view %a[%zero] : buffer -> view<1024xi32>
  %out = buffer.view %b[%zero] : buffer -> view<1024xi32>
  %first = index.constant 0 : index
  %step = index.constant 16 : index
  %end = index.constant 1024 : index
  scf.for %i = [%first to %end step %step] {
    %v = vector.load %in[%i] : view<1024xi32> -> vector<16xi32>
    vector.store %v, %out[%i] : vector<16xi32>, view<1024xi32>
  }
  func.return
}
)";

TEST(HostExecution, CopyStageAndContract) {
  Compiled c = compileLoom(kCopy, {{"copy.packets", "4"}});
  ASSERT_TRUE(c.result.ok) << c.diagnostics;
  auto contract = nlohmann::json::parse(c.result.contractJson);
  ASSERT_EQ(contract["bindings"].size(), 2u);
  EXPECT_EQ(contract["bindings"][0]["bytes"], 4 * 4096);
  EXPECT_EQ(contract["bindings"][0]["access"], "Read");
  EXPECT_EQ(contract["bindings"][0]["alignment"], 64);
  EXPECT_EQ(contract["bindings"][1]["bytes"], 4 * 4096);
  EXPECT_EQ(contract["bindings"][1]["access"], "Write");
  HostLibrary library(c.result.bytes);
  ASSERT_TRUE(library.loaded()) << library.error();
  alignas(64) int32_t in[1024], out[1024];
  for (int i = 0; i < 1024; ++i) in[i] = i * 7 - 3000, out[i] = 0;
  runStage(library, "copy_packet", in, out);
  EXPECT_EQ(std::memcmp(in, out, sizeof in), 0);
  // The record access table (HostAbi.h): the stage only reads its input and only writes its output.
  auto access = library.lookup<const uint8_t *>(HRX_HOST_STAGE_ACCESS_PREFIX "copy_packet");
  ASSERT_NE(access, nullptr);
  EXPECT_EQ(access[0], HRX_HOST_RECORD_READ);
  EXPECT_EQ(access[1], HRX_HOST_RECORD_WRITE);
}

constexpr const char *kAddF32 = R"(
amdgpu.target<gfx11-generic> @gpu {subgroup_size = 32}
config.decl @add.grid : %value: index where [range(%value, 1, 1073741824)]
kernel.def target(@gpu) export("add_f32") @add_f32(%count: index) {
  %one = index.constant 1 : index
  %threads = index.constant 256 : index
  %grid = config.get @add.grid : index
  kernel.launch.config workgroups(%grid, %one, %one) workgroup_size(%threads, %one, %one) : index
} launch(%count: index, %delta: f32, %data: buffer) {
  %threads = index.constant 256 : index
  %zero = index.constant 0 : offset
  %n = index.assume %count [range(%count, 1, 1073741824)] : index
  %lane = kernel.workitem.id<x> : index
  %group = kernel.workgroup.id<x> : index
  %base = index.mul %group, %threads : index
  %i = index.add %base, %lane : index
  %global = buffer.assume.memory_space<global> %data : buffer
  %view = buffer.view %global[%zero] : buffer -> view<[%n]xf32>
  %inside = index.cmp ult, %i, %n : index
  scf.if %inside {
    %old = view.load %view[%i] : view<[%n]xf32> -> f32
    %new = scalar.addf %old, %delta : f32
    view.store %new, %view[%i] : f32, view<[%n]xf32>
  }
  kernel.return
}
)";

TEST(HostExecution, ElementwiseKernelLaunchConfigAndContract) {
  Compiled c = compileLoom(kAddF32, {{"add.grid", "4"}});
  ASSERT_TRUE(c.result.ok) << c.diagnostics;
  auto contract = nlohmann::json::parse(c.result.contractJson);
  ASSERT_EQ(contract["bindings"].size(), 1u);
  EXPECT_EQ(contract["bindings"][0]["access"], "ReadWrite");
  EXPECT_EQ(contract["bindings"][0]["bytes"], 4);  // the proven lower bound: count >= 1
  HostLibrary library(c.result.bytes);
  ASSERT_TRUE(library.loaded()) << library.error();
  auto launch = library.lookup<LaunchFn>(HRX_HOST_LAUNCH_PREFIX "add_f32");
  auto kernel = library.lookup<KernelFn>(HRX_HOST_KERNEL_PREFIX "add_f32");
  ASSERT_TRUE(launch && kernel);
  uint64_t workload[] = {1000};
  uint32_t grid[6] = {};
  launch(workload, grid);
  EXPECT_EQ(std::vector<uint32_t>(grid, grid + 6), (std::vector<uint32_t>{4, 1, 1, 256, 1, 1}));
  std::vector<float> data(1024);
  for (int i = 0; i < 1024; ++i) data[i] = float(i);
  uint64_t count = 1000;
  float delta = 0.5f;
  void *args[] = {&count, &delta, data.data()};
  for (uint32_t g = 0; g < grid[0]; ++g) {
    hrx_host_dispatch d{{g, 0, 0}, {grid[3], grid[4], grid[5]}, {grid[0], grid[1], grid[2]}, 3, args};
    kernel(&d);
  }
  for (int i = 0; i < 1024; ++i) ASSERT_EQ(data[i], i < 1000 ? float(i) + 0.5f : float(i)) << i;
}

constexpr const char *kBatchedGemm = R"(
aie2p.target<array> @array
aie2p.target<core> @core
config.decl @gemm.batch : %value: index where [range(%value, 1, 16384)]
pipeline.def<kernel> public retain target(@array) @gemm() launch(%lhs: buffer, %rhs: buffer, %output: buffer) {
  %batch = config.get @gemm.batch : index
  %one = index.constant 1 : index
  %zero = index.constant 0 : offset
  %workers = group.create %one : index -> group
  %a = buffer.view %lhs[%zero] : buffer -> view<[%batch]x64xbf16>
  %b = buffer.view %rhs[%zero] : buffer -> view<[%batch]x64xbf16>
  %c = buffer.view %output[%zero] : buffer -> view<[%batch]x8x8xf32>
  %fa = pipeline.read %a on %workers : view<[%batch]x64xbf16>, group -> pipeline.flow<tile<64xbf16>>
  %fb = pipeline.read %b on %workers : view<[%batch]x64xbf16>, group -> pipeline.flow<tile<64xbf16>>
  %fc = pipeline.stage @cell on %workers(%fa, %fb) : (group, pipeline.flow<tile<64xbf16>>, pipeline.flow<tile<64xbf16>>) -> (pipeline.flow<tile<8x8xf32>>)
  pipeline.write %fc to %c : pipeline.flow<tile<8x8xf32>>, view<[%batch]x8x8xf32>
  pipeline.return
}
func.def target(@core) @cell(%lhs: buffer, %rhs: buffer, %output: buffer) {
  %l, %r, %o = buffer.assume.alignment %lhs, %rhs, %output {minimum_alignment = 64} : buffer, buffer, buffer
  %zero = index.constant 0 : offset
  %lv = buffer.view %l[%zero] : buffer -> view<64xbf16>
  %rv = buffer.view %r[%zero] : buffer -> view<64xbf16>
  %ov = buffer.view %o[%zero] : buffer -> view<8x8xf32>
  %eight = index.constant 8 : index
  %x = vector.load %lv[0] : view<64xbf16> -> vector<64xbf16>
  %y = vector.load %rv[0] : view<64xbf16> -> vector<64xbf16>
  %schema = encoding.define #encoding.operand<element_format=bfp16ebs8, payload_elements=64, payload_packing=target_fragment, payload_registers=18, rounding=flush_subnormal> : encoding<schema>
  %xe = vector.encode %x using %schema : vector<64xbf16>, encoding<schema> -> vector<72xi8>
  %ye = vector.encode %y using %schema : vector<64xbf16>, encoding<schema> -> vector<72xi8>
  %xf = vector.fragment<lhs> %xe shape [%eight, %eight] using {schema = %schema : encoding<schema>} : vector<72xi8>
  %yf = vector.fragment<rhs> %ye shape [%eight, %eight] using {schema = %schema : encoding<schema>} : vector<72xi8>
  %init = vector.constant 0.0 : vector<64xf32>
  %acc = vector.fragment<init> %init shape [%eight, %eight] : vector<64xf32>
  %product = vector.mma %xf, %yf, %acc : vector<72xi8>, vector<72xi8>, vector<64xf32>
  vector.fragment.store<result> %product, %ov[0, 0] shape [%eight, %eight] : vector<64xf32>, view<8x8xf32>
  func.return
}
)";

TEST(HostExecution, BatchedGemmStageAndContract) {
  Compiled c = compileLoom(kBatchedGemm, {{"gemm.batch", "3"}});
  ASSERT_TRUE(c.result.ok) << c.diagnostics;
  auto contract = nlohmann::json::parse(c.result.contractJson);
  ASSERT_EQ(contract["bindings"].size(), 3u);
  const int expectedBytes[] = {3 * 128, 3 * 128, 3 * 256};
  const char *expectedAccess[] = {"Read", "Read", "Write"};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(contract["bindings"][i]["bytes"], expectedBytes[i]) << i;
    EXPECT_EQ(contract["bindings"][i]["alignment"], 64) << i;
    EXPECT_EQ(contract["bindings"][i]["access"], expectedAccess[i]) << i;
  }
  HostLibrary library(c.result.bytes);
  ASSERT_TRUE(library.loaded()) << library.error();
  // The product's input pattern: ((i*(operand+3) + matrix + pass) % 7) - 3, bf16 by truncation.
  for (int matrix = 0; matrix < 3; ++matrix) {
    alignas(64) uint16_t a[64], b[64];
    alignas(64) float out[64];
    float af[64], bf[64];
    for (int i = 0; i < 64; ++i) {
      af[i] = float(((i * 3 + matrix) % 7) - 3), bf[i] = float(((i * 4 + matrix) % 7) - 3);
      a[i] = bf16Bits(af[i]), b[i] = bf16Bits(bf[i]);
    }
    runStage(library, "cell", a, b, out);
    for (int r = 0; r < 8; ++r)
      for (int col = 0; col < 8; ++col) {
        float expected = 0;
        for (int k = 0; k < 8; ++k) expected += af[r * 8 + k] * bf[k * 8 + col];
        ASSERT_EQ(out[r * 8 + col], expected) << "matrix " << matrix << " (" << r << ", " << col << ")";
      }
  }
}

// The lowered encode + MMA against the independent oracle on 10,000 random blocks per operand.
constexpr const char *kEncodeMma = R"(
func.def public @encode_mma(%lhs: buffer, %rhs: buffer, %accumulator: buffer, %payload: buffer, %output: buffer) {
  %zero = index.constant 0 : offset
  %lv = buffer.view %lhs[%zero] : buffer -> view<64xbf16>
  %rv = buffer.view %rhs[%zero] : buffer -> view<64xbf16>
  %av = buffer.view %accumulator[%zero] : buffer -> view<64xf32>
  %pv = buffer.view %payload[%zero] : buffer -> view<72xi8>
  %ov = buffer.view %output[%zero] : buffer -> view<8x8xf32>
  %eight = index.constant 8 : index
  %x = vector.load %lv[0] : view<64xbf16> -> vector<64xbf16>
  %y = vector.load %rv[0] : view<64xbf16> -> vector<64xbf16>
  %init = vector.load %av[0] : view<64xf32> -> vector<64xf32>
  %schema = encoding.define #encoding.operand<element_format=bfp16ebs8, payload_elements=64> : encoding<schema>
  %xe = vector.encode %x using %schema : vector<64xbf16>, encoding<schema> -> vector<72xi8>
  %ye = vector.encode %y using %schema : vector<64xbf16>, encoding<schema> -> vector<72xi8>
  vector.store %xe, %pv[0] : vector<72xi8>, view<72xi8>
  %xf = vector.fragment<lhs> %xe shape [%eight, %eight] using {schema = %schema : encoding<schema>} : vector<72xi8>
  %yf = vector.fragment<rhs> %ye shape [%eight, %eight] using {schema = %schema : encoding<schema>} : vector<72xi8>
  %acc = vector.fragment<init> %init shape [%eight, %eight] : vector<64xf32>
  %product = vector.mma %xf, %yf, %acc : vector<72xi8>, vector<72xi8>, vector<64xf32>
  vector.fragment.store<result> %product, %ov[0, 0] shape [%eight, %eight] : vector<64xf32>, view<8x8xf32>
  func.return
}
)";

TEST(HostExecution, LoweredBfp16EncodeAndMmaMatchOracle) {
  auto library = build(kEncodeMma);
  ASSERT_TRUE(library);
  constexpr int kMatrices = 1250;  // 10,000 blocks per operand
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> accDist(-8.0f, 8.0f);
  for (int m = 0; m < kMatrices; ++m) {
    alignas(64) uint16_t lhs[64], rhs[64];
    alignas(64) float acc[64], out[64], expected[64];
    alignas(64) uint8_t payload[72];
    for (int blk = 0; blk < 8; ++blk) randomBlock(rng, lhs + blk * 8), randomBlock(rng, rhs + blk * 8);
    for (float &v : acc) v = accDist(rng);
    runStage(*library, "encode_mma", lhs, rhs, acc, payload, out);
    for (int blk = 0; blk < 8; ++blk) {
      float values[8];
      for (int i = 0; i < 8; ++i) values[i] = bf16ToFloat(lhs[blk * 8 + i]);
      OracleBlock e = oracleEncode(values);
      ASSERT_EQ(payload[blk * 9], e.exponent) << "matrix " << m << " block " << blk;
      for (int i = 0; i < 8; ++i)
        ASSERT_EQ(int8_t(payload[blk * 9 + 1 + i]), e.q[i]) << "matrix " << m << " block " << blk;
    }
    oracleMmaFused(lhs, rhs, acc, expected);  // both encodes feed the fused MMA: B's columns are its blocks
    for (int i = 0; i < 64; ++i)
      ASSERT_EQ(std::bit_cast<uint32_t>(out[i]), std::bit_cast<uint32_t>(expected[i]))
          << "matrix " << m << " element " << i;
  }
}

constexpr const char *kScalars = R"(
func.def public @scalars(%input: buffer, %output: buffer) {
  %zero = index.constant 0 : offset
  %in = buffer.view %input[%zero] : buffer -> view<2xi32>
  %out = buffer.view %output[%zero] : buffer -> view<12xi32>
  %a = view.load %in[0] : view<2xi32> -> i32
  %b = view.load %in[1] : view<2xi32> -> i32
  %sum = scalar.addi %a, %b : i32
  view.store %sum, %out[0] : i32, view<12xi32>
  %product = scalar.muli %a, %b : i32
  view.store %product, %out[1] : i32, view<12xi32>
  %x = scalar.xori %a, %b : i32
  view.store %x, %out[2] : i32, view<12xi32>
  %q = scalar.divsi %a, %b : i32
  view.store %q, %out[3] : i32, view<12xi32>
  %fq = scalar.floordivsi %a, %b : i32
  view.store %fq, %out[4] : i32, view<12xi32>
  %cq = scalar.ceildivsi %a, %b : i32
  view.store %cq, %out[5] : i32, view<12xi32>
  %less = scalar.cmpi slt, %a, %b : i32
  %min = scf.select %less, %a, %b : i32
  view.store %min, %out[6] : i32, view<12xi32>
  %fa = scalar.sitofp %a : i32 to f32
  %half = scalar.constant 2.5 : f32
  %scaled = scalar.mulf %fa, %half : f32
  %back = scalar.fptosi %scaled : f32 to i32
  view.store %back, %out[7] : i32, view<12xi32>
  %i = index.cast %a : i32 to index
  %three = index.constant 3 : index
  %im = index.mul %i, %three : index
  %ir = index.cast %im : index to i32
  view.store %ir, %out[8] : i32, view<12xi32>
  %wide = scalar.extsi %a : i32 to i64
  %shift = scalar.constant 40 : i64
  %shifted = scalar.shli %wide, %shift : i64
  %narrow = scalar.trunci %shifted : i64 to i32
  view.store %narrow, %out[9] : i32, view<12xi32>
  %third = scalar.constant 0.333333343 : f32
  %bf = scalar.fptrunc %third : f32 to bf16
  %bits = scalar.bitcast %bf : bf16 to i16
  %bits32 = scalar.extui %bits : i16 to i32
  view.store %bits32, %out[10] : i32, view<12xi32>
  %m = scalar.maxsi %a, %b : i32
  view.store %m, %out[11] : i32, view<12xi32>
  func.return
}
)";

TEST(HostExecution, ScalarAndIndexOps) {
  auto library = build(kScalars);
  ASSERT_TRUE(library);
  int32_t in[2] = {-7, 2}, out[12] = {};
  runStage(*library, "scalars", in, out);
  // 0.333333343f = 0x3EAAAAAB: bf16 rounds to nearest even, 0x3EAB (truncation would give 0x3EAA).
  const int32_t expected[12] = {-5, -14, -7 ^ 2, -3, -4, -3, -7, -17, -21, 0, 0x3EAB, 2};
  for (int i = 0; i < 12; ++i) EXPECT_EQ(out[i], expected[i]) << i;
}

constexpr const char *kVectors = R"(
func.def public @vectors(%input: buffer, %output: buffer) {
  %zero = index.constant 0 : offset
  %in = buffer.view %input[%zero] : buffer -> view<16xf32>
  %out = buffer.view %output[%zero] : buffer -> view<48xf32>
  %a = vector.load %in[0] : view<16xf32> -> vector<8xf32>
  %b = vector.load %in[8] : view<16xf32> -> vector<8xf32>
  %sum = vector.addf %a, %b : vector<8xf32>
  vector.store %sum, %out[0] : vector<8xf32>, view<48xf32>
  %less = vector.cmpf olt, %a, %b : vector<8xf32> -> vector<8xi1>
  %min = vector.select %less, %a, %b : vector<8xf32>
  vector.store %min, %out[8] : vector<8xf32>, view<48xf32>
  %init = scalar.constant 100.0 : f32
  %total = vector.reduce<addf> %a, %init : vector<8xf32>, f32
  view.store %total, %out[16] : f32, view<48xf32>
  %dot = vector.dotf %a, %b, %init : vector<8xf32>, vector<8xf32>, f32
  view.store %dot, %out[17] : f32, view<48xf32>
  %two = scalar.constant 2.0 : f32
  %twos = vector.splat %two : vector<8xf32>
  %doubled = vector.mulf %a, %twos : vector<8xf32>
  vector.store %doubled, %out[24] : vector<8xf32>, view<48xf32>
  %base = scalar.constant 10 : i32
  %step = scalar.constant 3 : i32
  %lanes = vector.iota %base step %step : vector<8xi32>
  %lanesf = vector.sitofp %lanes : vector<8xi32> to vector<8xf32>
  vector.store %lanesf, %out[32] : vector<8xf32>, view<48xf32>
  %lo = index.constant 0 : index
  %hi = index.constant 5 : index
  %one = index.constant 1 : index
  %mask = vector.mask.range [%lo to %hi step %one] : index -> vector<8xi1>
  %minus = scalar.constant -1.0 : f32
  %pass = vector.splat %minus : vector<8xf32>
  %partial = vector.load.mask %in[0], %mask, %pass : view<16xf32>, vector<8xi1>, vector<8xf32>
  vector.store.mask %partial, %out[40], %mask : vector<8xf32>, view<48xf32>, vector<8xi1>
  func.return
}
)";

TEST(HostExecution, VectorOps) {
  auto library = build(kVectors);
  ASSERT_TRUE(library);
  float in[16], out[48];
  for (int i = 0; i < 16; ++i) in[i] = float((i * 5) % 11) - 4.0f;
  for (float &v : out) v = 999.0f;
  runStage(*library, "vectors", in, out);
  float total = 100.0f, dot = 100.0f;
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(out[i], in[i] + in[8 + i]) << i;
    EXPECT_EQ(out[8 + i], std::min(in[i], in[8 + i])) << i;
    EXPECT_EQ(out[24 + i], in[i] * 2) << i;
    EXPECT_EQ(out[32 + i], float(10 + 3 * i)) << i;
    EXPECT_EQ(out[40 + i], i < 5 ? in[i] : 999.0f) << i;  // masked-off lanes are not stored
    total += in[i];
    dot += in[i] * in[8 + i];
  }
  EXPECT_EQ(out[16], total);
  EXPECT_EQ(out[17], dot);
}

constexpr const char *kControl = R"(
func.def @square_plus(%x: i32, %y: i32) -> (i32) {
  %s = scalar.muli %x, %x : i32
  %r = scalar.addi %s, %y : i32
  func.return %r : i32
}
func.def @count_down(%n: index) -> (i32) {
  %zero = index.constant 0 : index
  %c0 = scalar.constant 0 : i32
  cfg.br ^header(%n: index, %c0: i32)
^header(%i: index, %acc: i32):
  %more = index.cmp sgt, %i, %zero : index
  cfg.cond_br %more, ^body, ^exit
^body:
  %one = index.constant 1 : index
  %next = index.sub %i, %one : index
  %two = scalar.constant 2 : i32
  %acc2 = scalar.addi %acc, %two : i32
  cfg.br ^header(%next: index, %acc2: i32)
^exit:
  func.return %acc : i32
}
func.def public @control(%output: buffer) {
  %zero = index.constant 0 : offset
  %out = buffer.view %output[%zero] : buffer -> view<4xi32>
  %first = index.constant 0 : index
  %last = index.constant 10 : index
  %step = index.constant 1 : index
  %init = scalar.constant 0 : i32
  %sum = scf.for %i = [%first to %last step %step](%acc = %init : i32) -> (i32) {
    %iv = index.cast %i : index to i32
    %next = scalar.addi %acc, %iv : i32
    scf.yield %next : i32
  }
  view.store %sum, %out[0] : i32, view<4xi32>
  %big = scalar.constant 40 : i32
  %gt = scalar.cmpi sgt, %sum, %big : i32
  %picked = scf.if %gt -> (i32) {
    %t = scalar.constant 1 : i32
    scf.yield %t : i32
  } else {
    %f = scalar.constant 2 : i32
    scf.yield %f : i32
  }
  view.store %picked, %out[1] : i32, view<4xi32>
  %three = scalar.constant 3 : i32
  %called = func.call @square_plus(%three, %picked) : (i32, i32) -> (i32)
  view.store %called, %out[2] : i32, view<4xi32>
  %seven = index.constant 7 : index
  %counted = func.call @count_down(%seven) : (index) -> (i32)
  view.store %counted, %out[3] : i32, view<4xi32>
  func.return
}
)";

TEST(HostExecution, StructuredAndUnstructuredControlFlowAndCalls) {
  auto library = build(kControl);
  ASSERT_TRUE(library);
  int32_t out[4] = {};
  runStage(*library, "control", out);
  EXPECT_EQ(out[0], 45);
  EXPECT_EQ(out[1], 1);
  EXPECT_EQ(out[2], 10);
  EXPECT_EQ(out[3], 14);
}

constexpr const char *kViews = R"(
func.def public @views(%input: buffer, %output: buffer) {
  %zero = index.constant 0 : offset
  %in = buffer.view %input[%zero] : buffer -> view<4x8xf32>
  %out = buffer.view %output[%zero] : buffer -> view<2x4xf32>
  %one = index.constant 1 : index
  %rows = view.subview %in[%one, 0] : view<4x8xf32> -> view<2x8xf32>
  %block = vector.load %rows[0, 2] : view<2x8xf32> -> vector<2x4xf32>
  vector.store %block, %out[0, 0] : vector<2x4xf32>, view<2x4xf32>
  %corner = view.load %rows[1, 7] : view<2x8xf32> -> f32
  view.store %corner, %out[0, 0] : f32, view<2x4xf32>
  func.return
}
)";

TEST(HostExecution, ViewsSubviewsAndMultiDimensionalVectors) {
  auto library = build(kViews);
  ASSERT_TRUE(library);
  float in[32], out[8] = {};
  for (int i = 0; i < 32; ++i) in[i] = float(i);
  runStage(*library, "views", in, out);
  // rows 1..2, columns 2..5; then out[0][0] = in[2][7] = 23.
  const float expected[8] = {23, 11, 12, 13, 18, 19, 20, 21};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[i], expected[i]) << i;
}

constexpr const char *kCoordinates = R"(
kernel.def @ids(%n: index) {
  %two = index.constant 2 : index
  %four = index.constant 4 : index
  %three = index.constant 3 : index
  kernel.launch.config workgroups(%two, %three, %n) workgroup_size(%four, %two, %n) : index
} launch(%data: buffer) {
  %zero = index.constant 0 : offset
  %view = buffer.view %data[%zero] : buffer -> view<6x8x2xi32>
  %gx = kernel.workitem.dispatch.id<x> : index
  %gy = kernel.workitem.dispatch.id<y> : index
  %wz = kernel.workgroup.id<z> : index
  %cx = kernel.workgroup.count<x> : index
  %value = index.madd %gy, %cx, %gx : index
  %v = index.cast %value : index to i32
  view.store %v, %view[%gy, %gx, %wz] : i32, view<6x8x2xi32>
  kernel.return
}
)";

TEST(HostExecution, KernelCoordinatesIn2D) {
  auto library = build(kCoordinates);
  ASSERT_TRUE(library);
  auto launch = library->lookup<LaunchFn>(HRX_HOST_LAUNCH_PREFIX "ids");
  auto kernel = library->lookup<KernelFn>(HRX_HOST_KERNEL_PREFIX "ids");
  ASSERT_TRUE(launch && kernel);
  uint64_t workload[] = {1};
  uint32_t grid[6] = {};
  launch(workload, grid);
  EXPECT_EQ(std::vector<uint32_t>(grid, grid + 6), (std::vector<uint32_t>{2, 3, 1, 4, 2, 1}));
  std::vector<int32_t> data(6 * 8 * 2, -1);
  void *args[] = {data.data()};
  for (uint32_t gy = 0; gy < 3; ++gy)
    for (uint32_t gx = 0; gx < 2; ++gx) {
      hrx_host_dispatch d{{gx, gy, 0}, {4, 2, 1}, {2, 3, 1}, 1, args};
      kernel(&d);
    }
  for (int y = 0; y < 6; ++y)
    for (int x = 0; x < 8; ++x) ASSERT_EQ(data[(y * 8 + x) * 2], y * 2 + x) << x << "," << y;
}

// A barrier kernel: every work-item stages its value in workgroup memory, then reads its
// neighbour's; a loaded value crosses the barrier in the spill area.
constexpr const char *kBarrier = R"(
kernel.def @rotate(%w: index) {
  %one = index.constant 1 : index
  %size = index.constant 8 : index
  kernel.launch.config workgroups(%one, %one, %one) workgroup_size(%size, %one, %one) : index
} launch(%input: buffer, %output: buffer) {
  %zero = index.constant 0 : offset
  %in = buffer.view %input[%zero] : buffer -> view<8xi32>
  %out = buffer.view %output[%zero] : buffer -> view<8xi32>
  %bytes = index.constant 32 : offset
  %lds = buffer.alloca<workgroup> align(16) %bytes : buffer
  %stage = buffer.view %lds[%zero] : buffer -> view<8xi32>
  %i = kernel.workitem.id<x> : index
  %mine = view.load %in[%i] : view<8xi32> -> i32
  view.store %mine, %stage[%i] : i32, view<8xi32>
  kernel.barrier<workgroup> scope(workgroup) ordering(acq_rel)
  %one = index.constant 1 : index
  %eight = index.constant 8 : index
  %next = index.add %i, %one : index
  %j = index.rem %next, %eight : index
  %theirs = view.load %stage[%j] : view<8xi32> -> i32
  %hundred = scalar.constant 100 : i32
  %scaled = scalar.muli %mine, %hundred : i32
  %sum = scalar.addi %scaled, %theirs : i32
  view.store %sum, %out[%i] : i32, view<8xi32>
  kernel.return
}
)";

TEST(HostExecution, BarrierKernelByLoopFission) {
  auto library = build(kBarrier);
  ASSERT_TRUE(library);
  auto kernel = library->lookup<KernelFn>(HRX_HOST_KERNEL_PREFIX "rotate");
  ASSERT_NE(kernel, nullptr);
  int32_t in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8] = {};
  void *args[] = {in, out};
  hrx_host_dispatch d{{0, 0, 0}, {8, 1, 1}, {1, 1, 1}, 2, args};
  kernel(&d);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[i], in[i] * 100 + in[(i + 1) % 8]) << i;
}

constexpr const char *kWorkgroupReduce = R"(
kernel.def @normalize(%w: index) {
  %one = index.constant 1 : index
  %size = index.constant 4 : index
  kernel.launch.config workgroups(%one, %one, %one) workgroup_size(%size, %size, %one) : index
} launch(%input: buffer, %output: buffer) {
  %zero = index.constant 0 : offset
  %in = buffer.view %input[%zero] : buffer -> view<4x4xf32>
  %out = buffer.view %output[%zero] : buffer -> view<4x4xf32>
  %x = kernel.workitem.id<x> : index
  %y = kernel.workitem.id<y> : index
  %v = view.load %in[%y, %x] : view<4x4xf32> -> f32
  %total = kernel.workgroup.reduce<addf> %v : f32
  %largest = kernel.workgroup.reduce<maxnumf> %v : f32
  %scaled = scalar.divf %v, %total : f32
  %r = scalar.addf %scaled, %largest : f32
  view.store %r, %out[%y, %x] : f32, view<4x4xf32>
  kernel.return
}
)";

TEST(HostExecution, WorkgroupReductions) {
  auto library = build(kWorkgroupReduce);
  ASSERT_TRUE(library);
  auto kernel = library->lookup<KernelFn>(HRX_HOST_KERNEL_PREFIX "normalize");
  ASSERT_NE(kernel, nullptr);
  float in[16], out[16] = {};
  float total = 0, largest = -1e30f;
  for (int i = 0; i < 16; ++i) in[i] = float((i * 7) % 16) - 3.0f;
  for (int i = 0; i < 16; ++i) total += in[i], largest = std::max(largest, in[i]);  // linear id order
  void *args[] = {in, out};
  hrx_host_dispatch d{{0, 0, 0}, {4, 4, 1}, {1, 1, 1}, 2, args};
  kernel(&d);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(out[i], in[i] / total + largest) << i;
}

}  // namespace
}  // namespace hrx::bridge::test
