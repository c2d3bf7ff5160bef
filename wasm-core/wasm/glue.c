/*
 * glue.c — the only WebAssembly-specific code (tree-sitter's binding_web
 * pattern). A few wrappers that spare the JavaScript side out-parameters
 * or 64-bit arguments on its hottest paths; everything else is exported
 * straight from termite_core.h (see exports.txt).
 *
 * Invariant: no state lives here; each wrapper is one call into the core.
 */
#include "termite_core.h"

#define TM_WASM __attribute__((used, visibility("default")))

/*
 * Create a core from scalar arguments (tm_config holds a function pointer
 * and a 64-bit seed, awkward to build from JS). memory_limit is in bytes
 * (0: none; a double so limits above 2 GiB pass). Returns NULL on failure.
 */
TM_WASM tm_core *tm_wasm_core_new(double memory_limit, uint32_t seed_lo,
                                  uint32_t seed_hi, uint32_t max_depth,
                                  uint32_t max_item_bytes,
                                  uint32_t xfer_bytes) {
  tm_config cfg;
  tm_core *core = NULL;
  tm_config_init(&cfg);
  cfg.memory_limit = memory_limit > 0 ? (size_t)memory_limit : 0;
  cfg.hash_seed = (uint64_t)seed_hi << 32 | seed_lo;
  if (max_depth) cfg.max_depth = max_depth; /* above TM_MAX_DEPTH: NULL */
  if (max_item_bytes) cfg.max_item_bytes = max_item_bytes;
  if (xfer_bytes) cfg.xfer_bytes = xfer_bytes;
  return tm_core_create(&cfg, &core) == TM_OK ? core : NULL;
}

/* tm_sched_next: returns the pid (0 if none is ready or on error — then
 * tm_core_last_status tells which); the wake reason goes to xfer->reason. */
TM_WASM uint32_t tm_wasm_next(tm_core *core) {
  uint32_t pid = 0, reason = 0;
  tm_sched_next(core, &pid, &reason);
  tm_core_xfer(core)->reason = reason;
  return pid;
}

/* tm_proc_spawn: returns the pid, or 0 on error (see tm_core_last_status). */
TM_WASM uint32_t tm_wasm_spawn(tm_core *core, uint32_t priority,
                               double deadline) {
  uint32_t pid = 0;
  tm_proc_spawn(core, priority, deadline, &pid);
  return pid;
}

/* tm_mbox_take_first: the handle (0..TM_HANDLE_MAX), -1 if the mailbox is
 * empty, -2 on error (see tm_core_last_status / tm_core_errmsg). */
TM_WASM int32_t tm_wasm_take_first(tm_core *core, uint32_t pid) {
  uint32_t handle = 0;
  tm_status st = tm_mbox_take_first(core, pid, &handle);
  if (st == TM_OK) return (int32_t)handle;
  return st == TM_NOMATCH ? -1 : -2;
}

/*
 * The receive of `?` in one call: take the oldest message if there is one (its
 * handle), otherwise make the running process wait for any message until
 * timeout_at on `clock`: -1 when it now waits, -3 when none came and the timeout
 * has already passed, -2 on error (see tm_core_last_status).
 */
TM_WASM int32_t tm_wasm_receive_or_wait(tm_core *core, uint32_t pid,
                                        uint32_t clock, double timeout_at) {
  uint32_t handle = 0;
  tm_status st = tm_mbox_take_first(core, pid, &handle);
  if (st == TM_OK) return (int32_t)handle;
  if (st != TM_NOMATCH) return -2;
  st = tm_mbox_wait(core, pid, 0, clock, timeout_at);
  if (st == TM_BLOCKED) return -1;
  if (st == TM_NOMATCH) return -3;
  if (st == TM_OK) {
    /* a message arrived between the two calls cannot happen (one thread), but
     * report it faithfully: take it */
    st = tm_mbox_take_first(core, pid, &handle);
    return st == TM_OK ? (int32_t)handle : -2;
  }
  return -2;
}
