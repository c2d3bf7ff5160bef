/*
 * match.c — templates on canonical bytes.
 *
 * A formal is tag 40992 (encoded d9 a0 20) around an unsigned code 0..10,
 * or around [11, n] for "tagged with n". Because input is canonical, the
 * formal's encoding is fixed: d9 a0 20 XX for codes < 24, d9 a0 20 82 0b
 * <n> for tagged. Anything else inside tag 40992 is an unknown formal.
 *
 * Invariants:
 *  - Only top-level fields are formals; a formal nested in an actual is
 *    data and compares by bytes. A top-level formal of a stored tuple
 *    (S/Net) matches an actual of its type, never a formal
 *    (tm_match_field_sym).
 *  - A field's type is decided from its first bytes alone (canonical form
 *    makes tags 2/3 the only integer tags and floats exactly f9/fa/fb).
 */
#include "core.h"

static const uint8_t formal_prefix[3] = {0xd9, 0xa0, 0x20};

int tm_match_is_formal(const uint8_t *f, uint32_t len) {
  return len >= 4 && f[0] == formal_prefix[0] && f[1] == formal_prefix[1] &&
         f[2] == formal_prefix[2];
}

tm_status tm_match_arity(tm_core *c, const uint8_t *b, const char *what,
                         uint32_t *arity, size_t *head) {
  unsigned major;
  uint64_t n;
  *head = tm_cbor_head(b, &major, &n);
  if (major != TM_MT_ARRAY)
    return tm_fail(c, TM_E_TEMPLATE,
                   "a %s must be a CBOR array, found major type %u at byte 0",
                   what, major);
  if (n == 0)
    return tm_fail(c, TM_E_TEMPLATE, "a %s must have at least one field",
                   what);
  if (n > TM_MAX_ARITY)
    return tm_fail(c, TM_E_LIMIT, "a %s has %llu fields, the limit is %u",
                   what, (unsigned long long)n, TM_MAX_ARITY);
  *arity = (uint32_t)n;
  return TM_OK;
}

void tm_match_offsets(const uint8_t *b, size_t head, uint32_t arity,
                      uint32_t *off) {
  uint32_t i, at = (uint32_t)head;
  for (i = 0; i < arity; i++) {
    off[i] = at;
    at += (uint32_t)tm_cbor_skip(b + at);
  }
  off[arity] = at;
}

tm_status tm_match_formal(tm_core *c, const uint8_t *f, uint32_t field,
                          int32_t *code, uint64_t *tag) {
  unsigned major;
  uint64_t v;
  if (!tm_match_is_formal(f, 4)) return TM_NOMATCH;
  tm_cbor_head(f + 3, &major, &v);
  if (major == TM_MT_UINT && v <= TM_FORMAL_NULL) {
    *code = (int32_t)v;
    *tag = 0;
    return TM_OK;
  }
  if (f[3] == 0x82 && f[4] == TM_FORMAL_TAGGED && (f[5] >> 5) == TM_MT_UINT) {
    tm_cbor_head(f + 5, &major, tag);
    *code = TM_FORMAL_TAGGED;
    return TM_OK;
  }
  if (major == TM_MT_UINT && v == TM_FORMAL_TAGGED)
    return tm_fail(c, TM_E_UNKNOWN_FORMAL,
                   "unknown formal type in field %u: code 11 (tagged) must be "
                   "written [11, tag number]", field);
  if (major == TM_MT_UINT)
    return tm_fail(c, TM_E_UNKNOWN_FORMAL,
                   "unknown formal type in field %u: code %llu (known: 0..11, "
                   "see docs/wire-format.md)", field, (unsigned long long)v);
  return tm_fail(c, TM_E_UNKNOWN_FORMAL,
                 "unknown formal type in field %u: tag 40992 must enclose an "
                 "unsigned code or [11, tag number], found initial byte 0x%02x",
                 field, f[3]);
}

tm_status tm_match_compile(tm_core *c, const uint8_t *b, const uint32_t *off,
                           uint32_t arity, uint32_t nformal, tm_tfield *tf) {
  uint32_t i;
  for (i = 0; i < arity; i++) {
    const uint8_t *f = b + off[i];
    uint32_t len = off[i + 1] - off[i];
    tm_status st = TM_NOMATCH;
    if (nformal > 0 && tm_match_is_formal(f, len)) {
      if (len == 4 && f[3] <= TM_FORMAL_NULL) { /* d9 a0 20 <code> */
        tf[i].formal = f[3];
        tf[i].tag = 0;
        st = TM_OK;
      } else if ((st = tm_match_formal(c, f, i, &tf[i].formal, &tf[i].tag)) < 0) {
        return st;
      }
    }
    tf[i].off = off[i];
    tf[i].len = len;
    tf[i].key = 0;
    if (st == TM_NOMATCH) {
      tf[i].formal = TM_ACTUAL;
      tf[i].tag = 0;
    }
  }
  return TM_OK;
}

void tm_match_keys(const tm_core *c, const uint8_t *b, uint32_t arity,
                   tm_tfield *tf) {
  uint32_t i;
  for (i = 0; i < arity; i++)
    if (tf[i].formal == TM_ACTUAL)
      tf[i].key = tm_index_key(c->cfg.hash_seed, arity, i + 1, b + tf[i].off,
                               tf[i].len);
}
