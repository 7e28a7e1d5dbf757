// A host-code shared object in the form hrxcc embeds in artifacts (HostAbi.h), compiled by the
// test build so the host device can be tested before the compiler produces artifacts.
#include "hrx/format/HostAbi.h"

// Only the C runtime: host code may import nothing else (libc, libm, libgcc_s), so the fixture
// sleeps and reads the clock through POSIX rather than <thread>/<chrono> (libstdc++).
#include <cstring>
#include <time.h>

extern "C" {

__attribute__((visibility("default"))) extern const uint32_t abiVersion __asm__(HRX_HOST_ABI_VERSION_SYMBOL);
const uint32_t abiVersion = HRX_HOST_ABI_VERSION;

// Stages on 64-byte records (16 x i32): records = {inputs..., outputs...}.
__attribute__((visibility("default"))) void copyRecord(void *const *records) __asm__("hrx.stage.copy64");
void copyRecord(void *const *records) { std::memcpy(records[1], records[0], 64); }

__attribute__((visibility("default"))) void addOne(void *const *records) __asm__("hrx.stage.add_one64");
void addOne(void *const *records) {
  auto *in = static_cast<const int32_t *>(records[0]);
  auto *out = static_cast<int32_t *>(records[1]);
  for (int i = 0; i < 16; ++i) out[i] = in[i] + 1;
}

// Stages with record access tables (HostAbi.h "hrx.stage_access.<sym>"), which let the host
// device hand them records in place. where64 writes the addresses of its two records into the
// first 16 bytes of its output (zeros after); scribble64 copies and then zeroes its input, and
// its table says so.
__attribute__((visibility("default"))) extern const uint8_t whereAccess[2] __asm__("hrx.stage_access.where64");
const uint8_t whereAccess[2] = {HRX_HOST_RECORD_READ, HRX_HOST_RECORD_WRITE};
__attribute__((visibility("default"))) void whereRecords(void *const *records) __asm__("hrx.stage.where64");
void whereRecords(void *const *records) {
  uint64_t out[8] = {reinterpret_cast<uint64_t>(records[0]), reinterpret_cast<uint64_t>(records[1])};
  std::memcpy(records[1], out, sizeof out);
}

__attribute__((visibility("default"))) extern const uint8_t copyInPlaceAccess[2] __asm__(
    "hrx.stage_access.copy64_in_place");
const uint8_t copyInPlaceAccess[2] = {HRX_HOST_RECORD_READ, HRX_HOST_RECORD_WRITE};
__attribute__((visibility("default"))) void copyInPlace(void *const *records) __asm__("hrx.stage.copy64_in_place");
void copyInPlace(void *const *records) { std::memcpy(records[1], records[0], 64); }

__attribute__((visibility("default"))) extern const uint8_t scribbleAccess[2] __asm__("hrx.stage_access.scribble64");
const uint8_t scribbleAccess[2] = {HRX_HOST_RECORD_READ | HRX_HOST_RECORD_WRITE, HRX_HOST_RECORD_WRITE};
__attribute__((visibility("default"))) void scribble(void *const *records) __asm__("hrx.stage.scribble64");
void scribble(void *const *records) {
  std::memcpy(records[1], records[0], 64);
  std::memset(records[0], 0, 64);
}

// copy64 after 300 ms: long enough for a short --timeout to expire first.
__attribute__((visibility("default"))) void slowCopy(void *const *records) __asm__("hrx.stage.slow_copy64");
void slowCopy(void *const *records) {
  timespec pause = {0, 300'000'000};
  nanosleep(&pause, nullptr);
  std::memcpy(records[1], records[0], 64);
}

// copy64 after a 50 us busy wait: long enough for the host device to run workers in parallel.
__attribute__((visibility("default"))) void spinCopy(void *const *records) __asm__("hrx.stage.spin_copy64");
void spinCopy(void *const *records) {
  auto nowNs = [] {
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1'000'000'000ll + now.tv_nsec;
  };
  long long until = nowNs() + 50'000;
  while (nowNs() < until) {}
  std::memcpy(records[1], records[0], 64);
}

// records = {input, accumulator (state), output}: output = running sum of the period's inputs.
__attribute__((visibility("default"))) void accumulate(void *const *records) __asm__("hrx.stage.accumulate64");
void accumulate(void *const *records) {
  auto *in = static_cast<const int32_t *>(records[0]);
  auto *acc = static_cast<int32_t *>(records[1]);
  for (int i = 0; i < 16; ++i) acc[i] += in[i];
  std::memcpy(records[2], acc, 64);
}

// GPU kernel vadd(out, a, b) over i32; workload[0] = element count.
__attribute__((visibility("default"))) void vaddLaunch(const uint64_t *workload,
                                                       uint32_t out[6]) __asm__("hrx.launch.vadd");
void vaddLaunch(const uint64_t *workload, uint32_t out[6]) {
  uint64_t n = workload[0];
  bool even = n % 64 == 0;
  uint32_t grid[6] = {static_cast<uint32_t>(even ? n / 64 : n), 1, 1, even ? 64u : 1u, 1, 1};
  std::memcpy(out, grid, sizeof grid);
}

__attribute__((visibility("default"))) void vadd(const hrx_host_dispatch *d) __asm__("hrx.kernel.vadd");
void vadd(const hrx_host_dispatch *d) {
  auto *out = static_cast<int32_t *>(d->args[0]);
  auto *a = static_cast<const int32_t *>(d->args[1]);
  auto *b = static_cast<const int32_t *>(d->args[2]);
  for (uint32_t lid = 0; lid < d->workgroup_size[0]; ++lid) {
    uint64_t gid = uint64_t(d->workgroup_id[0]) * d->workgroup_size[0] + lid;
    out[gid] = a[gid] + b[gid];
  }
}

// GPU kernel scale(n: u64, y: buffer, factor: i32): y[i] *= factor for i < n; one workgroup of
// workload[0] work-items.
__attribute__((visibility("default"))) void scaleLaunch(const uint64_t *workload,
                                                        uint32_t out[6]) __asm__("hrx.launch.scale");
void scaleLaunch(const uint64_t *workload, uint32_t out[6]) {
  uint32_t grid[6] = {1, 1, 1, static_cast<uint32_t>(workload[0]), 1, 1};
  std::memcpy(out, grid, sizeof grid);
}

__attribute__((visibility("default"))) void scale(const hrx_host_dispatch *d) __asm__("hrx.kernel.scale");
void scale(const hrx_host_dispatch *d) {
  uint64_t n = *static_cast<const uint64_t *>(d->args[0]);
  auto *y = static_cast<int32_t *>(d->args[1]);
  int32_t factor = *static_cast<const int32_t *>(d->args[2]);
  for (uint32_t lid = 0; lid < d->workgroup_size[0]; ++lid)
    if (lid < n) y[lid] *= factor;
}

// Reverses each 64-element workgroup tile through workgroup-local memory: every work-item
// stores, a barrier, then every work-item loads its mirror. The barrier splits the loop.
__attribute__((visibility("default"))) void reverseLaunch(const uint64_t *workload,
                                                          uint32_t out[6]) __asm__("hrx.launch.reverse64");
void reverseLaunch(const uint64_t *workload, uint32_t out[6]) {
  uint32_t grid[6] = {static_cast<uint32_t>(workload[0] / 64), 1, 1, 64, 1, 1};
  std::memcpy(out, grid, sizeof grid);
}

__attribute__((visibility("default"))) void reverse(const hrx_host_dispatch *d) __asm__("hrx.kernel.reverse64");
void reverse(const hrx_host_dispatch *d) {
  auto *out = static_cast<int32_t *>(d->args[0]);
  auto *in = static_cast<const int32_t *>(d->args[1]);
  int32_t local[64];
  uint64_t base = uint64_t(d->workgroup_id[0]) * 64;
  for (uint32_t lid = 0; lid < 64; ++lid) local[lid] = in[base + lid];
  // barrier
  for (uint32_t lid = 0; lid < 64; ++lid) out[base + lid] = local[63 - lid];
}
}
