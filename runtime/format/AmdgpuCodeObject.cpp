#include "hrx/format/AmdgpuCodeObject.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>

namespace hrx::format {
namespace {

constexpr uint16_t kEmAmdgpu = 224, kEtDyn = 3;
constexpr uint32_t kPtLoad = 1, kPtNote = 4, kPfX = 1;
constexpr uint32_t kShtRela = 4, kShtDynsym = 11, kShtSymtab = 2;
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

bool inside(uint64_t offset, uint64_t size, uint64_t total) { return offset <= total && size <= total - offset; }

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
  if (elf.size() < 64 || std::memcmp(elf.data(),
                                     "\x7f"
                                     "ELF",
                                     4) != 0)
    return fail("not an ELF file");
  if (elf[4] != 2 || elf[5] != 1) return fail("not a 64-bit little-endian ELF file");
  if (load<uint16_t>(elf, 16) != kEtDyn) return fail("e_type is not ET_DYN (a loadable code object)");
  if (load<uint16_t>(elf, 18) != kEmAmdgpu) return fail("e_machine is not EM_AMDGPU (224)");
  uint64_t phoff = load<uint64_t>(elf, 32), shoff = load<uint64_t>(elf, 40);
  uint16_t phentsize = load<uint16_t>(elf, 54), phnum = load<uint16_t>(elf, 56);
  uint16_t shentsize = load<uint16_t>(elf, 58), shnum = load<uint16_t>(elf, 60);
  if (phnum == 0 || phentsize != 56 || !inside(phoff, uint64_t(phnum) * 56, elf.size()))
    return fail("the program header table is missing or lies outside the file");
  if (shnum && (shentsize != 64 || !inside(shoff, uint64_t(shnum) * 64, elf.size())))
    return fail("the section header table lies outside the file");

  AmdgpuCodeObject object;
  std::span<const uint8_t> note;
  bool haveNote = false;
  for (uint16_t i = 0; i < phnum; ++i) {
    uint64_t at = phoff + uint64_t(i) * 56;
    uint32_t type = load<uint32_t>(elf, at), flags = load<uint32_t>(elf, at + 4);
    uint64_t offset = load<uint64_t>(elf, at + 8), vaddr = load<uint64_t>(elf, at + 16);
    uint64_t filesz = load<uint64_t>(elf, at + 32), memsz = load<uint64_t>(elf, at + 40);
    std::string where = "program header " + std::to_string(i);
    if (type == kPtLoad) {
      if (!inside(offset, filesz, elf.size())) return fail(where + " (PT_LOAD): its file bytes lie outside the file");
      if (filesz > memsz) return fail(where + " (PT_LOAD): p_filesz exceeds p_memsz");
      if (vaddr > kMaxImageBytes || memsz > kMaxImageBytes - vaddr)
        return fail(where + " (PT_LOAD): the segment ends beyond 256 MiB");
      if (!object.segments.empty() && vaddr < object.segments.back().vaddr + object.segments.back().memsz)
        return fail(where + " (PT_LOAD): segments are not ascending and disjoint");
      object.segments.push_back({vaddr, memsz, offset, filesz, flags});
    } else if (type == kPtNote) {
      if (!inside(offset, filesz, elf.size())) return fail(where + " (PT_NOTE): its bytes lie outside the file");
      // Notes: namesz, descsz, type, name (padded to 4), desc (padded to 4).
      for (uint64_t p = offset; p + 12 <= offset + filesz;) {
        uint32_t namesz = load<uint32_t>(elf, p), descsz = load<uint32_t>(elf, p + 4),
                 ntype = load<uint32_t>(elf, p + 8);
        uint64_t name = p + 12, desc = name + (uint64_t(namesz) + 3) / 4 * 4;
        uint64_t end = desc + (uint64_t(descsz) + 3) / 4 * 4;
        if (desc + descsz > offset + filesz) return fail(where + " (PT_NOTE): a note runs past the segment");
        if (ntype == kNtAmdgpuMetadata && namesz == 7 && std::memcmp(elf.data() + name, "AMDGPU", 7) == 0) {
          if (haveNote) return fail("more than one NT_AMDGPU_METADATA note");
          haveNote = true;
          note = elf.subspan(desc, descsz);
        }
        p = end;
      }
    }
  }
  if (object.segments.empty()) return fail("no PT_LOAD segment");
  if (!haveNote) return fail("no NT_AMDGPU_METADATA note (AMDGPU code object v3+ metadata)");
  const LoadSegment &last = object.segments.back();
  object.imageBytes = (last.vaddr + last.memsz + kPage - 1) / kPage * kPage;

  Msg root;
  MsgReader reader(note);
  if (Status s = reader.read(root); !s) return s;
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
  for (uint16_t i = 0; i < shnum; ++i) {
    uint64_t at = shoff + uint64_t(i) * 64;
    uint32_t type = load<uint32_t>(elf, at + 4), link = load<uint32_t>(elf, at + 40);
    uint64_t offset = load<uint64_t>(elf, at + 24), size = load<uint64_t>(elf, at + 32);
    std::string where = "section header " + std::to_string(i);
    if (type != kShtDynsym && type != kShtSymtab && type != kShtRela) continue;
    if (!inside(offset, size, elf.size())) return fail(where + ": its bytes lie outside the file");
    if (type == kShtRela) {
      if (size % 24) return fail(where + " (SHT_RELA): size is not a multiple of 24");
      for (uint64_t r = offset; r < offset + size; r += 24) {
        uint64_t target = load<uint64_t>(elf, r), info = load<uint64_t>(elf, r + 8);
        int64_t addend = load<int64_t>(elf, r + 16);
        if (uint32_t(info) != kRAmdgpuRelative64)
          return fail(where + ": relocation type " + std::to_string(uint32_t(info)) +
                      " is not supported (only R_AMDGPU_RELATIVE64)");
        if (target > object.imageBytes - 8) return fail(where + ": a relocation target lies outside the loaded image");
        object.relativeRelocations.push_back(target);
        object.relocationAddends.push_back(addend);
      }
      continue;
    }
    if (link >= shnum) return fail(where + ": sh_link names no section");
    uint64_t strAt = shoff + uint64_t(link) * 64;
    uint64_t strOffset = load<uint64_t>(elf, strAt + 24), strSize = load<uint64_t>(elf, strAt + 32);
    if (!inside(strOffset, strSize, elf.size())) return fail(where + ": its string table lies outside the file");
    if (size % 24) return fail(where + ": symbol table size is not a multiple of 24");
    for (uint64_t s = offset; s < offset + size; s += 24) {
      uint32_t nameOffset = load<uint32_t>(elf, s);
      if (nameOffset >= strSize) return fail(where + ": a symbol name lies outside its string table");
      const char *name = reinterpret_cast<const char *>(elf.data() + strOffset + nameOffset);
      size_t length = strnlen(name, strSize - nameOffset);
      if (length == strSize - nameOffset) return fail(where + ": a symbol name is not NUL-terminated");
      Symbol symbol{load<uint64_t>(elf, s + 8), load<uint64_t>(elf, s + 16), load<uint16_t>(elf, s + 6)};
      if (symbol.section != 0) symbols.emplace(std::string(name, length), symbol);
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
