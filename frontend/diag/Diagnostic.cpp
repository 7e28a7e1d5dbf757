#include "hrx/diag/Diagnostic.h"

#include <algorithm>
#include <array>

namespace hrx::diag {
namespace {

constexpr DiagInfo kRegistry[] = {
#define HRX_DIAG(ID, CODE, SEVERITY, GROUP, MESSAGE, DOC) \
  {DiagId::ID, CODE, Severity::SEVERITY, GROUP, MESSAGE, DOC},
#include "hrx/diag/Diagnostics.def"
#undef HRX_DIAG
};

constexpr DiagInfo kExternal{DiagId::External, "", Severity::Error, "", "{message}", ""};

bool contains(const std::vector<std::string> &list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// Replaces each {name} in `tmpl` with its bound parameter; unknown names stay verbatim.
std::string format(std::string_view tmpl, const std::vector<std::pair<std::string, std::string>> &params) {
  std::string out;
  for (size_t i = 0; i < tmpl.size(); ++i) {
    if (tmpl[i] == '{') {
      size_t close = tmpl.find('}', i);
      if (close != std::string_view::npos) {
        std::string_view key = tmpl.substr(i + 1, close - i - 1);
        auto it = std::find_if(params.begin(), params.end(), [&](auto &p) { return p.first == key; });
        if (it != params.end()) {
          out += it->second;
          i = close;
          continue;
        }
      }
    }
    out += tmpl[i];
  }
  return out;
}

}  // namespace

const DiagInfo &info(DiagId id) {
  if (id == DiagId::External) return kExternal;
  return kRegistry[static_cast<size_t>(id)];
}

const DiagInfo *findByCode(std::string_view code) {
  for (const DiagInfo &d : kRegistry)
    if (d.code == code) return &d;
  return nullptr;
}

std::vector<const DiagInfo *> allDiagnostics() {
  std::vector<const DiagInfo *> out;
  for (const DiagInfo &d : kRegistry) out.push_back(&d);
  return out;
}

DiagnosticBuilder &DiagnosticBuilder::arg(std::string_view name, std::string value) {
  diag_.params.emplace_back(std::string(name), std::move(value));
  return *this;
}

DiagnosticBuilder &DiagnosticBuilder::note(SourceRange range, std::string message) {
  diag_.notes.push_back({range, std::move(message)});
  return *this;
}

DiagnosticBuilder &DiagnosticBuilder::fixit(SourceRange range, std::string replacement) {
  diag_.fixits.push_back({range, std::move(replacement)});
  return *this;
}

DiagnosticBuilder::~DiagnosticBuilder() {
  if (!engine_) return;
  diag_.message = format(info(diag_.id).message, diag_.params);
  engine_->emit(std::move(diag_));
}

DiagnosticBuilder DiagnosticEngine::report(DiagId id, SourceRange range) {
  const DiagInfo &i = info(id);
  Diagnostic d;
  d.id = id;
  d.severity = i.severity;
  d.code = std::string(i.code);
  if (!i.group.empty()) d.flag = "-W" + std::string(i.group);
  d.range = range;
  return DiagnosticBuilder(this, std::move(d));
}

void DiagnosticEngine::reportExternal(Severity severity, SourceRange range, std::string message,
                                      std::string flag, std::vector<RelatedNote> notes) {
  Diagnostic d;
  d.id = DiagId::External;
  d.severity = severity;
  d.message = std::move(message);
  d.flag = std::move(flag);
  d.range = range;
  d.notes = std::move(notes);
  emit(std::move(d));
}

Severity DiagnosticEngine::mapSeverity(const Diagnostic &diag) const {
  Severity s = diag.severity;
  std::string_view group = diag.flag;
  if (group.starts_with("-W")) group.remove_prefix(2);
  if (s == Severity::Warning) {
    if (!group.empty() && contains(options_.disabledGroups, group)) return Severity::Ignored;
    if (options_.warningsAsErrors || (!group.empty() && contains(options_.errorGroups, group)))
      return Severity::Error;
  }
  if (s == Severity::Remark && diag.id != DiagId::External) {
    std::string_view remarkGroup = info(diag.id).group;
    if (!contains(options_.enabledRemarks, remarkGroup)) return Severity::Ignored;
  }
  return s;
}

void DiagnosticEngine::emit(Diagnostic diag) {
  if (stopped_) return;
  diag.severity = mapSeverity(diag);
  if (diag.severity == Severity::Ignored) return;
  if (diag.severity >= Severity::Error) {
    if (options_.errorLimit && errors_ >= options_.errorLimit) {
      stopped_ = true;
      Diagnostic limit;
      limit.severity = Severity::Fatal;
      limit.code = "PARSE/012";
      limit.message = "too many errors emitted, stopping now [-ferror-limit=]";
      for (DiagnosticConsumer *c : consumers_) c->handle(limit, sm_);
      return;
    }
    ++errors_;
    if (diag.severity == Severity::Fatal) stopped_ = true;
  } else if (diag.severity == Severity::Warning) {
    ++warnings_;
  }
  for (DiagnosticConsumer *c : consumers_) c->handle(diag, sm_);
}

void DiagnosticEngine::finish() {
  for (DiagnosticConsumer *c : consumers_) c->finish(sm_);
}

}  // namespace hrx::diag
