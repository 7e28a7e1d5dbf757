// hrx check: the command line over hrx/check/Check.h. The code under test is compiled by running
// hrxcc (hrx itself links no compiler), then run on the host reference device by the library.
#include "Check.h"

#include "hrx/check/Check.h"
#include "hrx/format/FileIO.h"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <algorithm>
#include <filesystem>
#include <functional>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace hrx::tool {
namespace {

// hrxcc beside this hrx, unless $HRX_HRXCC names another.
std::string hrxccPath() {
  if (const char *env = std::getenv("HRX_HRXCC"); env && *env) return env;
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? "hrxcc" : (self.parent_path() / "hrxcc").string();
}

std::string readText(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void replaceAll(std::string &s, const std::string &from, const std::string &to) {
  if (from.empty()) return;
  for (size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size()) s.replace(at, from.size(), to);
}

std::mutex stderrMutex;

// Runs hrxcc on `source` for `target`; its diagnostics go to stderr under the real file name.
StatusOr<std::vector<uint8_t>> compileWithHrxcc(const std::string &source, const std::string &displayPath,
                                                const check::RunTarget &target, const std::string &entry,
                                                const std::map<std::string, std::string> &implied,
                                                const std::vector<std::string> &configs,
                                                const std::vector<std::string> &configFiles,
                                                const std::vector<std::string> &links) {
  const char *tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/hrx-check-XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data()))
    return Status(StatusCode::Internal, "cannot create a temporary directory for the code under test");
  fs::path dir(buf.data());
  fs::path src = dir / fs::path(displayPath).filename();
  if (src.extension() != ".loom") src += ".loom";
  fs::path out = dir / "code", err = dir / "stderr";
  {
    std::ofstream s(src, std::ios::binary);
    s << source;
  }
  std::string compiler = hrxccPath();
  std::vector<std::string> args = {compiler, "-target", target.name};
  if (!entry.empty()) args.push_back("--entry=" + entry);
  // The values the launches imply first: the user's --config values win (hrxcc: later settings win).
  for (const auto &[key, value] : implied) args.push_back("--config=" + key + "=" + value);
  for (const std::string &c : configs) args.push_back("--config=" + c);
  for (const std::string &f : configFiles) args.push_back("--config-file=" + fs::absolute(f).string());
  args.insert(args.end(), {src.string(), "-o", out.string()});
  for (const std::string &link : links) args.push_back(fs::absolute(link).string());
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) dup2(fd, 2), dup2(fd, 1);
    std::vector<char *> argv;
    for (std::string &a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    std::fprintf(stderr, "cannot run %s\n", argv[0]);
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) < 0) return Status(StatusCode::Internal, "cannot run " + compiler);
  std::string diagnostics = readText(err);
  replaceAll(diagnostics, src.string(), displayPath);
  std::vector<uint8_t> bytes;
  bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (ok) {
    auto read = io::readFile(out.string());
    if (read)
      bytes = std::move(*read);
    else
      ok = false;
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (ok) return bytes;
  std::string name = check::runTargetName(target);
  // The NPU runs pipelines: a file whose code under test has none cannot take the xdna path.
  if (target.path == check::RunTarget::Path::ArrayPlan && diagnostics.find("XDNA/011") != std::string::npos)
    return Status(StatusCode::Unimplemented,
                  "requires a pipeline.def export: --target=xdna runs the code under test through the NPU array plan");
  {
    std::lock_guard lock(stderrMutex);
    std::cerr << diagnostics;
  }
  // Configuration no tensor of the case sizes (docs/hrx.md "Configuration"): say which and how to bind it.
  static const std::regex unbound(R"((\S+:\d+:\d+): error: unbound configuration: ([^\n]*) \[LINK/020\])");
  if (std::smatch m; std::regex_search(diagnostics, m, unbound))
    return Status(StatusCode::InvalidArgument,
                  m[1].str() + ": configuration " + m[2].str() +
                      " unbound: no tensor this case passes has a view dimension it sizes; bind it with "
                      "--config KEY=VALUE or --config-file FILE");
  return Status(StatusCode::InvalidArgument,
                "the code under test does not compile for " + name + " (hrxcc's diagnostics above)");
}

std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\', out += c;
    else if (c == '\n')
      out += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      out += b;
    } else
      out += c;
  }
  return out + "\"";
}

// Runs `args` and returns what it printed on standard output, or nullopt when it failed.
std::optional<std::string> captureOutput(std::vector<std::string> args) {
  int fds[2];
  if (pipe(fds) != 0) return std::nullopt;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 2);
    std::vector<char *> argv;
    for (std::string &a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(fds[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; pid > 0 && (n = read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, size_t(n));
  close(fds[0]);
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return out;
}

// A target profile as hrxcc's target registry describes it (hrxcc --print-targets-json).
struct KnownTarget {
  check::RunTarget run;
  bool hostReference = false;
  bool runs = false;  // hrx check can run its artifacts
};

std::vector<KnownTarget> knownTargets(std::string &problem) {
  std::vector<KnownTarget> out;
  auto text = captureOutput({hrxccPath(), "--print-targets-json"});
  nlohmann::json doc = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
  if (!doc.is_array()) {
    problem = "cannot read the target list of " + hrxccPath() + " (hrxcc --print-targets-json)";
    return out;
  }
  for (const nlohmann::json &p : doc) {
    KnownTarget t;
    t.run.name = p.value("name", "");
    t.run.backend = p.value("backend", "");
    t.run.spellings = p.value("spellings", std::vector<std::string>{});
    t.run.checkFacts = p.value("check_facts", std::vector<std::string>{});
    t.hostReference = p.value("host_reference", false);
    std::string path = p.value("check_run_path", "");
    t.runs = true;
    if (path == "host-object")
      t.run.path = check::RunTarget::Path::HostObject;
    else if (path == "host-twin")
      t.run.path = check::RunTarget::Path::HostTwin;
    else if (path == "array-plan")
      t.run.path = check::RunTarget::Path::ArrayPlan;
    else
      t.runs = false;
    out.push_back(std::move(t));
  }
  return out;
}

const char *outcomeName(check::Outcome o) {
  switch (o) {
  case check::Outcome::Pass: return "pass";
  case check::Outcome::Fail: return "fail";
  case check::Outcome::Skip: return "skip";
  case check::Outcome::Benchmark: return "benchmark";
  }
  return "pass";
}

}  // namespace

int checkFiles(const CheckCommand &command) {
  check::RunOptions options;
  // Targets as the registry describes them: hrx check names none (DESIGN.md section 2).
  std::string problem;
  std::vector<KnownTarget> targets = knownTargets(problem);
  if (!problem.empty()) {
    std::cerr << "hrx: error: " << problem << "\n";
    return 1;
  }
  const KnownTarget *chosen = nullptr, *hostReference = nullptr;
  for (const KnownTarget &t : targets) {
    if (t.hostReference && !hostReference) hostReference = &t;
    if (!t.runs) continue;
    bool named = std::find(t.run.spellings.begin(), t.run.spellings.end(), command.target) != t.run.spellings.end();
    if (!chosen && (command.target.empty() ? t.hostReference : named || t.run.name == command.target)) chosen = &t;
  }
  if (!hostReference) {
    std::cerr << "hrx: error: hrxcc registers no host reference target, which runs the code under test\n";
    return 1;
  }
  options.hostReference = hostReference->run;
  options.kernelTargets.push_back(hostReference->run.name);
  std::set<std::string> kernelBackends = {hostReference->run.backend};
  for (const KnownTarget &t : targets) {
    if (!t.runs) continue;
    if (t.run.path == check::RunTarget::Path::ArrayPlan)
      options.pipelineTargets.push_back(t.run.name);
    else if (kernelBackends.insert(t.run.backend).second)  // one name per backend: its first profile
      options.kernelTargets.push_back(t.run.name);
  }
  if (!chosen) {
    std::vector<std::string> names = options.kernelTargets;
    names.insert(names.end(), options.pipelineTargets.begin(), options.pipelineTargets.end());
    std::string list;
    for (size_t i = 0; i < names.size(); ++i) list += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    std::cerr << "hrx: error: --target=" << command.target << " is not a check target (" << list << ")\n";
    return 64;
  }
  options.target = chosen->run;
  if (command.format != "text" && command.format != "json") {
    std::cerr << "hrx: error: --format=" << command.format << " is not text or json\n";
    return 64;
  }
  try {
    std::regex probe(command.filter);
  } catch (const std::regex_error &e) {
    std::cerr << "hrx: error: --filter='" << command.filter << "' is not a regular expression: " << e.what() << "\n";
    return 64;
  }
  options.filter = command.filter;
  options.jobs = std::max(1u, command.jobs);
  // Keys the user binds are never swept: --config KEY=VALUE, and every leaf of a --config-file.
  for (const std::string &c : command.configs) options.boundConfigs.insert(c.substr(0, c.find('=')));
  for (const std::string &f : command.configFiles) {
    auto text = io::readFile(f);
    if (!text) continue;  // hrxcc reports an unreadable file
    nlohmann::json doc = nlohmann::json::parse(text->begin(), text->end(), nullptr, /*allow_exceptions=*/false,
                                               /*ignore_comments=*/true);
    std::function<void(const nlohmann::json &, const std::string &)> leaves = [&](const nlohmann::json &j,
                                                                                  const std::string &prefix) {
      if (!j.is_object()) return void(options.boundConfigs.insert(prefix));
      for (const auto &[k, v] : j.items()) leaves(v, prefix.empty() ? k : prefix + "." + k);
    };
    if (!doc.is_discarded()) leaves(doc, "");
  }
  options.benchmarkRepetitions = std::max(1u, command.repetitions);
  bool json = command.format == "json";
  unsigned passed = 0, failed = 0, skipped = 0, benchmarks = 0, fileErrors = 0;
  std::vector<check::CaseResult> all;
  for (const std::string &path : command.files) {
    auto bytes = io::readFile(path);
    if (!bytes) {
      std::cerr << "hrx: error: cannot open '" << path << "': " << io::failureReason(bytes.status(), path) << "\n";
      ++fileErrors;
      continue;
    }
    check::CheckFile file = check::discoverChecks(path, std::string(bytes->begin(), bytes->end()));
    for (const std::string &link : command.links)
      if (fs::path(link).extension() != ".loom")
        file.foreignLinks = true;
      else if (auto linked = io::readFile(link))
        check::addLinkedCode(file, link, std::string(linked->begin(), linked->end()));
    for (const check::CheckProblem &p : file.problems) {
      std::cerr << path << ":" << p.line << ":" << p.column << ": error: " << p.message << "\n";
      ++fileErrors;
    }
    std::vector<check::CaseResult> results =
        command.list
            ? check::listChecks(file, options)
            : check::runChecks(file, options,
                               [&](const std::string &source, const std::string &display,
                                   const check::RunTarget &target, const std::string &entry,
                                   const std::map<std::string, std::string> &implied) {
                                 return compileWithHrxcc(source, display, target, entry, implied, command.configs,
                                                         command.configFiles, command.links);
                               });
    for (check::CaseResult &r : results) {
      std::string where = r.file + ":" + std::to_string(r.line) + " " + r.name;
      if (command.list) {
        if (!json) std::cout << where << " (" << r.message << ")\n";
      } else if (r.outcome == check::Outcome::Pass) {
        ++passed;
        if (!json) std::cout << "PASS " << where << "\n";
      } else if (r.outcome == check::Outcome::Fail) {
        ++failed;
        if (!json) std::cout << "FAIL " << where << ": " << r.message << "\n";
      } else if (r.outcome == check::Outcome::Skip) {
        ++skipped;
        if (!json) std::cout << "SKIP " << where << ": " << r.message << "\n";
      } else {
        ++benchmarks;
        if (!json) {
          if (!r.message.empty())
            std::cout << "BENCH " << where << ": " << r.message << "\n";
          else
            std::printf("BENCH %s: min %.1f us, median %.1f us, p95 %.1f us (%u runs)\n", where.c_str(), r.minUs,
                        r.medianUs, r.p95Us, r.samples);
          std::fflush(stdout);
        }
      }
      all.push_back(std::move(r));
    }
  }
  if (json) {
    std::cout << "{\"target\":" << jsonString(options.target.name) << ",\"cases\":[";
    for (size_t k = 0; k < all.size(); ++k) {
      const check::CaseResult &r = all[k];
      std::cout << (k ? "," : "") << "{\"file\":" << jsonString(r.file) << ",\"line\":" << r.line
                << ",\"name\":" << jsonString(r.name) << ",\"status\":\""
                << (command.list ? "listed" : outcomeName(r.outcome)) << "\"";
      if (!r.message.empty()) std::cout << ",\"message\":" << jsonString(r.message);
      if (!command.list && r.outcome == check::Outcome::Benchmark && r.message.empty())
        std::cout << ",\"min_us\":" << r.minUs << ",\"median_us\":" << r.medianUs << ",\"p95_us\":" << r.p95Us
                  << ",\"runs\":" << r.samples;
      std::cout << "}";
    }
    std::cout << "],\"passed\":" << passed << ",\"failed\":" << failed << ",\"skipped\":" << skipped
              << ",\"benchmarks\":" << benchmarks << ",\"errors\":" << fileErrors << "}\n";
  } else if (!command.list) {
    std::cout << passed << " passed, " << failed << " failed, " << skipped << " skipped";
    if (benchmarks) std::cout << ", " << benchmarks << " benchmarked";
    std::cout << "\n";
  }
  return failed || fileErrors ? 1 : 0;
}

}  // namespace hrx::tool
