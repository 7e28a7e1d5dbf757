#include "hrx/amdgpu/CodeObjectInfo.h"

#include <llvm/BinaryFormat/ELF.h>
#include <llvm/BinaryFormat/MsgPackDocument.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>

#include <algorithm>

namespace hrx::amdgpu {
namespace {

std::optional<uint64_t> unsignedField(llvm::msgpack::MapDocNode &map, llvm::StringRef key) {
  auto it = map.find(key);
  if (it == map.end()) return std::nullopt;
  llvm::msgpack::DocNode &node = it->second;
  if (node.getKind() == llvm::msgpack::Type::UInt) return node.getUInt();
  if (node.getKind() == llvm::msgpack::Type::Int && node.getInt() >= 0) return uint64_t(node.getInt());
  return std::nullopt;
}

std::string stringField(llvm::msgpack::MapDocNode &map, llvm::StringRef key) {
  auto it = map.find(key);
  if (it == map.end() || it->second.getKind() != llvm::msgpack::Type::String) return {};
  return it->second.getString().str();
}

uint64_t roundUp(uint64_t value, uint64_t granule) { return (value + granule - 1) / granule * granule; }

}  // namespace

std::optional<uint64_t> gfx1151Occupancy(uint64_t vgprs, uint64_t wavefrontSize, uint64_t ldsBytes,
                                         uint64_t workgroupSize, bool workgroupProcessorMode) {
  if (wavefrontSize != 32 && wavefrontSize != 64) return std::nullopt;
  const uint64_t maxWaves = 16;
  const uint64_t file = wavefrontSize == 32 ? 1536 : 768;
  const uint64_t granule = wavefrontSize == 32 ? 24 : 12;
  uint64_t waves = maxWaves;
  if (vgprs) waves = std::min(waves, file / roundUp(vgprs, granule));
  if (ldsBytes && workgroupSize) {
    // A WGP's workgroups share its 128 KiB over 4 SIMDs; in CU mode a workgroup stays on one CU,
    // whose half of the LDS serves its 2 SIMDs.
    const uint64_t lds = workgroupProcessorMode ? 128 * 1024 : 64 * 1024;
    const uint64_t simds = workgroupProcessorMode ? 4 : 2;
    uint64_t workgroups = lds / ldsBytes;
    uint64_t wavesPerGroup = (workgroupSize + wavefrontSize - 1) / wavefrontSize;
    waves = std::min(waves, workgroups * wavesPerGroup / simds);
  }
  return waves;
}

std::expected<CodeObjectInfo, std::string> readCodeObjectInfo(std::span<const uint8_t> hsaco) {
  llvm::StringRef data(reinterpret_cast<const char *>(hsaco.data()), hsaco.size());
  auto file = llvm::object::ELF64LEFile::create(data);
  if (!file) return std::unexpected(llvm::toString(file.takeError()));
  auto sections = file->sections();
  if (!sections) return std::unexpected(llvm::toString(sections.takeError()));

  CodeObjectInfo info;
  llvm::msgpack::Document document;
  bool found = false;
  for (const auto &section : *sections) {
    if (section.sh_type != llvm::ELF::SHT_NOTE) continue;
    llvm::Error error = llvm::Error::success();
    for (const auto &note : file->notes(section, error)) {
      if (note.getName() != "AMDGPU" || note.getType() != llvm::ELF::NT_AMDGPU_METADATA) continue;
      llvm::ArrayRef<uint8_t> desc = note.getDesc(section.sh_addralign);
      if (!document.readFromBlob(llvm::StringRef(reinterpret_cast<const char *>(desc.data()), desc.size()), false))
        return std::unexpected("NT_AMDGPU_METADATA is not valid MessagePack");
      found = true;
    }
    if (error) return std::unexpected(llvm::toString(std::move(error)));
  }
  if (!found) return std::unexpected("no NT_AMDGPU_METADATA note");
  if (document.getRoot().getKind() != llvm::msgpack::Type::Map)
    return std::unexpected("the metadata root is not a map");
  llvm::msgpack::MapDocNode &root = document.getRoot().getMap();
  info.target = stringField(root, "amdhsa.target");
  if (auto it = root.find("amdhsa.version"); it != root.end() && it->second.getKind() == llvm::msgpack::Type::Array)
    for (llvm::msgpack::DocNode &n : it->second.getArray())
      if (n.getKind() == llvm::msgpack::Type::UInt) info.version.push_back(n.getUInt());

  // Code bytes per kernel: the size of its function symbol.
  std::map<std::string, uint64_t> symbolSizes;
  for (const auto &section : *sections) {
    if (section.sh_type != llvm::ELF::SHT_SYMTAB && section.sh_type != llvm::ELF::SHT_DYNSYM) continue;
    auto symbols = file->symbols(&section);
    auto names = file->getStringTableForSymtab(section);
    if (!symbols || !names) {
      if (!symbols) llvm::consumeError(symbols.takeError());
      if (!names) llvm::consumeError(names.takeError());
      continue;
    }
    for (const auto &symbol : *symbols) {
      if (symbol.getType() != llvm::ELF::STT_FUNC) continue;
      if (auto name = symbol.getName(*names))
        symbolSizes[name->str()] = symbol.st_size;
      else
        llvm::consumeError(name.takeError());
    }
  }

  auto kernels = root.find("amdhsa.kernels");
  if (kernels == root.end() || kernels->second.getKind() != llvm::msgpack::Type::Array)
    return std::unexpected("the metadata has no amdhsa.kernels list");
  for (llvm::msgpack::DocNode &node : kernels->second.getArray()) {
    if (node.getKind() != llvm::msgpack::Type::Map) return std::unexpected("a kernel entry is not a map");
    llvm::msgpack::MapDocNode &k = node.getMap();
    KernelInfo kernel;
    kernel.name = stringField(k, ".name");
    kernel.kernargSegmentSize = unsignedField(k, ".kernarg_segment_size").value_or(0);
    kernel.vgprCount = unsignedField(k, ".vgpr_count");
    kernel.sgprCount = unsignedField(k, ".sgpr_count");
    kernel.vgprSpillCount = unsignedField(k, ".vgpr_spill_count");
    kernel.sgprSpillCount = unsignedField(k, ".sgpr_spill_count");
    kernel.ldsBytes = unsignedField(k, ".group_segment_fixed_size");
    kernel.privateBytes = unsignedField(k, ".private_segment_fixed_size");
    kernel.wavefrontSize = unsignedField(k, ".wavefront_size");
    kernel.maxFlatWorkgroupSize = unsignedField(k, ".max_flat_workgroup_size");
    if (auto wgp = unsignedField(k, ".workgroup_processor_mode")) kernel.workgroupProcessorMode = *wgp != 0;
    if (auto it = symbolSizes.find(kernel.name); it != symbolSizes.end()) kernel.codeBytes = it->second;
    if (auto args = k.find(".args"); args != k.end() && args->second.getKind() == llvm::msgpack::Type::Array) {
      for (llvm::msgpack::DocNode &a : args->second.getArray()) {
        if (a.getKind() != llvm::msgpack::Type::Map) continue;
        llvm::msgpack::MapDocNode &arg = a.getMap();
        kernel.kernargs.push_back({unsignedField(arg, ".offset").value_or(0), unsignedField(arg, ".size").value_or(0),
                                   stringField(arg, ".value_kind")});
      }
    }
    if (kernel.vgprCount && kernel.wavefrontSize)
      kernel.occupancyWavesPerSimd =
          gfx1151Occupancy(*kernel.vgprCount, *kernel.wavefrontSize, kernel.ldsBytes.value_or(0),
                           kernel.maxFlatWorkgroupSize.value_or(0), kernel.workgroupProcessorMode.value_or(true));
    info.kernels.push_back(std::move(kernel));
  }
  return info;
}

}  // namespace hrx::amdgpu
