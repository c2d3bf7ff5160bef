/*
 * store.h — tuple spaces: stored tuples, waiting templates, deliveries.
 *
 * The store is split by mechanism (store_internal.h lists the pieces);
 * this header holds the records they share with the rest of the core.
 *
 * Invariants (checked by tm_space_check):
 *  - Every stored tuple is canonical CBOR, an array of `arity` fields, and
 *    is linked by ent[0] into its arity chain (key of (arity, 0)). If that
 *    chain is `indexed`, ent[i] is also linked into the chain of
 *    (arity, i, bytes of field i-1) — a field that is a formal (S/Net) into
 *    the chain of (arity, i, the formal mark), one chain for every formal of
 *    that field — for every tuple of that arity; if not, ent[i].chain is
 *    NULL for i >= 1. A group of more than TM_INDEX_MIN
 *    tuples is always indexed (the out that grows it past the threshold
 *    links the whole group); a group stops being indexed only when it is
 *    empty. Chains are in arrival order, so walking any chain oldest-first
 *    and taking the first match yields the oldest matching tuple.
 *  - ntuples counts tuples; nwaiters counts waiters; every waiter is in
 *    exactly one chain's waiter list (its first actual field's key, or the
 *    arity key if it has none), and its owner process is waiting-tuple
 *    with proc->waiter pointing back to it — or it is a waiter record
 *    (record != 0), with no owner.
 *  - `bytes` is the sum of the tuples, chains, waiter records and the
 *    chain table of the space; waiters of processes and deliveries are
 *    charged to their processes.
 *  - An operation does all its allocation before it changes anything
 *    ("prepare, then commit"), so a failure leaves contents unchanged;
 *    growing the chain table is the last fallible step of an out.
 */
#ifndef TM_STORE_H
#define TM_STORE_H

#include "index.h"
#include "match.h"

/*
 * A stored tuple: one allocation holding the header, arity+1 index
 * entries, arity+1 field offsets and the canonical bytes.
 */
typedef struct tm_tuple {
  uint32_t len;   /* canonical bytes */
  uint32_t arity; /* fields */
  uint32_t seq;   /* arrival order in its space (wraps; compared by
                     difference, tuple_older) */
  tm_entry ent[]; /* ent[0]: arity chain; ent[i]: field i-1 */
} tm_tuple;

#define TM_TUPLE_OFF(t) ((uint32_t *)((t)->ent + (t)->arity + 1))
#define TM_TUPLE_BYTES(t) ((uint8_t *)(TM_TUPLE_OFF(t) + (t)->arity + 1))

enum { TM_WAIT_IN = 1, TM_WAIT_RD = 2 };

/* Counters of waiters by (arity, first actual field), hashed: a power of 2. */
#define TM_WFIRST 64

/*
 * A waiting template (an in/rd that found nothing), owned by the process
 * it blocks, or a waiter record (record != 0, owner TM_NONE): an in/rd
 * with no process, named by its caller and charged to its space
 * (store_record.c). One allocation: header, arity compiled fields, the
 * bytes.
 */
typedef struct tm_waiter {
  tm_wlink link;            /* in chain->w list; must stay first */
  struct tm_chain *chain;   /* the chain it is registered under */
  struct tm_waiter *mnext;  /* scratch list of matches during an out */
  uint64_t seq;             /* arrival order within the space */
  size_t size;              /* bytes of this allocation */
  uint32_t space;           /* id of its space */
  uint32_t owner;           /* process table index of the waiting process */
  uint32_t arity;           /* fields */
  uint32_t len;             /* template bytes */
  uint16_t kind;            /* TM_WAIT_IN or TM_WAIT_RD */
  uint16_t listed;          /* 1 while on the match list of an out */
  uint32_t record;          /* a waiter record's name, 0 for a process */
  uint32_t first;           /* its first actual field (0-based), or arity
                               if it has none */
  uint32_t prio;            /* a record's priority (0 first) */
  double deadline;          /* a record's deadline (INFINITY if none) */
  tm_tfield f[];            /* arity fields, then the template bytes */
} tm_waiter;

#define TM_WAITER_BYTES(w) ((uint8_t *)((w)->f + (w)->arity))

/* A tuple delivered to a woken process, held until it is collected. */
typedef struct tm_blob {
  size_t len;       /* bytes */
  uint8_t bytes[];  /* canonical tuple */
} tm_blob;

typedef struct tm_space {
  uint32_t gen;      /* generation of the id; 0 = slot never used */
  uint32_t live;     /* 1 while the space exists */
  uint32_t next_free;/* free-list link (slot index) while not live */
  uint32_t ntuples;  /* stored tuples */
  uint32_t nwaiters; /* registered waiters */
  uint64_t wseq;     /* next waiter sequence number */
  uint32_t tseq;     /* next tuple sequence number */
  uint32_t wfirst[TM_WFIRST]; /* waiters by (arity, first actual field),
                                 hashed (wfirst_slot): how many may wait
                                 there (store_wait.c) */
  size_t bytes;      /* live bytes charged to this space */
  tm_index ix;       /* chains of tuples and waiters */
} tm_space;

typedef struct tm_store {
  tm_space *spaces;  /* slot table, grows by doubling */
  uint32_t cap;      /* slots allocated */
  uint32_t hwm;      /* slots ever used */
  uint32_t free_head;/* free slot list (index), TM_NONE if empty */
  uint32_t *rwoken;  /* records the last out served (store_record.c) */
  uint32_t nrwoken;  /* how many */
  uint32_t rwoken_cap; /* entries allocated */
} tm_store;

/* Remove a waiter record and free it (served, cancelled, its space
 * destroyed). */
TM_INTERNAL void tm_store_drop_record(tm_core *c, tm_space *sp, tm_waiter *w);
/* Room for n served records in store.rwoken (an out's plan). */
TM_INTERNAL tm_status tm_store_reserve_woken(tm_core *c, uint32_t n);
/* Remove a waiter and free it (process timeout, interrupt, exit). */
TM_INTERNAL void tm_store_cancel_waiter(tm_core *c, tm_waiter *w);
/* Free a delivered tuple held by process index pi. */
TM_INTERNAL void tm_store_free_blob(tm_core *c, uint32_t pi, tm_blob *b);
/* Re-validate the parse memo (tm_core_check); TM_E_CORRUPT on a mismatch. */
TM_INTERNAL tm_status tm_store_check_memo(tm_core *c);
/* Free every space (core destruction). */
TM_INTERNAL void tm_store_free(tm_core *c);

#endif
