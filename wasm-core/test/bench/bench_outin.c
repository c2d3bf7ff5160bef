/*
 * bench_outin.c — the C path of bench/core.js's out_in and match_100k,
 * natively, for deterministic instruction counts with callgrind. Not part
 * of `make test` (it has its own main). Build and run from wasm-core/:
 *
 *   cc -std=c11 -O2 -flto -g -Iinclude -Isrc src/[a-z]*.c \
 *      test/bench/bench_outin.c \
 *      -lm -o build/bench_outin
 *   valgrind --tool=callgrind --callgrind-out-file=build/cg.out \
 *      build/bench_outin out_in 100000
 *   callgrind_annotate build/cg.out | head -40
 *
 * Modes: out_in N (N pairs of out ["ping", 42] + inp ["ping", integer]);
 * match N (N in/out + rdp pairs among 100,000 tuples ["A", i, 3i, "value i"]).
 * (match 0 measures the fill alone: subtract it). Without valgrind it
 * prints ns per operation (wall clock).
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "termite_core.h"

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void die(tm_core *c, const char *what) {
  fprintf(stderr, "%s: %s\n", what, tm_core_errmsg(c));
  exit(1);
}

/* Canonical CBOR of an unsigned integer head (major 0) at b. */
static size_t uint_head(uint8_t *b, unsigned long v) {
  if (v < 24) { b[0] = (uint8_t)v; return 1; }
  if (v < 0x100) { b[0] = 0x18; b[1] = (uint8_t)v; return 2; }
  if (v < 0x10000) { b[0] = 0x19; b[1] = (uint8_t)(v >> 8); b[2] = (uint8_t)v; return 3; }
  b[0] = 0x1a; b[1] = (uint8_t)(v >> 24); b[2] = (uint8_t)(v >> 16);
  b[3] = (uint8_t)(v >> 8); b[4] = (uint8_t)v;
  return 5;
}

/* Canonical ["A", i, 3i, "value i"]. */
static size_t canon_tuple(uint8_t *b, unsigned long i) {
  size_t n = 0;
  char s[32];
  int k = snprintf(s, sizeof s, "value %lu", i);
  b[n++] = 0x84; b[n++] = 0x61; b[n++] = 'A';
  n += uint_head(b + n, i);
  n += uint_head(b + n, 3 * i);
  b[n++] = (uint8_t)(0x60 | k);
  memcpy(b + n, s, (size_t)k);
  return n + (size_t)k;
}

/* ["A", i, integer, any]. */
static size_t canon_tmpl(uint8_t *b, unsigned long i) {
  size_t n = 0;
  b[n++] = 0x84; b[n++] = 0x61; b[n++] = 'A';
  n += uint_head(b + n, i);
  b[n++] = 0xd9; b[n++] = 0xa0; b[n++] = 0x20; b[n++] = 1;
  b[n++] = 0xd9; b[n++] = 0xa0; b[n++] = 0x20; b[n++] = 0;
  return n;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "out_in";
  long n = argc > 2 ? atol(argv[2]) : 1000000, i;
  tm_config cfg;
  tm_core *c;
  uint32_t s = 0;
  tm_bytes o;
  double t0, t1;
  tm_config_init(&cfg);
  if (tm_core_create(&cfg, &c) != TM_OK) return 1;
  if (tm_space_create(c, &s) != TM_OK) die(c, "space");
  if (strcmp(mode, "out_in") == 0) {
    static const uint8_t tup[] = {0x82, 0x64, 'p', 'i', 'n', 'g', 0x18, 42};
    static const uint8_t tmpl[] = {0x82, 0x64, 'p', 'i', 'n', 'g',
                                   0xd9, 0xa0, 0x20, 0x01};
    uint8_t *x = tm_core_xfer(c)->data;
    t0 = now_ns();
    for (i = 0; i < n; i++) {
      /* as from JS: the bytes are written into the transfer area first */
      memcpy(x, tup, sizeof tup);
      if (tm_space_out(c, s, x, sizeof tup, NULL) != TM_OK) die(c, "out");
      memcpy(x, tmpl, sizeof tmpl);
      if (tm_space_inp(c, s, x, sizeof tmpl, &o) != TM_OK) die(c, "inp");
      if (o.len != sizeof tup) die(c, "wrong tuple");
    }
    t1 = now_ns();
    printf("out_in: %.1f ns per pair\n", (t1 - t0) / n);
  } else {
    static uint8_t b[64];
    unsigned long k = 12345, N = 100000;
    size_t len;
    for (i = 0; i < (long)N; i++) {
      len = canon_tuple(b, (unsigned long)i);
      if (tm_space_out(c, s, b, len, NULL) != TM_OK) die(c, "fill");
    }
    t0 = now_ns();
    for (i = 0; i < n; i++) {
      uint8_t t[64];
      k = (k * 1103515245 + 12345) & 0x7fffffff;
      len = canon_tmpl(b, k % N);
      if (tm_space_inp(c, s, b, len, &o) != TM_OK) die(c, "inp");
      memcpy(t, o.bytes, o.len);
      if (tm_space_out(c, s, t, o.len, NULL) != TM_OK) die(c, "out");
      k = (k * 1103515245 + 12345) & 0x7fffffff;
      len = canon_tmpl(b, k % N);
      if (tm_space_rdp(c, s, b, len, &o) != TM_OK) die(c, "rdp");
    }
    t1 = now_ns();
    printf("match: %.1f ns per step (in + out + rdp)\n", (t1 - t0) / n);
  }
  tm_core_destroy(c);
  return 0;
}
