/*
 * core.c — core lifetime, errors, the transfer area, scratch arrays and the
 * whole-core consistency check.
 *
 * Invariants:
 *  - c->xfer is allocated once and never moves; c->xfer->data moves only in
 *    tm_xfer_room/tm_core_xfer_reserve, and xfer->cap is its exact size.
 *  - errmsg is a fixed buffer: recording a failure never allocates (so the
 *    out-of-memory path allocates nothing).
 *  - The scratch arrays (offs, keys, chains, tf) each hold scratch_cap
 *    entries; they carry no state between calls.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

#define TM_DEFAULT_DEPTH 64
#define TM_DEFAULT_ITEM (16u << 20)
#define TM_DEFAULT_XFER (64u << 10)

/* Bytes of one scratch entry across the four arrays. */
#define TM_SCRATCH_ENTRY \
  (sizeof(tm_tfield) + sizeof(uint64_t) + sizeof(tm_chain *) + sizeof(uint32_t))

const char *tm_status_name(tm_status st) {
  switch (st) {
    case TM_OK: return "TM_OK";
    case TM_NOMATCH: return "TM_NOMATCH";
    case TM_BLOCKED: return "TM_BLOCKED";
    case TM_E_MALFORMED: return "TM_E_MALFORMED";
    case TM_E_LIMIT: return "TM_E_LIMIT";
    case TM_E_TEMPLATE: return "TM_E_TEMPLATE";
    case TM_E_UNKNOWN_FORMAL: return "TM_E_UNKNOWN_FORMAL";
    case TM_E_NO_SPACE: return "TM_E_NO_SPACE";
    case TM_E_NO_PROCESS: return "TM_E_NO_PROCESS";
    case TM_E_TRANSITION: return "TM_E_TRANSITION";
    case TM_E_NOMEM: return "TM_E_NOMEM";
    case TM_E_NO_TIMER: return "TM_E_NO_TIMER";
    case TM_E_ARG: return "TM_E_ARG";
    case TM_E_CORRUPT: return "TM_E_CORRUPT";
    default: return "TM_E_UNKNOWN";
  }
}

tm_status tm_fail(tm_core *c, tm_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->errmsg, sizeof c->errmsg, fmt, ap);
  va_end(ap);
  c->last_status = st;
  return st;
}

#ifdef TM_DEBUG
void tm_api_fail(const char *cond, const char *file, int line) {
  fprintf(stderr, "termite core: API misuse at %s:%d: %s\n", file, line, cond);
  abort();
}
#endif

tm_status tm_nomem(tm_core *c, const char *what) {
  return tm_fail(c, TM_E_NOMEM,
                 "out of memory while %s (%zu bytes live, limit %zu)", what,
                 c->live, c->limit);
}

void tm_config_init(tm_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->hash_seed = 0x9e3779b97f4a7c15ull;
  cfg->max_depth = TM_DEFAULT_DEPTH;
  cfg->max_item_bytes = TM_DEFAULT_ITEM;
  cfg->xfer_bytes = TM_DEFAULT_XFER;
}

/* Allocate the transfer area header and its data region. */
static tm_status xfer_create(tm_core *c) {
  tm_xfer *x = tm_mem_alloc(c, NULL, sizeof *x);
  if (x == NULL) return TM_E_NOMEM;
  memset(x, 0, sizeof *x);
  x->magic = TM_XFER_MAGIC;
  x->data = tm_mem_alloc(c, NULL, c->cfg.xfer_bytes);
  if (x->data == NULL) {
    tm_mem_free(c, NULL, x, sizeof *x);
    return TM_E_NOMEM;
  }
  x->cap = c->cfg.xfer_bytes;
  c->xfer = x;
  return TM_OK;
}

tm_status tm_core_create(const tm_config *cfg, tm_core **out) {
  tm_core boot, *c;
  uint32_t i;
  if (cfg == NULL || out == NULL || cfg->max_depth == 0 ||
      cfg->max_depth > TM_MAX_DEPTH)
    return TM_E_ARG;
  memset(&boot, 0, sizeof boot);
  boot.cfg = *cfg;
  if (boot.cfg.alloc == NULL) boot.cfg.alloc = tm_default_alloc;
  if (boot.cfg.xfer_bytes < 64) boot.cfg.xfer_bytes = 64;
  if (boot.cfg.max_item_bytes == 0) boot.cfg.max_item_bytes = TM_DEFAULT_ITEM;
  boot.limit = cfg->memory_limit;
  /* The core block itself is counted, so allocate it through boot. */
  c = tm_mem_alloc(&boot, NULL, sizeof *c);
  if (c == NULL) return TM_E_NOMEM;
  *c = boot;
  c->store.free_head = TM_NONE;
  c->sched.free_head = c->sched.free_tail = c->sched.running = TM_NONE;
  c->timers.free_head = c->timers.free_tail = TM_NONE;
  for (i = 0; i < TM_PRIORITIES; i++)
    c->sched.q[i].fhead = c->sched.q[i].ftail = TM_NONE;
  for (i = 0; i < TM_AKEYS; i++)
    c->akey[i] = tm_index_key(c->cfg.hash_seed, i, 0, NULL, 0);
  if (xfer_create(c) != TM_OK || tm_scratch_reserve(c, 24) != TM_OK) {
    if (c->xfer != NULL) {
      tm_mem_free(c, NULL, c->xfer->data, c->xfer->cap);
      tm_mem_free(c, NULL, c->xfer, sizeof *c->xfer);
    }
    tm_mem_flush(c);
    boot = *c; /* free the block through a copy that outlives it */
    tm_mem_free(&boot, NULL, c, sizeof *c);
    return TM_E_NOMEM;
  }
  *out = c;
  return TM_OK;
}

void tm_core_destroy(tm_core *c) {
  tm_core last;
  if (c == NULL) return;
  tm_store_free(c);
  tm_sched_free(c);
  tm_timer_free_all(c);
  tm_buf_free(c, &c->canon);
  tm_buf_free(c, &c->stack);
  tm_mem_free(c, NULL, c->tf, (size_t)c->scratch_cap * TM_SCRATCH_ENTRY);
  tm_mem_free(c, NULL, c->xfer->data, c->xfer->cap);
  tm_mem_free(c, NULL, c->xfer, sizeof *c->xfer);
  tm_mem_flush(c);
  last = *c; /* free the core block through a copy that outlives it */
  tm_mem_free(&last, NULL, c, sizeof *c);
}

const char *tm_core_errmsg(const tm_core *c) { return c->errmsg; }
tm_status tm_core_last_status(const tm_core *c) { return c->last_status; }
size_t tm_core_live_bytes(const tm_core *c) { return c->live; }
void tm_core_set_memory_limit(tm_core *c, size_t limit) { c->limit = limit; }
tm_xfer *tm_core_xfer(tm_core *c) { return c->xfer; }

tm_status tm_xfer_room(tm_core *c, size_t n) {
  tm_xfer *x = c->xfer;
  size_t cap = x->cap;
  uint8_t *p;
  if (n <= cap) return TM_OK;
  if (n > (size_t)c->cfg.max_item_bytes + 64)
    return tm_fail(c, TM_E_LIMIT,
                   "transfer area of %zu bytes requested, the limit is %u", n,
                   c->cfg.max_item_bytes + 64);
  while (cap < n) cap *= 2;
  p = tm_mem_realloc(c, NULL, x->data, x->cap, cap);
  if (p == NULL) return tm_nomem(c, "growing the transfer area");
  x->data = p;
  x->cap = (uint32_t)cap;
  return TM_OK;
}

tm_status tm_core_xfer_reserve(tm_core *c, size_t n) {
  return tm_done(c, tm_xfer_room(c, n));
}

tm_status tm_xfer_put(tm_core *c, const uint8_t *b, size_t n, tm_bytes *out) {
  tm_xfer *x = c->xfer;
  uintptr_t pb = (uintptr_t)b, px = (uintptr_t)x->data;
  int inside = n > 0 && pb >= px && pb < px + x->cap;
  size_t at = inside ? (size_t)(pb - px) : 0;
  tm_status st;
  out->bytes = NULL;
  out->len = 0;
  if (n == 0) return TM_OK;
  if ((st = tm_xfer_room(c, n)) != TM_OK) return st;
  if (inside) b = x->data + at; /* the area may have moved */
  if (b != x->data) memmove(x->data, b, n);
  out->bytes = x->data;
  out->len = n;
  return TM_OK;
}

uint32_t tm_xfer_layout(uint32_t field) {
  switch (field) {
    case TM_XFER_OFF_MAGIC: return offsetof(tm_xfer, magic);
    case TM_XFER_OFF_CAP: return offsetof(tm_xfer, cap);
    case TM_XFER_OFF_DATA: return offsetof(tm_xfer, data);
    case TM_XFER_OFF_RESULT_BYTES: return offsetof(tm_xfer, result.bytes);
    case TM_XFER_OFF_RESULT_LEN: return offsetof(tm_xfer, result.len);
    case TM_XFER_OFF_U32: return offsetof(tm_xfer, u32);
    case TM_XFER_OFF_F64: return offsetof(tm_xfer, f64);
    case TM_XFER_OFF_REASON: return offsetof(tm_xfer, reason);
    case TM_XFER_OFF_KEEP: return offsetof(tm_xfer, keep);
    case TM_XFER_SIZE: return sizeof(tm_xfer);
    default: return ~0u;
  }
}

/* The four scratch arrays share one block (one allocation, so growing is
 * all-or-nothing); their contents do not survive a call. */
tm_status tm_scratch_reserve(tm_core *c, uint32_t n) {
  uint32_t cap = c->scratch_cap ? c->scratch_cap : 16;
  uint8_t *p;
  if (n <= c->scratch_cap) return TM_OK;
  while (cap < n) cap *= 2;
  p = tm_mem_alloc(c, NULL, (size_t)cap * TM_SCRATCH_ENTRY);
  if (p == NULL) return tm_nomem(c, "growing scratch space");
  tm_mem_free(c, NULL, c->tf, (size_t)c->scratch_cap * TM_SCRATCH_ENTRY);
  c->tf = (tm_tfield *)p; /* most aligned first */
  c->keys = (uint64_t *)(p + (size_t)cap * sizeof(tm_tfield));
  c->chains = (tm_chain **)(c->keys + cap);
  c->offs = (uint32_t *)(c->chains + cap);
  c->scratch_cap = cap;
  return TM_OK;
}

/* Sum of bytes charged to spaces and processes must not exceed the total. */
static tm_status check_accounting(tm_core *c) {
  size_t sum = 0;
  uint32_t i;
  for (i = 0; i < c->store.hwm; i++)
    if (c->store.spaces[i].live) sum += c->store.spaces[i].bytes;
  for (i = 0; i < c->sched.hwm; i++)
    if (c->sched.procs[i].state != 0) sum += c->sched.procs[i].live;
  if (sum > c->live)
    return tm_fail(c, TM_E_CORRUPT,
                   "accounting: %zu bytes charged to spaces and processes, "
                   "only %zu live", sum, c->live);
  for (i = 0; i < TM_POOL_CLASSES; i++) {
    size_t n = 0, guard = 0;
    const void *b;
    for (b = c->pool[i]; b != NULL && guard <= TM_POOL_DEPTH; guard++) {
      n++;
      memcpy(&b, b, sizeof b);
    }
    if (n != c->pool_n[i] || n > TM_POOL_DEPTH)
      return tm_fail(c, TM_E_CORRUPT, "pool %u holds %zu blocks, %u recorded",
                     i, n, c->pool_n[i]);
    sum += n * (i + 1) * TM_POOL_GRAIN;
  }
  if (sum > c->live)
    return tm_fail(c, TM_E_CORRUPT, "accounting: pools exceed live bytes");
  if (c->xfer->magic != TM_XFER_MAGIC || c->xfer->cap == 0)
    return tm_fail(c, TM_E_CORRUPT, "transfer area header damaged");
  return TM_OK;
}

tm_status tm_core_check(tm_core *c) {
  tm_status st;
  uint32_t i;
  for (i = 0; i < c->store.hwm; i++) {
    tm_space *s = &c->store.spaces[i];
    if (!s->live) continue;
    st = tm_space_check(c, tm_id_make(i, s->gen));
    if (st != TM_OK) return st;
  }
  if ((st = tm_store_check_memo(c)) != TM_OK) return st;
  if ((st = tm_sched_check(c)) != TM_OK) return st;
  if ((st = tm_timer_check(c)) != TM_OK) return st;
  for (i = 0; i < c->sched.hwm; i++) {
    tm_proc *p = &c->sched.procs[i];
    if (p->state == 0) continue;
    st = tm_mbox_check(c, tm_id_make(i, p->gen));
    if (st != TM_OK) return st;
  }
  return tm_done(c, check_accounting(c));
}
