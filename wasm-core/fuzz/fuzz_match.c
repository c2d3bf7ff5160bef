/*
 * fuzz_match.c — libFuzzer target for the matcher and the store, checked
 * against a naive matcher written independently here.
 *
 * Input: a sequence of records, each a 2-byte big-endian length and that
 * many bytes. The first record is a template, the rest are tuples. The
 * target outs every tuple (remembering the canonical bytes of those the
 * store accepted), then:
 *  - count(template) must equal the naive count over the accepted tuples;
 *  - rdp must return the oldest naive match, inp must remove it;
 *  - a process blocking on the template is woken by re-outing a matching
 *    tuple and collects exactly its bytes;
 *  - after every step tm_core_check passes, and an error always has a
 *    message. A failure aborts (libFuzzer reports a crash).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "termite_core.h"

#define MAX_TUPLES 64
#define MAX_BYTES 4096

static tm_core *core;
static uint8_t tuples[MAX_TUPLES][MAX_BYTES];
static size_t tlen[MAX_TUPLES];
static int alive[MAX_TUPLES];
static uint8_t tmpl[MAX_BYTES];
static size_t plen;

static void fail(const char *what) {
  fprintf(stderr, "fuzz_match: %s (%s)\n", what, tm_core_errmsg(core));
  abort();
}

static void check(void) {
  if (tm_core_check(core) != TM_OK) fail("core inconsistent");
}

/* ---- an independent reading of canonical CBOR --------------------------- */

static uint64_t arg_at(const uint8_t *p, size_t *hl) {
  unsigned ai = p[0] & 31, k, i;
  uint64_t v = 0;
  if (ai < 24) { *hl = 1; return ai; }
  k = 1u << (ai - 24);
  for (i = 0; i < k; i++) v = v << 8 | p[1 + i];
  *hl = 1 + k;
  return v;
}

/* Length of the canonical item at p (recursive; depth is bounded by the
 * core's limit, which accepted these bytes). */
static size_t item_len(const uint8_t *p) {
  size_t hl, n = 0, i;
  unsigned major = p[0] >> 5;
  uint64_t v = arg_at(p, &hl);
  if (major == 2 || major == 3) return hl + (size_t)v;
  if (major == 4 || major == 5) {
    n = hl;
    for (i = 0; i < (major == 5 ? 2 * v : v); i++) n += item_len(p + n);
    return n;
  }
  if (major == 6) return hl + item_len(p + hl);
  return hl;
}

/* Field i of a canonical array: start and length. */
static const uint8_t *field(const uint8_t *a, uint32_t i, size_t *len) {
  size_t hl, at;
  uint32_t k;
  arg_at(a, &hl);
  at = hl;
  for (k = 0; k < i; k++) at += item_len(a + at);
  *len = item_len(a + at);
  return a + at;
}

static uint32_t arity(const uint8_t *a) {
  size_t hl;
  return (uint32_t)arg_at(a, &hl);
}

/* Naive formal test from the wire-format table. */
static int type_ok(int code, uint64_t tag, const uint8_t *f) {
  unsigned major = f[0] >> 5;
  size_t hl;
  switch (code) {
    case 0: return 1;
    case 1: return major == 0 || major == 1 || f[0] == 0xc2 || f[0] == 0xc3;
    case 2: return major == 0 || major == 1 || f[0] == 0xc2 || f[0] == 0xc3 ||
                   f[0] == 0xf9 || f[0] == 0xfa || f[0] == 0xfb ||
                   (major == 6 && arg_at(f, &hl) == 30);
    case 3: return f[0] == 0xf9 || f[0] == 0xfa || f[0] == 0xfb;
    case 4: return major == 3;
    case 5: return major == 6 && arg_at(f, &hl) == 40960;
    case 6: return major == 2;
    case 7: return f[0] == 0xf4 || f[0] == 0xf5;
    case 8: return major == 4;
    case 9: return major == 5;
    case 10: return f[0] == 0xf6;
    case 11: return major == 6 && arg_at(f, &hl) == tag;
    default: return 0;
  }
}

/* A top-level field of a template or a stored tuple: -1 actual, else its
 * code (tag in *tag). */
static int formal_of(const uint8_t *f, size_t len, uint64_t *tag) {
  size_t hl;
  if (len < 4 || f[0] != 0xd9 || f[1] != 0xa0 || f[2] != 0x20) return -1;
  if ((f[3] >> 5) == 0) return (int)arg_at(f + 3, &hl);
  *tag = arg_at(f + 5, &hl); /* [11, n]: the core accepted it */
  return 11;
}

static int naive_match(const uint8_t *p, const uint8_t *t) {
  uint32_t n = arity(p), i;
  if (arity(t) != n) return 0;
  for (i = 0; i < n; i++) {
    size_t pl, tl;
    uint64_t tag = 0;
    const uint8_t *pf = field(p, i, &pl), *tf = field(t, i, &tl);
    int code = formal_of(pf, pl, &tag);
    uint64_t ttag = 0;
    int tcode = formal_of(tf, tl, &ttag); /* S/Net: a formal in the tuple */
    if (code >= 0 && tcode >= 0) return 0; /* two formals never match */
    if (tcode >= 0 ? !type_ok(tcode, ttag, pf)
        : code >= 0 ? !type_ok(code, tag, tf)
                    : (pl != tl || memcmp(pf, tf, pl) != 0))
      return 0;
  }
  return 1;
}

/* ---- the scenario ---------------------------------------------------------- */

static void setup(void) {
  tm_config cfg;
  tm_config_init(&cfg);
  cfg.max_item_bytes = MAX_BYTES;
  cfg.memory_limit = 64u << 20;
  if (tm_core_create(&cfg, &core) != TM_OK) abort();
}

/* Canonical template into tmpl; 0 if the template is rejected. */
static int load_template(const uint8_t *b, size_t n) {
  tm_bytes o;
  tm_status st = tm_cbor_canonicalize(core, b, n, &o, NULL);
  if (st != TM_OK || o.len > MAX_BYTES || (o.bytes[0] >> 5) != 4) return 0;
  memcpy(tmpl, o.bytes, o.len);
  plen = o.len;
  return 1;
}

static int out_all(uint32_t s, const uint8_t *data, size_t size, size_t at,
                   int *n) {
  while (at + 2 <= size && *n < MAX_TUPLES) {
    size_t len = (size_t)data[at] << 8 | data[at + 1];
    tm_bytes o;
    tm_status st;
    at += 2;
    if (len > size - at) len = size - at;
    st = tm_space_out(core, s, data + at, len, NULL);
    if (st < 0 && tm_core_errmsg(core)[0] == '\0') fail("error without message");
    if (st == TM_OK && tm_cbor_canonicalize(core, data + at, len, &o, NULL) == TM_OK) {
      memcpy(tuples[*n], o.bytes, o.len);
      tlen[*n] = o.len;
      alive[*n] = 1;
      (*n)++;
    }
    at += len;
    check();
  }
  return 0;
}

/* Oldest live tuple the naive matcher accepts, or -1; and how many. */
static int naive_first(int n, uint32_t *count) {
  int i, first = -1;
  *count = 0;
  for (i = 0; i < n; i++) {
    if (!alive[i] || !naive_match(tmpl, tuples[i])) continue;
    if (first < 0) first = i;
    (*count)++;
  }
  return first;
}

static void compare(uint32_t s, int n) {
  uint32_t want, got;
  tm_bytes o;
  int first = naive_first(n, &want);
  tm_status st = tm_space_count(core, s, tmpl, plen, &got);
  if (st == TM_E_UNKNOWN_FORMAL || st == TM_E_TEMPLATE || st == TM_E_LIMIT) return;
  if (st != TM_OK || got != want) fail("count disagrees with the naive matcher");
  st = tm_space_rdp(core, s, tmpl, plen, &o);
  if ((st == TM_OK) != (first >= 0)) fail("rdp disagrees with the naive matcher");
  if (first < 0) return;
  if (o.len != tlen[first] || memcmp(o.bytes, tuples[first], o.len) != 0)
    fail("rdp did not return the oldest match");
  if (tm_space_inp(core, s, tmpl, plen, &o) != TM_OK) fail("inp failed");
  alive[first] = 0;
  check();
}

/* A waiting in is satisfied by the next matching out. */
static void wait_and_wake(uint32_t s, int n) {
  uint32_t pid, got, count;
  tm_bytes o;
  tm_status st;
  int first;
  if (tm_proc_spawn(core, 0, 1e300, &pid) != TM_OK) return;
  if (tm_sched_next(core, &got, NULL) != TM_OK || got != pid) fail("next");
  st = tm_space_in(core, s, tmpl, plen, pid, 0, 1e300, &o);
  first = st == TM_OK || st == TM_BLOCKED ? naive_first(n, &count) : -1;
  if (st == TM_OK) {
    if (first < 0) fail("in found a tuple the naive matcher does not");
    alive[first] = 0;
  } else if (st == TM_BLOCKED) {
    int i;
    if (first >= 0) fail("in blocked although a tuple matches");
    for (i = 0; i < n; i++) {
      if (!naive_match(tmpl, tuples[i])) continue;
      if (tm_space_out(core, s, tuples[i], tlen[i], NULL) != TM_OK) break;
      if (tm_proc_take_tuple(core, pid, &o) != TM_OK ||
          o.len != tlen[i] || memcmp(o.bytes, tuples[i], o.len) != 0)
        fail("the woken process did not get the tuple");
      break;
    }
  }
  tm_proc_exit(core, pid);
  check();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint32_t s;
  size_t plen_in;
  int n = 0;
  if (core == NULL) setup();
  if (size < 2) return 0;
  plen_in = (size_t)data[0] << 8 | data[1];
  if (plen_in > size - 2) plen_in = size - 2;
  if (!load_template(data + 2, plen_in)) return 0;
  if (tm_space_create(core, &s) != TM_OK) return 0;
  memset(alive, 0, sizeof alive);
  out_all(s, data, size, 2 + plen_in, &n);
  compare(s, n);
  compare(s, n);
  wait_and_wake(s, n);
  if (tm_space_destroy(core, s) != TM_OK) fail("destroy");
  check();
  return 0;
}
