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

void *tm_mem_alloc(tm_core *c, size_t *acct, size_t n) {
  void *p;
  if (n == 0) n = 1;
  if (!may_allocate(c, n)) return NULL;
  p = c->cfg.alloc(c->cfg.alloc_ud, NULL, 0, n);
  if (p == NULL) return NULL;
  c->live += n;
  if (acct != NULL) *acct += n;
  return p;
}

void *tm_mem_realloc(tm_core *c, size_t *acct, void *p, size_t old_n,
                     size_t n) {
  void *q;
  if (p == NULL) return tm_mem_alloc(c, acct, n);
  if (n == 0) n = 1;
  if (!may_allocate(c, n > old_n ? n - old_n : 0)) return NULL;
  q = c->cfg.alloc(c->cfg.alloc_ud, p, old_n, n);
  if (q == NULL) return NULL;
  c->live = c->live - old_n + n;
  if (acct != NULL) *acct = *acct - old_n + n;
  return q;
}

void tm_mem_free(tm_core *c, size_t *acct, void *p, size_t n) {
  if (p == NULL) return;
  if (n == 0) n = 1;
  c->cfg.alloc(c->cfg.alloc_ud, p, n, 0);
  c->live -= n;
  if (acct != NULL) *acct -= n;
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
