// Placeholder until the diagnostics engine is completed ([Loom frontend] issue).
#include "hrx/diag/Renderers.h"

namespace hrx::diag {

std::unique_ptr<DiagnosticConsumer> createJsonPrinter(std::ostream &) { return nullptr; }
std::unique_ptr<DiagnosticConsumer> createSarifPrinter(std::ostream &, std::string) { return nullptr; }

std::optional<std::string> explain(std::string_view code) {
  const DiagInfo *d = findByCode(code);
  if (!d) return std::nullopt;
  return std::string(d->code) + ": " + std::string(d->doc);
}

}  // namespace hrx::diag
