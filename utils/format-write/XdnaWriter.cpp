#include "hrx/format/XdnaWriter.h"

#include "Bytes.h"
#include "XdnaLayout.h"

#include <algorithm>
#include <tuple>

namespace hrx::format::xdna {
using namespace detail;
using namespace layout;  // the layout readImage checks

namespace {

std::vector<uint8_t> encodeMetadata(const Image &image, const std::vector<Allocation> &allocations) {
  ByteWriter names;
  std::vector<std::pair<uint32_t, uint32_t>> nameSlices;
  for (const Entry &e : image.entries) {
    nameSlices.push_back({uint32_t(names.size()), uint32_t(e.name.size())});
    names.append(e.name);
  }
  ByteWriter w;
  const Header &h = image.header;
  w.u32(kMetadataMagic);
  w.u16(kMetadataVersion);
  w.u16(h.nativeEncoding);
  w.u32(h.targetGeneration);
  w.u32(h.profileRevision);
  w.u64(h.profileId);
  w.u64(h.firmwareAbiId);
  w.u16(h.columns);
  w.u16(h.rows);
  for (size_t count : {allocations.size(), image.allocationUses.size(), image.entries.size(), image.bindings.size(),
                       image.relocations.size(), image.invocations.size(), names.size()})
    w.u32(uint32_t(count));
  for (const Allocation &a : allocations) {
    w.u32(uint32_t(a.domain));
    w.u32(a.flags);
    w.u64(a.byteLength);
    w.u64(a.alignment);
    w.u32(a.firstLoad);
    w.u32(a.loadCount);
  }
  for (uint32_t use : image.allocationUses) w.u32(use);
  for (size_t i = 0; i < image.entries.size(); ++i) {
    const Entry &e = image.entries[i];
    for (uint32_t v : {nameSlices[i].first, nameSlices[i].second, e.firstAllocationUse, e.allocationUseCount,
                       e.firstBinding, e.bindingCount, e.firstStaticRelocation, e.staticRelocationCount,
                       e.firstDynamicRelocation, e.dynamicRelocationCount, e.firstInvocation, e.invocationCount})
      w.u32(v);
  }
  for (const Binding &b : image.bindings) {
    w.u16(uint16_t(b.kind));
    w.u16(uint16_t(b.addressSpace));
    w.u16(b.access);
    w.u16(b.usage);
    for (uint64_t v : {b.minimumByteLength, b.minimumAlignment, b.minimumByteOffset, b.maximumByteOffset}) w.u64(v);
  }
  for (const Relocation &r : image.relocations) {
    w.u32(r.destinationUse);
    w.u32(r.sourceOrdinal);
    w.u32(r.byteOffset);
    w.u32(uint32_t(r.kind));
    w.u64(uint64_t(r.addend));
    w.u64(r.minimumValue);
    w.u64(r.maximumValue);
    w.u64(r.alignment);
  }
  for (const Invocation &inv : image.invocations)
    for (uint32_t v : {inv.allocationUse, inv.byteOffset, inv.byteLength, inv.nextInvocation}) w.u32(v);
  w.append(std::span<const uint8_t>(names.take()));
  return w.take();
}

void putProgramHeader(ByteWriter &w, uint32_t type, uint32_t offset, uint32_t vaddr, uint32_t paddr, uint32_t filesz,
                      uint32_t memsz, uint32_t align) {
  for (uint32_t v : {type, offset, vaddr, paddr, filesz, memsz, kFlagR, align}) w.u32(v);
}

}  // namespace

StatusOr<std::vector<uint8_t>> writeImage(const Image &input) {
  // Loads in allocation order, then by offset (input order breaks ties; the reader rejects
  // overlaps). std::stable_sort is avoided: libstdc++ 12 trips -Wdeprecated under C++23.
  std::vector<size_t> order(input.loads.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Load &x = input.loads[a], &y = input.loads[b];
    return std::tuple(x.allocation, x.offset, a) < std::tuple(y.allocation, y.offset, b);
  });
  std::vector<Load> loads;
  for (size_t i : order) loads.push_back(input.loads[i]);
  std::vector<Allocation> allocations = input.allocations;
  uint32_t next = 1;
  for (uint32_t a = 0; a < allocations.size(); ++a) {
    allocations[a].firstLoad = next;
    allocations[a].loadCount =
        uint32_t(std::count_if(loads.begin(), loads.end(), [&](const Load &l) { return l.allocation == a; }));
    next += allocations[a].loadCount;
  }
  if (next - 1 != loads.size())
    return Status(StatusCode::InvalidArgument, "XDNA writer: a load names an allocation that does not exist");
  std::vector<uint8_t> metadata = encodeMetadata(input, allocations);

  // Layout: ELF header | program headers | metadata | load payloads | section data |
  // .shstrtab | section headers.
  const uint32_t phnum = uint32_t(1 + loads.size());
  uint64_t cursor = kElfHeaderBytes + uint64_t(phnum) * kProgramHeaderBytes;
  auto alignUp = [](uint64_t v, uint64_t a) { return (v + a - 1) / a * a; };
  const uint64_t metadataOffset = alignUp(cursor, 8);
  cursor = metadataOffset + metadata.size();
  std::vector<uint64_t> loadOffsets;
  for (const Load &l : loads) {
    cursor = alignUp(cursor, kLoadAlign) + l.offset % kLoadAlign;
    loadOffsets.push_back(cursor);
    cursor += l.bytes.size();
  }
  struct Placed {
    std::string name;
    std::vector<uint8_t> data;
    uint32_t type, flags;
    uint64_t offset;
  };
  std::vector<Placed> sections;
  sections.push_back({std::string(kMetadataSectionName), {}, kShtProgbits, 0, metadataOffset});
  for (const Section &s : input.sections) {
    Placed p{s.name, s.bytes, kShtProgbits, 0, 0};
    if (s.compress) {
      ByteWriter chdr;
      chdr.u32(kElfCompressZstd);
      chdr.u32(uint32_t(s.bytes.size()));
      chdr.u32(1);
      chdr.append(std::span<const uint8_t>(zstdCompress(s.bytes)));
      p.data = chdr.take();
      p.flags = uint32_t(kSectionCompressed);
    }
    cursor = alignUp(cursor, 4);
    p.offset = cursor;
    cursor += p.data.size();
    sections.push_back(std::move(p));
  }
  ByteWriter strtab;
  strtab.u8(0);
  std::vector<uint32_t> nameOffsets;
  for (const Placed &p : sections) {
    nameOffsets.push_back(uint32_t(strtab.size()));
    strtab.append(p.name);
    strtab.u8(0);
  }
  uint32_t strtabName = uint32_t(strtab.size());
  strtab.append(".shstrtab");
  strtab.u8(0);
  std::vector<uint8_t> strtabBytes = strtab.take();
  const uint64_t strtabOffset = cursor;
  cursor += strtabBytes.size();
  const uint64_t shoff = alignUp(cursor, 4);
  const uint32_t shnum = uint32_t(sections.size() + 2);
  const uint64_t fileBytes = shoff + uint64_t(shnum) * kSectionHeaderBytes;
  if (fileBytes > UINT32_MAX)
    return Status(StatusCode::InvalidArgument, "XDNA writer: image exceeds the 4 GiB ELF32 limit");

  ByteWriter w;
  static constexpr uint8_t kIdent[16] = {0x7F, 'E', 'L', 'F', 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  w.append(std::span<const uint8_t>(kIdent));
  w.u16(ET_EXEC);
  w.u16(kMachineAie);
  w.u32(1);
  w.u32(0);
  w.u32(kElfHeaderBytes);
  w.u32(uint32_t(shoff));
  w.u32(kFlagsAie2p);
  w.u16(kElfHeaderBytes);
  w.u16(kProgramHeaderBytes);
  w.u16(uint16_t(phnum));
  w.u16(kSectionHeaderBytes);
  w.u16(uint16_t(shnum));
  w.u16(uint16_t(shnum - 1));
  putProgramHeader(w, kMetadataSegmentType, uint32_t(metadataOffset), 0, 0, uint32_t(metadata.size()),
                   uint32_t(metadata.size()), 8);
  for (size_t i = 0; i < loads.size(); ++i)
    putProgramHeader(w, kPtLoad, uint32_t(loadOffsets[i]), uint32_t(loads[i].offset), loads[i].allocation,
                     uint32_t(loads[i].bytes.size()), uint32_t(loads[i].memoryBytes), kLoadAlign);
  w.zeros(metadataOffset - w.size());
  w.append(std::span<const uint8_t>(metadata));
  for (size_t i = 0; i < loads.size(); ++i) {
    w.zeros(loadOffsets[i] - w.size());
    w.append(std::span<const uint8_t>(loads[i].bytes));
  }
  for (size_t i = 1; i < sections.size(); ++i) {
    w.zeros(sections[i].offset - w.size());
    w.append(std::span<const uint8_t>(sections[i].data));
  }
  w.append(std::span<const uint8_t>(strtabBytes));
  w.zeros(shoff - w.size());
  w.zeros(kSectionHeaderBytes);  // SHN_UNDEF
  auto sectionHeader = [&](uint32_t name, uint32_t type, uint32_t flags, uint64_t offset, uint64_t size) {
    for (uint32_t v : {name, type, flags, 0u, uint32_t(offset), uint32_t(size), 0u, 0u, 1u, 0u}) w.u32(v);
  };
  sectionHeader(nameOffsets[0], kShtProgbits, 0, metadataOffset, metadata.size());
  for (size_t i = 1; i < sections.size(); ++i)
    sectionHeader(nameOffsets[i], sections[i].type, sections[i].flags, sections[i].offset, sections[i].data.size());
  sectionHeader(strtabName, kShtStrtab, 0, strtabOffset, strtabBytes.size());
  std::vector<uint8_t> bytes = w.take();

  // The writer emits only what the reader accepts.
  auto check = readImage(bytes);
  if (!check.isOk())
    return Status(StatusCode::InvalidArgument, "XDNA writer refused an invalid image: " + check.status().message());
  return bytes;
}

std::vector<uint8_t> encodeTransactionHeader(const TransactionHeader &header) {
  ByteWriter w;
  for (uint8_t v : {uint8_t(0), uint8_t(1), uint8_t(4), uint8_t(6), header.columns, uint8_t(1), uint8_t(0), uint8_t(0)})
    w.u8(v);
  w.u32(header.operationCount);
  w.u32(header.totalBytes);
  return w.take();
}

}  // namespace hrx::format::xdna
