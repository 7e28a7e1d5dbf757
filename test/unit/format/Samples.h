// Valid sample artifacts built with the format library's writers, shared by the unit tests
// and hrx-format-testgen (which writes them to disk for the lit tests).
#pragma once

#include "hrx/format/ArrayPlan.h"
#include "hrx/format/Xdna.h"
#include "hrx/format/Identity.h"

#include <string>

namespace hrx::format::samples {

// A copy pipeline: binding 0 (read) → shim DMA → worker (0,2) "copy_stage" → shim DMA →
// binding 1 (write), `records` records of `recordBytes` bytes.
ArrayPlan copyPlan(uint32_t records = 16, uint32_t recordBytes = 64);

// Split-k: binding 0 (read) is scattered over two lanes (workers "stage" at (0,2) and (0,4),
// `records` records of 16 bytes each); both feed a reducer "reduce" at (0,3) over
// neighbor-memory channels; the reducer folds every iteration into a state record and writes
// one 16-byte record to binding 1 at the end.
ArrayPlan splitKPlan(uint32_t records = 8);

// A valid single-entry image "copy" for the copy plan: a COMMAND allocation holding two
// transactions (establish at 0, repeat at 64; invocations 0 -> 1 -> 1), a DMA allocation with a
// zero-filled tail, one static and two dynamic SHIM_ADDRESS relocations, two BUFFER bindings,
// and the .hrx.* sections (the host section zstd-compressed).
xdna::Image copyImage();
// The image's bytes as written (with a .hrx.report when `withReport`).
std::vector<uint8_t> copyImageBytes(bool withReport = true);

ArtifactIdentity xdnaIdentity();
// A compile report for the copy image ("summary"/"details"), with a code-size estimate.
std::string xdnaReportJson(std::string_view mode = "summary", uint64_t programBytes = 512);
// An AMDGPU report with one row "fill" and the given code bytes and VGPRs (-1: field absent).
std::string amdgpuReportJson(int64_t codeBytes, int64_t vgprs, std::string_view compiler = "0123abcd");

// A minimal ELF64 shared object (.text of `textBytes`, .shstrtab) for `machine`.
std::vector<uint8_t> elf64Object(uint16_t machine, uint32_t eflags, size_t textBytes);
// The stand-in for host reference code (.hrx.host): an x86-64 ELF64 shared object.
std::vector<uint8_t> hostObject();

// A minimal ELF64 AMDGPU (gfx1151) object: a .text section and a section-name table, plus
// our sections appended with appendElf64Sections.
std::vector<uint8_t> hsacoBytes();

// A fat container holding the copy image and the HSACO.
std::vector<uint8_t> fatBytes();

}  // namespace hrx::format::samples
