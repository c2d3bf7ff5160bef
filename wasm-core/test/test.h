/*
 * test.h — the native test harness: a table of named tests per module,
 * assertions that stop the current test, and a small CBOR builder.
 *
 * Every test runs on a fresh core built with a counting allocator; after
 * the test the harness runs tm_core_check, destroys the core and verifies
 * that the allocator got every byte back (so accounting is exact).
 */
#ifndef TM_TEST_H
#define TM_TEST_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "termite_core.h"

typedef struct test_case {
  const char *name;          /* a sentence saying what must hold */
  void (*fn)(tm_core *c);    /* the test body */
} test_case;

/* Set by the assertion macros; the runner counts the test as failed. */
extern int t_failed;
void t_fail(const char *file, int line, const char *what, const char *detail);
void t_fail_status(const char *file, int line, const char *expr,
                   tm_status got, tm_status want, tm_core *c);

#define CHECK(cond)                                                  \
  do {                                                               \
    if (!(cond)) { t_fail(__FILE__, __LINE__, #cond, ""); return; }  \
  } while (0)

#define CHECK_EQ(a, b)                                                       \
  do {                                                                       \
    long long _a = (long long)(a), _b = (long long)(b);                      \
    if (_a != _b) {                                                          \
      char _d[96];                                                           \
      snprintf(_d, sizeof _d, " (%lld != %lld)", _a, _b);                    \
      t_fail(__FILE__, __LINE__, #a " == " #b, _d);                          \
      return;                                                                \
    }                                                                        \
  } while (0)

#define CHECK_ST(expr, want)                                               \
  do {                                                                     \
    tm_status _s = (expr);                                                 \
    if (_s != (want)) {                                                    \
      t_fail_status(__FILE__, __LINE__, #expr, _s, (want), c);             \
      return;                                                              \
    }                                                                      \
  } while (0)

#define CHECK_OK(expr) CHECK_ST(expr, TM_OK)
#define CHECK_CORE() CHECK_ST(tm_core_check(c), TM_OK)
/* The last error message contains `needle`. */
#define CHECK_MSG(needle) CHECK(strstr(tm_core_errmsg(c), (needle)) != NULL)

/* ---- CBOR builder ------------------------------------------------------ */

typedef struct cb {
  uint8_t b[1 << 18]; /* encoded bytes */
  size_t n;           /* length */
} cb;

void cb_reset(cb *e);
void cb_head(cb *e, unsigned major, uint64_t v);
void cb_int(cb *e, int64_t v);
void cb_text(cb *e, const char *s);
void cb_bytes(cb *e, const void *p, size_t n);
void cb_f64(cb *e, double d);       /* always 8-byte float (not canonical) */
void cb_formal(cb *e, unsigned code);
void cb_formal_tagged(cb *e, uint64_t tag);
void cb_hex(cb *e, const char *hex); /* raw bytes, spaces ignored */
/*
 * Build from a format: '[' ... ']' an array (count computed), 'i' int
 * (long long), 's' text, 'y' symbol (tag 40960 + text), 'd' double (f64),
 * 'F' formal (int code), 'T' tagged formal (unsigned long long tag),
 * 't' true, 'f' false, 'n' null, 'x' raw hex string (one item).
 * Returns e for chaining.
 */
cb *cb_build(cb *e, const char *fmt, ...);

/* Canonicalise e in place through the core (test helper). */
int cb_equal_hex(const tm_bytes *b, const char *hex);

/* ---- module tables ----------------------------------------------------- */

extern const test_case cbor_tests[], store_tests[], match_tests[],
    wait_tests[], sched_tests[], timer_tests[], mbox_tests[], alloc_tests[],
    snet_tests[], record_tests[];

/* Shortcuts used across test files. */
uint32_t t_space(tm_core *c);
uint32_t t_spawn(tm_core *c, uint32_t prio, double deadline);
/* Spawn a process and make it the running one. */
uint32_t t_run(tm_core *c);
uint32_t t_state(tm_core *c, uint32_t pid);
uint32_t t_count(tm_core *c, uint32_t space);

#endif
