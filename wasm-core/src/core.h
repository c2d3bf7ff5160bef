/*
 * core.h — the tm_core structure, shared by every module (like Lua's
 * lstate.h), and the error and transfer-area helpers.
 */
#ifndef TM_CORE_H
#define TM_CORE_H

#include "cbor.h"
#include "sched.h"
#include "store.h"
#include "timer.h"

#define TM_ERRMSG_MAX 256
#define TM_AKEYS 32

/*
 * The parse memo: the last few small templates that passed the fast
 * validation (canonical arrays of at most TM_MEMO_ARITY fields and
 * TM_MEMO_BYTES bytes), with what validating and compiling them found. A
 * template byte-for-byte equal to an entry has the same validation and
 * compilation (both depend only on the bytes and the core's fixed
 * configuration), so a loop repeating a template pays a comparison instead
 * of a scan and a compile. Failures are never recorded: invalid bytes are
 * rejected by the full reader every time. tm_core_check re-validates every
 * entry.
 */
#define TM_MEMO_ENTRIES 4
#define TM_MEMO_BYTES 48
#define TM_MEMO_ARITY 6

typedef struct tm_memo {
  uint32_t len;     /* bytes; 0 = empty entry */
  uint32_t arity;   /* fields */
  uint32_t nformal; /* fields that are formals */
  uint16_t compiled;/* tf holds the compiled template */
  uint16_t keyed;   /* ... and the keys of its actuals */
  uint32_t off[TM_MEMO_ARITY + 1]; /* field offsets */
  tm_tfield tf[TM_MEMO_ARITY];     /* compiled fields */
  uint8_t b[TM_MEMO_BYTES];        /* the bytes */
} tm_memo;

struct tm_core {
  tm_config cfg;            /* copy of the creation config (alloc set) */
  size_t live;              /* bytes held, all blocks */
  size_t limit;             /* memory limit, 0 = none */
  tm_status last_status;    /* status of the last call */
  char errmsg[TM_ERRMSG_MAX]; /* message of the last failure */
  tm_xfer *xfer;            /* transfer area header (fixed address) */
  tm_buf canon;             /* canonicaliser output */
  tm_buf stack;             /* canonicaliser scratch (map pairs, bignums) */
  uint32_t *offs;           /* scratch: field offsets (arity + 1) */
  uint64_t *keys;           /* scratch: index keys (arity + 1) */
  tm_chain **chains;        /* scratch: chain of each key (arity + 1) */
  tm_tfield *tf;            /* scratch: compiled template fields */
  uint32_t scratch_cap;     /* entries in each scratch array (>= 24) */
  uint64_t akey[TM_AKEYS];  /* index keys of the arity chains, arity < 32 */
  tm_memo memo[TM_MEMO_ENTRIES]; /* parse memo (see above) */
  uint32_t memo_next;       /* entry the next miss replaces */
  uint32_t memo_last;       /* entry of the last hit (looked at first) */
  void *pool[TM_POOL_CLASSES]; /* freed small blocks by size class */
  uint32_t pool_n[TM_POOL_CLASSES]; /* blocks in each pool list */
  size_t pooled;            /* bytes held in the pools (part of live) */
  tm_store store;           /* spaces */
  tm_sched sched;           /* processes and run queues */
  tm_timers timers;         /* clocks and timers */
#ifdef TM_DEBUG
  uint64_t alloc_count;     /* allocation attempts so far */
  uint64_t fail_at;         /* attempt number that fails, 0 = none */
  uint64_t examined;        /* tuples examined by searches, waiters by outs */
#endif
};

/*
 * Caller bugs (a NULL core or out-pointer), never input: in TM_DEBUG builds
 * they stop the program with the failed condition; release builds trust
 * the caller. Peer-supplied bytes are never checked this way.
 */
#ifdef TM_DEBUG
TM_INTERNAL void tm_api_fail(const char *cond, const char *file, int line);
#define TM_API_CHECK(cond) \
  ((cond) ? (void)0 : tm_api_fail(#cond, __FILE__, __LINE__))
#else
#define TM_API_CHECK(cond) ((void)0)
#endif

/* Record a failure: status and formatted message; returns st. */
TM_INTERNAL tm_status tm_fail(tm_core *c, tm_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The standard out-of-memory failure ("out of memory while <what>"). */
TM_INTERNAL tm_status tm_nomem(tm_core *c, const char *what);
/* Record a call's outcome as the last status (errors via tm_fail). */
static inline tm_status tm_done(tm_core *c, tm_status st) {
  c->last_status = st;
  return st;
}

/* Copy n bytes into the transfer area (growing it) and describe them in
 * *out. b may point into the area itself. */
TM_INTERNAL tm_status tm_xfer_put(tm_core *c, const uint8_t *b, size_t n,
                                  tm_bytes *out);
/* Whether the area can hold n bytes, growing it if needed. */
TM_INTERNAL tm_status tm_xfer_room(tm_core *c, size_t n);
/* Make the scratch arrays hold n entries. */
TM_INTERNAL tm_status tm_scratch_reserve(tm_core *c, uint32_t n);

TM_INTERNAL void *tm_default_alloc(void *ud, void *ptr, size_t old_n,
                                   size_t n);

/*
 * The pool fast paths of tm_mem_alloc and tm_mem_free, inline for the hot
 * small blocks (tuples, chains): a block of a class whose pool is not
 * empty (not full) goes without a call; everything else, and every
 * allocation of a TM_DEBUG build (which counts attempts for failure
 * injection), takes the full path. Same accounting either way.
 */
static inline void *tm_mem_alloc_small(tm_core *c, size_t *acct, size_t n) {
#ifndef TM_DEBUG
  size_t r = (n + TM_POOL_GRAIN - 1) & ~(size_t)(TM_POOL_GRAIN - 1);
  if (n > 0 && r <= TM_POOL_GRAIN * TM_POOL_CLASSES) {
    size_t k = r / TM_POOL_GRAIN - 1;
    void *p = c->pool[k];
    if (p != NULL) {
      memcpy(&c->pool[k], p, sizeof(void *));
      c->pool_n[k]--;
      c->pooled -= r;
      *acct += r;
      return p;
    }
  }
#endif
  return tm_mem_alloc(c, acct, n);
}

static inline void tm_mem_free_small(tm_core *c, size_t *acct, void *p,
                                     size_t n) {
  size_t r = (n + TM_POOL_GRAIN - 1) & ~(size_t)(TM_POOL_GRAIN - 1);
  if (n > 0 && r <= TM_POOL_GRAIN * TM_POOL_CLASSES) {
    size_t k = r / TM_POOL_GRAIN - 1;
    if (c->pool_n[k] < TM_POOL_DEPTH) {
      *acct -= r;
      memcpy(p, &c->pool[k], sizeof(void *));
      c->pool[k] = p;
      c->pool_n[k]++;
      c->pooled += r;
      return;
    }
  }
  tm_mem_free(c, acct, p, n);
}

/* memcpy for the short runs of the hot paths (field offsets, small
 * tuples): word moves, no call. */
static inline void tm_copy(void *dst, const void *src, size_t n) {
  uint8_t *d = dst;
  const uint8_t *s = src;
  uint64_t a, b;
  uint32_t x, y;
  if (n > 16) {
    memcpy(d, s, n);
  } else if (n >= 8) {
    memcpy(&a, s, 8);
    memcpy(&b, s + n - 8, 8);
    memcpy(d, &a, 8);
    memcpy(d + n - 8, &b, 8);
  } else if (n >= 4) {
    memcpy(&x, s, 4);
    memcpy(&y, s + n - 4, 4);
    memcpy(d, &x, 4);
    memcpy(d + n - 4, &y, 4);
  } else if (n > 0) {
    uint8_t f = s[0], m = s[n >> 1], l = s[n - 1];
    d[0] = f;
    d[n >> 1] = m;
    d[n - 1] = l;
  }
}

/* The index key of the arity chain for `arity`. */
static inline uint64_t tm_arity_key(const tm_core *c, uint32_t arity) {
  return arity < TM_AKEYS ? c->akey[arity]
                          : tm_index_key(c->cfg.hash_seed, arity, 0, NULL, 0);
}

/* Hash-mixing helpers shared by index keys and digests. */
static inline uint64_t tm_mix64(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

#endif
