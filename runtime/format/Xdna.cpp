#include "hrx/format/Xdna.h"

#include "hrx/format/ElfReader.h"

#include "hrx/support/Text.h"

#include "Bytes.h"
#include "JsonFields.h"
#include "XdnaLayout.h"

#include <algorithm>
#include <map>
#include <optional>
#include <sstream>

namespace hrx::format::xdna {
using namespace detail;
using namespace layout;

namespace {

constexpr uint32_t kMetadataHeaderBytes = 64;
constexpr uint32_t kAllocationRowBytes = 32;
constexpr uint32_t kEntryRowBytes = 48;
constexpr uint32_t kBindingRowBytes = 40;
constexpr uint32_t kRelocationRowBytes = 48;
constexpr uint32_t kInvocationRowBytes = 16;
constexpr uint64_t kMaxLoadCopyBytes = 256ull * 1024 * 1024;

using text::hex;  // hrx/support/Text.h
using text::num;

uint64_t metadataBytes(uint64_t a, uint64_t u, uint64_t e, uint64_t b, uint64_t r, uint64_t i, uint64_t s) {
  return kMetadataHeaderBytes + a * kAllocationRowBytes + u * 4 + e * kEntryRowBytes + b * kBindingRowBytes +
         r * kRelocationRowBytes + i * kInvocationRowBytes + s;
}

// ---- reading ----------------------------------------------------------------------------------

struct Range {
  uint64_t begin, end;
  bool overlaps(const Range &o) const { return begin < o.end && o.begin < end; }
};

class ImageReader {
public:
  explicit ImageReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  Image run() {
    readElfHeader();
    readProgramHeaders();
    readMetadata();
    readLoads();
    checkEntries();
    checkBindings();
    checkRelocations();
    checkInvocations();
    readSections();
    return std::move(image_);
  }

private:
  [[noreturn]] static void failField(const std::string &where, const std::string &what) { fail(where + ": " + what); }

  // ELF header (§1.1): what the ELF reader checks, then what .xdna fixes.
  void readElfHeader() {
    auto reader = elf::ElfReader::open(bytes_, elf::ElfClass::Elf32);
    if (!reader) fail("ELF header: " + reader.error().what);
    elf_ = *reader;
    const elf::FileHeader &h = elf_->header();
    auto ident = [&](unsigned index, uint8_t expected, const char *name, const char *meaning) {
      if (h.ident[index] != expected)
        fail(std::string("ELF header: e_ident[") + name + "] is " + num(h.ident[index]) + ", expected " +
             num(expected) + " (" + meaning + ")");
    };
    ident(6, 1, "EI_VERSION", "EV_CURRENT");
    ident(7, 0, "EI_OSABI", "none");
    ident(8, 0, "EI_ABIVERSION", "0");
    for (unsigned i = 9; i < 16; ++i)
      if (h.ident[i]) fail("ELF header: e_ident padding byte " + num(i) + " is " + num(h.ident[i]) + ", expected 0");
    auto field = [&](uint64_t v, uint64_t expected, const char *name, const char *meaning) {
      if (v != expected)
        fail(std::string("ELF header: ") + name + " is " + num(v) + ", expected " + num(expected) + " (" + meaning +
             ")");
    };
    field(h.type, 2, "e_type", "ET_EXEC");
    field(h.machine, kMachineAie, "e_machine", "EM_AIE");
    field(h.version, 1, "e_version", "EV_CURRENT");
    field(h.entry, 0, "e_entry", "images have no entry address");
    field(h.phoff, kElfHeaderBytes, "e_phoff", "program headers follow the ELF header");
    field(h.flags, kFlagsAie2p, "e_flags", "AIE2P");
    field(h.ehsize, kElfHeaderBytes, "e_ehsize", "ELF32 header size");
    field(h.phentsize, kProgramHeaderBytes, "e_phentsize", "Elf32_Phdr size");
    phnum_ = h.phnum;
    if (phnum_ < 1 || phnum_ > kMaxProgramHeaders) fail("ELF header: e_phnum is " + num(phnum_) + ", expected 1..4096");
    if (auto table = elf_->checkProgramHeaderTable(); !table) fail("ELF header: " + table.error().what);
    phTable_ = {kElfHeaderBytes, kElfHeaderBytes + uint64_t(phnum_) * kProgramHeaderBytes};
    shoff_ = h.shoff;
    shnum_ = h.shnum;
    shstrndx_ = h.shstrndx;
    if (shoff_ || h.shentsize || shnum_ || shstrndx_) {
      if (shoff_ == 0 || shoff_ % 4)
        fail("ELF header: e_shoff is " + num(shoff_) +
             ", expected a nonzero multiple of 4 when section headers are present");
      if (h.shentsize != kSectionHeaderBytes)
        fail("ELF header: e_shentsize is " + num(h.shentsize) + ", expected 40 (Elf32_Shdr size)");
      if (shnum_ < 1 || shnum_ > kMaxSectionHeaders)
        fail("ELF header: e_shnum is " + num(shnum_) + ", expected 1..4096");
      if (shstrndx_ >= shnum_)
        fail("ELF header: e_shstrndx is " + num(shstrndx_) + ", expected below e_shnum " + num(shnum_));
      shTable_ = {shoff_, shoff_ + uint64_t(shnum_) * kSectionHeaderBytes};
      if (shTable_.end > bytes_.size())
        fail("ELF header: the section-header table ends at byte " + num(shTable_.end) + ", past the " +
             num(bytes_.size()) + "-byte file");
      if (shTable_.overlaps({0, kElfHeaderBytes}) || shTable_.overlaps(phTable_))
        fail("ELF header: the section-header table overlaps the ELF header or the program-header table");
      if (auto table = elf_->checkSectionHeaderTable(); !table) fail("ELF header: " + table.error().what);
    }
  }

  void readProgramHeaders() {
    std::vector<std::pair<Range, uint32_t>> ranges;
    for (uint32_t i = 0; i < phnum_; ++i) {
      elf::ProgramHeader h = elf_->programHeader(i);
      auto where = [&] { return "program header " + num(i); };  // spelled only for an error
      if (h.flags & ~(kFlagR | kFlagW | kFlagX)) failField(where(), "unknown permission flags " + hex(h.flags));
      if (!isPowerOfTwo(h.align)) failField(where(), "p_align " + num(h.align) + " is not a nonzero power of two");
      if (h.offset % h.align != h.vaddr % h.align)
        failField(where(), "p_offset " + hex(h.offset) + " and p_vaddr " + hex(h.vaddr) + " differ modulo p_align " +
                               num(h.align));
      if (h.filesz > h.memsz) failField(where(), "p_filesz " + num(h.filesz) + " exceeds p_memsz " + num(h.memsz));
      Range r{h.offset, uint64_t(h.offset) + h.filesz};
      if (r.end > bytes_.size())
        failField(where(), "file range " + hex(r.begin) + ".." + hex(r.end) + " lies outside the " +
                               num(bytes_.size()) + "-byte file");
      if (h.filesz) {
        if (r.overlaps({0, kElfHeaderBytes})) failField(where(), "file range overlaps the ELF header");
        if (r.overlaps(phTable_)) failField(where(), "file range overlaps the program-header table");
        if (shnum_ && r.overlaps(shTable_)) failField(where(), "file range overlaps the section-header table");
        ranges.push_back({r, i});
      }
      headers_.push_back(h);
    }
    // Distinct payloads are identical (an alias) or disjoint.
    std::sort(ranges.begin(), ranges.end(), [](const auto &a, const auto &b) {
      return a.first.begin != b.first.begin ? a.first.begin < b.first.begin : a.first.end < b.first.end;
    });
    for (size_t k = 1; k < ranges.size(); ++k) {
      const auto &[prev, prevIndex] = ranges[k - 1];
      const auto &[cur, curIndex] = ranges[k];
      bool identical = prev.begin == cur.begin && prev.end == cur.end;
      if (!identical && prev.overlaps(cur))
        fail("program header " + num(std::max(prevIndex, curIndex)) +
             ": file range partially overlaps program header " + num(std::min(prevIndex, curIndex)) +
             " (ranges must be identical or disjoint)");
    }
    const elf::ProgramHeader &m = headers_[0];
    auto bounded = [&](bool ok, const std::string &why) {
      if (!ok) fail("program header 0: XDNA header zero must contain bounded metadata (" + why + ")");
    };
    bounded(m.type == kMetadataSegmentType, "p_type is " + hex(m.type) + ", expected 0x6c584408");
    bounded(m.flags == kFlagR, "p_flags is " + num(m.flags) + ", expected 4 (R)");
    bounded(m.vaddr == 0 && m.paddr == 0, "p_vaddr and p_paddr must be 0");
    bounded(m.memsz == m.filesz, "p_memsz must equal p_filesz");
    bounded(m.filesz >= kMetadataHeaderBytes && m.filesz <= kMaxMetadataBytes,
            "size " + num(m.filesz) + " is outside 64..16777216 bytes");
    metadata_ = bytes_.subspan(m.offset, m.filesz);
  }

  // Metadata header row and tables (§1.3).
  void readMetadata() {
    auto md = metadata_;
    auto expect = [&](uint64_t v, uint64_t expected, const char *field, const std::string &meaning) {
      if (v != expected)
        fail(std::string("metadata header.") + field + ": " + hex(v) + ", expected " + hex(expected) + " (" + meaning +
             ")");
    };
    expect(le32(md, 0), kMetadataMagic, "magic", "\"XDNA\"");
    expect(le16(md, 4), kMetadataVersion, "version", "metadata version 2");
    Header &h = image_.header;
    h.nativeEncoding = le16(md, 6);
    h.targetGeneration = le32(md, 8);
    h.profileRevision = le32(md, 12);
    h.profileId = le64(md, 16);
    h.firmwareAbiId = le64(md, 24);
    h.columns = le16(md, 32);
    h.rows = le16(md, 34);
    expect(h.nativeEncoding, kNativeEncodingTransaction01, "native_encoding", "AIE transaction format 0.1");
    expect(h.targetGeneration, kTargetGenerationAie2p, "target_generation", "AIE2P");
    if (h.columns < 1 || h.columns > 8) fail("metadata header.column_count: " + num(h.columns) + ", expected 1..8");
    expect(h.rows, kStrixHalo.rows, "row_count", "shim + memory-tile + 4 compute rows");
    static constexpr const char *kCountNames[] = {"allocation_count", "allocation_use_count", "entry_count",
                                                  "binding_count",    "relocation_count",     "invocation_count"};
    uint32_t counts[6];
    for (unsigned k = 0; k < 6; ++k) {
      counts[k] = le32(md, 36 + 4 * k);
      if (counts[k] > kMaxTableRows)
        fail(std::string("metadata header.") + kCountNames[k] + ": " + num(counts[k]) + " exceeds the 65535-row limit");
    }
    uint32_t stringBytes = le32(md, 60);
    uint64_t need = metadataBytes(counts[0], counts[1], counts[2], counts[3], counts[4], counts[5], stringBytes);
    if (need != md.size())
      fail("metadata header: the tables and " + num(stringBytes) + " name bytes need " + num(need) +
           " bytes, the METADATA segment holds " + num(md.size()));
    if (counts[0] == 0 || counts[2] == 0)
      fail("metadata header: no executable storage or entries (allocation_count " + num(counts[0]) + ", entry_count " +
           num(counts[2]) + ")");
    size_t o = kMetadataHeaderBytes;
    for (uint32_t i = 0; i < counts[0]; ++i, o += kAllocationRowBytes) {
      Allocation a{Domain(le32(md, o)), le32(md, o + 4),  le64(md, o + 8),
                   le64(md, o + 16),    le32(md, o + 24), le32(md, o + 28)};
      auto where = [&] { return "metadata allocation[" + num(i) + "]"; };  // spelled only for an error
      if (a.domain != Domain::Command && a.domain != Domain::Dma)
        failField(where() + ".domain", num(uint32_t(a.domain)) + ", expected 1 (COMMAND) or 2 (DMA)");
      if (a.flags > 2) failField(where() + ".flags", num(a.flags) + ", expected 0, 1 (IMMUTABLE) or 2 (DEVICE_WRITE)");
      if (a.byteLength == 0) failField(where() + ".byte_length", "must be nonzero");
      if (!isPowerOfTwo(a.alignment)) failField(where() + ".alignment", num(a.alignment) + " is not a power of two");
      image_.allocations.push_back(a);
    }
    for (uint32_t i = 0; i < counts[1]; ++i, o += 4) {
      uint32_t use = le32(md, o);
      if (use >= counts[0])
        fail("metadata allocation_use[" + num(i) + "]: allocation " + num(use) + ", expected below allocation_count " +
             num(counts[0]));
      image_.allocationUses.push_back(use);
    }
    size_t entryTable = o;
    o += size_t(counts[2]) * kEntryRowBytes;
    for (uint32_t i = 0; i < counts[3]; ++i, o += kBindingRowBytes)
      image_.bindings.push_back({BindingKind(le16(md, o)), AddressSpace(le16(md, o + 2)), le16(md, o + 4),
                                 le16(md, o + 6), le64(md, o + 8), le64(md, o + 16), le64(md, o + 24),
                                 le64(md, o + 32)});
    for (uint32_t i = 0; i < counts[4]; ++i, o += kRelocationRowBytes)
      image_.relocations.push_back({le32(md, o), le32(md, o + 4), le32(md, o + 8), RelocationKind(le32(md, o + 12)),
                                    int64_t(le64(md, o + 16)), le64(md, o + 24), le64(md, o + 32), le64(md, o + 40)});
    for (uint32_t i = 0; i < counts[5]; ++i, o += kInvocationRowBytes)
      image_.invocations.push_back({le32(md, o), le32(md, o + 4), le32(md, o + 8), le32(md, o + 12)});
    auto names = md.subspan(o, stringBytes);
    for (uint32_t i = 0; i < counts[2]; ++i) {
      size_t e = entryTable + size_t(i) * kEntryRowBytes;
      uint32_t nameOffset = le32(md, e), nameLength = le32(md, e + 4);
      auto where = [&] { return "metadata entry[" + num(i) + "]"; };  // spelled only for an error
      if (nameLength < 1 || nameLength > kMaxNameBytes)
        failField(where() + ".name_length", num(nameLength) + ", expected 1..4096");
      if (!fits(nameOffset, nameLength, stringBytes))
        failField(where() + ".name_offset", "name " + num(nameOffset) + "+" + num(nameLength) + " lies outside the " +
                                                num(stringBytes) + " name bytes");
      Entry entry;
      entry.name.assign(names.begin() + nameOffset, names.begin() + nameOffset + nameLength);
      uint32_t *fields[] = {&entry.firstAllocationUse,     &entry.allocationUseCount,     &entry.firstBinding,
                            &entry.bindingCount,           &entry.firstStaticRelocation,  &entry.staticRelocationCount,
                            &entry.firstDynamicRelocation, &entry.dynamicRelocationCount, &entry.firstInvocation,
                            &entry.invocationCount};
      for (unsigned k = 0; k < 10; ++k) *fields[k] = le32(md, e + 8 + 4 * k);
      image_.entries.push_back(std::move(entry));
    }
  }

  // Program headers 1..n initialise allocations, grouped in allocation order (§1.2).
  void readLoads() {
    uint32_t next = 1;
    for (uint32_t a = 0; a < image_.allocations.size(); ++a) {
      const Allocation &alloc = image_.allocations[a];
      auto where = [&] { return "metadata allocation[" + num(a) + "]"; };  // spelled only for an error
      if (alloc.firstLoad != next) failField(where() + ".first_load", num(alloc.firstLoad) + ", expected " + num(next));
      if (alloc.loadCount > phnum_ - next)
        failField(where() + ".load_count", num(alloc.loadCount) + " loads from header " + num(next) + " exceed the " +
                                               num(phnum_) + " program headers");
      uint64_t previousEnd = 0;
      for (uint32_t k = 0; k < alloc.loadCount; ++k, ++next) {
        const elf::ProgramHeader &h = headers_[next];
        auto ph = [&] { return "program header " + num(next); };  // spelled only for an error
        if (h.type != kPtLoad) failField(ph(), "p_type " + hex(h.type) + ", expected 1 (PT_LOAD)");
        if (h.flags != kFlagR) failField(ph(), "p_flags " + num(h.flags) + ", expected 4 (R only)");
        if (h.paddr != a)
          failField(ph(), "p_paddr " + num(h.paddr) + " but allocation " + num(a) +
                              " owns it (loads are grouped by allocation)");
        if (h.memsz == 0) failField(ph(), "p_memsz must be nonzero");
        if (k && h.vaddr < previousEnd)
          failField(ph(), "p_vaddr " + hex(h.vaddr) + " overlaps or precedes the previous load of allocation " +
                              num(a) + " (ends at " + hex(previousEnd) + ")");
        previousEnd = uint64_t(h.vaddr) + h.memsz;
        if (previousEnd > alloc.byteLength)
          failField(ph(), "load " + hex(h.vaddr) + "+" + num(h.memsz) + " exceeds allocation " + num(a) + "'s " +
                              num(alloc.byteLength) + " bytes");
        // Aliased payloads are copied once per load: bound the total so that a small file
        // cannot make the reader allocate gigabytes.
        copiedBytes_ += h.filesz;
        if (copiedBytes_ > kMaxLoadCopyBytes)
          failField(ph(), "loads carry more than " + num(kMaxLoadCopyBytes) +
                              " payload bytes in total (aliases count once per load)");
        auto payload = bytes_.subspan(h.offset, h.filesz);
        image_.loads.push_back({a, h.vaddr, {payload.begin(), payload.end()}, h.memsz});
      }
    }
    if (next != phnum_)
      fail("program header " + num(next) + ": unowned load headers (no allocation claims headers " + num(next) + ".." +
           num(phnum_ - 1) + ")");
    // Where the run of back-to-back loads starting at each load ends, so that a coverage
    // query costs one binary search however many loads (or queries) the file has.
    coverageEnd_.resize(image_.loads.size());
    for (size_t i = image_.loads.size(); i-- > 0;) {
      const Load &l = image_.loads[i];
      uint64_t end = l.offset + l.memoryBytes;
      bool continued = i + 1 < image_.loads.size() && image_.loads[i + 1].allocation == l.allocation &&
                       image_.loads[i + 1].offset == end;
      coverageEnd_[i] = continued ? coverageEnd_[i + 1] : end;
    }
  }

  // The loads of allocation `a`, and the last one starting at or before `offset` (none: end).
  std::pair<size_t, size_t> loadAt(uint32_t a, uint64_t offset) const {
    const Allocation &alloc = image_.allocations[a];
    auto first = image_.loads.begin() + (alloc.firstLoad - 1), last = first + alloc.loadCount;
    auto it = std::upper_bound(first, last, offset, [](uint64_t off, const Load &l) { return off < l.offset; });
    size_t end = size_t(last - image_.loads.begin());
    return {it == first ? end : size_t(it - 1 - image_.loads.begin()), end};
  }

  // Entries consume every table in order with no gaps (§1.3).
  void checkEntries() {
    uint32_t use = 0, binding = 0, relocation = 0, invocation = 0;
    for (size_t i = 0; i < image_.entries.size(); ++i) {
      const Entry &e = image_.entries[i];
      auto where = [&] { return "metadata entry[" + num(i) + "] '" + e.name + "'"; };  // spelled only for an error
      auto slice = [&](uint32_t first, uint32_t count, uint32_t &running, uint32_t total, const char *firstName,
                       const char *countName) {
        if (first != running)
          failField(where() + "." + firstName,
                    num(first) + ", expected " + num(running) + " (entries consume tables in order)");
        if (count > total - running)
          failField(where() + "." + countName,
                    num(first) + "+" + num(count) + " exceeds the table's " + num(total) + " rows");
        running += count;
      };
      if (e.allocationUseCount == 0) failField(where() + ".allocation_use_count", "must be nonzero");
      slice(e.firstAllocationUse, e.allocationUseCount, use, uint32_t(image_.allocationUses.size()),
            "first_allocation_use", "allocation_use_count");
      for (uint32_t k = 1; k < e.allocationUseCount; ++k)
        if (image_.allocationUses[e.firstAllocationUse + k] <= image_.allocationUses[e.firstAllocationUse + k - 1])
          fail("metadata allocation_use[" + num(e.firstAllocationUse + k) + "]: uses of entry '" + e.name +
               "' must be unique and strictly increasing");
      slice(e.firstBinding, e.bindingCount, binding, uint32_t(image_.bindings.size()), "first_binding",
            "binding_count");
      if (e.bindingCount > kStrixHalo.maxBindings)
        failField(where() + ".binding_count", num(e.bindingCount) + " bindings, an NPU command carries at most 5");
      slice(e.firstStaticRelocation, e.staticRelocationCount, relocation, uint32_t(image_.relocations.size()),
            "first_static_relocation", "static_relocation_count");
      slice(e.firstDynamicRelocation, e.dynamicRelocationCount, relocation, uint32_t(image_.relocations.size()),
            "first_dynamic_relocation", "dynamic_relocation_count");
      if (e.invocationCount == 0) failField(where() + ".invocation_count", "must be nonzero");
      slice(e.firstInvocation, e.invocationCount, invocation, uint32_t(image_.invocations.size()), "first_invocation",
            "invocation_count");
    }
    auto owned = [&](uint32_t running, size_t total, const char *table) {
      if (running != total)
        fail(std::string("metadata ") + table + " table contains unowned rows (" + num(running) + "..." +
             num(total - 1) + ")");
    };
    owned(use, image_.allocationUses.size(), "allocation_use");
    owned(binding, image_.bindings.size(), "binding");
    owned(relocation, image_.relocations.size(), "relocation");
    owned(invocation, image_.invocations.size(), "invocation");
  }

  void checkBindings() {
    for (size_t i = 0; i < image_.bindings.size(); ++i) {
      const Binding &b = image_.bindings[i];
      auto where = [&] { return "metadata binding[" + num(i) + "]"; };  // spelled only for an error
      if (b.kind == BindingKind::None) {
        const char *field = b.addressSpace != AddressSpace::None ? "address_space"
                            : b.access                           ? "access"
                            : b.usage                            ? "usage"
                            : b.minimumByteLength                ? "minimum_byte_length"
                            : b.minimumAlignment                 ? "minimum_alignment"
                            : b.minimumByteOffset                ? "minimum_byte_offset"
                            : b.maximumByteOffset                ? "maximum_byte_offset"
                                                                 : nullptr;
        if (field)
          failField(where() + "." + field, "invalid unused XDNA binding " + num(i) + " (a NONE row must be all zero)");
        continue;
      }
      if (b.kind != BindingKind::Buffer)
        failField(where() + ".kind", num(uint16_t(b.kind)) + ", expected 0 (NONE) or 1 (BUFFER)");
      if (b.addressSpace != AddressSpace::Global && b.addressSpace != AddressSpace::Host)
        failField(where() + ".address_space", num(uint16_t(b.addressSpace)) + ", expected 1 (GLOBAL) or 2 (HOST)");
      if (b.access == 0 || (b.access & ~(kAccessRead | kAccessWrite)))
        failField(where() + ".access", num(b.access) + ", expected READ (1), WRITE (2) or both");
      if (b.usage & ~(kDeviceVisible | kHostVisible | kCoherent | kCached))
        failField(where() + ".usage", "unknown usage bits in " + hex(b.usage));
      if (b.minimumByteOffset > b.maximumByteOffset)
        failField(where() + ".minimum_byte_offset",
                  num(b.minimumByteOffset) + " exceeds maximum_byte_offset " + num(b.maximumByteOffset));
      if (!isPowerOfTwo(b.minimumAlignment))
        failField(where() + ".minimum_alignment", num(b.minimumAlignment) + " is not a power of two");
    }
  }

  // The allocation behind an entry-relative use.
  const Allocation &allocationOfUse(const Entry &e, uint32_t use) const {
    return image_.allocations[image_.allocationUses[e.firstAllocationUse + use]];
  }
  uint32_t allocationIndexOfUse(const Entry &e, uint32_t use) const {
    return image_.allocationUses[e.firstAllocationUse + use];
  }

  // Whether [offset, offset+length) of allocation `a` is covered by its loads (the zero-filled
  // tails count as initialised).
  bool initialised(uint32_t a, uint64_t offset, uint64_t length) const {
    auto [load, end] = loadAt(a, offset);
    return load != end && coverageEnd_[load] >= offset + length;
  }

  void checkRelocations() {
    for (const Entry &e : image_.entries) {
      auto check = [&](uint32_t first, uint32_t count, bool isStatic) {
        uint64_t previousUse = 0, previousEnd = 0;
        for (uint32_t k = 0; k < count; ++k) {
          uint32_t index = first + k;
          const Relocation &r = image_.relocations[index];
          auto where = [&] {
            return "metadata relocation[" + num(index) + "] (" + (isStatic ? "static" : "dynamic") + ", entry '" +
                   e.name + "')";
          };  // spelled only for an error
          if (r.kind != RelocationKind::ShimAddress)
            failField(where() + ".kind", num(uint32_t(r.kind)) + ", expected 1 (SHIM_ADDRESS)");
          if (r.destinationUse >= e.allocationUseCount)
            failField(where() + ".destination_use", num(r.destinationUse) + ", expected below the entry's " +
                                                        num(e.allocationUseCount) + " allocation uses");
          if (r.maximumValue > kMaxShimAddress)
            failField(where() + ".maximum_value", hex(r.maximumValue) + " exceeds 2^48-1");
          if (r.minimumValue > r.maximumValue)
            failField(where() + ".minimum_value",
                      hex(r.minimumValue) + " exceeds maximum_value " + hex(r.maximumValue));
          if (!isPowerOfTwo(r.alignment) || r.alignment < 4)
            failField(where() + ".alignment", num(r.alignment) + ", expected a power of two >= 4");
          uint32_t destination = allocationIndexOfUse(e, r.destinationUse);
          const Allocation &dest = image_.allocations[destination];
          if (uint64_t(r.byteOffset) + 8 > dest.byteLength)
            failField(where() + ".byte_offset", hex(r.byteOffset) + "+8 lies outside allocation " + num(destination) +
                                                    "'s " + num(dest.byteLength) + " bytes");
          if (!initialised(destination, r.byteOffset, 8))
            failField(where() + ".byte_offset", hex(r.byteOffset) +
                                                    "+8 is not covered by initialised load bytes of allocation " +
                                                    num(destination));
          if (k && (r.destinationUse < previousUse || (r.destinationUse == previousUse && r.byteOffset < previousEnd)))
            failField(where(), "relocations must be sorted by (destination_use, byte_offset) without overlap");
          previousUse = r.destinationUse;
          previousEnd = uint64_t(r.byteOffset) + 8;
          if (isStatic) {
            if (r.sourceOrdinal >= e.allocationUseCount)
              failField(where() + ".source_ordinal",
                        num(r.sourceOrdinal) + ", expected an allocation use below " + num(e.allocationUseCount));
            if (allocationOfUse(e, r.sourceOrdinal).domain != Domain::Dma)
              failField(where() + ".source_ordinal", "static relocation sources must be DMA-domain allocations");
          } else {
            if (r.sourceOrdinal >= e.bindingCount)
              failField(where() + ".source_ordinal",
                        num(r.sourceOrdinal) + ", expected a binding ordinal below " + num(e.bindingCount));
            if (image_.bindings[e.firstBinding + r.sourceOrdinal].kind == BindingKind::None)
              failField(where() + ".source_ordinal",
                        "XDNA dynamic relocation sources unused binding " + num(r.sourceOrdinal));
            if (dest.flags & kImmutable)
              failField(where() + ".destination_use",
                        "dynamic relocations cannot patch IMMUTABLE allocation " + num(destination));
          }
        }
      };
      check(e.firstStaticRelocation, e.staticRelocationCount, true);
      check(e.firstDynamicRelocation, e.dynamicRelocationCount, false);
      // Static and dynamic targets never overlap: merge the two sorted lists.
      uint32_t s = e.firstStaticRelocation, sEnd = s + e.staticRelocationCount;
      uint32_t d = e.firstDynamicRelocation, dEnd = d + e.dynamicRelocationCount;
      while (s < sEnd && d < dEnd) {
        const Relocation &a = image_.relocations[s], &b = image_.relocations[d];
        if (a.destinationUse == b.destinationUse && a.byteOffset < uint64_t(b.byteOffset) + 8 &&
            b.byteOffset < uint64_t(a.byteOffset) + 8)
          fail("metadata relocation[" + num(d) + "]: dynamic relocation overlaps static relocation " + num(s) +
               " of entry '" + e.name + "'");
        if (std::pair(a.destinationUse, a.byteOffset) < std::pair(b.destinationUse, b.byteOffset))
          ++s;
        else
          ++d;
      }
    }
  }

  void checkInvocations() {
    for (const Entry &e : image_.entries) {
      for (uint32_t k = 0; k < e.invocationCount; ++k) {
        uint32_t index = e.firstInvocation + k;
        const Invocation &inv = image_.invocations[index];
        auto where = [&] {
          return "metadata invocation[" + num(index) + "] (entry '" + e.name + "')";
        };  // spelled only for an error
        if (inv.allocationUse >= e.allocationUseCount)
          failField(where() + ".allocation_use", num(inv.allocationUse) + ", expected below the entry's " +
                                                     num(e.allocationUseCount) + " allocation uses");
        uint32_t a = allocationIndexOfUse(e, inv.allocationUse);
        const Allocation &alloc = image_.allocations[a];
        if (alloc.domain != Domain::Command)
          failField(where() + ".allocation_use", "allocation " + num(a) + " is not a COMMAND-domain allocation");
        if (alloc.alignment < kStrixHalo.instructionAlignment)
          failField("metadata allocation[" + num(a) + "].alignment", num(alloc.alignment) +
                                                                         " is below the instruction alignment " +
                                                                         num(kStrixHalo.instructionAlignment));
        if (inv.byteOffset % kStrixHalo.instructionAlignment)
          failField(where() + ".byte_offset", num(inv.byteOffset) + " is not a multiple of the instruction alignment " +
                                                  num(kStrixHalo.instructionAlignment));
        if (inv.byteLength == 0 || inv.byteLength % 4)
          failField(where() + ".byte_length", num(inv.byteLength) + ", expected a nonzero multiple of 4");
        if (inv.byteLength > kStrixHalo.maxCommandBytes)
          failField(where() + ".byte_length",
                    num(inv.byteLength) + " bytes exceed the 32768-byte native command limit");
        if (uint64_t(inv.byteOffset) + inv.byteLength > alloc.byteLength)
          failField(where() + ".byte_length", "command range lies outside allocation " + num(a));
        if (!initialised(a, inv.byteOffset, inv.byteLength))
          failField(where() + ".byte_offset",
                    "command range is not fully initialised by the loads of allocation " + num(a));
        if (inv.nextInvocation >= e.invocationCount)
          failField(where() + ".next_invocation",
                    num(inv.nextInvocation) + ", expected below invocation_count " + num(e.invocationCount));
        std::vector<uint8_t> head = readAllocation(a, inv.byteOffset, std::min<uint32_t>(inv.byteLength, 16));
        auto decoded = decodeTransactionHeader(head, image_.header.columns);
        if (!decoded.isOk()) failField(where(), decoded.status().message());
        if (decoded->totalBytes != inv.byteLength)
          failField(where() + ".byte_length", num(inv.byteLength) + " but the transaction header declares " +
                                                  num(decoded->totalBytes) + " bytes");
      }
      const Invocation *inv = &image_.invocations[e.firstInvocation];
      bool protocol = (e.invocationCount == 1 && inv[0].nextInvocation == 0) ||
                      (e.invocationCount == 2 && inv[0].nextInvocation == 1 && inv[1].nextInvocation == 1);
      if (!protocol)
        fail(
            "metadata invocation[" + num(e.firstInvocation) + "]: entry '" + e.name +
            "' must follow the invocation protocol 0 -> 1 -> 1 (two invocations) or 0 -> 0 (one self-contained range)");
    }
  }

  // Initialised bytes of an allocation (the caller checked coverage).
  std::vector<uint8_t> readAllocation(uint32_t a, uint64_t offset, uint64_t length) const {
    std::vector<uint8_t> out(length, 0);
    // Only the loads overlapping the range: at most `length` of them (each covers >= 1 byte).
    for (auto [load, end] = loadAt(a, offset); load != end && image_.loads[load].offset < offset + length; ++load) {
      const Load &l = image_.loads[load];
      for (uint64_t i = std::max(offset, l.offset); i < std::min(offset + length, l.offset + l.bytes.size()); ++i)
        out[i - offset] = l.bytes[i - l.offset];
    }
    return out;
  }

  // Section headers are diagnostic (§1.1); ours carry the .hrx.* payloads.
  void readSections() {
    if (!shnum_) return;
    auto data = [&](uint32_t i, const elf::SectionHeader &h) {
      auto bytes = elf_->sectionData(i, h);
      if (!bytes) fail(bytes.error().message());
      return *bytes;
    };
    // Without a section-name table there is nothing of ours to find (section headers are
    // diagnostic only, so this is not an error).
    if (shstrndx_ == 0 || elf_->sectionHeader(shstrndx_).type != kShtStrtab) return;
    auto strtab = data(shstrndx_, elf_->sectionHeader(shstrndx_));
    for (uint32_t i = 1; i < shnum_; ++i) {
      elf::SectionHeader h = elf_->sectionHeader(i);
      auto found = elf_->sectionName(strtab, i, h);
      if (!found) fail(found.error().message());
      std::string name(*found);
      image_.sectionHeaders.push_back({name, h.type, h.flags, h.offset, h.type == kShtNobits ? 0 : h.size});
      if (!name.starts_with(".hrx.")) continue;
      if (image_.section(name)) fail("section header " + num(i) + ": section " + name + " appears twice");
      auto payload = data(i, h);
      Section section{name, {}, (h.flags & kSectionCompressed) != 0};
      auto contents = elf_->sectionContents(payload, section.compress, "section " + name, budget_);
      if (!contents) fail(contents.error().message());
      section.bytes = std::move(*contents);
      image_.sections.push_back(std::move(section));
    }
  }

  std::span<const uint8_t> bytes_;
  std::span<const uint8_t> metadata_;
  uint32_t phnum_ = 0, shoff_ = 0, shnum_ = 0, shstrndx_ = 0;
  uint64_t copiedBytes_ = 0;
  PayloadBudget budget_;
  Range phTable_{}, shTable_{};
  std::vector<elf::ProgramHeader> headers_;
  std::optional<elf::ElfReader> elf_;
  std::vector<uint64_t> coverageEnd_;  // per load, parallel to image_.loads
  Image image_;
};

}  // namespace

Binding Binding::buffer(uint16_t access, uint64_t minimumByteLength, uint64_t minimumAlignment) {
  return {BindingKind::Buffer, AddressSpace::Global, access, uint16_t(kDeviceVisible | kCoherent),
          minimumByteLength,   minimumAlignment,     0,      UINT64_MAX};
}

const Section *Image::section(std::string_view name) const {
  for (const Section &s : sections)
    if (s.name == name) return &s;
  return nullptr;
}

const Entry *Image::entry(std::string_view name) const {
  for (const Entry &e : entries)
    if (e.name == name) return &e;
  return nullptr;
}

std::span<const Binding> Image::bindingsOf(const Entry &entry) const {
  return std::span(bindings).subspan(entry.firstBinding, entry.bindingCount);
}

StatusOr<Image> readImage(std::span<const uint8_t> bytes) {
  return guarded("XDNA image: ", [&]() -> StatusOr<Image> { return ImageReader(bytes).run(); });
}

Status checkAdmission(const Image &image, const DeviceProfile &profile, uint32_t requestedColumns) {
  const Header &h = image.header;
  auto mismatch = [](const std::string &what) {
    return Status(StatusCode::FailedPrecondition, "XDNA image does not match the admitted native context: " + what);
  };
  if (h.profileId != profile.id || h.profileRevision != profile.revision)
    return mismatch("device profile " + hex(h.profileId) + " revision " + num(h.profileRevision) + ", the device is " +
                    hex(profile.id) + " revision " + num(profile.revision) + " (" + std::string(profile.key) + ")");
  if (h.firmwareAbiId != profile.firmwareAbiId)
    return mismatch("firmware ABI " + hex(h.firmwareAbiId) + ", the device expects " + hex(profile.firmwareAbiId));
  if (h.columns != requestedColumns)
    return mismatch("the image needs " + num(h.columns) + " columns, the context has " + num(requestedColumns));
  if (h.rows != profile.rows)
    return mismatch("the image has " + num(h.rows) + " rows, the array has " + num(profile.rows));
  return Status::ok();
}

StatusOr<TransactionHeader> decodeTransactionHeader(std::span<const uint8_t> b, uint32_t expectedColumns) {
  auto bad = [](const std::string &what) { return Status(StatusCode::InvalidArgument, "transaction header: " + what); };
  if (b.size() < 16) return bad("command is " + num(b.size()) + " bytes, shorter than the 16-byte header");
  if (b[0] != 0 || b[1] != 1) return bad("version " + num(b[0]) + "." + num(b[1]) + ", expected 0.1");
  if (b[2] != 4) return bad("device generation " + num(b[2]) + ", expected 4 (AIE2P)");
  if (b[3] != 6) return bad("rows " + num(b[3]) + ", expected 6");
  if (b[4] != expectedColumns)
    return bad("columns " + num(b[4]) + ", expected " + num(expectedColumns) + " (the image's column_count)");
  if (b[5] != 1) return bad("memory-tile rows " + num(b[5]) + ", expected 1");
  if (b[6] || b[7]) return bad("padding bytes 6..8 must be zero");
  return TransactionHeader{b[4], le32(b, 8), le32(b, 12)};
}

Status applyShimAddress(std::span<uint8_t, 8> field, uint64_t sourceAddress, const Relocation &r) {
  uint64_t a = sourceAddress + uint64_t(r.addend);
  if (a < r.minimumValue || a > r.maximumValue)
    return Status(StatusCode::InvalidArgument, "SHIM_ADDRESS " + hex(a) + " lies outside [" + hex(r.minimumValue) +
                                                   ", " + hex(r.maximumValue) + "]");
  if (!isPowerOfTwo(r.alignment) || a % r.alignment)
    return Status(StatusCode::InvalidArgument, "SHIM_ADDRESS " + hex(a) + " is not aligned to " + num(r.alignment));
  uint32_t low = le32(field, 0), high = le32(field, 4);
  low = (low & 0x3u) | uint32_t(a & 0xFFFFFFFCu);
  high = (high & 0xFFFF0000u) | uint32_t((a >> 32) & 0xFFFFu);
  for (unsigned i = 0; i < 4; ++i) {
    field[i] = uint8_t(low >> (8 * i));
    field[4 + i] = uint8_t(high >> (8 * i));
  }
  return Status::ok();
}

std::vector<uint32_t> dispatchOrder(std::span<const Invocation> invocations, bool established, uint32_t next) {
  if (established) return {next};
  if (invocations[0].nextInvocation != 0) return {0, invocations[0].nextInvocation};
  return {0};
}

}  // namespace hrx::format::xdna
