/*
 * store_item.c — parsing tuples and templates into items (tm_item), and
 * the parse memo that spares a loop re-parsing the template it repeats.
 *
 * Invariants:
 *  - An item's bytes are canonical CBOR, a definite array of `arity`
 *    fields, and off[0..arity] are their offsets (off[arity] = length).
 *  - A memo entry describes exactly its bytes: what validating (and,
 *    once compiled / keyed, compiling) them gives; failures are never
 *    recorded. tm_store_check_memo re-derives every entry.
 *  - The memo holds templates only; tuples mostly differ from one out to
 *    the next and would only evict them.
 */
#include <string.h>

#include "store_internal.h"

/* The memo entry holding exactly these bytes, or NULL (memo_find). */
tm_memo *tm_memo_scan(tm_core *c, const uint8_t *in, size_t len) {
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
 * tm_item_parse); templates that pass the one-pass scan join the memo. */
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
 * which mostly differ from one out to the next, do not. A memo hit is
 * the common case of a template: it returns before any parsing. */
tm_status tm_item_parse(tm_core *c, const uint8_t *in, size_t len,
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
