#include "RuntimeImpl.h"

#include "BindingGuard.h"

#include <cstdlib>

namespace hrx::runtime {

const char *engineName(Engine engine) {
  switch (engine) {
  case Engine::None: return "none";
  case Engine::Host: return "host";
  case Engine::Gpu: return "gpu";
  case Engine::Npu: return "npu";
  }
  return "?";
}

const char *Placement::name() const {
  switch (kind_) {
  case Kind::HostVisible: return "HostVisible";
  case Kind::GpuLocal: return "GpuLocal";
  case Kind::NpuLocal: return "NpuLocal";
  case Kind::Shared: return "Shared";
  }
  return "?";
}

Allocation::Allocation(std::shared_ptr<RuntimeState> runtime, Placement placement, uint64_t size, std::byte *data)
    : runtime(std::move(runtime)), placement(std::move(placement)), size(size), data(data) {}

Allocation::~Allocation() {
  // A poisoned allocation may still be under (uncertain) execution: leak its pages and keep
  // its budget charge rather than free memory a device might write.
  if (poisoned.load()) return;
  releaseGuarded(data, (size + 63) / 64 * 64);  // Runtime::allocate's rounding
  runtime->uncharge(size);
  runtime->liveBytes.fetch_sub(size);
}

void Allocation::acquireVisibility(Engine engine, bool write) {
  uint8_t bit = engineBit(engine);
  if (write) {
    uint8_t before = visibleTo.exchange(bit);
    if (before != 0 && !(before & bit)) runtime->cacheMaintenanceBytes.fetch_add(size);
    return;
  }
  uint8_t before = visibleTo.fetch_or(bit);
  if (before != 0 && !(before & bit)) runtime->cacheMaintenanceBytes.fetch_add(size);
}

const Placement &BufferView::placement() const { return allocation_->placement; }

StatusOr<BufferView> BufferView::slice(uint64_t offset, uint64_t length) const {
  if (!allocation_ || offset > length_ || length > length_ - offset)
    return Status(StatusCode::InvalidArgument, "buffer view is out of bounds: slice [" + std::to_string(offset) +
                                                   ", +" + std::to_string(length) + ") of a " +
                                                   std::to_string(length_) + "-byte view");
  return BufferView(allocation_, offset_ + offset, length);
}

bool BufferView::overlaps(const BufferView &other) const {
  return allocation_ && allocation_ == other.allocation_ && offset_ < other.offset_ + other.length_ &&
         other.offset_ < offset_ + length_;
}

uint64_t Buffer::size() const { return allocation_->size; }
const Placement &Buffer::placement() const { return allocation_->placement; }
BufferView Buffer::view() const { return BufferView(allocation_, 0, allocation_->size); }
bool Buffer::poisoned() const { return allocation_->poisoned.load(); }

StatusOr<MapGuard> Buffer::map(bool writable, bool wait) const {
  Allocation &a = *allocation_;
  if (!a.placement.hostMapped())
    return Status(StatusCode::FailedPrecondition,
                  "GPU-local memory is not host mapped; use an explicit graph copy to shared storage");
  std::unique_lock lock(a.mutex);
  auto deviceConflict = [&] { return writable ? a.deviceReaders + a.deviceWriters > 0 : a.deviceWriters > 0; };
  for (;;) {
    if (a.poisoned.load())
      return Status(StatusCode::DeviceLost, "allocation is poisoned: its device work could not be proven retired");
    if (a.hostWriter || (writable && a.hostReaders > 0)) return Status(StatusCode::Busy, "conflicting host mapping");
    if (!deviceConflict()) break;
    if (!wait) return Status(StatusCode::Busy, "allocation is in device use");
    a.changed.wait(lock);
  }
  if (writable)
    a.hostWriter = true;
  else
    ++a.hostReaders;
  lock.unlock();
  a.acquireVisibility(Engine::Host, false);
  return MapGuard(allocation_, writable);
}

MapGuard::MapGuard(std::shared_ptr<Allocation> allocation, bool writable)
    : allocation_(std::move(allocation)), data_(allocation_->data), length_(allocation_->size), writable_(writable) {}

MapGuard::MapGuard(MapGuard &&other) noexcept
    : allocation_(std::move(other.allocation_)), data_(other.data_), length_(other.length_),
      writable_(other.writable_) {}

MapGuard &MapGuard::operator=(MapGuard &&other) noexcept {
  if (this != &other) {
    release();
    allocation_ = std::move(other.allocation_);
    data_ = other.data_;
    length_ = other.length_;
    writable_ = other.writable_;
  }
  return *this;
}

MapGuard::~MapGuard() { release(); }

void MapGuard::release() {
  if (!allocation_) return;
  Allocation &a = *allocation_;
  {
    std::lock_guard lock(a.mutex);
    if (writable_)
      a.hostWriter = false;
    else
      --a.hostReaders;
  }
  // The host wrote last: the next device consumer must see the data flushed first.
  if (writable_) a.acquireVisibility(Engine::Host, true);
  a.changed.notify_all();
  allocation_.reset();
}

}  // namespace hrx::runtime
