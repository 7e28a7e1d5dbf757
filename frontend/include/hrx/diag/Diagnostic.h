// The diagnostics engine shared by Loom, C/C++ (translated from Clang), the bridge and the driver.
// Every diagnostic has a stable code DOMAIN/NNN from one registry (Diagnostics.def).
#pragma once

#include "hrx/diag/SourceManager.h"

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hrx::diag {

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
};
const DiagInfo &info(DiagId id);
const DiagInfo *findByCode(std::string_view code);
std::vector<const DiagInfo *> allDiagnostics();

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
  std::string code;      // "PARSE/001"; for External, empty or the foreign code
  std::string flag;      // warning group or Clang flag ("-Wunused-variable"), may be empty
  std::string message;   // fully formatted
  SourceRange range;
  std::vector<std::pair<std::string, std::string>> params;  // named parameters (for matchers)
  std::vector<RelatedNote> notes;
  std::vector<FixIt> fixits;
};

// Receives every diagnostic after severity mapping (-W, -Werror, ...).
class DiagnosticConsumer {
public:
  virtual ~DiagnosticConsumer() = default;
  virtual void handle(const Diagnostic &diag, const SourceManager &sm) = 0;
  virtual void finish(const SourceManager &) {}
};

class DiagnosticEngine;

// Fluent builder; the diagnostic is emitted when the builder is destroyed.
class DiagnosticBuilder {
public:
  DiagnosticBuilder(DiagnosticEngine *engine, Diagnostic diag)
      : engine_(engine), diag_(std::move(diag)) {}
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
  bool warningsAsErrors = false;               // -Werror
  std::vector<std::string> errorGroups;        // -Werror=<group>
  std::vector<std::string> disabledGroups;     // -Wno-<group>
  std::vector<std::string> enabledGroups;      // -W<group> (off-by-default groups)
  std::vector<std::string> enabledRemarks;     // -R<group>
  unsigned errorLimit = 20;                    // -ferror-limit=N (0 = unlimited)
};

class DiagnosticEngine {
public:
  explicit DiagnosticEngine(SourceManager &sm) : sm_(sm) {}

  void setOptions(DiagnosticOptions options) { options_ = std::move(options); }
  const DiagnosticOptions &options() const { return options_; }
  void addConsumer(DiagnosticConsumer *consumer) { consumers_.push_back(consumer); }

  DiagnosticBuilder report(DiagId id, SourceRange range);
  // A diagnostic from another engine (Clang): already formatted, with its own flag name.
  void reportExternal(Severity severity, SourceRange range, std::string message,
                      std::string flag = {}, std::vector<RelatedNote> notes = {});

  unsigned errorCount() const { return errors_; }
  unsigned warningCount() const { return warnings_; }
  bool hasErrors() const { return errors_ != 0; }
  // True once the error limit was hit; parsers should stop.
  bool stopped() const { return stopped_; }
  void finish();

  SourceManager &sourceManager() { return sm_; }

private:
  friend class DiagnosticBuilder;
  void emit(Diagnostic diag);
  Severity mapSeverity(const Diagnostic &diag) const;

  SourceManager &sm_;
  DiagnosticOptions options_;
  std::vector<DiagnosticConsumer *> consumers_;
  unsigned errors_ = 0;
  unsigned warnings_ = 0;
  bool stopped_ = false;
};

}  // namespace hrx::diag
