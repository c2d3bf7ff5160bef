/*
 * test_snet.c — S/Net's formals inside tuples: a stored formal matches an
 * actual of its type in a template, never a formal; searches, counts and
 * waiters see such tuples in small and in indexed groups, and the
 * bookkeeping (the arity chain's nformal) survives withdrawals; an exact
 * removal takes a tuple by its bytes, never one it would match.
 */
#include "../src/core.h"
#include "test.h"

static cb t, p;

static void a_formal_in_a_tuple_matches_an_actual_of_its_type(tm_core *c) {
  uint32_t s = t_space(c), n;
  tm_bytes o;
  cb_build(&t, "[sF]", "job", TM_FORMAL_INTEGER); /* ("job", ?integer) */
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  cb_build(&p, "[ss]", "job", "seven"); /* a string: not an integer */
  CHECK_ST(tm_space_rdp(c, s, p.b, p.n, &o), TM_NOMATCH);
  cb_build(&p, "[sd]", "job", 7.5); /* a float: not an integer */
  CHECK_ST(tm_space_rdp(c, s, p.b, p.n, &o), TM_NOMATCH);
  cb_build(&p, "[si]", "job", 7LL);
  CHECK_OK(tm_space_count(c, s, p.b, p.n, &n));
  CHECK_EQ(n, 1);
  CHECK_OK(tm_space_rdp(c, s, p.b, p.n, &o));
  CHECK(o.len == t.n && memcmp(o.bytes, t.b, t.n) == 0); /* the stored one */
  cb_build(&p, "[si]", "job", -123456789LL);
  CHECK_OK(tm_space_inp(c, s, p.b, p.n, &o));
  CHECK_EQ(t_count(c, s), 0);
  CHECK_CORE();
}

static void a_formal_never_matches_a_formal(tm_core *c) {
  uint32_t s = t_space(c), n;
  tm_bytes o;
  cb_build(&t, "[sF]", "job", TM_FORMAL_INTEGER);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  cb_build(&p, "[sF]", "job", TM_FORMAL_INTEGER);
  CHECK_ST(tm_space_rdp(c, s, p.b, p.n, &o), TM_NOMATCH);
  cb_build(&p, "[sF]", "job", TM_FORMAL_ANY);
  CHECK_ST(tm_space_inp(c, s, p.b, p.n, &o), TM_NOMATCH);
  cb_build(&p, "[FF]", TM_FORMAL_ANY, TM_FORMAL_ANY); /* no all-any shortcut */
  CHECK_OK(tm_space_count(c, s, p.b, p.n, &n));
  CHECK_EQ(n, 0);
  cb_build(&p, "[Fi]", TM_FORMAL_STRING, 3LL); /* formal here, actual there */
  CHECK_OK(tm_space_count(c, s, p.b, p.n, &n));
  CHECK_EQ(n, 1);
  CHECK_EQ(t_count(c, s), 1);
  CHECK_CORE();
}

static void tagged_and_any_formals_in_tuples(tm_core *c) {
  uint32_t s = t_space(c);
  tm_bytes o;
  cb_build(&t, "[sT]", "sym", (unsigned long long)TM_TAG_SYMBOL);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  cb_build(&t, "[sF]", "any", TM_FORMAL_ANY);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  cb_build(&p, "[ss]", "sym", "text");
  CHECK_ST(tm_space_rdp(c, s, p.b, p.n, &o), TM_NOMATCH);
  cb_build(&p, "[sy]", "sym", "a-symbol");
  CHECK_OK(tm_space_inp(c, s, p.b, p.n, &o));
  cb_build(&p, "[s[ii]]", "any", 1LL, 2LL); /* ?any matches any actual */
  CHECK_OK(tm_space_inp(c, s, p.b, p.n, &o));
  CHECK_EQ(t_count(c, s), 0);
  CHECK_CORE();
}

static void an_unknown_formal_in_a_tuple_is_refused(tm_core *c) {
  uint32_t s = t_space(c);
  cb_build(&t, "[sF]", "x", 12); /* code 12 is no formal */
  CHECK_ST(tm_space_out(c, s, t.b, t.n, NULL), TM_E_UNKNOWN_FORMAL);
  CHECK_MSG("code 12");
  cb_reset(&t);
  cb_hex(&t, "82 61 78 d9a020 0b"); /* tagged without its tag number */
  CHECK_ST(tm_space_out(c, s, t.b, t.n, NULL), TM_E_UNKNOWN_FORMAL);
  CHECK_EQ(t_count(c, s), 0);
  CHECK_CORE();
}

/* The oldest match is taken, whether it holds a formal or not, and in an
 * indexed group (past TM_INDEX_MIN) a formal tuple is still found. */
static void the_oldest_match_is_taken_in_an_indexed_group(tm_core *c) {
  uint32_t s = t_space(c), i, n;
  tm_bytes o;
  for (i = 0; i < 3 * TM_INDEX_MIN; i++) {
    cb_build(&t, "[sii]", "A", (long long)i, (long long)(i * 10));
    CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  }
  cb_build(&t, "[sFi]", "A", TM_FORMAL_INTEGER, -1LL);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  cb_build(&t, "[sii]", "A", 5000LL, -1LL); /* younger than the formal one */
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  cb_build(&p, "[siF]", "A", 5000LL, TM_FORMAL_INTEGER);
  CHECK_OK(tm_space_count(c, s, p.b, p.n, &n));
  CHECK_EQ(n, 2);
  CHECK_OK(tm_space_inp(c, s, p.b, p.n, &o));
  CHECK(cb_equal_hex(&o, "83 6141 d9a020 01 20")); /* ("A", ?integer, -1) */
  CHECK_OK(tm_space_inp(c, s, p.b, p.n, &o));
  CHECK(cb_equal_hex(&o, "83 6141 191388 20"));    /* ("A", 5000, -1) */
  CHECK_ST(tm_space_inp(c, s, p.b, p.n, &o), TM_NOMATCH);
  cb_build(&p, "[siF]", "A", 7LL, TM_FORMAL_INTEGER); /* the index again */
  CHECK_OK(tm_space_inp(c, s, p.b, p.n, &o));
  CHECK_EQ(t_count(c, s), 3 * TM_INDEX_MIN - 1);
  CHECK_CORE();
}

/* A large group holding a few tuples with formals is searched through the
 * index: a value's chain and its field's formals, not the whole group; the
 * older of the two first matches is taken, whichever chain it is on. */
static void formals_in_a_large_group_are_found_through_the_index(tm_core *c) {
  uint32_t s = t_space(c), i, n;
  uint64_t before;
  tm_bytes o;
  cb_build(&t, "[sF]", "job", TM_FORMAL_INTEGER);  /* the oldest: a formal */
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  for (i = 0; i < 1000; i++) {
    cb_build(&t, "[si]", "job", (long long)i);
    CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  }
  cb_build(&t, "[sF]", "job", TM_FORMAL_STRING);   /* a formal of another type */
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  before = tm_debug_examined(c);
  cb_build(&p, "[si]", "job", 500LL);
  CHECK_OK(tm_space_count(c, s, p.b, p.n, &n));
  CHECK_EQ(n, 2); /* (job 500) and (job ?integer) */
  CHECK(tm_debug_examined(c) - before <= 3); /* one value, two formals */
  before = tm_debug_examined(c);
  CHECK_OK(tm_space_inp(c, s, p.b, p.n, &o));
  CHECK(cb_equal_hex(&o, "82 636a6f62 d9a020 01")); /* the older: formal */
  CHECK(tm_debug_examined(c) - before <= 3);
  CHECK_OK(tm_space_inp(c, s, p.b, p.n, &o));
  CHECK(cb_equal_hex(&o, "82 636a6f62 1901f4"));    /* then (job 500) */
  CHECK_ST(tm_space_inp(c, s, p.b, p.n, &o), TM_NOMATCH);
  cb_build(&p, "[sF]", "job", TM_FORMAL_STRING);
  CHECK_ST(tm_space_inp(c, s, p.b, p.n, &o), TM_NOMATCH); /* no formal-formal */
  cb_build(&t, "[ss]", "job", "x");                 /* a formal before it */
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  cb_build(&p, "[ss]", "job", "x");
  CHECK_OK(tm_space_count(c, s, p.b, p.n, &n));
  CHECK_EQ(n, 2); /* (job ?string) and (job "x") */
  CHECK_OK(tm_space_inp(c, s, p.b, p.n, &o));
  CHECK(cb_equal_hex(&o, "82 636a6f62 d9a020 04")); /* the older: ?string */
  CHECK_EQ(t_count(c, s), 1000); /* 999 actuals and (job "x") */
  CHECK_CORE();
}

/* The out of a tuple with formals looks only at the waiters that may match
 * it while none waits with its first actual where the tuple has its first
 * formal; once one does, it is found (and woken) too. */
static void an_out_with_a_formal_looks_at_the_waiters_that_may_match(tm_core *c) {
  uint32_t s = t_space(c), i, pid, woken;
  uint64_t before;
  tm_bytes o;
  for (i = 0; i < 200; i++) { /* 200 waiters on other keys and arities */
    pid = t_run(c);
    cb_build(&p, "[si]", "other", (long long)i);
    CHECK_EQ(tm_space_in(c, s, p.b, p.n, pid, 0, INFINITY, &o), TM_BLOCKED);
  }
  pid = t_run(c);
  cb_build(&p, "[sF]", "job", TM_FORMAL_INTEGER);
  CHECK_EQ(tm_space_in(c, s, p.b, p.n, pid, 0, INFINITY, &o), TM_BLOCKED);
  before = tm_debug_examined(c);
  cb_build(&t, "[sF]", "job", TM_FORMAL_INTEGER); /* formal vs formal: none */
  CHECK_OK(tm_space_out(c, s, t.b, t.n, &woken));
  CHECK_EQ(woken, 0);
  CHECK(tm_debug_examined(c) - before <= 1); /* the one waiter on "job" */
  CHECK_OK(tm_space_remove_exact(c, s, t.b, t.n)); /* it was stored */
  pid = t_run(c);                             /* its first actual at 1 */
  cb_build(&p, "[Fi]", TM_FORMAL_STRING, 9LL);
  CHECK_EQ(tm_space_in(c, s, p.b, p.n, pid, 0, INFINITY, &o), TM_BLOCKED);
  cb_build(&t, "[sF]", "job", TM_FORMAL_INTEGER);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, &woken));
  CHECK_EQ(woken, 1); /* ("job" ?integer) matches (?string 9) */
  CHECK_EQ(t_state(c, pid), TM_PROC_READY);
  CHECK_CORE();
}

/* A waiter registered under its first actual is woken by a tuple whose
 * formal stands in that field, and a waiting formal by an actual of a
 * tuple that holds a formal elsewhere; a formal against a formal is not. */
static void an_out_with_a_formal_wakes_a_matching_waiter(tm_core *c) {
  uint32_t s = t_space(c), pin, prd, pno, woken = 0;
  tm_bytes o;
  cb_build(&p, "[si]", "job", 42LL);
  pin = t_run(c);
  CHECK_ST(tm_space_in(c, s, p.b, p.n, pin, 0, INFINITY, &o), TM_BLOCKED);
  cb_build(&p, "[sF]", "job", TM_FORMAL_INTEGER);
  pno = t_run(c);
  CHECK_ST(tm_space_in(c, s, p.b, p.n, pno, 0, INFINITY, &o), TM_BLOCKED);
  cb_build(&p, "[Fi]", TM_FORMAL_STRING, 42LL);
  prd = t_run(c);
  CHECK_ST(tm_space_rd(c, s, p.b, p.n, prd, 0, INFINITY, &o), TM_BLOCKED);
  cb_build(&t, "[sF]", "job", TM_FORMAL_INTEGER);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, &woken));
  CHECK_EQ(woken, 2); /* the in ("job", 42) and the rd (?string, 42) */
  CHECK_EQ(t_state(c, pin), TM_PROC_READY);
  CHECK_EQ(t_state(c, prd), TM_PROC_READY);
  CHECK_EQ(t_state(c, pno), TM_PROC_WAIT_TUPLE); /* formal against formal */
  CHECK_EQ(t_count(c, s), 0);                    /* the in took it */
  CHECK_OK(tm_space_out(c, s, t.b, t.n, &woken));
  CHECK_EQ(woken, 0);
  CHECK_EQ(t_count(c, s), 1);
  CHECK_CORE();
}

/* tm_space_remove_exact: by what a tuple is, in a small and an indexed
 * group: a formal tuple removes only its equal (not the actual it would
 * match), an actual tuple never a formal one; a missing one is NOMATCH. */
static void an_exact_removal_takes_only_an_equal_tuple(tm_core *c) {
  uint32_t s = t_space(c), i, n;
  tm_bytes o;
  static cb t2;
  for (i = 0; i < 3 * TM_INDEX_MIN; i++) { /* past the index threshold */
    cb_build(&t, "[sii]", "B", (long long)i, 1LL);
    CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  }
  cb_build(&t, "[siF]", "B", 5LL, TM_FORMAL_INTEGER); /* ("B", 5, ?integer) */
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  cb_build(&t2, "[sii]", "B", 5LL, 1LL); /* the older ("B", 5, 1) matches it */
  CHECK_OK(tm_space_remove_exact(c, s, t.b, t.n)); /* the formal one */
  CHECK_OK(tm_space_count(c, s, t2.b, t2.n, &n));
  CHECK_EQ(n, 1); /* ("B", 5, 1) is still there */
  CHECK_ST(tm_space_remove_exact(c, s, t.b, t.n), TM_NOMATCH);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  CHECK_OK(tm_space_remove_exact(c, s, t2.b, t2.n)); /* the actual one */
  cb_build(&p, "[siF]", "B", 5LL, TM_FORMAL_ANY);
  CHECK_OK(tm_space_count(c, s, p.b, p.n, &n));
  CHECK_EQ(n, 0); /* ("B", 5, 1) is gone; the formal one matches no formal */
  cb_build(&p, "[sii]", "B", 5LL, 99LL);
  CHECK_OK(tm_space_rdp(c, s, p.b, p.n, &o)); /* the formal one is still there */
  CHECK(o.len == t.n && memcmp(o.bytes, t.b, t.n) == 0);
  CHECK_EQ(t_count(c, s), 3 * TM_INDEX_MIN);
  /* a small group, and a tuple holding a stored template inside a field */
  cb_build(&t2, "[s[sF]]", "saved", "job", TM_FORMAL_INTEGER);
  CHECK_OK(tm_space_out(c, s, t2.b, t2.n, NULL));
  CHECK_OK(tm_space_remove_exact(c, s, t2.b, t2.n));
  CHECK_ST(tm_space_remove_exact(c, s, t2.b, t2.n), TM_NOMATCH);
  cb_build(&t2, "[s]", "none");
  CHECK_ST(tm_space_remove_exact(c, s, t2.b, t2.n), TM_NOMATCH);
  CHECK_EQ(t_count(c, s), 3 * TM_INDEX_MIN);
  CHECK_CORE();
}

const test_case snet_tests[] = {
    {"an out with a formal looks at the waiters that may match", an_out_with_a_formal_looks_at_the_waiters_that_may_match},
    {"formals in a large group are found through the index", formals_in_a_large_group_are_found_through_the_index},
    {"a formal in a tuple matches an actual of its type", a_formal_in_a_tuple_matches_an_actual_of_its_type},
    {"a formal in a tuple never matches a formal", a_formal_never_matches_a_formal},
    {"tagged and any formals in tuples", tagged_and_any_formals_in_tuples},
    {"an unknown formal in a tuple is refused", an_unknown_formal_in_a_tuple_is_refused},
    {"the oldest match is taken, also in an indexed group", the_oldest_match_is_taken_in_an_indexed_group},
    {"an out with a formal wakes a matching waiter", an_out_with_a_formal_wakes_a_matching_waiter},
    {"an exact removal takes only an equal tuple", an_exact_removal_takes_only_an_equal_tuple},
    {NULL, NULL},
};
