#include "hrx/format/AmdgpuManifest.h"

#include "JsonFields.h"

#include <array>
#include <set>

namespace hrx::format {

using namespace detail;

namespace {

constexpr std::array<std::pair<std::string_view, LaunchArgumentKind>, 2> kKindNames{
    {{"buffer", LaunchArgumentKind::Buffer}, {"value", LaunchArgumentKind::Value}}};

constexpr std::array<std::pair<std::string_view, ScalarType>, 14> kScalarTypeNames{{{"bool", ScalarType::Bool},
                                                                                    {"i8", ScalarType::I8},
                                                                                    {"i16", ScalarType::I16},
                                                                                    {"i32", ScalarType::I32},
                                                                                    {"i64", ScalarType::I64},
                                                                                    {"u8", ScalarType::U8},
                                                                                    {"u16", ScalarType::U16},
                                                                                    {"u32", ScalarType::U32},
                                                                                    {"u64", ScalarType::U64},
                                                                                    {"f16", ScalarType::F16},
                                                                                    {"bf16", ScalarType::BF16},
                                                                                    {"f32", ScalarType::F32},
                                                                                    {"f64", ScalarType::F64},
                                                                                    {"pointer", ScalarType::Pointer}}};

constexpr uint64_t kSchemaVersion = 1;

void checkSchema(JsonObject &top) {
  uint64_t version = top.u64("schema_version");
  if (version != kSchemaVersion)
    failAt(top.pathOf("schema_version"), "unsupported version " + std::to_string(version) + " (this reader knows " +
                                             std::to_string(kSchemaVersion) + ")");
}

// A non-negative integer or null (the code object did not state it).
std::optional<uint64_t> optionalU64(JsonObject &object, std::string_view key) {
  JsonValue value = object.required(key);
  if (value.isNull()) return std::nullopt;
  if (value.isUnsigned()) return value.unsignedValue();
  return asU64(value, object.pathOf(key));  // (paths are spelled for errors only)
}

// Reads one export; errors inside name it ("export 'add_delta': exports[0].arguments[1].size: ...").
template <typename F> auto withinExport(const std::string &name, F &&body) {
  try {
    return body();
  } catch (const FormatError &error) {
    fail("export '" + name + "': " + error.message);
  }
}

AmdgpuResources readResources(JsonObject object) {
  AmdgpuResources r;
  r.codeBytes = optionalU64(object, "code_bytes");
  r.vgprCount = optionalU64(object, "vgpr_count");
  r.sgprCount = optionalU64(object, "sgpr_count");
  r.vgprSpillCount = optionalU64(object, "vgpr_spill_count");
  r.sgprSpillCount = optionalU64(object, "sgpr_spill_count");
  r.occupancyWavesPerSimd = optionalU64(object, "occupancy_waves_per_simd");
  JsonValue mode = object.required("workgroup_processor_mode");
  if (!mode.isNull()) {
    if (!mode.isBoolean()) failAt(object.pathOf("workgroup_processor_mode"), "expected a boolean or null");
    r.workgroupProcessorMode = mode.boolean();
  }
  object.finish();
  return r;
}

AmdgpuExport readExport(JsonObject object) {
  AmdgpuExport e;
  e.kernargBytes = object.u64("kernarg_bytes");
  const auto &arguments = object.array("arguments");
  uint64_t buffers = 0, constants = 0, end = 0;
  for (size_t i = 0; i < arguments.size(); ++i) {
    JsonObject a(arguments[i], object, "arguments", i);
    LaunchArgument arg;
    arg.offset = a.u64("offset", UINT32_MAX);
    arg.size = a.u64("size", UINT32_MAX);
    arg.kind = enumField<LaunchArgumentKind>(kKindNames, a, "kind", a.required("kind"));
    // Optional (artifacts before types were recorded have neither).
    if (auto name = a.optional("name")) {
      arg.name = name->isString() ? std::string(name->string()) : asString(*name, a.pathOf("name"));
      if (arg.name.empty()) failAt(a.pathOf("name"), "an argument name is not empty");
    }
    if (auto type = a.optional("type")) arg.type = enumField<ScalarType>(kScalarTypeNames, a, "type", *type);
    if (auto extents = a.optional("extents")) {
      if (arg.kind != LaunchArgumentKind::Buffer) failAt(a.pathOf("extents"), "only buffer arguments have extents");
      JsonValue list = extents->isArray() ? *extents : asArray(*extents, a.pathOf("extents"));
      for (size_t k = 0; k < list.size(); ++k) {
        JsonObject x(list[k], a, "extents", k);
        LaunchExtent extent;
        extent.buffer = i;
        extent.argument = x.u64("argument", UINT32_MAX);
        extent.bytesPerUnit = x.u64("bytes_per_unit");
        extent.baseBytes = x.u64("base_bytes");
        x.finish();
        if (extent.bytesPerUnit == 0) failAt(x.pathOf("bytes_per_unit"), "expected at least 1");
        e.extents.push_back(extent);
      }
    }
    a.finish();
    if (arg.size == 0) failAt(a.pathOf("size"), "an argument has at least one byte");
    if (arg.kind == LaunchArgumentKind::Buffer && arg.size != 8)
      failAt(a.pathOf("size"), "a buffer argument is a 64-bit pointer (8 bytes), found " + std::to_string(arg.size));
    if (arg.type && arg.kind == LaunchArgumentKind::Buffer && *arg.type != ScalarType::Pointer)
      failAt(a.pathOf("type"),
             "a buffer argument has type \"pointer\", found \"" + std::string(scalarTypeName(*arg.type)) + "\"");
    if (arg.type && scalarTypeBytes(*arg.type) != arg.size)
      failAt(a.pathOf("type"), "type \"" + std::string(scalarTypeName(*arg.type)) + "\" has " +
                                   std::to_string(scalarTypeBytes(*arg.type)) + " bytes, the argument " +
                                   std::to_string(arg.size));
    if (arg.offset < end)
      failAt(a.pathOf("offset"), "offset " + std::to_string(arg.offset) +
                                     " overlaps the previous argument (ending at " + std::to_string(end) + ")");
    end = arg.offset + arg.size;
    if (end > e.kernargBytes)
      failAt(a.pathOf("offset"),
             "argument ends at byte " + std::to_string(end) + ", past kernarg_bytes " + std::to_string(e.kernargBytes));
    (arg.kind == LaunchArgumentKind::Buffer ? buffers : constants) +=
        arg.kind == LaunchArgumentKind::Buffer ? 1 : arg.size;
    e.arguments.push_back(arg);
  }
  for (size_t k = 0; k < e.extents.size(); ++k) {
    uint64_t target = e.extents[k].argument;
    if (target >= e.arguments.size() || e.arguments[target].kind != LaunchArgumentKind::Value ||
        (e.arguments[target].size != 4 && e.arguments[target].size != 8))
      failAt(object.pathOf("arguments") + "[" + std::to_string(e.extents[k].buffer) + "].extents: argument",
             std::to_string(target) + " is not a 4- or 8-byte value argument");
  }
  e.bindingCount = object.u64("binding_count");
  if (e.bindingCount != buffers)
    failAt(object.pathOf("binding_count"),
           std::to_string(e.bindingCount) + " does not match the " + std::to_string(buffers) + " buffer argument(s)");
  e.constantBytes = object.u64("constant_bytes");
  if (e.constantBytes != constants)
    failAt(object.pathOf("constant_bytes"), std::to_string(e.constantBytes) +
                                                " does not match the value arguments' total size " +
                                                std::to_string(constants));
  e.ldsBytes = optionalU64(object, "lds_bytes");
  e.privateBytes = optionalU64(object, "private_bytes");
  e.wavefrontSize = optionalU64(object, "wavefront_size");
  if (e.wavefrontSize && *e.wavefrontSize != 32 && *e.wavefrontSize != 64)
    failAt(object.pathOf("wavefront_size"), "expected 32 or 64, found " + std::to_string(*e.wavefrontSize));
  e.maxFlatWorkgroupSize = optionalU64(object, "max_flat_workgroup_size");
  if (e.maxFlatWorkgroupSize && (*e.maxFlatWorkgroupSize == 0 || *e.maxFlatWorkgroupSize > 1024))
    failAt(object.pathOf("max_flat_workgroup_size"),
           "expected 1..1024, found " + std::to_string(*e.maxFlatWorkgroupSize));
  e.resources = readResources(JsonObject(object.required("resources"), object, "resources"));
  object.finish();
  return e;
}

}  // namespace

std::string_view launchArgumentKindName(LaunchArgumentKind kind) {
  return enumName<LaunchArgumentKind>(kKindNames, kind);
}

std::string_view scalarTypeName(ScalarType type) { return enumName<ScalarType>(kScalarTypeNames, type); }

std::optional<ScalarType> parseScalarType(std::string_view name) {
  for (const auto &[spelling, type] : kScalarTypeNames)
    if (spelling == name) return type;
  return std::nullopt;
}

uint64_t scalarTypeBytes(ScalarType type) {
  switch (type) {
  case ScalarType::Bool:
  case ScalarType::I8:
  case ScalarType::U8: return 1;
  case ScalarType::I16:
  case ScalarType::U16:
  case ScalarType::F16:
  case ScalarType::BF16: return 2;
  case ScalarType::I32:
  case ScalarType::U32:
  case ScalarType::F32: return 4;
  case ScalarType::I64:
  case ScalarType::U64:
  case ScalarType::F64:
  case ScalarType::Pointer: return 8;
  }
  return 0;
}

bool isIntegerType(ScalarType type) { return type <= ScalarType::U64; }
bool isFloatType(ScalarType type) { return type >= ScalarType::F16 && type <= ScalarType::F64; }

std::string describeLaunchArgument(const std::vector<LaunchArgument> &arguments, size_t index) {
  std::string text = "argument " + std::to_string(index);
  if (index < arguments.size() && !arguments[index].name.empty()) text += " (%" + arguments[index].name + ")";
  return text;
}

std::optional<uint64_t> requiredExtentBytes(const LaunchExtent &extent, const std::vector<LaunchArgument> &arguments,
                                            std::span<const uint8_t> constants) {
  uint64_t offset = 0;
  for (size_t i = 0; i < arguments.size() && i < extent.argument; ++i)
    if (arguments[i].kind == LaunchArgumentKind::Value) offset += arguments[i].size;
  if (extent.argument >= arguments.size()) return std::nullopt;
  uint64_t size = arguments[extent.argument].size;
  if (offset + size > constants.size()) return std::nullopt;
  uint64_t units = 0;
  for (uint64_t b = 0; b < size && b < 8; ++b) units |= uint64_t(constants[offset + b]) << (8 * b);
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(units, extent.bytesPerUnit, &bytes) ||
      __builtin_add_overflow(bytes, extent.baseBytes, &bytes))
    return std::nullopt;
  return bytes;
}

const AmdgpuExport *AmdgpuManifest::find(std::string_view name) const {
  for (const AmdgpuExport &e : exports)
    if (e.name == name) return &e;
  return nullptr;
}

StatusOr<AmdgpuManifest> readAmdgpuManifest(std::string_view json) {
  return guarded(".hrx.manifest: ", [&]() -> StatusOr<AmdgpuManifest> {
    JsonDocument document = parseJson(json, "the manifest");
    JsonObject top(document.root(), "");
    checkSchema(top);
    AmdgpuManifest manifest;
    manifest.target = top.string("target");
    manifest.codeObjectVersion = top.u64("code_object_version");
    manifest.processorMode = top.string("processor_mode");
    const auto &exports = top.array("exports");
    std::set<std::string> names;
    for (size_t i = 0; i < exports.size(); ++i) {
      std::string path = "exports[" + std::to_string(i) + "]";
      JsonObject object(exports[i], path);
      std::string name = object.string("name");
      if (!names.insert(name).second) failAt(object.pathOf("name"), "export '" + name + "' appears twice");
      AmdgpuExport e = withinExport(name, [&] { return readExport(object); });
      e.name = std::move(name);
      manifest.exports.push_back(std::move(e));
    }
    if (std::optional<JsonValue> globals = top.optional("globals")) {
      if (!globals->isArray()) failAt(top.pathOf("globals"), "expected an array");
      std::set<std::string> symbols;
      for (size_t i = 0; i < globals->size(); ++i) {
        JsonObject object((*globals)[i], "globals[" + std::to_string(i) + "]");
        DeviceGlobal g;
        g.name = object.string("name");
        g.symbol = object.string("symbol");
        if (g.name.empty()) failAt(object.pathOf("name"), "empty name");
        if (g.symbol.empty()) failAt(object.pathOf("symbol"), "empty symbol");
        if (!symbols.insert(g.symbol).second)
          failAt(object.pathOf("symbol"), "global '" + g.symbol + "' appears twice");
        if (std::optional<JsonValue> element = object.optional("element")) {
          g.element = parseEnum<ScalarType>(kScalarTypeNames, *element, object.pathOf("element"));
          if (*g.element == ScalarType::Pointer)
            failAt(object.pathOf("element"), "a global's element is a scalar type");
        }
        g.count = object.u64("count");
        g.bytes = object.u64("bytes");
        if (g.count == 0) failAt(object.pathOf("count"), "a global has at least one element");
        if (g.bytes == 0) failAt(object.pathOf("bytes"), "a global has at least one byte");
        if (g.element && (g.bytes % g.count || g.bytes / g.count != scalarTypeBytes(*g.element)))
          failAt(object.pathOf("bytes"), std::to_string(g.bytes) + " bytes is not " + std::to_string(g.count) + " x " +
                                             std::string(scalarTypeName(*g.element)));
        object.finish();
        manifest.globals.push_back(std::move(g));
      }
    }
    top.finish();
    return manifest;
  });
}

const DeviceGlobal *AmdgpuManifest::findGlobal(std::string_view nameOrSymbol) const {
  for (const DeviceGlobal &g : globals)
    if (g.symbol == nameOrSymbol) return &g;
  for (const DeviceGlobal &g : globals)
    if (g.name == nameOrSymbol) return &g;
  return nullptr;
}

StatusOr<std::vector<AmdgpuLaunch>> readAmdgpuLaunches(std::string_view json) {
  return guarded(".hrx.launch: ", [&]() -> StatusOr<std::vector<AmdgpuLaunch>> {
    JsonDocument document = parseJson(json, "the launch table");
    JsonObject top(document.root(), "");
    checkSchema(top);
    const auto &exports = top.array("exports");
    std::vector<AmdgpuLaunch> launches;
    std::set<std::string> names;
    for (size_t i = 0; i < exports.size(); ++i) {
      std::string path = "exports[" + std::to_string(i) + "]";
      JsonObject object(exports[i], path);
      AmdgpuLaunch launch;
      launch.name = object.string("name");
      if (!names.insert(launch.name).second)
        failAt(object.pathOf("name"), "export '" + launch.name + "' appears twice");
      withinExport(launch.name, [&] {
        launch.symbol = object.string("symbol");
        if (launch.symbol.empty()) failAt(object.pathOf("symbol"), "empty symbol");
        const auto &bits = object.array("workload_bits");
        for (size_t b = 0; b < bits.size(); ++b) {
          std::string at = object.pathOf("workload_bits") + "[" + std::to_string(b) + "]";
          uint64_t width = asU64(bits[b], at);
          if (width != 8 && width != 16 && width != 32 && width != 64)
            failAt(at, "expected 8, 16, 32 or 64, found " + std::to_string(width));
          launch.workloadBits.push_back(width);
        }
        launch.evaluator = object.string("evaluator");
        if (launch.evaluator != "hrx.launch." + launch.symbol)
          failAt(object.pathOf("evaluator"),
                 "expected \"hrx.launch." + launch.symbol + "\", found \"" + launch.evaluator + "\"");
        object.finish();
      });
      launches.push_back(std::move(launch));
    }
    top.finish();
    return launches;
  });
}

Status checkManifestAgainstLaunches(const AmdgpuManifest &manifest, const std::vector<AmdgpuLaunch> &launches) {
  for (const AmdgpuLaunch &launch : launches)
    if (!manifest.find(launch.name))
      return Status(StatusCode::InvalidArgument, ".hrx.launch: export '" + launch.name + "' is not in .hrx.manifest");
  for (const AmdgpuExport &e : manifest.exports) {
    bool found = false;
    for (const AmdgpuLaunch &launch : launches) found |= launch.name == e.name;
    if (!found)
      return Status(StatusCode::InvalidArgument, ".hrx.manifest: export '" + e.name + "' has no .hrx.launch entry");
  }
  return Status::ok();
}

}  // namespace hrx::format
