/*
 * test_cbor.c — the validating decoder and the canonicaliser.
 */
#include "test.h"

static cb in;

/* Canonicalise hex input; expect TM_OK with the given canonical hex. */
#define CANON(hex_in, hex_out, was)                                      \
  do {                                                                   \
    tm_bytes _o;                                                         \
    int _w = -1;                                                         \
    cb_reset(&in);                                                       \
    cb_hex(&in, hex_in);                                                 \
    CHECK_OK(tm_cbor_canonicalize(c, in.b, in.n, &_o, &_w));             \
    if (!cb_equal_hex(&_o, hex_out)) {                                   \
      t_fail(__FILE__, __LINE__, "canonical form of " hex_in, " differs"); \
      return;                                                            \
    }                                                                    \
    CHECK_EQ(_w, was);                                                   \
  } while (0)

/* Expect a rejection with a status and a message fragment. */
#define REJECT(hex_in, st, needle)                                       \
  do {                                                                   \
    tm_bytes _o;                                                         \
    cb_reset(&in);                                                       \
    cb_hex(&in, hex_in);                                                 \
    CHECK_ST(tm_cbor_canonicalize(c, in.b, in.n, &_o, NULL), st);        \
    CHECK_MSG(needle);                                                   \
  } while (0)

static void canonical_input_is_used_in_place(tm_core *c) {
  tm_bytes o;
  int was = 0;
  const uint8_t *data = tm_core_xfer(c)->data;
  CANON("83 01 64 70696e67 f9 3e00", "83 01 64 70696e67 f9 3e00", 1);
  /* input already in the transfer area: no copy, same address back */
  memcpy(tm_core_xfer(c)->data, "\x82\x01\x02", 3);
  CHECK_OK(tm_cbor_canonicalize(c, data, 3, &o, &was));
  CHECK(o.bytes == data && o.len == 3 && was == 1);
}

static void integer_heads_are_shortened(tm_core *c) {
  CANON("18 05", "05", 0);
  CANON("19 0010", "10", 0);
  CANON("1a 00000100", "19 0100", 0);
  CANON("1b 0000000000000001", "01", 0);
  CANON("38 00", "20", 0);
  CANON("99 0001 01", "81 01", 0);
  CANON("d9 0002 41 05", "05", 0);
}

static void indefinite_lengths_become_definite(tm_core *c) {
  CANON("5f 41 61 41 62 ff", "42 6162", 0);
  CANON("7f 61 61 60 61 62 ff", "62 6162", 0);
  CANON("9f 01 9f 02 ff ff", "82 01 81 02", 0);
  CANON("bf 61 62 01 61 61 02 ff", "a2 6161 02 6162 01", 0);
  CANON("5f ff", "40", 0);
}

static void map_keys_are_sorted_bytewise(tm_core *c) {
  /* 0a < 20 (-1) < 6161 ("aa") < 81 00 ([0]) */
  CANON("a4 81 00 01 61 61 02 20 03 0a 04", "a4 0a 04 20 03 6161 02 8100 01", 0);
  /* shorter key sorts first when it is a prefix */
  CANON("a2 62 6161 01 61 61 02", "a2 6161 02 626161 01", 0);
  CANON("a2 01 f5 00 f4", "a2 00 f4 01 f5", 0);
  /* nested maps are sorted too */
  CANON("81 a2 02 00 01 00", "81 a2 01 00 02 00", 0);
}

static void duplicate_map_keys_are_rejected(tm_core *c) {
  REJECT("a2 01 00 01 00", TM_E_MALFORMED, "duplicate map key");
  /* equal only once canonical: 18 01 is 01 */
  REJECT("a2 18 01 00 01 00", TM_E_MALFORMED, "duplicate map key");
  REJECT("a2 5f 41 61 ff 00 41 61 00", TM_E_MALFORMED, "duplicate");
}

static void floats_take_their_shortest_exact_form(tm_core *c) {
  CANON("fb 3ff8000000000000", "f9 3e00", 0);          /* 1.5 */
  CANON("fb 3fb999999999999a", "fb 3fb999999999999a", 1); /* 0.1 */
  CANON("fb 40f86a0000000000", "fa 47c35000", 0);       /* 100000.0 */
  CANON("fa 7f800000", "f9 7c00", 0);                   /* +inf */
  CANON("fb 8000000000000000", "f9 8000", 0);           /* -0.0 */
  CANON("fb 3e70000000000000", "f9 0001", 0);           /* 2^-24 */
  CANON("fb 36a0000000000000", "fa 00000001", 0);       /* 2^-149 */
  CANON("fb 7ff8000000000001", "f9 7e00", 0);           /* NaN payload */
  CANON("fa ffc00000", "f9 7e00", 0);                   /* negative NaN */
  CANON("f9 fe00", "f9 7e00", 0);
  CANON("f9 7e00", "f9 7e00", 1);
  CANON("fa 3f800001", "fa 3f800001", 1);               /* needs f32 */
}

static void bignums_that_fit_become_integers(tm_core *c) {
  CANON("c2 41 05", "05", 0);
  CANON("c3 41 05", "25", 0);
  CANON("c2 40", "00", 0);
  CANON("c2 43 000102", "19 0102", 0);
  CANON("c3 48 ffffffffffffffff", "3b ffffffffffffffff", 0);
  CANON("c2 49 010000000000000000", "c2 49 010000000000000000", 1);
  CANON("c2 4a 00010000000000000000", "c2 49 010000000000000000", 0);
  CANON("c2 5f 41 01 48 0000000000000000 ff", "c2 49 010000000000000000", 0);

  REJECT("c2 61 61", TM_E_MALFORMED, "bignum");
}

/* Found by fuzzing: with no chunk bytes the scratch buffer may never have
 * been allocated, so this must be the core's first canonicalisation. */
static void an_empty_chunked_bignum_on_a_fresh_core_is_zero(tm_core *c) {
  CANON("c3 5f ff", "20", 0);
  CANON("c2 5f 40 ff", "00", 0);
}

static void truncated_input_is_rejected_with_its_offset(tm_core *c) {
  REJECT("82 01", TM_E_MALFORMED, "array of 2 items declared");
  REJECT("82 01 62 61", TM_E_MALFORMED, "at byte 2 (field 1)");
  REJECT("62 61", TM_E_MALFORMED, "truncated");
  REJECT("19 01", TM_E_MALFORMED, "truncated");
  REJECT("9f 01", TM_E_MALFORMED, "no break code");
  /* a declared length far beyond the input fails at once, not by looping */
  REJECT("9b ffffffffffffffff", TM_E_MALFORMED, "array of 18446744073709551615");
  REJECT("bb 00000000ffffffff 01", TM_E_MALFORMED, "map of");
  REJECT("5b 7fffffffffffffff", TM_E_MALFORMED, "truncated");
}

static void reserved_values_and_stray_breaks_are_rejected(tm_core *c) {
  REJECT("1c", TM_E_MALFORMED, "reserved additional information");
  REJECT("81 1e", TM_E_MALFORMED, "at byte 1");
  REJECT("ff", TM_E_MALFORMED, "unexpected break code");
  REJECT("1f", TM_E_MALFORMED, "indefinite length is not allowed");
  REJECT("df 01", TM_E_MALFORMED, "tag");
  REJECT("f8 10", TM_E_MALFORMED, "simple value");
  REJECT("5f 61 61 ff", TM_E_MALFORMED, "chunk");
  REJECT("5f 5f ff ff", TM_E_MALFORMED, "chunk");
  REJECT("bf 01 ff", TM_E_MALFORMED, "map value");
  REJECT("01 02", TM_E_MALFORMED, "trailing bytes");
  REJECT("", TM_E_MALFORMED, "empty");
}

static void invalid_utf8_is_rejected_at_the_bad_byte(tm_core *c) {
  REJECT("62 c3 28", TM_E_MALFORMED, "byte 2");
  REJECT("62 c3 28", TM_E_MALFORMED, "continuation byte");
  REJECT("63 e0 80 80", TM_E_MALFORMED, "overlong");
  REJECT("62 c0 80", TM_E_MALFORMED, "leading byte");
  REJECT("63 eda080", TM_E_MALFORMED, "surrogate");
  REJECT("64 f4908080", TM_E_MALFORMED, "U+10FFFF");
  REJECT("61 80", TM_E_MALFORMED, "leading byte");
  REJECT("62 e2 82", TM_E_MALFORMED, "cut short");
  REJECT("7f 61 ff ff", TM_E_MALFORMED, "UTF-8");
  CANON("6a 41 42 43 44 45 46 47 48 c3 a9", "6a 4142434445464748c3a9", 1);
  CANON("64 f09f9880", "64 f09f9880", 1);
}

static void errors_name_the_field_of_a_tuple(tm_core *c) {
  uint32_t s = t_space(c);
  cb t;
  cb_reset(&t);
  cb_hex(&t, "83 01 62 c3 28 03");
  CHECK_ST(tm_space_out(c, s, t.b, t.n, NULL), TM_E_MALFORMED);
  CHECK_MSG("(field 1)");
  CHECK_MSG("at byte 4");
}

static void nesting_beyond_the_depth_limit_is_refused(tm_core *c) {
  cb *e = &in;
  int i;
  tm_bytes o;
  cb_reset(e);
  for (i = 0; i < 65; i++) cb_head(e, 4, 1);
  cb_head(e, 0, 1);
  CHECK_ST(tm_cbor_canonicalize(c, e->b, e->n, &o, NULL), TM_E_LIMIT);
  CHECK_MSG("nesting deeper than 64");
  cb_reset(e);
  for (i = 0; i < 64; i++) cb_head(e, 4, 1);
  cb_head(e, 0, 1);
  CHECK_OK(tm_cbor_canonicalize(c, e->b, e->n, &o, NULL));
  cb_reset(e); /* tags count as nesting too */
  for (i = 0; i < 65; i++) cb_head(e, 6, 100);
  cb_head(e, 0, 1);
  CHECK_ST(tm_cbor_canonicalize(c, e->b, e->n, &o, NULL), TM_E_LIMIT);
}

static void the_depth_limit_is_capped_and_the_cap_is_safe(tm_core *c) {
  tm_config cfg;
  tm_core *deep = NULL;
  tm_bytes o;
  int i;
  (void)c;
  tm_config_init(&cfg);
  cfg.max_depth = TM_MAX_DEPTH + 1;
  CHECK_ST(tm_core_create(&cfg, &deep), TM_E_ARG);
  cfg.max_depth = TM_MAX_DEPTH;
  CHECK_OK(tm_core_create(&cfg, &deep));
  cb_reset(&in); /* indefinite arrays take the recursive slow path too */
  for (i = 0; i < TM_MAX_DEPTH; i++) in.b[in.n++] = 0x9f;
  cb_head(&in, 0, 1);
  for (i = 0; i < TM_MAX_DEPTH; i++) in.b[in.n++] = 0xff;
  i = tm_cbor_canonicalize(deep, in.b, in.n, &o, NULL) == TM_OK && o.len == TM_MAX_DEPTH + 1;
  in.b[in.n++] = 0xff; /* one break too many */
  i = i && tm_cbor_canonicalize(deep, in.b, in.n, &o, NULL) == TM_E_MALFORMED;
  tm_core_destroy(deep);
  CHECK(i);
}

static void items_above_the_size_limit_are_refused(tm_core *c) {
  tm_config cfg;
  tm_core *small = NULL;
  tm_bytes o;
  tm_config_init(&cfg);
  cfg.max_item_bytes = 16;
  CHECK_OK(tm_core_create(&cfg, &small));
  cb_reset(&in);
  cb_head(&in, 2, 20);
  in.n += 20;
  memset(in.b + 1, 7, 20);
  CHECK_ST(tm_cbor_canonicalize(small, in.b, in.n, &o, NULL), TM_E_LIMIT);
  CHECK(strstr(tm_core_errmsg(small), "limit is 16") != NULL);
  tm_core_destroy(small);
}

static void canonical_form_is_idempotent_and_tags_recurse(tm_core *c) {
  static const char *inputs[] = {
      "d9 a000 7f 61 61 61 62 ff", "c1 fb 41d0000000000000",
      "bf 63 616263 9f f9 3c00 fa 3fc00000 ff 61 7a c2 41 00 ff",
      "d8 1e 82 18 01 19 0002", "83 f5 f6 f7"};
  size_t i;
  static cb first;
  for (i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
    tm_bytes o;
    int was = 0;
    cb_reset(&in);
    cb_hex(&in, inputs[i]);
    CHECK_OK(tm_cbor_canonicalize(c, in.b, in.n, &o, NULL));
    memcpy(first.b, o.bytes, o.len);
    first.n = o.len;
    CHECK_OK(tm_cbor_canonicalize(c, first.b, first.n, &o, &was));
    CHECK(was == 1 && o.len == first.n && memcmp(o.bytes, first.b, o.len) == 0);
  }
  CANON("d9 a000 7f 61 61 61 62 ff", "d9 a000 62 6162", 0);
}

static void simple_values_and_undefined_are_kept(tm_core *c) {
  CANON("84 f4 f5 f6 f7", "84 f4 f5 f6 f7", 1);
  CANON("f8 20", "f8 20", 1);
  CANON("e0", "e0", 1);
}

const test_case cbor_tests[] = {
    {"canonical input is used in place without a copy", canonical_input_is_used_in_place},
    {"integer heads are shortened to their shortest form", integer_heads_are_shortened},
    {"indefinite lengths become definite", indefinite_lengths_become_definite},
    {"map keys are sorted bytewise by their canonical encoding", map_keys_are_sorted_bytewise},
    {"duplicate map keys are rejected, also when equal only once canonical", duplicate_map_keys_are_rejected},
    {"floats take their shortest exact form and NaN is canonical", floats_take_their_shortest_exact_form},
    {"bignums that fit in 64 bits become plain integers", bignums_that_fit_become_integers},
    {"an empty chunked bignum on a fresh core canonicalises to an integer", an_empty_chunked_bignum_on_a_fresh_core_is_zero},
    {"truncated input is rejected with its byte offset", truncated_input_is_rejected_with_its_offset},
    {"reserved values and stray break codes are rejected", reserved_values_and_stray_breaks_are_rejected},
    {"invalid UTF-8 is rejected at the offending byte", invalid_utf8_is_rejected_at_the_bad_byte},
    {"errors in a tuple name the field and the byte", errors_name_the_field_of_a_tuple},
    {"nesting beyond the depth limit is refused", nesting_beyond_the_depth_limit_is_refused},
    {"items above the size limit are refused", items_above_the_size_limit_are_refused},
    {"the depth limit is capped and its cap is safe to reach", the_depth_limit_is_capped_and_the_cap_is_safe},
    {"the canonical form is idempotent and tags canonicalise their content", canonical_form_is_idempotent_and_tags_recurse},
    {"simple values and undefined are kept", simple_values_and_undefined_are_kept},
    {NULL, NULL}};
