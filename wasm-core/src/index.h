/*
 * index.h — per-field hash chains (the S/Net kernel's "hash each field,
 * search the shortest chain").
 *
 * A key hashes (arity, slot, canonical field bytes); slot 0 is the arity
 * chain (no bytes: every tuple of that arity), slot i >= 1 is field i-1.
 * Each key has one chain: the stored tuples with that key in arrival order
 * and the waiting templates registered under it, also in arrival order.
 * Chains live in an open-addressing table keyed by the 64-bit key.
 */
#ifndef TM_INDEX_H
#define TM_INDEX_H

#include "alloc.h"

struct tm_chain;

/* One index entry; a tuple embeds one per slot. */
typedef struct tm_entry {
  struct tm_entry *prev, *next; /* neighbours in the chain, oldest first */
  struct tm_chain *chain;       /* the chain holding this entry */
  uint32_t slot;                /* 0 = arity chain, i = field i-1 */
} tm_entry;

/* Link of a waiting template in a chain's waiter list. */
typedef struct tm_wlink {
  struct tm_wlink *prev, *next; /* arrival order */
} tm_wlink;

typedef struct tm_chain {
  uint64_t key;                   /* the key every member shares */
  tm_entry *head, *tail;          /* tuples, oldest first */
  tm_wlink *whead, *wtail;        /* waiters registered here, oldest first */
  struct tm_chain *eprev, *enext; /* empty-chain LRU, while empty */
  uint32_t count;                 /* entries in the tuple list */
  uint32_t nwait;                 /* waiters in the waiter list */
  uint32_t indexed;               /* arity chains: 1 while the tuples of
                                     that arity are also linked into their
                                     field chains (store_out.c) */
  uint32_t nformal;               /* arity chains: stored tuples holding a
                                     formal (S/Net); while > 0 a search of
                                     the group walks this chain with the
                                     symmetric match (store_find.c) */
} tm_chain;

/* Arity chains of arities below this are also remembered by arity. */
#define TM_INDEX_SMALL 8

typedef struct tm_index {
  tm_chain **slots;       /* cap slots, NULL = free; linear probing */
  uint32_t cap;           /* 0 or a power of two */
  uint32_t used;          /* chains in the table (incl. empty ones) */
  tm_chain *ehead, *etail; /* empty chains, least recently emptied first */
  uint32_t nempty;        /* chains on the empty list */
  tm_chain *small[TM_INDEX_SMALL]; /* small[a]: NULL or the chain in the
                                      table whose key is arity a's arity
                                      key (arity_chain in store_internal.h
                                      fills it; a chain leaving the table
                                      leaves it) */
} tm_index;

/* Most empty chains kept for reuse (hot keys stay allocated). */
#define TM_INDEX_KEEP_EMPTY 256

/* An arity group's tuples are linked into their field chains once the
 * group holds more than this many (below it, walking the arity chain costs
 * less than hashing and linking every field of every tuple). */
#define TM_INDEX_MIN 8

TM_INTERNAL uint64_t tm_index_key(uint64_t seed, uint32_t arity,
                                  uint32_t slot, const uint8_t *p, size_t n);
TM_INTERNAL tm_chain *tm_index_find(const tm_index *ix, uint64_t key);

/* Make room for `extra` more chains without exceeding the load factor. */
TM_INTERNAL tm_status tm_index_reserve(tm_core *c, size_t *acct,
                                       tm_index *ix, uint32_t extra);
/* A new empty chain (not yet in the table). NULL on allocation failure. */
TM_INTERNAL tm_chain *tm_index_new_chain(tm_core *c, size_t *acct,
                                         uint64_t key);
TM_INTERNAL void tm_index_free_chain(tm_core *c, size_t *acct, tm_chain *ch);
/* Insert a new chain (room reserved, key absent); it starts empty. */
TM_INTERNAL void tm_index_insert(tm_index *ix, tm_chain *ch);

/* Append an entry / waiter link; the chain leaves the empty list.
 * (tm_index_link and tm_index_unlink are inline, below.) */
TM_INTERNAL void tm_index_wlink(tm_index *ix, tm_chain *ch, tm_wlink *w);
/* Remove in O(1); a chain left empty joins the empty list. */
TM_INTERNAL void tm_index_wunlink(tm_index *ix, tm_chain *ch, tm_wlink *w);

/* Free empty chains beyond `keep`, oldest first. */
TM_INTERNAL void tm_index_trim_slow(tm_core *c, size_t *acct, tm_index *ix,
                                    uint32_t keep);
static inline void tm_index_trim(tm_core *c, size_t *acct, tm_index *ix,
                                 uint32_t keep) {
  if (ix->nempty > keep) tm_index_trim_slow(c, acct, ix, keep);
}
/* Free every chain and the table (entries belong to their tuples). */
TM_INTERNAL void tm_index_free(tm_core *c, size_t *acct, tm_index *ix);
/* Check table, chains and the empty list; message via tm_fail. */
TM_INTERNAL tm_status tm_index_check(tm_core *c, const tm_index *ix);

/* ---- inline list operations (the hot paths of out and in) ---- */

static inline int tm_chain_is_empty(const tm_chain *ch) {
  return ch->count == 0 && ch->nwait == 0;
}

static inline void tm_index_empty_push(tm_index *ix, tm_chain *ch) {
  ch->enext = NULL;
  ch->eprev = ix->etail;
  if (ix->etail) ix->etail->enext = ch;
  else ix->ehead = ch;
  ix->etail = ch;
  ix->nempty++;
}

static inline void tm_index_empty_remove(tm_index *ix, tm_chain *ch) {
  if (ch->eprev) ch->eprev->enext = ch->enext;
  else ix->ehead = ch->enext;
  if (ch->enext) ch->enext->eprev = ch->eprev;
  else ix->etail = ch->eprev;
  ch->eprev = ch->enext = NULL;
  ix->nempty--;
}

static inline void tm_index_link(tm_index *ix, tm_chain *ch, tm_entry *e) {
  if (tm_chain_is_empty(ch)) tm_index_empty_remove(ix, ch);
  e->chain = ch;
  e->next = NULL;
  e->prev = ch->tail;
  if (ch->tail) ch->tail->next = e;
  else ch->head = e;
  ch->tail = e;
  ch->count++;
}

static inline void tm_index_unlink(tm_index *ix, tm_entry *e) {
  tm_chain *ch = e->chain;
  if (e->prev) e->prev->next = e->next;
  else ch->head = e->next;
  if (e->next) e->next->prev = e->prev;
  else ch->tail = e->prev;
  e->prev = e->next = NULL;
  ch->count--;
  if (tm_chain_is_empty(ch)) tm_index_empty_push(ix, ch);
}

#endif
