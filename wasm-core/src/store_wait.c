/*
 * store_wait.c — waiting templates (an rd or in that found nothing) and
 * the tuples delivered to the processes they wake.
 *
 * Invariants:
 *  - A waiter belongs to the process it blocks and is charged to it; it
 *    sits in exactly one chain's waiter list, and its process is
 *    waiting-tuple with proc->waiter pointing back to it.
 *  - wfirst counts every waiter with an actual field under (arity, its
 *    first actual), hashed: an out of a tuple with formals visits every
 *    chain only when a waiter may have its first actual where the tuple has
 *    its first formal (store_out.c).
 *  - A process holds at most one delivered tuple; a new wait frees an
 *    uncollected one, and tm_proc_take_tuple hands it out once.
 *  - A waiter record (record != 0) has no process: it is charged to its
 *    space, carries its own priority and deadline, and is served by an out
 *    in the one order of the space's waiters (store_out.c); the out lists
 *    it in store.rwoken (room reserved before anything changes) instead of
 *    delivering a copy, and store.rwoken holds only the last out's.
 */
#include <math.h>
#include <string.h>

#include "store_internal.h"

/* Count a waiter in (+1) or out (-1) of the space's wfirst counters. */
static void count_first(tm_space *sp, const tm_waiter *w, int add) {
  uint32_t *n;
  if (w->first >= w->arity) return; /* all formals: no tuple with a formal
                                       matches it (store_out.c) */
  n = &sp->wfirst[wfirst_slot(w->arity, w->first)];
  *n = add ? *n + 1 : *n - 1;
}

void tm_store_cancel_waiter(tm_core *c, tm_waiter *w) {
  tm_space *sp = &c->store.spaces[w->space & TM_ID_INDEX_MASK];
  tm_proc *pr = &c->sched.procs[w->owner];
  tm_index_wunlink(&sp->ix, w->chain, &w->link);
  count_first(sp, w, 0);
  sp->nwaiters--;
  pr->waiter = NULL;
  tm_mem_free(c, &pr->live, w, w->size);
}

void tm_store_free_blob(tm_core *c, uint32_t pi, tm_blob *b) {
  tm_mem_free(c, &c->sched.procs[pi].live, b, sizeof *b + b->len);
}

/* A template's first actual field, or its arity if it has none. */
static uint32_t first_actual(const tm_item *it) {
  uint32_t i;
  for (i = 0; i < it->arity; i++)
    if (it->tf[i].formal == TM_ACTUAL) return i;
  return it->arity;
}

/* Key a waiter registers under: its first actual, else the arity key. */
static uint64_t waiter_key(tm_core *c, tm_item *it) {
  uint32_t i;
  template_keys(c, it); /* the waiter keeps them: an out compares keys */
  for (i = 0; i < it->arity; i++)
    if (it->tf[i].formal == TM_ACTUAL) return it->tf[i].key;
  return tm_arity_key(c, it->arity);
}

static tm_waiter *waiter_new(tm_core *c, size_t *acct, const tm_item *it) {
  size_t size = sizeof(tm_waiter) + it->arity * sizeof(tm_tfield) + it->len;
  tm_waiter *w = tm_mem_alloc(c, acct, size);
  if (w == NULL) return NULL;
  memset(w, 0, sizeof *w);
  w->size = size;
  w->arity = it->arity;
  w->first = first_actual(it);
  w->len = (uint32_t)it->len;
  memcpy(w->f, it->tf, it->arity * sizeof(tm_tfield));
  memcpy(TM_WAITER_BYTES(w), it->b, it->len);
  return w;
}

/* Make a waiter for template it, charged to acct, and link it on its key's
 * chain in space sp (id): everything that can fail is prepared first, so on
 * failure nothing changed (*st says why, NULL returned). The caller then sets
 * its own fields: owner and timer, or record, priority and deadline. */
static tm_waiter *waiter_register(tm_core *c, tm_space *sp, uint32_t id,
                                  tm_item *it, size_t *acct, uint32_t kind,
                                  const char *what, tm_status *st) {
  uint64_t key = waiter_key(c, it);
  tm_chain *ch = tm_index_find(&sp->ix, key), *fresh = NULL;
  tm_waiter *w = waiter_new(c, acct, it);
  *st = TM_OK;
  if (w == NULL) {
    *st = tm_nomem(c, what);
    return NULL;
  }
  if (ch == NULL && (fresh = tm_index_new_chain(c, &sp->bytes, key)) == NULL)
    *st = tm_nomem(c, "creating an index chain");
  if (*st == TM_OK && fresh != NULL)
    *st = tm_index_reserve(c, &sp->bytes, &sp->ix, 1);
  if (*st != TM_OK) {
    if (fresh != NULL) tm_index_free_chain(c, &sp->bytes, fresh);
    tm_mem_free(c, acct, w, w->size);
    return NULL;
  }
  if (fresh != NULL) tm_index_insert(&sp->ix, ch = fresh);
  w->chain = ch;
  w->seq = sp->wseq++;
  w->space = id;
  w->kind = kind;
  tm_index_wlink(&sp->ix, ch, &w->link);
  count_first(sp, w, 1);
  sp->nwaiters++;
  return w;
}

/* Register a waiter for process pi (the timer's room reserved first: a
 * reservation changes nothing a failure would have to undo). */
tm_status tm_store_add_waiter(tm_core *c, tm_space *sp, uint32_t id,
                              tm_item *it, uint32_t pi, uint32_t kind,
                              uint32_t clock, double timeout_at) {
  tm_proc *pr = &c->sched.procs[pi];
  tm_status st = isfinite(timeout_at) ? tm_timer_reserve(c, clock) : TM_OK;
  tm_waiter *w;
  if (st != TM_OK) return st;
  w = waiter_register(c, sp, id, it, &pr->live, kind,
                      "registering a waiting template", &st);
  if (w == NULL) return st;
  if (pr->delivery != NULL) { /* uncollected copy from an earlier wake-up */
    tm_store_free_blob(c, pi, pr->delivery);
    pr->delivery = NULL;
  }
  w->owner = pi;
  w->deadline = INFINITY;
  pr->waiter = w;
  if (isfinite(timeout_at))
    pr->wait_timer = tm_timer_arm_wait(c, pi, clock, timeout_at);
  tm_sched_block(c, pi, TM_PROC_WAIT_TUPLE);
  return TM_BLOCKED;
}

/* ---- waiter records ------------------------------------------------------ */

void tm_store_drop_record(tm_core *c, tm_space *sp, tm_waiter *w) {
  tm_index_wunlink(&sp->ix, w->chain, &w->link);
  count_first(sp, w, 0);
  sp->nwaiters--;
  tm_mem_free(c, &sp->bytes, w, w->size);
}

tm_status tm_store_reserve_woken(tm_core *c, uint32_t n) {
  tm_store *s = &c->store;
  uint32_t cap = s->rwoken_cap < 16 ? 16 : s->rwoken_cap;
  uint32_t *ids;
  if (n <= s->rwoken_cap) return TM_OK;
  while (cap < n) cap *= 2; /* n <= waiters, each a live allocation */
  ids = tm_mem_alloc(c, NULL, (size_t)cap * sizeof *ids);
  if (ids == NULL) return tm_nomem(c, "listing the records an out serves");
  if (s->rwoken != NULL)
    tm_mem_free(c, NULL, s->rwoken, (size_t)s->rwoken_cap * sizeof *ids);
  s->rwoken = ids; /* empty between outs: nothing to copy */
  s->rwoken_cap = cap;
  return TM_OK;
}

/* Register waiter record `record` (charged to its space). */
tm_status tm_store_add_record(tm_core *c, tm_space *sp, uint32_t id,
                              tm_item *it, uint32_t record, uint32_t kind,
                              uint32_t prio, double deadline) {
  tm_status st;
  tm_waiter *w = waiter_register(c, sp, id, it, &sp->bytes, kind,
                                 "registering a waiter record", &st);
  if (w == NULL) return st;
  w->owner = TM_NONE;
  w->record = record;
  w->prio = prio;
  w->deadline = deadline;
  return TM_BLOCKED;
}

/* The waiting record `record` of template it (on its key's chain). */
tm_waiter *tm_store_find_record(tm_core *c, tm_space *sp, tm_item *it,
                                uint32_t record) {
  tm_chain *ch = tm_index_find(&sp->ix, waiter_key(c, it));
  tm_wlink *l;
  uint32_t n;
  if (ch == NULL) return NULL;
  for (l = ch->whead, n = 0; l != NULL && n < ch->nwait; l = l->next, n++)
    if (((tm_waiter *)l)->record == record) return (tm_waiter *)l;
  return NULL;
}

tm_status tm_space_woken_records(tm_core *c, tm_bytes *out) {
  TM_API_CHECK(c != NULL && out != NULL);
  out->bytes = NULL;
  out->len = 0;
  if (c->store.nrwoken == 0) return tm_done(c, TM_OK);
  return tm_done(c, tm_xfer_put(c, (const uint8_t *)c->store.rwoken,
                                (size_t)c->store.nrwoken * sizeof(uint32_t),
                                out));
}

tm_status tm_proc_take_tuple(tm_core *c, uint32_t pid, tm_bytes *out) {
  tm_status st = TM_OK;
  uint32_t pi;
  tm_proc *pr;
  TM_API_CHECK(c != NULL && out != NULL);
  pi = tm_sched_lookup(c, pid, &st);
  out->bytes = NULL;
  out->len = 0;
  if (pi == TM_NONE) return tm_done(c, st);
  pr = &c->sched.procs[pi];
  if (pr->delivery == NULL) return tm_done(c, TM_NOMATCH);
  st = tm_xfer_put(c, pr->delivery->bytes, pr->delivery->len, out);
  if (st != TM_OK) return tm_done(c, st);
  tm_store_free_blob(c, pi, pr->delivery);
  pr->delivery = NULL;
  return tm_done(c, TM_OK);
}
