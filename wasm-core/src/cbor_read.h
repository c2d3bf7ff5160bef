/*
 * cbor_read.h — what the pieces of the CBOR reader share (cbor*.c only;
 * the rest of the core sees cbor.h).
 *
 * The pieces: cbor.c (the gate: tm_cbor_prepare), cbor_scan.c (reading
 * heads, the failure messages, the validating scan), cbor_float.h (float
 * widths), cbor_emit.c (rewriting into canonical form) and cbor_fast.c
 * (the one-pass check of a short canonical array).
 *
 * Invariants (of the reader as a whole):
 *  - scan never reads past in[len) and never recurses deeper than
 *    cfg.max_depth + 1; every loop consumes at least one byte per step.
 *  - emit only runs on input that scan accepted, so its reads need no
 *    bounds checks beyond those scan proved.
 *  - The `canon` flag only ever goes from 1 to 0 during a scan.
 */
#ifndef TM_CBOR_READ_H
#define TM_CBOR_READ_H

#include <string.h>

#include "cbor_float.h"
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

/* Writer state of emit: the reader plus the output and a stack. */
typedef struct tm_wr {
  tm_rd r;      /* reader over the scanned input */
  tm_buf *out;  /* c->canon */
  tm_buf *stk;  /* c->stack: map pair records and bignum bytes */
} tm_wr;

/* Minimum argument for each additional-information width (24..27). */
static const uint64_t head_min[4] = {24, 256, 65536, 4294967296ull};

/* Error paths stay out of line (TM_NOINLINE, alloc.h): their message
 * buffers must not enlarge the frames of the recursive reader (that bounds
 * the stack per level). */

/* Record a failure at byte `at` with the field context. */
TM_INTERNAL TM_COLD tm_status tm_cbor_bad(tm_rd *r, size_t at, tm_status st,
                                          const char *what,
                                          const char *detail);
/* Variant with one formatted number in the message. */
TM_INTERNAL TM_COLD tm_status tm_cbor_badn(tm_rd *r, size_t at,
                                           const char *fmt,
                                           unsigned long long v);

/* Read a head: major type, additional info, argument (float bits for
 * major 7 with ai 25..27). ai 31 returns arg 0; the caller decides. */
TM_INTERNAL tm_status tm_cbor_read_head(tm_rd *r, unsigned *major,
                                        unsigned *ai, uint64_t *arg);

/* Validate one item at r->pos, clearing r->canon if it is
 * not in canonical form. */
TM_INTERNAL tm_status tm_cbor_scan_item(tm_rd *r);
/* Write the canonical form of one scanned item (cbor_emit.c). */
TM_INTERNAL tm_status tm_cbor_emit_item(tm_wr *w);

/* Bytewise lexicographic order of encoded keys (RFC 8949 §4.2.1). */
static inline int key_cmp(const uint8_t *a, size_t an, const uint8_t *b,
                          size_t bn) {
  int d = memcmp(a, b, an < bn ? an : bn);
  if (d != 0) return d;
  return an < bn ? -1 : an > bn;
}

#endif
