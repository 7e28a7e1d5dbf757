// A resource field of a compile report's entry row: the name `hrx report show` prints and its
// JSON pointer inside the row. Each backend declares its own (hrx/ReportFields.h).
#pragma once

#include <string_view>

namespace hrx::format {

struct ReportField {
  std::string_view name;
  std::string_view pointer;
  friend bool operator==(const ReportField &, const ReportField &) = default;
};

}  // namespace hrx::format
