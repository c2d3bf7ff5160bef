/*
 * fuzz_cbor.c — libFuzzer target for the CBOR decoder and canonicaliser.
 *
 * Properties checked on every input (a violation aborts, which libFuzzer
 * reports as a crash):
 *  - the call returns TM_OK or a documented error, with a message;
 *  - an accepted item's canonical form is accepted again, unchanged, and
 *    reported as already canonical (idempotence: equality of values is
 *    equality of bytes);
 *  - if the canonical item is an array that is a valid tuple, storing it
 *    and reading it back with itself as the template returns the same
 *    bytes (unless it holds a formal field, which never matches a formal),
 *    and the store stays consistent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "termite_core.h"

static tm_core *core;
static uint32_t space;
static uint8_t first[1 << 20];

static void fail(const char *what) {
  fprintf(stderr, "fuzz_cbor: %s (%s)\n", what, tm_core_errmsg(core));
  abort();
}

static void setup(void) {
  tm_config cfg;
  tm_config_init(&cfg);
  cfg.max_item_bytes = sizeof first;
  cfg.memory_limit = 64u << 20;
  if (tm_core_create(&cfg, &core) != TM_OK) abort();
  if (tm_space_create(core, &space) != TM_OK) abort();
}

/* Whether the bytes hold the head of tag 40992 (a Linda formal) anywhere: a
 * necessary condition for a tuple with a formal field. */
static int holds_formal_tag(const uint8_t *b, size_t n) {
  size_t i;
  for (i = 0; i + 2 < n; i++)
    if (b[i] == 0xd9 && b[i + 1] == 0xa0 && b[i + 2] == 0x20) return 1;
  return 0;
}

/* Store the canonical array as a tuple and read it back by itself (a tuple
 * holding a formal field is not found by itself: see below). */
static void round_trip(const uint8_t *b, size_t n) {
  tm_bytes o;
  tm_status st = tm_space_out(core, space, b, n, NULL);
  if (st != TM_OK) {
    if (st != TM_E_TEMPLATE && st != TM_E_UNKNOWN_FORMAL && st != TM_E_LIMIT && st != TM_E_NOMEM)
      fail("out of a canonical array failed unexpectedly");
    return;
  }
  memcpy(first, b, n); /* b may live in the transfer area */
  st = tm_space_inp(core, space, first, n, &o);
  if (st == TM_E_NOMEM) return;
  if (st == TM_NOMATCH && holds_formal_tag(first, n)) {
    /* S/Net: a formal stored in a tuple never matches a formal, so a tuple
     * holding one is not found by itself; start again from an empty space */
    if (tm_space_destroy(core, space) != TM_OK || tm_space_create(core, &space) != TM_OK)
      fail("space could not be made again");
    return;
  }
  if (st != TM_OK || o.len != n || memcmp(o.bytes, first, n) != 0)
    fail("a tuple was not found by itself as a template");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  tm_bytes o;
  int was = -1;
  tm_status st;
  size_t n;
  if (core == NULL) setup();
  st = tm_cbor_canonicalize(core, data, size, &o, &was);
  if (st != TM_OK) {
    if (st != TM_E_MALFORMED && st != TM_E_LIMIT && st != TM_E_NOMEM)
      fail("unexpected status");
    if (tm_core_errmsg(core)[0] == '\0') fail("error without a message");
    return 0;
  }
  n = o.len;
  memcpy(first, o.bytes, n);
  if (tm_cbor_canonicalize(core, first, n, &o, &was) != TM_OK)
    fail("canonical form rejected");
  if (was != 1 || o.len != n || memcmp(o.bytes, first, n) != 0)
    fail("canonical form not idempotent");
  if ((first[0] >> 5) == 4) round_trip(first, n);
  if (tm_core_check(core) != TM_OK) fail("core inconsistent");
  return 0;
}
