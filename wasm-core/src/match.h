/*
 * match.h — templates: compiling formals and matching fields on bytes.
 */
#ifndef TM_MATCH_H
#define TM_MATCH_H

#include <string.h>

#include "alloc.h"
#include "cbor.h"

#define TM_ACTUAL (-1) /* tm_tfield.formal of an actual field */

/* One compiled template field. */
typedef struct tm_tfield {
  uint64_t key;   /* actual: its index key (tm_index_key) */
  uint64_t tag;   /* TM_FORMAL_TAGGED: the tag number */
  uint32_t off;   /* offset of the field in the template bytes */
  uint32_t len;   /* length of the field's canonical bytes */
  int32_t formal; /* TM_ACTUAL or a TM_FORMAL_* code */
} tm_tfield;

/*
 * Parse the top-level array head of checked canonical bytes. *arity gets
 * the element count; the head length is returned. TM_E_TEMPLATE (with a
 * message naming `what`, "tuple" or "template") if it is not an array, is
 * empty or has more than TM_MAX_ARITY fields.
 */
TM_INTERNAL tm_status tm_match_arity(tm_core *c, const uint8_t *b,
                                     const char *what, uint32_t *arity,
                                     size_t *head);

/* Offsets of the arity fields (off[arity] = end of the last). */
TM_INTERNAL void tm_match_offsets(const uint8_t *b, size_t head,
                                  uint32_t arity, uint32_t *off);

/* If the field is a formal (tag 40992): TM_OK with *code and *tag set; if it is
 * an actual: TM_NOMATCH; a malformed formal: TM_E_UNKNOWN_FORMAL. */
TM_INTERNAL tm_status tm_match_formal(tm_core *c, const uint8_t *f,
                                      uint32_t field, int32_t *code,
                                      uint64_t *tag);

/* Whether a field of len bytes starts with tag 40992 (a formal). */
TM_INTERNAL int tm_match_is_formal(const uint8_t *f, uint32_t len);

/*
 * Compile template fields (canonical bytes b, offsets off) into tf[]:
 * formal code and tag, or TM_ACTUAL; offsets and lengths. nformal is the
 * number of top-level fields starting with tag 40992 (0 lets the loop skip
 * the formal test). Keys are left 0: tm_match_keys computes them when an
 * index lookup or a waiter needs them.
 */
TM_INTERNAL tm_status tm_match_compile(tm_core *c, const uint8_t *b,
                                       const uint32_t *off, uint32_t arity,
                                       uint32_t nformal, tm_tfield *tf);

/* The index keys of the actual fields of a compiled template. */
TM_INTERNAL void tm_match_keys(const tm_core *c, const uint8_t *b,
                               uint32_t arity, tm_tfield *tf);

/* The tag number of a tagged field (first byte major 6, canonical). */
static inline uint64_t tm_tag_of(const uint8_t *f) {
  unsigned ai = f[0] & 31, i;
  uint64_t t = 0;
  if (ai < 24) return ai;
  for (i = 0; i < 1u << (ai - 24); i++) t = t << 8 | f[1 + i];
  return t;
}

/* Whether the field bytes f (checked canonical) are of the formal's type. */
static inline int tm_match_type(int32_t formal, uint64_t tag,
                                const uint8_t *f) {
  unsigned major = f[0] >> 5;
  switch (formal) {
    case TM_FORMAL_ANY: return 1;
    case TM_FORMAL_INTEGER:
      return major <= TM_MT_NINT || f[0] == 0xc2 || f[0] == 0xc3;
    case TM_FORMAL_NUMBER:
      return major <= TM_MT_NINT || f[0] == 0xc2 || f[0] == 0xc3 ||
             (f[0] >= 0xf9 && f[0] <= 0xfb) || (f[0] == 0xd8 && f[1] == 30);
    case TM_FORMAL_FLOAT: return f[0] >= 0xf9 && f[0] <= 0xfb;
    case TM_FORMAL_STRING: return major == TM_MT_TEXT;
    case TM_FORMAL_SYMBOL:
      return f[0] == 0xd9 && f[1] == 0xa0 && f[2] == 0x00;
    case TM_FORMAL_BYTES: return major == TM_MT_BYTES;
    case TM_FORMAL_BOOLEAN: return f[0] == 0xf4 || f[0] == 0xf5;
    case TM_FORMAL_ARRAY: return major == TM_MT_ARRAY;
    case TM_FORMAL_MAP: return major == TM_MT_MAP;
    case TM_FORMAL_NULL: return f[0] == 0xf6;
    case TM_FORMAL_TAGGED: return major == TM_MT_TAG && tm_tag_of(f) == tag;
    default: return 0;
  }
}

/*
 * Whether one field (bytes f of length flen, index key fkey) satisfies the
 * compiled template field tf (template bytes pb, keys computed). Actuals
 * compare keys first, so most non-matching fields cost one integer
 * comparison.
 */
static inline int tm_match_field(const tm_tfield *tf, const uint8_t *pb,
                                 const uint8_t *f, uint32_t flen,
                                 uint64_t fkey) {
  if (tf->formal != TM_ACTUAL) return tm_match_type(tf->formal, tf->tag, f);
  return fkey == tf->key && flen == tf->len &&
         memcmp(pb + tf->off, f, flen) == 0;
}

/* Whether n bytes at a and b are equal. Fields are short: up to 16 bytes
 * take two (overlapping) word comparisons and no call. */
static inline int tm_bytes_equal(const uint8_t *a, const uint8_t *b,
                                 uint32_t n) {
  uint64_t x, y, u, v;
  uint32_t p, q, r, t;
  if (n >= 8) {
    if (n > 16) return memcmp(a, b, n) == 0;
    memcpy(&x, a, 8); memcpy(&y, b, 8);
    memcpy(&u, a + n - 8, 8); memcpy(&v, b + n - 8, 8);
    return ((x ^ y) | (u ^ v)) == 0;
  }
  if (n >= 4) {
    memcpy(&p, a, 4); memcpy(&q, b, 4);
    memcpy(&r, a + n - 4, 4); memcpy(&t, b + n - 4, 4);
    return ((p ^ q) | (r ^ t)) == 0;
  }
  if (n == 0) return 1;
  return a[0] == b[0] && a[n >> 1] == b[n >> 1] && a[n - 1] == b[n - 1];
}

/* tm_match_field without keys: actuals compare their bytes. The commonest
 * fields (actuals, integer and any formals) are decided before
 * tm_match_type's switch, which costs a jump-table hop in wasm. */
static inline int tm_match_field_bytes(const tm_tfield *tf, const uint8_t *pb,
                                       const uint8_t *f, uint32_t flen) {
  if (tf->formal == TM_ACTUAL)
    return flen == tf->len && tm_bytes_equal(pb + tf->off, f, flen);
  if (tf->formal == TM_FORMAL_INTEGER)
    return f[0] >> 5 <= TM_MT_NINT || f[0] == 0xc2 || f[0] == 0xc3;
  return tf->formal == TM_FORMAL_ANY || tm_match_type(tf->formal, tf->tag, f);
}

/*
 * S/Net's rule for a stored tuple holding formals: a formal field of the
 * tuple matches an actual of its type in the template, and never a formal
 * (Linda: two formals do not match). f is a field of a stored tuple,
 * whose formals were checked when it was stored (tm_match_formal), so a
 * formal is d9 a0 20 <code> or d9 a0 20 82 0b <tag>.
 */
static inline int tm_match_field_sym(const tm_tfield *tf, const uint8_t *pb,
                                     const uint8_t *f, uint32_t flen) {
  unsigned major;
  uint64_t tag = 0;
  if (!tm_match_is_formal(f, flen))
    return tm_match_field_bytes(tf, pb, f, flen);
  if (tf->formal != TM_ACTUAL) return 0;
  if (flen == 4) return tm_match_type((int32_t)f[3], 0, pb + tf->off);
  tm_cbor_head(f + 5, &major, &tag);
  return tm_match_type(TM_FORMAL_TAGGED, tag, pb + tf->off);
}

#endif
