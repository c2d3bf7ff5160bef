/*
 * cbor_fast.c — the one-pass check of the common input: a short canonical
 * definite array of simple fields (tm_cbor_scan_array).
 *
 * Invariants:
 *  - TM_OK only for input the full scan would accept as canonical, with
 *    the same offsets; TM_NOMATCH for anything it does not decide (the
 *    full path then does); a failure carries the full scan's message.
 *  - Fields it does not check inline go to the full scan, which has the
 *    messages.
 */
#include <string.h>

#include "cbor_read.h"

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
  if ((*st = tm_cbor_scan_item(&r)) != TM_OK) return 0;
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
