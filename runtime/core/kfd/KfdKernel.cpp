// A GPU entry on the KFD device: the code object loaded into executable GPU memory, a kernarg
// segment in GTT memory, and one AQL dispatch per invocation.
#include "Kernargs.h"
#include "KfdDevice.h"

#include "hrx/format/Bundle.h"
#include "hrx/format/ElfReader.h"
#include "hrx/runtime/Admission.h"
#include "hrx/runtime/GpuDevice.h"
#include "hrx/runtime/HostDevice.h"

#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>

namespace hrx::runtime {
namespace {

using kfd::DispatchGeometry;
using kfd::GpuMemory;
using kfd::KfdDevice;

// A defined object symbol of the code object: its offset in the loaded image and its size.
struct ImageSymbol {
  uint64_t offset = 0, bytes = 0;
};

// The code object's .dynsym objects named by the manifest's device globals.
StatusOr<std::map<std::string, ImageSymbol>> deviceGlobalSymbols(std::span<const uint8_t> elf,
                                                                 const std::vector<format::DeviceGlobal> &globals) {
  std::map<std::string, ImageSymbol> found;
  if (globals.empty()) return found;
  auto reader = format::elf::ElfReader::open(elf, format::elf::ElfClass::Elf64);
  if (!reader) return Status(StatusCode::InvalidArgument, "code object: " + reader.error().message());
  auto sections = reader->sectionHeaders();
  if (!sections) return Status(StatusCode::InvalidArgument, "code object: " + sections.error().message());
  for (uint32_t i = 0; i < sections->size(); ++i) {
    const format::elf::SectionHeader &sh = (*sections)[i];
    if (sh.type != 11 /* SHT_DYNSYM */ || sh.link >= sections->size()) continue;
    auto table = reader->sectionData(i, sh);
    auto strings = reader->sectionData(sh.link, (*sections)[sh.link]);
    if (!table || !strings) continue;
    for (uint64_t k = 0; k < table->size() / reader->sizes().symbol; ++k) {
      format::elf::Symbol symbol = reader->symbol(*table, k);
      auto name = format::elf::ElfReader::stringAt(*strings, symbol.name);
      if (name && symbol.type() == 1 /* STT_OBJECT */ && symbol.shndx != 0)
        found.emplace(std::string(*name), ImageSymbol{symbol.value, symbol.size});
    }
  }
  for (const format::DeviceGlobal &g : globals) {
    auto it = found.find(g.symbol);
    if (it == found.end() || it->second.bytes != g.bytes)
      return Status(StatusCode::InvalidArgument, "code object: the manifest's device global '" + g.symbol + "' (" +
                                                     std::to_string(g.bytes) +
                                                     " bytes) is not a .dynsym object of that size");
  }
  std::erase_if(found, [&](const auto &entry) {
    return std::none_of(globals.begin(), globals.end(),
                        [&](const format::DeviceGlobal &g) { return g.symbol == entry.first; });
  });
  return found;
}

class KfdGpuKernel final : public Kernel {
public:
  KfdGpuKernel(std::string name, KernelContract contract, std::shared_ptr<KfdDevice> device,
               std::shared_ptr<const kfd::HostTwinProgram> program, format::CodeObjectKernel kernel,
               DispatchGeometry geometry, GpuMemory code, GpuMemory kernargs, uint64_t constantBytes,
               std::vector<format::LaunchArgument> launch, std::vector<format::LaunchExtent> extents,
               std::map<std::string, ImageSymbol> globals)
      : name_(std::move(name)), contract_(std::move(contract)), device_(std::move(device)),
        program_(std::move(program)), kernel_(std::move(kernel)), geometry_(geometry), code_(code), kernargs_(kernargs),
        constantBytes_(constantBytes), launch_(std::move(launch)), extents_(std::move(extents)),
        globals_(std::move(globals)) {
    buffers_.resize(contract_.bindings.size());
    ranges_.resize(contract_.bindings.size());
  }
  ~KfdGpuKernel() override {
    if (program_) device_->system().detachProgram(code_.va);
    device_->release(kernargs_);
    device_->release(code_);
  }

  Engine engine() const override { return Engine::Gpu; }
  const std::string &name() const override { return name_; }
  const KernelContract &contract() const override { return contract_; }
  uint64_t imageBytes() const override { return 0; }  // code objects are not charged (reference §5.6)
  uint64_t constantBytes() const override { return constantBytes_; }
  // As on the host device: a launch whose scalars would reach past a binding is refused before
  // it is recorded (the guards would otherwise only catch it while the kernel runs).
  Status checkLaunch(std::span<const BufferView> views, std::span<const std::byte> constants) const override {
    return checkLaunchExtents(launch_, extents_, contract_, views, constants);
  }

  Status run(std::span<const BindingSpan> bindings, std::span<const std::byte> constants) override {
    std::lock_guard lock(running_);  // one kernarg segment: one invocation at a time
    if (bindings.size() != buffers_.size())
      return Status(StatusCode::InvalidArgument, "kernel '" + name_ + "': " + std::to_string(bindings.size()) +
                                                     " bindings given, the kernel has " +
                                                     std::to_string(buffers_.size()));
    if (constants.size() != constantBytes_)
      return Status(StatusCode::InvalidArgument, "kernel '" + name_ + "': " + std::to_string(constants.size()) +
                                                     " constant bytes given, its scalar arguments take " +
                                                     std::to_string(constantBytes_));
    for (size_t i = 0; i < bindings.size(); ++i) {
      buffers_[i] = KfdDevice::gpuAddress(bindings[i].data);
      ranges_[i] = {bindings[i].data, bindings[i].length};
    }
    std::span<std::byte> segment(kernargs_.host, kernargs_.size);
    if (Status s = kfd::writeKernargs(kernel_, buffers_, constants, geometry_, device_->queueAddress(), segment); !s)
      return s;
    kfd::KernelDispatchPacket packet =
        kfd::makeDispatchPacket(kernel_, geometry_, code_.va + kernel_.descriptorAddress, kernargs_.va, 0);
    return device_->dispatch(packet, ranges_, name_);
  }

  // The global lives in the loaded code object (GTT memory the host maps), as hipMemcpyToSymbol
  // writes it; the emulated driver copies it into the twin at the next dispatch.
  Status writeGlobal(std::string_view symbol, std::span<const std::byte> bytes) override {
    std::lock_guard lock(running_);
    auto global = globals_.find(std::string(symbol));
    if (global == globals_.end())
      return invalid("kernel '" + name_ + "': the code object has no device global '" + std::string(symbol) + "'");
    if (global->second.bytes != bytes.size() || global->second.offset + bytes.size() > code_.size)
      return invalid("kernel '" + name_ + "': global '" + std::string(symbol) + "' has " +
                     std::to_string(global->second.bytes) + " bytes, " + std::to_string(bytes.size()) + " were given");
    std::copy(bytes.begin(), bytes.end(), code_.host + global->second.offset);
    return Status::ok();
  }

private:
  static Status invalid(const std::string &what) { return Status(StatusCode::InvalidArgument, what); }
  std::string name_;
  KernelContract contract_;
  std::shared_ptr<KfdDevice> device_;
  std::shared_ptr<const kfd::HostTwinProgram> program_;  // emulator only
  format::CodeObjectKernel kernel_;
  DispatchGeometry geometry_;
  GpuMemory code_, kernargs_;
  uint64_t constantBytes_ = 0;
  std::vector<format::LaunchArgument> launch_;
  std::vector<format::LaunchExtent> extents_;
  std::vector<uint64_t> buffers_;
  std::vector<KfdDevice::HostRange> ranges_;
  std::map<std::string, ImageSymbol> globals_;
  std::mutex running_;
};

Status invalid(const std::string &what) { return Status(StatusCode::InvalidArgument, what); }

// The entry's host code (.hrx.host): it holds the launch program (workload -> grid) and, for
// the emulated KFD, the kernel's host twin.
StatusOr<std::shared_ptr<HostCode>> hostCodeOf(const format::Artifact &artifact, const std::string &entry) {
  const std::vector<uint8_t> *host = artifact.section(format::xdna::kHostSection);
  if (!host)
    return Status(StatusCode::FailedPrecondition,
                  "the " + artifact.target +
                      " artifact has no host code (.hrx.host): "
                      "its launch program, which turns the workload into the grid of entry '" +
                      entry + "', is missing");
  if (artifact.identity && !artifact.identity->hostSha256.empty()) {
    format::Sha256 sha;
    sha.update(*host);
    if (std::string actual = sha.finishHex(); actual != artifact.identity->hostSha256)
      return invalid("the " + artifact.target + " artifact's .hrx.host has SHA-256 " + actual +
                     ", but .hrx.identity host_sha256 records " + artifact.identity->hostSha256 +
                     ": the host code was altered after compilation");
  }
  return HostCode::load(std::as_bytes(std::span(*host)), artifact.target + " .hrx.host");
}

}  // namespace

StatusOr<std::shared_ptr<Kernel>> loadOnGpu(const ArtifactEntry &entry, const std::vector<uint64_t> &workload,
                                            const GpuLoadOptions &options) {
  const format::Artifact &artifact = *entry.member;
  if (entry.engine != Engine::Gpu || artifact.kind != format::ArtifactKind::Amdgpu)
    return invalid("entry '" + entry.name + "' is not a GPU entry; the gpu device runs AMDGPU code objects");
  if (artifact.target != kGpuTarget)
    return Status(StatusCode::FailedPrecondition, "artifact and device targets differ: the artifact is for " +
                                                      artifact.target + ", the device is " + kGpuTarget);
  auto codeObject = format::readAmdgpuCodeObject(artifact.codeObject);
  if (!codeObject) return codeObject.status();
  std::string symbol = entry.gpuLaunch ? entry.gpuLaunch->symbol : entry.name;
  const format::CodeObjectKernel *found = codeObject->find(entry.name);
  if (!found) found = codeObject->find(symbol);
  if (!found) return invalid("code object: entry '" + entry.name + "' has no kernel in amdhsa.kernels");
  format::CodeObjectKernel kernel = *found;
  // Private (scratch) memory needs the queue's scratch setup (amd_queue_t's scratch resource
  // and COMPUTE_TMPRING_SIZE), which this device does not do yet: refuse rather than fault.
  if (kernel.privateSegmentFixedSize > 0 || kernel.usesDynamicStack)
    return Status(StatusCode::Unimplemented,
                  "kernel '" + kernel.name + "' needs " +
                      (kernel.usesDynamicStack ? std::string("a dynamic stack")
                                               : std::to_string(kernel.privateSegmentFixedSize) +
                                                     " bytes of private memory per work-item") +
                      " (scratch), which the KFD GPU device does not set up yet; run it with --device=host");

  std::vector<format::LaunchArgument> launch;
  if (entry.gpuExport) {
    launch = entry.gpuExport->arguments;
    if (entry.gpuLaunch && workload.size() != entry.gpuLaunch->workloadBits.size())
      return invalid("GPU entry '" + entry.name + "' takes " + std::to_string(entry.gpuLaunch->workloadBits.size()) +
                     " workload value(s) (the kernel definition's arguments, for its launch program); " +
                     std::to_string(workload.size()) + " were given with --workload");
  } else {
    if (workload.empty())
      return invalid("GPU entry '" + entry.name +
                     "' needs its workload (the kernel definition's u64 workload "
                     "arguments) to evaluate the launch program; pass --workload");
    uint64_t offset = 0;
    for (size_t i = 0; i < entry.contract.bindings.size(); ++i, offset += 8)
      launch.push_back({offset, 8, format::LaunchArgumentKind::Buffer});
  }
  if (Status s = kfd::checkLaunchSignature(kernel, launch); !s) return s;
  uint64_t constantBytes = 0;
  size_t buffers = 0;
  for (const format::LaunchArgument &a : launch) {
    if (a.kind == format::LaunchArgumentKind::Value)
      constantBytes += a.size;
    else
      ++buffers;
  }
  if (buffers != entry.contract.bindings.size())
    return invalid("kernel '" + entry.name + "': the launch signature has " + std::to_string(buffers) +
                   " buffer argument(s), the contract " + std::to_string(entry.contract.bindings.size()) +
                   " binding(s)");

  auto host = hostCodeOf(artifact, entry.name);
  if (!host) return host.status();
  auto launchProgram = (*host)->launch(symbol);
  if (!launchProgram) return launchProgram.status();
  std::vector<uint64_t> values = workload;
  if (values.empty()) values.push_back(0);
  uint32_t grid[6] = {};
  (*launchProgram)(values.data(), grid);
  DispatchGeometry geometry;
  for (int d = 0; d < 3; ++d) {
    if (grid[d] == 0 || grid[3 + d] == 0)
      return invalid("kernel '" + entry.name + "': the launch program produced an empty grid");
    if (grid[3 + d] > 1024)
      return invalid("kernel '" + entry.name + "': the launch program's workgroup dimension " + std::to_string(d) +
                     " is " + std::to_string(grid[3 + d]) + " work-items, more than 1024");
    geometry.workgroupCount[d] = grid[d];
    geometry.workgroupSize[d] = uint16_t(grid[3 + d]);
  }
  // A Loom launch region's dynamic_workgroup_storage, or hrx-run --dynamic-lds if larger.
  uint64_t storage = (*host)->launchStorage(symbol, values.data());
  if (storage > UINT32_MAX)
    return invalid("kernel '" + entry.name + "': the launch program asks for " + std::to_string(storage) +
                   " bytes of dynamic workgroup storage");
  geometry.dynamicLdsBytes = std::max(options.dynamicLdsBytes, uint32_t(storage));
  if (Status s = kfd::checkGeometry(kernel, geometry); !s) return s;

  static const std::vector<format::DeviceGlobal> kNoGlobals;
  const std::vector<format::DeviceGlobal> &globals = artifact.manifest ? artifact.manifest->globals : kNoGlobals;
  auto globalSymbols = deviceGlobalSymbols(artifact.codeObject, globals);
  if (!globalSymbols) return globalSymbols.status();
  for (const auto &[name, at] : *globalSymbols)
    if (at.offset + at.bytes > codeObject->imageBytes)
      return invalid("code object: device global '" + name + "' lies past the loaded image");
  auto device = KfdDevice::shared(options.gpuIndex);
  if (!device) return device.status();
  auto code = (*device)->allocateGtt(codeObject->imageBytes, true, false);
  if (!code) return code.status();
  codeObject->loadImage(artifact.codeObject, code->va,
                        std::span(reinterpret_cast<uint8_t *>(code->host), codeObject->imageBytes));
  auto kernargs = (*device)->allocateGtt(std::max<uint64_t>(kernel.kernargSegmentSize, 64), false, true);
  if (!kernargs) {
    (*device)->release(*code);
    return kernargs.status();
  }
  std::shared_ptr<const kfd::HostTwinProgram> program;
  if ((*device)->system().emulated()) {
    auto twin = (*host)->kernel(symbol);
    if (!twin) {
      (*device)->release(*kernargs);
      (*device)->release(*code);
      return twin.status();
    }
    auto p = std::make_shared<kfd::HostTwinProgram>();
    p->loadBase = code->va;
    p->imageBytes = codeObject->imageBytes;
    p->codeObject = std::move(*codeObject);
    p->hostCode = *host;
    p->twins.emplace(kernel.name, *twin);
    for (const auto &[name, at] : *globalSymbols) {
      auto mirror = (*host)->global(name, at.bytes);
      if (!mirror) {
        (*device)->release(*kernargs);
        (*device)->release(*code);
        return mirror.status();
      }
      p->globals.push_back({at.offset, at.bytes, *mirror});
    }
    program = p;
    (*device)->system().attachProgram(program);
  }
  return std::shared_ptr<Kernel>(std::make_shared<KfdGpuKernel>(
      entry.name, entry.contract, *device, program, std::move(kernel), geometry, *code, *kernargs, constantBytes,
      launch, entry.gpuExport ? entry.gpuExport->extents : std::vector<format::LaunchExtent>(),
      std::move(*globalSymbols)));
}

StatusOr<std::string> describeGpuDevice(unsigned gpuIndex) {
  auto device = KfdDevice::shared(gpuIndex);
  if (!device) return device.status();
  return (*device)->describe();
}

std::vector<KfdRequirement> checkKfdRequirements() {
  std::vector<KfdRequirement> out;
  auto system = kfd::kfdSystemFromEnvironment();
  if (!system) {
    out.push_back({"interface", false, system.status().message()});
    return out;
  }
  bool emulated = (*system)->emulated();
  out.push_back({"interface", true,
                 emulated ? "emulated KFD (HRX_KFD=emulated): no kernel driver is used"
                          : "Linux KFD (/dev/kfd; HRX_KFD=emulated selects the emulator)"});
  std::string root = sysfsRoot();
  auto admitted = admitGpu(root);
  if (!admitted) {
    out.push_back({"gfx1151 node", false, admitted.status().message()});
    return out;
  }
  out.push_back({"gfx1151 node", true, "KFD node " + admitted->identity.node + " under " + root});
  auto node = kfd::readKfdNode(root, admitted->identity.node);
  if (!node) {
    out.push_back({"node properties", false, node.status().message()});
    return out;
  }
  auto sizes = kfd::cwsrSizes(*node);
  out.push_back({"node properties", sizes.isOk(),
                 sizes ? "gpu_id " + std::to_string(node->gpuId) + ", render minor " +
                             std::to_string(node->get("drm_render_minor")) + ", CWSR area " +
                             std::to_string(sizes->bufferBytes) + " bytes"
                       : sizes.status().message()});
  std::string render = "/dev/dri/renderD" + std::to_string(node->get("drm_render_minor"));
  if (!emulated) {
    for (const std::string &path : {std::string("/dev/kfd"), render}) {
      struct stat info{};
      if (::stat(path.c_str(), &info) != 0) {
        out.push_back({path, false, std::string("missing: ") + std::strerror(errno)});
        continue;
      }
      bool access = ::access(path.c_str(), R_OK | W_OK) == 0;
      const group *owner = ::getgrgid(info.st_gid);
      std::string groupName = owner ? owner->gr_name : std::to_string(info.st_gid);
      bool member = ::getegid() == info.st_gid;
      gid_t groups[256];
      int count = ::getgroups(256, groups);
      for (int i = 0; i < count; ++i) member |= groups[i] == info.st_gid;
      out.push_back(
          {path, access,
           std::string(access ? "read/write access" : "no read/write access") + " (group '" + groupName + "'" +
               (member ? ", a member" : ", not a member") + ")" +
               (access ? "" : "; add the user to the '" + groupName + "' group (usually 'render') and log in again")});
    }
  }
  int fd = (*system)->open("/dev/kfd", O_RDWR);
  if (fd < 0) {
    out.push_back({"interface version", false, "cannot open /dev/kfd: " + std::string(std::strerror(-fd))});
    return out;
  }
  kfd_ioctl_get_version_args version{};
  int rc = (*system)->ioctl(fd, AMDKFD_IOC_GET_VERSION, &version);
  (*system)->close(fd);
  if (rc < 0) {
    out.push_back({"interface version", false, "AMDKFD_IOC_GET_VERSION failed: " + std::string(std::strerror(-rc))});
    return out;
  }
  bool ok = version.major_version == kfd::kRequiredMajor && version.minor_version >= kfd::kRequiredMinor;
  out.push_back({"interface version", ok,
                 std::to_string(version.major_version) + "." + std::to_string(version.minor_version) +
                     (ok ? ""
                         : "; this runtime needs " + std::to_string(kfd::kRequiredMajor) + "." +
                               std::to_string(kfd::kRequiredMinor) + " or newer")});
  return out;
}

}  // namespace hrx::runtime
