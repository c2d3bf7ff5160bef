/*
 * cbor.h — validating CBOR reader and canonicaliser (RFC 8949 §4.2.1).
 *
 * tm_cbor_prepare is the gate every tuple and template passes: after it,
 * bytes are well-formed and canonical, so the helpers below may read them
 * without further checks (they must never be given unchecked bytes).
 */
#ifndef TM_CBOR_H
#define TM_CBOR_H

#include "alloc.h"

/* Major types (initial byte >> 5). */
enum { TM_MT_UINT, TM_MT_NINT, TM_MT_BYTES, TM_MT_TEXT, TM_MT_ARRAY,
       TM_MT_MAP, TM_MT_TAG, TM_MT_SIMPLE };

/*
 * Validate the single item in in[0..len) and return its canonical bytes:
 * `in` itself when already canonical (*was_canonical = 1, nothing copied),
 * else c->canon's storage (valid until the next prepare). Errors carry a
 * message with the byte offset and, inside a top-level array, the field.
 */
TM_INTERNAL tm_status tm_cbor_prepare(tm_core *c, const uint8_t *in,
                                      size_t len, const uint8_t **out,
                                      size_t *out_len, int *was_canonical);

/*
 * Fast path of prepare + offsets for the common case: a canonical definite
 * array of 1..23 fields, in one pass. TM_OK: in[0..len) is canonical,
 * *arity and off[0..arity] (off holds >= 24 entries) are set, and *nformal
 * counts the fields that are formals (start with tag 40992). TM_NOMATCH:
 * not this case (or not canonical), use tm_cbor_prepare. Negative:
 * malformed, with the same message tm_cbor_prepare would give.
 */
TM_INTERNAL tm_status tm_cbor_scan_array(tm_core *c, const uint8_t *in,
                                         size_t len, uint32_t *arity,
                                         uint32_t *off, uint32_t *nformal);

/* Decode the head at p (checked canonical bytes): major type, argument;
 * returns the head's length. */
TM_INTERNAL size_t tm_cbor_head(const uint8_t *p, unsigned *major,
                                uint64_t *arg);

/* Length of the checked canonical item at p. */
TM_INTERNAL size_t tm_cbor_skip(const uint8_t *p);

/* Append the shortest head for (major, arg) to dst; returns its length
 * (1..9). dst must have room for 9 bytes. */
TM_INTERNAL size_t tm_cbor_put_head(uint8_t *dst, unsigned major,
                                    uint64_t arg);

#endif
