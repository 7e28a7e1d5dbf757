#include "hrx/ReportFields.h"

#include <algorithm>

namespace hrx {

std::vector<format::ReportField> reportFieldsFor(std::string_view documentBackend) {
  std::span<const BackendReportFields> all = registeredReportFields();
  std::vector<const BackendReportFields *> order;
  for (const BackendReportFields &b : all)
    if (std::ranges::find(b.reportBackends, documentBackend) != b.reportBackends.end()) order.push_back(&b);
  for (const BackendReportFields &b : all)
    if (std::ranges::find(order, &b) == order.end()) order.push_back(&b);
  std::vector<format::ReportField> fields;
  for (const BackendReportFields *b : order)
    for (const format::ReportField &f : b->fields)
      if (std::ranges::none_of(fields, [&](const format::ReportField &g) { return g.name == f.name; }))
        fields.push_back(f);
  return fields;
}

}  // namespace hrx
