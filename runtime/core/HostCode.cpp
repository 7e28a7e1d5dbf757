// Loading the host-code shared object from memory: memfd_create + dlopen, no files, no LLVM.
#include "hrx/runtime/HostDevice.h"

#include <algorithm>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <map>
#include <optional>
#include <sys/mman.h>
#include <unistd.h>

namespace hrx::runtime {
namespace {

// ELF constants (System V gABI, x86-64 psABI), from <elf.h>.
constexpr unsigned char kElfMagic[4] = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3};
constexpr uint16_t kElfTypeDyn = ET_DYN, kMachineX86_64 = EM_X86_64;
constexpr uint64_t kElfHeaderBytes = sizeof(Elf64_Ehdr), kProgramHeaderBytes = sizeof(Elf64_Phdr),
                   kSectionHeaderBytes = sizeof(Elf64_Shdr), kDynamicEntryBytes = sizeof(Elf64_Dyn),
                   kSymbolBytes = sizeof(Elf64_Sym);
constexpr uint32_t kPtLoad = PT_LOAD, kPtDynamic = PT_DYNAMIC, kShtNobits = SHT_NOBITS, kShtDynsym = SHT_DYNSYM;
constexpr int64_t kDtNull = DT_NULL, kDtNeeded = DT_NEEDED, kDtPltrelsz = DT_PLTRELSZ, kDtStrtab = DT_STRTAB,
                  kDtRela = DT_RELA, kDtRelasz = DT_RELASZ, kDtStrsz = DT_STRSZ, kDtTextrel = DT_TEXTREL,
                  kDtJmprel = DT_JMPREL, kDtFlags = DT_FLAGS;
constexpr uint64_t kRelaBytes = sizeof(Elf64_Rela);
// Tables the dynamic loader reads by address, with the tag giving their size (0: at least a byte).
struct DynamicTable {
  int64_t addressTag, sizeTag;
  const char *name;
};
constexpr DynamicTable kDynamicTables[] = {{DT_PLTGOT, 0, "DT_PLTGOT"},
                                           {DT_HASH, 0, "DT_HASH"},
                                           {kDtStrtab, kDtStrsz, "DT_STRTAB"},
                                           {DT_SYMTAB, 0, "DT_SYMTAB"},
                                           {kDtRela, kDtRelasz, "DT_RELA"},
                                           {DT_INIT, 0, "DT_INIT"},
                                           {DT_FINI, 0, "DT_FINI"},
                                           {DT_REL, DT_RELSZ, "DT_REL"},
                                           {kDtJmprel, kDtPltrelsz, "DT_JMPREL"},
                                           {DT_INIT_ARRAY, DT_INIT_ARRAYSZ, "DT_INIT_ARRAY"},
                                           {DT_FINI_ARRAY, DT_FINI_ARRAYSZ, "DT_FINI_ARRAY"},
                                           {DT_RELR, DT_RELRSZ, "DT_RELR"},
                                           {DT_GNU_HASH, 0, "DT_GNU_HASH"},
                                           {DT_VERSYM, 0, "DT_VERSYM"},
                                           {DT_VERNEED, 0, "DT_VERNEED"}};
constexpr uint64_t kDfTextrel = DF_TEXTREL;
constexpr uint8_t kSttObject = STT_OBJECT;
// What the host target's lld output may import from: the C runtime the process has loaded anyway.
constexpr std::string_view kAllowedNeeded[] = {"libc.so.6", "libm.so.6", "libgcc_s.so.1"};
// A host-code object maps at most this much memory (its PT_LOAD p_memsz together).
constexpr uint64_t kMaxMappedBytes = 1ull << 30;

bool fits(uint64_t offset, uint64_t length, uint64_t size) { return offset <= size && length <= size - offset; }
bool isPowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

// Bounds-checked little-endian reads over the untrusted object; callers check ranges first.
class ElfBytes {
public:
  explicit ElfBytes(std::span<const std::byte> bytes) : bytes_(bytes) {}
  uint64_t size() const { return bytes_.size(); }
  uint64_t read(uint64_t offset, unsigned width) const {
    uint64_t value = 0;
    for (unsigned i = 0; i < width; ++i) value |= uint64_t(bytes_[offset + i]) << (8 * i);
    return value;
  }
  uint16_t u16(uint64_t offset) const { return uint16_t(read(offset, 2)); }
  uint32_t u32(uint64_t offset) const { return uint32_t(read(offset, 4)); }
  uint64_t u64(uint64_t offset) const { return read(offset, 8); }
  // The NUL-terminated string at `offset` within [tableOffset, tableOffset + tableSize).
  std::optional<std::string_view> string(uint64_t tableOffset, uint64_t tableSize, uint64_t offset) const {
    if (offset >= tableSize) return std::nullopt;
    const char *begin = reinterpret_cast<const char *>(bytes_.data()) + tableOffset + offset;
    const void *nul = std::memchr(begin, 0, tableSize - offset);
    if (!nul) return std::nullopt;
    return std::string_view(begin, static_cast<const char *>(nul) - begin);
  }

private:
  std::span<const std::byte> bytes_;
};

struct LoadSegment {
  uint64_t offset, vaddr, fileSize, memSize;
};

// Checks that the host-code object is an x86-64 shared object the dynamic loader can map
// without reading outside it, that it imports nothing beyond the C runtime, needs no text
// relocations and exports hrx.abi_version. Errors name the header, entry and field.
class HostObjectValidator {
public:
  HostObjectValidator(std::span<const std::byte> elf, const std::string &name) : elf_(elf), name_(name) {}

  Status run() {
    if (Status s = header(); !s) return s;
    if (Status s = programHeaders(); !s) return s;
    if (Status s = sectionHeaders(); !s) return s;
    if (Status s = dynamicEntries(); !s) return s;
    return abiVersionSymbol();
  }

private:
  Status fail(const std::string &where, const std::string &what) const {
    return Status(StatusCode::InvalidArgument,
                  name_ + ": host code is not a loadable x86-64 shared object: " + where + ": " + what);
  }

  Status header() {
    if (elf_.size() < kElfHeaderBytes)
      return fail("ELF header",
                  "the object has " + std::to_string(elf_.size()) + " bytes, fewer than the 64-byte header");
    for (unsigned i = 0; i < 4; ++i)
      if (elf_.read(i, 1) != kElfMagic[i]) return fail("ELF header e_ident", "bad ELF magic");
    if (elf_.read(4, 1) != 2 || elf_.read(5, 1) != 1)
      return fail("ELF header e_ident", "not ELF64 little-endian (EI_CLASS " + std::to_string(elf_.read(4, 1)) +
                                            ", EI_DATA " + std::to_string(elf_.read(5, 1)) + ")");
    if (elf_.u16(16) != kElfTypeDyn)
      return fail("ELF header e_type", std::to_string(elf_.u16(16)) + " is not ET_DYN (3)");
    if (elf_.u16(18) != kMachineX86_64)
      return fail("ELF header e_machine", std::to_string(elf_.u16(18)) + " is not EM_X86_64 (62)");
    if (elf_.u32(20) != 1) return fail("ELF header e_version", std::to_string(elf_.u32(20)) + " is not 1");
    phoff_ = elf_.u64(32);
    shoff_ = elf_.u64(40);
    phnum_ = elf_.u16(56);
    shnum_ = elf_.u16(60);
    shstrndx_ = elf_.u16(62);
    if (elf_.u16(54) != kProgramHeaderBytes)
      return fail("ELF header e_phentsize", std::to_string(elf_.u16(54)) + " is not 56");
    if (shnum_ != 0 && elf_.u16(58) != kSectionHeaderBytes)
      return fail("ELF header e_shentsize", std::to_string(elf_.u16(58)) + " is not 64");
    return Status::ok();
  }

  Status programHeaders() {
    if (phnum_ == 0) return fail("ELF header e_phnum", "the object has no program headers");
    if (!fits(phoff_, phnum_ * kProgramHeaderBytes, elf_.size()))
      return fail("ELF header e_phoff", "the program-header table [" + std::to_string(phoff_) + ", +" +
                                            std::to_string(phnum_ * kProgramHeaderBytes) + ") ends past the " +
                                            std::to_string(elf_.size()) + "-byte object");
    uint64_t mapped = 0, previousEnd = 0;
    unsigned dynamicCount = 0;
    for (unsigned i = 0; i < phnum_; ++i) {
      uint64_t at = phoff_ + i * kProgramHeaderBytes;
      uint32_t type = elf_.u32(at);
      uint64_t offset = elf_.u64(at + 8), vaddr = elf_.u64(at + 16), fileSize = elf_.u64(at + 32),
               memSize = elf_.u64(at + 40), align = elf_.u64(at + 48);
      std::string where = "program header " + std::to_string(i);
      if (type == kPtDynamic) {
        ++dynamicCount;
        dynamicOffset_ = offset;
        dynamicSize_ = fileSize;
        dynamicVaddr_ = vaddr;
        continue;
      }
      if (type != kPtLoad) continue;
      where += " (PT_LOAD)";
      if (!isPowerOfTwo(align) || align < 4096)
        return fail(where + " p_align",
                    std::to_string(align) + " is not a power of two of at least the 4096-byte page");
      if (offset % align != vaddr % align)
        return fail(where + " p_offset", std::to_string(offset) + " and p_vaddr " + std::to_string(vaddr) +
                                             " differ modulo p_align " + std::to_string(align));
      if (!fits(offset, fileSize, elf_.size()))
        return fail(where + " p_filesz", "[" + std::to_string(offset) + ", +" + std::to_string(fileSize) +
                                             ") ends past the " + std::to_string(elf_.size()) + "-byte object");
      if (fileSize > memSize)
        return fail(where + " p_memsz",
                    std::to_string(memSize) + " is smaller than p_filesz " + std::to_string(fileSize));
      if (memSize > kMaxMappedBytes - mapped || vaddr > kMaxMappedBytes * 4 || vaddr < previousEnd)
        return fail(where + " p_vaddr", "segments must ascend without overlapping and map at most " +
                                            std::to_string(kMaxMappedBytes) + " bytes (p_vaddr " +
                                            std::to_string(vaddr) + ", p_memsz " + std::to_string(memSize) + ")");
      mapped += memSize;
      previousEnd = vaddr + memSize;
      loads_.push_back({offset, vaddr, fileSize, memSize});
    }
    if (loads_.empty()) return fail("program headers", "no PT_LOAD segment");
    if (dynamicCount != 1)
      return fail("program headers", std::to_string(dynamicCount) + " PT_DYNAMIC segments; exactly one is required");
    return Status::ok();
  }

  Status sectionHeaders() {
    if (shnum_ == 0) return Status::ok();
    if (!fits(shoff_, shnum_ * kSectionHeaderBytes, elf_.size()))
      return fail("ELF header e_shoff", "the section-header table [" + std::to_string(shoff_) + ", +" +
                                            std::to_string(shnum_ * kSectionHeaderBytes) + ") ends past the " +
                                            std::to_string(elf_.size()) + "-byte object");
    if (shstrndx_ >= shnum_)
      return fail("ELF header e_shstrndx",
                  std::to_string(shstrndx_) + " is not below e_shnum " + std::to_string(shnum_));
    for (unsigned i = 0; i < shnum_; ++i) {
      uint64_t at = shoff_ + i * kSectionHeaderBytes;
      uint32_t type = elf_.u32(at + 4);
      uint64_t offset = elf_.u64(at + 24), size = elf_.u64(at + 32);
      if (type != kShtNobits && !fits(offset, size, elf_.size()))
        return fail("section header " + std::to_string(i) + " sh_size",
                    "[" + std::to_string(offset) + ", +" + std::to_string(size) + ") ends past the " +
                        std::to_string(elf_.size()) + "-byte object");
      if (type == kShtDynsym) {
        uint32_t link = elf_.u32(at + 40);
        if (link >= shnum_)
          return fail("section header " + std::to_string(i) + " (.dynsym) sh_link",
                      std::to_string(link) + " names no section");
        uint64_t linked = shoff_ + link * kSectionHeaderBytes;
        dynsym_ = {offset, size, elf_.u64(linked + 24), elf_.u64(linked + 32)};
        if (!fits(dynsym_->strtabOffset, dynsym_->strtabSize, elf_.size()))
          return fail("section header " + std::to_string(link) + " (.dynstr) sh_size", "ends past the object");
      }
    }
    return Status::ok();
  }

  // The file offset of `size` bytes at virtual address `vaddr`, when a PT_LOAD holds them.
  std::optional<uint64_t> fileOffsetOf(uint64_t vaddr, uint64_t size) const {
    for (const LoadSegment &load : loads_)
      if (vaddr >= load.vaddr && fits(vaddr - load.vaddr, size, load.fileSize))
        return load.offset + (vaddr - load.vaddr);
    return std::nullopt;
  }

  Status dynamicEntries() {
    const std::string where = "PT_DYNAMIC";
    if (dynamicSize_ % kDynamicEntryBytes != 0 || !fits(dynamicOffset_, dynamicSize_, elf_.size()))
      return fail(where + " p_filesz", "[" + std::to_string(dynamicOffset_) + ", +" + std::to_string(dynamicSize_) +
                                           ") is not a whole number of 16-byte entries inside the object");
    if (fileOffsetOf(dynamicVaddr_, dynamicSize_) != dynamicOffset_)
      return fail(where + " p_vaddr", "the dynamic section is not loaded where its file bytes are");
    std::vector<uint64_t> needed;
    std::map<int64_t, uint64_t> values;  // the first value of every other tag
    bool terminated = false;
    for (uint64_t at = dynamicOffset_; at < dynamicOffset_ + dynamicSize_; at += kDynamicEntryBytes) {
      int64_t tag = static_cast<int64_t>(elf_.u64(at));
      uint64_t value = elf_.u64(at + 8);
      std::string entry = "dynamic entry " + std::to_string((at - dynamicOffset_) / kDynamicEntryBytes);
      if (tag == kDtNull) {
        terminated = true;
        break;
      }
      if (tag == kDtTextrel || (tag == kDtFlags && (value & kDfTextrel)))
        return fail(entry + (tag == kDtTextrel ? " (DT_TEXTREL)" : " (DT_FLAGS)"),
                    "the object needs text relocations (writable code)");
      if (tag == kDtNeeded)
        needed.push_back(value);
      else
        values.emplace(tag, value);
    }
    if (!terminated) return fail(where, "the dynamic entries do not end in DT_NULL");
    auto value = [&](int64_t tag) -> std::optional<uint64_t> {
      auto it = values.find(tag);
      return it == values.end() ? std::nullopt : std::optional(it->second);
    };
    // Every table the dynamic loader reads by address lies in the mapped image.
    for (const DynamicTable &table : kDynamicTables) {
      std::optional<uint64_t> address = value(table.addressTag);
      if (!address) continue;
      uint64_t size = table.sizeTag ? value(table.sizeTag).value_or(0) : 1;
      if (!inMemory(*address, size))
        return fail(where + " " + table.name,
                    "[" + std::to_string(*address) + ", +" + std::to_string(size) + ") is outside the loaded segments");
    }
    if (Status s = relocations("DT_RELA", value(kDtRela), value(kDtRelasz)); !s) return s;
    if (Status s = relocations("DT_JMPREL", value(kDtJmprel), value(kDtPltrelsz)); !s) return s;
    if (needed.empty()) return Status::ok();
    std::optional<uint64_t> strtab = value(kDtStrtab), strsz = value(kDtStrsz);
    std::optional<uint64_t> strtabOffset = strtab && strsz ? fileOffsetOf(*strtab, *strsz) : std::nullopt;
    if (!strtabOffset) return fail(where + " DT_STRTAB", "the string table is missing or outside the loaded segments");
    for (uint64_t name : needed) {
      auto library = elf_.string(*strtabOffset, *strsz, name);
      if (!library) return fail(where + " DT_NEEDED", "name offset " + std::to_string(name) + " is outside DT_STRTAB");
      if (std::find(std::begin(kAllowedNeeded), std::end(kAllowedNeeded), *library) == std::end(kAllowedNeeded))
        return fail(where + " DT_NEEDED", "'" + std::string(*library) +
                                              "' is not one of the libraries host code may import (libc.so.6, "
                                              "libm.so.6, libgcc_s.so.1)");
    }
    return Status::ok();
  }

  bool inMemory(uint64_t vaddr, uint64_t size) const {
    for (const LoadSegment &load : loads_)
      if (vaddr >= load.vaddr && fits(vaddr - load.vaddr, size, load.memSize)) return true;
    return false;
  }

  // x86-64 relocations (Elf64_Rela): the table is file-backed, every target is 8 bytes inside
  // the mapped image and every symbol index names a .dynsym entry.
  Status relocations(const std::string &name, std::optional<uint64_t> address, std::optional<uint64_t> size) {
    if (!address) return Status::ok();
    const std::string where = "PT_DYNAMIC " + name;
    std::optional<uint64_t> table = size && *size % kRelaBytes == 0 ? fileOffsetOf(*address, *size) : std::nullopt;
    if (!table) return fail(where, "the table is not a whole number of 24-byte entries inside the loaded file bytes");
    uint64_t symbols = dynsym_ ? dynsym_->size / kSymbolBytes : 0;
    for (uint64_t k = 0; k < *size / kRelaBytes; ++k) {
      uint64_t at = *table + k * kRelaBytes, target = elf_.u64(at), symbol = elf_.u64(at + 8) >> 32;
      if (!inMemory(target, 8))
        return fail(where + " entry " + std::to_string(k) + " r_offset",
                    std::to_string(target) + " is outside the loaded segments");
      if (symbol >= std::max<uint64_t>(symbols, 1))
        return fail(where + " entry " + std::to_string(k) + " r_info", "symbol " + std::to_string(symbol) +
                                                                           " is not in .dynsym (" +
                                                                           std::to_string(symbols) + " symbols)");
    }
    return Status::ok();
  }

  Status abiVersionSymbol() {
    const std::string where = ".dynsym " HRX_HOST_ABI_VERSION_SYMBOL;
    if (!dynsym_) return fail(".dynsym", "the object has no dynamic symbol table");
    for (uint64_t at = dynsym_->offset; at + kSymbolBytes <= dynsym_->offset + dynsym_->size; at += kSymbolBytes) {
      auto name = elf_.string(dynsym_->strtabOffset, dynsym_->strtabSize, elf_.u32(at));
      if (name != HRX_HOST_ABI_VERSION_SYMBOL) continue;
      uint8_t type = elf_.read(at + 4, 1) & 0xf;
      uint16_t section = elf_.u16(at + 6);
      uint64_t value = elf_.u64(at + 8), size = elf_.u64(at + 16);
      // At least 4 bytes: sanitizer builds pad instrumented globals.
      if (type != kSttObject || section == 0 || size < 4)
        return fail(where, "expected a defined object of at least 4 bytes (st_type " + std::to_string(type) +
                               ", st_shndx " + std::to_string(section) + ", st_size " + std::to_string(size) + ")");
      if (!fileOffsetOf(value, size))
        return fail(where + " st_value", std::to_string(value) + " is not inside a loaded segment's file bytes");
      return Status::ok();
    }
    return fail(where, "the object does not export " HRX_HOST_ABI_VERSION_SYMBOL);
  }

  struct DynamicSymbols {
    uint64_t offset, size, strtabOffset, strtabSize;
  };

  ElfBytes elf_;
  const std::string &name_;
  uint64_t phoff_ = 0, shoff_ = 0;
  unsigned phnum_ = 0, shnum_ = 0, shstrndx_ = 0;
  std::vector<LoadSegment> loads_;
  uint64_t dynamicOffset_ = 0, dynamicSize_ = 0, dynamicVaddr_ = 0;
  std::optional<DynamicSymbols> dynsym_;
};

}  // namespace

Status validateHostCode(std::span<const std::byte> elf, const std::string &name) {
  return HostObjectValidator(elf, name).run();
}

StatusOr<std::shared_ptr<HostCode>> HostCode::load(std::span<const std::byte> elf, std::string name) {
  if (Status s = validateHostCode(elf, name); !s) return s;
  int fd = memfd_create("hrx-host-code", MFD_CLOEXEC);
  if (fd < 0) return Status(StatusCode::Internal, name + ": memfd_create failed: " + std::strerror(errno));
  size_t written = 0;
  while (written < elf.size()) {
    ssize_t n = ::write(fd, elf.data() + written, elf.size() - written);
    if (n <= 0) {
      ::close(fd);
      return Status(StatusCode::Internal, name + ": writing host code to memory failed: " + std::strerror(errno));
    }
    written += static_cast<size_t>(n);
  }
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    ::close(fd);
    return Status(StatusCode::InvalidArgument, name + ": cannot load host code: " + dlerror());
  }
  // The dynamic loader recognises an object by its path: the descriptor stays open while the
  // object is loaded so no other host code gets the same /proc/self/fd name.
  std::shared_ptr<HostCode> code(new HostCode(handle, fd, std::move(name), elf.size()));
  auto *abi = static_cast<const uint32_t *>(dlsym(handle, HRX_HOST_ABI_VERSION_SYMBOL));
  if (!abi)
    return Status(StatusCode::InvalidArgument,
                  code->name_ + ": host code does not export " HRX_HOST_ABI_VERSION_SYMBOL);
  if (*abi != HRX_HOST_ABI_VERSION)
    return Status(StatusCode::FailedPrecondition, code->name_ + ": host code ABI version " + std::to_string(*abi) +
                                                      " differs from the runtime's " +
                                                      std::to_string(HRX_HOST_ABI_VERSION));
  return code;
}

HostCode::~HostCode() {
  dlclose(handle_);
  ::close(fd_);
}

StatusOr<void *> HostCode::resolve(const char *prefix, std::string_view symbol) const {
  std::string full = prefix + std::string(symbol);
  void *address = dlsym(handle_, full.c_str());
  if (!address) return Status(StatusCode::NotFound, name_ + ": host code has no symbol '" + full + "'");
  return address;
}

StatusOr<hrx_host_stage_fn> HostCode::stage(std::string_view symbol) const {
  auto address = resolve(HRX_HOST_STAGE_PREFIX, symbol);
  if (!address) return address.status();
  return reinterpret_cast<hrx_host_stage_fn>(*address);
}

StatusOr<hrx_host_kernel_fn> HostCode::kernel(std::string_view symbol) const {
  auto address = resolve(HRX_HOST_KERNEL_PREFIX, symbol);
  if (!address) {
    // The compiler says why a kernel has no host code (LINK/044).
    if (auto reason = resolve(HRX_HOST_UNAVAILABLE_PREFIX, symbol))
      return Status(StatusCode::FailedPrecondition, std::string(address.status().message()) +
                                                        ": the host twin cannot run kernel '" + std::string(symbol) +
                                                        "': " + static_cast<const char *>(*reason));
    return address.status();
  }
  return reinterpret_cast<hrx_host_kernel_fn>(*address);
}

StatusOr<hrx_host_launch_fn> HostCode::launch(std::string_view symbol) const {
  auto address = resolve(HRX_HOST_LAUNCH_PREFIX, symbol);
  if (!address) return address.status();
  return reinterpret_cast<hrx_host_launch_fn>(*address);
}

}  // namespace hrx::runtime
