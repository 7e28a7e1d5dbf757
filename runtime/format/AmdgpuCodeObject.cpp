#include "hrx/format/AmdgpuCodeObject.h"

#include "hrx/format/ElfReader.h"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>

namespace hrx::format {
namespace {

constexpr uint16_t kEmAmdgpu = EM_AMDGPU, kEtDyn = ET_DYN;
constexpr uint32_t kPtLoad = PT_LOAD, kPtNote = PT_NOTE, kPfX = PF_X;
constexpr uint32_t kShtRela = SHT_RELA, kShtDynsym = SHT_DYNSYM, kShtSymtab = SHT_SYMTAB;
// AMDGPU's note type and relocation (LLVM AMDGPUUsage), which <elf.h> does not name.
constexpr uint32_t kNtAmdgpuMetadata = 32;
constexpr uint32_t kRAmdgpuRelative64 = 13;
constexpr uint64_t kMaxImageBytes = 256ull << 20;
constexpr uint64_t kPage = 4096;

Status fail(const std::string &what) { return Status(StatusCode::InvalidArgument, "code object: " + what); }

template <typename T> T load(std::span<const uint8_t> bytes, uint64_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

// A msgpack value: enough of the format for AMDGPU metadata (maps, arrays, strings, integers,
// booleans, floats, nil, binary).
struct Msg {
  enum class Kind : uint8_t { Nil, Bool, Int, Float, String, Binary, Array, Map } kind = Kind::Nil;
  bool boolean = false;
  bool negative = false;
  uint64_t integer = 0;  // magnitude when negative
  std::string text;
  std::vector<Msg> items;         // Array
  std::vector<Msg> keys, values;  // Map, parallel
  const Msg *get(std::string_view key) const {
    for (size_t i = 0; i < keys.size(); ++i)
      if (keys[i].kind == Kind::String && keys[i].text == key) return &values[i];
    return nullptr;
  }
};

class MsgReader {
public:
  explicit MsgReader(std::span<const uint8_t> bytes) : bytes_(bytes) {}
  Status read(Msg &out, unsigned depth = 0) {
    if (depth > 16) return fail("metadata nests deeper than 16 levels");
    uint8_t tag;
    if (Status s = take(tag); !s) return s;
    if (tag <= 0x7f) return integer(out, tag);
    if (tag >= 0xe0) {
      out.kind = Msg::Kind::Int;
      out.negative = true;
      out.integer = uint64_t(256 - tag);
      return Status::ok();
    }
    if ((tag & 0xf0) == 0x80) return map(out, tag & 0x0f, depth);
    if ((tag & 0xf0) == 0x90) return array(out, tag & 0x0f, depth);
    if ((tag & 0xe0) == 0xa0) return string(out, tag & 0x1f, Msg::Kind::String);
    switch (tag) {
    case 0xc0: out.kind = Msg::Kind::Nil; return Status::ok();
    case 0xc2:
    case 0xc3:
      out.kind = Msg::Kind::Bool;
      out.boolean = tag == 0xc3;
      return Status::ok();
    case 0xc4:
    case 0xc5:
    case 0xc6:
    case 0xd9:
    case 0xda:
    case 0xdb: {
      uint64_t n;
      unsigned width = (tag == 0xc4 || tag == 0xd9) ? 1 : (tag == 0xc5 || tag == 0xda) ? 2 : 4;
      if (Status s = big(width, n); !s) return s;
      return string(out, n, tag <= 0xc6 ? Msg::Kind::Binary : Msg::Kind::String);
    }
    case 0xca:
    case 0xcb: {
      uint64_t ignored;
      out.kind = Msg::Kind::Float;
      return big(tag == 0xca ? 4 : 8, ignored);
    }
    case 0xcc:
    case 0xcd:
    case 0xce:
    case 0xcf: {
      uint64_t n;
      if (Status s = big(1u << (tag - 0xcc), n); !s) return s;
      return integer(out, n);
    }
    case 0xd0:
    case 0xd1:
    case 0xd2:
    case 0xd3: {
      unsigned width = 1u << (tag - 0xd0);
      uint64_t n;
      if (Status s = big(width, n); !s) return s;
      int64_t v = width == 8 ? int64_t(n) : int64_t(n << (64 - 8 * width)) >> (64 - 8 * width);
      out.kind = Msg::Kind::Int;
      out.negative = v < 0;
      out.integer = v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v);
      return Status::ok();
    }
    case 0xdc:
    case 0xdd: {
      uint64_t n;
      if (Status s = big(tag == 0xdc ? 2 : 4, n); !s) return s;
      return array(out, n, depth);
    }
    case 0xde:
    case 0xdf: {
      uint64_t n;
      if (Status s = big(tag == 0xde ? 2 : 4, n); !s) return s;
      return map(out, n, depth);
    }
    default: break;
    }
    return fail("metadata byte " + std::to_string(at_ - 1) + ": unsupported msgpack type 0x" +
                std::string(1, "0123456789abcdef"[tag >> 4]) + std::string(1, "0123456789abcdef"[tag & 15]));
  }
  size_t position() const { return at_; }

private:
  Status take(uint8_t &b) {
    if (at_ >= bytes_.size()) return fail("metadata ends inside a msgpack value (byte " + std::to_string(at_) + ")");
    b = bytes_[at_++];
    return Status::ok();
  }
  Status big(unsigned width, uint64_t &out) {
    out = 0;
    for (unsigned i = 0; i < width; ++i) {
      uint8_t b;
      if (Status s = take(b); !s) return s;
      out = out << 8 | b;
    }
    return Status::ok();
  }
  static Status integer(Msg &out, uint64_t n) {
    out.kind = Msg::Kind::Int;
    out.integer = n;
    return Status::ok();
  }
  Status string(Msg &out, uint64_t n, Msg::Kind kind) {
    if (n > bytes_.size() - at_) return fail("metadata string at byte " + std::to_string(at_) + " runs past the note");
    out.kind = kind;
    out.text.assign(reinterpret_cast<const char *>(bytes_.data() + at_), n);
    at_ += n;
    return Status::ok();
  }
  Status array(Msg &out, uint64_t n, unsigned depth) {
    if (n > bytes_.size() - at_)
      return fail("metadata array at byte " + std::to_string(at_) + " claims too many items");
    out.kind = Msg::Kind::Array;
    out.items.resize(n);
    for (Msg &item : out.items)
      if (Status s = read(item, depth + 1); !s) return s;
    return Status::ok();
  }
  Status map(Msg &out, uint64_t n, unsigned depth) {
    if (n > (bytes_.size() - at_) / 2)
      return fail("metadata map at byte " + std::to_string(at_) + " claims too many entries");
    out.kind = Msg::Kind::Map;
    out.keys.resize(n);
    out.values.resize(n);
    for (uint64_t i = 0; i < n; ++i) {
      if (Status s = read(out.keys[i], depth + 1); !s) return s;
      if (Status s = read(out.values[i], depth + 1); !s) return s;
    }
    return Status::ok();
  }
  std::span<const uint8_t> bytes_;
  size_t at_ = 0;
};

struct KindInfo {
  const char *name;
  KernargKind kind;
  uint64_t size;  // 0: any
};
constexpr KindInfo kKinds[] = {
    {"by_value", KernargKind::ByValue, 0},
    {"global_buffer", KernargKind::GlobalBuffer, 8},
    {"hidden_block_count_x", KernargKind::HiddenBlockCountX, 4},
    {"hidden_block_count_y", KernargKind::HiddenBlockCountY, 4},
    {"hidden_block_count_z", KernargKind::HiddenBlockCountZ, 4},
    {"hidden_group_size_x", KernargKind::HiddenGroupSizeX, 2},
    {"hidden_group_size_y", KernargKind::HiddenGroupSizeY, 2},
    {"hidden_group_size_z", KernargKind::HiddenGroupSizeZ, 2},
    {"hidden_remainder_x", KernargKind::HiddenRemainderX, 2},
    {"hidden_remainder_y", KernargKind::HiddenRemainderY, 2},
    {"hidden_remainder_z", KernargKind::HiddenRemainderZ, 2},
    {"hidden_global_offset_x", KernargKind::HiddenGlobalOffsetX, 8},
    {"hidden_global_offset_y", KernargKind::HiddenGlobalOffsetY, 8},
    {"hidden_global_offset_z", KernargKind::HiddenGlobalOffsetZ, 8},
    {"hidden_grid_dims", KernargKind::HiddenGridDims, 2},
    {"hidden_dynamic_lds_size", KernargKind::HiddenDynamicLdsSize, 4},
    {"hidden_queue_ptr", KernargKind::HiddenQueuePtr, 8},
    {"hidden_none", KernargKind::HiddenNone, 0},
};

// Value kinds a kernel may list but this runtime cannot serve (no printf/hostcall buffers, no
// device-side enqueue, no heap, no OpenCL local-pointer arguments).
constexpr const char *kUnsupportedKinds[] = {"dynamic_shared_pointer",
                                             "image",
                                             "sampler",
                                             "pipe",
                                             "queue",
                                             "hidden_printf_buffer",
                                             "hidden_hostcall_buffer",
                                             "hidden_default_queue",
                                             "hidden_completion_action",
                                             "hidden_multigrid_sync_arg",
                                             "hidden_heap_v1",
                                             "hidden_private_base",
                                             "hidden_shared_base"};

StatusOr<uint64_t> unsignedField(const Msg &map, std::string_view key, const std::string &where, bool required = true) {
  const Msg *v = map.get(key);
  if (!v) {
    if (!required) return uint64_t(0);
    return fail(where + ": " + std::string(key) + " is missing");
  }
  if (v->kind != Msg::Kind::Int || v->negative)
    return fail(where + ": " + std::string(key) + " is not an unsigned integer");
  return v->integer;
}

Status readArgs(const Msg &list, CodeObjectKernel &kernel, const std::string &where) {
  if (list.kind != Msg::Kind::Array) return fail(where + ": .args is not an array");
  for (size_t i = 0; i < list.items.size(); ++i) {
    const Msg &arg = list.items[i];
    std::string at = where + ": .args[" + std::to_string(i) + "]";
    if (arg.kind != Msg::Kind::Map) return fail(at + " is not a map");
    const Msg *kind = arg.get(".value_kind");
    if (!kind || kind->kind != Msg::Kind::String) return fail(at + ": .value_kind is missing");
    auto offset = unsignedField(arg, ".offset", at);
    if (!offset) return offset.status();
    auto size = unsignedField(arg, ".size", at);
    if (!size) return size.status();
    for (const char *unsupported : kUnsupportedKinds)
      if (kind->text == unsupported)
        return Status(StatusCode::Unimplemented,
                      "code object: " + at + ": value kind " + kind->text + " is not supported by the hrx runtime");
    const KindInfo *info = nullptr;
    for (const KindInfo &k : kKinds)
      if (kind->text == k.name) info = &k;
    if (!info) return fail(at + ": unknown value kind '" + kind->text + "'");
    if (*size == 0 || (info->size && *size != info->size))
      return fail(at + " (" + kind->text + "): .size is " + std::to_string(*size) +
                  (info->size ? ", expected " + std::to_string(info->size) : ", expected at least 1"));
    if (*offset > kernel.kernargSegmentSize || *size > kernel.kernargSegmentSize - *offset)
      return fail(at + " (" + kind->text + "): bytes " + std::to_string(*offset) + ".." +
                  std::to_string(*offset + *size) + " lie outside .kernarg_segment_size " +
                  std::to_string(kernel.kernargSegmentSize));
    for (const KernargField &other : kernel.args)
      if (*offset < other.offset + other.size && other.offset < *offset + *size)
        return fail(at + " (" + kind->text + ") overlaps the " + other.valueKind + " argument at offset " +
                    std::to_string(other.offset));
    kernel.args.push_back({info->kind, *offset, *size, kind->text});
  }
  return Status::ok();
}

struct Symbol {
  uint64_t value = 0, size = 0;
  uint16_t section = 0;
};

}  // namespace

KernelDescriptor decodeKernelDescriptor(std::span<const uint8_t, 64> bytes) {
  std::span<const uint8_t> b(bytes);
  KernelDescriptor d;
  d.groupSegmentFixedSize = load<uint32_t>(b, 0);
  d.privateSegmentFixedSize = load<uint32_t>(b, 4);
  d.kernargSize = load<uint32_t>(b, 8);
  d.kernelCodeEntryByteOffset = load<int64_t>(b, 16);
  d.computePgmRsrc3 = load<uint32_t>(b, 44);
  d.computePgmRsrc1 = load<uint32_t>(b, 48);
  d.computePgmRsrc2 = load<uint32_t>(b, 52);
  d.kernelCodeProperties = load<uint16_t>(b, 56);
  d.kernargPreload = load<uint16_t>(b, 58);
  return d;
}

std::string_view kernargKindName(KernargKind kind) {
  for (const KindInfo &k : kKinds)
    if (k.kind == kind) return k.name;
  return "?";
}

bool isHidden(KernargKind kind) { return kind != KernargKind::ByValue && kind != KernargKind::GlobalBuffer; }

const CodeObjectKernel *AmdgpuCodeObject::find(std::string_view name) const {
  for (const CodeObjectKernel &k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

void AmdgpuCodeObject::loadImage(std::span<const uint8_t> elf, uint64_t base, std::span<uint8_t> out) const {
  std::fill(out.begin(), out.end(), uint8_t(0));
  for (const LoadSegment &s : segments) std::memcpy(out.data() + s.vaddr, elf.data() + s.offset, s.filesz);
  for (size_t i = 0; i < relativeRelocations.size(); ++i) {
    uint64_t value = base + uint64_t(relocationAddends[i]);
    std::memcpy(out.data() + relativeRelocations[i], &value, 8);
  }
}

StatusOr<AmdgpuCodeObject> readAmdgpuCodeObject(std::span<const uint8_t> elf) {
  if (elf.size() < elf::recordSizes(elf::ElfClass::Elf64).header || !elf::hasElfMagic(elf))
    return fail("not an ELF file");
  auto reader = elf::ElfReader::open(elf, elf::ElfClass::Elf64);
  if (!reader) return fail("not a 64-bit little-endian ELF file");
  const elf::FileHeader &header = reader->header();
  if (header.type != kEtDyn) return fail("e_type is not ET_DYN (a loadable code object)");
  if (header.machine != kEmAmdgpu) return fail("e_machine is not EM_AMDGPU (224)");
  if (header.phnum == 0) return fail("the program header table is missing or lies outside the file");
  auto programHeaders = reader->programHeaders();
  if (!programHeaders) return fail(programHeaders.error().message());
  if (auto table = reader->checkSectionHeaderTable(); !table) return fail(table.error().message());

  AmdgpuCodeObject object;
  std::span<const uint8_t> note;
  bool haveNote = false;
  for (uint16_t i = 0; i < header.phnum; ++i) {
    const elf::ProgramHeader &ph = (*programHeaders)[i];
    std::string where = "program header " + std::to_string(i);
    if (ph.type == kPtLoad) {
      if (!reader->segmentData(i, ph)) return fail(where + " (PT_LOAD): its file bytes lie outside the file");
      if (ph.filesz > ph.memsz) return fail(where + " (PT_LOAD): p_filesz exceeds p_memsz");
      if (ph.vaddr > kMaxImageBytes || ph.memsz > kMaxImageBytes - ph.vaddr)
        return fail(where + " (PT_LOAD): the segment ends beyond 256 MiB");
      if (!object.segments.empty() && ph.vaddr < object.segments.back().vaddr + object.segments.back().memsz)
        return fail(where + " (PT_LOAD): segments are not ascending and disjoint");
      object.segments.push_back({ph.vaddr, ph.memsz, ph.offset, ph.filesz, ph.flags});
    } else if (ph.type == kPtNote) {
      auto data = reader->segmentData(i, ph);
      if (!data) return fail(where + " (PT_NOTE): its bytes lie outside the file");
      auto notes = elf::ElfReader::notes(*data, where + " (PT_NOTE)");
      if (!notes) return fail(notes.error().message());
      for (const elf::Note &n : *notes) {
        if (n.type == kNtAmdgpuMetadata && n.name.size() == 7 && std::memcmp(n.name.data(), "AMDGPU", 7) == 0) {
          if (haveNote) return fail("more than one NT_AMDGPU_METADATA note");
          haveNote = true;
          note = n.desc;
        }
      }
    }
  }
  if (object.segments.empty()) return fail("no PT_LOAD segment");
  if (!haveNote) return fail("no NT_AMDGPU_METADATA note (AMDGPU code object v3+ metadata)");
  const LoadSegment &last = object.segments.back();
  object.imageBytes = (last.vaddr + last.memsz + kPage - 1) / kPage * kPage;

  Msg root;
  MsgReader msgReader(note);
  if (Status s = msgReader.read(root); !s) return s;
  if (root.kind != Msg::Kind::Map) return fail("the metadata is not a msgpack map");
  if (const Msg *target = root.get("amdhsa.target"); target && target->kind == Msg::Kind::String)
    object.target = target->text;
  if (const Msg *version = root.get("amdhsa.version"); version && version->kind == Msg::Kind::Array)
    for (const Msg &v : version->items)
      if (v.kind == Msg::Kind::Int) object.version.push_back(v.integer);
  if (object.version.empty() || object.version[0] != 1 || object.version.size() < 2 || object.version[1] < 2)
    return fail("amdhsa.version must be 1.2 or later (code object v5)");
  const Msg *kernels = root.get("amdhsa.kernels");
  if (!kernels || kernels->kind != Msg::Kind::Array) return fail("amdhsa.kernels is missing");

  // Sections: symbols (for .kd descriptors) and RELA relocations.
  std::map<std::string, Symbol> symbols;
  const elf::RecordSizes &sizes = reader->sizes();
  for (uint16_t i = 0; i < header.shnum; ++i) {
    elf::SectionHeader sh = reader->sectionHeader(i);
    std::string where = "section header " + std::to_string(i);
    if (sh.type != kShtDynsym && sh.type != kShtSymtab && sh.type != kShtRela) continue;
    auto data = reader->range(sh.offset, sh.size, where, "sh_offset");
    if (!data) return fail(where + ": its bytes lie outside the file");
    if (sh.type == kShtRela) {
      if (sh.size % sizes.relocation) return fail(where + " (SHT_RELA): size is not a multiple of 24");
      for (uint64_t r = 0; r < sh.size / sizes.relocation; ++r) {
        elf::Relocation rela = reader->relocation(*data, r);
        if (rela.type != kRAmdgpuRelative64)
          return fail(where + ": relocation type " + std::to_string(rela.type) +
                      " is not supported (only R_AMDGPU_RELATIVE64)");
        if (rela.offset > object.imageBytes - 8)
          return fail(where + ": a relocation target lies outside the loaded image");
        object.relativeRelocations.push_back(rela.offset);
        object.relocationAddends.push_back(rela.addend);
      }
      continue;
    }
    if (sh.link >= header.shnum) return fail(where + ": sh_link names no section");
    elf::SectionHeader linked = reader->sectionHeader(sh.link);
    auto strings = reader->range(linked.offset, linked.size, where, "sh_link");
    if (!strings) return fail(where + ": its string table lies outside the file");
    if (sh.size % sizes.symbol) return fail(where + ": symbol table size is not a multiple of 24");
    for (uint64_t k = 0; k < sh.size / sizes.symbol; ++k) {
      elf::Symbol sym = reader->symbol(*data, k);
      if (sym.name >= strings->size()) return fail(where + ": a symbol name lies outside its string table");
      auto name = elf::ElfReader::stringAt(*strings, sym.name);
      if (!name) return fail(where + ": a symbol name is not NUL-terminated");
      Symbol symbol{sym.value, sym.size, sym.shndx};
      if (symbol.section != 0) symbols.emplace(std::string(*name), symbol);
    }
  }

  for (size_t i = 0; i < kernels->items.size(); ++i) {
    const Msg &k = kernels->items[i];
    std::string where = "amdhsa.kernels[" + std::to_string(i) + "]";
    if (k.kind != Msg::Kind::Map) return fail(where + " is not a map");
    CodeObjectKernel kernel;
    const Msg *name = k.get(".name"), *symbol = k.get(".symbol");
    if (!name || name->kind != Msg::Kind::String || !symbol || symbol->kind != Msg::Kind::String)
      return fail(where + ": .name or .symbol is missing");
    kernel.name = name->text;
    kernel.symbol = symbol->text;
    where = "kernel '" + kernel.name + "'";
    if (object.find(kernel.name)) return fail(where + " is listed twice");
    struct Field {
      const char *key;
      uint64_t *out;
      bool required;
    } fields[] = {{".kernarg_segment_size", &kernel.kernargSegmentSize, true},
                  {".kernarg_segment_align", &kernel.kernargSegmentAlign, true},
                  {".group_segment_fixed_size", &kernel.groupSegmentFixedSize, true},
                  {".private_segment_fixed_size", &kernel.privateSegmentFixedSize, true},
                  {".wavefront_size", &kernel.wavefrontSize, true},
                  {".max_flat_workgroup_size", &kernel.maxFlatWorkgroupSize, true}};
    for (const Field &f : fields) {
      auto v = unsignedField(k, f.key, where, f.required);
      if (!v) return v.status();
      *f.out = *v;
    }
    if (kernel.kernargSegmentAlign == 0 || (kernel.kernargSegmentAlign & (kernel.kernargSegmentAlign - 1)) ||
        kernel.kernargSegmentAlign > 4096)
      return fail(where + ": .kernarg_segment_align " + std::to_string(kernel.kernargSegmentAlign) +
                  " is not a power of two up to 4096");
    if (kernel.kernargSegmentSize > 65536) return fail(where + ": .kernarg_segment_size exceeds 64 KiB");
    if (kernel.wavefrontSize != 32 && kernel.wavefrontSize != 64)
      return fail(where + ": .wavefront_size is not 32 or 64");
    if (kernel.maxFlatWorkgroupSize < 1 || kernel.maxFlatWorkgroupSize > 1024)
      return fail(where + ": .max_flat_workgroup_size is not in 1..1024");
    if (kernel.groupSegmentFixedSize > 65536) return fail(where + ": .group_segment_fixed_size exceeds 64 KiB");
    if (const Msg *reqd = k.get(".reqd_workgroup_size")) {
      if (reqd->kind != Msg::Kind::Array || reqd->items.size() != 3)
        return fail(where + ": .reqd_workgroup_size is not 3 integers");
      std::array<uint32_t, 3> size{};
      for (int d = 0; d < 3; ++d) {
        const Msg &v = reqd->items[d];
        if (v.kind != Msg::Kind::Int || v.negative || v.integer < 1 || v.integer > 1024)
          return fail(where + ": .reqd_workgroup_size holds a value outside 1..1024");
        size[d] = uint32_t(v.integer);
      }
      kernel.reqdWorkgroupSize = size;
    }
    if (const Msg *dynamic = k.get(".uses_dynamic_stack"); dynamic && dynamic->kind == Msg::Kind::Bool)
      kernel.usesDynamicStack = dynamic->boolean;
    if (const Msg *args = k.get(".args"))
      if (Status s = readArgs(*args, kernel, where); !s) return s;

    auto found = symbols.find(kernel.symbol);
    if (found == symbols.end())
      return fail(where + ": its kernel descriptor symbol '" + kernel.symbol + "' is not defined");
    const Symbol &kd = found->second;
    if (kd.size != kKernelDescriptorBytes)
      return fail(where + ": '" + kernel.symbol + "' is " + std::to_string(kd.size) +
                  " bytes, a kernel descriptor is 64");
    const LoadSegment *home = nullptr;
    for (const LoadSegment &s : object.segments)
      if (kd.value >= s.vaddr && kd.value + 64 <= s.vaddr + s.filesz) home = &s;
    if (!home || kd.value % 64)
      return fail(where + ": the kernel descriptor is not a 64-byte-aligned part of a loaded segment's file bytes");
    kernel.descriptorAddress = kd.value;
    kernel.descriptor = decodeKernelDescriptor(elf.subspan(home->offset + (kd.value - home->vaddr)).first<64>());
    const KernelDescriptor &d = kernel.descriptor;
    if (d.kernargSize != kernel.kernargSegmentSize)
      return fail(where + ": the kernel descriptor's kernarg_size " + std::to_string(d.kernargSize) +
                  " differs from .kernarg_segment_size " + std::to_string(kernel.kernargSegmentSize));
    if (d.groupSegmentFixedSize != kernel.groupSegmentFixedSize ||
        d.privateSegmentFixedSize != kernel.privateSegmentFixedSize)
      return fail(where + ": the kernel descriptor's group/private segment sizes differ from the metadata");
    int64_t entry = int64_t(kd.value) + d.kernelCodeEntryByteOffset;
    bool executable = false;
    for (const LoadSegment &s : object.segments)
      if ((s.flags & kPfX) && entry >= int64_t(s.vaddr) && entry < int64_t(s.vaddr + s.memsz)) executable = true;
    if (!executable || entry % 256)
      return fail(where + ": the kernel descriptor's entry point (offset " +
                  std::to_string(d.kernelCodeEntryByteOffset) +
                  ") is not a 256-byte-aligned address in an executable segment");
    object.kernels.push_back(std::move(kernel));
  }
  if (object.kernels.empty()) return fail("amdhsa.kernels lists no kernel");
  return object;
}

}  // namespace hrx::format
