/*
 * store_out.c — out: storing a tuple, or handing it to the waiters it
 * satisfies.
 *
 * Invariants:
 *  - A tuple wakes, in arrival order, every rd waiting for it and one in:
 *    the one whose process (or waiter record) has the highest priority,
 *    then the earliest deadline, then the first to arrive; if an in takes
 *    it, it is not stored. Records served are listed in store.rwoken, not
 *    woken (tm_space_woken_records).
 *  - An out allocates everything it needs (deliveries, the tuple, new
 *    chains, the room in the chain table) before it changes anything: a
 *    failure undoes the plan and leaves the space as it was.
 *  - The out that grows a group past TM_INDEX_MIN links the whole group
 *    into its field chains before the new tuple joins it.
 *  - The small path (out_small) stores only what the general path would
 *    store the same way; TM_NOMATCH sends everything else to it.
 *  - A tuple holding formals (S/Net) is stored like any other, its formal
 *    fields keyed by the formal mark (field_key), and counted in its arity
 *    chain's nformal; it is matched with the symmetric rule
 *    (tm_match_field_sym) against the waiters that may match it: those on
 *    its own fields' chains before its first formal, and every waiter of
 *    the space only when one may wait with its first actual there
 *    (waiters_for_formal).
 */
#include <string.h>

#include "store_internal.h"

/*
 * The small-tuple fast path. A tuple of fewer than TM_INDEX_SMALL fields
 * and at most TM_MEMO_BYTES bytes, every field an integer in its shortest
 * head of at most 5 bytes, ASCII text of fewer than 24 bytes, false, true
 * or null, is canonical CBOR as it stands: one pass over the bytes checks
 * that and records the field offsets. Anything else (formals, floats,
 * nesting, malformed or non-canonical bytes) returns 0 and takes the
 * general path, which has the messages. n is the arity of the head in[0];
 * the offsets go to off[0..n] (the new tuple's), valid if it returns 1.
 */
static inline int scan_small(const uint8_t *in, uint32_t len, uint32_t n,
                             uint32_t *off) {
  uint32_t i, q = 1, j, k, acc;
  for (i = 0; i < n; i++) {
    uint32_t b, left;
    if (q >= len) return 0;
    off[i] = q;
    b = in[q];
    left = len - q; /* bytes from the head on, >= 1 */
    if (b < 0x18 || (b - 0x20u) < 0x18 || (b - 0xf4u) < 3) {
      q++;
    } else if ((b - 0x60u) < 0x18) { /* short text: ASCII is valid UTF-8 */
      k = b - 0x60u;
      if (left <= k) return 0;
      if (k >= 4 && k <= 8) { /* two overlapping words, no loop */
        uint32_t w0, w1;
        memcpy(&w0, in + q + 1, 4);
        memcpy(&w1, in + q + 1 + k - 4, 4);
        if ((w0 | w1) & 0x80808080u) return 0;
      } else {
        for (j = 1, acc = 0; j <= k; j++) acc |= in[q + j];
        if (acc & 0x80) return 0;
      }
      q += 1 + k;
    } else if ((b & 0xdf) == 0x18) { /* 1-byte argument, >= 24 */
      if (left < 2 || in[q + 1] < 24) return 0;
      q += 2;
    } else if ((b & 0xdf) == 0x19) { /* 2-byte argument, >= 256 */
      if (left < 3 || in[q + 1] == 0) return 0;
      q += 3;
    } else if ((b & 0xdf) == 0x1a) { /* 4-byte argument, >= 65536 */
      if (left < 5 || (in[q + 1] | in[q + 2]) == 0) return 0;
      q += 5;
    } else {
      return 0;
    }
  }
  off[n] = q;
  return q == len;
}

/* A tuple holding formals at the top level (S/Net): each must be a known
 * formal, since a stored formal is matched by its type code. */
static tm_status check_tuple_formals(tm_core *c, const tm_item *it) {
  uint32_t i;
  int32_t code;
  uint64_t tag;
  for (i = 0; i < it->arity; i++) {
    tm_status st = tm_match_formal(c, it->b + it->off[i], i, &code, &tag);
    if (st < 0) return st;
  }
  return TM_OK;
}

/* Keys of the field slots of a tuple into c->keys[1..arity], their chains
 * into c->chains (c->keys[0] and c->chains[0] are already set). */
static void tuple_keys(tm_core *c, tm_space *sp, const tm_item *it) {
  uint64_t seed = c->cfg.hash_seed;
  uint32_t i;
  for (i = 0; i < it->arity; i++) {
    const uint8_t *f = it->b + it->off[i];
    uint32_t n = it->off[i + 1] - it->off[i];
    c->keys[i + 1] = it->nformal == 0 ? tm_index_key(seed, it->arity, i + 1, f, n)
                                      : field_key(c, it->arity, i + 1, f, n);
    c->chains[i + 1] = tm_index_find(&sp->ix, c->keys[i + 1]);
  }
}

static int waiter_matches(const tm_waiter *w, const tm_item *it,
                          const uint64_t *keys) {
  const uint8_t *pb = TM_WAITER_BYTES(w);
  uint32_t i;
  if (w->arity != it->arity) return 0;
  if (it->nformal > 0) { /* S/Net: the tuple's formals match by type */
    for (i = 0; i < it->arity; i++)
      if (!tm_match_field_sym(&w->f[i], pb, it->b + it->off[i],
                              it->off[i + 1] - it->off[i]))
        return 0;
    return 1;
  }
  for (i = 0; i < it->arity; i++)
    if (!tm_match_field(&w->f[i], pb, it->b + it->off[i],
                        it->off[i + 1] - it->off[i], keys[i + 1]))
      return 0;
  return 1;
}

/* Add w to the unsorted list if it matches and is not listed yet. */
static void consider_waiter(tm_core *c, tm_waiter *w, const tm_item *it,
                            const uint64_t *keys, tm_waiter **list) {
#ifdef TM_DEBUG
  c->examined++;
#else
  (void)c;
#endif
  /* `listed` guards against a chain reached twice (key collision) */
  if (w->listed || !waiter_matches(w, it, keys)) return;
  w->listed = 1;
  w->mnext = *list;
  *list = w;
}

/* The waiters that may match a tuple holding formals, its first formal at
 * field j. A waiter matching it has no formal where the tuple has one, so
 * its first actual is at j or before; before j it sits on the chain of the
 * tuple's own field (c->chains). At j it may sit under any value of the
 * formal's type: only when wfirst says such a waiter may exist is every
 * chain of the space visited, O(chains + waiters). */
static tm_waiter *waiters_for_formal(tm_core *c, tm_space *sp,
                                     const tm_item *it) {
  tm_waiter *list = NULL;
  uint32_t s, n, j = 0;
  tm_wlink *l;
  while (j < it->arity &&
         !tm_match_is_formal(it->b + it->off[j], it->off[j + 1] - it->off[j]))
    j++;
  if (sp->wfirst[wfirst_slot(it->arity, j)] == 0) {
    for (s = 0; s < j; s++) {
      tm_chain *ch = c->chains[s + 1];
      if (ch == NULL) continue;
      for (l = ch->whead, n = 0; l != NULL && n < ch->nwait; l = l->next, n++)
        consider_waiter(c, (tm_waiter *)l, it, NULL, &list);
    }
    return list;
  }
  for (s = 0; s < sp->ix.cap; s++) {
    tm_chain *ch = sp->ix.slots[s];
    if (ch == NULL) continue;
    for (l = ch->whead, n = 0; l != NULL && n < ch->nwait; l = l->next, n++)
      consider_waiter(c, (tm_waiter *)l, it, NULL, &list);
  }
  return list;
}

/* Merge two seq-ordered lists (mnext links). */
static tm_waiter *merge(tm_waiter *a, tm_waiter *b) {
  tm_waiter head, *t = &head;
  while (a != NULL && b != NULL) {
    if (a->seq < b->seq) { t->mnext = a; a = a->mnext; }
    else { t->mnext = b; b = b->mnext; }
    t = t->mnext;
  }
  t->mnext = a != NULL ? a : b;
  return head.mnext;
}

/* Merge sort by seq; recursion depth is log2 of the list length. */
static tm_waiter *sort_by_seq(tm_waiter *l) {
  tm_waiter *slow = l, *fast, *right;
  if (l == NULL || l->mnext == NULL) return l;
  for (fast = l->mnext; fast != NULL && fast->mnext != NULL;
       fast = fast->mnext->mnext)
    slow = slow->mnext;
  right = slow->mnext;
  slow->mnext = NULL;
  return merge(sort_by_seq(l), sort_by_seq(right));
}

/* Whether waiting in a (which arrived after b) is served before b
 * (L²imbo's QoS): a higher priority of its process or record (0 before
 * 3), or the same priority and an earlier deadline; a tie keeps arrival
 * order. */
static int in_first(const tm_core *c, const tm_waiter *a, const tm_waiter *b) {
  uint32_t qa = a->record ? a->prio : c->sched.procs[a->owner].prio;
  uint32_t qb = b->record ? b->prio : c->sched.procs[b->owner].prio;
  double da = a->record ? a->deadline : c->sched.procs[a->owner].deadline;
  double db = b->record ? b->deadline : c->sched.procs[b->owner].deadline;
  if (qa != qb) return qa < qb;
  return da < db;
}

/* The waiters the new tuple satisfies, in arrival order: every rd, and
 * the in served first (returned in *in_w: by in_first, else the
 * earliest); other ins are left waiting. */
static tm_waiter *collect_waiters(tm_core *c, tm_space *sp,
                                  const tm_item *it, tm_waiter **in_w) {
  tm_waiter *list = NULL, *out = NULL, **tail = &out, *w, *next;
  uint32_t k, n;
  tm_wlink *l;
  for (k = 0; k <= it->arity && it->nformal == 0; k++) {
    tm_chain *ch = c->chains[k];
    if (ch == NULL) continue;
    for (l = ch->whead, n = 0; l != NULL && n < ch->nwait; l = l->next, n++)
      consider_waiter(c, (tm_waiter *)l, it, c->keys, &list);
  }
  if (it->nformal > 0) list = waiters_for_formal(c, sp, it);
  *in_w = NULL;
  list = sort_by_seq(list);
  for (w = list; w != NULL; w = w->mnext) /* the in served: see in_first */
    if (w->kind == TM_WAIT_IN && (*in_w == NULL || in_first(c, w, *in_w)))
      *in_w = w;
  for (w = list; w != NULL; w = next) {
    next = w->mnext;
    w->listed = 0;
    w->mnext = NULL;
    if (w->kind == TM_WAIT_IN && w != *in_w) continue;
    *tail = w;
    tail = &w->mnext;
  }
  return out;
}

/* Allocations an out needs, made before anything changes. */
typedef struct tm_outplan {
  tm_waiter *woken;  /* waiters to wake (mnext list); their copies are
                        staged in proc->delivery, NULL while waiting */
  tm_tuple *tuple;   /* tuple to store, or NULL if an in takes it */
  tm_chain *fresh;   /* new chains to insert (linked through eprev) */
  uint32_t nfresh;   /* how many */
  uint32_t nlink;    /* entries of the tuple to link: 1 (arity chain
                        only) or arity + 1 (its group is indexed) */
  tm_chain *group;   /* an arity chain to index before the tuple is
                        linked (the group grows past TM_INDEX_MIN) */
} tm_outplan;

static void plan_undo(tm_core *c, tm_space *sp, tm_outplan *p) {
  tm_waiter *w;
  tm_chain *ch, *next;
  for (w = p->woken; w != NULL; w = w->mnext) {
    tm_proc *pr;
    if (w->record != 0) continue; /* nothing staged for a record */
    pr = &c->sched.procs[w->owner];
    if (pr->delivery != NULL) tm_store_free_blob(c, w->owner, pr->delivery);
    pr->delivery = NULL;
  }
  for (ch = p->fresh; ch != NULL; ch = next) {
    next = ch->eprev;
    tm_index_free_chain(c, &sp->bytes, ch);
  }
  if (p->tuple != NULL) tuple_free(c, sp, p->tuple);
}

/* A copy of the tuple for each woken waiter's process; room in the list
 * of served records for the records. */
static tm_status plan_blobs(tm_core *c, const tm_item *it, tm_outplan *p) {
  tm_waiter *w;
  uint32_t nrec = 0;
  for (w = p->woken; w != NULL; w = w->mnext) nrec += w->record != 0;
  if (nrec > 0 && tm_store_reserve_woken(c, nrec) != TM_OK)
    return TM_E_NOMEM;
  for (w = p->woken; w != NULL; w = w->mnext) {
    tm_proc *pr;
    tm_blob *b;
    if (w->record != 0) continue;
    pr = &c->sched.procs[w->owner];
    b = tm_mem_alloc(c, &pr->live, sizeof *b + it->len);
    if (b == NULL) return tm_nomem(c, "delivering a tuple to a waiter");
    b->len = it->len;
    memcpy(b->bytes, it->b, it->len);
    pr->delivery = b; /* the process holds none while waiting */
  }
  return TM_OK;
}

/* The key of field `slot` (1..arity) of a stored tuple. */
static uint64_t stored_key(const tm_core *c, const tm_tuple *t,
                           uint32_t slot) {
  const uint32_t *off = TM_TUPLE_OFF(t);
  return field_key(c, t->arity, slot, TM_TUPLE_BYTES(t) + off[slot - 1],
                   off[slot] - off[slot - 1]);
}

/*
 * Indexing a group, step 1 (fallible): make sure every field key of every
 * tuple of the group has a chain in the table. Chains made here enter the
 * table empty (as kept empty chains do), so a failure changes no contents.
 */
static tm_status index_prepare(tm_core *c, tm_space *sp, tm_chain *group,
                               uint32_t arity) {
  tm_entry *e;
  uint32_t n, k;
  for (e = group->head, n = 0; e != NULL && n < group->count;
       e = e->next, n++) {
    tm_tuple *t = TUPLE_OF(e);
    if (e->slot != 0 || t->arity != arity) continue; /* a key collision */
    for (k = 1; k <= arity; k++) {
      uint64_t key = stored_key(c, t, k);
      tm_chain *ch;
      if (tm_index_find(&sp->ix, key) != NULL) continue;
      tm_status st = tm_index_reserve(c, &sp->bytes, &sp->ix, 1);
      if (st != TM_OK) return st;
      if ((ch = tm_index_new_chain(c, &sp->bytes, key)) == NULL)
        return tm_nomem(c, "indexing a group");
      tm_index_insert(&sp->ix, ch);
    }
  }
  return TM_OK;
}

/* Indexing a group, step 2 (cannot fail): link every tuple of the group,
 * oldest first, into the chains of its fields. */
static void index_commit(tm_core *c, tm_space *sp, tm_chain *group,
                         uint32_t arity) {
  tm_entry *e;
  uint32_t n, k;
  for (e = group->head, n = 0; e != NULL && n < group->count;
       e = e->next, n++) {
    tm_tuple *t = TUPLE_OF(e);
    if (e->slot != 0 || t->arity != arity) continue;
    for (k = 1; k <= arity; k++) {
      t->ent[k].slot = k;
      tm_index_link(&sp->ix, tm_index_find(&sp->ix, stored_key(c, t, k)),
                    &t->ent[k]);
    }
  }
  group->indexed = 1;
}

/* A new tuple block holding the item's offsets and bytes (unlinked). */
static tm_tuple *tuple_new(tm_core *c, tm_space *sp, const tm_item *it) {
  tm_tuple *t = tm_mem_alloc_small(c, &sp->bytes,
                                   tuple_size(it->arity, it->len));
  if (t == NULL) return NULL;
  t->len = (uint32_t)it->len;
  t->arity = it->arity;
  t->seq = sp->tseq++;
  tm_copy(TM_TUPLE_OFF(t), it->off, (it->arity + 1) * sizeof(uint32_t));
  tm_copy(TM_TUPLE_BYTES(t), it->b, it->len);
  return t;
}

/* The stored tuple and the chains its linked keys still lack. */
static tm_status plan_store(tm_core *c, tm_space *sp, const tm_item *it,
                            tm_outplan *p) {
  uint32_t k;
  tm_tuple *t = tuple_new(c, sp, it);
  if (t == NULL) return tm_nomem(c, "storing a tuple");
  p->tuple = t;
  for (k = 0; k < p->nlink; k++) {
    tm_chain *ch;
    if (c->chains[k] != NULL) continue;
    ch = tm_index_new_chain(c, &sp->bytes, c->keys[k]);
    if (ch == NULL) return tm_nomem(c, "creating an index chain");
    ch->eprev = p->fresh;
    p->fresh = ch;
    p->nfresh++;
  }
  return p->nfresh > 0 ? tm_index_reserve(c, &sp->bytes, &sp->ix, p->nfresh)
                       : TM_OK;
}

/* Commit: insert fresh chains and link the tuple's entries. */
static void commit_store(tm_core *c, tm_space *sp, tm_outplan *p) {
  tm_tuple *t = p->tuple;
  tm_chain *ch, *next;
  uint32_t k;
  for (ch = p->fresh; ch != NULL; ch = next) {
    next = ch->eprev;
    ch->eprev = NULL;
    if (tm_index_find(&sp->ix, ch->key) != NULL) { /* duplicate key */
      tm_index_free_chain(c, &sp->bytes, ch);
      continue;
    }
    tm_index_insert(&sp->ix, ch);
  }
  for (k = 0; k < p->nlink; k++) {
    tm_chain *home = c->chains[k];
    if (home == NULL) home = tm_index_find(&sp->ix, c->keys[k]); /* fresh */
    t->ent[k].slot = k;
    tm_index_link(&sp->ix, home, &t->ent[k]);
  }
  for (; k <= t->arity; k++) { /* a group that is not indexed */
    t->ent[k].slot = k;
    t->ent[k].chain = NULL;
  }
  if (p->nlink > 1) t->ent[0].chain->indexed = 1;
  sp->ntuples++;
}

/* Commit: wake every planned waiter with its delivered copy; list the
 * records served (room reserved by plan_blobs). */
static uint32_t commit_wake(tm_core *c, tm_space *sp, tm_outplan *p) {
  tm_waiter *w, *next;
  uint32_t n = 0;
  for (w = p->woken; w != NULL; w = next) {
    uint32_t owner = w->owner;
    next = w->mnext;
    w->mnext = NULL;
    if (w->record != 0) {
      c->store.rwoken[c->store.nrwoken++] = w->record;
      tm_store_drop_record(c, sp, w);
      continue;
    }
    tm_store_cancel_waiter(c, w);
    tm_sched_wake(c, owner, TM_WAKE_TUPLE);
    n++;
  }
  return n;
}

static TM_NOINLINE tm_status out_op(tm_core *c, uint32_t id,
                                    const uint8_t *in, size_t len,
                                    uint32_t *woken) {
  tm_status st = TM_OK;
  tm_space *sp = space_get(c, id, &st);
  tm_outplan p;
  tm_waiter *in_w = NULL;
  tm_item it;
  tm_chain *group;
  uint32_t k;
  if (sp == NULL) return st;
  if ((st = tm_item_parse(c, in, len, 0, &it)) != TM_OK) return st;
  if (it.nformal > 0 && (st = check_tuple_formals(c, &it)) != TM_OK)
    return st;
  c->keys[0] = tm_arity_key(c, it.arity);
  c->chains[0] = group = arity_chain(c, sp, it.arity);
  if (group != NULL && !group->indexed && group->count < TM_INDEX_MIN &&
      sp->nwaiters == 0) {
    /* the common case on its own: a small group, nobody waiting, so no
     * key to compute and no chain to make: the plan is one block */
    tm_tuple *t = tuple_new(c, sp, &it);
    if (t == NULL) return tm_nomem(c, "storing a tuple");
    for (k = 1; k <= it.arity; k++) {
      t->ent[k].slot = k;
      t->ent[k].chain = NULL;
    }
    t->ent[0].slot = 0;
    tm_index_link(&sp->ix, group, &t->ent[0]);
    if (it.nformal > 0) group->nformal++;
    sp->ntuples++;
    return TM_OK;
  }
  memset(&p, 0, sizeof p);
  p.nlink = 1;
  if (group != NULL && (group->indexed || group->count >= TM_INDEX_MIN)) {
    p.nlink = it.arity + 1;
    if (!group->indexed) p.group = group; /* this out grows it past */
  }
  /* field keys: to link the tuple, or to find the waiters it may wake */
  if (p.nlink > 1 || sp->nwaiters > 0) tuple_keys(c, sp, &it);
  if (sp->nwaiters > 0) p.woken = collect_waiters(c, sp, &it, &in_w);
  st = plan_blobs(c, &it, &p);
  if (st == TM_OK && in_w == NULL && p.group != NULL) {
    st = index_prepare(c, sp, p.group, it.arity);
    for (k = 1; st == TM_OK && k <= it.arity; k++)
      if (c->chains[k] == NULL)
        c->chains[k] = tm_index_find(&sp->ix, c->keys[k]);
  }
  if (st == TM_OK && in_w == NULL) st = plan_store(c, sp, &it, &p);
  if (st != TM_OK) {
    plan_undo(c, sp, &p);
    return st;
  }
  if (woken != NULL) *woken = commit_wake(c, sp, &p);
  else commit_wake(c, sp, &p);
  if (p.tuple != NULL) {
    if (p.group != NULL) index_commit(c, sp, p.group, it.arity);
    commit_store(c, sp, &p);
    if (it.nformal > 0) p.tuple->ent[0].chain->nformal++;
  }
  tm_index_trim(c, &sp->bytes, &sp->ix, TM_INDEX_KEEP_EMPTY);
  return TM_OK;
}

/*
 * The small path of an out: a small tuple (scan_small) for a small group
 * of a space nobody waits on. The tuple block is allocated first and the
 * scan writes the offsets into it, so the bytes are read once and copied
 * once. TM_NOMATCH: not taken, nothing changed (the general path decides).
 */
static inline tm_status out_small(tm_core *c, uint32_t id, const uint8_t *in,
                                  size_t len) {
  uint32_t i = id & TM_ID_INDEX_MASK, n;
  tm_space *sp;
  tm_chain *g;
  tm_tuple *t;
  if (id == 0 || i >= c->store.hwm) return TM_NOMATCH;
  sp = &c->store.spaces[i];
  if (!sp->live || sp->gen != id >> TM_ID_INDEX_BITS || sp->nwaiters != 0 ||
      in == NULL || len < 2 || len > TM_MEMO_BYTES ||
      len > c->cfg.max_item_bytes)
    return TM_NOMATCH;
  n = (uint32_t)in[0] - 0x81u; /* arity - 1 */
  if (n >= TM_INDEX_SMALL - 1) return TM_NOMATCH;
  n++;
  g = arity_chain(c, sp, n);
  if (g == NULL || g->indexed || g->count >= TM_INDEX_MIN) return TM_NOMATCH;
  t = tm_mem_alloc_small(c, &sp->bytes, tuple_size(n, len));
  if (t == NULL) return tm_nomem(c, "storing a tuple");
  t->arity = n;
  t->len = (uint32_t)len;
  t->seq = sp->tseq++; /* a gap if the scan refuses it: order is kept */
  if (!scan_small(in, (uint32_t)len, n, TM_TUPLE_OFF(t))) {
    tuple_free(c, sp, t); /* back to its pool */
    return TM_NOMATCH;
  }
  for (i = 0; i <= n; i++) {
    t->ent[i].slot = i;
    t->ent[i].chain = NULL;
  }
  tm_copy(TM_TUPLE_BYTES(t), in, len);
  tm_index_link(&sp->ix, g, &t->ent[0]);
  sp->ntuples++;
  return TM_OK;
}

tm_status tm_space_out(tm_core *c, uint32_t id, const uint8_t *tuple,
                       size_t len, uint32_t *woken) {
  tm_status st;
  TM_API_CHECK(c != NULL);
  if (woken != NULL) *woken = 0;
  c->store.nrwoken = 0; /* tm_space_woken_records: this out's only */
  st = out_small(c, id, tuple, len);
  if (st == TM_NOMATCH) st = out_op(c, id, tuple, len, woken);
  return tm_done(c, st);
}
