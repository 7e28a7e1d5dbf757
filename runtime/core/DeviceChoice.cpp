#include "hrx/runtime/DeviceChoice.h"

#include "hrx/runtime/Admission.h"
#include "hrx/runtime/GpuDevice.h"

#include <cstdlib>

namespace hrx::runtime {
namespace {

const char *engineTitle(Engine engine) { return engine == Engine::Npu ? "NPU" : "GPU"; }

// An admission or native-execution message without its "; use/run --device=host" advice:
// auto already takes that advice.
std::string withoutHostHint(const std::string &message) {
  for (const char *hint : {"; run it on the host", "; run with --device=host", "; use --device=host"})
    if (size_t at = message.find(hint); at != std::string::npos) return message.substr(0, at);
  return message;
}

// Why there is no qualified device, in a few words: "no accel node under /sys/class/accel",
// "accel0 is PCI 1022:17f0 revision 0x10 (NPU4, ...) under driver amdxdna".
std::string missingDeviceReason(Engine engine) {
  std::string root = sysfsRoot();
  if (engine == Engine::Npu) {
    std::vector<NpuIdentity> npus = enumerateNpus(root);
    if (npus.empty()) return "no accel node under " + root + "/class/accel";
    return npus.front().node + " is " + npus.front().describe();
  }
  std::vector<GpuIdentity> gpus = enumerateGpus(root);
  if (gpus.empty()) return "no GPU node in the KFD topology under " + root + "/class/kfd";
  return "KFD node " + gpus.front().node + " is " + gpus.front().target();
}

std::string hostAnnouncement(const std::string &why) { return why + "; running on the host reference device"; }

StatusOr<Device> admit(const Runtime &runtime, Engine engine) {
  return engine == Engine::Npu ? runtime.npu(0) : runtime.gpu();
}

}  // namespace

StatusOr<DeviceRequest> parseDeviceRequest(std::string_view flag) {
  std::string name(flag);
  if (name.empty())
    if (const char *env = std::getenv("HRX_DEVICE"); env && *env) name = env;
  if (name.empty() || name == "auto") return DeviceRequest::Auto;
  if (name == "host") return DeviceRequest::Host;
  if (name == "npu") return DeviceRequest::Npu;
  if (name == "gpu") return DeviceRequest::Gpu;
  return Status(StatusCode::InvalidArgument,
                "unknown device '" + name + "'; expected host, npu or gpu, or auto (the default)");
}

Status nativeExecutionSupport(Engine engine) {
  // The gpu device runs code objects through KFD itself (GpuDevice.h); its requirements
  // decide, not the native library.
  if (engine == Engine::Gpu) {
    for (const KfdRequirement &requirement : checkKfdRequirements())
      if (!requirement.satisfied)
        return Status(StatusCode::FailedPrecondition,
                      "the KFD path is not usable (" + requirement.name + ": " + requirement.detail + ")");
    return Status();
  }
  auto library = findNativeLibrary();
  if (!library) return library.status();
  return Status(StatusCode::Unimplemented, "native " + std::string(engineTitle(engine)) + " execution through " +
                                               *library + " is not implemented by this runtime");
}

StatusOr<DeviceChoice> chooseDevice(const Runtime &runtime, DeviceRequest request, Engine engine) {
  if (request == DeviceRequest::Host) return DeviceChoice{runtime.host(), ""};
  if (request != DeviceRequest::Auto) {
    auto device = admit(runtime, request == DeviceRequest::Npu ? Engine::Npu : Engine::Gpu);
    if (!device) return device.status();
    return DeviceChoice{*device, ""};
  }
  auto device = admit(runtime, engine);
  if (!device)
    return DeviceChoice{runtime.host(), hostAnnouncement("no qualified " + std::string(engineTitle(engine)) + " (" +
                                                         missingDeviceReason(engine) + ")")};
  if (Status native = nativeExecutionSupport(engine); !native)
    return DeviceChoice{runtime.host(),
                        hostAnnouncement("qualified " + std::string(engineTitle(engine)) + " " + device->target +
                                         ", but " + withoutHostHint(native.message()))};
  return DeviceChoice{*device, ""};
}

StatusOr<DeviceChoice> chooseDevice(const Runtime &runtime, DeviceRequest request, const ArtifactEntry &entry,
                                    uint32_t columns) {
  if (request != DeviceRequest::Auto) return chooseDevice(runtime, request, entry.engine);
  auto device = admit(runtime, entry.engine);
  if (!device)
    return DeviceChoice{runtime.host(), hostAnnouncement("no qualified " + std::string(engineTitle(entry.engine)) +
                                                         " (" + missingDeviceReason(entry.engine) + ")")};
  Status native = checkNativeExecution(entry, *device, columns);
  if (native && entry.engine == Engine::Gpu) native = nativeExecutionSupport(Engine::Gpu);
  if (!native) return DeviceChoice{runtime.host(), hostAnnouncement(withoutHostHint(native.message()))};
  return DeviceChoice{*device, ""};
}

std::string describeDevices() {
  std::string root = sysfsRoot(), out;
  std::vector<NpuIdentity> npus = enumerateNpus(root);
  if (npus.empty()) out += "npu: none (no accel node under " + root + "/class/accel)\n";
  for (size_t i = 0; i < npus.size(); ++i) {
    auto admitted = admitNpu(root, static_cast<unsigned>(i));
    out += "npu " + std::to_string(i) + " (" + npus[i].node +
           "): " + (admitted ? "qualified, " + npus[i].describe() : admitted.status().message()) + "\n";
  }
  std::vector<GpuIdentity> gpus = enumerateGpus(root);
  if (gpus.empty()) out += "gpu: none (no GPU node in the KFD topology under " + root + "/class/kfd)\n";
  for (size_t i = 0; i < gpus.size(); ++i) {
    auto admitted = admitGpu(root, static_cast<unsigned>(i));
    out += "gpu " + std::to_string(i) + " (KFD node " + gpus[i].node +
           "): " + (admitted ? "qualified, " + gpus[i].target() : admitted.status().message()) + "\n";
  }
  if (!npus.empty() || !gpus.empty()) {
    Status npu = nativeExecutionSupport(Engine::Npu);
    out += "native execution: " + (npu ? std::string("available") : withoutHostHint(npu.message())) + "\n";
  }
  out += "host: the host reference device, always available (runs " + std::string(kNpuTarget) + " images and " +
         kGpuTarget + " code objects on the CPU)\n";
  return out;
}

}  // namespace hrx::runtime
