/*
 * cbor_head.c — reading CBOR heads: of checked bytes, and of unchecked
 * input (with the messages of the failures); the lengths of checked items.
 *
 * Invariants:
 *  - tm_cbor_head and tm_cbor_skip are only given checked canonical bytes
 *    (cbor.h): they do no bounds checks.
 *  - tm_cbor_read_head reads unchecked input: it never reads past r->n and
 *    clears r->canon for a head longer than the shortest.
 *  - Failure messages carry the byte offset and, inside a top-level array,
 *    the field.
 */
#include <stdio.h>
#include <string.h>

#include "cbor_read.h"

/* Record a failure at byte `at` with the field context. */
tm_status tm_cbor_bad(tm_rd *r, size_t at, tm_status st, const char *what,
                      const char *detail) {
  const char *kind = st == TM_E_LIMIT ? "CBOR limit exceeded" : "malformed CBOR";
  if (r->field >= 0)
    return tm_fail(r->c, st, "%s at byte %zu (field %ld): %s%s", kind, at,
                   r->field, what, detail);
  return tm_fail(r->c, st, "%s at byte %zu: %s%s", kind, at, what, detail);
}

/* Variant with one formatted number in the message. */
tm_status tm_cbor_badn(tm_rd *r, size_t at, const char *fmt,
                       unsigned long long v) {
  char msg[160];
  snprintf(msg, sizeof msg, fmt, v);
  return tm_cbor_bad(r, at, TM_E_MALFORMED, msg, "");
}

/* ---- heads ------------------------------------------------------------ */

size_t tm_cbor_head(const uint8_t *p, unsigned *major, uint64_t *arg) {
  unsigned ai = p[0] & 31;
  size_t k, i;
  uint64_t v = 0;
  *major = p[0] >> 5;
  if (ai < 24) { *arg = ai; return 1; }
  k = (size_t)1 << (ai - 24);
  for (i = 0; i < k; i++) v = v << 8 | p[1 + i];
  *arg = v;
  return 1 + k;
}

size_t tm_cbor_skip(const uint8_t *p) {
  const uint8_t *q = p;
  uint64_t pending = 1, arg;
  unsigned major;
  while (pending > 0) { /* canonical data: definite lengths only */
    q += tm_cbor_head(q, &major, &arg);
    pending--;
    if (major == TM_MT_BYTES || major == TM_MT_TEXT) q += arg;
    else if (major == TM_MT_ARRAY) pending += arg;
    else if (major == TM_MT_MAP) pending += 2 * arg;
    else if (major == TM_MT_TAG) pending += 1;
  }
  return (size_t)(q - p);
}

tm_status tm_cbor_read_head(tm_rd *r, unsigned *major, unsigned *ai,
                            uint64_t *arg) {
  size_t at = r->pos, k, i;
  uint8_t ib;
  uint64_t v = 0;
  if (at >= r->n)
    return tm_cbor_bad(r, at, TM_E_MALFORMED,
                       "truncated: expected a data item, ",
                       "the input ends here");
  ib = r->s[at];
  *major = ib >> 5;
  *ai = ib & 31;
  r->pos++;
  if (*ai < 24 || *ai == 31) { *arg = *ai < 24 ? *ai : 0; return TM_OK; }
  if (*ai > 27)
    return tm_cbor_badn(r, at, "reserved additional information in initial "
                        "byte 0x%02llx", ib);
  k = (size_t)1 << (*ai - 24);
  if (r->n - r->pos < k)
    return tm_cbor_badn(r, at,
                        "truncated: initial byte 0x%02llx needs more argument "
                        "bytes than remain", ib);
  for (i = 0; i < k; i++) v = v << 8 | r->s[r->pos + i];
  r->pos += k;
  if (*major != TM_MT_SIMPLE && v < head_min[*ai - 24]) r->canon = 0;
  *arg = v;
  return TM_OK;
}
