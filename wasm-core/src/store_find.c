/*
 * store_find.c — searching a space: rdp, inp and count, and rd and in,
 * which register a waiting template when nothing matches.
 *
 * Invariants:
 *  - A search walks one chain oldest-first and returns its first match,
 *    which is the oldest matching tuple of the space (store.h): the arity
 *    chain of a group that is not indexed, else the shortest chain among
 *    the arity chain and the chains of the template's actual fields.
 *  - A tuple reached through a chain is compared field by field: a key
 *    collision (another arity, other bytes) is never a match.
 *  - The small path (find_small) decides only what the general path would
 *    decide the same way; anything else falls through to it.
 *  - A group holding tuples with formals (its arity chain's nformal > 0)
 *    is compared with the symmetric rule (tm_match_field_sym). Indexed, it
 *    is searched through one actual field of the template: that value's
 *    chain and the chain of the field's formals (field_key), whichever pair
 *    is shortest, taking the older of their first matches (tuple_older);
 *    not indexed, by walking its arity chain.
 *  - A waiter record's in/rd (tm_space_wait_record) searches as rd and in
 *    do, and registers the record (store_wait.c) when nothing matches.
 *  - tm_space_remove_exact removes a tuple by what it is, not by what it
 *    matches: only a stored tuple whose canonical bytes equal the given
 *    tuple's, formals included, found on the shortest chain of its keys.
 */
#include <string.h>

#include "store_internal.h"

/* Whether tuple t (of an indexed group) matches; tf has its keys. */
static int tuple_matches(const tm_tfield *tf, const uint8_t *pb,
                         const tm_tuple *t) {
  const uint32_t *off = TM_TUPLE_OFF(t);
  const uint8_t *tb = TM_TUPLE_BYTES(t);
  uint32_t i;
  for (i = 0; i < t->arity; i++)
    if (!tm_match_field(&tf[i], pb, tb + off[i], off[i + 1] - off[i],
                        t->ent[i + 1].chain->key))
      return 0;
  return 1;
}

/* Whether tuple t matches, comparing bytes (no keys needed). */
static int tuple_matches_bytes(const tm_tfield *tf, const uint8_t *pb,
                               const tm_tuple *t) {
  const uint32_t *off = TM_TUPLE_OFF(t);
  const uint8_t *tb = TM_TUPLE_BYTES(t);
  uint32_t i;
  for (i = 0; i < t->arity; i++)
    if (!tm_match_field_bytes(&tf[i], pb, tb + off[i], off[i + 1] - off[i]))
      return 0;
  return 1;
}

/* Whether tuple t matches under S/Net's rule (its formals by type). */
static int tuple_matches_sym(const tm_tfield *tf, const uint8_t *pb,
                             const tm_tuple *t) {
  const uint32_t *off = TM_TUPLE_OFF(t);
  const uint8_t *tb = TM_TUPLE_BYTES(t);
  uint32_t i;
  for (i = 0; i < t->arity; i++)
    if (!tm_match_field_sym(&tf[i], pb, tb + off[i], off[i + 1] - off[i]))
      return 0;
  return 1;
}

/* Compile the template (unless its memo entry already holds it). */
static tm_status template_compile(tm_core *c, tm_item *it) {
  tm_status st;
  if (it->compiled) return TM_OK;
  st = tm_match_compile(c, it->b, it->off, it->arity, it->nformal, it->tf);
  if (st != TM_OK) return st; /* failures are not recorded */
  it->compiled = 1;
  if (it->memo != NULL) it->memo->compiled = 1;
  return TM_OK;
}

/* The shortest chain holding every stored tuple equal to the compiled
 * template's actual fields: `best` (the arity chain of an indexed group)
 * or the chain of one of those fields. NULL when a field's chain is
 * missing or empty (no tuple can match). Used by searches and by exact
 * removal, which walk it oldest-first. */
static tm_chain *narrowest_chain(tm_core *c, tm_space *sp, tm_item *it,
                                 tm_chain *best) {
  tm_chain *ch;
  uint32_t i;
  template_keys(c, it);
  for (i = 0; i < it->arity; i++) {
    if (it->tf[i].formal != TM_ACTUAL) continue;
    ch = tm_index_find(&sp->ix, it->tf[i].key);
    if (ch == NULL || ch->count == 0) return NULL;
    if (ch->count < best->count) best = ch;
  }
  return best;
}

/* A group holding tuples with formals (S/Net), indexed: the shortest way
 * to every tuple that may match — the arity chain, or for one actual field
 * of the template its chain plus the chain of that field's formals (a
 * tuple is on exactly one of the two), *second receiving the latter. */
static tm_chain *formal_chains(tm_core *c, tm_space *sp, tm_item *it,
                               tm_chain *group, tm_chain **second) {
  tm_chain *best = group, *ch, *fch;
  uint32_t i, cost = group->count, n;
  template_keys(c, it);
  for (i = 0; i < it->arity; i++) {
    if (it->tf[i].formal != TM_ACTUAL) continue;
    ch = tm_index_find(&sp->ix, it->tf[i].key);
    fch = tm_index_find(&sp->ix, tm_index_key(c->cfg.hash_seed, it->arity,
                                              i + 1, TM_FORMAL_MARK, 1));
    n = (ch != NULL ? ch->count : 0) + (fch != NULL ? fch->count : 0);
    if (n == 0) return NULL; /* nothing equal, no formal: no match */
    if (n >= cost) continue;
    cost = n;
    best = ch != NULL && ch->count > 0 ? ch : fch;
    *second = best == ch && fch != NULL && fch->count > 0 ? fch : NULL;
  }
  return best;
}

/* Compile the template in `it` into it->tf and pick the chain to walk: the
 * arity chain of a group that is not indexed, else the shortest among the
 * arity chain and the chains of the template's actual fields (in a group
 * holding formals, each with its field's formal chain: *second). NULL: no
 * tuple can match. *indexed says how to compare: 0 bytes, 1 keys (an
 * indexed group), WALK_SYM the symmetric rule. */
#define WALK_SYM 2
static tm_chain *best_chain(tm_core *c, tm_space *sp, tm_item *it,
                            int *indexed, tm_chain **second, tm_status *st) {
  tm_chain *best;
  *second = NULL;
  *st = template_compile(c, it);
  if (*st != TM_OK) return NULL;
  best = arity_chain(c, sp, it->arity);
  if (best == NULL || best->count == 0) return NULL;
  if (best->nformal > 0) { /* S/Net: formals in tuples, the symmetric rule */
    *indexed = WALK_SYM;
    return best->indexed ? formal_chains(c, sp, it, best, second) : best;
  }
  *indexed = (int)best->indexed;
  if (!best->indexed) return best; /* a small group: walk it */
  return narrowest_chain(c, sp, it, best);
}

/* Whether t (reached on a chain walked for template it) matches. */
static int walk_matches(tm_core *c, const tm_item *it, int indexed,
                        const tm_tuple *t) {
#ifdef TM_DEBUG
  c->examined++;
#else
  (void)c;
#endif
  if (t->arity != it->arity) return 0; /* a key collision */
  if (indexed == WALK_SYM) return tuple_matches_sym(it->tf, it->b, t);
  return indexed ? tuple_matches(it->tf, it->b, t)
                 : tuple_matches_bytes(it->tf, it->b, t);
}

/* The oldest tuple of chain ch matching the template, or NULL. */
static tm_tuple *first_match(tm_core *c, const tm_item *it, int indexed,
                             const tm_chain *ch) {
  tm_entry *e;
  uint32_t n;
  for (e = ch->head, n = 0; e != NULL && n < ch->count; e = e->next, n++) {
    tm_tuple *t = TUPLE_OF(e);
    if (walk_matches(c, it, indexed, t)) return t;
  }
  return NULL;
}

/* The oldest stored tuple matching the template, or NULL: of two chains
 * (an actual's and its field's formals), the older of their first
 * matches. */
static tm_tuple *find_tuple(tm_core *c, tm_space *sp, tm_item *it,
                            tm_status *st) {
  int indexed = 0;
  tm_chain *second, *best = best_chain(c, sp, it, &indexed, &second, st);
  tm_tuple *t, *u;
  if (best == NULL) return NULL;
  t = first_match(c, it, indexed, best);
  if (second == NULL) return t;
  u = first_match(c, it, indexed, second);
  return t == NULL || (u != NULL && tuple_older(u, t)) ? u : t;
}

/*
 * The fast path of a search: a template the parse memo holds, compiled,
 * of a small arity whose group is not indexed. Walks the group with the
 * memo's compiled fields, comparing bytes. Returns the oldest match;
 * NULL with *st TM_BLOCKED when the fast path decided there is none, or
 * NULL with *st TM_OK when the general path must decide.
 */
static inline tm_tuple *find_small(tm_core *c, tm_space *sp,
                                   const uint8_t *tmpl, size_t len,
                                   tm_status *st) {
  tm_memo *m = tmpl != NULL ? memo_find(c, tmpl, len) : NULL;
  tm_chain *g;
  tm_entry *e;
  uint32_t n, i, arity;
  if (m == NULL || !m->compiled || m->arity >= TM_INDEX_SMALL) return NULL;
  arity = m->arity;
  g = arity_chain(c, sp, arity);
  if (g != NULL && (g->indexed || g->nformal > 0)) return NULL;
  for (e = g != NULL ? g->head : NULL, n = 0; e != NULL && n < g->count;
       e = e->next, n++) {
    tm_tuple *t = TUPLE_OF(e);
    const uint32_t *off = TM_TUPLE_OFF(t);
    const uint8_t *tb = TM_TUPLE_BYTES(t);
#ifdef TM_DEBUG
    c->examined++;
#endif
    if (t->arity != arity) continue; /* a key collision */
    for (i = 0; i < arity; i++)
      if (!tm_match_field_bytes(&m->tf[i], m->b, tb + off[i],
                                off[i + 1] - off[i]))
        break;
    if (i == arity) return t;
  }
  *st = TM_BLOCKED; /* decided: no match */
  return NULL;
}

/* Copy the tuple out, and remove it for `in`. */
static tm_status take(tm_core *c, tm_space *sp, tm_tuple *t, int remove,
                      tm_bytes *out) {
  tm_xfer *x = c->xfer;
  if (t->len <= x->cap) { /* the common case of tm_xfer_put */
    tm_copy(x->data, TM_TUPLE_BYTES(t), t->len);
    out->bytes = x->data;
    out->len = t->len;
  } else {
    tm_status st = tm_xfer_put(c, TM_TUPLE_BYTES(t), t->len, out);
    if (st != TM_OK) return st;
  }
  if (remove) {
    tm_tuple_remove(c, sp, t);
    tm_index_trim(c, &sp->bytes, &sp->ix, TM_INDEX_KEEP_EMPTY);
  }
  return TM_OK;
}

/* find_op past the small path: parse, pick a chain, walk it. */
static TM_NOINLINE tm_status find_general(tm_core *c, tm_space *sp,
                                          const uint8_t *tmpl, size_t len,
                                          int remove, tm_bytes *out) {
  tm_status st = TM_OK;
  tm_item it;
  tm_tuple *t;
  if ((st = tm_item_parse(c, tmpl, len, 1, &it)) != TM_OK) return st;
  t = find_tuple(c, sp, &it, &st);
  if (st != TM_OK) return st;
  if (t == NULL) return TM_NOMATCH;
  return take(c, sp, t, remove, out);
}

static inline tm_status find_op(tm_core *c, uint32_t id, const uint8_t *tmpl,
                                size_t len, int remove, tm_bytes *out) {
  tm_status st = TM_OK;
  tm_space *sp = space_get(c, id, &st);
  tm_tuple *t;
  out->bytes = NULL;
  out->len = 0;
  if (sp == NULL) return st;
  if ((t = find_small(c, sp, tmpl, len, &st)) != NULL) {
    tm_xfer *x = c->xfer;
    if (t->len > x->cap) return take(c, sp, t, remove, out);
    tm_copy(x->data, TM_TUPLE_BYTES(t), t->len);
    out->bytes = x->data;
    out->len = t->len;
    if (remove) { /* tuple_remove for a group that is not indexed */
      tm_index_unlink(&sp->ix, &t->ent[0]);
      sp->ntuples--;
      tuple_free(c, sp, t);
      tm_index_trim(c, &sp->bytes, &sp->ix, TM_INDEX_KEEP_EMPTY);
    }
    return TM_OK;
  }
  if (st != TM_OK) return st == TM_BLOCKED ? TM_NOMATCH : st;
  return find_general(c, sp, tmpl, len, remove, out);
}

tm_status tm_space_inp(tm_core *c, uint32_t id, const uint8_t *tmpl,
                       size_t len, tm_bytes *out) {
  TM_API_CHECK(c != NULL && out != NULL);
  return tm_done(c, find_op(c, id, tmpl, len, 1, out));
}

tm_status tm_space_rdp(tm_core *c, uint32_t id, const uint8_t *tmpl,
                       size_t len, tm_bytes *out) {
  TM_API_CHECK(c != NULL && out != NULL);
  return tm_done(c, find_op(c, id, tmpl, len, 0, out));
}

static int all_any(const tm_tfield *tf, uint32_t arity) {
  uint32_t i;
  for (i = 0; i < arity; i++)
    if (tf[i].formal != TM_FORMAL_ANY) return 0;
  return 1;
}

static tm_status count_op(tm_core *c, uint32_t id, const uint8_t *tmpl,
                          size_t len, uint32_t *count) {
  tm_status st = TM_OK;
  tm_space *sp = space_get(c, id, &st);
  tm_item it;
  tm_chain *best, *second;
  tm_entry *e;
  uint32_t n, k = 0;
  int indexed = 0;
  *count = 0;
  if (sp == NULL) return st;
  if ((st = tm_item_parse(c, tmpl, len, 1, &it)) != TM_OK) return st;
  best = best_chain(c, sp, &it, &indexed, &second, &st);
  if (best == NULL) return st;
  if (indexed != WALK_SYM && all_any(it.tf, it.arity)) {
    *count = best->count; /* no formal tuple: ?any matches every field */
    return TM_OK;
  }
  for (e = best->head, n = 0; e != NULL && n < best->count; e = e->next, n++)
    if (walk_matches(c, &it, indexed, TUPLE_OF(e))) k++;
  for (e = second != NULL ? second->head : NULL, n = 0;
       e != NULL && n < second->count; e = e->next, n++)
    if (walk_matches(c, &it, indexed, TUPLE_OF(e))) k++; /* disjoint */
  *count = k;
  return TM_OK;
}

tm_status tm_space_count(tm_core *c, uint32_t id, const uint8_t *tmpl,
                         size_t len, uint32_t *count) {
  TM_API_CHECK(c != NULL && count != NULL);
  return tm_done(c, count_op(c, id, tmpl, len, count));
}

static tm_status wait_op(tm_core *c, uint32_t id, const uint8_t *tmpl,
                         size_t len, uint32_t pid, uint32_t clock,
                         double timeout_at, tm_bytes *out, uint32_t kind) {
  const char *op = kind == TM_WAIT_IN ? "in" : "rd";
  tm_status st = TM_OK;
  tm_space *sp = space_get(c, id, &st);
  uint32_t pi;
  tm_item it;
  tm_tuple *t;
  out->bytes = NULL;
  out->len = 0;
  if (sp == NULL) return st;
  if ((pi = tm_sched_running(c, pid, op, &st)) == TM_NONE) return st;
  if ((st = tm_timer_clock_ok(c, clock)) != TM_OK) return st;
  if (timeout_at != timeout_at)
    return tm_fail(c, TM_E_ARG, "%s: timeout is NaN", op);
  if ((st = tm_item_parse(c, tmpl, len, 1, &it)) != TM_OK) return st;
  t = find_tuple(c, sp, &it, &st);
  if (st != TM_OK) return st;
  if (t != NULL) return take(c, sp, t, kind == TM_WAIT_IN, out);
  if (!(timeout_at > c->timers.clocks[clock].now)) return TM_NOMATCH;
  return tm_store_add_waiter(c, sp, id, &it, pi, kind, clock, timeout_at);
}

tm_status tm_space_in(tm_core *c, uint32_t id, const uint8_t *tmpl,
                      size_t len, uint32_t pid, uint32_t clock,
                      double timeout_at, tm_bytes *out) {
  return tm_done(c, wait_op(c, id, tmpl, len, pid, clock, timeout_at, out,
                            TM_WAIT_IN));
}

tm_status tm_space_rd(tm_core *c, uint32_t id, const uint8_t *tmpl,
                      size_t len, uint32_t pid, uint32_t clock,
                      double timeout_at, tm_bytes *out) {
  return tm_done(c, wait_op(c, id, tmpl, len, pid, clock, timeout_at, out,
                            TM_WAIT_RD));
}

/* An in/rd of a waiter record: the tuple now, or the record waits. */
static tm_status wait_record_op(tm_core *c, uint32_t id, const uint8_t *tmpl,
                                size_t len, uint32_t record, uint32_t kind,
                                uint32_t prio, double deadline,
                                tm_bytes *out) {
  tm_status st = TM_OK;
  tm_space *sp = space_get(c, id, &st);
  tm_item it;
  tm_tuple *t;
  out->bytes = NULL;
  out->len = 0;
  if (sp == NULL) return st;
  if (record == 0)
    return tm_fail(c, TM_E_ARG, "wait-record: a record is named by a "
                   "nonzero number");
  if (kind != TM_WAIT_IN && kind != TM_WAIT_RD)
    return tm_fail(c, TM_E_ARG, "wait-record: kind %u is neither in nor rd",
                   kind);
  if (prio >= TM_PRIORITIES || deadline != deadline)
    return tm_fail(c, TM_E_ARG, "wait-record: priority %u or deadline out "
                   "of range", prio);
  if ((st = tm_item_parse(c, tmpl, len, 1, &it)) != TM_OK) return st;
  t = find_tuple(c, sp, &it, &st);
  if (st != TM_OK) return st;
  if (t != NULL) return take(c, sp, t, kind == TM_WAIT_IN, out);
  return tm_store_add_record(c, sp, id, &it, record, kind, prio, deadline);
}

tm_status tm_space_wait_record(tm_core *c, uint32_t id, const uint8_t *tmpl,
                               size_t len, uint32_t record, uint32_t kind,
                               uint32_t prio, double deadline,
                               tm_bytes *out) {
  TM_API_CHECK(c != NULL && out != NULL);
  return tm_done(c, wait_record_op(c, id, tmpl, len, record, kind, prio,
                                   deadline, out));
}

static tm_status cancel_record_op(tm_core *c, uint32_t id,
                                  const uint8_t *tmpl, size_t len,
                                  uint32_t record) {
  tm_status st = TM_OK;
  tm_space *sp = space_get(c, id, &st);
  tm_item it;
  tm_waiter *w;
  if (sp == NULL) return st;
  if (record == 0 || sp->nwaiters == 0) return TM_NOMATCH;
  if ((st = tm_item_parse(c, tmpl, len, 1, &it)) != TM_OK) return st;
  if ((st = template_compile(c, &it)) != TM_OK) return st;
  if ((w = tm_store_find_record(c, sp, &it, record)) == NULL)
    return TM_NOMATCH;
  tm_store_drop_record(c, sp, w);
  tm_index_trim(c, &sp->bytes, &sp->ix, TM_INDEX_KEEP_EMPTY);
  return TM_OK;
}

tm_status tm_space_cancel_record(tm_core *c, uint32_t id, const uint8_t *tmpl,
                                 size_t len, uint32_t record) {
  TM_API_CHECK(c != NULL);
  return tm_done(c, cancel_record_op(c, id, tmpl, len, record));
}

/* The chain to walk for an exact removal: the shortest among the arity
 * chain and the chains of the tuple's actual fields (an identical stored
 * tuple is on each of them); the arity chain when the group is not indexed
 * or the tuple does not compile as a template (a formal inside a field). */
static tm_chain *exact_chain(tm_core *c, tm_space *sp, tm_item *it) {
  tm_chain *best = arity_chain(c, sp, it->arity);
  if (best == NULL || best->count == 0 || !best->indexed) return best;
  if (template_compile(c, it) != TM_OK) return best; /* tm_done resets it */
  return narrowest_chain(c, sp, it, best);
}

static tm_status remove_exact(tm_core *c, uint32_t id, const uint8_t *tuple,
                              size_t len) {
  tm_status st = TM_OK;
  tm_space *sp = space_get(c, id, &st);
  tm_item it;
  tm_chain *ch;
  tm_entry *e;
  uint32_t n;
  if (sp == NULL) return st;
  if ((st = tm_item_parse(c, tuple, len, 0, &it)) != TM_OK) return st;
  if ((ch = exact_chain(c, sp, &it)) == NULL) return TM_NOMATCH;
  for (e = ch->head, n = 0; e != NULL && n < ch->count; e = e->next, n++) {
    tm_tuple *t = TUPLE_OF(e);
#ifdef TM_DEBUG
    c->examined++;
#endif
    if (t->arity != it.arity || t->len != it.len ||
        !tm_bytes_equal(TM_TUPLE_BYTES(t), it.b, (uint32_t)it.len))
      continue;
    tm_tuple_remove(c, sp, t);
    tm_index_trim(c, &sp->bytes, &sp->ix, TM_INDEX_KEEP_EMPTY);
    return TM_OK;
  }
  return TM_NOMATCH;
}

tm_status tm_space_remove_exact(tm_core *c, uint32_t id, const uint8_t *tuple,
                                size_t len) {
  TM_API_CHECK(c != NULL);
  return tm_done(c, remove_exact(c, id, tuple, len));
}
