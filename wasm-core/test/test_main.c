/*
 * test_main.c — runs every module's tests and prints "N passed, N failed".
 * Usage: test_native [name-substring]
 */
#include <stdarg.h>
#include <stdlib.h>

#include "test.h"

int t_failed;
static const char *t_current;

void t_fail(const char *file, int line, const char *what, const char *detail) {
  printf("FAIL %s\n  %s:%d: %s%s\n", t_current, file, line, what, detail);
  t_failed = 1;
}

void t_fail_status(const char *file, int line, const char *expr,
                   tm_status got, tm_status want, tm_core *c) {
  printf("FAIL %s\n  %s:%d: %s returned %s, expected %s\n  message: %s\n",
         t_current, file, line, expr, tm_status_name(got),
         tm_status_name(want), c ? tm_core_errmsg(c) : "");
  t_failed = 1;
}

/* ---- counting allocator: the core's accounting must match it exactly ---- */

static size_t hook_live;

static void *hook(void *ud, void *p, size_t old_n, size_t n) {
  (void)ud;
  if (n == 0) {
    hook_live -= old_n;
    free(p);
    return NULL;
  }
  p = realloc(p, n);
  if (p != NULL) hook_live = hook_live - old_n + n;
  return p;
}

static int run_one(const test_case *t) {
  tm_config cfg;
  tm_core *c = NULL;
  t_current = t->name;
  t_failed = 0;
  hook_live = 0;
  tm_config_init(&cfg);
  cfg.alloc = hook;
  if (tm_core_create(&cfg, &c) != TM_OK) {
    t_fail(__FILE__, __LINE__, "tm_core_create", "");
    return 0;
  }
  t->fn(c);
  if (!t_failed && tm_core_check(c) != TM_OK)
    t_fail(__FILE__, __LINE__, "tm_core_check after the test: ",
           tm_core_errmsg(c));
  if (!t_failed && tm_core_live_bytes(c) != hook_live)
    t_fail(__FILE__, __LINE__, "core live bytes == allocator live bytes", "");
  tm_core_destroy(c);
  if (!t_failed && hook_live != 0)
    t_fail(__FILE__, __LINE__, "every byte freed by tm_core_destroy", "");
  return !t_failed;
}

int main(int argc, char **argv) {
  const test_case *mods[] = {cbor_tests,  match_tests, store_tests,
                             wait_tests,  sched_tests, timer_tests,
                             mbox_tests,  alloc_tests, snet_tests,
                             record_tests};
  const char *filter = argc > 1 ? argv[1] : NULL;
  size_t m, passed = 0, failed = 0;
  const test_case *t;
  for (m = 0; m < sizeof mods / sizeof mods[0]; m++)
    for (t = mods[m]; t->name != NULL; t++) {
      if (filter != NULL && strstr(t->name, filter) == NULL) continue;
      if (getenv("TM_TEST_VERBOSE") != NULL) printf("... %s\n", t->name);
      if (run_one(t)) passed++;
      else failed++;
    }
  printf("%zu passed, %zu failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
