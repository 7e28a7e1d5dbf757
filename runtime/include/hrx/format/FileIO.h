// Whole-file reads and atomic writes for every tool (hrxcc, hrx-run, hrx): each failure is a
// Status naming the path and the operating system's reason, never an exception or a hang.
#pragma once

#include "hrx/runtime/Status.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace hrx::io {

inline constexpr uint64_t kNoSizeLimit = ~uint64_t(0);

// The bytes of the regular file `path`. Refused, with "cannot read 'PATH': REASON":
// a missing or vanished file, no permission, a directory, a FIFO, socket or device (these
// could block or never end), a file larger than `maxBytes`, a read error, and a short read
// (the file shrank or grew while it was read).
StatusOr<std::vector<uint8_t>> readFile(const std::string &path, uint64_t maxBytes = kNoSizeLimit);
StatusOr<std::string> readTextFile(const std::string &path, uint64_t maxBytes = kNoSizeLimit);

// The REASON of a readFile or writeFileAtomically failure for `path`, for diagnostics that
// print the path themselves.
std::string failureReason(const Status &status, const std::string &path);

// Writes `bytes` to a temporary file beside `path`, flushes it and renames it over `path`, so
// readers see the old file or the new one, never a torn one, even with concurrent writers.
// A destination that exists and is not a regular file (/dev/null, /dev/stdout, a FIFO) is
// written in place. Failures: "cannot write 'PATH': REASON".
Status writeFileAtomically(const std::string &path, std::span<const uint8_t> bytes);
Status writeFileAtomically(const std::string &path, std::string_view text);

}  // namespace hrx::io
