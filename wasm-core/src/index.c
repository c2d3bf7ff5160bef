/*
 * index.c — the per-field hash chains of a space.
 *
 * Invariants:
 *  - Every chain in the table has a distinct key; the table has cap slots
 *    (a power of two), `used` of them occupied, and used * 4 <= cap * 3.
 *    Lookup is linear probing from key & (cap - 1); deletion shifts
 *    followers back, so there are no tombstones.
 *  - A chain's tuple list holds exactly `count` entries, all with
 *    entry->chain == chain, oldest first; its waiter list holds `nwait`.
 *  - A chain is on the empty list iff count == 0 and nwait == 0; the list
 *    is ordered by when the chain became empty. Empty chains stay in the
 *    table (at most TM_INDEX_KEEP_EMPTY after a trim), so a key that comes
 *    and goes (ping-pong) allocates nothing in steady state.
 */
#include <string.h>

#include "core.h"

#define K1 0x9e3779b97f4a7c15ull
#define K2 0xbf58476d1ce4e5b9ull

uint64_t tm_index_key(uint64_t seed, uint32_t arity, uint32_t slot,
                      const uint8_t *p, size_t n) {
  uint64_t h = seed ^ ((uint64_t)arity << 32 | slot) * K1;
  uint64_t w = 0;
  size_t i;
  if (n <= 8) { /* most fields: one multiply and one finaliser */
    for (i = 0; i < n; i++) w = w << 8 | p[i];
    return tm_mix64((h ^ w) * K2 + n);
  }
  h ^= (uint64_t)n * K2;
  while (n >= 8) {
    memcpy(&w, p, 8);
    h = (h ^ tm_mix64(w + K1)) * K2;
    h = h << 29 | h >> 35;
    p += 8;
    n -= 8;
  }
  w = 0;
  if (n > 0) memcpy(&w, p, n);
  return tm_mix64(h ^ tm_mix64(w ^ K2 ^ n));
}

tm_chain *tm_index_find(const tm_index *ix, uint64_t key) {
  uint32_t mask = ix->cap - 1, i, probes;
  if (ix->cap == 0) return NULL;
  i = (uint32_t)key & mask;
  for (probes = 0; probes < ix->cap; probes++) { /* ends at a free slot */
    tm_chain *ch = ix->slots[i];
    if (ch == NULL) return NULL;
    if (ch->key == key) return ch;
    i = (i + 1) & mask;
  }
  return NULL;
}

/* Place a chain whose key is absent (room guaranteed). */
static void place(tm_chain **slots, uint32_t cap, tm_chain *ch) {
  uint32_t mask = cap - 1, i = (uint32_t)ch->key & mask;
  while (slots[i] != NULL) i = (i + 1) & mask; /* a free slot exists */
  slots[i] = ch;
}

tm_status tm_index_reserve(tm_core *c, size_t *acct, tm_index *ix,
                           uint32_t extra) {
  uint64_t need = (uint64_t)ix->used + extra;
  uint32_t cap = ix->cap ? ix->cap : 16, i;
  tm_chain **slots;
  if (need * 4 <= (uint64_t)ix->cap * 3) return TM_OK;
  while (need * 4 > (uint64_t)cap * 3) {
    if (cap >= (1u << 30)) return tm_fail(c, TM_E_LIMIT, "index table full");
    cap *= 2;
  }
  slots = tm_mem_alloc(c, acct, (size_t)cap * sizeof *slots);
  if (slots == NULL) return tm_nomem(c, "growing an index table");
  memset(slots, 0, (size_t)cap * sizeof *slots);
  for (i = 0; i < ix->cap; i++)
    if (ix->slots[i] != NULL) place(slots, cap, ix->slots[i]);
  tm_mem_free(c, acct, ix->slots, (size_t)ix->cap * sizeof *slots);
  ix->slots = slots;
  ix->cap = cap;
  return TM_OK;
}

tm_chain *tm_index_new_chain(tm_core *c, size_t *acct, uint64_t key) {
  tm_chain *ch = tm_mem_alloc(c, acct, sizeof *ch);
  if (ch == NULL) return NULL;
  memset(ch, 0, sizeof *ch);
  ch->key = key;
  return ch;
}

void tm_index_free_chain(tm_core *c, size_t *acct, tm_chain *ch) {
  tm_mem_free(c, acct, ch, sizeof *ch);
}




void tm_index_insert(tm_index *ix, tm_chain *ch) {
  place(ix->slots, ix->cap, ch);
  ix->used++;
  tm_index_empty_push(ix, ch);
}


void tm_index_wlink(tm_index *ix, tm_chain *ch, tm_wlink *w) {
  if (tm_chain_is_empty(ch)) tm_index_empty_remove(ix, ch);
  w->next = NULL;
  w->prev = ch->wtail;
  if (ch->wtail) ch->wtail->next = w;
  else ch->whead = w;
  ch->wtail = w;
  ch->nwait++;
}


void tm_index_wunlink(tm_index *ix, tm_chain *ch, tm_wlink *w) {
  if (w->prev) w->prev->next = w->next;
  else ch->whead = w->next;
  if (w->next) w->next->prev = w->prev;
  else ch->wtail = w->prev;
  w->prev = w->next = NULL;
  ch->nwait--;
  if (tm_chain_is_empty(ch)) tm_index_empty_push(ix, ch);
}

/* Remove a chain from the table, shifting back the probe sequence. */
static void table_remove(tm_index *ix, tm_chain *ch) {
  uint32_t mask = ix->cap - 1, i = (uint32_t)ch->key & mask, j, k;
  while (ix->slots[i] != ch) i = (i + 1) & mask; /* ch is in the table */
  j = i;
  for (;;) { /* bounded: the table has a free slot */
    j = (j + 1) & mask;
    if (ix->slots[j] == NULL) break;
    k = (uint32_t)ix->slots[j]->key & mask;
    /* move slots[j] into the hole at i unless its home lies in (i, j] */
    if ((i <= j) ? (i < k && k <= j) : (i < k || k <= j)) continue;
    ix->slots[i] = ix->slots[j];
    i = j;
  }
  ix->slots[i] = NULL;
  ix->used--;
  for (k = 0; k < TM_INDEX_SMALL; k++)
    if (ix->small[k] == ch) ix->small[k] = NULL;
}

void tm_index_trim_slow(tm_core *c, size_t *acct, tm_index *ix,
                        uint32_t keep) {
  while (ix->nempty > keep) {
    tm_chain *ch = ix->ehead;
    tm_index_empty_remove(ix, ch);
    table_remove(ix, ch);
    tm_index_free_chain(c, acct, ch);
  }
}

void tm_index_free(tm_core *c, size_t *acct, tm_index *ix) {
  uint32_t i;
  for (i = 0; i < ix->cap; i++)
    if (ix->slots[i] != NULL) tm_index_free_chain(c, acct, ix->slots[i]);
  tm_mem_free(c, acct, ix->slots, (size_t)ix->cap * sizeof *ix->slots);
  memset(ix, 0, sizeof *ix);
}

/* One chain: list links, counts, members pointing back. */
static tm_status check_chain(tm_core *c, const tm_index *ix,
                             const tm_chain *ch) {
  const tm_entry *e, *prev = NULL;
  const tm_wlink *w, *wprev = NULL;
  uint32_t n = 0, nw = 0;
  if (tm_index_find(ix, ch->key) != ch)
    return tm_fail(c, TM_E_CORRUPT, "index: chain not reachable by its key");
  for (e = ch->head; e != NULL && n <= ch->count; e = e->next, n++) {
    if (e->chain != ch || e->prev != prev)
      return tm_fail(c, TM_E_CORRUPT, "index: broken link in a chain");
    prev = e;
  }
  if (n != ch->count || ch->tail != prev)
    return tm_fail(c, TM_E_CORRUPT, "index: chain count %u, found %u",
                   ch->count, n);
  for (w = ch->whead; w != NULL && nw <= ch->nwait; w = w->next, nw++) {
    if (w->prev != wprev)
      return tm_fail(c, TM_E_CORRUPT, "index: broken waiter link");
    wprev = w;
  }
  if (nw != ch->nwait || ch->wtail != wprev)
    return tm_fail(c, TM_E_CORRUPT, "index: waiter count %u, found %u",
                   ch->nwait, nw);
  return TM_OK;
}

tm_status tm_index_check(tm_core *c, const tm_index *ix) {
  uint32_t i, used = 0, nempty = 0;
  const tm_chain *ch;
  tm_status st;
  for (i = 0; i < ix->cap; i++) {
    if (ix->slots[i] == NULL) continue;
    used++;
    if ((st = check_chain(c, ix, ix->slots[i])) != TM_OK) return st;
  }
  if (used != ix->used || (uint64_t)used * 4 > (uint64_t)ix->cap * 3)
    return tm_fail(c, TM_E_CORRUPT, "index: %u chains counted, %u recorded",
                   used, ix->used);
  for (ch = ix->ehead; ch != NULL && nempty <= used; ch = ch->enext) {
    if (!tm_chain_is_empty(ch))
      return tm_fail(c, TM_E_CORRUPT, "index: non-empty chain on empty list");
    nempty++;
  }
  if (nempty != ix->nempty)
    return tm_fail(c, TM_E_CORRUPT, "index: %u empty chains listed, %u "
                   "recorded", nempty, ix->nempty);
  for (i = 0, nempty = 0; i < ix->cap; i++)
    if (ix->slots[i] != NULL && tm_chain_is_empty(ix->slots[i])) nempty++;
  if (nempty != ix->nempty)
    return tm_fail(c, TM_E_CORRUPT, "index: %u empty chains in the table, "
                   "%u listed", nempty, ix->nempty);
  for (i = 0; i < TM_INDEX_SMALL; i++)
    if (ix->small[i] != NULL && tm_index_find(ix, ix->small[i]->key) !=
                                    ix->small[i])
      return tm_fail(c, TM_E_CORRUPT, "index: remembered arity chain %u is "
                     "not in the table", i);
  return TM_OK;
}
