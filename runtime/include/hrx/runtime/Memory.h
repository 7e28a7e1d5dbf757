// Memory: placements, buffers, views and host map guards (reference §5.2, §5.3).
#pragma once

#include "hrx/runtime/Export.h"
#include "hrx/runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace hrx::runtime {

// The engines that touch memory; visibility tracking records which one wrote last.
enum class Engine : uint8_t { None, Host, Gpu, Npu };
HRX_RUNTIME_API const char *engineName(Engine engine);

enum class DeviceKind : uint8_t { Host, Npu, Gpu };

// A device handle: `host` (the reference device, always available) or an admitted NPU/GPU.
struct HRX_RUNTIME_API Device {
  DeviceKind kind = DeviceKind::Host;
  unsigned index = 0;
  std::string target;  // "host", "amd.xdna.strix_halo.17f0_11", "gfx1151"
  bool operator==(const Device &) const = default;
};

class HRX_RUNTIME_API Placement {
public:
  enum class Kind : uint8_t { HostVisible, GpuLocal, NpuLocal, Shared };
  // Coherent host memory the GPU reaches; upload/download staging.
  static Placement HostVisible() { return Placement(Kind::HostVisible, {}); }
  // GPU pool memory; not host mapped.
  static Placement GpuLocal() { return Placement(Kind::GpuLocal, {}); }
  // Host-mapped storage of one NPU; cannot bind to the GPU.
  static Placement NpuLocal(const Device &npu) { return Placement(Kind::NpuLocal, npu); }
  // One backing both the GPU and the NPU reach (exported and imported once at allocation).
  static Placement Shared(const Device &npu) { return Placement(Kind::Shared, npu); }

  Kind kind() const { return kind_; }
  const Device &device() const { return device_; }
  bool hostMapped() const { return kind_ != Kind::GpuLocal; }
  const char *name() const;

private:
  Placement(Kind kind, Device device) : kind_(kind), device_(std::move(device)) {}
  Kind kind_;
  Device device_;
};

struct Allocation;  // runtime-internal backing
class Buffer;

// A checked byte range of one buffer. Views keep their root allocation alive.
class HRX_RUNTIME_API BufferView {
public:
  BufferView() = default;
  uint64_t offset() const { return offset_; }
  uint64_t length() const { return length_; }
  // A subrange relative to this view; InvalidArgument "buffer view is out of bounds" otherwise.
  StatusOr<BufferView> slice(uint64_t offset, uint64_t length) const;
  const std::shared_ptr<Allocation> &allocation() const { return allocation_; }
  const Placement &placement() const;
  // Whether two views touch overlapping bytes of the same allocation.
  bool overlaps(const BufferView &other) const;

private:
  friend class Buffer;
  BufferView(std::shared_ptr<Allocation> allocation, uint64_t offset, uint64_t length)
      : allocation_(std::move(allocation)), offset_(offset), length_(length) {}
  std::shared_ptr<Allocation> allocation_;
  uint64_t offset_ = 0, length_ = 0;
};

// A host mapping. Read guards share; a write guard is exclusive, and dropping it marks the
// host as the last writer so the next device consumer flushes first.
class HRX_RUNTIME_API MapGuard {
public:
  MapGuard(MapGuard &&other) noexcept;
  MapGuard &operator=(MapGuard &&other) noexcept;
  MapGuard(const MapGuard &) = delete;
  MapGuard &operator=(const MapGuard &) = delete;
  ~MapGuard();
  std::span<const std::byte> bytes() const { return {data_, length_}; }
  // Empty for read guards.
  std::span<std::byte> mutableBytes() const {
    return writable_ ? std::span<std::byte>(data_, length_) : std::span<std::byte>();
  }
  bool writable() const { return writable_; }

private:
  friend class Buffer;
  MapGuard(std::shared_ptr<Allocation> allocation, bool writable);
  void release();
  std::shared_ptr<Allocation> allocation_;
  std::byte *data_ = nullptr;
  uint64_t length_ = 0;
  bool writable_ = false;
};

class HRX_RUNTIME_API Buffer {
public:
  Buffer() = default;
  uint64_t size() const;
  const Placement &placement() const;
  BufferView view() const;
  StatusOr<BufferView> slice(uint64_t offset, uint64_t length) const { return view().slice(offset, length); }

  // Wait for conflicting device work, then map. A live conflicting host guard is Busy
  // "conflicting host mapping" at once; a poisoned allocation is DeviceLost.
  StatusOr<MapGuard> mapRead() const { return map(false, true); }
  StatusOr<MapGuard> mapWrite() const { return map(true, true); }
  // As above, but Busy "allocation is in device use" instead of waiting.
  StatusOr<MapGuard> tryMapRead() const { return map(false, false); }
  StatusOr<MapGuard> tryMapWrite() const { return map(true, false); }
  bool poisoned() const;

  const std::shared_ptr<Allocation> &allocation() const { return allocation_; }

private:
  friend class Runtime;
  explicit Buffer(std::shared_ptr<Allocation> allocation) : allocation_(std::move(allocation)) {}
  StatusOr<MapGuard> map(bool writable, bool wait) const;
  std::shared_ptr<Allocation> allocation_;
};

}  // namespace hrx::runtime
