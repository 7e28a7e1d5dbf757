// An NPU entry on the npu device through the amdxdna uAPI (Amdxdna.h): one hardware context of
// the image's columns, a device-heap BO, an instruction BO holding the entry's COMMAND
// allocation, a CMD BO for the ERT_START_NPU packet and one shared BO per binding. Each run
// copies the bindings in, patches the dynamic SHIM_ADDRESS relocations with the binding BOs'
// device addresses, submits invocation 0 then its continuation the first time (the
// continuation alone afterwards), waits, and copies the writable bindings out. A command that
// does not retire in time is not cancelled and its BOs are not freed: the kernel is quarantined
// and refuses further runs.
#include "Amdxdna.h"

#include "hrx/format/Transaction.h"
#include "hrx/runtime/Admission.h"
#include "hrx/runtime/HostDevice.h"
#include "hrx/runtime/Loader.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace hrx::runtime {
namespace {

namespace fx = format::xdna;
using amdxdna::Bo;

constexpr uint64_t kDeviceHeapBytes = 64ull << 20;  // AIE2_DEVM_SIZE
constexpr uint32_t kCommandBoBytes = 4096;

uint32_t waitMilliseconds() {
  const char *v = std::getenv("HRX_NPU_WAIT_MS");
  return v && *v ? uint32_t(std::strtoul(v, nullptr, 10)) : 60000;
}

class AmdxdnaNpuKernel final : public Kernel {
public:
  AmdxdnaNpuKernel(const ArtifactEntry &entry, std::unique_ptr<amdxdna::Driver> driver)
      : entryName_(entry.name), contract_(entry.contract), image_(*entry.member->xdna), driver_(std::move(driver)) {}
  ~AmdxdnaNpuKernel() override;

  Status initialize(const ArtifactEntry &entry);
  Engine engine() const override { return Engine::Npu; }
  const std::string &name() const override { return entryName_; }
  const KernelContract &contract() const override { return contract_; }
  uint64_t imageBytes() const override { return command_.size(); }
  Status run(std::span<const BindingSpan> bindings, std::span<const std::byte> constants) override;

private:
  Status submit(uint32_t invocation);
  Status fail(Status s) {
    std::string prefix = driver_->describe() + ": ", message = s.message();
    if (message.starts_with(prefix)) message.erase(0, prefix.size());
    return Status(s.code(), prefix + "entry '" + entryName_ + "': " + message);
  }

  std::string entryName_;
  KernelContract contract_;
  fx::Image image_;
  const fx::Entry *entry_ = nullptr;
  std::unique_ptr<amdxdna::Driver> driver_;
  format::ArrayPlan plan_;  // the emulator's host twins read it; must outlive them
  std::shared_ptr<HostCode> code_;
  std::vector<uint8_t> command_;
  std::vector<fx::Invocation> invocations_;
  std::vector<fx::Relocation> relocations_;
  uint32_t hwctx_ = 0;
  Bo heap_, instructions_, cmd_;
  std::vector<Bo> bindings_;
  std::mutex running_;
  bool established_ = false, quarantined_ = false;
  uint32_t next_ = 0;
};

AmdxdnaNpuKernel::~AmdxdnaNpuKernel() {
  if (quarantined_) return;  // accepted work may still use the storage: leak it
  for (const Bo &b : bindings_) (void)driver_->destroyBo(b);
  for (const Bo *b : {&cmd_, &instructions_, &heap_})
    if (b->handle) (void)driver_->destroyBo(*b);
  if (hwctx_) (void)driver_->destroyHwctx(hwctx_);
}

Status AmdxdnaNpuKernel::initialize(const ArtifactEntry &entry) {
  entry_ = image_.entry(entryName_);
  if (!entry_) return fail(Status(StatusCode::NotFound, "no such entry in the image"));
  if (entry_->allocationUseCount != 1 || entry_->staticRelocationCount)
    return fail(Status(StatusCode::Unimplemented,
                       "entries with DMA-domain allocations or static relocations are not supported"));
  uint32_t a = image_.allocationUses[entry_->firstAllocationUse];
  const fx::Allocation &alloc = image_.allocations[a];
  if (alloc.domain != fx::Domain::Command || alloc.alignment < fx::kNpu2InstructionAlignment)
    return fail(Status(StatusCode::FailedPrecondition, "the COMMAND allocation is aligned to " +
                                                           std::to_string(alloc.alignment) +
                                                           " bytes; the NPU2 instruction alignment is 32768"));
  command_.assign(alloc.byteLength, 0);
  for (const fx::Load &l : image_.loads)
    if (l.allocation == a) std::copy(l.bytes.begin(), l.bytes.end(), command_.begin() + long(l.offset));
  invocations_.assign(image_.invocations.begin() + entry_->firstInvocation,
                      image_.invocations.begin() + entry_->firstInvocation + entry_->invocationCount);
  relocations_.assign(image_.relocations.begin() + entry_->firstDynamicRelocation,
                      image_.relocations.begin() + entry_->firstDynamicRelocation + entry_->dynamicRelocationCount);
  for (const fx::Invocation &inv : invocations_)
    if (inv.byteOffset % fx::kNpu2InstructionAlignment)
      return fail(Status(StatusCode::FailedPrecondition, "an invocation starts at byte " +
                                                             std::to_string(inv.byteOffset) +
                                                             ", not on the 32768-byte instruction alignment"));

  auto ctx = driver_->createHwctx(4 * image_.header.columns);
  if (!ctx) return fail(ctx.status());
  hwctx_ = *ctx;
  auto heap = driver_->createBo(amdxdna::kBoDevHeap, kDeviceHeapBytes);
  if (!heap) return fail(heap.status());
  heap_ = *heap;
  auto ins = driver_->createBo(amdxdna::kBoShmem, command_.size());
  if (!ins) return fail(ins.status());
  instructions_ = *ins;
  if (instructions_.xdnaAddr % fx::kNpu2InstructionAlignment)
    return fail(
        Status(StatusCode::FailedPrecondition, "the instruction BO's device address is not 32768-byte aligned"));
  auto cmd = driver_->createBo(amdxdna::kBoCmd, kCommandBoBytes);
  if (!cmd) return fail(cmd.status());
  cmd_ = *cmd;
  for (const BindingContract &b : contract_.bindings) {
    auto bo = driver_->createBo(amdxdna::kBoShmem, std::max<uint64_t>(b.bytes, 4));
    if (!bo) return fail(bo.status());
    bindings_.push_back(*bo);
  }

  if (driver_->emulated()) {
    // The emulator's cores: the simulator on the program memory the commands write, for the
    // tiles that have native core code; the workers' host twins elsewhere.
    auto plan = std::find_if(entry.member->plans.begin(), entry.member->plans.end(),
                             [&](const format::ArrayPlan &p) { return p.name == entryName_; });
    const std::vector<uint8_t> *host = entry.member->section(fx::kHostSection);
    if (plan == entry.member->plans.end() || !host)
      return fail(Status(StatusCode::FailedPrecondition,
                         "the emulated amdxdna needs the image's .hrx.plan and .hrx.host for its host-twin cores"));
    plan_ = *plan;
    auto code = HostCode::load(std::as_bytes(std::span(*host)), entry.member->target + " .hrx.host");
    if (!code) return fail(code.status());
    code_ = *code;
    auto native = nativeCoreCode(*entry.member->xdna, entryName_);
    if (!native) return fail(native.status());
    auto cores = makeHostTwinCores(plan_, [&](const std::string &e) { return code_->stage(e); }, &*native);
    if (!cores) return fail(cores.status());
    if (Status s = driver_->attachHostTwins(hwctx_, std::move(*cores)); !s) return fail(s);
  }
  return Status::ok();
}

Status AmdxdnaNpuKernel::submit(uint32_t invocation) {
  const fx::Invocation &inv = invocations_[invocation];
  uint64_t address = instructions_.xdnaAddr + inv.byteOffset;
  uint32_t packet[6] = {amdxdna::ertHeader(amdxdna::kStateNew, 5, amdxdna::kOpcodeStartNpu),
                        1u,
                        uint32_t(address),
                        uint32_t(address >> 32),
                        inv.byteLength,
                        0};
  std::memcpy(cmd_.host, packet, sizeof packet);
  std::vector<uint32_t> args{instructions_.handle};
  for (const Bo &b : bindings_) args.push_back(b.handle);
  auto seq = driver_->execCmd(hwctx_, cmd_, args);
  if (!seq) return seq.status();
  if (Status s = driver_->waitCmd(hwctx_, *seq, waitMilliseconds()); !s) {
    if (s.code() == StatusCode::DeadlineExceeded) {
      quarantined_ = true;  // still accepted: keep its storage
      return Status(s.code(),
                    s.message() +
                        "; the command was not cancelled, so its BOs stay reserved and the entry is quarantined");
    }
    return s;
  }
  uint32_t header;
  std::memcpy(&header, cmd_.host, 4);
  uint32_t state = header & 0xF;
  if (state != amdxdna::kStateCompleted) {
    std::string why = driver_->lastError();
    return Status(StatusCode::Internal, "invocation " + std::to_string(invocation) + " retired in state " +
                                            amdxdna::cmdStateName(state) + (why.empty() ? "" : ": " + why));
  }
  next_ = inv.nextInvocation;
  return Status::ok();
}

Status AmdxdnaNpuKernel::run(std::span<const BindingSpan> bindings, std::span<const std::byte>) {
  std::lock_guard lock(running_);
  if (quarantined_)
    return fail(Status(StatusCode::DeviceLost,
                       "quarantined: an earlier command did not retire, so its storage stays reserved"));
  if (bindings.size() != bindings_.size())
    return fail(
        Status(StatusCode::InvalidArgument,
               std::to_string(bindings.size()) + " bindings given, the entry has " + std::to_string(bindings_.size())));
  for (size_t i = 0; i < bindings.size(); ++i) {
    if (bindings[i].length > bindings_[i].size)
      return fail(Status(StatusCode::InvalidArgument, "binding " + std::to_string(i) + " is larger than its BO"));
    std::memcpy(bindings_[i].host, bindings[i].data, bindings[i].length);
    if (Status s = driver_->syncBo(bindings_[i], amdxdna::kSyncToDevice); !s) return fail(s);
  }
  std::memcpy(instructions_.host, command_.data(), command_.size());
  for (const fx::Relocation &r : relocations_) {
    auto *field = reinterpret_cast<uint8_t *>(instructions_.host) + r.byteOffset;
    if (Status s = fx::applyShimAddress(std::span<uint8_t, 8>(field, 8), bindings_[r.sourceOrdinal].xdnaAddr, r); !s)
      return fail(Status(s.code(), "relocation of binding " + std::to_string(r.sourceOrdinal) + ": " + s.message()));
  }
  if (Status s = driver_->syncBo(instructions_, amdxdna::kSyncToDevice); !s) return fail(s);
  if (driver_->emulated()) driver_->startHostTwinDispatch(hwctx_);
  for (uint32_t i : fx::dispatchOrder(invocations_, established_, next_))
    if (Status s = submit(i); !s) {
      established_ = false;
      return fail(s);
    }
  established_ = true;
  for (size_t i = 0; i < bindings.size(); ++i) {
    if (contract_.bindings[i].access == format::ContractAccess::Read) continue;
    if (Status s = driver_->syncBo(bindings_[i], amdxdna::kSyncFromDevice); !s) return fail(s);
    std::memcpy(bindings[i].data, bindings_[i].host, bindings[i].length);
  }
  return Status::ok();
}

}  // namespace

bool npuEmulated() { return amdxdna::emulationRequested(); }

StatusOr<std::shared_ptr<Kernel>> loadOnNpu(const ArtifactEntry &entry, const Device &device,
                                            uint32_t requestedColumns) {
  if (entry.engine != Engine::Npu || !entry.member->xdna)
    return Status(StatusCode::FailedPrecondition, "entry '" + entry.name + "' is not an NPU entry");
  const char *mode = std::getenv("HRX_AMDXDNA");
  std::string how = mode ? mode : "";
  if (how.empty()) return checkNativeExecution(entry, device, requestedColumns);  // the libamdf route
  if (how != "emulated" && how != "native")
    return Status(StatusCode::InvalidArgument, "HRX_AMDXDNA=" + how + ": expected emulated or native");
  if (entry.member->target != device.target)
    return Status(StatusCode::FailedPrecondition, "artifact and device targets differ: the artifact is for " +
                                                      entry.member->target + ", the device is " + device.target);
  if (requestedColumns != entry.columns)
    return Status(StatusCode::FailedPrecondition, "the image needs exactly " + std::to_string(entry.columns) +
                                                      " column(s); " + std::to_string(requestedColumns) +
                                                      " were requested");
  // The image must match the admitted context in every field reference §1.3 lists (profile id
  // and revision, firmware ABI, rows, columns), as on the host device and the libamdf route.
  if (Status s = format::xdna::checkAdmission(*entry.member->xdna, format::xdna::kStrixHalo, requestedColumns); !s)
    return s;
  if (how == "native" && entry.member->referenceOnly()) {
    // On hardware a reference-only image (no core code) is refused exactly as before.
    Status s = checkNativeExecution(entry, device, requestedColumns);
    if (s.code() == StatusCode::FailedPrecondition) return s;
  }
  auto admitted = admitNpu(sysfsRoot(), device.index);
  if (!admitted) return admitted.status();
  auto driver = amdxdna::openDriver(admitted->identity.node);
  if (!driver) return driver.status();
  auto kernel = std::make_shared<AmdxdnaNpuKernel>(entry, std::move(*driver));
  if (Status s = kernel->initialize(entry); !s) return s;
  return std::shared_ptr<Kernel>(std::move(kernel));
}

}  // namespace hrx::runtime
