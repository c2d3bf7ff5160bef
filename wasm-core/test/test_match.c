/*
 * test_match.c — formals, actuals and the per-field index.
 */
#include "test.h"

static cb t, p;

/* Whether template p finds tuple t alone in a fresh space (then cleans). */
static int matches(tm_core *c, uint32_t s) {
  tm_bytes o;
  uint32_t n = 99;
  tm_status st;
  if (tm_space_out(c, s, t.b, t.n, NULL) != TM_OK) return -1;
  st = tm_space_count(c, s, p.b, p.n, &n);
  if (st != TM_OK) return -1;
  st = tm_space_inp(c, s, p.b, p.n, &o);
  if ((st == TM_OK) != (n == 1)) return -1; /* count and inp agree */
  if (st == TM_NOMATCH) { /* remove it with an all-any template */
    static cb any;
    unsigned k, arity = t.b[0] & 31;
    cb_reset(&any);
    cb_head(&any, 4, arity);
    for (k = 0; k < arity; k++) cb_formal(&any, TM_FORMAL_ANY);
    if (tm_space_inp(c, s, any.b, any.n, &o) != TM_OK) return -1;
  }
  return st == TM_OK;
}

/* Values of each type, one per row; want[row][code] for codes 0..10. */
static const char *values[] = {
    "05", "38 63", "c2 49 010000000000000000", "f9 3e00", "fb 3fb999999999999a",
    "d8 1e 82 01 02", "63 616263", "d9a000 63 616263", "42 0102", "f5", "f4",
    "82 01 02", "a1 01 02", "f6", "d9 a002 82 01 02", "f7"};
static const char want[][11] = {
    /*     any int num flt str sym byt boo arr map nul */
    /* 5 */ {1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0},
    /*-100*/{1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0},
    /* big*/{1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0},
    /*1.5 */{1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0},
    /*0.1 */{1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0},
    /*1/2 */{1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0},
    /*"abc"*/{1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0},
    /*'abc*/{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0},
    /*bytes*/{1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0},
    /*true*/{1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0},
    /*false*/{1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0},
    /*[1,2]*/{1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0},
    /*{1:2}*/{1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0},
    /*null*/{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1},
    /*list*/{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    /*undef*/{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}};

static void each_formal_matches_exactly_its_type(tm_core *c) {
  uint32_t s = t_space(c);
  size_t v;
  int code;
  for (v = 0; v < sizeof values / sizeof values[0]; v++)
    for (code = 0; code <= TM_FORMAL_NULL; code++) {
      cb_build(&t, "[sx]", "k", values[v]);
      cb_build(&p, "[sF]", "k", code);
      if (matches(c, s) != want[v][code]) {
        char d[80];
        snprintf(d, sizeof d, " (value %s, formal %d)", values[v], code);
        t_fail(__FILE__, __LINE__, "formal type table", d);
        return;
      }
    }
}

static void a_tagged_formal_matches_only_that_tag(tm_core *c) {
  uint32_t s = t_space(c);
  cb_build(&t, "[x]", "d9 a002 82 01 02");
  cb_build(&p, "[T]", 40962ull);
  CHECK_EQ(matches(c, s), 1);
  cb_build(&p, "[T]", 40963ull);
  CHECK_EQ(matches(c, s), 0);
  cb_build(&t, "[y]", "sym");
  cb_build(&p, "[T]", 40960ull);
  CHECK_EQ(matches(c, s), 1);
  cb_build(&t, "[x]", "c2 49 010000000000000000");
  cb_build(&p, "[T]", 2ull);
  CHECK_EQ(matches(c, s), 1);
}

static void actuals_compare_canonical_bytes_so_1_is_not_1_0(tm_core *c) {
  uint32_t s = t_space(c);
  cb_build(&t, "[si]", "n", 1LL);
  cb_build(&p, "[sd]", "n", 1.0);
  CHECK_EQ(matches(c, s), 0);
  cb_build(&p, "[si]", "n", 1LL);
  CHECK_EQ(matches(c, s), 1);
  /* a non-canonical tuple still equals the canonical template */
  cb_build(&t, "[x]", "18 01");
  cb_build(&p, "[x]", "01");
  CHECK_EQ(matches(c, s), 1);
  cb_build(&t, "[x]", "bf 61 62 01 61 61 02 ff");
  cb_build(&p, "[x]", "a2 61 61 02 61 62 01");
  CHECK_EQ(matches(c, s), 1);
  cb_build(&t, "[d]", 1.5);
  cb_build(&p, "[x]", "f9 3e00");
  CHECK_EQ(matches(c, s), 1);
}

static void templates_match_only_tuples_of_their_arity(tm_core *c) {
  uint32_t s = t_space(c);
  cb_build(&t, "[si]", "a", 1LL);
  cb_build(&p, "[sFF]", "a", TM_FORMAL_ANY, TM_FORMAL_ANY);
  CHECK_EQ(matches(c, s), 0);
  cb_build(&p, "[F]", TM_FORMAL_ANY);
  CHECK_EQ(matches(c, s), 0);
  cb_build(&p, "[sF]", "a", TM_FORMAL_ANY);
  CHECK_EQ(matches(c, s), 1);
}

static void unknown_formal_codes_are_errors(tm_core *c) {
  uint32_t s = t_space(c), n;
  tm_bytes o;
  cb_build(&t, "[si]", "a", 1LL);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  cb_build(&p, "[sF]", "a", 12);
  CHECK_ST(tm_space_inp(c, s, p.b, p.n, &o), TM_E_UNKNOWN_FORMAL);
  CHECK_MSG("code 12");
  CHECK_MSG("field 1");
  cb_build(&p, "[sF]", "a", TM_FORMAL_TAGGED);
  CHECK_ST(tm_space_rdp(c, s, p.b, p.n, &o), TM_E_UNKNOWN_FORMAL);
  cb_build(&p, "[sx]", "a", "d9a020 82 0b 61 78"); /* [11, "x"] */
  CHECK_ST(tm_space_count(c, s, p.b, p.n, &n), TM_E_UNKNOWN_FORMAL);
  cb_build(&p, "[sx]", "a", "d9a020 83 0b 01 02");
  CHECK_ST(tm_space_count(c, s, p.b, p.n, &n), TM_E_UNKNOWN_FORMAL);
  cb_build(&p, "[sx]", "a", "d9a020 61 78");
  CHECK_ST(tm_space_count(c, s, p.b, p.n, &n), TM_E_UNKNOWN_FORMAL);
  /* even on an empty space, and the store is unchanged */
  cb_build(&p, "[sF]", "zzz", 99);
  CHECK_ST(tm_space_inp(c, s, p.b, p.n, &o), TM_E_UNKNOWN_FORMAL);
  CHECK_EQ(t_count(c, s), 1);
}

static void formals_nested_in_actuals_are_plain_data(tm_core *c) {
  uint32_t s = t_space(c);
  cb_build(&t, "[s[F]]", "q", TM_FORMAL_INTEGER);
  cb_build(&p, "[s[F]]", "q", TM_FORMAL_INTEGER);
  CHECK_EQ(matches(c, s), 1);
  cb_build(&p, "[s[i]]", "q", 5LL);
  CHECK_EQ(matches(c, s), 0);
}

static void a_selective_template_does_not_scan_100000_tuples(tm_core *c) {
  uint32_t s = t_space(c), i;
  uint64_t before;
  tm_bytes o;
  for (i = 0; i < 100000; i++) {
    cb_build(&t, "[siis]", "A", (long long)i, (long long)(i * 7), "value");
    CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  }
  before = tm_debug_examined(c);
  cb_build(&p, "[siFF]", "A", 77777LL, TM_FORMAL_INTEGER, TM_FORMAL_ANY);
  CHECK_OK(tm_space_rdp(c, s, p.b, p.n, &o));
  cb_build(&t, "[siis]", "A", 77777LL, 77777LL * 7, "value");
  CHECK(o.len == t.n && memcmp(o.bytes, t.b, t.n) == 0);
  CHECK_EQ(tm_debug_examined(c) - before, 1);
  /* an in by the third field is as cheap */
  before = tm_debug_examined(c);
  cb_build(&p, "[sFiF]", "A", TM_FORMAL_INTEGER, 7LL * 4242, TM_FORMAL_ANY);
  CHECK_OK(tm_space_inp(c, s, p.b, p.n, &o));
  CHECK_EQ(tm_debug_examined(c) - before, 1);
  CHECK_EQ(t_count(c, s), 99999);
  /* a value that is nowhere costs nothing */
  before = tm_debug_examined(c);
  cb_build(&p, "[siFF]", "A", 4242LL, TM_FORMAL_INTEGER, TM_FORMAL_ANY);
  CHECK_ST(tm_space_inp(c, s, p.b, p.n, &o), TM_NOMATCH);
  CHECK_EQ(tm_debug_examined(c) - before, 0);
}

static void a_formals_only_template_scans_only_its_arity(tm_core *c) {
  uint32_t s = t_space(c), i;
  uint64_t before;
  tm_bytes o;
  for (i = 0; i < 1000; i++) {
    cb_build(&t, "[ii]", (long long)i, 0LL);
    CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  }
  cb_build(&t, "[iii]", 1LL, 2LL, 3LL);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  before = tm_debug_examined(c);
  cb_build(&p, "[FFF]", TM_FORMAL_INTEGER, TM_FORMAL_INTEGER, TM_FORMAL_INTEGER);
  CHECK_OK(tm_space_rdp(c, s, p.b, p.n, &o));
  CHECK_EQ(tm_debug_examined(c) - before, 1);
}

static void the_oldest_matching_tuple_comes_first(tm_core *c) {
  uint32_t s = t_space(c);
  long long i;
  tm_bytes o;
  for (i = 0; i < 5; i++) {
    cb_build(&t, "[sii]", "job", i % 2, i);
    CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  }
  cb_build(&p, "[siF]", "job", 1LL, TM_FORMAL_INTEGER);
  CHECK_OK(tm_space_inp(c, s, p.b, p.n, &o));
  CHECK(cb_equal_hex(&o, "83 63 6a6f62 01 01"));
  CHECK_OK(tm_space_inp(c, s, p.b, p.n, &o));
  CHECK(cb_equal_hex(&o, "83 63 6a6f62 01 03"));
  CHECK_ST(tm_space_inp(c, s, p.b, p.n, &o), TM_NOMATCH);
  cb_build(&p, "[sFF]", "job", TM_FORMAL_ANY, TM_FORMAL_ANY);
  CHECK_OK(tm_space_inp(c, s, p.b, p.n, &o));
  CHECK(cb_equal_hex(&o, "83 63 6a6f62 00 00"));
}

const test_case match_tests[] = {
    {"each formal matches exactly the values of its type", each_formal_matches_exactly_its_type},
    {"a tagged formal matches only values carrying that tag", a_tagged_formal_matches_only_that_tag},
    {"actuals compare canonical bytes, so 1 never equals 1.0", actuals_compare_canonical_bytes_so_1_is_not_1_0},
    {"templates match only tuples of their arity", templates_match_only_tuples_of_their_arity},
    {"unknown formal codes are errors, never silent non-matches", unknown_formal_codes_are_errors},
    {"formals nested inside actuals are plain data", formals_nested_in_actuals_are_plain_data},
    {"a selective template finds its tuple among 100,000 without scanning", a_selective_template_does_not_scan_100000_tuples},
    {"a template of formals only scans only tuples of its arity", a_formals_only_template_scans_only_its_arity},
    {"the oldest matching tuple comes first", the_oldest_matching_tuple_comes_first},
    {NULL, NULL}};
