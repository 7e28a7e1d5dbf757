// The KFD GPU device: the loadable code object reader, the kernarg layout and dispatch packet
// against the code object metadata of every example kernel (scalars, buffers) and a kernel with
// hidden arguments and dynamic LDS, the emulated KFD's checks, faults and injected driver
// errors, and whole runs through the emulated command processor.
#include "KfdTestSupport.h"

#include "kfd/Kernargs.h"
#include "kfd/KfdDevice.h"

#include "hrx/runtime/GpuDevice.h"
#include "hrx/runtime/HostDevice.h"
#include "hrx/runtime/Runtime.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>

using namespace hrx;
using namespace hrx::runtime;
using namespace hrx::runtime::kfd;
using format::KernargKind;
using hrx::test::ExampleKernels;

namespace {

uint64_t loadLittle(std::span<const std::byte> bytes, uint64_t offset, uint64_t size) {
  uint64_t v = 0;
  for (uint64_t i = 0; i < size; ++i) v |= uint64_t(bytes[offset + i]) << (8 * i);
  return v;
}

TEST(AmdgpuCodeObject, ReadsTheAffineExample) {
  const ExampleKernels &examples = ExampleKernels::get();
  auto object = format::readAmdgpuCodeObject(examples.affine.codeObject);
  ASSERT_TRUE(object.isOk()) << object.status().message();
  EXPECT_EQ(object->target, "amdgcn-amd-amdhsa--gfx1151");
  ASSERT_EQ(object->kernels.size(), 1u);
  const format::CodeObjectKernel &k = object->kernels[0];
  EXPECT_EQ(k.name, "affine");
  EXPECT_EQ(k.symbol, "affine.kd");
  EXPECT_EQ(k.kernargSegmentSize, 16u);
  EXPECT_EQ(k.descriptor.kernargSize, 16u);
  EXPECT_EQ(k.wavefrontSize, 32u);
  ASSERT_TRUE(k.reqdWorkgroupSize.has_value());
  EXPECT_EQ((*k.reqdWorkgroupSize)[0], 256u);
  ASSERT_EQ(k.args.size(), 2u);
  EXPECT_EQ(k.args[0], (format::KernargField{KernargKind::GlobalBuffer, 0, 8, "global_buffer"}));
  EXPECT_EQ(k.args[1], (format::KernargField{KernargKind::GlobalBuffer, 8, 8, "global_buffer"}));
  EXPECT_EQ(k.descriptorAddress % 64, 0u);
  EXPECT_EQ((int64_t(k.descriptorAddress) + k.descriptor.kernelCodeEntryByteOffset) % 256, 0);
  EXPECT_GE(object->imageBytes, k.descriptorAddress + 64);
}

// For every kernel of every example code object: the manifest's launch signature is the
// metadata's explicit arguments, the written segment holds each buffer address and scalar at
// its metadata offset, and the command processor's decoding finds the same.
TEST(Kernargs, MatchTheMetadataForEveryExampleKernel) {
  const ExampleKernels &examples = ExampleKernels::get();
  unsigned checked = 0;
  for (const format::Artifact *artifact : {&examples.affine, &examples.elementwise}) {
    auto object = format::readAmdgpuCodeObject(artifact->codeObject);
    ASSERT_TRUE(object.isOk()) << object.status().message();
    for (const format::AmdgpuExport &e : artifact->manifest->exports) {
      SCOPED_TRACE(e.name);
      const format::CodeObjectKernel *k = object->find(e.name);
      ASSERT_NE(k, nullptr);
      ASSERT_TRUE(checkLaunchSignature(*k, e.arguments).isOk());
      std::vector<uint64_t> buffers;
      std::vector<std::byte> constants;
      for (size_t i = 0; i < e.arguments.size(); ++i) {
        if (e.arguments[i].kind == format::LaunchArgumentKind::Buffer)
          buffers.push_back(0x7f0000001000ull + 0x10000 * i);
        else
          for (uint64_t b = 0; b < e.arguments[i].size; ++b) constants.push_back(std::byte(0x40 + i * 16 + b));
      }
      DispatchGeometry g;
      g.workgroupCount[0] = 4;
      g.workgroupSize[0] = uint16_t((*k->reqdWorkgroupSize)[0]);
      ASSERT_TRUE(checkGeometry(*k, g).isOk());
      std::vector<std::byte> segment(k->kernargSegmentSize, std::byte{0xee});
      ASSERT_TRUE(writeKernargs(*k, buffers, constants, g, 0x5000, segment).isOk());
      size_t buffer = 0, constant = 0;
      for (const format::LaunchArgument &a : e.arguments) {
        if (a.kind == format::LaunchArgumentKind::Buffer) {
          EXPECT_EQ(loadLittle(segment, a.offset, 8), buffers[buffer++]) << "offset " << a.offset;
        } else {
          EXPECT_EQ(std::memcmp(segment.data() + a.offset, constants.data() + constant, a.size), 0)
              << "offset " << a.offset;
          constant += a.size;
        }
      }
      KernelDispatchPacket packet = makeDispatchPacket(*k, g, 0x1000, 0x2000, 0x3000);
      std::vector<DecodedArgument> decoded;
      ASSERT_TRUE(decodeKernargs(*k, packet, segment, 0x5000, decoded).isOk());
      ASSERT_EQ(decoded.size(), e.arguments.size());
      for (size_t i = 0, b = 0; i < decoded.size(); ++i) {
        EXPECT_EQ(decoded[i].offset, e.arguments[i].offset);
        if (decoded[i].kind == KernargKind::GlobalBuffer) EXPECT_EQ(decoded[i].address, buffers[b++]);
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 3u);  // affine, axpy_bf16, add_f32
}

TEST(Kernargs, ManifestDisagreementIsAnError) {
  const ExampleKernels &examples = ExampleKernels::get();
  auto object = format::readAmdgpuCodeObject(examples.elementwise.codeObject);
  ASSERT_TRUE(object.isOk());
  const format::CodeObjectKernel *k = object->find("add_f32");
  std::vector<format::LaunchArgument> launch = examples.elementwise.manifest->find("add_f32")->arguments;
  launch[1].offset = 12;
  Status s = checkLaunchSignature(*k, launch);
  EXPECT_EQ(s.message(),
            "kernel 'add_f32': the code object's metadata lists explicit argument 1 (by_value at offset 8, "
            "4 bytes), .hrx.manifest launch argument 1 is a value at offset 12, 4 bytes");
  launch.pop_back();
  launch[1].offset = 8;
  EXPECT_FALSE(checkLaunchSignature(*k, launch).isOk());
}

TEST(DispatchPacket, EveryField) {
  static_assert(kDispatchHeader == (2 | 1 << 8 | 2 << 9 | 2 << 11));
  const ExampleKernels &examples = ExampleKernels::get();
  auto object = format::readAmdgpuCodeObject(examples.affine.codeObject);
  ASSERT_TRUE(object.isOk());
  const format::CodeObjectKernel &k = object->kernels[0];
  DispatchGeometry g;
  g.workgroupCount[0] = 65536;
  g.workgroupSize[0] = 256;
  KernelDispatchPacket p = makeDispatchPacket(k, g, 0xaaa000, 0xbbb000, 0xccc000);
  EXPECT_EQ(p.header, kPacketTypeInvalid);  // published by the device, last
  EXPECT_EQ(p.setup, 1);
  EXPECT_EQ(p.workgroupSize[0], 256);
  EXPECT_EQ(p.workgroupSize[1], 1);
  EXPECT_EQ(p.workgroupSize[2], 1);
  EXPECT_EQ(p.reserved0, 0);
  EXPECT_EQ(p.gridSize[0], 16777216u);
  EXPECT_EQ(p.gridSize[1], 1u);
  EXPECT_EQ(p.gridSize[2], 1u);
  EXPECT_EQ(p.privateSegmentSize, k.privateSegmentFixedSize);
  EXPECT_EQ(p.groupSegmentSize, k.groupSegmentFixedSize);
  EXPECT_EQ(p.kernelObject, 0xaaa000u);
  EXPECT_EQ(p.kernargAddress, 0xbbb000u);
  EXPECT_EQ(p.reserved2, 0u);
  EXPECT_EQ(p.completionSignal, 0xccc000u);
  // Two and three dimensions.
  g.workgroupCount[1] = 2;
  EXPECT_EQ(makeDispatchPacket(k, g, 0, 0, 0).setup, 2);
  g.workgroupCount[2] = 3;
  p = makeDispatchPacket(k, g, 0, 0, 0);
  EXPECT_EQ(p.setup, 3);
  EXPECT_EQ(p.gridSize[2], 3u);
}

// A kernel with every hidden argument this runtime fills and dynamic LDS (the layout of code
// object v5's hidden block after 16 explicit bytes).
format::CodeObjectKernel hiddenKernel() {
  format::CodeObjectKernel k;
  k.name = "hidden";
  k.kernargSegmentSize = 272;
  k.kernargSegmentAlign = 8;
  k.groupSegmentFixedSize = 1024;
  k.maxFlatWorkgroupSize = 1024;
  k.wavefrontSize = 32;
  auto add = [&](KernargKind kind, uint64_t offset, uint64_t size) {
    k.args.push_back({kind, offset, size, std::string(format::kernargKindName(kind))});
  };
  add(KernargKind::ByValue, 0, 4);
  add(KernargKind::GlobalBuffer, 8, 8);
  add(KernargKind::HiddenBlockCountX, 16, 4);
  add(KernargKind::HiddenBlockCountY, 20, 4);
  add(KernargKind::HiddenBlockCountZ, 24, 4);
  add(KernargKind::HiddenGroupSizeX, 28, 2);
  add(KernargKind::HiddenGroupSizeY, 30, 2);
  add(KernargKind::HiddenGroupSizeZ, 32, 2);
  add(KernargKind::HiddenRemainderX, 34, 2);
  add(KernargKind::HiddenRemainderY, 36, 2);
  add(KernargKind::HiddenRemainderZ, 38, 2);
  add(KernargKind::HiddenNone, 40, 16);
  add(KernargKind::HiddenGlobalOffsetX, 56, 8);
  add(KernargKind::HiddenGlobalOffsetY, 64, 8);
  add(KernargKind::HiddenGlobalOffsetZ, 72, 8);
  add(KernargKind::HiddenGridDims, 80, 2);
  add(KernargKind::HiddenDynamicLdsSize, 136, 4);
  add(KernargKind::HiddenQueuePtr, 216, 8);
  return k;
}

TEST(Kernargs, HiddenArgumentsAndDynamicLds) {
  format::CodeObjectKernel k = hiddenKernel();
  DispatchGeometry g;
  g.workgroupCount[0] = 4, g.workgroupCount[1] = 3, g.workgroupCount[2] = 2;
  g.workgroupSize[0] = 8, g.workgroupSize[1] = 4, g.workgroupSize[2] = 2;
  g.dynamicLdsBytes = 2048;
  ASSERT_TRUE(checkGeometry(k, g).isOk());
  std::vector<std::byte> segment(k.kernargSegmentSize, std::byte{0xee});
  std::byte scalar[4] = {std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4}};
  uint64_t buffer = 0x7f0000002000ull;
  ASSERT_TRUE(writeKernargs(k, std::span(&buffer, 1), scalar, g, 0x7f0000009000ull, segment).isOk());
  struct Expect {
    uint64_t offset, size, value;
  } expect[] = {{0, 4, 0x04030201}, {8, 8, buffer}, {16, 4, 4}, {20, 4, 3},     {24, 4, 2},
                {28, 2, 8},         {30, 2, 4},     {32, 2, 2}, {34, 2, 0},     {36, 2, 0},
                {38, 2, 0},         {40, 8, 0},     {48, 8, 0}, {56, 8, 0},     {64, 8, 0},
                {72, 8, 0},         {80, 2, 3},     {82, 8, 0}, {136, 4, 2048}, {216, 8, 0x7f0000009000ull},
                {264, 8, 0}};
  for (const Expect &e : expect) EXPECT_EQ(loadLittle(segment, e.offset, e.size), e.value) << "offset " << e.offset;
  KernelDispatchPacket p = makeDispatchPacket(k, g, 0x1000, 0x2000, 0);
  EXPECT_EQ(p.groupSegmentSize, 1024u + 2048u);
  EXPECT_EQ(p.setup, 3);
  std::vector<DecodedArgument> decoded;
  ASSERT_TRUE(decodeKernargs(k, p, segment, 0x7f0000009000ull, decoded).isOk());
  EXPECT_EQ(decoded.size(), 2u);

  // The command processor catches a hidden argument that disagrees with the packet.
  segment[20] = std::byte{5};
  Status s = decodeKernargs(k, p, segment, 0x7f0000009000ull, decoded);
  EXPECT_EQ(s.message(), "kernel 'hidden': kernarg hidden_block_count_y at offset 20: expected 3 from the dispatch "
                         "packet, found 5");
  segment[20] = std::byte{3};
  p.groupSegmentSize = 1024;  // the packet lost the dynamic LDS
  s = decodeKernargs(k, p, segment, 0x7f0000009000ull, decoded);
  EXPECT_NE(s.message().find("hidden_dynamic_lds_size at offset 136: expected 0"), std::string::npos) << s.message();

  // Geometry limits.
  g.dynamicLdsBytes = 65536;
  EXPECT_EQ(checkGeometry(k, g).message(),
            "kernel 'hidden': group segment 1024 + 65536 dynamic bytes exceeds the 64 KiB a workgroup addresses");
  g.dynamicLdsBytes = 0;
  g.workgroupSize[0] = 256;
  EXPECT_EQ(checkGeometry(k, g).message(),
            "kernel 'hidden': workgroup size 256x4x2 (2048 work-items) exceeds .max_flat_workgroup_size 1024");
}

TEST(AmdgpuCodeObject, RejectsDamageWithoutCrashing) {
  const ExampleKernels &examples = ExampleKernels::get();
  std::vector<uint8_t> bytes = examples.elementwise.codeObject;
  for (size_t cut = 0; cut < bytes.size(); cut += 16) (void)format::readAmdgpuCodeObject(std::span(bytes).first(cut));
  for (size_t i = 0; i < bytes.size(); ++i) {  // every byte flipped: errors, never crashes
    std::vector<uint8_t> mutated = bytes;
    mutated[i] ^= 0xa5;
    (void)format::readAmdgpuCodeObject(mutated);
  }
  auto object = format::readAmdgpuCodeObject(bytes);
  ASSERT_TRUE(object.isOk());
  const format::CodeObjectKernel &k = *object->find("add_f32");
  const format::LoadSegment *home = nullptr;
  for (const format::LoadSegment &s : object->segments)
    if (k.descriptorAddress >= s.vaddr && k.descriptorAddress < s.vaddr + s.filesz) home = &s;
  ASSERT_NE(home, nullptr);
  std::vector<uint8_t> mutated = bytes;
  mutated[home->offset + (k.descriptorAddress - home->vaddr) + 8] ^= 0x40;  // kernarg_size
  EXPECT_EQ(format::readAmdgpuCodeObject(mutated).status().message(),
            "code object: kernel 'add_f32': the kernel descriptor's kernarg_size 88 differs from "
            ".kernarg_segment_size 24");
  mutated = bytes;
  mutated[18] = 62;  // EM_X86_64
  EXPECT_EQ(format::readAmdgpuCodeObject(mutated).status().message(), "code object: e_machine is not EM_AMDGPU (224)");
}

// Opens a private KFD device on the emulator with `options`.
StatusOr<std::shared_ptr<KfdDevice>> openEmulated(EmulatorOptions options = {}) {
  return KfdDevice::open(emulatedKfdSystem(options), hrx::test::kfdSysfsRoot(), 0);
}

TEST(KfdDevice, OpensOnTheEmulator) {
  auto device = openEmulated();
  ASSERT_TRUE(device.isOk()) << device.status().message();
  EXPECT_EQ((*device)->describe(), "gfx1151 (KFD node 1, gpu_id 52565) through the emulated KFD 1.16");
  auto sizes = cwsrSizes((*device)->node());
  ASSERT_TRUE(sizes.isOk());
  // 40 CUs x (0x60000 VGPR + 0x4000 SGPR + 0x10000 LDS + 0x1000 HWREG), plus the control stack for
  // 40 x 32 waves (12 bytes each + 48, page-rounded).
  EXPECT_EQ(sizes->ctlStackSize, 16384u);
  EXPECT_EQ(sizes->ctxSaveRestoreSize, 40u * (0x60000 + 0x4000 + 0x10000 + 0x1000) + 16384u);
  EXPECT_EQ(sizes->debugMemorySize, 1280u * 32);
}

TEST(KfdDevice, InjectedDriverErrorsAreReported) {
  struct Case {
    const char *call;
    int error;
    StatusCode code;
    const char *message;
  } cases[] = {
      {"open", EACCES, StatusCode::FailedPrecondition,
       "emulated KFD: cannot open /dev/kfd: Permission denied (EACCES 13); the KFD path needs read/write access to "
       "/dev/kfd and the render node (membership of the 'render' group; `hrx doctor` checks)"},
      {"get_version", EIO, StatusCode::DeviceLost,
       "emulated KFD: AMDKFD_IOC_GET_VERSION failed: Input/output error (EIO 5)"},
      {"acquire_vm", EINVAL, StatusCode::InvalidArgument,
       "emulated KFD: AMDKFD_IOC_ACQUIRE_VM (gpu_id 52565, /dev/dri/renderD128) failed: Invalid argument (EINVAL 22)"},
      {"alloc", ENOMEM, StatusCode::ResourceExhausted,
       "emulated KFD: AMDKFD_IOC_ALLOC_MEMORY_OF_GPU of 32768 bytes of GTT memory failed: Cannot allocate memory "
       "(ENOMEM 12)"},
      {"map", EINVAL, StatusCode::InvalidArgument,
       "emulated KFD: AMDKFD_IOC_MAP_MEMORY_TO_GPU failed: Invalid argument (EINVAL 22)"},
      {"create_event", ENOMEM, StatusCode::ResourceExhausted,
       "emulated KFD: AMDKFD_IOC_CREATE_EVENT failed: Cannot allocate memory (ENOMEM 12)"},
      {"create_queue", EINVAL, StatusCode::InvalidArgument,
       "emulated KFD: AMDKFD_IOC_CREATE_QUEUE (AQL, 65536-byte ring, "},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.call);
    EmulatorOptions options;
    options.failCall = c.call;
    options.failErrno = c.error;
    auto device = openEmulated(options);
    ASSERT_FALSE(device.isOk());
    EXPECT_EQ(device.status().code(), c.code);
    EXPECT_EQ(device.status().message().substr(0, std::strlen(c.message)), c.message);
  }
  EmulatorOptions old;
  old.versionMinor = 10;
  EXPECT_EQ(openEmulated(old).status().message(),
            "emulated KFD reports interface version 1.10; this runtime needs 1.11 or newer within major version 1");
}

// The emulated driver itself, through raw calls: the argument checks KFD makes.
TEST(EmulatedKfd, KeepsKfdSemantics) {
  auto system = emulatedKfdSystem({});
  KfdSystem &k = *system;
  EXPECT_EQ(k.open("/dev/dri/renderD129", O_RDWR), -ENOENT);  // not in the topology
  int kfd = k.open("/dev/kfd", O_RDWR), drm = k.open("/dev/dri/renderD128", O_RDWR),
      drm2 = k.open("/dev/dri/renderD128", O_RDWR);
  ASSERT_GE(kfd, 0);
  ASSERT_GE(drm, 0);
  EXPECT_EQ(k.ioctl(drm, AMDKFD_IOC_GET_VERSION, nullptr), -EBADF);  // KFD ioctls go to /dev/kfd
  const uint32_t gpu = 52565;
  auto alloc = [&](uint64_t va, uint64_t size, uint32_t flags, uint64_t offset = 0) {
    kfd_ioctl_alloc_memory_of_gpu_args a{};
    a.va_addr = va, a.size = size, a.gpu_id = gpu, a.flags = flags, a.mmap_offset = offset;
    int rc = k.ioctl(kfd, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &a);
    return std::pair(rc, a);
  };
  const uint32_t gtt = KFD_IOC_ALLOC_MEM_FLAGS_GTT | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE;
  EXPECT_EQ(alloc(0x100000000ull, 4096, gtt).first, -EINVAL);  // no VM acquired yet
  kfd_ioctl_acquire_vm_args vm{uint32_t(drm), 12345};
  EXPECT_EQ(k.ioctl(kfd, AMDKFD_IOC_ACQUIRE_VM, &vm), -EINVAL);  // unknown gpu_id
  vm.gpu_id = gpu;
  EXPECT_EQ(k.ioctl(kfd, AMDKFD_IOC_ACQUIRE_VM, &vm), 0);
  EXPECT_EQ(k.ioctl(kfd, AMDKFD_IOC_ACQUIRE_VM, &vm), 0);  // the same render node again
  kfd_ioctl_acquire_vm_args other{uint32_t(drm2), gpu};
  EXPECT_EQ(k.ioctl(kfd, AMDKFD_IOC_ACQUIRE_VM, &other), -EBUSY);

  // Memory: one domain, page-aligned, no overlapping VA; the render node maps GTT memory.
  void *reserved = nullptr;
  ASSERT_EQ(k.mmap(nullptr, 1 << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0, &reserved), 0);
  uint64_t base = reinterpret_cast<uint64_t>(reserved);
  EXPECT_EQ(alloc(base, 4096, gtt | KFD_IOC_ALLOC_MEM_FLAGS_USERPTR).first, -EINVAL);
  EXPECT_EQ(alloc(base, 100, gtt).first, -EINVAL);
  EXPECT_EQ(alloc(base + 1, 4096, gtt).first, -EINVAL);
  auto [rc, ring] = alloc(base, 65536, gtt);
  ASSERT_EQ(rc, 0);
  EXPECT_EQ(alloc(base + 4096, 4096, gtt).first, -EINVAL);  // inside the ring's VA
  void *cpu = nullptr;
  EXPECT_EQ(k.mmap(reserved, 65536, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, drm, ring.mmap_offset + 4096, &cpu),
            -EINVAL);
  ASSERT_EQ(k.mmap(reserved, 65536, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, drm, ring.mmap_offset, &cpu), 0);
  EXPECT_EQ(cpu, reserved);
  uint32_t ids[1] = {gpu};
  kfd_ioctl_map_memory_to_gpu_args map{ring.handle, reinterpret_cast<uint64_t>(ids), 1, 0};
  kfd_ioctl_map_memory_to_gpu_args unknown{ring.handle + 1000, reinterpret_cast<uint64_t>(ids), 1, 0};
  EXPECT_EQ(k.ioctl(kfd, AMDKFD_IOC_MAP_MEMORY_TO_GPU, &unknown), -EINVAL);
  ASSERT_EQ(k.ioctl(kfd, AMDKFD_IOC_MAP_MEMORY_TO_GPU, &map), 0);
  EXPECT_EQ(map.n_success, 1u);
  kfd_ioctl_free_memory_of_gpu_args free{ring.handle};
  EXPECT_EQ(k.ioctl(kfd, AMDKFD_IOC_FREE_MEMORY_OF_GPU, &free), -EBUSY);  // still mapped

  // Queues: AQL only, a power-of-two ring in mapped memory, the topology's CWSR sizes.
  auto more = [&](uint64_t offset, uint64_t size) {
    auto [r, m] = alloc(base + offset, size, gtt);
    EXPECT_EQ(r, 0);
    kfd_ioctl_map_memory_to_gpu_args mm{m.handle, reinterpret_cast<uint64_t>(ids), 1, 0};
    EXPECT_EQ(k.ioctl(kfd, AMDKFD_IOC_MAP_MEMORY_TO_GPU, &mm), 0);
    return base + offset;
  };
  uint64_t pointers = more(65536, 4096), eop = more(69632, 4096);
  auto sizes = std::move(cwsrSizes(std::move(readKfdNode(hrx::test::kfdSysfsRoot(), "1")).value())).value();
  void *cwsrReserved = nullptr;
  ASSERT_EQ(
      k.mmap(nullptr, sizes.bufferBytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0, &cwsrReserved),
      0);
  auto [cwsrRc, cwsrMemory] = alloc(reinterpret_cast<uint64_t>(cwsrReserved), sizes.bufferBytes, gtt);
  ASSERT_EQ(cwsrRc, 0);
  kfd_ioctl_map_memory_to_gpu_args cwsrMap{cwsrMemory.handle, reinterpret_cast<uint64_t>(ids), 1, 0};
  ASSERT_EQ(k.ioctl(kfd, AMDKFD_IOC_MAP_MEMORY_TO_GPU, &cwsrMap), 0);
  kfd_ioctl_create_queue_args good{};
  good.ring_base_address = base, good.ring_size = 65536, good.gpu_id = gpu;
  good.queue_type = KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, good.queue_percentage = 100, good.queue_priority = 7;
  good.write_pointer_address = pointers + 56, good.read_pointer_address = pointers + 128;
  good.eop_buffer_address = eop, good.eop_buffer_size = 4096;
  good.ctx_save_restore_address = cwsrMemory.va_addr, good.ctx_save_restore_size = sizes.ctxSaveRestoreSize;
  good.ctl_stack_size = sizes.ctlStackSize;
  struct Bad {
    const char *what;
    void (*change)(kfd_ioctl_create_queue_args &);
  } bad[] = {
      {"PM4 queue", [](kfd_ioctl_create_queue_args &q) { q.queue_type = KFD_IOC_QUEUE_TYPE_COMPUTE; }},
      {"ring size", [](kfd_ioctl_create_queue_args &q) { q.ring_size = 3000; }},
      {"ring unmapped", [](kfd_ioctl_create_queue_args &q) { q.ring_base_address = 0x1000; }},
      {"priority", [](kfd_ioctl_create_queue_args &q) { q.queue_priority = 16; }},
      {"percentage", [](kfd_ioctl_create_queue_args &q) { q.queue_percentage = 101; }},
      {"EOP size", [](kfd_ioctl_create_queue_args &q) { q.eop_buffer_size = 1024; }},
      {"CWSR size", [](kfd_ioctl_create_queue_args &q) { q.ctx_save_restore_size -= 4096; }},
      {"control stack", [](kfd_ioctl_create_queue_args &q) { q.ctl_stack_size += 4096; }},
      {"write pointer", [](kfd_ioctl_create_queue_args &q) { q.write_pointer_address = 0x2000; }},
  };
  for (const Bad &b : bad) {
    kfd_ioctl_create_queue_args q = good;
    b.change(q);
    EXPECT_EQ(k.ioctl(kfd, AMDKFD_IOC_CREATE_QUEUE, &q), -EINVAL) << b.what;
  }
  ASSERT_EQ(k.ioctl(kfd, AMDKFD_IOC_CREATE_QUEUE, &good), 0);
  EXPECT_EQ(good.doorbell_offset % 8, 0u);
  void *doorbells = nullptr;
  EXPECT_EQ(k.mmap(nullptr, 0x2000, PROT_READ | PROT_WRITE, MAP_SHARED, kfd, good.doorbell_offset & ~uint64_t(0x1fff),
                   &doorbells),
            0);
  kfd_ioctl_destroy_queue_args destroy{good.queue_id, 0};
  EXPECT_EQ(k.ioctl(kfd, AMDKFD_IOC_DESTROY_QUEUE, &destroy), 0);
  EXPECT_EQ(k.ioctl(kfd, AMDKFD_IOC_DESTROY_QUEUE, &destroy), -EINVAL);

  // Events: signal events need the user event page; waits time out, set events complete them.
  kfd_ioctl_create_event_args signal{};
  EXPECT_EQ(k.ioctl(kfd, AMDKFD_IOC_CREATE_EVENT, &signal), -EINVAL);
  signal.event_page_offset = ring.handle;  // 64 KiB: large enough for the 4096 slots
  signal.auto_reset = 1;
  ASSERT_EQ(k.ioctl(kfd, AMDKFD_IOC_CREATE_EVENT, &signal), 0);
  kfd_event_data data{};
  data.event_id = signal.event_id;
  kfd_ioctl_wait_events_args wait{reinterpret_cast<uint64_t>(&data), 1, 0, 10, 0};
  ASSERT_EQ(k.ioctl(kfd, AMDKFD_IOC_WAIT_EVENTS, &wait), 0);
  EXPECT_EQ(wait.wait_result, uint32_t(KFD_IOC_WAIT_RESULT_TIMEOUT));
  kfd_ioctl_set_event_args set{signal.event_id, 0};
  ASSERT_EQ(k.ioctl(kfd, AMDKFD_IOC_SET_EVENT, &set), 0);
  ASSERT_EQ(k.ioctl(kfd, AMDKFD_IOC_WAIT_EVENTS, &wait), 0);
  EXPECT_EQ(wait.wait_result, uint32_t(KFD_IOC_WAIT_RESULT_COMPLETE));
  ASSERT_EQ(k.ioctl(kfd, AMDKFD_IOC_WAIT_EVENTS, &wait), 0);  // auto-reset: waits again
  EXPECT_EQ(wait.wait_result, uint32_t(KFD_IOC_WAIT_RESULT_TIMEOUT));
  EXPECT_EQ(k.ioctl(kfd, 0xdead, nullptr), -EINVAL);
  EXPECT_EQ(k.close(drm2), 0);
  EXPECT_EQ(k.close(drm2), -EBADF);
}

// A loaded example kernel on a private emulated device, dispatched by hand so packet and
// kernarg mistakes can be made on purpose.
struct HandLoaded {
  std::shared_ptr<KfdDevice> device;
  format::CodeObjectKernel kernel;
  GpuMemory code, kernargs;
  std::shared_ptr<HostCode> host;
};

HandLoaded loadAddF32(std::shared_ptr<KfdDevice> device) {
  const ExampleKernels &examples = ExampleKernels::get();
  HandLoaded h;
  h.device = device;
  auto object = std::move(format::readAmdgpuCodeObject(examples.elementwise.codeObject)).value();
  h.kernel = *object.find("add_f32");
  h.code = std::move(device->allocateGtt(object.imageBytes, true, false)).value();
  object.loadImage(examples.elementwise.codeObject, h.code.va,
                   std::span(reinterpret_cast<uint8_t *>(h.code.host), object.imageBytes));
  h.kernargs = std::move(device->allocateGtt(4096, false, true)).value();
  const std::vector<uint8_t> &hostBytes = *examples.elementwise.section(format::xdna::kHostSection);
  h.host = std::move(HostCode::load(std::as_bytes(std::span(hostBytes)), "elementwise .hrx.host")).value();
  auto program = std::make_shared<HostTwinProgram>();
  program->loadBase = h.code.va;
  program->imageBytes = object.imageBytes;
  program->codeObject = std::move(object);
  program->hostCode = h.host;
  program->twins.emplace("add_f32", std::move(h.host->kernel("add_f32")).value());
  device->system().attachProgram(program);
  return h;
}

TEST(KfdDevice, DispatchesThroughTheEmulatedCommandProcessor) {
  auto device = std::move(openEmulated()).value();
  HandLoaded h = loadAddF32(device);
  alignas(64) static float y[1024];
  std::fill(std::begin(y), std::end(y), 2.0f);
  uint64_t n = 1000;
  float delta = 1.5f;
  std::byte constants[12];
  std::memcpy(constants, &n, 8);
  std::memcpy(constants + 8, &delta, 4);
  uint64_t buffer = KfdDevice::gpuAddress(reinterpret_cast<std::byte *>(y));
  DispatchGeometry g;
  g.workgroupCount[0] = 4;
  g.workgroupSize[0] = 256;
  ASSERT_TRUE(writeKernargs(h.kernel, std::span(&buffer, 1), constants, g, device->queueAddress(),
                            std::span(h.kernargs.host, h.kernargs.size))
                  .isOk());
  KernelDispatchPacket p = makeDispatchPacket(h.kernel, g, h.code.va + h.kernel.descriptorAddress, h.kernargs.va, 0);
  KfdDevice::HostRange range{reinterpret_cast<std::byte *>(y), sizeof y};
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(device->dispatch(p, std::span(&range, 1), "add_f32").isOk());
  EXPECT_EQ(y[0], 6.5f);
  EXPECT_EQ(y[999], 6.5f);
  EXPECT_EQ(y[1000], 2.0f);  // beyond n

  // A workgroup size that is not the kernel's .reqd_workgroup_size is a device fault that stops
  // the queue; the next dispatch says the device is unusable.
  KernelDispatchPacket wrong = p;
  wrong.workgroupSize[0] = 128;
  Status s = device->dispatch(wrong, std::span(&range, 1), "add_f32");
  EXPECT_EQ(s.code(), StatusCode::DeviceLost);
  EXPECT_EQ(s.message(), "emulated KFD reported a whole-GPU reset after a GPU hang while kernel 'add_f32' ran "
                         "(emulated command processor, queue 1: kernel 'add_f32': dispatch packet workgroup_size_x "
                         "(.reqd_workgroup_size): expected 256, found 128); the GPU queue is stopped and the work's "
                         "storage is retained");
  EXPECT_EQ(device->dispatch(p, std::span(&range, 1), "add_f32").code(), StatusCode::DeviceLost);
}

TEST(KfdDevice, AnUnmappedBufferIsAMemoryFault) {
  auto device = std::move(openEmulated()).value();
  HandLoaded h = loadAddF32(device);
  uint64_t n = 4;
  float delta = 1;
  std::byte constants[12];
  std::memcpy(constants, &n, 8);
  std::memcpy(constants + 8, &delta, 4);
  uint64_t unmapped = 0x10000;  // never registered with the GPU
  DispatchGeometry g;
  g.workgroupSize[0] = 256;
  ASSERT_TRUE(writeKernargs(h.kernel, std::span(&unmapped, 1), constants, g, device->queueAddress(),
                            std::span(h.kernargs.host, h.kernargs.size))
                  .isOk());
  KernelDispatchPacket p = makeDispatchPacket(h.kernel, g, h.code.va + h.kernel.descriptorAddress, h.kernargs.va, 0);
  Status s = device->dispatch(p, {}, "add_f32");
  EXPECT_EQ(s.code(), StatusCode::DeviceLost);
  EXPECT_TRUE(s.message().starts_with(
      "emulated KFD reported a GPU memory fault at VA 0x10000 (page not present) while kernel 'add_f32' ran"))
      << s.message();
  EXPECT_NE(s.message().find("points at 0x10000, which is not mapped to the GPU"), std::string::npos) << s.message();
}

TEST(KfdDevice, AKernelObjectThatIsNoDescriptorFaults) {
  auto device = std::move(openEmulated()).value();
  HandLoaded h = loadAddF32(device);
  DispatchGeometry g;
  g.workgroupSize[0] = 256;
  KernelDispatchPacket p = makeDispatchPacket(h.kernel, g, h.kernargs.va, h.kernargs.va, 0);
  Status s = device->dispatch(p, {}, "add_f32");
  EXPECT_NE(s.message().find("is not a loaded kernel descriptor"), std::string::npos) << s.message();
}

// Code that is not where the code object puts it (here a descriptor byte changed after loading)
// faults instead of running.
TEST(KfdDevice, ALoaderMistakeFaults) {
  auto device = std::move(openEmulated()).value();
  HandLoaded h = loadAddF32(device);
  h.code.host[h.kernel.descriptorAddress + 48] ^= std::byte{1};  // compute_pgm_rsrc1
  DispatchGeometry g;
  g.workgroupSize[0] = 256;
  KernelDispatchPacket p = makeDispatchPacket(h.kernel, g, h.code.va + h.kernel.descriptorAddress, h.kernargs.va, 0);
  Status s = device->dispatch(p, {}, "add_f32");
  EXPECT_NE(s.message().find("the kernel descriptor of 'add_f32' in GPU memory differs from the code object's"),
            std::string::npos)
      << s.message();
}

// loadOnGpu through the process's (emulated) device, in graphs, against a CPU loop.
TEST(LoadOnGpu, RunsElementwiseKernelsInGraphs) {
  const ExampleKernels &examples = ExampleKernels::get();
  auto entries = std::move(listEntries(examples.elementwise)).value();
  auto entry = std::move(findEntry(entries, "add_f32", Engine::Gpu)).value();
  auto rt = std::move(Runtime::create()).value();
  auto device = rt->gpu();
  ASSERT_TRUE(device.isOk()) << device.status().message();
  ASSERT_TRUE(checkNativeExecution(*entry, *device, 0).isOk());
  auto kernel = loadOnGpu(*entry, {777});
  ASSERT_TRUE(kernel.isOk()) << kernel.status().message();
  auto adopted = std::move(rt->adoptKernel(*kernel)).value();
  Buffer y = std::move(rt->allocate(777 * 4, Placement::HostVisible())).value();
  {
    auto map = std::move(y.mapWrite()).value();
    auto *f = reinterpret_cast<float *>(map.mutableBytes().data());
    for (int i = 0; i < 777; ++i) f[i] = float(i);
  }
  uint64_t n = 777;
  float delta = 0.25f;
  std::byte constants[12];
  std::memcpy(constants, &n, 8);
  std::memcpy(constants + 8, &delta, 4);
  Graph g(*rt);
  ASSERT_TRUE(g.gpu(adopted, {y.view()}, constants).isOk());
  auto exe = std::move(rt->prepare(g)).value();
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(exe.submit()->wait().isOk());
  auto map = std::move(y.mapRead()).value();
  const auto *f = reinterpret_cast<const float *>(map.bytes().data());
  for (int i = 0; i < 777; ++i) ASSERT_EQ(f[i], float(i) + 1.0f) << i;

  // The workload count is checked as on the host device.
  EXPECT_EQ(loadOnGpu(*entry, {}).status().message(),
            "GPU entry 'add_f32' takes 1 workload value(s) (the kernel definition's arguments, for its launch "
            "program); 0 were given with --workload");
}

// A timeout does not cancel the accepted dispatch or free its storage: the work finishes later.
TEST(LoadOnGpu, ATimeoutLeavesTheDispatchRunning) {
  const ExampleKernels &examples = ExampleKernels::get();
  auto entries = std::move(listEntries(examples.elementwise)).value();
  auto entry = std::move(findEntry(entries, "add_f32", Engine::Gpu)).value();
  auto rt = std::move(Runtime::create()).value();
  auto kernel = std::move(rt->adoptKernel(std::move(loadOnGpu(*entry, {64})).value())).value();
  Buffer y = std::move(rt->allocate(64 * 4, Placement::HostVisible())).value();
  uint64_t n = 64;
  float delta = 3;
  std::byte constants[12];
  std::memcpy(constants, &n, 8);
  std::memcpy(constants + 8, &delta, 4);
  Graph g(*rt);
  ASSERT_TRUE(g.gpu(kernel, {y.view()}, constants).isOk());
  auto exe = std::move(rt->prepare(g)).value();
  auto device = std::move(KfdDevice::shared(0)).value();
  device->system().setDispatchDelayMs(300);
  auto completion = std::move(exe.submit()).value();
  EXPECT_FALSE(completion.waitFor(std::chrono::milliseconds(20)));
  EXPECT_FALSE(completion.isComplete());
  EXPECT_EQ(completion.pendingLanes(), std::vector<Lane>{Lane::Compute});
  EXPECT_EQ(y.tryMapRead().status().code(), StatusCode::Busy);  // still in device use
  device->system().setDispatchDelayMs(0);
  ASSERT_TRUE(completion.wait().isOk());
  auto map = std::move(y.mapRead()).value();
  float first;
  std::memcpy(&first, map.bytes().data(), 4);
  EXPECT_EQ(first, 3.0f);
}

// Every byte of the loaded part of a code object (headers, note, symbols, descriptors, code)
// flipped: loadOnGpu rejects the mutant with an error or loads it; it never crashes.
TEST(LoadOnGpu, MutatedCodeObjectsNeverCrashTheLoader) {
  const ExampleKernels &examples = ExampleKernels::get();
  auto object = std::move(format::readAmdgpuCodeObject(examples.elementwise.codeObject)).value();
  uint64_t loadedEnd = 0;
  for (const format::LoadSegment &s : object.segments) loadedEnd = std::max(loadedEnd, s.offset + s.filesz);
  unsigned rejected = 0, loaded = 0;
  for (uint64_t i = 0; i < loadedEnd; ++i) {
    std::vector<uint8_t> bytes = examples.elementwiseBytes;
    bytes[i] ^= 0xff;
    auto artifact = format::readArtifact(bytes);
    if (!artifact) {
      ++rejected;
      continue;
    }
    auto entries = listEntries(*artifact);
    if (!entries) {
      ++rejected;
      continue;
    }
    for (const ArtifactEntry &entry : *entries) {
      auto kernel = loadOnGpu(entry, {256});
      if (kernel) {
        ++loaded;
      } else {
        ++rejected;
        EXPECT_FALSE(kernel.status().message().empty());
      }
    }
  }
  EXPECT_GT(rejected, 0u);
  EXPECT_GT(loaded, 0u);
}

TEST(LoadOnGpu, DoctorChecksOnTheEmulator) {
  std::vector<KfdRequirement> checks = checkKfdRequirements();
  ASSERT_FALSE(checks.empty());
  for (const KfdRequirement &r : checks) EXPECT_TRUE(r.satisfied) << r.name << ": " << r.detail;
  EXPECT_EQ(checks.back().name, "interface version");
  EXPECT_EQ(checks.back().detail, "1.16");
}

}  // namespace
