/*
 * cbor_float.h — float widths: the value of a half, single or double, and
 * whether a double is exactly a narrower float (canonical form writes the
 * shortest exact width). Inline: the scan and the rewrite pass the
 * addresses of their results, which stay in registers only when these are
 * inlined (a frame of the recursive reader stays small).
 *
 * Invariants: conversions are exact or report that they are not; NaN is
 * never given to them (canonical form has one NaN, decided by the caller).
 */
#ifndef TM_CBOR_FLOAT_H
#define TM_CBOR_FLOAT_H

#include <stdint.h>
#include <string.h>

static inline double half_to_double(uint16_t h) {
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
static inline int double_to_half(double d, uint16_t *h) {
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
static inline int double_to_float(double d, uint32_t *f) {
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

/* The value of a float head's argument bits (ai 25, 26 or 27). */
static inline double bits_to_double(unsigned ai, uint64_t v) {
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

#endif
