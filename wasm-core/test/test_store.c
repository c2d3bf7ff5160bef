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

static void non_arrays_and_unknown_formals_in_tuples_are_errors(tm_core *c) {
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
  cb_build(&p, "[sF]", "x", 12); /* a formal is allowed (S/Net), not this */
  CHECK_ST(tm_space_out(c, s, p.b, p.n, NULL), TM_E_UNKNOWN_FORMAL);
  CHECK_MSG("in field 1: code 12");
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

/* A group's indexing follows its size: below TM_INDEX_MIN tuples it is
 * walked, past it every tuple is in its field chains (oldest first), and
 * an empty group starts over. Results never depend on which. */
static void groups_are_indexed_once_they_grow_past_the_threshold(tm_core *c) {
  uint32_t s = t_space(c), i, n = TM_INDEX_MIN + 5;
  uint64_t before, d_small;
  tm_bytes o;
  tm_chain *group;
  for (i = 0; i < n; i++) {
    cb_build(&t, "[sii]", "g", (long long)(i % 3), (long long)i);
    CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
    group = tm_index_find(&c->store.spaces[s & TM_ID_INDEX_MASK].ix,
                          tm_arity_key(c, 3));
    CHECK(group != NULL && group->count == i + 1);
    CHECK_EQ(group->indexed, i + 1 > TM_INDEX_MIN);
    CHECK_CORE();
    if (i + 1 == TM_INDEX_MIN) CHECK_OK(tm_space_digest(c, s, &d_small));
  }
  /* the oldest match first, across tuples linked before and after */
  cb_build(&p, "[siF]", "g", 2LL, TM_FORMAL_INTEGER);
  CHECK_OK(tm_space_inp(c, s, p.b, p.n, &o));
  CHECK(cb_equal_hex(&o, "83 6167 02 02"));
  CHECK_OK(tm_space_inp(c, s, p.b, p.n, &o));
  CHECK(cb_equal_hex(&o, "83 6167 02 05"));
  /* indexed: a selective template looks at one tuple */
  before = tm_debug_examined(c);
  cb_build(&p, "[sFi]", "g", TM_FORMAL_ANY, (long long)(n - 1));
  CHECK_OK(tm_space_rdp(c, s, p.b, p.n, &o));
  CHECK_EQ(tm_debug_examined(c) - before, 1);
  CHECK_CORE();
  /* emptied, the group is walked again; refilled, it is the same space */
  cb_build(&p, "[FFF]", TM_FORMAL_ANY, TM_FORMAL_ANY, TM_FORMAL_ANY);
  while (tm_space_inp(c, s, p.b, p.n, &o) == TM_OK) CHECK_CORE();
  CHECK_EQ(t_count(c, s), 0);
  for (i = 0; i < TM_INDEX_MIN; i++) {
    cb_build(&t, "[sii]", "g", (long long)(i % 3), (long long)i);
    CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  }
  CHECK_OK(tm_space_digest(c, s, &before));
  CHECK_EQ(before, d_small);
  group = tm_index_find(&c->store.spaces[s & TM_ID_INDEX_MASK].ix,
                        tm_arity_key(c, 3));
  CHECK(group != NULL && !group->indexed);
}

/* Waiters see the same tuples whichever way the group is kept. */
static void waiters_are_woken_in_small_and_indexed_groups(tm_core *c) {
  uint32_t s = t_space(c), i, pid, got = 0, woken = 0;
  tm_bytes o;
  for (i = 0; i < 2 * TM_INDEX_MIN; i++) {
    pid = t_run(c);
    cb_build(&p, "[si]", "w", (long long)i);
    CHECK_ST(tm_space_in(c, s, p.b, p.n, pid, 0, INFINITY, &o), TM_BLOCKED);
    cb_build(&t, "[si]", "w", (long long)(1000 + i));
    CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL)); /* stored: no match */
    cb_build(&t, "[si]", "w", (long long)i);
    CHECK_OK(tm_space_out(c, s, t.b, t.n, &woken)); /* taken by the waiter */
    CHECK_EQ(woken, 1);
    CHECK_OK(tm_sched_next(c, &got, NULL)); /* it runs and collects */
    CHECK_EQ(got, pid);
    CHECK_OK(tm_proc_take_tuple(c, pid, &o));
    CHECK(o.len == t.n && memcmp(o.bytes, t.b, t.n) == 0);
    CHECK_OK(tm_proc_exit(c, pid));
    CHECK_CORE();
  }
  CHECK_EQ(t_count(c, s), 2 * TM_INDEX_MIN);
}

/* A template wider than the scratch arrays (the slow parse path grows
 * them) compiles into the grown arrays. */
static void a_wide_template_grows_the_scratch_space(tm_core *c) {
  uint32_t s = t_space(c), i, n;
  tm_bytes o;
  cb_reset(&t);
  cb_head(&t, 4, 100);
  for (i = 0; i < 100; i++) cb_int(&t, i);
  cb_reset(&p);
  cb_head(&p, 4, 100);
  for (i = 0; i < 100; i++) cb_formal(&p, TM_FORMAL_INTEGER);
  CHECK_OK(tm_space_count(c, s, p.b, p.n, &n));
  CHECK_EQ(n, 0);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  CHECK_OK(tm_space_inp(c, s, p.b, p.n, &o));
  CHECK(o.len == t.n && memcmp(o.bytes, t.b, t.n) == 0);
}

/* Repeated bytes reuse what validating and compiling them found; the
 * answers are those of a first sight, and a tuple's formals are checked
 * whatever was remembered of the same bytes as a template. */
static void the_parse_memo_gives_the_answers_of_a_first_sight(tm_core *c) {
  uint32_t s = t_space(c), i, n;
  tm_bytes o;
  /* no input is not an empty entry of the memo */
  CHECK_ST(tm_space_inp(c, s, p.b, 0, &o), TM_E_MALFORMED);
  CHECK_MSG("empty");
  cb_build(&p, "[sF]", "m", 12);
  for (i = 0; i < 3; i++) {
    CHECK_ST(tm_space_inp(c, s, p.b, p.n, &o), TM_E_UNKNOWN_FORMAL);
    CHECK_ST(tm_space_out(c, s, p.b, p.n, NULL), TM_E_UNKNOWN_FORMAL);
    CHECK_MSG("in field 1: code 12");
  }
  cb_build(&p, "[sF]", "m", TM_FORMAL_INTEGER);
  cb_build(&t, "[si]", "m", 7LL);
  for (i = 0; i < 3; i++) CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  CHECK_OK(tm_space_count(c, s, p.b, p.n, &n));
  CHECK_EQ(n, 3);
  for (i = 0; i < 3; i++) {
    CHECK_OK(tm_space_inp(c, s, p.b, p.n, &o));
    CHECK(o.len == t.n && memcmp(o.bytes, t.b, t.n) == 0);
  }
  /* an unknown formal is reported every time (failures are not kept) */
  cb_build(&p, "[sF]", "m", 12);
  for (i = 0; i < 3; i++) {
    CHECK_ST(tm_space_rdp(c, s, p.b, p.n, &o), TM_E_UNKNOWN_FORMAL);
    CHECK_MSG("code 12");
  }
  /* more templates than entries: each still answers right */
  for (i = 0; i < 3 * TM_MEMO_ENTRIES; i++) {
    cb_build(&t, "[si]", "r", (long long)(i % (TM_MEMO_ENTRIES + 1)));
    CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
    CHECK_OK(tm_space_rdp(c, s, t.b, t.n, &o));
    CHECK(o.len == t.n && memcmp(o.bytes, t.b, t.n) == 0);
  }
  CHECK_CORE();
  /* a damaged entry is found by the check */
  c->memo[0].off[0]++;
  CHECK_ST(tm_core_check(c), TM_E_CORRUPT);
  CHECK_MSG("parse memo");
  c->memo[0].off[0]--;
}

/* The arity chain of a small arity; NULL if the index remembers another. */
static tm_chain *small_group(tm_core *c, uint32_t s, uint32_t arity) {
  tm_index *ix = &c->store.spaces[s & TM_ID_INDEX_MASK].ix;
  tm_chain *g = tm_index_find(ix, tm_arity_key(c, arity));
  return ix->small[arity] == NULL || ix->small[arity] == g ? g : NULL;
}

static void the_small_path_crosses_the_threshold_both_ways(tm_core *c) {
  uint32_t s = t_space(c), i, k, n = TM_INDEX_MIN + 3;
  tm_bytes o;
  tm_chain *g;
  cb_build(&p, "[sF]", "q", TM_FORMAL_INTEGER);
  for (k = 0; k < 3; k++) { /* fill past the threshold, drain, again */
    for (i = 0; i < n; i++) {
      cb_build(&t, "[si]", "q", (long long)(k * 100 + i));
      CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
      g = small_group(c, s, 2);
      CHECK(g != NULL && g->count == i + 1);
      CHECK_EQ(g->indexed, i + 1 > TM_INDEX_MIN);
    }
    CHECK_CORE();
    for (i = 0; i < n; i++) { /* oldest first, indexed or not */
      CHECK_OK(tm_space_inp(c, s, p.b, p.n, &o));
      cb_build(&t, "[si]", "q", (long long)(k * 100 + i));
      CHECK(o.len == t.n && memcmp(o.bytes, t.b, t.n) == 0);
      CHECK_EQ(small_group(c, s, 2)->indexed, i + 1 < n);
      if (i % 4 == 0) CHECK_CORE();
    }
    CHECK_ST(tm_space_inp(c, s, p.b, p.n, &o), TM_NOMATCH);
    CHECK_EQ(t_count(c, s), 0);
  }
  /* a template of the group that matches nothing, and a tuple that
   * does not match the template, on the small path */
  cb_build(&t, "[ss]", "q", "text");
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  CHECK_ST(tm_space_inp(c, s, p.b, p.n, &o), TM_NOMATCH);
  CHECK_ST(tm_space_rdp(c, s, p.b, p.n, &o), TM_NOMATCH);
  cb_build(&p, "[sF]", "q", TM_FORMAL_STRING);
  CHECK_OK(tm_space_rdp(c, s, p.b, p.n, &o));
  CHECK_OK(tm_space_rdp(c, s, p.b, p.n, &o));
  CHECK_OK(tm_space_inp(c, s, p.b, p.n, &o));
  CHECK(o.len == t.n && memcmp(o.bytes, t.b, t.n) == 0);
  CHECK_CORE();
}

static void a_remembered_arity_chain_leaves_with_its_chain(tm_core *c) {
  uint32_t s = t_space(c), i;
  tm_bytes o;
  tm_index *ix = &c->store.spaces[s & TM_ID_INDEX_MASK].ix;
  cb_build(&t, "[i]", 5LL);
  cb_build(&p, "[F]", TM_FORMAL_INTEGER);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  CHECK_OK(tm_space_inp(c, s, p.b, p.n, &o));
  CHECK(ix->small[1] != NULL);
  /* more empty chains than are kept: the arity-1 chain, emptied first,
   * is freed and forgotten */
  for (i = 0; i < TM_INDEX_KEEP_EMPTY + 20; i++) {
    cb_build(&t, "[siiii]", "e", (long long)i, 1LL, 2LL, 3LL);
    CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  }
  cb_build(&p, "[FFFFF]", 0, 0, 0, 0, 0);
  while (tm_space_inp(c, s, p.b, p.n, &o) == TM_OK) {}
  CHECK(ix->small[1] == NULL);
  CHECK(tm_index_find(ix, tm_arity_key(c, 1)) == NULL);
  CHECK_CORE();
  cb_build(&t, "[i]", 6LL);
  cb_build(&p, "[F]", TM_FORMAL_INTEGER);
  for (i = 0; i < 3; i++) {
    CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
    CHECK_OK(tm_space_inp(c, s, p.b, p.n, &o));
    CHECK(cb_equal_hex(&o, "81 06"));
  }
  CHECK(ix->small[1] != NULL);
  CHECK_CORE();
}

static void bytes_the_small_path_does_not_take_get_the_general_answer(
    tm_core *c) {
  static const struct { const char *in, *canon; tm_status st; } cases[] = {
      {"82 6570696e67", NULL, TM_E_MALFORMED},   /* truncated text */
      {"82 01", NULL, TM_E_MALFORMED},           /* truncated array */
      {"81 01 02", NULL, TM_E_MALFORMED},        /* trailing byte */
      {"81 61 ff", NULL, TM_E_MALFORMED},        /* invalid UTF-8 */
      {"81 18", NULL, TM_E_MALFORMED},           /* truncated argument */
      {"81 1a 0001", NULL, TM_E_MALFORMED},
      {"81 1c", NULL, TM_E_MALFORMED},           /* reserved */
      {"82 18 05 39 0001", "82 05 21", TM_OK},   /* not shortest */
      {"81 19 00ff", "81 18ff", TM_OK},
      {"81 3a 00000100", "81 390100", TM_OK},
      {"81 1a 00010000", "81 1a00010000", TM_OK},
      {"83 62c3a9 f5 f6", "83 62c3a9 f5 f6", TM_OK}, /* not ASCII */
      {"83 f4 37 1b0000000100000000", "83 f4 37 1b0000000100000000", TM_OK},
      {"82 d9a020 0c 01", NULL, TM_E_UNKNOWN_FORMAL}, /* no such formal */
  };
  uint32_t s = t_space(c), i, k;
  tm_bytes o;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cb_reset(&t);
    cb_hex(&t, cases[i].in);
    CHECK_ST(tm_space_out(c, s, t.b, t.n, NULL), cases[i].st);
    CHECK_EQ(t_count(c, s), cases[i].st == TM_OK);
    if (cases[i].st != TM_OK) continue;
    cb_reset(&p);
    cb_head(&p, 4, t.b[0] & 31);
    for (k = 0; k < (t.b[0] & 31u); k++) cb_hex(&p, "d9a020 00");
    CHECK_OK(tm_space_inp(c, s, p.b, p.n, &o));
    CHECK(cb_equal_hex(&o, cases[i].canon));
  }
  CHECK_CORE();
}

const test_case store_tests[] = {
    {"out then inp returns the tuple and removes it", out_then_inp_returns_and_removes_the_tuple},
    {"rdp copies a tuple without removing it", rdp_copies_without_removing},
    {"stored tuples are held in canonical form", stored_tuples_are_canonical},
    {"count counts matches and the stats count all tuples", count_counts_matches_and_stats_count_all},
    {"spaces are independent of each other", spaces_are_independent},
    {"a destroyed or unknown space id is an error", a_destroyed_or_unknown_space_is_an_error},
    {"non-arrays and unknown formals in tuples are errors", non_arrays_and_unknown_formals_in_tuples_are_errors},
    {"a tuple with too many fields is a limit error", too_many_fields_is_a_limit_error},
    {"out/in cycles reach a steady state without growth", out_in_cycles_reach_a_steady_state_without_growth},
    {"a space's live bytes follow its tuples", space_live_bytes_follow_the_tuples},
    {"destroying a space frees everything it held", destroying_a_space_frees_everything},
    {"destroying a space of identical tuples and waiters frees them all", destroying_a_space_of_identical_tuples_frees_them_all},
    {"the digest changes with content only", the_digest_changes_with_content_only},
    {"the transfer area grows for large results", the_transfer_area_grows_for_large_results},
    {"groups are indexed once they grow past the threshold", groups_are_indexed_once_they_grow_past_the_threshold},
    {"waiters are woken in small and in indexed groups", waiters_are_woken_in_small_and_indexed_groups},
    {"a wide template grows the scratch space", a_wide_template_grows_the_scratch_space},
    {"the parse memo gives the answers of a first sight", the_parse_memo_gives_the_answers_of_a_first_sight},
    {"the small path crosses the indexing threshold both ways", the_small_path_crosses_the_threshold_both_ways},
    {"a remembered arity chain leaves with its chain", a_remembered_arity_chain_leaves_with_its_chain},
    {"bytes the small path does not take get the general answer", bytes_the_small_path_does_not_take_get_the_general_answer},
    {NULL, NULL}};
