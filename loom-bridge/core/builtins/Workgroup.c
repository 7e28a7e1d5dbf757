/* Cooperative execution of one workgroup on the host reference device, for C/C++/HIP kernels
 * that wait at barriers or use warp functions: every work-item is a fiber with its own stack on
 * the calling thread, and the scheduler below resumes them in turn (docs/host-twin.md).
 *
 * A fiber runs until it finishes, waits at a barrier (__hrx_wg_barrier) or reaches a warp
 * function (__hrx_wg_warp_gather). Once every fiber has stopped, the warp functions complete
 * first: in each wave (32 consecutive work-items in x-fastest order) the lanes waiting at a warp
 * function exchange their values. Only when no warp function is pending does the barrier
 * release, with every unfinished work-item waiting at it (finished work-items do not hold a
 * barrier up, as on the GPU).
 *
 * Compiled to bitcode with Numerics.c and linked (internalized) into host code that needs it.
 * Stacks come from mmap with a guard page below each, so a stack overflow faults instead of
 * overwriting a neighbour; they are kept per thread for the next workgroup. */
#include <stdint.h>

#define HRX_WAVE 32u
#define HRX_FIBER_STACK (128u * 1024u)
#define HRX_PAGE 4096u

/* The C library functions the host shared object may import (bridge/HostCode.cpp). */
void *mmap(void *address, unsigned long length, int protection, int flags, int fd, long offset);
int munmap(void *address, unsigned long length);
int mprotect(void *address, unsigned long length, int protection);
#define HRX_PROT_NONE 0
#define HRX_PROT_RW 3
#define HRX_MAP_PRIVATE_ANONYMOUS_NORESERVE (0x02 | 0x20 | 0x4000)
#define HRX_MAP_FAILED ((void *)-1)

enum { kReady, kAtBarrier, kAtWarp, kDone };

typedef void (*hrx_work_item_fn)(const void *dispatch, uint64_t x, uint64_t y, uint64_t z);

typedef struct {
  void *sp;
  uint32_t state;
  uint64_t x, y, z;
  uint64_t posted;    /* the value given to the pending warp function */
  uint64_t *received; /* where that function's values go */
  uint64_t mask;      /* lanes that took part */
  uint64_t bytes;     /* __hrx_wg_warp_gather_bytes: `posted` points at this many bytes */
} hrx_fiber;

typedef struct {
  void *scheduler_sp;
  hrx_fiber *fibers;
  uint32_t current;
  const void *dispatch;
  hrx_work_item_fn item;
  char *memory; /* fiber table, then the stacks */
  char *stacks;
  unsigned long memory_bytes;
  uint64_t capacity;
  uint64_t wave; /* lanes per wave: 32, or the kernel's subgroup size (__hrx_wg_run_wave) */
} hrx_workgroup;

static _Thread_local hrx_workgroup hrx_wg;

/* Saves the callee-saved registers and the FP control words on the current stack, stores the
 * stack pointer in *save and continues on the stack `load` (System V x86-64). */
__attribute__((naked, noinline)) static void hrx_fiber_switch(void **save, void *load) {
  __asm__ volatile("pushq %rbp\n\tpushq %rbx\n\tpushq %r12\n\tpushq %r13\n\tpushq %r14\n\tpushq %r15\n\t"
                   "subq $8, %rsp\n\tstmxcsr (%rsp)\n\tfnstcw 4(%rsp)\n\t"
                   "movq %rsp, (%rdi)\n\tmovq %rsi, %rsp\n\t"
                   "ldmxcsr (%rsp)\n\tfldcw 4(%rsp)\n\taddq $8, %rsp\n\t"
                   "popq %r15\n\tpopq %r14\n\tpopq %r13\n\tpopq %r12\n\tpopq %rbx\n\tpopq %rbp\n\tret\n\t");
}

/* A new fiber's first return lands here with its fiber in rbx and its body in r12. */
__attribute__((naked, noinline)) static void hrx_fiber_start(void) {
  __asm__ volatile("movq %rbx, %rdi\n\tcallq *%r12\n\tud2\n\t");
}

__attribute__((noinline)) static void hrx_fiber_body(hrx_fiber *fiber) {
  hrx_wg.item(hrx_wg.dispatch, fiber->x, fiber->y, fiber->z);
  fiber->state = kDone;
  hrx_fiber_switch(&fiber->sp, hrx_wg.scheduler_sp);
}

static void hrx_suspend(uint32_t state) {
  hrx_fiber *fiber = &hrx_wg.fibers[hrx_wg.current];
  fiber->state = state;
  hrx_fiber_switch(&fiber->sp, hrx_wg.scheduler_sp);
}

void __hrx_wg_barrier(void) { hrx_suspend(kAtBarrier); }

uint64_t __hrx_wg_warp_gather(uint64_t value, uint64_t *values) {
  hrx_fiber *fiber = &hrx_wg.fibers[hrx_wg.current];
  fiber->posted = value;
  fiber->received = values;
  fiber->bytes = 0;
  hrx_suspend(kAtWarp);
  return fiber->mask;
}

/* Like __hrx_wg_warp_gather for a value of `bytes` bytes: lane i's copy lands at lanes + i * bytes
 * (Loom's cross-lane ops in the twin: vector.mma fragments, subgroup reductions). The copies are
 * made while every lane of the wave is stopped, so a lane may reuse `value` once it resumes. */
uint64_t __hrx_wg_warp_gather_bytes(const void *value, uint64_t bytes, void *lanes) {
  hrx_fiber *fiber = &hrx_wg.fibers[hrx_wg.current];
  fiber->posted = (uint64_t)(uintptr_t)value;
  fiber->received = (uint64_t *)lanes;
  fiber->bytes = bytes;
  hrx_suspend(kAtWarp);
  return fiber->mask;
}

/* Completes the pending warp functions of every wave; false when none was pending. */
static int hrx_complete_warp_functions(hrx_fiber *fibers, uint64_t count) {
  int completed = 0;
  uint64_t wave = hrx_wg.wave ? hrx_wg.wave : HRX_WAVE;
  for (uint64_t base = 0; base < count; base += wave) {
    uint64_t lanes = count - base < wave ? count - base : wave;
    uint64_t mask = 0;
    for (uint64_t lane = 0; lane < lanes; ++lane)
      if (fibers[base + lane].state == kAtWarp) mask |= 1ull << lane;
    if (!mask) continue;
    completed = 1;
    for (uint64_t lane = 0; lane < lanes; ++lane) {
      hrx_fiber *fiber = &fibers[base + lane];
      if (fiber->state != kAtWarp) continue;
      for (uint64_t from = 0; from < lanes; ++from) {
        if (!(mask >> from & 1)) continue;
        if (!fiber->bytes) {
          fiber->received[from] = fibers[base + from].posted;
          continue;
        }
        const char *source = (const char *)(uintptr_t)fibers[base + from].posted;
        char *target = (char *)fiber->received + from * fiber->bytes;
        for (uint64_t i = 0; i < fiber->bytes; ++i) target[i] = source[i];
      }
      fiber->mask = mask;
      fiber->state = kReady;
    }
  }
  return completed;
}

/* Makes this thread's fiber memory hold `count` fibers (the table, then one stack each with a
 * guard page below it); false if the system refuses. */
static int hrx_reserve(uint64_t count) {
  if (hrx_wg.capacity >= count) return 1;
  if (hrx_wg.memory) munmap(hrx_wg.memory, hrx_wg.memory_bytes);
  hrx_wg.memory = 0;
  hrx_wg.memory_bytes = 0;
  hrx_wg.capacity = 0;
  unsigned long table = ((unsigned long)count * sizeof(hrx_fiber) + HRX_PAGE - 1) / HRX_PAGE * HRX_PAGE;
  unsigned long bytes = table + (unsigned long)count * HRX_FIBER_STACK;
  void *memory = mmap(0, bytes, HRX_PROT_RW, HRX_MAP_PRIVATE_ANONYMOUS_NORESERVE, -1, 0);
  if (memory == HRX_MAP_FAILED) return 0;
  hrx_wg.memory = (char *)memory;
  hrx_wg.memory_bytes = bytes;
  hrx_wg.stacks = hrx_wg.memory + table;
  hrx_wg.capacity = count;
  for (uint64_t i = 0; i < count; ++i) mprotect(hrx_wg.stacks + i * HRX_FIBER_STACK, HRX_PAGE, HRX_PROT_NONE);
  return 1;
}

void __hrx_wg_run(const void *dispatch, hrx_work_item_fn item);

/* __hrx_wg_run with waves of `wave` lanes (a Loom kernel's subgroup_size: 32 or 64). */
void __hrx_wg_run_wave(const void *dispatch, hrx_work_item_fn item, uint64_t wave) {
  hrx_wg.wave = wave;
  __hrx_wg_run(dispatch, item);
  hrx_wg.wave = 0;
}

/* Runs every work-item of the workgroup `dispatch` describes (sizes at dispatch + 12). */
void __hrx_wg_run(const void *dispatch, hrx_work_item_fn item) {
  const uint32_t *size = (const uint32_t *)((const char *)dispatch + 12);
  uint64_t count = (uint64_t)size[0] * size[1] * size[2];
  if (!hrx_reserve(count)) __builtin_trap();
  hrx_fiber *fibers = (hrx_fiber *)hrx_wg.memory;
  char *stacks = hrx_wg.stacks;
  hrx_wg.fibers = fibers;
  hrx_wg.dispatch = dispatch;
  hrx_wg.item = item;
  uint64_t index = 0;
  for (uint64_t z = 0; z < size[2]; ++z)
    for (uint64_t y = 0; y < size[1]; ++y)
      for (uint64_t x = 0; x < size[0]; ++x, ++index) {
        char *low = stacks + index * HRX_FIBER_STACK;
        uint64_t *sp = (uint64_t *)(low + HRX_FIBER_STACK) - 8;
        sp[0] = 0x1F80u | ((uint64_t)0x037Fu << 32);  /* MXCSR, x87 control word: the defaults */
        sp[1] = sp[2] = sp[3] = 0;                    /* r15, r14, r13 */
        sp[4] = (uint64_t)(uintptr_t)&hrx_fiber_body; /* r12 */
        sp[5] = (uint64_t)(uintptr_t)&fibers[index];  /* rbx */
        sp[6] = 0;                                    /* rbp */
        sp[7] = (uint64_t)(uintptr_t)&hrx_fiber_start;
        fibers[index] = (hrx_fiber){sp, kReady, x, y, z, 0, 0, 0, 0};
      }
  for (;;) {
    for (uint64_t i = 0; i < count; ++i)
      if (fibers[i].state == kReady) {
        hrx_wg.current = (uint32_t)i;
        hrx_fiber_switch(&hrx_wg.scheduler_sp, fibers[i].sp);
      }
    if (hrx_complete_warp_functions(fibers, count)) continue;
    int released = 0;
    for (uint64_t i = 0; i < count; ++i)
      if (fibers[i].state == kAtBarrier) {
        fibers[i].state = kReady;
        released = 1;
      }
    if (!released) break;
  }
}
