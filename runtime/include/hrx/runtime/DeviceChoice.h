// Which device a tool runs on: `--device=auto|host|npu|gpu` (else $HRX_DEVICE, else auto).
// auto takes the qualified native device when there is one and the work can run on it
// natively, otherwise the host reference device, with a one-line announcement saying why.
// An explicit npu or gpu never falls back: its admission error is the answer.
#pragma once

#include "hrx/runtime/Export.h"
#include "hrx/runtime/Loader.h"
#include "hrx/runtime/Runtime.h"

#include <string>
#include <string_view>

namespace hrx::runtime {

enum class DeviceRequest { Auto, Host, Npu, Gpu };

// `flag` is the --device value ("" when not given): then $HRX_DEVICE, then auto.
// InvalidArgument "unknown device 'tpu'; expected auto, host, npu or gpu".
HRX_RUNTIME_API StatusOr<DeviceRequest> parseDeviceRequest(std::string_view flag);

struct HRX_RUNTIME_API DeviceChoice {
  Device device;
  // Set when auto chose the host reference device: "no qualified NPU (no accel node under
  // /sys/class/accel); running on the host reference device".
  std::string announcement;
};

// For one entry: auto runs natively only when admission and checkNativeExecution pass. An
// explicit npu/gpu returns the admitted device (the caller reports checkNativeExecution's
// answer) or the admission error.
HRX_RUNTIME_API StatusOr<DeviceChoice> chooseDevice(const Runtime &runtime, DeviceRequest request,
                                                    const ArtifactEntry &entry, uint32_t columns);

// For an engine before any artifact is loaded (the examples): auto runs natively only when the
// device is admitted and this runtime can execute on it natively.
HRX_RUNTIME_API StatusOr<DeviceChoice> chooseDevice(const Runtime &runtime, DeviceRequest request, Engine engine);

// Whether this runtime can execute natively on an admitted device: the native library must be
// installed, and native execution must be implemented (it is not in this build: Unimplemented).
HRX_RUNTIME_API Status nativeExecutionSupport(Engine engine);

// `hrx-run --list_devices`: one line per device admission finds, qualified or not, with the
// reason, then the host reference device.
HRX_RUNTIME_API std::string describeDevices();

}  // namespace hrx::runtime
