/*
 * store.c — tuple spaces.
 *
 * Invariants (checked by tm_space_check):
 *  - Every stored tuple is canonical CBOR, an array of `arity` fields, and
 *    is linked by ent[0] into its arity chain (key of (arity, 0)). If that
 *    chain is `indexed`, ent[i] is also linked into the chain of
 *    (arity, i, bytes of field i-1), for every tuple of that arity; if not,
 *    ent[i].chain is NULL for i >= 1. A group of more than TM_INDEX_MIN
 *    tuples is always indexed (the out that grows it past the threshold
 *    links the whole group); a group stops being indexed only when it is
 *    empty. Chains are in arrival order, so walking any chain oldest-first
 *    and taking the first match yields the oldest matching tuple.
 *  - ntuples counts tuples; nwaiters counts waiters; every waiter is in
 *    exactly one chain's waiter list (its first actual field's key, or the
 *    arity key if it has none), and its owner process is waiting-tuple
 *    with proc->waiter pointing back to it.
 *  - `bytes` is the sum of the tuples, chains and the chain table of the
 *    space; waiters and deliveries are charged to their processes.
 *  - An operation does all its allocation before it changes anything
 *    ("prepare, then commit"), so a failure leaves contents unchanged;
 *    growing the chain table is the last fallible step of an out.
 */
#include <math.h>
#include <string.h>

#include "core.h"

/* A parsed tuple or template: canonical bytes and field offsets. */
typedef struct tm_item {
  const uint8_t *b; /* canonical bytes (input or c->canon) */
  size_t len;       /* their length */
  uint32_t arity;   /* fields */
  uint32_t nformal; /* top-level fields that are formals (tag 40992) */
  uint32_t *off;    /* arity + 1 offsets (c->offs or the memo entry's) */
  tm_tfield *tf;    /* templates: compiled fields (c->tf or the memo's) */
  tm_memo *memo;    /* the parse memo entry of these bytes, or NULL */
  int compiled;     /* tf is compiled */
  int keyed;        /* tf holds the keys of the actuals */
} tm_item;

#define TUPLE_OF(e) \
  ((tm_tuple *)((char *)((e) - (e)->slot) - offsetof(tm_tuple, ent)))

/* ---- spaces ------------------------------------------------------------ */

static TM_COLD tm_space *no_space(tm_core *c, uint32_t id, tm_status *st) {
  *st = tm_fail(c, TM_E_NO_SPACE, "no such space: id %u (it was destroyed "
                "or never created)", id);
  return NULL;
}

/* Every operation starts here: the check stays inline, the message not. */
static inline tm_space *space_get(tm_core *c, uint32_t id, tm_status *st) {
  uint32_t i = id & TM_ID_INDEX_MASK, gen = id >> TM_ID_INDEX_BITS;
  if (id != 0 && i < c->store.hwm && c->store.spaces[i].live &&
      c->store.spaces[i].gen == gen)
    return &c->store.spaces[i];
  return no_space(c, id, st);
}

/* The arity chain of `arity` (NULL if there is none): small arities are
 * remembered in the index, so the common lookup is one load. */
static inline tm_chain *arity_chain(tm_core *c, tm_space *sp,
                                    uint32_t arity) {
  tm_chain *ch;
  if (arity >= TM_INDEX_SMALL)
    return tm_index_find(&sp->ix, tm_arity_key(c, arity));
  if ((ch = sp->ix.small[arity]) != NULL) return ch;
  ch = tm_index_find(&sp->ix, c->akey[arity]);
  sp->ix.small[arity] = ch; /* only a chain in the table, or NULL */
  return ch;
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

/* The memo entry holding exactly these bytes, or NULL (memo_find). */
static TM_NOINLINE tm_memo *memo_scan(tm_core *c, const uint8_t *in,
                                      size_t len) {
  uint32_t k;
  for (k = 0; k < TM_MEMO_ENTRIES; k++) {
    tm_memo *m = &c->memo[k];
    if (m->len == len && tm_bytes_equal(m->b, in, (uint32_t)len)) {
      c->memo_last = k;
      return m;
    }
  }
  return NULL;
}

static inline tm_memo *memo_find(tm_core *c, const uint8_t *in, size_t len) {
  tm_memo *m;
  if (len == 0 || len > TM_MEMO_BYTES) return NULL; /* 0 marks free entries */
  m = &c->memo[c->memo_last]; /* loops repeat one template: inline, no loop */
  if (m->len == len && tm_bytes_equal(m->b, in, (uint32_t)len)) return m;
  return memo_scan(c, in, len);
}

/* Record a validated item (small enough) in the memo, replacing the
 * oldest entry; it then describes itself through the entry. */
static void memo_add(tm_core *c, tm_item *it) {
  tm_memo *m;
  if (it->len > TM_MEMO_BYTES || it->arity > TM_MEMO_ARITY) return;
  m = &c->memo[c->memo_next];
  c->memo_next = (c->memo_next + 1) % TM_MEMO_ENTRIES;
  m->len = (uint32_t)it->len;
  m->arity = it->arity;
  m->nformal = it->nformal;
  m->compiled = m->keyed = 0;
  memcpy(m->off, it->off, (it->arity + 1) * sizeof(uint32_t));
  memcpy(m->b, it->b, it->len);
  it->off = m->off;
  it->tf = m->tf;
  it->memo = m;
}

/* Parse and canonicalise bytes the memo does not hold into *it (see
 * parse_item); templates that pass the one-pass scan join the memo. */
static tm_status parse_new(tm_core *c, const uint8_t *in, size_t len,
                           int memo, tm_item *it) {
  const char *what = memo ? "template" : "tuple";
  size_t head;
  uint32_t i;
  tm_status st;
  it->tf = c->tf;
  it->memo = NULL;
  it->compiled = it->keyed = 0;
  st = in != NULL ? tm_cbor_scan_array(c, in, len, &it->arity, c->offs,
                                       &it->nformal)
                  : TM_NOMATCH;
  if (st == TM_OK) { /* canonical short array: used in place, one pass */
    it->b = in;
    it->len = len;
    it->off = c->offs;
    if (memo) memo_add(c, it);
    return TM_OK;
  }
  if (st < 0) return st;
  st = tm_cbor_prepare(c, in, len, &it->b, &it->len, NULL);
  if (st != TM_OK) return st;
  if ((st = tm_match_arity(c, it->b, what, &it->arity, &head)) != TM_OK)
    return st;
  if ((st = tm_scratch_reserve(c, it->arity + 1)) != TM_OK) return st;
  it->off = c->offs;
  it->tf = c->tf; /* the scratch arrays may have moved */
  tm_match_offsets(it->b, head, it->arity, it->off);
  it->nformal = 0;
  for (i = 0; i < it->arity; i++)
    if (tm_match_is_formal(it->b + it->off[i], it->off[i + 1] - it->off[i]))
      it->nformal++;
  return TM_OK;
}

/* Parse and canonicalise a tuple (memo 0) or a template (memo 1) into
 * *it. Templates go through the parse memo (loops repeat them); tuples,
 * which mostly differ from one out to the next, do not. A memo hit stays
 * inline: it is the common case of a template. */
static inline tm_status parse_item(tm_core *c, const uint8_t *in, size_t len,
                                   int memo, tm_item *it) {
  tm_memo *m;
  if (!memo || in == NULL || (m = memo_find(c, in, len)) == NULL)
    return parse_new(c, in, len, memo, it);
  /* seen, so valid: what validating and compiling it found is known */
  it->b = in;
  it->len = len;
  it->arity = m->arity;
  it->nformal = m->nformal;
  it->off = m->off;
  it->tf = m->tf;
  it->memo = m;
  it->compiled = m->compiled;
  it->keyed = m->keyed;
  return TM_OK;
}

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

/* ---- tuples ------------------------------------------------------------ */

static size_t tuple_size(uint32_t arity, size_t len) {
  return sizeof(tm_tuple) + (arity + 1) * (sizeof(tm_entry) + 4) + len;
}

static void tuple_free(tm_core *c, tm_space *sp, tm_tuple *t) {
  tm_mem_free_small(c, &sp->bytes, t, tuple_size(t->arity, t->len));
}

/* Unlink a stored tuple from all its chains and free it. O(arity). */
static void tuple_remove(tm_core *c, tm_space *sp, tm_tuple *t) {
  tm_chain *ach = t->ent[0].chain;
  uint32_t i;
  if (ach->indexed)
    for (i = 1; i <= t->arity; i++) tm_index_unlink(&sp->ix, &t->ent[i]);
  tm_index_unlink(&sp->ix, &t->ent[0]);
  if (ach->count == 0) ach->indexed = 0; /* an empty group starts over */
  sp->ntuples--;
  tuple_free(c, sp, t);
}

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

/* The keys of the template's actual fields (once per operation, or once
 * per memo entry). */
static void template_keys(tm_core *c, tm_item *it) {
  if (it->keyed) return;
  tm_match_keys(c, it->b, it->arity, it->tf);
  it->keyed = 1;
  if (it->memo != NULL) it->memo->keyed = 1;
}

/* Compile the template in `it` into it->tf and pick the chain to walk: the
 * arity chain of a group that is not indexed, else the shortest among the
 * arity chain and the chains of the template's actual fields. NULL: no
 * tuple can match. *indexed says which kind of chain it is. */
static tm_chain *best_chain(tm_core *c, tm_space *sp, tm_item *it,
                            int *indexed, tm_status *st) {
  uint32_t i;
  tm_chain *best, *ch;
  *st = template_compile(c, it);
  if (*st != TM_OK) return NULL;
  best = arity_chain(c, sp, it->arity);
  if (best == NULL || best->count == 0) return NULL;
  *indexed = (int)best->indexed;
  if (!best->indexed) return best; /* a small group: walk it */
  template_keys(c, it);
  for (i = 0; i < it->arity; i++) {
    if (it->tf[i].formal != TM_ACTUAL) continue;
    ch = tm_index_find(&sp->ix, it->tf[i].key);
    if (ch == NULL || ch->count == 0) return NULL;
    if (ch->count < best->count) best = ch;
  }
  return best;
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
  return indexed ? tuple_matches(it->tf, it->b, t)
                 : tuple_matches_bytes(it->tf, it->b, t);
}

/* The oldest stored tuple matching the template, or NULL. */
static tm_tuple *find_tuple(tm_core *c, tm_space *sp, tm_item *it,
                            tm_status *st) {
  int indexed = 0;
  tm_chain *best = best_chain(c, sp, it, &indexed, st);
  tm_entry *e;
  uint32_t n;
  if (best == NULL) return NULL;
  for (e = best->head, n = 0; e != NULL && n < best->count; e = e->next, n++) {
    tm_tuple *t = TUPLE_OF(e);
    if (walk_matches(c, it, indexed, t)) return t;
  }
  return NULL;
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
  if (g != NULL && g->indexed) return NULL;
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
    tuple_remove(c, sp, t);
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
  if ((st = parse_item(c, tmpl, len, 1, &it)) != TM_OK) return st;
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
  tm_chain *best;
  tm_entry *e;
  uint32_t n, k = 0;
  int indexed = 0;
  *count = 0;
  if (sp == NULL) return st;
  if ((st = parse_item(c, tmpl, len, 1, &it)) != TM_OK) return st;
  best = best_chain(c, sp, &it, &indexed, &st);
  if (best == NULL) return st;
  if (all_any(it.tf, it.arity)) { *count = best->count; return TM_OK; }
  for (e = best->head, n = 0; e != NULL && n < best->count; e = e->next, n++)
    if (walk_matches(c, &it, indexed, TUPLE_OF(e))) k++;
  *count = k;
  return TM_OK;
}

tm_status tm_space_count(tm_core *c, uint32_t id, const uint8_t *tmpl,
                         size_t len, uint32_t *count) {
  TM_API_CHECK(c != NULL && count != NULL);
  return tm_done(c, count_op(c, id, tmpl, len, count));
}

/* ---- out ----------------------------------------------------------------- */

/* A tuple holding a formal at the top level: the error for the first. */
static tm_status formal_in_tuple(tm_core *c, const tm_item *it) {
  uint32_t i;
  for (i = 0; i < it->arity; i++)
    if (tm_match_is_formal(it->b + it->off[i], it->off[i + 1] - it->off[i]))
      break;
  return tm_fail(c, TM_E_TEMPLATE, "a tuple may not contain a formal "
                 "(field %u, byte %u); formals belong in templates", i,
                 it->off[i]);
}

/* Keys of the field slots of a tuple into c->keys[1..arity], their chains
 * into c->chains (c->keys[0] and c->chains[0] are already set). */
static void tuple_keys(tm_core *c, tm_space *sp, const tm_item *it) {
  uint64_t seed = c->cfg.hash_seed;
  uint32_t i;
  for (i = 0; i < it->arity; i++) {
    const uint8_t *f = it->b + it->off[i];
    uint32_t n = it->off[i + 1] - it->off[i];
    c->keys[i + 1] = tm_index_key(seed, it->arity, i + 1, f, n);
    c->chains[i + 1] = tm_index_find(&sp->ix, c->keys[i + 1]);
  }
}

static int waiter_matches(const tm_waiter *w, const tm_item *it,
                          const uint64_t *keys) {
  const uint8_t *pb = TM_WAITER_BYTES(w);
  uint32_t i;
  if (w->arity != it->arity) return 0;
  for (i = 0; i < it->arity; i++)
    if (!tm_match_field(&w->f[i], pb, it->b + it->off[i],
                        it->off[i + 1] - it->off[i], keys[i + 1]))
      return 0;
  return 1;
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

/* The waiters the new tuple satisfies, in arrival order: every rd, and
 * the first in (returned in *in_w); later ins are left waiting. */
static tm_waiter *collect_waiters(tm_core *c, const tm_item *it,
                                  tm_waiter **in_w) {
  tm_waiter *list = NULL, *out = NULL, **tail = &out, *w, *next;
  uint32_t k, n;
  tm_wlink *l;
  for (k = 0; k <= it->arity; k++) {
    tm_chain *ch = c->chains[k];
    if (ch == NULL) continue;
    for (l = ch->whead, n = 0; l != NULL && n < ch->nwait; l = l->next, n++) {
      w = (tm_waiter *)l;
      /* `listed` guards against a chain reached twice (key collision) */
      if (w->listed || !waiter_matches(w, it, c->keys)) continue;
      w->listed = 1;
      w->mnext = list;
      list = w;
    }
  }
  *in_w = NULL;
  for (w = sort_by_seq(list); w != NULL; w = next) {
    next = w->mnext;
    w->listed = 0;
    w->mnext = NULL;
    if (w->kind == TM_WAIT_IN && *in_w != NULL) continue;
    if (w->kind == TM_WAIT_IN) *in_w = w;
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
    tm_proc *pr = &c->sched.procs[w->owner];
    if (pr->delivery != NULL) tm_store_free_blob(c, w->owner, pr->delivery);
    pr->delivery = NULL;
  }
  for (ch = p->fresh; ch != NULL; ch = next) {
    next = ch->eprev;
    tm_index_free_chain(c, &sp->bytes, ch);
  }
  if (p->tuple != NULL) tuple_free(c, sp, p->tuple);
}

/* A copy of the tuple for each woken waiter's process. */
static tm_status plan_blobs(tm_core *c, const tm_item *it, tm_outplan *p) {
  tm_waiter *w;
  for (w = p->woken; w != NULL; w = w->mnext) {
    tm_proc *pr = &c->sched.procs[w->owner];
    tm_blob *b = tm_mem_alloc(c, &pr->live, sizeof *b + it->len);
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
  return tm_index_key(c->cfg.hash_seed, t->arity, slot,
                      TM_TUPLE_BYTES(t) + off[slot - 1],
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

/* Commit: wake every planned waiter with its delivered copy. */
static uint32_t commit_wake(tm_core *c, tm_outplan *p) {
  tm_waiter *w, *next;
  uint32_t n = 0;
  for (w = p->woken; w != NULL; w = next) {
    uint32_t owner = w->owner;
    next = w->mnext;
    w->mnext = NULL;
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
  if ((st = parse_item(c, in, len, 0, &it)) != TM_OK) return st;
  if (it.nformal > 0) return formal_in_tuple(c, &it);
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
  if (sp->nwaiters > 0) p.woken = collect_waiters(c, &it, &in_w);
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
  if (woken != NULL) *woken = commit_wake(c, &p);
  else commit_wake(c, &p);
  if (p.tuple != NULL) {
    if (p.group != NULL) index_commit(c, sp, p.group, it.arity);
    commit_store(c, sp, &p);
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
  st = out_small(c, id, tuple, len);
  if (st == TM_NOMATCH) st = out_op(c, id, tuple, len, woken);
  return tm_done(c, st);
}

/* ---- waiters --------------------------------------------------------------- */

void tm_store_cancel_waiter(tm_core *c, tm_waiter *w) {
  tm_space *sp = &c->store.spaces[w->space & TM_ID_INDEX_MASK];
  tm_proc *pr = &c->sched.procs[w->owner];
  tm_index_wunlink(&sp->ix, w->chain, &w->link);
  sp->nwaiters--;
  pr->waiter = NULL;
  tm_mem_free(c, &pr->live, w, w->size);
}

void tm_store_free_blob(tm_core *c, uint32_t pi, tm_blob *b) {
  tm_mem_free(c, &c->sched.procs[pi].live, b, sizeof *b + b->len);
}

/* Key a waiter registers under: its first actual, else the arity key. */
static uint64_t waiter_key(tm_core *c, tm_item *it) {
  uint32_t i;
  template_keys(c, it); /* the waiter keeps them: an out compares keys */
  for (i = 0; i < it->arity; i++)
    if (it->tf[i].formal == TM_ACTUAL) return it->tf[i].key;
  return tm_arity_key(c, it->arity);
}

static tm_waiter *waiter_new(tm_core *c, tm_proc *pr, const tm_item *it) {
  size_t size = sizeof(tm_waiter) + it->arity * sizeof(tm_tfield) + it->len;
  tm_waiter *w = tm_mem_alloc(c, &pr->live, size);
  if (w == NULL) return NULL;
  memset(w, 0, sizeof *w);
  w->size = size;
  w->arity = it->arity;
  w->len = (uint32_t)it->len;
  memcpy(w->f, it->tf, it->arity * sizeof(tm_tfield));
  memcpy(TM_WAITER_BYTES(w), it->b, it->len);
  return w;
}

/* Register a waiter for process pi (prepare all, then commit). */
static tm_status add_waiter(tm_core *c, tm_space *sp, uint32_t id,
                            tm_item *it, uint32_t pi, uint32_t kind,
                            uint32_t clock, double timeout_at) {
  tm_proc *pr = &c->sched.procs[pi];
  uint64_t key = waiter_key(c, it);
  tm_chain *ch = tm_index_find(&sp->ix, key), *fresh = NULL;
  tm_waiter *w = waiter_new(c, pr, it);
  tm_status st = TM_OK;
  if (w == NULL) return tm_nomem(c, "registering a waiting template");
  if (ch == NULL && (fresh = tm_index_new_chain(c, &sp->bytes, key)) == NULL)
    st = tm_nomem(c, "creating an index chain");
  if (st == TM_OK && isfinite(timeout_at)) st = tm_timer_reserve(c, clock);
  if (st == TM_OK && fresh != NULL)
    st = tm_index_reserve(c, &sp->bytes, &sp->ix, 1);
  if (st != TM_OK) {
    if (fresh != NULL) tm_index_free_chain(c, &sp->bytes, fresh);
    tm_mem_free(c, &pr->live, w, w->size);
    return st;
  }
  if (fresh != NULL) tm_index_insert(&sp->ix, ch = fresh);
  if (pr->delivery != NULL) { /* uncollected copy from an earlier wake-up */
    tm_store_free_blob(c, pi, pr->delivery);
    pr->delivery = NULL;
  }
  w->chain = ch;
  w->seq = sp->wseq++;
  w->space = id;
  w->owner = pi;
  w->kind = kind;
  tm_index_wlink(&sp->ix, ch, &w->link);
  sp->nwaiters++;
  pr->waiter = w;
  if (isfinite(timeout_at))
    pr->wait_timer = tm_timer_arm_wait(c, pi, clock, timeout_at);
  tm_sched_block(c, pi, TM_PROC_WAIT_TUPLE);
  return TM_BLOCKED;
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
  if ((st = parse_item(c, tmpl, len, 1, &it)) != TM_OK) return st;
  t = find_tuple(c, sp, &it, &st);
  if (st != TM_OK) return st;
  if (t != NULL) return take(c, sp, t, kind == TM_WAIT_IN, out);
  if (!(timeout_at > c->timers.clocks[clock].now)) return TM_NOMATCH;
  return add_waiter(c, sp, id, &it, pi, kind, clock, timeout_at);
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

/* ---- the parse memo -------------------------------------------------------- */

/* Every memo entry says what validating and compiling its bytes says. */
tm_status tm_store_check_memo(tm_core *c) {
  uint32_t k, i, arity = 0, nformal = 0;
  if (c->memo_last >= TM_MEMO_ENTRIES)
    return tm_fail(c, TM_E_CORRUPT, "parse memo: last hit %u out of range",
                   c->memo_last);
  for (k = 0; k < TM_MEMO_ENTRIES; k++) {
    const tm_memo *m = &c->memo[k];
    if (m->len == 0) continue;
    if (m->len > TM_MEMO_BYTES || m->arity > TM_MEMO_ARITY ||
        tm_cbor_scan_array(c, m->b, m->len, &arity, c->offs, &nformal) != TM_OK ||
        arity != m->arity || nformal != m->nformal ||
        memcmp(c->offs, m->off, (arity + 1) * sizeof(uint32_t)) != 0)
      return tm_fail(c, TM_E_CORRUPT, "parse memo: entry %u does not "
                     "describe its bytes", k);
    if (!m->compiled) continue;
    if (tm_match_compile(c, m->b, m->off, arity, nformal, c->tf) != TM_OK)
      return tm_fail(c, TM_E_CORRUPT, "parse memo: entry %u is compiled but "
                     "does not compile", k);
    if (m->keyed) tm_match_keys(c, m->b, arity, c->tf);
    for (i = 0; i < arity; i++)
      if (c->tf[i].formal != m->tf[i].formal || c->tf[i].tag != m->tf[i].tag ||
          c->tf[i].off != m->tf[i].off || c->tf[i].len != m->tf[i].len ||
          (m->keyed && c->tf[i].key != m->tf[i].key))
        return tm_fail(c, TM_E_CORRUPT, "parse memo: entry %u holds a wrong "
                       "compiled field %u", k, i);
  }
  return TM_OK;
}

/* ---- destruction, statistics, checks ------------------------------------- */

/* Wake the owners of all waiters, free all tuples and chains. The loop
 * bounds are taken before the loops: the counts shrink as they run. */
static void space_clear(tm_core *c, tm_space *sp) {
  uint32_t i, guard, nw = sp->nwaiters, nt = sp->ntuples;
  for (i = 0; i < sp->ix.cap; i++) {
    tm_chain *ch = sp->ix.slots[i];
    for (guard = 0; ch != NULL && ch->whead != NULL && guard < nw; guard++)
      tm_sched_wake(c, ((tm_waiter *)ch->whead)->owner, TM_WAKE_INTERRUPT);
    for (guard = 0; ch != NULL && ch->head != NULL && guard < nt; guard++)
      tuple_remove(c, sp, TUPLE_OF(ch->head));
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
                          : tm_index_key(c->cfg.hash_seed, t->arity, i,
                                         b + off[i - 1], off[i] - off[i - 1]);
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
                              const tm_chain *ch) {
  const tm_proc *pr;
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
    uint32_t n;
    if (ch == NULL) continue;
    *bytes += tm_mem_size(sizeof(tm_chain));
    /* counts were verified by tm_index_check; they bound the walks */
    for (e = ch->head, n = 0; e != NULL && n < ch->count; e = e->next, n++) {
      if (e->slot != 0) continue;
      (*nt)++;
      if ((st = check_tuple(c, TUPLE_OF(e), bytes)) != TM_OK) return st;
    }
    for (l = ch->whead, n = 0; l != NULL && n < ch->nwait; l = l->next, n++, (*nw)++)
      if ((st = check_waiter(c, id, (const tm_waiter *)l, ch)) != TM_OK)
        return st;
  }
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
