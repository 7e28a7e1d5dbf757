// hrx-mc: the AIE2P machine-code tool, in the spirit of llvm-mc. Assembles llvm-aie assembly to
// raw bundle bytes or an ELF EM_AIE relocatable object, disassembles either back (one bundle per
// line, slots separated by ';'), and runs a snippet on the instruction-set simulator.
// Thin: the table, the assembler and the simulator live in runtime/aie2p (hrx_aie2p).
// Exit codes: 0 success, 1 usage or input error, 2 the simulated program trapped.
#include "hrx/aie2p/Asm.h"
#include "hrx/aie2p/Simulator.h"
#include "hrx/format/FileIO.h"

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

using namespace hrx::aie2p;

namespace {

struct Options {
  std::string arch, input, output = "-", filetype = "bin", north;
  bool assemble = false, disassemble = false, run = false, showEncoding = false, printRegs = false;
  std::vector<std::string> mem, dump, set;
  uint64_t maxCycles = 1'000'000;
};

int fail(const std::string &message) {
  std::cerr << "hrx-mc: error: " << message << "\n";
  return 1;
}

// Reads and writes go through hrx::io (hrx/format/FileIO.h): a directory, FIFO, missing file or
// short read is an error naming the path and the reason, never an exception; outputs are
// written atomically.
bool readFile(const std::string &path, std::vector<uint8_t> &out) {
  auto bytes = hrx::io::readFile(path);
  if (!bytes) {
    fail(bytes.status().message());
    return false;
  }
  out = std::move(*bytes);
  return true;
}

bool writeFile(const std::string &path, const std::vector<uint8_t> &bytes) {
  if (path == "-") {
    std::cout.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    std::cout.flush();
    if (!std::cout) fail("cannot write the standard output");
    return static_cast<bool>(std::cout);
  }
  if (hrx::Status s = hrx::io::writeFileAtomically(path, bytes); !s) {
    fail(s.message());
    return false;
  }
  return true;
}

void printDiagnostic(const std::string &file, std::string_view source, const AsmDiagnostic &d) {
  std::cerr << file << ":" << d.line << ":" << d.column << ": error: " << d.message << " [" << d.code << "]\n";
  // The source line and a caret under the column, as clang shows them.
  size_t start = 0;
  for (unsigned l = 1; l < d.line && start < source.size(); ++l) {
    size_t nl = source.find('\n', start);
    start = nl == std::string_view::npos ? source.size() : nl + 1;
  }
  size_t end = source.find('\n', start);
  std::string_view text = source.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
  std::cerr << "  " << text << "\n  " << std::string(d.column > 0 ? d.column - 1 : 0, ' ') << "^\n";
}

bool isAssemblyPath(const std::string &path) {
  for (const char *ext : {".s", ".S", ".asm"}) {
    size_t n = std::strlen(ext);
    if (path.size() > n && path.compare(path.size() - n, n, ext) == 0) return true;
  }
  return false;
}

// Assembles a file; prints located errors.
bool assembleFile(const std::string &path, AsmProgram &program) {
  std::vector<uint8_t> raw;
  if (!readFile(path, raw)) return false;
  std::string source(raw.begin(), raw.end());
  std::vector<AsmDiagnostic> diags;
  if (assemble(source, program, diags)) return true;
  for (const auto &d : diags) printDiagnostic(path, source, d);
  std::cerr << diags.size() << (diags.size() == 1 ? " error" : " errors") << " generated.\n";
  return false;
}

// Code bytes from raw bundles or an ELF object.
bool loadCode(const std::string &path, std::vector<uint8_t> &code) {
  std::vector<uint8_t> raw;
  if (!readFile(path, raw)) return false;
  if (looksLikeElf(raw)) {
    std::string why;
    if (!readObjectText(raw, code, why)) {
      std::cerr << path << ": error: not an AIE2P object: " << why << " [MC/011]\n";
      return false;
    }
    return true;
  }
  code = std::move(raw);
  return true;
}

std::string hexBytes(std::span<const uint8_t> b) {
  std::string s;
  char t[4];
  for (uint8_t v : b) std::snprintf(t, sizeof t, "%02x ", v), s += t;
  if (!s.empty()) s.pop_back();
  return s;
}

// --mem=ADDR:TYPE:v,v,...  and  --dump=ADDR:TYPE:COUNT
struct MemSpec {
  uint32_t address;
  std::string type;
  std::string rest;
};

bool parseMemSpec(const std::string &text, MemSpec &spec, std::string &why) {
  size_t a = text.find(':'), b = a == std::string::npos ? a : text.find(':', a + 1);
  if (b == std::string::npos) {
    why = "'" + text + "': expected ADDRESS:TYPE:VALUES";
    return false;
  }
  try {
    spec.address = static_cast<uint32_t>(std::stoul(text.substr(0, a), nullptr, 0));
  } catch (...) {
    why = "'" + text + "': bad address";
    return false;
  }
  spec.type = text.substr(a + 1, b - a - 1);
  spec.rest = text.substr(b + 1);
  if (spec.type != "i32" && spec.type != "u32" && spec.type != "i16" && spec.type != "i8" && spec.type != "f32" &&
      spec.type != "bf16") {
    why = "'" + text + "': type '" + spec.type + "' is not one of i32, u32, i16, i8, f32, bf16";
    return false;
  }
  return true;
}

unsigned typeSize(const std::string &t) { return t == "i16" || t == "bf16" ? 2 : t == "i8" ? 1 : 4; }

bool encodeValue(const std::string &type, const std::string &text, std::vector<uint8_t> &out) {
  try {
    uint32_t bits;
    if (type == "f32" || type == "bf16") {
      float f = std::stof(text);
      std::memcpy(&bits, &f, 4);
      if (type == "bf16") bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16;
    } else {
      bits = static_cast<uint32_t>(std::stoll(text, nullptr, 0));
    }
    for (unsigned i = 0; i < typeSize(type); ++i) out.push_back(static_cast<uint8_t>(bits >> (8 * i)));
    return true;
  } catch (...) {
    return false;
  }
}

std::string formatValue(const std::string &type, const uint8_t *p) {
  uint32_t bits = 0;
  std::memcpy(&bits, p, typeSize(type));
  char b[48];
  if (type == "f32" || type == "bf16") {
    if (type == "bf16") bits <<= 16;
    float f;
    std::memcpy(&f, &bits, 4);
    std::snprintf(b, sizeof b, "%g", f);
  } else if (type == "u32") {
    std::snprintf(b, sizeof b, "%u", bits);
  } else if (type == "i16") {
    std::snprintf(b, sizeof b, "%d", static_cast<int16_t>(bits));
  } else if (type == "i8") {
    std::snprintf(b, sizeof b, "%d", static_cast<int8_t>(bits));
  } else {
    std::snprintf(b, sizeof b, "%d", static_cast<int32_t>(bits));
  }
  return b;
}

bool loadProgram(const std::string &path, std::vector<uint8_t> &code) {
  if (!isAssemblyPath(path)) return loadCode(path, code);
  AsmProgram program;
  if (!assembleFile(path, program)) return false;
  code = program.bytes;
  return true;
}

int runSnippet(const Options &opt) {
  std::vector<uint8_t> code, northCode;
  if (!loadProgram(opt.input, code)) return 1;
  if (!opt.north.empty() && !loadProgram(opt.north, northCode)) return 1;
  // With --north, a second core runs in the tile north of the first: each sees the other's
  // memory (the first at 0x60000, the second at 0x40000) and locks (32-47 / 0-15).
  TileMemory own, northTile;
  bool two = !opt.north.empty();
  Core core(code, CoreMemoryMap{&own, nullptr, nullptr, two ? &northTile : nullptr}, opt.maxCycles);
  Core northCore(northCode, CoreMemoryMap{&northTile, &own, nullptr, nullptr}, opt.maxCycles, 1);
  for (const auto &m : opt.mem) {
    MemSpec spec;
    std::string why;
    if (!parseMemSpec(m, spec, why)) return fail("--mem " + why);
    std::vector<uint8_t> bytes;
    std::stringstream values(spec.rest);
    for (std::string v; std::getline(values, v, ',');)
      if (!encodeValue(spec.type, v, bytes)) return fail("--mem '" + m + "': bad value '" + v + "'");
    if (!core.writeMemory(spec.address, bytes))
      return fail("--mem '" + m + "': the range is not in the core's own memory (0x70000..0x7ffff)");
  }
  for (const auto &s : opt.set) {
    size_t eq = s.find('=');
    auto reg = parseReg(eq == std::string::npos ? s : s.substr(0, eq));
    if (!reg || eq == std::string::npos)
      return fail("--set '" + s + "': expected REGISTER=VALUE with a scalar register");
    try {
      core.setScalar(*reg, static_cast<uint32_t>(std::stoll(s.substr(eq + 1), nullptr, 0)));
    } catch (...) {
      return fail("--set '" + s + "': bad value");
    }
  }
  std::vector<Core *> cores = {&core};
  if (two) cores.push_back(&northCore);
  runCores(cores);
  bool trapped = false;
  for (size_t i = 0; i < cores.size(); ++i) {
    const Core &c = *cores[i];
    const auto &st = c.stats();
    const std::string &file = i == 0 ? opt.input : opt.north;
    std::string who = two ? (i == 0 ? "core 0: " : "core 1 (north): ") : "";
    if (c.state() == CoreState::Trapped) {
      std::cerr << file << ": error: " << c.trap()->message() << " [SIM/001]\n";
      trapped = true;
    }
    std::cout << who << (c.state() == CoreState::Trapped ? "trapped" : "halted") << " after " << st.cycles
              << " cycles (" << st.stallCycles << " stall cycles, " << st.bundles << " bundles)\n";
  }
  if (trapped) return 2;
  for (const auto &d : opt.dump) {
    MemSpec spec;
    std::string why;
    if (!parseMemSpec(d, spec, why)) return fail("--dump " + why);
    unsigned count = 0;
    try {
      count = static_cast<unsigned>(std::stoul(spec.rest, nullptr, 0));
    } catch (...) {
      return fail("--dump '" + d + "': bad count");
    }
    std::vector<uint8_t> bytes(count * typeSize(spec.type));
    if (!core.readMemory(spec.address, bytes)) return fail("--dump '" + d + "': the range is not mapped");
    char head[32];
    std::snprintf(head, sizeof head, "0x%05x:", spec.address);
    std::cout << head;
    for (unsigned i = 0; i < count; ++i)
      std::cout << " " << formatValue(spec.type, bytes.data() + i * typeSize(spec.type));
    std::cout << "\n";
  }
  if (opt.printRegs) {
    for (unsigned i = 0; i < 32; ++i)
      if (uint32_t v = core.scalar(Reg{RegKind::R, static_cast<uint8_t>(i)}))
        std::cout << "r" << i << " = " << static_cast<int32_t>(v) << "\n";
    for (RegKind k : {RegKind::P, RegKind::M}) {
      for (unsigned i = 0; i < 8; ++i) {
        Reg r{k, static_cast<uint8_t>(i)};
        if (uint32_t v = core.scalar(r)) {
          char b[24];
          std::snprintf(b, sizeof b, "0x%x", v);
          std::cout << regName(r) << " = " << b << "\n";
        }
      }
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  Options opt;
  CLI::App app{"hrx-mc: assemble, disassemble and simulate AIE2P machine code"};
  app.add_option("--arch", opt.arch, "Target architecture (aie2p)")->required();
  app.add_flag("--assemble", opt.assemble, "Assemble llvm-aie assembly to bundle bytes");
  app.add_flag("--disassemble", opt.disassemble, "Disassemble raw bundles or an EM_AIE object, one bundle per line");
  app.add_flag("--run", opt.run, "Run a snippet (assembly or bytes) on the simulator until 'done'");
  app.add_option("input", opt.input, "Input file")->required();
  app.add_option("-o", opt.output, "Output file ('-' for standard output)");
  app.add_option("--filetype", opt.filetype, "Assembler output: bin (raw bundles) or obj (ELF EM_AIE relocatable)")
      ->check(CLI::IsMember({"bin", "obj"}));
  app.add_flag("--show-encoding", opt.showEncoding, "Disassembly: add each bundle's offset and bytes as a comment");
  app.add_option("--mem", opt.mem, "Run: initial data, ADDRESS:TYPE:v1,v2,... (TYPE i32 u32 i16 i8 f32 bf16)");
  app.add_option("--dump", opt.dump, "Run: print memory after the run, ADDRESS:TYPE:COUNT");
  app.add_option("--set", opt.set, "Run: initial scalar register, REG=VALUE");
  app.add_flag("--print-regs", opt.printRegs, "Run: print the non-zero r, p and m registers after the run");
  app.add_option("--max-cycles", opt.maxCycles, "Run: cycle limit (a runaway program traps)");
  app.add_option("--north", opt.north,
                 "Run: a second program on the core of the tile north of the first (shared memory and locks)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e);
  }
  if (opt.arch != "aie2p") return fail("unknown --arch '" + opt.arch + "' (supported: aie2p)");
  if (int(opt.assemble) + int(opt.disassemble) + int(opt.run) != 1)
    return fail("give exactly one of --assemble, --disassemble, --run");

  if (opt.assemble) {
    AsmProgram program;
    if (!assembleFile(opt.input, program)) return 1;
    if (!writeFile(opt.output, opt.filetype == "obj" ? writeObject(program) : program.bytes)) return 1;
    return 0;
  }
  if (opt.disassemble) {
    std::vector<uint8_t> code;
    if (!loadCode(opt.input, code)) return 1;
    std::vector<DisasmLine> lines;
    AsmDiagnostic error;
    bool ok = disassemble(code, lines, error);
    std::ostringstream text;
    for (const auto &l : lines) {
      text << l.text;
      if (opt.showEncoding) {
        char off[24];
        std::snprintf(off, sizeof off, "  // %04x: ", l.offset);
        text << off << hexBytes(std::span<const uint8_t>(code).subspan(l.offset, l.size));
      }
      text << "\n";
    }
    std::string s = text.str();
    if (!writeFile(opt.output, std::vector<uint8_t>(s.begin(), s.end()))) return 1;
    if (!ok) {
      std::cerr << opt.input << ": error: " << error.message << " [" << error.code << "]\n";
      return 1;
    }
    return 0;
  }
  return runSnippet(opt);
}
