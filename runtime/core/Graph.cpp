// Graph recording, kernel contract checks, region formation and hazard inference.
#include "RuntimeImpl.h"

#include "BindingGuard.h"

#include <algorithm>
#include <limits>

namespace hrx::runtime {

const char *accessName(Access access) {
  switch (access) {
  case Access::Read: return "Read";
  case Access::Write: return "Write";
  case Access::ReadWrite: return "ReadWrite";
  }
  return "?";
}

const char *laneName(Lane lane) {
  switch (lane) {
  case Lane::Upload: return "upload";
  case Lane::Compute: return "compute";
  case Lane::Download: return "download";
  case Lane::Npu: return "npu";
  case Lane::Host: return "host";
  }
  return "?";
}

const char *hazardKindName(HazardKind kind) {
  switch (kind) {
  case HazardKind::ReadAfterWrite: return "RAW";
  case HazardKind::WriteAfterRead: return "WAR";
  case HazardKind::WriteAfterWrite: return "WAW";
  }
  return "?";
}

Access accessOf(format::ContractAccess access) {
  switch (access) {
  case format::ContractAccess::Read: return Access::Read;
  case format::ContractAccess::Write: return Access::Write;
  case format::ContractAccess::ReadWrite: return Access::ReadWrite;
  }
  return Access::ReadWrite;
}

// Every buffer must hold what the launch reaches for the scalar arguments given
// (view<[%n]xf32> needs 4 * n bytes), so no launch can run past a binding.
Status checkLaunchExtents(const std::vector<format::LaunchArgument> &arguments,
                          const std::vector<format::LaunchExtent> &extents, const KernelContract &contract,
                          std::span<const BufferView> views, std::span<const std::byte> constants) {
  auto scalars = std::span(reinterpret_cast<const uint8_t *>(constants.data()), constants.size());
  for (const format::LaunchExtent &extent : extents) {
    size_t b = 0;  // the binding: buffers before extent.buffer
    for (size_t i = 0; i < extent.buffer && i < arguments.size(); ++i)
      b += arguments[i].kind == format::LaunchArgumentKind::Buffer;
    if (b >= views.size()) continue;
    std::optional<uint64_t> required = format::requiredExtentBytes(extent, arguments, scalars);
    std::string relation = (extent.baseBytes ? std::to_string(extent.baseBytes) + " + " : std::string()) +
                           std::to_string(extent.bytesPerUnit) + " x launch argument " +
                           std::to_string(extent.argument);
    const std::string &layout = b < contract.bindings.size() ? contract.bindings[b].layout : "";
    std::string what = "binding " + std::to_string(b) + (layout.empty() ? "" : " (" + layout + ")");
    if (!required)
      return Status(StatusCode::InvalidArgument, what + ": the launch needs " + relation +
                                                     " bytes, which overflows 64 bits; the view has " +
                                                     std::to_string(views[b].length()) + " bytes");
    if (views[b].length() < *required) {
      uint64_t units = (*required - extent.baseBytes) / extent.bytesPerUnit;
      return Status(StatusCode::InvalidArgument, what + ": the launch needs " + std::to_string(*required) + " bytes (" +
                                                     relation + ", which is " + std::to_string(units) +
                                                     "), but the view has " + std::to_string(views[b].length()) +
                                                     " bytes; the launch would run past the binding");
    }
  }
  return Status::ok();
}

namespace {

// An integer argument's value, wide enough for every iN and uN.
__int128 integerValue(format::ScalarType type, std::span<const uint8_t> bytes) {
  uint64_t bits = 0;
  for (size_t b = 0; b < bytes.size() && b < 8; ++b) bits |= uint64_t(bytes[b]) << (8 * b);
  unsigned width = unsigned(format::scalarTypeBytes(type) * 8);
  bool isSigned = type >= format::ScalarType::I8 && type <= format::ScalarType::I64;
  if (isSigned && width < 64 && (bits >> (width - 1)) & 1) bits |= ~uint64_t(0) << width;
  return isSigned ? __int128(int64_t(bits)) : __int128(bits);
}

// "an i32 value", "a u64 value", "raw bytes".
std::string givenPhrase(const std::optional<format::ScalarType> &type) {
  if (!type) return "raw bytes";
  std::string name(format::scalarTypeName(*type));
  return (name[0] == 'i' || name[0] == 'f' ? "an " : "a ") + name + " value";
}

std::string integerText(__int128 v) { return v < 0 ? std::to_string(int64_t(v)) : std::to_string(uint64_t(v)); }

// [min, max] of an integer type.
std::pair<__int128, __int128> integerRange(format::ScalarType type) {
  if (type == format::ScalarType::Bool) return {0, 1};
  unsigned width = unsigned(format::scalarTypeBytes(type) * 8);
  bool isSigned = type >= format::ScalarType::I8 && type <= format::ScalarType::I64;
  if (isSigned) return {-(__int128(1) << (width - 1)), (__int128(1) << (width - 1)) - 1};
  return {0, (__int128(1) << width) - 1};
}

}  // namespace

StatusOr<std::vector<uint8_t>> convertScalarArgument(const std::vector<format::LaunchArgument> &arguments, size_t index,
                                                     const ScalarArgument &given) {
  if (index >= arguments.size() || arguments[index].kind != format::LaunchArgumentKind::Value)
    return Status(StatusCode::InvalidArgument,
                  format::describeLaunchArgument(arguments, index) + " is not a scalar argument");
  const format::LaunchArgument &a = arguments[index];
  std::string what = format::describeLaunchArgument(arguments, index);
  std::string givenType = given.type ? std::string(format::scalarTypeName(*given.type)) : "raw bytes";
  if (given.type && given.bytes.size() != format::scalarTypeBytes(*given.type))
    return Status(StatusCode::InvalidArgument, what + ": " + givenPhrase(given.type) + " has " +
                                                   std::to_string(format::scalarTypeBytes(*given.type)) + " bytes, " +
                                                   std::to_string(given.bytes.size()) + " were given");
  std::vector<uint8_t> bytes = given.bytes;
  if (a.type && given.type && *a.type != *given.type) {
    std::string expected(format::scalarTypeName(*a.type));
    if (!format::isIntegerType(*a.type) || !format::isIntegerType(*given.type))
      return Status(StatusCode::InvalidArgument,
                    what + " has type " + expected + ", but " + givenPhrase(given.type) + " was given");
    __int128 v = integerValue(*given.type, given.bytes);
    auto [min, max] = integerRange(*a.type);
    if (v < min || v > max)
      return Status(StatusCode::InvalidArgument, what + " has type " + expected + ": the " + givenType + " value " +
                                                     integerText(v) + " is out of its range [" + integerText(min) +
                                                     ", " + integerText(max) + "]");
    bytes.assign(format::scalarTypeBytes(*a.type), 0);
    for (size_t b = 0; b < bytes.size(); ++b) bytes[b] = uint8_t(uint64_t(v) >> (8 * b));
  }
  if (a.type == format::ScalarType::Bool && bytes.size() == 1 && bytes[0] > 1)
    return Status(StatusCode::InvalidArgument,
                  what + " has type bool: the value " + std::to_string(bytes[0]) + " is neither 0 nor 1");
  if (bytes.size() != a.size)
    return Status(StatusCode::InvalidArgument,
                  what + " is a scalar of " + std::to_string(a.size) + " bytes" +
                      (a.type ? " (" + std::string(format::scalarTypeName(*a.type)) + ")" : "") + ", but " +
                      (given.type ? givenPhrase(given.type) + " (" + std::to_string(bytes.size()) + " bytes) was given"
                                  : std::to_string(bytes.size()) + " raw bytes were given"));
  return bytes;
}

StatusOr<std::vector<std::byte>> packScalarArguments(const std::vector<format::LaunchArgument> &arguments,
                                                     std::span<const ScalarArgument> scalars) {
  std::vector<std::byte> constants;
  size_t next = 0, values = 0;
  for (const format::LaunchArgument &a : arguments) values += a.kind == format::LaunchArgumentKind::Value;
  if (scalars.size() != values)
    return Status(StatusCode::InvalidArgument, "the launch takes " + std::to_string(values) + " scalar argument(s), " +
                                                   std::to_string(scalars.size()) + " were given");
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i].kind != format::LaunchArgumentKind::Value) continue;
    auto bytes = convertScalarArgument(arguments, i, scalars[next++]);
    if (!bytes) return bytes.status();
    for (uint8_t byte : *bytes) constants.push_back(std::byte(byte));
  }
  return constants;
}

Status checkContract(const KernelContract &contract, std::span<const BufferView> views) {
  const auto &bindings = contract.bindings;
  if (views.size() != bindings.size())
    return Status(StatusCode::InvalidArgument, "kernel binding count mismatch: the contract has " +
                                                   std::to_string(bindings.size()) + " bindings, " +
                                                   std::to_string(views.size()) + " views were given");
  for (size_t i = 0; i < views.size(); ++i) {
    const BindingContract &b = bindings[i];
    const BufferView &v = views[i];
    if (!v.allocation()) return Status(StatusCode::InvalidArgument, "binding " + std::to_string(i) + " has no buffer");
    if (v.length() < b.bytes || v.offset() % b.alignment != 0)
      return Status(StatusCode::InvalidArgument,
                    "binding " + std::to_string(i) + " does not satisfy " +
                        (b.layout.empty() ? "its contract" : b.layout) + ": " + std::to_string(b.bytes) +
                        " bytes aligned to " + std::to_string(b.alignment) + " required; the view has " +
                        std::to_string(v.length()) + " bytes at offset " + std::to_string(v.offset()));
    auto address = reinterpret_cast<uintptr_t>(v.allocation()->data) + v.offset();
    if (address % b.alignment != 0)
      return Status(StatusCode::InvalidArgument, "binding " + std::to_string(i) +
                                                     ": allocation does not satisfy kernel alignment " +
                                                     std::to_string(b.alignment));
  }
  return Status::ok();
}

Graph::Graph(Runtime &runtime) : runtime_(&runtime) {}
Graph::~Graph() = default;
Graph::Graph(Graph &&) noexcept = default;

Status Graph::fill(const BufferView &view, uint8_t value) {
  if (!view.allocation()) return Status(StatusCode::InvalidArgument, "fill of an empty view");
  auto op = std::make_unique<GraphOp>();
  op->kind = GraphOp::Kind::Fill;
  op->fillValue = value;
  op->uses.push_back({view, Access::Write});
  ops_.push_back(std::move(op));
  return Status::ok();
}

static Lane copyLane(const BufferView &dst, const BufferView &src) {
  bool fromHost = src.placement().hostMapped(), toHost = dst.placement().hostMapped();
  if (fromHost && !toHost) return Lane::Upload;
  if (!fromHost && toHost) return Lane::Download;
  return Lane::Compute;
}

Status Graph::copy(const BufferView &dst, const BufferView &src) {
  if (!dst.allocation() || !src.allocation()) return Status(StatusCode::InvalidArgument, "copy of an empty view");
  return copyOn(dst, src, copyLane(dst, src));
}

Status Graph::copyOn(const BufferView &dst, const BufferView &src, Lane lane) {
  if (!dst.allocation() || !src.allocation()) return Status(StatusCode::InvalidArgument, "copy of an empty view");
  if (dst.length() != src.length() || dst.overlaps(src))
    return Status(StatusCode::InvalidArgument, "copy needs equal, nonoverlapping ranges (destination " +
                                                   std::to_string(dst.length()) + " bytes, source " +
                                                   std::to_string(src.length()) + " bytes)");
  if (lane == Lane::Npu || lane == Lane::Host)
    return Status(StatusCode::InvalidArgument, std::string("copies cannot run on the ") + laneName(lane) + " lane");
  auto op = std::make_unique<GraphOp>();
  op->kind = GraphOp::Kind::Copy;
  op->lane = lane;
  op->uses.push_back({dst, Access::Write});
  op->uses.push_back({src, Access::Read});
  ops_.push_back(std::move(op));
  return Status::ok();
}

Status Graph::gpu(std::shared_ptr<Kernel> kernel, std::vector<BufferView> views, std::span<const std::byte> constants) {
  return recordKernel(std::move(kernel), std::move(views), constants, Engine::Gpu, true);
}

Status Graph::gpuAliasing(std::shared_ptr<Kernel> kernel, std::vector<BufferView> views,
                          std::span<const std::byte> constants) {
  return recordKernel(std::move(kernel), std::move(views), constants, Engine::Gpu, false);
}

Status Graph::npu(std::shared_ptr<Kernel> kernel, std::vector<BufferView> views) {
  return recordKernel(std::move(kernel), std::move(views), {}, Engine::Npu, true);
}

Status Graph::recordKernel(std::shared_ptr<Kernel> kernel, std::vector<BufferView> views,
                           std::span<const std::byte> constants, Engine engine, bool checkAliasing) {
  if (!kernel) return Status(StatusCode::InvalidArgument, "null kernel");
  if (kernel->engine() != engine)
    return Status(StatusCode::InvalidArgument, "kernel '" + kernel->name() + "' is a " + engineName(kernel->engine()) +
                                                   " kernel and cannot be recorded as a " + engineName(engine) +
                                                   " operation");
  const KernelContract &contract = kernel->contract();
  if (Status s = checkContract(contract, views); !s)
    return Status(s.code(), "kernel '" + kernel->name() + "': " + s.message());
  if (constants.size() != kernel->constantBytes())
    return Status(StatusCode::InvalidArgument, "kernel '" + kernel->name() + "': its scalar arguments take " +
                                                   std::to_string(kernel->constantBytes()) + " constant bytes, " +
                                                   std::to_string(constants.size()) + " were given");
  if (Status s = kernel->checkLaunch(views, constants); !s)
    return Status(s.code(), "kernel '" + kernel->name() + "': " + s.message());
  for (size_t i = 0; i < views.size(); ++i) {
    Placement::Kind kind = views[i].placement().kind();
    if (engine == Engine::Gpu && kind == Placement::Kind::NpuLocal)
      return Status(StatusCode::InvalidArgument,
                    "binding " + std::to_string(i) + ": NPU-local storage cannot bind to the GPU");
    if (engine == Engine::Npu && kind == Placement::Kind::GpuLocal)
      return Status(StatusCode::InvalidArgument,
                    "binding " + std::to_string(i) + ": GPU-local memory cannot bind to the NPU; use Shared placement");
    if (!checkAliasing) continue;
    for (size_t j = 0; j < i; ++j)
      if (views[i].overlaps(views[j]) &&
          (writes(accessOf(contract.bindings[i].access)) || writes(accessOf(contract.bindings[j].access))))
        return Status(StatusCode::InvalidArgument, "bindings " + std::to_string(j) + " and " + std::to_string(i) +
                                                       ": overlapping writable kernel arguments require an unsafe "
                                                       "dispatch");
  }
  auto op = std::make_unique<GraphOp>();
  op->kind = GraphOp::Kind::Kernel;
  op->engine = engine;
  op->lane = engine == Engine::Npu ? Lane::Npu : Lane::Compute;
  for (size_t i = 0; i < views.size(); ++i) op->uses.push_back({views[i], accessOf(contract.bindings[i].access)});
  op->spans.resize(views.size());
  op->constants.assign(constants.begin(), constants.end());
  op->kernel = std::move(kernel);
  ops_.push_back(std::move(op));
  return Status::ok();
}

namespace {

// Two uses conflict when they touch the same bytes (any bytes of a Shared allocation, whose
// cache maintenance covers the whole allocation) and at least one writes.
bool touchSameBytes(const BufferView &a, const BufferView &b) {
  if (a.allocation() != b.allocation()) return false;
  return a.placement().kind() == Placement::Kind::Shared || a.overlaps(b);
}

// Which region class an op belongs to; consecutive ops of one class and lane share a region
// (every NPU op is its own region).
int regionClass(const GraphOp &op) {
  if (op.kind != GraphOp::Kind::Kernel) return 0;
  return op.engine == Engine::Gpu ? 1 : 2;
}

}  // namespace

StatusOr<Executable> Runtime::prepare(Graph &graph) {
  if (graph.ops_.empty()) return Status(StatusCode::InvalidArgument, "cannot prepare an empty graph");
  auto prepared = std::make_shared<PreparedGraph>();
  prepared->runtime = state_;
  prepared->ops = std::move(graph.ops_);
  graph.ops_.clear();

  // Regions in recording order.
  for (unsigned i = 0; i < prepared->ops.size(); ++i) {
    const GraphOp &op = *prepared->ops[i];
    bool extend = false;
    if (!prepared->regions.empty()) {
      const Region &last = prepared->regions.back();
      const GraphOp &prev = *prepared->ops[last.firstOp + last.opCount - 1];
      extend = regionClass(op) != 2 && regionClass(op) == regionClass(prev) && op.lane == prev.lane;
    }
    if (extend)
      ++prepared->regions.back().opCount;
    else
      prepared->regions.push_back(Region{op.lane, i, 1, 0, {}});
  }

  // Hazards between regions: RAW, WAR and WAW over overlapping bytes.
  auto &regions = prepared->regions;
  for (unsigned to = 1; to < regions.size(); ++to) {
    for (unsigned from = 0; from < to; ++from) {
      bool kinds[3] = {false, false, false};
      for (unsigned a = regions[from].firstOp; a < regions[from].firstOp + regions[from].opCount; ++a)
        for (const Use &earlier : prepared->ops[a]->uses)
          for (unsigned b = regions[to].firstOp; b < regions[to].firstOp + regions[to].opCount; ++b)
            for (const Use &later : prepared->ops[b]->uses) {
              if (!touchSameBytes(earlier.view, later.view)) continue;
              if (writes(earlier.access) && reads(later.access)) kinds[0] = true;
              if (reads(earlier.access) && writes(later.access)) kinds[1] = true;
              if (writes(earlier.access) && writes(later.access)) kinds[2] = true;
            }
      if (!kinds[0] && !kinds[1] && !kinds[2]) continue;
      for (unsigned k = 0; k < 3; ++k)
        if (kinds[k]) prepared->hazards.push_back(Hazard{from, to, static_cast<HazardKind>(k)});
      regions[from].successors.push_back(to);
      ++regions[to].predecessorCount;
    }
  }

  // Footprint per allocation, for host-guard checks and cross-submission reservations.
  for (const auto &op : prepared->ops)
    for (const Use &use : op->uses) {
      Allocation *alloc = use.view.allocation().get();
      bool whole = alloc->placement.kind() == Placement::Kind::Shared;
      uint64_t begin = whole ? 0 : use.view.offset(), end = whole ? alloc->size : use.view.offset() + use.view.length();
      auto it = std::find_if(prepared->footprint.begin(), prepared->footprint.end(),
                             [&](const Footprint &f) { return f.allocation == alloc; });
      if (it == prepared->footprint.end()) {
        prepared->footprint.push_back(Footprint{alloc, begin, end, writes(use.access)});
        prepared->allocations.push_back(use.view.allocation());
        continue;
      }
      it->begin = std::min(it->begin, begin);
      it->end = std::max(it->end, end);
      it->write = it->write || writes(use.access);
    }

  if (regions.size() == 1) {
    uint64_t bytes = 0;
    bool runtimeOps = true;
    for (const auto &op : prepared->ops) {
      runtimeOps = runtimeOps && op->kind != GraphOp::Kind::Kernel;
      // The destination's bytes; a kernel may have no uses at all (a HIP kernel with no parameters).
      if (!op->uses.empty()) bytes += op->uses[0].view.length();
    }
    prepared->inlineable = runtimeOps && bytes <= kInlineBytes;
  }

  // Preallocate every submission slot so that submit and replay allocate nothing.
  prepared->slots.resize(state_->options.graphSlots);
  for (SubmissionSlot &slot : prepared->slots) {
    slot.graph = prepared.get();
    slot.pendingPredecessors.resize(regions.size());
    slot.regionDone.resize(regions.size());
    slot.runs.resize(regions.size());
    for (unsigned r = 0; r < regions.size(); ++r) slot.runs[r] = RegionRun{&slot, r, nullptr};
    slot.dependents.reserve(state_->options.maxSubmissions);
  }
  return Executable(std::move(prepared));
}

Status executeRegion(PreparedGraph &graph, const Region &region, uint64_t &copiedBytes) {
  for (unsigned i = region.firstOp; i < region.firstOp + region.opCount; ++i) {
    GraphOp &op = *graph.ops[i];
    for (const Use &use : op.uses) use.view.allocation()->acquireVisibility(op.engine, writes(use.access));
    switch (op.kind) {
    case GraphOp::Kind::Fill: {
      const BufferView &v = op.uses[0].view;
      std::fill_n(v.allocation()->data + v.offset(), v.length(), static_cast<std::byte>(op.fillValue));
      break;
    }
    case GraphOp::Kind::Copy: {
      const BufferView &dst = op.uses[0].view, &src = op.uses[1].view;
      std::copy_n(src.allocation()->data + src.offset(), src.length(), dst.allocation()->data + dst.offset());
      copiedBytes += src.length();
      break;
    }
    case GraphOp::Kind::Kernel: {
      for (size_t b = 0; b < op.uses.size(); ++b) {
        const BufferView &v = op.uses[b].view;
        op.spans[b] = BindingSpan{v.allocation()->data + v.offset(), v.length()};
      }
      GuardedLaunch guarded(op.kernel->name().c_str(), op.spans);
      if (Status s = op.kernel->run(op.spans, op.constants); !s)
        return Status(s.code(),
                      "kernel '" + op.kernel->name() + "' on the " + laneName(op.lane) + " lane: " + s.message());
      break;
    }
    }
  }
  return Status::ok();
}

}  // namespace hrx::runtime
