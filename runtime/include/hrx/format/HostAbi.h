/* The host-code ABI (version 1): how the host reference device calls the x86-64 shared object
 * that hrxcc embeds in every artifact (section .hrx.host). The bridge's host target emits it;
 * the runtime's host device loads it. C-compatible so either side can be written in C or C++.
 *
 * Symbols (Loom symbol names may contain '.' and '$'; ELF symbols allow both):
 *   "hrx.stage.<sym>"   NPU stage/worker function for Loom func @<sym>:
 *                       void f(void *const *records);
 *                       records[i] points at one record per callee buffer argument, in the
 *                       callee's argument order (inputs, then outputs; for reduce: source-lane
 *                       partials, target-side inputs, outputs).
 *   "hrx.kernel.<sym>"  GPU kernel @<sym>: void f(const hrx_host_dispatch *dispatch);
 *                       runs every work-item of ONE workgroup (barriers are honoured inside).
 *   "hrx.launch.<sym>"  launch-config program of kernel @<sym>:
 *                       void f(const uint64_t *workload, uint32_t out[6]);
 *                       out = {workgroups x,y,z, workgroup_size x,y,z}.
 *   "hrx.launch_storage.<sym>" (optional) the dynamic workgroup storage of kernel @<sym>:
 *                       void f(const uint64_t *workload, uint64_t *bytes);
 *                       *bytes = what its launch region's dynamic_workgroup_storage(%n) asks
 *                       for. Absent: none. The GPU's dispatch adds it to the group segment; the
 *                       host's twin has HRX_HOST_DYNAMIC_WORKGROUP_STORAGE_BYTES per thread.
 *   "hrx.abi_version"   const uint32_t, equal to HRX_HOST_ABI_VERSION.
 *   "hrx.stage_access.<sym>" (optional) const uint8_t[records]: per record of "hrx.stage.<sym>",
 *                       HRX_HOST_RECORD_READ if the stage may read it, HRX_HOST_RECORD_WRITE if
 *                       it may write it. Absent: every record may be read and written. The
 *                       host device lets a stage that never writes an input record read it in
 *                       place in the binding, and one that never reads an output record write it
 *                       in place (docs/formats/array-plan.md, "Records in place").
 *   "hrx.unavailable.<sym>"  optional, const char[] (NUL-terminated): why the host code has no
 *                       "hrx.kernel.<sym>" for a kernel its GPU artifact has (LINK/044).
 */
#ifndef HRX_FORMAT_HOSTABI_H
#define HRX_FORMAT_HOSTABI_H

#include <stdint.h>

#define HRX_HOST_ABI_VERSION 1u
#define HRX_HOST_STAGE_PREFIX "hrx.stage."
#define HRX_HOST_KERNEL_PREFIX "hrx.kernel."
#define HRX_HOST_LAUNCH_PREFIX "hrx.launch."
#define HRX_HOST_UNAVAILABLE_PREFIX "hrx.unavailable."
#define HRX_HOST_LAUNCH_STORAGE_PREFIX "hrx.launch_storage."
#define HRX_HOST_DYNAMIC_WORKGROUP_STORAGE_BYTES 65536u
#define HRX_HOST_ABI_VERSION_SYMBOL "hrx.abi_version"
#define HRX_HOST_STAGE_ACCESS_PREFIX "hrx.stage_access."
#define HRX_HOST_RECORD_READ 1u
#define HRX_HOST_RECORD_WRITE 2u

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hrx_host_dispatch {
  uint32_t workgroup_id[3];
  uint32_t workgroup_size[3];
  uint32_t workgroup_count[3];
  uint32_t arg_count;
  /* Launch arguments in `launch(...)` order: a buffer is its base pointer; a scalar is a
   * pointer to its value (index/offset as uint64_t, i32 as int32_t, f32 as float, ...). */
  void *const *args;
} hrx_host_dispatch;

typedef void (*hrx_host_stage_fn)(void *const *records);
typedef void (*hrx_host_kernel_fn)(const hrx_host_dispatch *dispatch);
typedef void (*hrx_host_launch_fn)(const uint64_t *workload, uint32_t out[6]);
typedef void (*hrx_host_launch_storage_fn)(const uint64_t *workload, uint64_t *bytes);

#ifdef __cplusplus
}
#endif

#endif /* HRX_FORMAT_HOSTABI_H */
