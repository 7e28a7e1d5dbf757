// Loom frontend entry points.
#pragma once

namespace hrx::loom {
// Placeholder until the Loom frontend lands ([Loom frontend] issue).
bool frontendAvailable();
}  // namespace hrx::loom
