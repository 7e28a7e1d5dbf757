#include "hrx/loom/Loom.h"

namespace hrx::loom {
bool frontendAvailable() { return false; }
}  // namespace hrx::loom
