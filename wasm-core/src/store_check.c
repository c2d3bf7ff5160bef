/*
 * store_check.c — the consistency check of a space (tm_space_check, run
 * by the tests and by tm_core_check) and its digest.
 *
 * Invariants:
 *  - The check only reads: it re-derives every invariant of store.h from
 *    the chains and reports the first that does not hold as TM_E_CORRUPT.
 *  - Every walk is bounded by counts tm_index_check has verified, so a
 *    corrupt list cannot make it loop.
 *  - The digest depends on the contents (tuples in order, waiters) and not
 *    on which groups happen to be indexed.
 */
#include <string.h>

#include "store_internal.h"

/* A stored tuple: its entries point into the chains of the keys of its
 * bytes (only the arity chain while its group is not indexed), and a
 * group larger than TM_INDEX_MIN is indexed. */
static tm_status check_tuple(tm_core *c, const tm_tuple *t, size_t *bytes) {
  const uint32_t *off = TM_TUPLE_OFF(t);
  const uint8_t *b = TM_TUPLE_BYTES(t);
  const tm_chain *group = t->ent[0].chain;
  uint32_t i;
  if (off[t->arity] != t->len)
    return tm_fail(c, TM_E_CORRUPT, "store: tuple offsets do not cover it");
  if (group == NULL || (!group->indexed && group->count > TM_INDEX_MIN))
    return tm_fail(c, TM_E_CORRUPT, "store: a group of %u tuples is not "
                   "indexed", group != NULL ? group->count : 0);
  for (i = 0; i <= t->arity; i++) {
    uint64_t key = i == 0 ? tm_index_key(c->cfg.hash_seed, t->arity, 0, NULL, 0)
                          : field_key(c, t->arity, i, b + off[i - 1],
                                      off[i] - off[i - 1]);
    if (i > 0 && !group->indexed) {
      if (t->ent[i].slot != i || t->ent[i].chain != NULL)
        return tm_fail(c, TM_E_CORRUPT, "store: entry %u of a tuple of a "
                       "group that is not indexed is linked", i);
      continue;
    }
    if (t->ent[i].slot != i || t->ent[i].chain == NULL ||
        t->ent[i].chain->key != key)
      return tm_fail(c, TM_E_CORRUPT, "store: entry %u of a tuple is in the "
                     "wrong chain", i);
  }
  *bytes += tm_mem_size(tuple_size(t->arity, t->len));
  return TM_OK;
}

static tm_status check_waiter(tm_core *c, uint32_t id, const tm_waiter *w,
                              const tm_chain *ch, size_t *bytes) {
  const tm_proc *pr;
  if (w->record != 0) { /* a waiter record: no process, charged here */
    if (w->chain != ch || w->space != id || w->owner != TM_NONE ||
        w->prio >= TM_PRIORITIES)
      return tm_fail(c, TM_E_CORRUPT, "store: waiter record %u records a "
                     "wrong chain, space, owner or priority", w->record);
    *bytes += tm_mem_size(w->size);
    return TM_OK;
  }
  if (w->chain != ch || w->space != id || w->owner >= c->sched.hwm)
    return tm_fail(c, TM_E_CORRUPT, "store: waiter records a wrong chain, "
                   "space or owner");
  pr = &c->sched.procs[w->owner];
  if (pr->state != TM_PROC_WAIT_TUPLE || pr->waiter != w)
    return tm_fail(c, TM_E_CORRUPT, "store: waiter's process is not waiting "
                   "on it");
  return TM_OK;
}

/* Walk every chain: tuples via their arity entries, and waiters. */
static tm_status check_members(tm_core *c, uint32_t id, const tm_space *sp,
                               size_t *bytes, uint32_t *nt, uint32_t *nw) {
  uint32_t i;
  tm_status st;
  for (i = 0; i < sp->ix.cap; i++) {
    const tm_chain *ch = sp->ix.slots[i];
    const tm_entry *e;
    const tm_wlink *l;
    uint32_t n, nf = 0;
    if (ch == NULL) continue;
    *bytes += tm_mem_size(sizeof(tm_chain));
    /* counts were verified by tm_index_check; they bound the walks */
    for (e = ch->head, n = 0; e != NULL && n < ch->count; e = e->next, n++) {
      if (e->slot != 0) continue;
      (*nt)++;
      if ((st = check_tuple(c, TUPLE_OF(e), bytes)) != TM_OK) return st;
      nf += (uint32_t)tm_tuple_has_formal(TUPLE_OF(e));
    }
    if (nf != ch->nformal)
      return tm_fail(c, TM_E_CORRUPT, "store: a chain holds %u tuples with "
                     "formals but counts %u", nf, ch->nformal);
    for (l = ch->whead, n = 0; l != NULL && n < ch->nwait; l = l->next, n++, (*nw)++)
      if ((st = check_waiter(c, id, (const tm_waiter *)l, ch, bytes)) != TM_OK)
        return st;
  }
  return TM_OK;
}

/* wfirst holds, per counter, the waiters with an actual field hashed to it. */
static tm_status check_wfirst(tm_core *c, const tm_space *sp) {
  uint32_t want[TM_WFIRST] = {0}, i, k;
  for (i = 0; i < sp->ix.cap; i++) {
    const tm_chain *ch = sp->ix.slots[i];
    const tm_wlink *l;
    if (ch == NULL) continue;
    for (l = ch->whead, k = 0; l != NULL && k < ch->nwait; l = l->next, k++) {
      const tm_waiter *w = (const tm_waiter *)l;
      if (w->first < w->arity) want[wfirst_slot(w->arity, w->first)]++;
    }
  }
  for (i = 0; i < TM_WFIRST; i++)
    if (want[i] != sp->wfirst[i])
      return tm_fail(c, TM_E_CORRUPT, "store: waiter counter %u holds %u, "
                     "%u waiters hash to it", i, sp->wfirst[i], want[i]);
  return TM_OK;
}

static tm_status space_check(tm_core *c, uint32_t id) {
  tm_status st = TM_OK;
  tm_space *sp = space_get(c, id, &st);
  size_t bytes = 0;
  uint32_t nt = 0, nw = 0;
  if (sp == NULL) return st;
  if ((st = tm_index_check(c, &sp->ix)) != TM_OK) return st;
  for (nt = 0; nt < TM_INDEX_SMALL; nt++) /* remembered arity chains */
    if (sp->ix.small[nt] != NULL && sp->ix.small[nt]->key != c->akey[nt])
      return tm_fail(c, TM_E_CORRUPT, "store: the chain remembered for "
                     "arity %u is not its arity chain", nt);
  nt = 0;
  bytes = sp->ix.cap ? tm_mem_size((size_t)sp->ix.cap * sizeof(tm_chain *)) : 0;
  if ((st = check_members(c, id, sp, &bytes, &nt, &nw)) != TM_OK) return st;
  if ((st = check_wfirst(c, sp)) != TM_OK) return st;
  if (nt != sp->ntuples || nw != sp->nwaiters)
    return tm_fail(c, TM_E_CORRUPT, "store: %u tuples and %u waiters found, "
                   "%u and %u recorded", nt, nw, sp->ntuples, sp->nwaiters);
  if (bytes != sp->bytes)
    return tm_fail(c, TM_E_CORRUPT, "store: %zu bytes found, %zu recorded",
                   bytes, sp->bytes);
  return TM_OK;
}

tm_status tm_space_check(tm_core *c, uint32_t id) {
  return tm_done(c, space_check(c, id));
}

tm_status tm_space_digest(tm_core *c, uint32_t id, uint64_t *digest) {
  tm_status st = TM_OK;
  tm_space *sp = space_get(c, id, &st);
  uint64_t h;
  uint32_t i, pos;
  if (sp == NULL) return tm_done(c, st);
  h = tm_mix64(sp->ntuples) ^ tm_mix64((uint64_t)sp->nwaiters << 32);
  for (i = 0; i < sp->ix.cap; i++) {
    const tm_chain *ch = sp->ix.slots[i];
    const tm_entry *e;
    const tm_wlink *l;
    uint32_t k;
    if (ch == NULL) continue;
    /* tuples through their arity entries, so the digest does not depend
     * on which groups are indexed */
    for (e = ch->head, pos = 0; e != NULL && pos < ch->count; e = e->next, pos++) {
      const tm_tuple *t = TUPLE_OF(e);
      if (e->slot != 0) continue;
      h += tm_mix64(tm_index_key(pos, t->arity, e->slot, TM_TUPLE_BYTES(t),
                                 t->len));
    }
    for (l = ch->whead, k = 0; l != NULL && k < ch->nwait; l = l->next, k++) {
      const tm_waiter *w = (const tm_waiter *)l;
      h += tm_mix64(tm_index_key(w->seq, w->owner, w->kind, TM_WAITER_BYTES(w),
                                 w->len));
    }
  }
  *digest = h;
  return tm_done(c, TM_OK);
}
