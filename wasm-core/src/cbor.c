/*
 * cbor.c — validating reader and canonicaliser for CBOR (RFC 8949).
 *
 * Two passes, and usually only the first:
 *  1. scan: walk the input once, reject anything not well-formed (with the
 *     byte offset and, in a top-level array, the field), and note whether
 *     it is already in deterministic form. Canonical input (what our JS
 *     encoder writes) is then used in place: no copy, no re-encoding.
 *  2. emit (only for non-canonical input): rewrite into c->canon with
 *     shortest heads, definite lengths, shortest exact floats, canonical
 *     NaN, small bignums as integers, and map keys sorted bytewise —
 *     detecting keys that become duplicates once canonical.
 *
 * Invariants:
 *  - scan never reads past in[len) and never recurses deeper than
 *    cfg.max_depth + 1; every loop consumes at least one byte per step.
 *  - emit only runs on input that scan accepted, so its reads need no
 *    bounds checks beyond those scan proved.
 *  - The `canon` flag only ever goes from 1 to 0 during a scan.
 */
#include <stdio.h>
#include <string.h>

#include "core.h"

/* Reader state shared by scan and emit. */
typedef struct tm_rd {
  tm_core *c;
  const uint8_t *s; /* input */
  size_t n;         /* input length */
  size_t pos;       /* next byte to read */
  uint32_t depth;   /* current nesting */
  int canon;        /* input is canonical so far */
  long field;       /* top-level array element being read, or -1 */
} tm_rd;

/* Error paths stay out of line (TM_NOINLINE, alloc.h): their message
 * buffers must not enlarge the frames of the recursive reader (that bounds
 * the stack per level). */

/* Record a failure at byte `at` with the field context. */
static TM_COLD tm_status bad(tm_rd *r, size_t at, tm_status st, const char *what,
                     const char *detail) {
  const char *kind = st == TM_E_LIMIT ? "CBOR limit exceeded" : "malformed CBOR";
  if (r->field >= 0)
    return tm_fail(r->c, st, "%s at byte %zu (field %ld): %s%s", kind, at,
                   r->field, what, detail);
  return tm_fail(r->c, st, "%s at byte %zu: %s%s", kind, at, what, detail);
}

/* Variant with one formatted number in the message. */
static TM_COLD tm_status badn(tm_rd *r, size_t at, const char *fmt,
                      unsigned long long v) {
  char msg[160];
  snprintf(msg, sizeof msg, fmt, v);
  return bad(r, at, TM_E_MALFORMED, msg, "");
}

/* ---- floats ---------------------------------------------------------- */

static double half_to_double(uint16_t h) {
  uint64_t sign = (uint64_t)(h >> 15) << 63, bits;
  uint32_t exp = (h >> 10) & 31, man = h & 1023;
  double d;
  if (exp == 0) { /* zero or subnormal: man * 2^-24 */
    d = (double)man / 16777216.0;
    return sign ? -d : d;
  }
  if (exp == 31)
    bits = sign | 0x7ff0000000000000ull | ((uint64_t)man << 42);
  else
    bits = sign | (uint64_t)(exp - 15 + 1023) << 52 | (uint64_t)man << 42;
  memcpy(&d, &bits, 8);
  return d;
}

/* If d (not NaN) is exactly a binary16 value, store it in *h. */
static int double_to_half(double d, uint16_t *h) {
  uint64_t bits, man;
  int e;
  uint16_t sign;
  memcpy(&bits, &d, 8);
  sign = (uint16_t)(bits >> 63 << 15);
  e = (int)((bits >> 52) & 2047) - 1023;
  man = bits & 0xfffffffffffffull;
  if (e == 1024) { *h = sign | 0x7c00; return 1; }          /* infinity */
  if (e == -1023) { *h = sign; return man == 0; }          /* 0, subnormal */
  if (e >= -14 && e <= 15) {                                /* normal */
    if (man & ((1ull << 42) - 1)) return 0;
    *h = sign | (uint16_t)((e + 15) << 10) | (uint16_t)(man >> 42);
    return 1;
  }
  if (e >= -24 && e < -14) {                                /* subnormal */
    unsigned shift = (unsigned)(28 - e);
    uint64_t full = man | 1ull << 52;
    if (full & ((1ull << shift) - 1)) return 0;
    *h = sign | (uint16_t)(full >> shift);
    return 1;
  }
  return 0;
}

/* If d (not NaN) is exactly a binary32 value, store its bits in *f. */
static int double_to_float(double d, uint32_t *f) {
  uint64_t bits, man;
  int e;
  uint32_t sign;
  memcpy(&bits, &d, 8);
  sign = (uint32_t)(bits >> 63 << 31);
  e = (int)((bits >> 52) & 2047) - 1023;
  man = bits & 0xfffffffffffffull;
  if (e == 1024) { *f = sign | 0x7f800000u; return 1; }
  if (e == -1023) { *f = sign; return man == 0; }
  if (e >= -126 && e <= 127) {
    if (man & ((1ull << 29) - 1)) return 0;
    *f = sign | (uint32_t)(e + 127) << 23 | (uint32_t)(man >> 29);
    return 1;
  }
  if (e >= -149 && e < -126) {
    unsigned shift = (unsigned)(-97 - e);
    uint64_t full = man | 1ull << 52;
    if (full & ((1ull << shift) - 1)) return 0;
    *f = sign | (uint32_t)(full >> shift);
    return 1;
  }
  return 0;
}

static double bits_to_double(unsigned ai, uint64_t v) {
  double d;
  float f;
  uint32_t w = (uint32_t)v;
  if (ai == 25) return half_to_double((uint16_t)v);
  if (ai == 26) {
    memcpy(&f, &w, 4);
    return (double)f;
  }
  memcpy(&d, &v, 8);
  return d;
}

/* ---- heads ------------------------------------------------------------ */

size_t tm_cbor_put_head(uint8_t *dst, unsigned major, uint64_t arg) {
  uint8_t mt = (uint8_t)(major << 5);
  size_t k, i;
  if (arg < 24) { dst[0] = mt | (uint8_t)arg; return 1; }
  if (arg <= 0xff) { dst[0] = mt | 24; k = 1; }
  else if (arg <= 0xffff) { dst[0] = mt | 25; k = 2; }
  else if (arg <= 0xffffffffull) { dst[0] = mt | 26; k = 4; }
  else { dst[0] = mt | 27; k = 8; }
  for (i = 0; i < k; i++) dst[1 + i] = (uint8_t)(arg >> (8 * (k - 1 - i)));
  return 1 + k;
}

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

/* Minimum argument for each additional-information width (24..27). */
static const uint64_t head_min[4] = {24, 256, 65536, 4294967296ull};

/* Read a head: major type, additional info, argument (float bits for
 * major 7 with ai 25..27). ai 31 returns arg 0; the caller decides. */
static tm_status read_head(tm_rd *r, unsigned *major, unsigned *ai,
                           uint64_t *arg) {
  size_t at = r->pos, k, i;
  uint8_t ib;
  uint64_t v = 0;
  if (at >= r->n)
    return bad(r, at, TM_E_MALFORMED, "truncated: expected a data item, ",
               "the input ends here");
  ib = r->s[at];
  *major = ib >> 5;
  *ai = ib & 31;
  r->pos++;
  if (*ai < 24 || *ai == 31) { *arg = *ai < 24 ? *ai : 0; return TM_OK; }
  if (*ai > 27)
    return badn(r, at, "reserved additional information in initial byte 0x%02llx",
                ib);
  k = (size_t)1 << (*ai - 24);
  if (r->n - r->pos < k)
    return badn(r, at, "truncated: initial byte 0x%02llx needs more argument "
                "bytes than remain", ib);
  for (i = 0; i < k; i++) v = v << 8 | r->s[r->pos + i];
  r->pos += k;
  if (*major != TM_MT_SIMPLE && v < head_min[*ai - 24]) r->canon = 0;
  *arg = v;
  return TM_OK;
}

/* ---- scan -------------------------------------------------------------- */

static tm_status scan_item(tm_rd *r);

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
    return badn(r, at, "truncated: string of %llu bytes declared, fewer remain",
                len);
  if (major == TM_MT_TEXT) {
    bad_at = utf8_invalid(r->s + r->pos, (size_t)len, &why);
    if (bad_at < len)
      return bad(r, r->pos + bad_at, TM_E_MALFORMED,
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
    if ((st = read_head(r, &cm, &cai, &clen)) != TM_OK) return st;
    if (cm != major || cai == 31)
      return badn(r, cat, "a chunk of an indefinite-length string must be a "
                  "definite string of the same type, found initial byte 0x%02llx",
                  r->s[cat]);
    if ((st = scan_body(r, cat, major, clen)) != TM_OK) return st;
  }
  return bad(r, r->pos, TM_E_MALFORMED, "truncated: ",
             "indefinite-length string has no break code");
}

static TM_COLD tm_status too_deep(tm_rd *r, size_t at) {
  char msg[96];
  snprintf(msg, sizeof msg, "nesting deeper than %u levels", r->c->cfg.max_depth);
  return bad(r, at, TM_E_LIMIT, msg, "");
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
    return badn(r, at, "truncated: array of %llu items declared, fewer bytes "
                "remain", arg);
  if (ai == 31) r->canon = 0;
  for (i = 0; ai != 31 ? i < arg : r->pos < r->n; i++) {
    if (ai == 31 && r->s[r->pos] == 0xff) break;
    if (top) r->field = (long)i;
    if ((st = scan_item(r)) != TM_OK) return st;
  }
  if (top) r->field = -1;
  if (ai == 31) {
    if (r->pos >= r->n)
      return bad(r, r->pos, TM_E_MALFORMED, "truncated: ",
                 "indefinite-length array has no break code");
    r->pos++;
  }
  r->depth--;
  return TM_OK;
}

/* Bytewise lexicographic order of encoded keys (RFC 8949 §4.2.1). */
static int key_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
  int d = memcmp(a, b, an < bn ? an : bn);
  if (d != 0) return d;
  return an < bn ? -1 : an > bn;
}

/* One key/value pair; checks order against the previous key [*pk, *pe). */
static tm_status scan_pair(tm_rd *r, uint64_t i, size_t *pk, size_t *pe) {
  size_t ks = r->pos;
  tm_status st = scan_item(r);
  if (st != TM_OK) return st;
  if (r->canon && i > 0) {
    int d = key_cmp(r->s + *pk, *pe - *pk, r->s + ks, r->pos - ks);
    if (d == 0) return bad(r, ks, TM_E_MALFORMED, "duplicate map key", "");
    if (d > 0) r->canon = 0;
  }
  *pk = ks;
  *pe = r->pos;
  if (r->pos < r->n && r->s[r->pos] == 0xff)
    return bad(r, r->pos, TM_E_MALFORMED, "break code where a map value ",
               "was expected");
  return scan_item(r);
}

static tm_status scan_map(tm_rd *r, size_t at, unsigned ai, uint64_t arg) {
  size_t pk = 0, pe = 0;
  uint64_t i;
  tm_status st = enter(r, at);
  if (st != TM_OK) return st;
  if (ai != 31 && arg > (r->n - r->pos) / 2)
    return badn(r, at, "truncated: map of %llu pairs declared, fewer bytes "
                "remain", arg);
  if (ai == 31) r->canon = 0;
  for (i = 0; ai != 31 ? i < arg : r->pos < r->n; i++) {
    if (ai == 31 && r->s[r->pos] == 0xff) break;
    if ((st = scan_pair(r, i, &pk, &pe)) != TM_OK) return st;
  }
  if (ai == 31) {
    if (r->pos >= r->n)
      return bad(r, r->pos, TM_E_MALFORMED, "truncated: ",
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
    return bad(r, cs, TM_E_MALFORMED, "truncated: ", "tag without content");
  if ((r->s[cs] >> 5) != TM_MT_BYTES)
    return badn(r, cs, "a bignum (tag 2 or 3) must enclose a byte string, "
                "found initial byte 0x%02llx", r->s[cs]);
  if ((st = scan_item(r)) != TM_OK) return st;
  (void)tag;
  if ((r->s[cs] & 31) == 31) { r->canon = 0; return TM_OK; }
  cs += tm_cbor_head(r->s + cs, &major, &len);
  if (len <= 8 || r->s[cs] == 0) r->canon = 0;
  return TM_OK;
}

static tm_status scan_tag(tm_rd *r, size_t at, unsigned ai, uint64_t tag) {
  tm_status st;
  if (ai == 31)
    return bad(r, at, TM_E_MALFORMED, "indefinite length is not allowed ",
               "for a tag (major type 6)");
  if ((st = enter(r, at)) != TM_OK) return st;
  st = (tag == 2 || tag == 3) ? scan_bignum(r, tag) : scan_item(r);
  r->depth--;
  return st;
}

static tm_status scan_simple(tm_rd *r, size_t at, unsigned ai, uint64_t v) {
  uint16_t h;
  uint32_t f;
  double d;
  if (ai == 31)
    return bad(r, at, TM_E_MALFORMED, "unexpected break code (0xff) ",
               "outside an indefinite-length item");
  if (ai == 24 && v < 32)
    return badn(r, at, "a two-byte simple value must be at least 32, found %llu",
                v);
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

static tm_status scan_item(tm_rd *r) {
  size_t at = r->pos;
  unsigned major = 0, ai = 0;
  uint64_t arg = 0;
  tm_status st = read_head(r, &major, &ai, &arg);
  if (st != TM_OK) return st;
  switch (major) {
    case TM_MT_UINT:
    case TM_MT_NINT:
      if (ai == 31)
        return bad(r, at, TM_E_MALFORMED, "indefinite length is not allowed ",
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

/* ---- emit (non-canonical input only) ------------------------------------ */

typedef struct tm_wr {
  tm_rd r;      /* reader over the scanned input */
  tm_buf *out;  /* c->canon */
  tm_buf *stk;  /* c->stack: map pair records and bignum bytes */
} tm_wr;

static tm_status emit_item(tm_wr *w);

static tm_status put(tm_wr *w, const void *p, size_t n) {
  if (tm_buf_reserve(w->r.c, w->out, w->out->len + n) != TM_OK)
    return tm_nomem(w->r.c, "canonicalising CBOR");
  if (n > 0) memcpy(w->out->p + w->out->len, p, n);
  w->out->len += n;
  return TM_OK;
}

static tm_status put_head(tm_wr *w, unsigned major, uint64_t arg) {
  uint8_t h[9];
  return put(w, h, tm_cbor_put_head(h, major, arg));
}

/* Skip one scanned item (definite or not) without output. */
static void skip_raw(tm_rd *r) {
  unsigned major = 0, ai = 0;
  uint64_t arg = 0, i;
  read_head(r, &major, &ai, &arg);
  if (major == TM_MT_BYTES || major == TM_MT_TEXT) {
    if (ai != 31) { r->pos += (size_t)arg; return; }
  } else if (major == TM_MT_TAG) {
    skip_raw(r);
    return;
  } else if (major != TM_MT_ARRAY && major != TM_MT_MAP) {
    return;
  }
  if (ai == 31) {
    while (r->s[r->pos] != 0xff) skip_raw(r);
    r->pos++;
    return;
  }
  if (major == TM_MT_MAP) arg *= 2;
  for (i = 0; i < arg; i++) skip_raw(r);
}

/* Items before the break of the indefinite container starting at r->pos. */
static uint64_t count_indef(tm_rd *r) {
  size_t save = r->pos;
  uint64_t n = 0;
  while (r->s[r->pos] != 0xff) {
    skip_raw(r);
    n++;
  }
  r->pos = save;
  return n;
}

/* Copy a string (definite or chunked) as one definite string. */
static tm_status emit_string(tm_wr *w, unsigned major, unsigned ai,
                             uint64_t arg) {
  tm_rd *r = &w->r;
  unsigned cm, cai;
  uint64_t clen, total = 0;
  size_t save;
  tm_status st;
  if (ai != 31) {
    if ((st = put_head(w, major, arg)) != TM_OK) return st;
    st = put(w, r->s + r->pos, (size_t)arg);
    r->pos += (size_t)arg;
    return st;
  }
  save = r->pos;
  while (r->s[r->pos] != 0xff) {
    read_head(r, &cm, &cai, &clen);
    total += clen;
    r->pos += (size_t)clen;
  }
  r->pos = save;
  if ((st = put_head(w, major, total)) != TM_OK) return st;
  while (r->s[r->pos] != 0xff) {
    read_head(r, &cm, &cai, &clen);
    if ((st = put(w, r->s + r->pos, (size_t)clen)) != TM_OK) return st;
    r->pos += (size_t)clen;
  }
  r->pos++;
  return TM_OK;
}

static tm_status emit_array(tm_wr *w, unsigned ai, uint64_t arg) {
  tm_rd *r = &w->r;
  uint64_t n = ai == 31 ? count_indef(r) : arg, i;
  int top = r->depth == 0;
  tm_status st = put_head(w, TM_MT_ARRAY, n);
  r->depth++;
  for (i = 0; i < n && st == TM_OK; i++) {
    if (top) r->field = (long)i;
    st = emit_item(w);
  }
  if (top) r->field = -1;
  r->depth--;
  if (ai == 31) r->pos++;
  return st;
}

/* A map pair already emitted: key [k, v), value [v, e) in the output. */
typedef struct tm_pair {
  uint32_t k, v, e;
} tm_pair;

static int pair_less(const uint8_t *o, const tm_pair *a, const tm_pair *b) {
  return key_cmp(o + a->k, a->v - a->k, o + b->k, b->v - b->k) < 0;
}

static void sift_down(const uint8_t *o, tm_pair *p, size_t i, size_t n) {
  for (;;) { /* bounded: i at least doubles each step */
    size_t l = 2 * i + 1, m = i;
    tm_pair t;
    if (l < n && pair_less(o, &p[m], &p[l])) m = l;
    if (l + 1 < n && pair_less(o, &p[m], &p[l + 1])) m = l + 1;
    if (m == i) return;
    t = p[i]; p[i] = p[m]; p[m] = t;
    i = m;
  }
}

/* Heapsort: in place, no allocation, O(n log n) on hostile input. */
static void sort_pairs(const uint8_t *o, tm_pair *p, size_t n) {
  size_t i;
  for (i = n / 2; i > 0; i--) sift_down(o, p, i - 1, n);
  for (i = n; i > 1; i--) {
    tm_pair t = p[0];
    p[0] = p[i - 1];
    p[i - 1] = t;
    sift_down(o, p, 0, i - 1);
  }
}

/* Sort the n pairs emitted since `base`, reject duplicates, rewrite. */
static tm_status order_pairs(tm_wr *w, size_t at, size_t base, size_t sb,
                             size_t n) {
  tm_pair *p = (tm_pair *)(w->stk->p + sb);
  size_t i, used = w->out->len - base, o;
  uint8_t *tmp;
  sort_pairs(w->out->p, p, n);
  for (i = 1; i < n; i++)
    if (key_cmp(w->out->p + p[i - 1].k, p[i - 1].v - p[i - 1].k,
                w->out->p + p[i].k, p[i].v - p[i].k) == 0)
      return bad(&w->r, at, TM_E_MALFORMED, "duplicate map key ",
                 "(equal once canonical)");
  if (tm_buf_reserve(w->r.c, w->out, w->out->len + used) != TM_OK)
    return tm_nomem(w->r.c, "sorting map keys");
  p = (tm_pair *)(w->stk->p + sb);
  tmp = w->out->p + w->out->len;
  for (i = 0, o = 0; i < n; i++) {
    memcpy(tmp + o, w->out->p + p[i].k, p[i].e - p[i].k);
    o += p[i].e - p[i].k;
  }
  memcpy(w->out->p + base, tmp, used);
  return TM_OK;
}

static tm_status emit_map(tm_wr *w, size_t at, unsigned ai, uint64_t arg) {
  tm_rd *r = &w->r;
  uint64_t n = ai == 31 ? count_indef(r) / 2 : arg, i;
  size_t sb = w->stk->len, base;
  tm_status st = put_head(w, TM_MT_MAP, n);
  r->depth++;
  base = w->out->len;
  for (i = 0; i < n && st == TM_OK; i++) {
    tm_pair pr;
    pr.k = (uint32_t)w->out->len;
    if ((st = emit_item(w)) != TM_OK) break;
    pr.v = (uint32_t)w->out->len;
    if ((st = emit_item(w)) != TM_OK) break;
    pr.e = (uint32_t)w->out->len;
    if (tm_buf_reserve(r->c, w->stk, w->stk->len + sizeof pr) != TM_OK) {
      st = tm_nomem(r->c, "canonicalising a map");
      break;
    }
    memcpy(w->stk->p + w->stk->len, &pr, sizeof pr);
    w->stk->len += sizeof pr;
  }
  if (st == TM_OK && n > 1) st = order_pairs(w, at, base, sb, (size_t)n);
  w->stk->len = sb;
  r->depth--;
  if (ai == 31) r->pos++;
  return st;
}

/* Bignum: gather the bytes (maybe chunked), strip leading zeros, and emit
 * a plain integer when it fits in 64 bits. */
static tm_status emit_bignum(tm_wr *w, uint64_t tag) {
  tm_rd *r = &w->r;
  unsigned major = 0, ai = 0;
  uint64_t len, v = 0;
  size_t sb = w->stk->len, n = 0, i = 0;
  const uint8_t *b;
  tm_status st;
  read_head(r, &major, &ai, &len);
  if (ai != 31) {
    b = r->s + r->pos;
    n = (size_t)len;
    r->pos += n;
  } else {
    while (r->s[r->pos] != 0xff) {
      read_head(r, &major, &ai, &len);
      if (len == 0) continue; /* an empty chunk adds nothing */
      if (tm_buf_reserve(r->c, w->stk, w->stk->len + (size_t)len) != TM_OK)
        return tm_nomem(r->c, "canonicalising a bignum");
      memcpy(w->stk->p + w->stk->len, r->s + r->pos, (size_t)len);
      w->stk->len += (size_t)len;
      r->pos += (size_t)len;
    }
    r->pos++;
    n = w->stk->len - sb;
    b = n > 0 ? w->stk->p + sb : r->s; /* no chunk bytes: stk may be NULL */
  }
  while (i < n && b[i] == 0) i++;
  if (n - i <= 8) {
    for (; i < n; i++) v = v << 8 | b[i];
    w->stk->len = sb;
    return put_head(w, tag == 2 ? TM_MT_UINT : TM_MT_NINT, v);
  }
  if ((st = put_head(w, TM_MT_TAG, tag)) == TM_OK &&
      (st = put_head(w, TM_MT_BYTES, n - i)) == TM_OK)
    st = put(w, b + i, n - i);
  w->stk->len = sb;
  return st;
}

static tm_status emit_float(tm_wr *w, double d) {
  uint8_t b[9];
  uint16_t h;
  uint32_t f;
  uint64_t u;
  size_t k, i;
  if (d != d) { b[0] = 0xf9; b[1] = 0x7e; b[2] = 0x00; return put(w, b, 3); }
  if (double_to_half(d, &h)) { u = h; k = 2; b[0] = 0xf9; }
  else if (double_to_float(d, &f)) { u = f; k = 4; b[0] = 0xfa; }
  else { memcpy(&u, &d, 8); k = 8; b[0] = 0xfb; }
  for (i = 0; i < k; i++) b[1 + i] = (uint8_t)(u >> (8 * (k - 1 - i)));
  return put(w, b, 1 + k);
}

static tm_status emit_item(tm_wr *w) {
  tm_rd *r = &w->r;
  size_t at = r->pos;
  unsigned major = 0, ai = 0;
  uint64_t arg = 0;
  uint8_t b[2];
  read_head(r, &major, &ai, &arg);
  switch (major) {
    case TM_MT_UINT:
    case TM_MT_NINT: return put_head(w, major, arg);
    case TM_MT_BYTES:
    case TM_MT_TEXT: return emit_string(w, major, ai, arg);
    case TM_MT_ARRAY: return emit_array(w, ai, arg);
    case TM_MT_MAP: return emit_map(w, at, ai, arg);
    case TM_MT_TAG:
      if (arg == 2 || arg == 3) return emit_bignum(w, arg);
      if (put_head(w, TM_MT_TAG, arg) != TM_OK) return TM_E_NOMEM;
      return emit_item(w);
    default:
      if (ai >= 25) return emit_float(w, bits_to_double(ai, arg));
      b[0] = (uint8_t)(0xe0 | (ai < 24 ? ai : 24));
      b[1] = (uint8_t)arg;
      return put(w, b, ai < 24 ? 1 : 2);
  }
}

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
  if ((st = scan_item(&r)) != TM_OK) return st;
  if (r.pos != len)
    return bad(&r, r.pos, TM_E_MALFORMED, "trailing bytes after the data ",
               "item");
  if (was != NULL) *was = r.canon;
  if (r.canon) { *out = in; *out_len = len; return TM_OK; }
  w.r = r;
  w.r.pos = 0; w.r.depth = 0; w.r.field = -1;
  w.out = &c->canon;
  w.stk = &c->stack;
  c->canon.len = 0;
  c->stack.len = 0;
  if ((st = emit_item(&w)) != TM_OK) return st;
  if (c->canon.len > c->cfg.max_item_bytes)
    return tm_fail(c, TM_E_LIMIT,
                   "CBOR limit exceeded: canonical form of %zu bytes, the "
                   "limit is %u", c->canon.len, c->cfg.max_item_bytes);
  *out = c->canon.p;
  *out_len = c->canon.len;
  return TM_OK;
}

/* ---- fast path: a short canonical array of simple fields ------------------ */

/* Whether the field at in[q] (len bytes in all) is one of the small
 * canonical scalars checked inline; *next receives its end. Anything else
 * (and anything malformed) goes to scan_item, which has the messages. */
static int simple_field(const uint8_t *in, size_t len, size_t q, size_t *next) {
  uint8_t b = in[q];
  size_t n, k, left = len - q - 1; /* bytes after the initial byte */
  unsigned ai = b & 31;
  switch (b >> 5) {
    case TM_MT_UINT:
    case TM_MT_NINT: {
      uint64_t v = 0;
      if (ai < 24) { *next = q + 1; return 1; }
      if (ai > 27) return 0;
      k = (size_t)1 << (ai - 24);
      if (left < k) return 0;
      for (n = 0; n < k; n++) v = v << 8 | in[q + 1 + n];
      if (v < head_min[ai - 24]) return 0; /* not the shortest head */
      *next = q + 1 + k;
      return 1;
    }
    case TM_MT_BYTES:
      if (ai >= 24 || left < ai) return 0;
      *next = q + 1 + ai;
      return 1;
    case TM_MT_TEXT: /* short text: inline only if ASCII */
      if (ai >= 24 || left < ai) return 0;
      for (k = 0; k < ai; k++)
        if (in[q + 1 + k] >= 0x80) return 0;
      *next = q + 1 + ai;
      return 1;
    case TM_MT_TAG: /* a formal with a one-byte code */
      if (b == 0xd9 && left > 2 && in[q + 1] == 0xa0 && in[q + 2] == 0x20 &&
          in[q + 3] < 0x18) {
        *next = q + 4;
        return 1;
      }
      return 0;
    case TM_MT_SIMPLE:
      if (b >= 0xf4 && b <= 0xf7) { *next = q + 1; return 1; }
      return 0;
    default:
      return 0;
  }
}

/* Whether the n < 24 bytes at p are ASCII: (overlapping) word tests. */
static inline int ascii(const uint8_t *p, size_t n) {
  uint64_t a, b, c2;
  uint32_t x, y;
  if (n >= 8) {
    memcpy(&a, p, 8);
    memcpy(&b, p + (n >= 16 ? 8 : n - 8), 8);
    memcpy(&c2, p + n - 8, 8);
    return ((a | b | c2) & 0x8080808080808080ull) == 0;
  }
  if (n >= 4) {
    memcpy(&x, p, 4);
    memcpy(&y, p + n - 4, 4);
    return ((x | y) & 0x80808080u) == 0;
  }
  if (n == 0) return 1;
  return (p[0] | p[n >> 1] | p[n - 1]) < 0x80; /* covers n = 1, 2, 3 */
}

/* A field the inline cases of tm_cbor_scan_array do not cover: the
 * scalars of simple_field, else the full reader (which has the messages).
 * Returns the field's end, or 0 with *st set (TM_NOMATCH: not canonical). */
static TM_NOINLINE size_t scan_field(tm_core *c, const uint8_t *in, size_t len,
                                     size_t q, uint32_t field, tm_status *st) {
  tm_rd r;
  size_t next;
  if (simple_field(in, len, q, &next)) return next;
  memset(&r, 0, sizeof r);
  r.c = c; r.s = in; r.n = len; r.pos = q; r.depth = 1; r.canon = 1;
  r.field = (long)field;
  if ((*st = scan_item(&r)) != TM_OK) return 0;
  if (!r.canon) { *st = TM_NOMATCH; return 0; }
  return r.pos;
}

tm_status tm_cbor_scan_array(tm_core *c, const uint8_t *in, size_t len,
                             uint32_t *arity, uint32_t *off,
                             uint32_t *nformal) {
  uint32_t n, i, nf = 0;
  size_t q = 1;
  if (len < 2 || len > c->cfg.max_item_bytes || in[0] < 0x81 || in[0] > 0x97)
    return TM_NOMATCH;
  n = in[0] & 31;
  for (i = 0; i < n; i++) {
    uint8_t b;
    if (q >= len) return TM_NOMATCH; /* truncated: the slow path says so */
    off[i] = (uint32_t)q;
    b = in[q];
    if (b < 0x18 || (uint8_t)(b - 0x20) < 0x18) { /* small integer */
      q++;
      continue;
    }
    if ((uint8_t)(b - 0x60) < 0x18 && len - q > (size_t)(b & 31)) {
      /* short text, inline if ASCII (then valid UTF-8) */
      if (ascii(in + q + 1, b & 31)) {
        q += 1 + (b & 31);
        continue;
      }
    }
    if ((b & 0xdc) == 0x18 && b != 0x1b && b != 0x3b) {
      /* integer with a 1, 2 or 4-byte argument, if in its shortest form */
      size_t k = (size_t)1 << (b & 3), j;
      uint32_t v = 0;
      if (len - q > k) {
        for (j = 1; j <= k; j++) v = v << 8 | in[q + j];
        if (v >= (uint32_t)head_min[b & 3]) {
          q += 1 + k;
          continue;
        }
      }
    }
    /* a valid item starting d9 a0 20 is tag 40992 (>= 4 bytes) */
    if (b == 0xd9 && len - q > 3 && in[q + 1] == 0xa0 && in[q + 2] == 0x20) {
      nf++;
      if (in[q + 3] < 0x18) { /* a formal with a one-byte code */
        q += 4;
        continue;
      }
    }
    {
      tm_status st = TM_OK;
      size_t next = scan_field(c, in, len, q, i, &st);
      if (next == 0) return st;
      q = next;
    }
  }
  if (q != len) return TM_NOMATCH;
  off[n] = (uint32_t)q;
  *arity = n;
  *nformal = nf;
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
