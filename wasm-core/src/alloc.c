/*
 * alloc.c — the core's single allocation path.
 *
 * Invariants:
 *  - c->live is the sum of the sizes of all blocks the core holds; every
 *    per-object counter (acct) is the sum of the blocks charged to it.
 *  - An allocation that would take c->live above c->limit (when nonzero)
 *    fails before calling the hook.
 *  - In TM_DEBUG builds the n-th allocation attempt can be made to fail
 *    (tm_debug_fail_alloc), so tests reach every failure path.
 *  - A failed call changes nothing: no counter moves, no block moves.
 *  - Blocks of up to 256 bytes are rounded up to 16-byte classes; freed
 *    ones wait on per-class lists (at most TM_POOL_DEPTH each) for reuse.
 *    Pooled bytes are still live (c->pooled of c->live) but charged to no
 *    object; they go back to the hook on tm_mem_flush, on core
 *    destruction, and when the memory limit would otherwise refuse a block.
 */
#include <stdlib.h>
#include <string.h>

#include "core.h"

/* Whether this attempt may proceed (limit and injected failures). */
static int may_allocate(tm_core *c, size_t grow) {
#ifdef TM_DEBUG
  c->alloc_count++;
  if (c->fail_at != 0 && c->alloc_count == c->fail_at) return 0;
#endif
  if (grow == 0) return 1;
  if (c->limit != 0 && (grow > c->limit || c->live > c->limit - grow))
    return 0;
  return 1;
}

/* Size class of a rounded small block, or -1 for large blocks. */
static int pool_class(size_t n) {
  return n <= TM_POOL_GRAIN * TM_POOL_CLASSES ? (int)(n / TM_POOL_GRAIN) - 1
                                              : -1;
}

/* Sizes the hook sees: small blocks rounded up to their class. */
static size_t rounded(size_t n) {
  if (n == 0) n = 1;
  if (n <= TM_POOL_GRAIN * TM_POOL_CLASSES)
    n = (n + TM_POOL_GRAIN - 1) & ~(size_t)(TM_POOL_GRAIN - 1);
  return n;
}

size_t tm_mem_size(size_t n) { return rounded(n); }

/* A block from the hook, flushing the pools once if the limit bites. */
static void *hook_alloc(tm_core *c, size_t n) {
  void *p = NULL;
  if (may_allocate(c, n)) p = c->cfg.alloc(c->cfg.alloc_ud, NULL, 0, n);
  if (p == NULL && c->pooled > 0 && c->limit != 0 &&
      c->live - c->pooled + n <= c->limit) {
    tm_mem_flush(c);
    if (may_allocate(c, n)) p = c->cfg.alloc(c->cfg.alloc_ud, NULL, 0, n);
  }
  if (p != NULL) c->live += n;
  return p;
}

void *tm_mem_alloc(tm_core *c, size_t *acct, size_t n) {
  int k;
  void *p;
  n = rounded(n);
  k = pool_class(n);
  if (k >= 0 && c->pool[k] != NULL) {
    if (!may_allocate(c, 0)) return NULL; /* counts for failure injection */
    p = c->pool[k];
    memcpy(&c->pool[k], p, sizeof(void *));
    c->pool_n[k]--;
    c->pooled -= n;
  } else if ((p = hook_alloc(c, n)) == NULL) {
    return NULL;
  }
  if (acct != NULL) *acct += n;
  return p;
}

void tm_mem_free(tm_core *c, size_t *acct, void *p, size_t n) {
  int k;
  if (p == NULL) return;
  n = rounded(n);
  k = pool_class(n);
  if (acct != NULL) *acct -= n;
  if (k >= 0 && c->pool_n[k] < TM_POOL_DEPTH) {
    memcpy(p, &c->pool[k], sizeof(void *));
    c->pool[k] = p;
    c->pool_n[k]++;
    c->pooled += n;
    return;
  }
  c->cfg.alloc(c->cfg.alloc_ud, p, n, 0);
  c->live -= n;
}

void *tm_mem_realloc(tm_core *c, size_t *acct, void *p, size_t old_n,
                     size_t n) {
  void *q;
  if (p == NULL) return tm_mem_alloc(c, acct, n);
  old_n = rounded(old_n);
  n = rounded(n);
  if (pool_class(old_n) >= 0 || pool_class(n) >= 0) { /* via the pools */
    if ((q = tm_mem_alloc(c, acct, n)) == NULL) return NULL;
    memcpy(q, p, old_n < n ? old_n : n);
    tm_mem_free(c, acct, p, old_n);
    return q;
  }
  if (!may_allocate(c, n > old_n ? n - old_n : 0)) return NULL;
  q = c->cfg.alloc(c->cfg.alloc_ud, p, old_n, n);
  if (q == NULL) return NULL;
  c->live = c->live - old_n + n;
  if (acct != NULL) *acct = *acct - old_n + n;
  return q;
}

void tm_mem_flush(tm_core *c) {
  int k;
  for (k = 0; k < TM_POOL_CLASSES; k++) {
    size_t n = (size_t)(k + 1) * TM_POOL_GRAIN;
    while (c->pool[k] != NULL) { /* bounded by pool_n[k] <= TM_POOL_DEPTH */
      void *p = c->pool[k];
      memcpy(&c->pool[k], p, sizeof(void *));
      c->cfg.alloc(c->cfg.alloc_ud, p, n, 0);
      c->live -= n;
      c->pooled -= n;
    }
    c->pool_n[k] = 0;
  }
}

tm_status tm_buf_reserve(tm_core *c, tm_buf *b, size_t n) {
  size_t cap = b->cap ? b->cap : 256;
  void *p;
  if (n <= b->cap) return TM_OK;
  while (cap < n) {
    if (cap > SIZE_MAX / 2) return TM_E_NOMEM;
    cap *= 2;
  }
  p = tm_mem_realloc(c, NULL, b->p, b->cap, cap);
  if (p == NULL) return TM_E_NOMEM;
  b->p = p;
  b->cap = cap;
  return TM_OK;
}

void tm_buf_free(tm_core *c, tm_buf *b) {
  tm_mem_free(c, NULL, b->p, b->cap);
  b->p = NULL;
  b->len = b->cap = 0;
}

tm_status tm_mem_grow(tm_core *c, size_t *acct, void **arr, uint32_t *cap,
                      uint32_t need, size_t elem, uint32_t min) {
  uint32_t ncap = *cap ? *cap : min;
  void *p;
  if (need <= *cap) return TM_OK;
  while (ncap < need) {
    if (ncap > UINT32_MAX / 2) return TM_E_LIMIT;
    ncap *= 2;
  }
  if ((size_t)ncap > SIZE_MAX / elem) return TM_E_LIMIT;
  p = tm_mem_realloc(c, acct, *arr, (size_t)*cap * elem, (size_t)ncap * elem);
  if (p == NULL) return TM_E_NOMEM;
  *arr = p;
  *cap = ncap;
  return TM_OK;
}

/* The default hook: libc. */
void *tm_default_alloc(void *ud, void *ptr, size_t old_n, size_t n) {
  (void)ud;
  (void)old_n;
  if (n == 0) {
    free(ptr);
    return NULL;
  }
  return realloc(ptr, n);
}

#ifdef TM_DEBUG
void tm_debug_fail_alloc(tm_core *c, uint64_t n) {
  c->fail_at = n == 0 ? 0 : c->alloc_count + n;
}

uint64_t tm_debug_alloc_count(const tm_core *c) { return c->alloc_count; }
uint64_t tm_debug_examined(const tm_core *c) { return c->examined; }
#endif
