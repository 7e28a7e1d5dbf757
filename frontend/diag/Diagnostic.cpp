#include "hrx/diag/Diagnostic.h"
#include "hrx/diag/EditDistance.h"

#include <algorithm>
#include <limits>

namespace hrx::diag {
namespace {

constexpr DiagInfo kRegistry[] = {
#define HRX_DIAG(ID, CODE, SEVERITY, GROUP, MESSAGE, DOC)                                                              \
  {DiagId::ID, CODE, Severity::SEVERITY, GROUP, MESSAGE, DOC, #ID},
#include "hrx/diag/Diagnostics.def"
#undef HRX_DIAG
};

constexpr DiagInfo kExternal{DiagId::External, "", Severity::Error, "", "{message}", "", "External"};

bool contains(const std::vector<std::string> &list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

void addUnique(std::vector<std::string> &list, std::string_view value) {
  if (!contains(list, value)) list.emplace_back(value);
}

bool isIdentifierStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isIdentifierChar(char c) { return isIdentifierStart(c) || (c >= '0' && c <= '9'); }

// If `tmpl` holds a {name} placeholder at `pos`, returns its name; else an empty view.
std::string_view placeholderAt(std::string_view tmpl, size_t pos) {
  if (tmpl[pos] != '{' || pos + 1 >= tmpl.size() || !isIdentifierStart(tmpl[pos + 1])) return {};
  size_t end = pos + 1;
  while (end < tmpl.size() && isIdentifierChar(tmpl[end])) ++end;
  if (end >= tmpl.size() || tmpl[end] != '}') return {};
  return tmpl.substr(pos + 1, end - pos - 1);
}

// Replaces each {name} in `tmpl` with its bound parameter; unbound names stay verbatim.
std::string format(std::string_view tmpl, const std::vector<std::pair<std::string, std::string>> &params) {
  std::string out;
  out.reserve(tmpl.size() + 16);
  for (size_t i = 0; i < tmpl.size(); ++i) {
    std::string_view key = placeholderAt(tmpl, i);
    if (!key.empty()) {
      auto it = std::find_if(params.begin(), params.end(), [&](auto &p) { return p.first == key; });
      if (it != params.end()) {
        out += it->second;
        i += key.size() + 1;
        continue;
      }
    }
    out += tmpl[i];
  }
  return out;
}

// "-Wunused-variable" -> "unused-variable"; "-Rpass" -> "pass".
std::string_view groupOfFlag(std::string_view flag) {
  if (flag.starts_with("-W") || flag.starts_with("-R")) flag.remove_prefix(2);
  return flag;
}

}  // namespace

size_t editDistance(std::string_view a, std::string_view b) {
  // Three rows of the optimal-string-alignment table: the swap looks two rows back.
  std::vector<size_t> twoBack(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        current[j] = std::min(current[j], twoBack[j - 2] + 1);
    }
    std::swap(twoBack, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

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
  out.reserve(std::size(kRegistry));
  for (const DiagInfo &d : kRegistry) out.push_back(&d);
  return out;
}

std::vector<std::string_view> templateParameters(std::string_view tmpl) {
  std::vector<std::string_view> names;
  for (size_t i = 0; i < tmpl.size(); ++i) {
    std::string_view key = placeholderAt(tmpl, i);
    if (key.empty()) continue;
    if (std::find(names.begin(), names.end(), key) == names.end()) names.push_back(key);
    i += key.size() + 1;
  }
  return names;
}

std::string_view severityName(Severity s) {
  switch (s) {
  case Severity::Ignored: return "ignored";
  case Severity::Note: return "note";
  case Severity::Remark: return "remark";
  case Severity::Warning: return "warning";
  case Severity::Error: return "error";
  case Severity::Fatal: return "fatal error";
  }
  return "error";
}

DiagnosticBuilder &DiagnosticBuilder::arg(std::string_view name, std::string value) {
  if (engine_) diag_.params.emplace_back(std::string(name), std::move(value));
  return *this;
}

DiagnosticBuilder &DiagnosticBuilder::note(SourceRange range, std::string message) {
  if (engine_) diag_.notes.push_back({range, std::move(message)});
  return *this;
}

DiagnosticBuilder &DiagnosticBuilder::fixit(SourceRange range, std::string replacement) {
  if (engine_) diag_.fixits.push_back({range, std::move(replacement)});
  return *this;
}

DiagnosticBuilder::~DiagnosticBuilder() {
  if (!engine_) return;
  diag_.message = format(info(diag_.id).message, diag_.params);
  engine_->emit(std::move(diag_));
}

bool parseDiagnosticFlag(std::string_view arg, DiagnosticOptions &o) {
  if (arg == "-w") {
    o.ignoreAllWarnings = true;
    return true;
  }
  bool remark = arg.starts_with("-R");
  if (!remark && !arg.starts_with("-W")) return false;
  std::string_view v = arg.substr(2);
  if (v.empty() || v.starts_with("l,") || v.starts_with("a,") || v.starts_with("p,")) return false;
  if (remark) {
    if (v.find('=') != std::string_view::npos) return false;  // -Rpass=<regex>: LLVM's, not a group
    if (v == "everything")
      o.enableAllRemarks = true;
    else if (v == "no-everything")
      o.enableAllRemarks = false, o.enabledRemarks.clear();
    else if (v.starts_with("no-"))
      std::erase(o.enabledRemarks, v.substr(3));
    else
      addUnique(o.enabledRemarks, v);
    if (!v.ends_with("everything")) o.groupFlags.emplace_back(arg);
    return true;
  }
  if (v == "error")
    o.warningsAsErrors = true;
  else if (v == "no-error")
    o.warningsAsErrors = false;
  else if (v == "everything")
    o.enableAllWarnings = true, o.ignoreAllWarnings = false;
  else if (v == "no-everything")
    o.enableAllWarnings = false, o.ignoreAllWarnings = true;
  else if (v == "fatal-errors")
    o.fatalErrors = true;
  else if (v == "no-fatal-errors")
    o.fatalErrors = false;
  else {
    if (v.starts_with("error=")) {
      std::string_view g = v.substr(6);
      addUnique(o.errorGroups, g);
      std::erase(o.noErrorGroups, g);
      std::erase(o.disabledGroups, g);
    } else if (v.starts_with("no-error=")) {
      std::string_view g = v.substr(9);
      addUnique(o.noErrorGroups, g);
      std::erase(o.errorGroups, g);
    } else if (v.starts_with("no-")) {
      std::string_view g = v.substr(3);
      addUnique(o.disabledGroups, g);
      std::erase(o.enabledGroups, g);
      std::erase(o.errorGroups, g);
    } else {
      addUnique(o.enabledGroups, v);
      std::erase(o.disabledGroups, v);
    }
    o.groupFlags.emplace_back(arg);
  }
  return true;
}

void reportUnknownDiagnosticFlags(DiagnosticEngine &engine, std::span<const std::string_view> extraGroups) {
  std::vector<std::string_view> known(extraGroups.begin(), extraGroups.end());
  for (const DiagInfo &d : kRegistry)
    if (!d.group.empty()) known.push_back(d.group);
  for (const std::string &flag : engine.options().groupFlags) {
    std::string_view spelled = flag;
    bool remark = spelled.starts_with("-R");
    std::string_view prefix = spelled.substr(0, 2);
    std::string_view group = spelled.substr(2);
    for (std::string_view modifier : {"no-error=", "error=", "no-"}) {
      if (group.starts_with(modifier) && !(remark && modifier != "no-")) {
        prefix = spelled.substr(0, 2 + modifier.size());
        group.remove_prefix(modifier.size());
        break;
      }
    }
    if (std::find(known.begin(), known.end(), group) != known.end()) continue;
    // Suggest the nearest group within a third of the name (at least two edits); ties suggest none.
    size_t threshold = std::max<size_t>(2, group.size() / 3);
    size_t best = std::numeric_limits<size_t>::max();
    std::string_view nearest;
    bool tie = false;
    for (std::string_view candidate : known) {
      size_t d = editDistance(group, candidate);
      if (d > threshold) continue;
      if (d < best)
        best = d, nearest = candidate, tie = false;
      else if (d == best && candidate != nearest)
        tie = true;
    }
    std::string suggestion;
    if (!nearest.empty() && !tie) suggestion = "; did you mean '" + std::string(prefix) + std::string(nearest) + "'?";
    engine.report(remark ? DiagId::DiagUnknownRemarkOption : DiagId::DiagUnknownWarningOption, {})
        .arg("flag", flag)
        .arg("suggestion", std::move(suggestion));
  }
}

DiagnosticBuilder DiagnosticEngine::report(DiagId id, SourceRange range) {
  const DiagInfo &i = info(id);
  Mapping m = mapSeverity(i.severity, i.group);
  if (!admit(m.severity)) return DiagnosticBuilder(nullptr, Diagnostic{});
  Diagnostic d;
  d.id = id;
  if (!i.group.empty()) d.flag = (i.severity == Severity::Remark ? "-R" : "-W") + std::string(i.group);
  d.severity = m.severity;
  d.warningAsError = m.warningAsError;
  d.code = std::string(i.code);
  d.range = range;
  return DiagnosticBuilder(this, std::move(d));
}

void DiagnosticEngine::reportExternal(Severity severity, SourceRange range, std::string message, std::string flag,
                                      std::vector<RelatedNote> notes) {
  Mapping m = mapSeverity(severity, groupOfFlag(flag));
  if (!admit(m.severity)) return;
  Diagnostic d;
  d.id = DiagId::External;
  d.severity = m.severity;
  d.warningAsError = m.warningAsError;
  d.message = std::move(message);
  d.flag = std::move(flag);
  d.range = range;
  d.notes = std::move(notes);
  emit(std::move(d));
}

DiagnosticEngine::Mapping DiagnosticEngine::mapSeverity(Severity declared, std::string_view group) const {
  const DiagnosticOptions &o = options_;
  bool grouped = !group.empty();
  switch (declared) {
  case Severity::Ignored:
  case Severity::Note:
  case Severity::Fatal:
    if (declared != Severity::Ignored) return {declared, false};
    // Off by default: enabled by -W<group>, -Werror=<group> or -Weverything.
    if (!grouped || !(o.enableAllWarnings || contains(o.enabledGroups, group) || contains(o.errorGroups, group)))
      return {Severity::Ignored, false};
    [[fallthrough]];
  case Severity::Warning:
    if ((grouped && contains(o.disabledGroups, group)) || o.ignoreAllWarnings) return {Severity::Ignored, false};
    if (grouped && contains(o.errorGroups, group)) return {o.fatalErrors ? Severity::Fatal : Severity::Error, true};
    if (o.warningsAsErrors && !(grouped && contains(o.noErrorGroups, group)))
      return {o.fatalErrors ? Severity::Fatal : Severity::Error, true};
    return {Severity::Warning, false};
  case Severity::Remark:
    if (!grouped || o.enableAllRemarks || contains(o.enabledRemarks, group)) return {Severity::Remark, false};
    return {Severity::Ignored, false};
  case Severity::Error:
    // An error with a group is clang's "warning that defaults to an error".
    if (grouped && contains(o.disabledGroups, group)) return {Severity::Ignored, false};
    if (grouped && contains(o.noErrorGroups, group))
      return {o.ignoreAllWarnings ? Severity::Ignored : Severity::Warning, false};
    return {o.fatalErrors ? Severity::Fatal : Severity::Error, false};
  }
  return {declared, false};
}

bool DiagnosticEngine::admit(Severity severity) {
  if (severity == Severity::Note) return !lastDropped_ && !stopped_;
  lastDropped_ = true;
  if (stopped_ || severity == Severity::Ignored) return false;
  if (severity != Severity::Fatal && severity != Severity::Remark && cascade_ && cascade_->hadError()) {
    ++suppressed_;
    return false;
  }
  if (severity >= Severity::Error && options_.errorLimit && errors_ >= options_.errorLimit) {
    stopped_ = true;
    Diagnostic limit;
    limit.id = DiagId::DiagTooManyErrors;
    limit.severity = Severity::Fatal;
    limit.code = std::string(info(limit.id).code);
    limit.flag = "-ferror-limit=";
    limit.message = std::string(info(limit.id).message);
    ++errors_;
    for (DiagnosticConsumer *c : consumers_) c->handle(limit, sm_);
    return false;
  }
  if (severity >= Severity::Error)
    ++errors_;
  else if (severity == Severity::Warning)
    ++warnings_;
  if (severity == Severity::Fatal) stopped_ = true;
  lastDropped_ = false;
  return true;
}

void DiagnosticEngine::emit(Diagnostic diag) {
  for (DiagnosticConsumer *c : consumers_) c->handle(diag, sm_);
}

void DiagnosticEngine::finish() {
  for (DiagnosticConsumer *c : consumers_) c->finish(sm_);
}

}  // namespace hrx::diag
