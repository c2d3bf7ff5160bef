/*
 * alloc.h — every allocation of the core goes through these three calls.
 *
 * `acct` is the counter of the object the bytes are held for (a space, a
 * process) or NULL for core-wide structures. Frees pass the exact size, so
 * the core-wide total (tm_core.live) and every counter are exact.
 */
#ifndef TM_ALLOC_H
#define TM_ALLOC_H

#include "termite_core.h"

#define TM_INTERNAL __attribute__((visibility("hidden")))
/* Error paths stay out of line (their message buffers would enlarge the
 * frames of the hot and recursive callers). */
#define TM_COLD __attribute__((noinline, cold))
/* Out of line, not cold: general paths kept apart from a fast path, so the
 * fast path's function stays small (in wasm, a big function's locals cost
 * the small path too). */
#define TM_NOINLINE __attribute__((noinline))

/* Small blocks are rounded up to 16-byte classes and recycled through
 * per-class free lists, so steady-state churn (tuples, chains) does not
 * reach the allocator hook. */
#define TM_POOL_GRAIN 16
#define TM_POOL_CLASSES 16 /* 16, 32, ..., 256 bytes */
#define TM_POOL_DEPTH 64   /* most blocks kept per class */

/* A growable byte buffer owned by the core (scratch space). */
typedef struct tm_buf {
  uint8_t *p;  /* storage, NULL while cap is 0 */
  size_t len;  /* bytes in use */
  size_t cap;  /* bytes allocated */
} tm_buf;

/* NULL on failure (limit reached or hook failed); nothing changes then. */
TM_INTERNAL void *tm_mem_alloc(tm_core *c, size_t *acct, size_t n);
TM_INTERNAL void *tm_mem_realloc(tm_core *c, size_t *acct, void *p,
                                 size_t old_n, size_t n);
TM_INTERNAL void tm_mem_free(tm_core *c, size_t *acct, void *p, size_t n);
/* The size a block of n bytes really occupies (and is accounted as). */
TM_INTERNAL size_t tm_mem_size(size_t n);
/* Return every pooled block to the hook. */
TM_INTERNAL void tm_mem_flush(tm_core *c);

/* Make b->cap >= n (doubling). TM_E_NOMEM leaves b unchanged. */
TM_INTERNAL tm_status tm_buf_reserve(tm_core *c, tm_buf *b, size_t n);
TM_INTERNAL void tm_buf_free(tm_core *c, tm_buf *b);

/* Grow an array of `elem`-byte items to hold at least `need` (doubling from
 * `min`). *arr and *cap change only on success. */
TM_INTERNAL tm_status tm_mem_grow(tm_core *c, size_t *acct, void **arr,
                                  uint32_t *cap, uint32_t need, size_t elem,
                                  uint32_t min);

#endif
