/*
 * test_store.c — spaces: out, in, rd, inp, rdp, count, stats, errors.
 */
#include "../src/core.h"
#include "test.h"

static cb t, p;

static void out_then_inp_returns_and_removes_the_tuple(tm_core *c) {
  uint32_t s = t_space(c), n;
  tm_bytes o;
  cb_build(&t, "[si]", "ping", 42LL);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  CHECK_EQ(t_count(c, s), 1);
  cb_build(&p, "[sF]", "ping", TM_FORMAL_INTEGER);
  CHECK_OK(tm_space_inp(c, s, p.b, p.n, &o));
  CHECK(o.len == t.n && memcmp(o.bytes, t.b, t.n) == 0);
  CHECK(o.bytes == tm_core_xfer(c)->data);
  CHECK_EQ(t_count(c, s), 0);
  CHECK_ST(tm_space_inp(c, s, p.b, p.n, &o), TM_NOMATCH);
  CHECK(o.len == 0);
  CHECK_OK(tm_space_count(c, s, p.b, p.n, &n));
  CHECK_EQ(n, 0);
}

static void rdp_copies_without_removing(tm_core *c) {
  uint32_t s = t_space(c), n;
  tm_bytes o;
  cb_build(&t, "[sis]", "cfg", 1LL, "x");
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  cb_build(&p, "[sFF]", "cfg", TM_FORMAL_ANY, TM_FORMAL_STRING);
  CHECK_OK(tm_space_rdp(c, s, p.b, p.n, &o));
  CHECK_OK(tm_space_rdp(c, s, p.b, p.n, &o));
  CHECK(o.len == t.n && memcmp(o.bytes, t.b, t.n) == 0);
  CHECK_OK(tm_space_count(c, s, p.b, p.n, &n));
  CHECK_EQ(n, 1);
}

static void stored_tuples_are_canonical(tm_core *c) {
  uint32_t s = t_space(c);
  tm_bytes o;
  cb_reset(&t);
  cb_hex(&t, "9f 18 01 fb 3ff8000000000000 bf 61 62 01 61 61 02 ff ff");
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  cb_build(&p, "[FFF]", 0, 0, 0);
  CHECK_OK(tm_space_inp(c, s, p.b, p.n, &o));
  CHECK(cb_equal_hex(&o, "83 01 f9 3e00 a2 6161 02 6162 01"));
}

static void count_counts_matches_and_stats_count_all(tm_core *c) {
  uint32_t s = t_space(c), n, i, tuples, waiters;
  size_t live;
  for (i = 0; i < 10; i++) {
    cb_build(&t, "[si]", i < 4 ? "a" : "b", (long long)i);
    CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  }
  cb_build(&p, "[sF]", "a", TM_FORMAL_INTEGER);
  CHECK_OK(tm_space_count(c, s, p.b, p.n, &n));
  CHECK_EQ(n, 4);
  cb_build(&p, "[FF]", TM_FORMAL_ANY, TM_FORMAL_ANY);
  CHECK_OK(tm_space_count(c, s, p.b, p.n, &n));
  CHECK_EQ(n, 10);
  cb_build(&p, "[FF]", TM_FORMAL_STRING, TM_FORMAL_STRING);
  CHECK_OK(tm_space_count(c, s, p.b, p.n, &n));
  CHECK_EQ(n, 0);
  CHECK_OK(tm_space_stats(c, s, &tuples, &waiters, &live));
  CHECK(tuples == 10 && waiters == 0 && live > 10 * t.n);
}

static void spaces_are_independent(tm_core *c) {
  uint32_t a = t_space(c), b = t_space(c);
  tm_bytes o;
  CHECK(a != b);
  cb_build(&t, "[s]", "only-in-a");
  CHECK_OK(tm_space_out(c, a, t.b, t.n, NULL));
  CHECK_ST(tm_space_rdp(c, b, t.b, t.n, &o), TM_NOMATCH);
  CHECK_OK(tm_space_rdp(c, a, t.b, t.n, &o));
}

static void a_destroyed_or_unknown_space_is_an_error(tm_core *c) {
  uint32_t s = t_space(c), s2;
  tm_bytes o;
  cb_build(&t, "[s]", "x");
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  CHECK_OK(tm_space_destroy(c, s));
  CHECK_ST(tm_space_out(c, s, t.b, t.n, NULL), TM_E_NO_SPACE);
  CHECK_MSG("no such space");
  CHECK_ST(tm_space_inp(c, s, t.b, t.n, &o), TM_E_NO_SPACE);
  CHECK_ST(tm_space_destroy(c, s), TM_E_NO_SPACE);
  CHECK_ST(tm_space_out(c, 0, t.b, t.n, NULL), TM_E_NO_SPACE);
  CHECK_ST(tm_space_out(c, 12345, t.b, t.n, NULL), TM_E_NO_SPACE);
  s2 = t_space(c); /* reuses the slot with a new generation */
  CHECK(s2 != s && (s2 & 0x1fffff) == (s & 0x1fffff));
  CHECK_ST(tm_space_out(c, s, t.b, t.n, NULL), TM_E_NO_SPACE);
  CHECK_EQ(t_count(c, s2), 0);
}

static void non_arrays_and_formals_in_tuples_are_template_errors(tm_core *c) {
  uint32_t s = t_space(c);
  tm_bytes o;
  cb_build(&t, "[s]", "keep");
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  cb_build(&p, "s", "not an array");
  CHECK_ST(tm_space_out(c, s, p.b, p.n, NULL), TM_E_TEMPLATE);
  CHECK_MSG("must be a CBOR array");
  CHECK_ST(tm_space_inp(c, s, p.b, p.n, &o), TM_E_TEMPLATE);
  CHECK_MSG("template");
  cb_reset(&p);
  cb_hex(&p, "80");
  CHECK_ST(tm_space_out(c, s, p.b, p.n, NULL), TM_E_TEMPLATE);
  CHECK_MSG("at least one field");
  cb_build(&p, "[sF]", "x", TM_FORMAL_INTEGER);
  CHECK_ST(tm_space_out(c, s, p.b, p.n, NULL), TM_E_TEMPLATE);
  CHECK_MSG("may not contain a formal (field 1");
  CHECK_EQ(t_count(c, s), 1);
}

static void too_many_fields_is_a_limit_error(tm_core *c) {
  uint32_t s = t_space(c), i;
  cb_reset(&t);
  cb_head(&t, 4, TM_MAX_ARITY + 1);
  for (i = 0; i <= TM_MAX_ARITY; i++) cb_head(&t, 0, 1);
  CHECK_ST(tm_space_out(c, s, t.b, t.n, NULL), TM_E_LIMIT);
  cb_reset(&t);
  cb_head(&t, 4, TM_MAX_ARITY);
  for (i = 0; i < TM_MAX_ARITY; i++) cb_head(&t, 0, i % 24);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
}

static void out_in_cycles_reach_a_steady_state_without_growth(tm_core *c) {
  uint32_t s = t_space(c), i;
  size_t live = 0, core_live = 0, sl;
  tm_bytes o;
  cb_build(&t, "[si]", "ping", 42LL);
  cb_build(&p, "[sF]", "ping", TM_FORMAL_INTEGER);
  for (i = 0; i < 1000; i++) {
    CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
    CHECK_OK(tm_space_inp(c, s, p.b, p.n, &o));
    if (i == 10) {
      tm_space_stats(c, s, NULL, NULL, &live);
      core_live = tm_core_live_bytes(c);
    }
  }
  tm_space_stats(c, s, NULL, NULL, &sl);
  CHECK_EQ(sl, live);
  CHECK_EQ(tm_core_live_bytes(c), core_live);
}

static void space_live_bytes_follow_the_tuples(tm_core *c) {
  uint32_t s = t_space(c), i;
  size_t empty, full, after;
  tm_bytes o;
  tm_space_stats(c, s, NULL, NULL, &empty);
  CHECK_EQ(empty, 0);
  for (i = 0; i < 500; i++) {
    cb_build(&t, "[sii]", "k", (long long)i, (long long)i);
    CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  }
  tm_space_stats(c, s, NULL, NULL, &full);
  CHECK(full > 500 * t.n);
  cb_build(&p, "[sFF]", "k", TM_FORMAL_ANY, TM_FORMAL_ANY);
  for (i = 0; i < 500; i++) CHECK_OK(tm_space_inp(c, s, p.b, p.n, &o));
  tm_space_stats(c, s, NULL, NULL, &after);
  /* what remains: the chain table and at most 256 kept empty chains */
  CHECK(after < full / 4);
  CHECK_OK(tm_space_destroy(c, s));
}

static void destroying_a_space_frees_everything(tm_core *c) {
  uint32_t s = t_space(c), i;
  size_t base;
  tm_bytes o;
  cb_build(&t, "[is]", 1LL, "payload"); /* warm the scratch buffers */
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  CHECK_OK(tm_space_inp(c, s, t.b, t.n, &o));
  CHECK_OK(tm_space_destroy(c, s));
  base = tm_core_live_bytes(c) - c->pooled; /* pooled blocks are reusable */
  s = t_space(c);
  for (i = 0; i < 2000; i++) {
    cb_build(&t, "[is]", (long long)i, "payload");
    CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  }
  CHECK(tm_core_live_bytes(c) > base + 2000 * t.n);
  CHECK_OK(tm_space_destroy(c, s));
  CHECK_EQ(tm_core_live_bytes(c) - c->pooled, base);
}

static void destroying_a_space_of_identical_tuples_frees_them_all(tm_core *c) {
  uint32_t s = t_space(c), i, pid;
  tm_bytes o;
  cb_build(&t, "[s]", "same"); /* every chain holds every tuple */
  for (i = 0; i < 5; i++) CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  cb_build(&p, "[i]", 1LL); /* and several waiters in one chain */
  for (i = 0; i < 3; i++) {
    pid = t_run(c);
    CHECK_ST(tm_space_in(c, s, p.b, p.n, pid, 0, INFINITY, &o), TM_BLOCKED);
  }
  CHECK_OK(tm_space_destroy(c, s));
  /* the harness checks that every byte is returned at the end */
}

static void the_digest_changes_with_content_only(tm_core *c) {
  uint32_t s = t_space(c);
  uint64_t d0, d1, d2;
  tm_bytes o;
  CHECK_OK(tm_space_digest(c, s, &d0));
  cb_build(&t, "[s]", "x");
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  CHECK_OK(tm_space_digest(c, s, &d1));
  CHECK(d1 != d0);
  CHECK_OK(tm_space_inp(c, s, t.b, t.n, &o));
  CHECK_OK(tm_space_digest(c, s, &d2));
  CHECK_EQ(d2, d0);
}

static void the_transfer_area_grows_for_large_results(tm_core *c) {
  uint32_t s = t_space(c);
  static uint8_t big[200000];
  tm_bytes o;
  tm_xfer *x = tm_core_xfer(c);
  memset(big, 'z', sizeof big);
  cb_reset(&t);
  cb_head(&t, 4, 1);
  cb_head(&t, 2, 60000);
  memcpy(t.b + t.n, big, 60000);
  t.n += 60000;
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  CHECK_OK(tm_core_xfer_reserve(c, 100));
  CHECK_OK(tm_core_xfer_reserve(c, 70000));
  CHECK(x->cap >= 70000);
  cb_build(&p, "[F]", TM_FORMAL_BYTES);
  CHECK_OK(tm_space_inp(c, s, p.b, p.n, &o));
  CHECK(o.bytes == x->data && o.len == t.n);
  CHECK(tm_xfer_layout(TM_XFER_OFF_MAGIC) == 0 && x->magic == TM_XFER_MAGIC);
  CHECK_EQ(tm_xfer_layout(TM_XFER_SIZE), sizeof(tm_xfer));
  CHECK_EQ(tm_xfer_layout(99), 0xffffffffu);
}

const test_case store_tests[] = {
    {"out then inp returns the tuple and removes it", out_then_inp_returns_and_removes_the_tuple},
    {"rdp copies a tuple without removing it", rdp_copies_without_removing},
    {"stored tuples are held in canonical form", stored_tuples_are_canonical},
    {"count counts matches and the stats count all tuples", count_counts_matches_and_stats_count_all},
    {"spaces are independent of each other", spaces_are_independent},
    {"a destroyed or unknown space id is an error", a_destroyed_or_unknown_space_is_an_error},
    {"non-arrays and formals in tuples are template errors", non_arrays_and_formals_in_tuples_are_template_errors},
    {"a tuple with too many fields is a limit error", too_many_fields_is_a_limit_error},
    {"out/in cycles reach a steady state without growth", out_in_cycles_reach_a_steady_state_without_growth},
    {"a space's live bytes follow its tuples", space_live_bytes_follow_the_tuples},
    {"destroying a space frees everything it held", destroying_a_space_frees_everything},
    {"destroying a space of identical tuples and waiters frees them all", destroying_a_space_of_identical_tuples_frees_them_all},
    {"the digest changes with content only", the_digest_changes_with_content_only},
    {"the transfer area grows for large results", the_transfer_area_grows_for_large_results},
    {NULL, NULL}};
