/*
 * cbor_scan.c — reading CBOR: heads (of checked bytes, and of unchecked
 * input), the failure messages, and the validating scan, which walks
 * unchecked input once, rejects anything not well-formed (with the byte
 * offset and, in a top-level array, the field), and notes whether it is
 * already in canonical form. One file: the scan's frames stay as small as
 * they were only while the head readers it calls are in its unit (they
 * are inlined there, so their out-parameters need no stack).
 *
 * Invariants:
 *  - tm_cbor_head and tm_cbor_skip are only given checked canonical bytes
 *    (cbor.h): they do no bounds checks.
 *  - The scan (and tm_cbor_read_head) never reads past r->n and never
 *    recurses deeper than cfg.max_depth + 1; every loop consumes at least
 *    one byte per step.
 *  - r->canon only ever goes from 1 to 0; a head longer than the shortest
 *    clears it.
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

/* ---- the validating scan ------------------------------------------------ */

/* Offset of the first invalid UTF-8 byte in s[0..n), or n; *why says why. */
static size_t utf8_invalid(const uint8_t *s, size_t n, const char **why) {
  size_t i = 0, k, need;
  uint32_t cp, min;
  while (i < n) {
    uint64_t w;
    if (n - i >= 8 && (memcpy(&w, s + i, 8), (w & 0x8080808080808080ull) == 0)) {
      i += 8;
      continue;
    }
    if (s[i] < 0x80) { i++; continue; }
    if (s[i] >= 0xc2 && s[i] <= 0xdf) { need = 1; cp = s[i] & 0x1f; min = 0x80; }
    else if (s[i] >= 0xe0 && s[i] <= 0xef) { need = 2; cp = s[i] & 0x0f; min = 0x800; }
    else if (s[i] >= 0xf0 && s[i] <= 0xf4) { need = 3; cp = s[i] & 0x07; min = 0x10000; }
    else { *why = "a leading byte (0x00..0x7F, 0xC2..0xF4)"; return i; }
    if (n - i - 1 < need) { *why = "a complete sequence (it is cut short)"; return i; }
    for (k = 1; k <= need; k++) {
      if ((s[i + k] & 0xc0) != 0x80) { *why = "a continuation byte (0x80..0xBF)"; return i + k; }
      cp = cp << 6 | (s[i + k] & 0x3f);
    }
    if (cp < min) { *why = "the shortest form (overlong encoding)"; return i; }
    if (cp >= 0xd800 && cp <= 0xdfff) { *why = "a scalar value (surrogate)"; return i; }
    if (cp > 0x10ffff) { *why = "a code point up to U+10FFFF"; return i; }
    i += need + 1;
  }
  return n;
}

/* A definite string body of `len` bytes at r->pos. */
static tm_status scan_body(tm_rd *r, size_t at, unsigned major, uint64_t len) {
  const char *why = "";
  size_t bad_at;
  if (len > r->n - r->pos)
    return tm_cbor_badn(r, at, "truncated: string of %llu bytes declared, "
                        "fewer remain", len);
  if (major == TM_MT_TEXT) {
    bad_at = utf8_invalid(r->s + r->pos, (size_t)len, &why);
    if (bad_at < len)
      return tm_cbor_bad(r, r->pos + bad_at, TM_E_MALFORMED,
                         "invalid UTF-8 in text string: expected ", why);
  }
  r->pos += (size_t)len;
  return TM_OK;
}

static tm_status scan_string(tm_rd *r, size_t at, unsigned major, unsigned ai,
                             uint64_t arg) {
  unsigned cm, cai;
  uint64_t clen;
  tm_status st;
  if (ai != 31) return scan_body(r, at, major, arg);
  r->canon = 0;
  while (r->pos < r->n) {
    size_t cat = r->pos;
    if (r->s[cat] == 0xff) { r->pos++; return TM_OK; }
    if ((st = tm_cbor_read_head(r, &cm, &cai, &clen)) != TM_OK) return st;
    if (cm != major || cai == 31)
      return tm_cbor_badn(r, cat, "a chunk of an indefinite-length string "
                          "must be a definite string of the same type, found "
                          "initial byte 0x%02llx", r->s[cat]);
    if ((st = scan_body(r, cat, major, clen)) != TM_OK) return st;
  }
  return tm_cbor_bad(r, r->pos, TM_E_MALFORMED, "truncated: ",
                     "indefinite-length string has no break code");
}

static TM_COLD tm_status too_deep(tm_rd *r, size_t at) {
  char msg[96];
  snprintf(msg, sizeof msg, "nesting deeper than %u levels", r->c->cfg.max_depth);
  return tm_cbor_bad(r, at, TM_E_LIMIT, msg, "");
}

static tm_status enter(tm_rd *r, size_t at) {
  if (r->depth >= r->c->cfg.max_depth) return too_deep(r, at);
  r->depth++;
  return TM_OK;
}

static tm_status scan_array(tm_rd *r, size_t at, unsigned ai, uint64_t arg) {
  int top = r->depth == 0;
  uint64_t i;
  tm_status st = enter(r, at);
  if (st != TM_OK) return st;
  if (ai != 31 && arg > r->n - r->pos)
    return tm_cbor_badn(r, at,
                        "truncated: array of %llu items declared, fewer bytes "
                        "remain", arg);
  if (ai == 31) r->canon = 0;
  for (i = 0; ai != 31 ? i < arg : r->pos < r->n; i++) {
    if (ai == 31 && r->s[r->pos] == 0xff) break;
    if (top) r->field = (long)i;
    if ((st = tm_cbor_scan_item(r)) != TM_OK) return st;
  }
  if (top) r->field = -1;
  if (ai == 31) {
    if (r->pos >= r->n)
      return tm_cbor_bad(r, r->pos, TM_E_MALFORMED, "truncated: ",
                         "indefinite-length array has no break code");
    r->pos++;
  }
  r->depth--;
  return TM_OK;
}


/* One key/value pair; checks order against the previous key [*pk, *pe). */
static tm_status scan_pair(tm_rd *r, uint64_t i, size_t *pk, size_t *pe) {
  size_t ks = r->pos;
  tm_status st = tm_cbor_scan_item(r);
  if (st != TM_OK) return st;
  if (r->canon && i > 0) {
    int d = key_cmp(r->s + *pk, *pe - *pk, r->s + ks, r->pos - ks);
    if (d == 0) return tm_cbor_bad(r, ks, TM_E_MALFORMED, "duplicate map key",
                                   "");
    if (d > 0) r->canon = 0;
  }
  *pk = ks;
  *pe = r->pos;
  if (r->pos < r->n && r->s[r->pos] == 0xff)
    return tm_cbor_bad(r, r->pos, TM_E_MALFORMED,
                       "break code where a map value ", "was expected");
  return tm_cbor_scan_item(r);
}

static tm_status scan_map(tm_rd *r, size_t at, unsigned ai, uint64_t arg) {
  size_t pk = 0, pe = 0;
  uint64_t i;
  tm_status st = enter(r, at);
  if (st != TM_OK) return st;
  if (ai != 31 && arg > (r->n - r->pos) / 2)
    return tm_cbor_badn(r, at,
                        "truncated: map of %llu pairs declared, fewer bytes "
                        "remain", arg);
  if (ai == 31) r->canon = 0;
  for (i = 0; ai != 31 ? i < arg : r->pos < r->n; i++) {
    if (ai == 31 && r->s[r->pos] == 0xff) break;
    if ((st = scan_pair(r, i, &pk, &pe)) != TM_OK) return st;
  }
  if (ai == 31) {
    if (r->pos >= r->n)
      return tm_cbor_bad(r, r->pos, TM_E_MALFORMED, "truncated: ",
                         "indefinite-length map has no break code");
    r->pos++;
  }
  r->depth--;
  return TM_OK;
}

/* Tags 2/3 must wrap a byte string; canonical only if it needs > 8 bytes
 * and has no leading zero. */
static tm_status scan_bignum(tm_rd *r, uint64_t tag) {
  size_t cs = r->pos;
  unsigned major;
  uint64_t len;
  tm_status st;
  if (cs >= r->n)
    return tm_cbor_bad(r, cs, TM_E_MALFORMED, "truncated: ",
                       "tag without content");
  if ((r->s[cs] >> 5) != TM_MT_BYTES)
    return tm_cbor_badn(r, cs,
                        "a bignum (tag 2 or 3) must enclose a byte string, "
                        "found initial byte 0x%02llx", r->s[cs]);
  if ((st = tm_cbor_scan_item(r)) != TM_OK) return st;
  (void)tag;
  if ((r->s[cs] & 31) == 31) { r->canon = 0; return TM_OK; }
  cs += tm_cbor_head(r->s + cs, &major, &len);
  if (len <= 8 || r->s[cs] == 0) r->canon = 0;
  return TM_OK;
}

static tm_status scan_tag(tm_rd *r, size_t at, unsigned ai, uint64_t tag) {
  tm_status st;
  if (ai == 31)
    return tm_cbor_bad(r, at, TM_E_MALFORMED,
                       "indefinite length is not allowed ",
                       "for a tag (major type 6)");
  if ((st = enter(r, at)) != TM_OK) return st;
  st = (tag == 2 || tag == 3) ? scan_bignum(r, tag) : tm_cbor_scan_item(r);
  r->depth--;
  return st;
}

static tm_status scan_simple(tm_rd *r, size_t at, unsigned ai, uint64_t v) {
  uint16_t h;
  uint32_t f;
  double d;
  if (ai == 31)
    return tm_cbor_bad(r, at, TM_E_MALFORMED, "unexpected break code (0xff) ",
                       "outside an indefinite-length item");
  if (ai == 24 && v < 32)
    return tm_cbor_badn(r, at, "a two-byte simple value must be at least 32, "
                        "found %llu", v);
  if (ai < 25) return TM_OK;
  d = bits_to_double(ai, v);
  if (d != d) {
    if (ai != 25 || v != 0x7e00) r->canon = 0;
  } else if (ai == 26 && double_to_half(d, &h)) {
    r->canon = 0;
  } else if (ai == 27 && double_to_float(d, &f)) {
    r->canon = 0;
  }
  return TM_OK;
}

tm_status tm_cbor_scan_item(tm_rd *r) {
  size_t at = r->pos;
  unsigned major = 0, ai = 0;
  uint64_t arg = 0;
  tm_status st = tm_cbor_read_head(r, &major, &ai, &arg);
  if (st != TM_OK) return st;
  switch (major) {
    case TM_MT_UINT:
    case TM_MT_NINT:
      if (ai == 31)
        return tm_cbor_bad(r, at, TM_E_MALFORMED,
                           "indefinite length is not allowed ",
                           "for an integer");
      return TM_OK;
    case TM_MT_BYTES:
    case TM_MT_TEXT: return scan_string(r, at, major, ai, arg);
    case TM_MT_ARRAY: return scan_array(r, at, ai, arg);
    case TM_MT_MAP: return scan_map(r, at, ai, arg);
    case TM_MT_TAG: return scan_tag(r, at, ai, arg);
    default: return scan_simple(r, at, ai, arg);
  }
}
