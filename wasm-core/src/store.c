/*
 * store.c — the space table: creating, destroying and describing spaces;
 * and removing a stored tuple (an in takes it, or its space goes).
 *
 * Invariants:
 *  - A space id is (generation, slot index); an id names a space only
 *    while its slot is live with that generation, so an id of a destroyed
 *    space never reaches a later space in the same slot.
 *  - Slots that are not live are on the free list (next_free), and are
 *    reused before the table grows.
 *  - Destroying a space wakes every process waiting on it (interrupted)
 *    and drops its waiter records before its tuples and chains are freed.
 */
#include <string.h>

#include "store_internal.h"

tm_space *tm_store_no_space(tm_core *c, uint32_t id, tm_status *st) {
  *st = tm_fail(c, TM_E_NO_SPACE, "no such space: id %u (it was destroyed "
                "or never created)", id);
  return NULL;
}

tm_status tm_space_create(tm_core *c, uint32_t *id) {
  tm_store *s = &c->store;
  uint32_t i;
  tm_space *sp;
  TM_API_CHECK(c != NULL && id != NULL);
  if (s->free_head != TM_NONE) {
    i = s->free_head;
    s->free_head = s->spaces[i].next_free;
  } else {
    if (s->hwm > TM_ID_INDEX_MASK)
      return tm_fail(c, TM_E_LIMIT, "too many spaces (%u)", s->hwm);
    if (tm_mem_grow(c, NULL, (void **)&s->spaces, &s->cap, s->hwm + 1,
                    sizeof *s->spaces, 4) != TM_OK)
      return tm_nomem(c, "creating a space");
    i = s->hwm++;
    s->spaces[i].gen = 0;
  }
  sp = &s->spaces[i];
  memset(&sp->ntuples, 0, sizeof *sp - offsetof(tm_space, ntuples));
  sp->gen = tm_id_next_gen(sp->gen);
  sp->live = 1;
  sp->next_free = TM_NONE;
  *id = tm_id_make(i, sp->gen);
  return tm_done(c, TM_OK);
}

/* Unlink a stored tuple from all its chains and free it. O(arity). */
void tm_tuple_remove(tm_core *c, tm_space *sp, tm_tuple *t) {
  tm_chain *ach = t->ent[0].chain;
  uint32_t i;
  if (ach->nformal > 0 && tm_tuple_has_formal(t)) ach->nformal--;
  if (ach->indexed)
    for (i = 1; i <= t->arity; i++) tm_index_unlink(&sp->ix, &t->ent[i]);
  tm_index_unlink(&sp->ix, &t->ent[0]);
  if (ach->count == 0) ach->indexed = 0; /* an empty group starts over */
  sp->ntuples--;
  tuple_free(c, sp, t);
}

/* Wake the owners of all waiters, free all tuples and chains. The loop
 * bounds are taken before the loops: the counts shrink as they run. */
static void space_clear(tm_core *c, tm_space *sp) {
  uint32_t i, guard, nw = sp->nwaiters, nt = sp->ntuples;
  for (i = 0; i < sp->ix.cap; i++) {
    tm_chain *ch = sp->ix.slots[i];
    for (guard = 0; ch != NULL && ch->whead != NULL && guard < nw; guard++) {
      tm_waiter *w = (tm_waiter *)ch->whead;
      if (w->record != 0) tm_store_drop_record(c, sp, w);
      else tm_sched_wake(c, w->owner, TM_WAKE_INTERRUPT);
    }
    for (guard = 0; ch != NULL && ch->head != NULL && guard < nt; guard++)
      tm_tuple_remove(c, sp, TUPLE_OF(ch->head));
  }
  tm_index_free(c, &sp->bytes, &sp->ix);
}

tm_status tm_space_destroy(tm_core *c, uint32_t id) {
  tm_status st = TM_OK;
  tm_space *sp = space_get(c, id, &st);
  uint32_t i;
  if (sp == NULL) return tm_done(c, st);
  space_clear(c, sp);
  i = (uint32_t)(sp - c->store.spaces);
  sp->live = 0;
  sp->next_free = c->store.free_head;
  c->store.free_head = i;
  return tm_done(c, TM_OK);
}

void tm_store_free(tm_core *c) {
  uint32_t i;
  for (i = 0; i < c->store.hwm; i++)
    if (c->store.spaces[i].live) space_clear(c, &c->store.spaces[i]);
  tm_mem_free(c, NULL, c->store.spaces,
              (size_t)c->store.cap * sizeof *c->store.spaces);
  if (c->store.rwoken != NULL)
    tm_mem_free(c, NULL, c->store.rwoken,
                (size_t)c->store.rwoken_cap * sizeof *c->store.rwoken);
  memset(&c->store, 0, sizeof c->store);
}

tm_status tm_space_stats(tm_core *c, uint32_t id, uint32_t *tuples,
                         uint32_t *waiters, size_t *live) {
  tm_status st = TM_OK;
  tm_space *sp = space_get(c, id, &st);
  if (sp == NULL) return tm_done(c, st);
  if (tuples != NULL) *tuples = sp->ntuples;
  if (waiters != NULL) *waiters = sp->nwaiters;
  if (live != NULL) *live = sp->bytes;
  return tm_done(c, TM_OK);
}
