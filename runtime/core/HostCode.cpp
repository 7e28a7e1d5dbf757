// Loading the host-code shared object from memory: memfd_create + dlopen, no files, no LLVM.
#include "hrx/runtime/HostDevice.h"

#include "hrx/format/ElfReader.h"

#include <algorithm>
#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <map>
#include <optional>
#include <sys/mman.h>
#include <unistd.h>

namespace hrx::runtime {
namespace {

// ELF constants (System V gABI, x86-64 psABI), from <elf.h>.
constexpr uint16_t kElfTypeDyn = ET_DYN, kMachineX86_64 = EM_X86_64;
constexpr uint32_t kPtLoad = PT_LOAD, kPtDynamic = PT_DYNAMIC, kShtDynsym = SHT_DYNSYM;
constexpr int64_t kDtNull = DT_NULL, kDtNeeded = DT_NEEDED, kDtPltrelsz = DT_PLTRELSZ, kDtStrtab = DT_STRTAB,
                  kDtRela = DT_RELA, kDtRelasz = DT_RELASZ, kDtStrsz = DT_STRSZ, kDtTextrel = DT_TEXTREL,
                  kDtJmprel = DT_JMPREL, kDtFlags = DT_FLAGS;
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

struct LoadSegment {
  uint64_t offset, vaddr, fileSize, memSize;
};

// Checks that the host-code object is an x86-64 shared object the dynamic loader can map
// without reading outside it, that it imports nothing beyond the C runtime, needs no text
// relocations and exports hrx.abi_version. The ELF structure is read by the format library's
// ELF reader; errors name the header, entry and field.
class HostObjectValidator {
public:
  HostObjectValidator(std::span<const std::byte> elf, const std::string &name)
      : bytes_(reinterpret_cast<const uint8_t *>(elf.data()), elf.size()), name_(name) {}

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
  Status fail(const format::elf::ElfError &e) const {
    return fail(e.field.empty() ? e.where : e.where + " " + e.field, e.what);
  }

  Status header() {
    const uint64_t headerBytes = format::elf::recordSizes(format::elf::ElfClass::Elf64).header;
    if (bytes_.size() < headerBytes)
      return fail("ELF header",
                  "the object has " + std::to_string(bytes_.size()) + " bytes, fewer than the 64-byte header");
    if (!format::elf::hasElfMagic(bytes_)) return fail("ELF header e_ident", "bad ELF magic");
    auto reader = format::elf::ElfReader::open(bytes_, format::elf::ElfClass::Elf64);
    if (!reader) return fail(reader.error());
    elf_ = *reader;
    const format::elf::FileHeader &h = elf_->header();
    if (h.type != kElfTypeDyn) return fail("ELF header e_type", std::to_string(h.type) + " is not ET_DYN (3)");
    if (h.machine != kMachineX86_64)
      return fail("ELF header e_machine", std::to_string(h.machine) + " is not EM_X86_64 (62)");
    if (h.version != 1) return fail("ELF header e_version", std::to_string(h.version) + " is not 1");
    return Status::ok();
  }

  Status programHeaders() {
    if (elf_->header().phnum == 0) return fail("ELF header e_phnum", "the object has no program headers");
    auto headers = elf_->programHeaders();
    if (!headers) return fail(headers.error());
    uint64_t mapped = 0, previousEnd = 0;
    unsigned dynamicCount = 0;
    for (unsigned i = 0; i < headers->size(); ++i) {
      const format::elf::ProgramHeader &ph = (*headers)[i];
      std::string where = "program header " + std::to_string(i);
      if (ph.type == kPtDynamic) {
        ++dynamicCount;
        dynamicOffset_ = ph.offset;
        dynamicSize_ = ph.filesz;
        dynamicVaddr_ = ph.vaddr;
        continue;
      }
      if (ph.type != kPtLoad) continue;
      where += " (PT_LOAD)";
      if (!isPowerOfTwo(ph.align) || ph.align < 4096)
        return fail(where + " p_align",
                    std::to_string(ph.align) + " is not a power of two of at least the 4096-byte page");
      if (ph.offset % ph.align != ph.vaddr % ph.align)
        return fail(where + " p_offset", std::to_string(ph.offset) + " and p_vaddr " + std::to_string(ph.vaddr) +
                                             " differ modulo p_align " + std::to_string(ph.align));
      if (!elf_->segmentData(i, ph))
        return fail(where + " p_filesz", "[" + std::to_string(ph.offset) + ", +" + std::to_string(ph.filesz) +
                                             ") ends past the " + std::to_string(bytes_.size()) + "-byte object");
      if (ph.filesz > ph.memsz)
        return fail(where + " p_memsz",
                    std::to_string(ph.memsz) + " is smaller than p_filesz " + std::to_string(ph.filesz));
      if (ph.memsz > kMaxMappedBytes - mapped || ph.vaddr > kMaxMappedBytes * 4 || ph.vaddr < previousEnd)
        return fail(where + " p_vaddr", "segments must ascend without overlapping and map at most " +
                                            std::to_string(kMaxMappedBytes) + " bytes (p_vaddr " +
                                            std::to_string(ph.vaddr) + ", p_memsz " + std::to_string(ph.memsz) + ")");
      mapped += ph.memsz;
      previousEnd = ph.vaddr + ph.memsz;
      loads_.push_back({ph.offset, ph.vaddr, ph.filesz, ph.memsz});
    }
    if (loads_.empty()) return fail("program headers", "no PT_LOAD segment");
    if (dynamicCount != 1)
      return fail("program headers", std::to_string(dynamicCount) + " PT_DYNAMIC segments; exactly one is required");
    return Status::ok();
  }

  Status sectionHeaders() {
    auto headers = elf_->sectionHeaders();
    if (!headers) return fail(headers.error());
    for (unsigned i = 0; i < headers->size(); ++i) {
      const format::elf::SectionHeader &sh = (*headers)[i];
      auto data = elf_->sectionData(i, sh);
      if (!data) return fail(data.error());
      if (sh.type == kShtDynsym) {
        if (sh.link >= headers->size())
          return fail("section header " + std::to_string(i) + " (.dynsym) sh_link",
                      std::to_string(sh.link) + " names no section");
        const format::elf::SectionHeader &linked = (*headers)[sh.link];
        auto strings = elf_->range(linked.offset, linked.size, "section header " + std::to_string(sh.link), "");
        if (!strings)
          return fail("section header " + std::to_string(sh.link) + " (.dynstr) sh_size", "ends past the object");
        dynsym_ = {*data, *strings};
      }
    }
    return Status::ok();
  }

  // The file bytes of `size` bytes at virtual address `vaddr`, when a PT_LOAD holds them.
  std::optional<std::span<const uint8_t>> fileBytesOf(uint64_t vaddr, uint64_t size) const {
    for (const LoadSegment &load : loads_)
      if (vaddr >= load.vaddr && fits(vaddr - load.vaddr, size, load.fileSize))
        return bytes_.subspan(load.offset + (vaddr - load.vaddr), size);
    return std::nullopt;
  }

  Status dynamicEntries() {
    const std::string where = "PT_DYNAMIC";
    const uint64_t entryBytes = elf_->sizes().dynamic;
    auto table = elf_->range(dynamicOffset_, dynamicSize_, where, "p_filesz");
    if (dynamicSize_ % entryBytes != 0 || !table)
      return fail(where + " p_filesz", "[" + std::to_string(dynamicOffset_) + ", +" + std::to_string(dynamicSize_) +
                                           ") is not a whole number of 16-byte entries inside the object");
    auto loaded = fileBytesOf(dynamicVaddr_, dynamicSize_);
    if (!loaded || loaded->data() != table->data())
      return fail(where + " p_vaddr", "the dynamic section is not loaded where its file bytes are");
    std::vector<uint64_t> needed;
    std::map<int64_t, uint64_t> values;  // the first value of every other tag
    bool terminated = false;
    for (uint64_t k = 0; k < dynamicSize_ / entryBytes; ++k) {
      format::elf::DynamicEntry d = elf_->dynamicEntry(*table, k);
      std::string entry = "dynamic entry " + std::to_string(k);
      if (d.tag == kDtNull) {
        terminated = true;
        break;
      }
      if (d.tag == kDtTextrel || (d.tag == kDtFlags && (d.value & kDfTextrel)))
        return fail(entry + (d.tag == kDtTextrel ? " (DT_TEXTREL)" : " (DT_FLAGS)"),
                    "the object needs text relocations (writable code)");
      if (d.tag == kDtNeeded)
        needed.push_back(d.value);
      else
        values.emplace(d.tag, d.value);
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
    auto strings = strtab && strsz ? fileBytesOf(*strtab, *strsz) : std::nullopt;
    if (!strings) return fail(where + " DT_STRTAB", "the string table is missing or outside the loaded segments");
    for (uint64_t name : needed) {
      auto library = format::elf::ElfReader::stringAt(*strings, name);
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
    const uint64_t entryBytes = elf_->sizes().relocation;
    auto table = size && *size % entryBytes == 0 ? fileBytesOf(*address, *size) : std::nullopt;
    if (!table) return fail(where, "the table is not a whole number of 24-byte entries inside the loaded file bytes");
    uint64_t symbols = dynsym_ ? dynsym_->symbols.size() / elf_->sizes().symbol : 0;
    for (uint64_t k = 0; k < *size / entryBytes; ++k) {
      format::elf::Relocation r = elf_->relocation(*table, k);
      if (!inMemory(r.offset, 8))
        return fail(where + " entry " + std::to_string(k) + " r_offset",
                    std::to_string(r.offset) + " is outside the loaded segments");
      if (r.symbol >= std::max<uint64_t>(symbols, 1))
        return fail(where + " entry " + std::to_string(k) + " r_info", "symbol " + std::to_string(r.symbol) +
                                                                           " is not in .dynsym (" +
                                                                           std::to_string(symbols) + " symbols)");
    }
    return Status::ok();
  }

  Status abiVersionSymbol() {
    const std::string where = ".dynsym " HRX_HOST_ABI_VERSION_SYMBOL;
    if (!dynsym_) return fail(".dynsym", "the object has no dynamic symbol table");
    for (uint64_t k = 0; k < dynsym_->symbols.size() / elf_->sizes().symbol; ++k) {
      format::elf::Symbol symbol = elf_->symbol(dynsym_->symbols, k);
      auto name = format::elf::ElfReader::stringAt(dynsym_->strings, symbol.name);
      if (name != HRX_HOST_ABI_VERSION_SYMBOL) continue;
      uint8_t type = symbol.type();
      // At least 4 bytes: sanitizer builds pad instrumented globals.
      if (type != kSttObject || symbol.shndx == 0 || symbol.size < 4)
        return fail(where, "expected a defined object of at least 4 bytes (st_type " + std::to_string(type) +
                               ", st_shndx " + std::to_string(symbol.shndx) + ", st_size " +
                               std::to_string(symbol.size) + ")");
      if (!fileBytesOf(symbol.value, symbol.size))
        return fail(where + " st_value", std::to_string(symbol.value) + " is not inside a loaded segment's file bytes");
      return Status::ok();
    }
    return fail(where, "the object does not export " HRX_HOST_ABI_VERSION_SYMBOL);
  }

  struct DynamicSymbols {
    std::span<const uint8_t> symbols, strings;
  };

  std::span<const uint8_t> bytes_;
  const std::string &name_;
  std::optional<format::elf::ElfReader> elf_;
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

std::span<const uint8_t> HostCode::stageAccess(std::string_view symbol, size_t records) const {
  auto address = resolve(HRX_HOST_STAGE_ACCESS_PREFIX, symbol);
  if (!address) return {};
  Dl_info info;
  void *entry = nullptr;  // the symbol's ElfW(Sym), for its size
  if (!dladdr1(*address, &info, &entry, RTLD_DL_SYMENT) || !entry ||
      static_cast<const ElfW(Sym) *>(entry)->st_size < records)  // sanitizer builds pad globals
    return {};
  return {static_cast<const uint8_t *>(*address), records};
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

StatusOr<std::span<std::byte>> HostCode::global(std::string_view symbol, size_t bytes) const {
  auto address = resolve("", symbol);
  if (!address) return address.status();
  Dl_info info;
  void *entry = nullptr;
  struct link_map *self = nullptr;
  if (!dladdr1(*address, &info, &entry, RTLD_DL_SYMENT) || !entry || dlinfo(handle_, RTLD_DI_LINKMAP, &self) != 0 ||
      !self || reinterpret_cast<uintptr_t>(info.dli_fbase) != self->l_addr ||
      ELF64_ST_TYPE(static_cast<const ElfW(Sym) *>(entry)->st_info) != STT_OBJECT)
    return Status(StatusCode::NotFound,
                  name_ + ": '" + std::string(symbol) + "' is not a global variable of the host code");
  uint64_t size = static_cast<const ElfW(Sym) *>(entry)->st_size;
  if (size < bytes)  // sanitizer builds pad globals, so larger is fine
    return Status(StatusCode::InvalidArgument, name_ + ": global '" + std::string(symbol) + "' has " +
                                                   std::to_string(size) + " bytes, " + std::to_string(bytes) +
                                                   " were given");
  return std::span<std::byte>(static_cast<std::byte *>(*address), bytes);
}

StatusOr<hrx_host_launch_fn> HostCode::launch(std::string_view symbol) const {
  auto address = resolve(HRX_HOST_LAUNCH_PREFIX, symbol);
  if (!address) return address.status();
  return reinterpret_cast<hrx_host_launch_fn>(*address);
}

uint64_t HostCode::launchStorage(std::string_view symbol, const uint64_t *workload) const {
  auto address = resolve(HRX_HOST_LAUNCH_STORAGE_PREFIX, symbol);
  if (!address) return 0;
  uint64_t bytes = 0;
  reinterpret_cast<hrx_host_launch_storage_fn>(*address)(workload, &bytes);
  return bytes;
}

}  // namespace hrx::runtime
