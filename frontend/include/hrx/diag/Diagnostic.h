// The diagnostics engine shared by Loom, C/C++ (translated from Clang), the bridge and the driver.
// Every diagnostic has a stable code DOMAIN/NNN from one registry (Diagnostics.def).
//
// Threading: an engine and its consumers belong to one compilation and are not synchronized.
// Use one engine per compile (per thread); the registry itself is immutable and shared freely.
#pragma once

#include "hrx/diag/SourceManager.h"

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hrx::diag {

// Declared severities. A registry row declared `Ignored` is a warning that is off by default:
// it is emitted only under -W<group> (or -Weverything). Remarks are off unless -R<group>.
enum class Severity : uint8_t { Ignored, Note, Remark, Warning, Error, Fatal };

enum class DiagId : uint16_t {
#define HRX_DIAG(ID, CODE, SEVERITY, GROUP, MESSAGE, DOC) ID,
#include "hrx/diag/Diagnostics.def"
#undef HRX_DIAG
  External,  // translated from another engine (Clang); carries its own text and flag
};

// Static registry row for one diagnostic code.
struct DiagInfo {
  DiagId id;
  std::string_view code;     // "PARSE/001"
  Severity severity;         // default severity
  std::string_view group;    // -W group for warnings/remarks; empty otherwise
  std::string_view message;  // template with {param} placeholders
  std::string_view doc;      // documentation paragraph (hrxcc --explain)
  std::string_view name;     // the row's identifier ("ParseUndefinedValue")
};
const DiagInfo &info(DiagId id);
const DiagInfo *findByCode(std::string_view code);
std::vector<const DiagInfo *> allDiagnostics();
// The {param} names of a message template, in order of first use.
std::vector<std::string_view> templateParameters(std::string_view messageTemplate);
// The lower-case name clang prints for a severity ("error", "fatal error", ...).
std::string_view severityName(Severity severity);

struct RelatedNote {
  SourceRange range;
  std::string message;
};

struct FixIt {
  SourceRange range;  // replaced range (empty range = insertion)
  std::string replacement;
};

struct Diagnostic {
  DiagId id = DiagId::External;
  Severity severity = Severity::Error;
  std::string code;     // "PARSE/001"; for External, empty or the foreign code
  std::string flag;     // warning group or Clang flag ("-Wunused-variable"), may be empty
  std::string message;  // fully formatted
  SourceRange range;
  std::vector<std::pair<std::string, std::string>> params;  // named parameters (for matchers)
  std::vector<RelatedNote> notes;
  std::vector<FixIt> fixits;
  bool warningAsError = false;  // a warning promoted by -Werror or -Werror=<group>
};

// Receives every diagnostic after severity mapping (-W, -Werror, ...).
class DiagnosticConsumer {
public:
  virtual ~DiagnosticConsumer() = default;
  virtual void handle(const Diagnostic &diag, const SourceManager &sm) = 0;
  virtual void finish(const SourceManager &) {}
};

class DiagnosticEngine;

// Fluent builder; the diagnostic is emitted when the builder is destroyed. A builder for a
// diagnostic that will not be shown (ignored, follow-on, past the error limit) is inert: its
// calls do nothing and cost nothing.
class DiagnosticBuilder {
public:
  DiagnosticBuilder(DiagnosticEngine *engine, Diagnostic diag) : engine_(engine), diag_(std::move(diag)) {}
  DiagnosticBuilder(DiagnosticBuilder &&other) noexcept
      : engine_(std::exchange(other.engine_, nullptr)), diag_(std::move(other.diag_)) {}
  DiagnosticBuilder(const DiagnosticBuilder &) = delete;
  ~DiagnosticBuilder();

  // Binds {name} in the message template.
  DiagnosticBuilder &arg(std::string_view name, std::string value);
  DiagnosticBuilder &arg(std::string_view name, long long value) { return arg(name, std::to_string(value)); }
  DiagnosticBuilder &note(SourceRange range, std::string message);
  DiagnosticBuilder &fixit(SourceRange range, std::string replacement);

private:
  DiagnosticEngine *engine_;
  Diagnostic diag_;
};

struct DiagnosticOptions {
  bool warningsAsErrors = false;            // -Werror
  std::vector<std::string> errorGroups;     // -Werror=<group>
  std::vector<std::string> disabledGroups;  // -Wno-<group>
  std::vector<std::string> enabledGroups;   // -W<group> (off-by-default groups)
  std::vector<std::string> enabledRemarks;  // -R<group>
  unsigned errorLimit = 20;                 // -ferror-limit=N (0 = unlimited)
  std::vector<std::string> noErrorGroups;   // -Wno-error=<group>
  bool ignoreAllWarnings = false;           // -w, -Wno-everything
  bool enableAllWarnings = false;           // -Weverything
  bool enableAllRemarks = false;            // -Reverything
  bool fatalErrors = false;                 // -Wfatal-errors
  // Every -W<group>/-R<group> spelling seen, for reportUnknownDiagnosticFlags().
  std::vector<std::string> groupFlags;
};

// Applies one -W.../-R.../-w argument to `options` the way clang does (later flags override
// earlier ones for the same group). Returns false when `arg` is not a diagnostic flag (including
// -Wl,/-Wa,/-Wp, pass-through options and -Rpass=<regex>), so the caller can handle it.
bool parseDiagnosticFlag(std::string_view arg, DiagnosticOptions &options);

class DiagnosticEngine {
public:
  explicit DiagnosticEngine(SourceManager &sm) : sm_(sm) {}

  void setOptions(DiagnosticOptions options) { options_ = std::move(options); }
  const DiagnosticOptions &options() const { return options_; }
  void addConsumer(DiagnosticConsumer *consumer) { consumers_.push_back(consumer); }

  DiagnosticBuilder report(DiagId id, SourceRange range);
  // A diagnostic from another engine (Clang): already formatted, with its own flag name
  // ("-Wunused-variable" maps through the -W options; "-Rpass" through the -R options).
  void reportExternal(Severity severity, SourceRange range, std::string message, std::string flag = {},
                      std::vector<RelatedNote> notes = {});

  // Counts of what consumers received; the error-limit fatal error counts as an error.
  unsigned errorCount() const { return errors_; }
  unsigned warningCount() const { return warnings_; }
  // Follow-on errors and warnings dropped inside a CascadeScope.
  unsigned suppressedCount() const { return suppressed_; }
  bool hasErrors() const { return errors_ != 0; }
  // True once the error limit was hit or a fatal error was emitted; parsers should stop.
  bool stopped() const { return stopped_; }
  void finish();

  SourceManager &sourceManager() { return sm_; }

  // Cascade control. Open one scope per statement/op being parsed: once an error is emitted
  // inside the innermost open scope, further errors and warnings reported inside it are
  // follow-ons and are dropped (with their notes, and any standalone notes after them).
  class CascadeScope {
  public:
    explicit CascadeScope(DiagnosticEngine &engine)
        : engine_(engine), outer_(engine.cascade_), errorsAtStart_(engine.errors_) {
      engine.cascade_ = this;
    }
    ~CascadeScope() { engine_.cascade_ = outer_; }
    CascadeScope(const CascadeScope &) = delete;
    CascadeScope &operator=(const CascadeScope &) = delete;
    bool hadError() const { return engine_.errors_ > errorsAtStart_; }

  private:
    DiagnosticEngine &engine_;
    CascadeScope *outer_;
    unsigned errorsAtStart_;
  };

private:
  friend class DiagnosticBuilder;
  struct Mapping {
    Severity severity;
    bool warningAsError;
  };
  Mapping mapSeverity(Severity declared, std::string_view group) const;
  // Decides whether a diagnostic of mapped severity `severity` is shown, updating counters and
  // emitting the error-limit fatal error; false means drop it.
  bool admit(Severity severity);
  void emit(Diagnostic diag);

  SourceManager &sm_;
  DiagnosticOptions options_;
  std::vector<DiagnosticConsumer *> consumers_;
  CascadeScope *cascade_ = nullptr;
  unsigned errors_ = 0;
  unsigned warnings_ = 0;
  unsigned suppressed_ = 0;
  bool stopped_ = false;
  bool lastDropped_ = false;  // standalone notes follow the fate of the diagnostic before them
};

// Warns (DIAG/002, DIAG/003) about each -W/-R group in options().groupFlags that neither the
// registry nor `extraGroups` (for example Clang's warning groups) knows, with a "did you mean".
void reportUnknownDiagnosticFlags(DiagnosticEngine &engine, std::span<const std::string_view> extraGroups = {});

}  // namespace hrx::diag
