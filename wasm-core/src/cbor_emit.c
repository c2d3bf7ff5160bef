/*
 * cbor_emit.c — rewriting scanned input that is not canonical into
 * c->canon: shortest heads, definite lengths, shortest exact floats, the
 * canonical NaN, small bignums as integers, and map keys sorted bytewise
 * (detecting keys that become duplicates once canonical).
 *
 * Invariants:
 *  - Only input the scan accepted reaches it, so its reads need no bounds
 *    checks beyond those the scan proved.
 *  - c->stack holds the pair records of the maps being written and the
 *    bytes of a bignum; each user leaves it as it found it.
 */
#include <string.h>

#include "cbor_read.h"

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
  tm_cbor_read_head(r, &major, &ai, &arg);
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
    tm_cbor_read_head(r, &cm, &cai, &clen);
    total += clen;
    r->pos += (size_t)clen;
  }
  r->pos = save;
  if ((st = put_head(w, major, total)) != TM_OK) return st;
  while (r->s[r->pos] != 0xff) {
    tm_cbor_read_head(r, &cm, &cai, &clen);
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
    st = tm_cbor_emit_item(w);
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
      return tm_cbor_bad(&w->r, at, TM_E_MALFORMED, "duplicate map key ",
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
    if ((st = tm_cbor_emit_item(w)) != TM_OK) break;
    pr.v = (uint32_t)w->out->len;
    if ((st = tm_cbor_emit_item(w)) != TM_OK) break;
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
  tm_cbor_read_head(r, &major, &ai, &len);
  if (ai != 31) {
    b = r->s + r->pos;
    n = (size_t)len;
    r->pos += n;
  } else {
    while (r->s[r->pos] != 0xff) {
      tm_cbor_read_head(r, &major, &ai, &len);
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

tm_status tm_cbor_emit_item(tm_wr *w) {
  tm_rd *r = &w->r;
  size_t at = r->pos;
  unsigned major = 0, ai = 0;
  uint64_t arg = 0;
  uint8_t b[2];
  tm_cbor_read_head(r, &major, &ai, &arg);
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
      return tm_cbor_emit_item(w);
    default:
      if (ai >= 25) return emit_float(w, bits_to_double(ai, arg));
      b[0] = (uint8_t)(0xe0 | (ai < 24 ? ai : 24));
      b[1] = (uint8_t)arg;
      return put(w, b, ai < 24 ? 1 : 2);
  }
}
