/*
 * store_internal.h — what the pieces of the tuple store share (store*.c
 * only; the rest of the core sees store.h).
 *
 * The pieces: store.c (the space table), store_item.c (parsing tuples and
 * templates, the parse memo), store_find.c (searching: rdp, inp, count,
 * rd, in), store_out.c (out: storing, indexing a group, waking waiters),
 * store_wait.c (waiting templates and deliveries), store_check.c (the
 * consistency check and the digest). The invariants they keep together
 * are stated in store.h.
 *
 * The helpers below are inline because the small paths of out and in
 * call them; each is the code it was when the store was one file, and
 * those paths compile to the same instructions as then.
 */
#ifndef TM_STORE_INTERNAL_H
#define TM_STORE_INTERNAL_H

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

/* ---- spaces (store.c) ---------------------------------------------------- */

/* The failure of a lookup of a space that does not exist (out of line). */
TM_INTERNAL TM_COLD tm_space *tm_store_no_space(tm_core *c, uint32_t id,
                                                tm_status *st);

/* Every operation starts here: the check stays inline, the message not. */
static inline tm_space *space_get(tm_core *c, uint32_t id, tm_status *st) {
  uint32_t i = id & TM_ID_INDEX_MASK, gen = id >> TM_ID_INDEX_BITS;
  if (id != 0 && i < c->store.hwm && c->store.spaces[i].live &&
      c->store.spaces[i].gen == gen)
    return &c->store.spaces[i];
  return tm_store_no_space(c, id, st);
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

/* ---- parsing and the parse memo (store_item.c) --------------------------- */

/* The memo entry holding exactly these bytes, or NULL (memo_find). */
TM_INTERNAL TM_NOINLINE tm_memo *tm_memo_scan(tm_core *c, const uint8_t *in,
                                              size_t len);

static inline tm_memo *memo_find(tm_core *c, const uint8_t *in, size_t len) {
  tm_memo *m;
  if (len == 0 || len > TM_MEMO_BYTES) return NULL; /* 0 marks free entries */
  m = &c->memo[c->memo_last]; /* loops repeat one template: inline, no loop */
  if (m->len == len && tm_bytes_equal(m->b, in, (uint32_t)len)) return m;
  return tm_memo_scan(c, in, len);
}

/* Parse and canonicalise a tuple (memo 0) or a template (memo 1) into
 * *it; templates go through the parse memo (store_item.c). */
TM_INTERNAL tm_status tm_item_parse(tm_core *c, const uint8_t *in, size_t len,
                                    int memo, tm_item *it);

/* The keys of the template's actual fields (once per operation, or once
 * per memo entry). */
static inline void template_keys(tm_core *c, tm_item *it) {
  if (it->keyed) return;
  tm_match_keys(c, it->b, it->arity, it->tf);
  it->keyed = 1;
  if (it->memo != NULL) it->memo->keyed = 1;
}

/* ---- tuple records -------------------------------------------------------- */

/* The bytes standing for "a formal" in the key of a tuple's formal field:
 * 0xff (a break code) begins no CBOR item, so no actual field has it. */
static const uint8_t TM_FORMAL_MARK[1] = {0xff};

/* The index key of field `slot` (1..arity) of a stored tuple: its bytes',
 * or for a formal (S/Net) the formal mark's, so every formal tuple of a
 * field is on one chain, which a search of an actual adds to its own. */
static inline uint64_t field_key(const tm_core *c, uint32_t arity,
                                 uint32_t slot, const uint8_t *f,
                                 uint32_t n) {
  if (tm_match_is_formal(f, n))
    return tm_index_key(c->cfg.hash_seed, arity, slot, TM_FORMAL_MARK, 1);
  return tm_index_key(c->cfg.hash_seed, arity, slot, f, n);
}

/* Whether stored tuple a arrived before b (sequence numbers wrap: right
 * while fewer than 2^31 tuples arrived between them). */
static inline int tuple_older(const tm_tuple *a, const tm_tuple *b) {
  return (int32_t)(a->seq - b->seq) < 0;
}

static inline size_t tuple_size(uint32_t arity, size_t len) {
  return sizeof(tm_tuple) + (arity + 1) * (sizeof(tm_entry) + 4) + len;
}

static inline void tuple_free(tm_core *c, tm_space *sp, tm_tuple *t) {
  tm_mem_free_small(c, &sp->bytes, t, tuple_size(t->arity, t->len));
}

/* Whether a stored tuple holds a formal at the top level (S/Net). */
static inline int tm_tuple_has_formal(const tm_tuple *t) {
  const uint32_t *off = TM_TUPLE_OFF(t);
  uint32_t i;
  for (i = 0; i < t->arity; i++)
    if (tm_match_is_formal(TM_TUPLE_BYTES(t) + off[i], off[i + 1] - off[i]))
      return 1;
  return 0;
}

/* Unlink a stored tuple from all its chains and free it. O(arity). */
TM_INTERNAL void tm_tuple_remove(tm_core *c, tm_space *sp, tm_tuple *t);

/* ---- waiting (store_wait.c) ---------------------------------------------- */

/* The counter of wfirst counting waiters of this arity whose first actual
 * is field `first` (collisions share one: a count too high, never low). */
static inline uint32_t wfirst_slot(uint32_t arity, uint32_t first) {
  return (arity * 31u + first) & (TM_WFIRST - 1);
}

/* Register a waiter for process pi, which blocks (prepare all, then
 * commit); TM_BLOCKED, or a failure with nothing changed. */
TM_INTERNAL tm_status tm_store_add_waiter(tm_core *c, tm_space *sp,
                                          uint32_t id, tm_item *it,
                                          uint32_t pi, uint32_t kind,
                                          uint32_t clock, double timeout_at);

/* Register a waiter record (no process; prepare all, then commit):
 * TM_BLOCKED, or a failure with nothing changed. */
TM_INTERNAL tm_status tm_store_add_record(tm_core *c, tm_space *sp,
                                          uint32_t id, tm_item *it,
                                          uint32_t record, uint32_t kind,
                                          uint32_t prio, double deadline);
/* The waiting record `record` of the compiled template it, or NULL. */
TM_INTERNAL tm_waiter *tm_store_find_record(tm_core *c, tm_space *sp,
                                            tm_item *it, uint32_t record);

#endif
