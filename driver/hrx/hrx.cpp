// hrx: inspect artifacts and compile reports, and describe the installation.
// Exit codes: 0 success, 1 error (message on stderr), 64 usage error.
#include "Check.h"
#include "Inspect.h"
#include "Native.h"

#include "hrx/ReportFields.h"
#include "hrx/Version.h"
#include "hrx/format/ArrayPlanSvg.h"
#include "hrx/format/Artifact.h"
#include "hrx/format/ReportRender.h"
#include "hrx/format/Transaction.h"
#include "hrx/format/FileIO.h"
#include "hrx/format/ArrayPlanWriter.h"
#include "hrx/format/TransactionPrinter.h"
#include "hrx/runtime/Runtime.h"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>

namespace {

constexpr int kExitError = 1;
constexpr int kExitUsage = 64;

int error(const std::string &message) {
  std::cerr << "hrx: error: " << message << "\n";
  return kExitError;
}

std::optional<std::vector<uint8_t>> readFile(const std::string &path, std::string &problem) {
  auto bytes = hrx::io::readFile(path);
  if (!bytes) {
    problem = "cannot open '" + path + "': " + hrx::io::failureReason(bytes.status(), path);
    return std::nullopt;
  }
  return std::move(*bytes);
}

// Writes through a temporary file and a rename, so a failed write leaves no partial output.
bool writeFile(const std::string &path, std::span<const uint8_t> bytes, std::string &problem) {
  hrx::Status written = hrx::io::writeFileAtomically(path, bytes);
  if (!written) problem = written.message();
  return written.isOk();
}

hrx::StatusOr<hrx::format::Artifact> loadArtifact(const std::string &path) {
  std::string problem;
  auto bytes = readFile(path, problem);
  if (!bytes) return hrx::Status(hrx::StatusCode::NotFound, problem);
  auto artifact = hrx::format::readArtifact(*bytes);
  if (!artifact.isOk()) return hrx::Status(artifact.status().code(), path + ": " + artifact.status().message());
  return artifact;
}

// A report file, or the report embedded in an artifact (.hrx.report); in a fat container, the
// report of member `member`.
hrx::StatusOr<hrx::format::CompileReport> loadReport(const std::string &path, std::optional<unsigned> member = {}) {
  std::string problem;
  auto bytes = readFile(path, problem);
  if (!bytes) return hrx::Status(hrx::StatusCode::NotFound, problem);
  bool binary = !bytes->empty() && ((*bytes)[0] == 0x7F || (*bytes)[0] == 0x10);
  if (binary) {
    auto artifact = hrx::format::readArtifact(*bytes);
    if (!artifact.isOk()) return hrx::Status(artifact.status().code(), path + ": " + artifact.status().message());
    const hrx::format::Artifact *target = &artifact.value();
    if (target->kind == hrx::format::ArtifactKind::Fat) {
      std::string targets;
      for (size_t i = 0; i < target->members.size(); ++i)
        targets += (i ? ", " : "") + std::to_string(i) + " " + target->members[i].target;
      if (!member)
        return hrx::Status(hrx::StatusCode::InvalidArgument,
                           path + ": a fat container carries one report per member (" + targets +
                               "): show one with hrx report show FILE --member=N, or extract it for report diff with "
                               "hrx inspect FILE --member=N --extract .hrx.report -o REPORT.json");
      if (*member >= target->members.size())
        return hrx::Status(hrx::StatusCode::InvalidArgument,
                           path + ": member " + std::to_string(*member) + " does not exist (members: " + targets + ")");
      target = &target->members[*member];
    } else if (member) {
      return hrx::Status(hrx::StatusCode::InvalidArgument, path + ": --member applies to fat containers only");
    }
    const std::vector<uint8_t> *embedded = target->section(hrx::format::xdna::kReportSection);
    if (!target->report || !embedded)
      return hrx::Status(hrx::StatusCode::NotFound,
                         path + ": the artifact carries no compile report (compile with --report=summary|details)");
    // readArtifact validated it and kept a summary; the tools read the whole document.
    return hrx::format::readCompileReport(
        std::string_view(reinterpret_cast<const char *>(embedded->data()), embedded->size()));
  }
  if (member) return hrx::Status(hrx::StatusCode::InvalidArgument, path + ": --member applies to fat containers only");
  auto report =
      hrx::format::readCompileReport(std::string_view(reinterpret_cast<const char *>(bytes->data()), bytes->size()));
  if (!report.isOk()) return hrx::Status(report.status().code(), path + ": " + report.status().message());
  return report;
}

// Every invocation of every entry, decoded by the runtime's transaction reader (listing or error).
int printTransactions(const std::string &path, const hrx::format::Artifact &artifact) {
  if (artifact.kind != hrx::format::ArtifactKind::Xdna || !artifact.xdna)
    return error("'" + path + "' is not an .xdna image");
  const hrx::format::xdna::Image &img = *artifact.xdna;
  int status = 0;
  for (const hrx::format::xdna::Entry &e : img.entries) {
    for (uint32_t i = 0; i < e.invocationCount; ++i) {
      const hrx::format::xdna::Invocation &inv = img.invocations[e.firstInvocation + i];
      uint32_t a = img.allocationUses[e.firstAllocationUse + inv.allocationUse];
      std::vector<uint8_t> bytes(inv.byteLength, 0);
      for (const hrx::format::xdna::Load &l : img.loads)
        for (uint64_t k = 0; l.allocation == a && k < l.bytes.size(); ++k)
          if (l.offset + k >= inv.byteOffset && l.offset + k < uint64_t(inv.byteOffset) + inv.byteLength)
            bytes[l.offset + k - inv.byteOffset] = l.bytes[k];
      std::cout << "entry " << e.name << " invocation " << i << " (byte " << inv.byteOffset << ", " << inv.byteLength
                << " bytes):\n";
      auto t = hrx::format::txn::decodeTransaction(bytes);
      if (!t.isOk()) {
        std::cerr << "hrx: error: entry '" << e.name << "' invocation " << i << ": " << t.status().message() << "\n";
        status = 1;
        continue;
      }
      std::cout << hrx::format::txn::printTransaction(*t);
    }
  }
  return status;
}

int inspect(const std::string &path, bool json, bool printPlans, bool printTransaction, const std::string &extract,
            const std::string &output, std::optional<unsigned> member, const std::string &planSvg) {
  auto artifact = loadArtifact(path);
  if (!artifact.isOk()) return error(artifact.status().message());
  const hrx::format::Artifact *target = &artifact.value();
  if (member) {
    if (target->kind != hrx::format::ArtifactKind::Fat) return error("--member applies to fat containers only");
    if (*member >= target->members.size())
      return error("member " + std::to_string(*member) + " does not exist (the container has " +
                   std::to_string(target->members.size()) + ")");
    target = &target->members[*member];
  }
  if (!extract.empty()) {
    if (target->kind == hrx::format::ArtifactKind::Fat)
      return error("'" + path + "' is a fat container: choose a member with --member=N");
    const std::vector<uint8_t> *bytes = target->section(extract);
    if (!bytes) return error("'" + path + "' has no section " + extract + " (hrx inspect lists the sections)");
    std::string problem;
    if (!writeFile(output, *bytes, problem)) return error(problem);
    return 0;
  }
  if (!planSvg.empty()) {
    if (target->kind == hrx::format::ArtifactKind::Fat)
      return error("'" + path + "' is a fat container: choose a member with --member=N");
    if (target->plans.empty())
      return error("'" + path + "' carries no array plan (.hrx.plan): --plan-svg draws .xdna images");
    std::string svg = hrx::format::renderArrayPlanSvg(target->plans);
    if (planSvg == "-") {
      std::cout << svg;
      return 0;
    }
    std::string problem;
    if (!writeFile(planSvg, std::span(reinterpret_cast<const uint8_t *>(svg.data()), svg.size()), problem))
      return error(problem);
    return 0;
  }
  if (printTransaction) return printTransactions(path, *target);
  if (printPlans) {
    if (target->plans.empty()) return error("'" + path + "' carries no array plan (.hrx.plan)");
    for (const hrx::format::ArrayPlan &plan : target->plans) std::cout << hrx::format::printArrayPlan(plan);
    return 0;
  }
  if (json)
    std::cout << hrx::tool::dumpJson(hrx::tool::inspectJson(*target)) << "\n";
  else
    std::cout << "artifact: " << path << "\n" << hrx::tool::inspectText(*target);
  return 0;
}

int reportShow(const std::string &path, bool json, std::optional<unsigned> member) {
  auto report = loadReport(path, member);
  if (!report.isOk()) return error(report.status().message());
  // The backends say which entry resources their reports carry (hrx/ReportFields.h).
  std::vector<hrx::format::ReportField> fields = hrx::reportFieldsFor(report->backend());
  if (json)
    std::cout << hrx::tool::dumpJson(hrx::format::showReport(report.value(), fields)) << "\n";
  else
    std::cout << hrx::format::formatReport(report.value(), fields);
  return 0;
}

int reportDiff(const std::string &beforePath, const std::string &afterPath) {
  auto before = loadReport(beforePath);
  if (!before.isOk()) return error(before.status().message());
  auto after = loadReport(afterPath);
  if (!after.isOk()) return error(after.status().message());
  auto diff = hrx::format::diffReports(before.value(), after.value(), hrx::reportFieldsFor(before->backend()));
  if (!diff.isOk()) return error(diff.status().message());
  std::cout << hrx::tool::dumpJson(*diff) << "\n";
  return 0;
}

// The native runtime `hrx info` names: HRX_RUNTIME_DIR, else the bundles `hrx doctor` verifies.
std::string describeRuntime() {
  if (const char *runtime = std::getenv("HRX_RUNTIME_DIR"); runtime && *runtime)
    return std::string(runtime) + " (HRX_RUNTIME_DIR; integrity checks bypassed)";
  std::string verified, corrupt;
  for (const hrx::tool::InstalledBundle &bundle : hrx::tool::installedBundles()) {
    if (bundle.problem.empty())
      verified += (verified.empty() ? "" : ", ") + bundle.directory;
    else
      corrupt += (corrupt.empty() ? "" : "; ") + bundle.directory + " is corrupt: " + bundle.problem;
  }
  if (!verified.empty()) return verified + " (verified bundle" + (corrupt.empty() ? ")" : "; " + corrupt + ")");
  if (!corrupt.empty()) return "none verified (" + corrupt + "; run `hrx prepare`)";
  return "none (HRX_RUNTIME_DIR is unset; no native bundle installed)";
}

int info() {
  std::cout << "version: " << hrx::runtime::version() << "\n"
            << "runtime: " << describeRuntime() << "\n"
            << "cache: " << hrx::tool::cacheRoot() << "/runtime\n"
            << "target: gfx1151\n"
            << "npu-target: " << hrx::format::xdna::kStrixHalo.key << "\n"
            << "host-device: available (reference execution of every artifact)\n";
  return 0;
}

}  // namespace

int hrxMain(int argc, char **argv) {
  CLI::App app{"hrx: set up, check and inspect the hrx toolchain and its artifacts"};
  app.set_version_flag("--version", std::string("hrx version ") + hrx::runtime::version() +
                                        " (artifacts from hrxcc on LLVM " HRX_LLVM_VERSION_STRING
                                        ")\nTargets: " HRX_SUPPORTED_TARGETS);
  app.require_subcommand(0, 1);

  std::string path, extract, output, beforePath, afterPath, planSvg;
  bool json = false, printPlans = false, printTransaction = false;
  std::optional<unsigned> member;
  CLI::App *inspectCmd =
      app.add_subcommand("inspect", "List an artifact's targets, entries, bindings, contracts, allocations, "
                                    "relocations, invocations, sections, identity and reference-only status");
  inspectCmd->add_option("artifact", path, "an .xdna image, an AMDGPU code object or a fat container")->required();
  inspectCmd->add_flag("--json", json, "print JSON");
  auto *extractOpt =
      inspectCmd->add_option("--extract", extract, "write the (uncompressed) bytes of SECTION to -o FILE");
  inspectCmd->add_option("-o", output, "output file for --extract");
  inspectCmd->add_option("--member", member, "inspect member N of a fat container");
  inspectCmd->add_flag("--print-plan", printPlans, "print the array plans in the text form of hrxcc --emit=array-plan");
  inspectCmd->add_option("--plan-svg", planSvg, "draw the array plans as an SVG picture into FILE (- for stdout)");
  inspectCmd->add_flag("--transactions", printTransaction,
                       "decode and print every invocation's transaction (docs/formats/transaction.md)");

  CLI::App *reportCmd =
      app.add_subcommand("report", "Show or compare compile reports (JSON files or artifacts with .hrx.report)");
  reportCmd->require_subcommand(1);
  CLI::App *showCmd = reportCmd->add_subcommand("show", "Validate a report and print its resource summary");
  showCmd->add_option("file", path, "report JSON or artifact")->required();
  showCmd->add_flag("--json", json, "print {compiler, target, processor_mode, entries, wait_reasons}");
  std::optional<unsigned> reportMember;
  showCmd->add_option("--member", reportMember, "show the report of member N of a fat container");
  CLI::App *diffCmd = reportCmd->add_subcommand("diff", "Compare two reports with the same identity, row by function");
  diffCmd->add_option("before", beforePath, "report JSON or artifact")->required();
  diffCmd->add_option("after", afterPath, "report JSON or artifact")->required();

  CLI::App *infoCmd = app.add_subcommand("info", "Print the runtime directory, the bundle cache and the targets");

  CLI::App *doctorCmd = app.add_subcommand(
      "doctor", "Check device nodes, device identities, glibc and the native runtime; never downloads");
  std::string archive, manifest;
  CLI::App *prepareCmd =
      app.add_subcommand("prepare", "Install the native bundle pinned by bundle.json from a local archive, "
                                    "or print the installed bundle's directory");
  prepareCmd->add_option("archive", archive, "the native .tar.gz archive (downloading is not available in this build)");
  prepareCmd->add_option("--manifest", manifest,
                         "the bundle manifest (default: $HRX_BUNDLE_MANIFEST, else bundle.json beside the archive)");
  std::string daysText = "30";
  CLI::App *gcCmd = app.add_subcommand(
      "gc", "Remove prepared runtime bundles unused for DAYS (default 30) other than the pinned one");
  gcCmd->add_option("days", daysText, "age in days");
  gcCmd->add_option("--manifest", manifest,
                    "the bundle manifest naming the pinned bundle (default: $HRX_BUNDLE_MANIFEST, else ./bundle.json)");

  hrx::tool::CheckCommand check;
  CLI::App *checkCmd =
      app.add_subcommand("check", "Run the check.case, check.scenario and check.benchmark programs of .loom files "
                                  "on the host reference device");
  checkCmd->add_option("files", check.files, ".loom files")->required();
  checkCmd->add_option("--target", check.target,
                       "compile the code under test for host, gfx1151 or xdna (default host)");
  checkCmd->add_option("--filter", check.filter, "run only the cases whose name matches REGEX");
  checkCmd->add_flag("--list", check.list, "list the cases instead of running them");
  checkCmd->add_option("-j,--jobs", check.jobs, "run N cases at once (default 1)");
  checkCmd->add_option("--format", check.format, "text (default) or json");
  checkCmd->add_option("--config", check.configs,
                       "bind a configuration value KEY=VALUE for the code under test (repeatable)");
  checkCmd->add_option("--config-file", check.configFiles,
                       "bind the configuration values of a JSON/JSONC object file (repeatable; nested keys join "
                       "with '.')");
  checkCmd->add_option("--link", check.links,
                       "compile FILE (Loom, C or C++) with the code under test, e.g. the kernel.loom a tests.loom "
                       "declares (repeatable)");
  checkCmd->add_option("--repetitions", check.repetitions, "samples per check.benchmark (default 20)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    std::string context = reportCmd->parsed() ? "\nusage: hrx report show FILE | report diff BEFORE AFTER" : "";
    std::cerr << "hrx: error: " << e.what() << context << "\n";
    return kExitUsage;
  }
  if (*inspectCmd) {
    if (*extractOpt && output.empty()) {
      std::cerr << "hrx: error: --extract needs -o FILE\n";
      return kExitUsage;
    }
    return inspect(path, json, printPlans, printTransaction, extract, output, member, planSvg);
  }
  if (*checkCmd) return hrx::tool::checkFiles(check);
  if (*showCmd) return reportShow(path, json, reportMember);
  if (*diffCmd) return reportDiff(beforePath, afterPath);
  if (*infoCmd) return info();
  if (*doctorCmd) return hrx::tool::doctor();
  if (*prepareCmd) return hrx::tool::prepare(archive, manifest);
  if (*gcCmd) {
    unsigned days = 0;
    auto [end, ec] = std::from_chars(daysText.data(), daysText.data() + daysText.size(), days);
    if (ec != std::errc() || end != daysText.data() + daysText.size()) {
      std::cerr << "hrx: error: gc takes a day count, found '" << daysText << "'\n";
      return kExitUsage;
    }
    return hrx::tool::gc(days, manifest);
  }
  std::cout << app.help();
  return 0;
}

// No exception leaves hrx: a failure it did not foresee is still an error message.
int main(int argc, char **argv) {
  try {
    return hrxMain(argc, argv);
  } catch (const std::exception &e) {
    return error(std::string("internal error: ") + e.what());
  } catch (...) {
    return error("internal error: an unknown exception");
  }
}
