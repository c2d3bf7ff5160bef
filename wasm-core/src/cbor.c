/*
 * cbor.c — the gate every tuple and template passes (tm_cbor_prepare):
 * validate, and rewrite into canonical form only when the input is not.
 *
 * Two passes, and usually only the first:
 *  1. scan (cbor_scan.c): walk the input once, reject anything not
 *     well-formed, and note whether it is already in deterministic form.
 *     Canonical input (what our JS encoder writes) is then used in place:
 *     no copy, no re-encoding.
 *  2. emit (cbor_emit.c, only for non-canonical input): rewrite into
 *     c->canon (RFC 8949 §4.2.1).
 *
 * Invariant: what prepare returns is one well-formed canonical item within
 * cfg.max_item_bytes, or a failure with a message; nothing else passes.
 */
#include <string.h>

#include "cbor_read.h"

tm_status tm_cbor_prepare(tm_core *c, const uint8_t *in, size_t len,
                          const uint8_t **out, size_t *out_len, int *was) {
  tm_rd r;
  tm_wr w;
  tm_status st;
  if (len == 0 || in == NULL)
    return tm_fail(c, TM_E_MALFORMED,
                   "malformed CBOR at byte 0: expected a data item, the input "
                   "is empty");
  if (len > c->cfg.max_item_bytes)
    return tm_fail(c, TM_E_LIMIT,
                   "CBOR limit exceeded: item of %zu bytes, the limit is %u",
                   len, c->cfg.max_item_bytes);
  memset(&r, 0, sizeof r);
  r.c = c; r.s = in; r.n = len; r.canon = 1; r.field = -1;
  if ((st = tm_cbor_scan_item(&r)) != TM_OK) return st;
  if (r.pos != len)
    return tm_cbor_bad(&r, r.pos, TM_E_MALFORMED,
                       "trailing bytes after the data ", "item");
  if (was != NULL) *was = r.canon;
  if (r.canon) { *out = in; *out_len = len; return TM_OK; }
  w.r = r;
  w.r.pos = 0; w.r.depth = 0; w.r.field = -1;
  w.out = &c->canon;
  w.stk = &c->stack;
  c->canon.len = 0;
  c->stack.len = 0;
  if ((st = tm_cbor_emit_item(&w)) != TM_OK) return st;
  if (c->canon.len > c->cfg.max_item_bytes)
    return tm_fail(c, TM_E_LIMIT,
                   "CBOR limit exceeded: canonical form of %zu bytes, the "
                   "limit is %u", c->canon.len, c->cfg.max_item_bytes);
  *out = c->canon.p;
  *out_len = c->canon.len;
  return TM_OK;
}

tm_status tm_cbor_canonicalize(tm_core *c, const uint8_t *in, size_t len,
                               tm_bytes *out, int *was_canonical) {
  const uint8_t *b = NULL;
  size_t n = 0;
  tm_status st;
  TM_API_CHECK(c != NULL && out != NULL);
  st = tm_cbor_prepare(c, in, len, &b, &n, was_canonical);
  if (st == TM_OK) st = tm_xfer_put(c, b, n, out);
  return tm_done(c, st);
}
