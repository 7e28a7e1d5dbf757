// The diag library's names for the one UTF-8 decoder (hrx/support/Utf8.h).
#pragma once

#include "hrx/support/Utf8.h"

namespace hrx::diag {

using text::decodeUtf8;
using text::utf8Length;

}  // namespace hrx::diag
