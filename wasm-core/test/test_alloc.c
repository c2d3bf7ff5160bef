/*
 * test_alloc.c — failure injection: every operation is run with its n-th
 * allocation failing, for every n it reaches. Each failure must return
 * TM_E_NOMEM with a message, leave the observable state (every space's
 * digest, the scheduler and timer digest) unchanged, and pass the
 * consistency checks; then the next n is tried on the same core, until the
 * operation succeeds.
 */
#include <stdlib.h>

#include "../src/core.h"
#include "test.h"

static cb t, p;

/* Observable state of the whole core. */
static uint64_t state_digest(tm_core *c) {
  uint64_t h = tm_sched_digest(c), d;
  uint32_t i;
  for (i = 0; i < c->store.hwm; i++) {
    tm_space *sp = &c->store.spaces[i];
    if (!sp->live) continue;
    tm_space_digest(c, tm_id_make(i, sp->gen), &d);
    h = tm_mix64(h ^ d ^ i);
  }
  return h;
}

typedef tm_status (*op_fn)(tm_core *c, void *ctx);

/* Returns the operation's final status; *failures counts injected ones. */
static tm_status inject(tm_core *c, op_fn op, void *ctx, unsigned *failures) {
  unsigned n;
  *failures = 0;
  for (n = 1; n < 10000; n++) {
    uint64_t before = state_digest(c);
    tm_status st;
    tm_debug_fail_alloc(c, n);
    st = op(c, ctx);
    tm_debug_fail_alloc(c, 0);
    if (st != TM_E_NOMEM) return st;
    (*failures)++;
    if (strstr(tm_core_errmsg(c), "out of memory") == NULL ||
        state_digest(c) != before || tm_core_check(c) != TM_OK) {
      printf("  failure %u left the core changed or inconsistent: %s\n", n,
             tm_core_errmsg(c));
      return TM_E_CORRUPT;
    }
  }
  return TM_E_CORRUPT;
}

static int at_least(unsigned f, unsigned m) { return f >= m; }

#define INJECT(op, ctx, want, min_failures)                  \
  do {                                                       \
    unsigned _f = 0;                                         \
    CHECK_ST(inject(c, op, ctx, &_f), want);                 \
    CHECK(at_least(_f, (min_failures)));                             \
  } while (0)

static uint32_t g_space, g_pid;

static tm_status op_out(tm_core *c, void *ctx) {
  (void)ctx;
  return tm_space_out(c, g_space, t.b, t.n, NULL);
}

static tm_status op_inp(tm_core *c, void *ctx) {
  tm_bytes o;
  (void)ctx;
  return tm_space_inp(c, g_space, p.b, p.n, &o);
}

static void an_out_that_fails_to_allocate_changes_nothing(tm_core *c) {
  g_space = t_space(c);
  cb_build(&t, "[sii[ss]]", "a", 1LL, 2LL, "x", "y");
  INJECT(op_out, NULL, TM_OK, 3); /* scratch, tuple, chains, table */
  CHECK_EQ(t_count(c, g_space), 1);
  cb_build(&t, "[sii[ss]]", "a", 3LL, 4LL, "x", "z");
  INJECT(op_out, NULL, TM_OK, 1);
  CHECK_EQ(t_count(c, g_space), 2);
  /* non-canonical input with maps to sort: the canonicaliser's buffers */
  cb_reset(&t);
  cb_hex(&t, "9f bf 63 7a7a7a 01 61 61 02 ff bf 61 62 03 61 61 04 ff 18 05 ff");
  INJECT(op_out, NULL, TM_OK, 2);
  CHECK_EQ(t_count(c, g_space), 3);
}

static void a_wide_tuple_fails_cleanly_while_growing_scratch(tm_core *c) {
  unsigned i;
  g_space = t_space(c);
  cb_reset(&t);
  cb_head(&t, 4, 300);
  for (i = 0; i < 300; i++) cb_int(&t, i);
  INJECT(op_out, NULL, TM_OK, 3);
  cb_reset(&p);
  cb_head(&p, 4, 300);
  for (i = 0; i < 300; i++) cb_formal(&p, TM_FORMAL_INTEGER);
  INJECT(op_inp, NULL, TM_OK, 0);
  CHECK_EQ(t_count(c, g_space), 0);
}

/* The out that grows a group past TM_INDEX_MIN links the whole group; it
 * allocates every chain first, so failing changes no contents. */
static void indexing_a_group_fails_cleanly(tm_core *c) {
  uint32_t i;
  g_space = t_space(c);
  for (i = 0; i < TM_INDEX_MIN; i++) {
    cb_build(&t, "[sis]", "grp", (long long)i, i % 2 ? "odd" : "even");
    CHECK_OK(tm_space_out(c, g_space, t.b, t.n, NULL));
  }
  cb_build(&t, "[sis]", "grp", 99LL, "last");
  INJECT(op_out, NULL, TM_OK, 3); /* chains for fields, table growth */
  CHECK_EQ(t_count(c, g_space), TM_INDEX_MIN + 1);
  cb_build(&p, "[sFs]", "grp", TM_FORMAL_INTEGER, "odd");
  INJECT(op_inp, NULL, TM_OK, 0);
  CHECK_EQ(t_count(c, g_space), TM_INDEX_MIN);
}

static void waking_waiters_fails_cleanly_when_copies_cannot_be_made(tm_core *c) {
  uint32_t pids[4], i, waiters;
  tm_bytes o;
  g_space = t_space(c);
  cb_build(&p, "[sF]", "w", TM_FORMAL_ANY);
  for (i = 0; i < 4; i++) {
    pids[i] = t_run(c);
    if (i % 2 == 0)
      CHECK_ST(tm_space_rd(c, g_space, p.b, p.n, pids[i], 0, INFINITY, &o), TM_BLOCKED);
    else
      CHECK_ST(tm_space_in(c, g_space, p.b, p.n, pids[i], 0, INFINITY, &o), TM_BLOCKED);
  }
  cb_build(&t, "[si]", "w", 1LL);
  INJECT(op_out, NULL, TM_OK, 3); /* rd0, in1, rd2 each need a copy */
  CHECK_EQ(t_count(c, g_space), 0);
  CHECK_OK(tm_space_stats(c, g_space, NULL, &waiters, NULL));
  CHECK_EQ(waiters, 1);
  CHECK_EQ(t_state(c, pids[3]), TM_PROC_WAIT_TUPLE);
}

static tm_status op_block_in(tm_core *c, void *ctx) {
  tm_bytes o;
  (void)ctx;
  return tm_space_in(c, g_space, p.b, p.n, g_pid, 1, 500.0, &o);
}

static void registering_a_waiter_fails_cleanly(tm_core *c) {
  g_space = t_space(c);
  g_pid = t_run(c);
  cb_build(&p, "[siF]", "never", 5LL, TM_FORMAL_ANY);
  INJECT(op_block_in, NULL, TM_BLOCKED, 3); /* waiter, chain, timers, table */
  CHECK_EQ(t_state(c, g_pid), TM_PROC_WAIT_TUPLE);
}

static void growing_the_transfer_area_fails_without_losing_the_tuple(tm_core *c) {
  static uint8_t big[100000];
  g_space = t_space(c);
  cb_reset(&t);
  cb_head(&t, 4, 1);
  cb_bytes(&t, big, sizeof big);
  memset(big, 1, sizeof big);
  CHECK_OK(tm_space_out(c, g_space, t.b, t.n, NULL));
  cb_build(&p, "[F]", TM_FORMAL_BYTES);
  INJECT(op_inp, NULL, TM_OK, 1);
  CHECK_EQ(t_count(c, g_space), 0);
}

static tm_status op_space(tm_core *c, void *ctx) {
  uint32_t id;
  (void)ctx;
  return tm_space_create(c, &id);
}

static tm_status op_spawn(tm_core *c, void *ctx) {
  uint32_t pid;
  return tm_proc_spawn(c, 1, *(double *)ctx, &pid);
}

static void creating_spaces_and_processes_fails_cleanly(tm_core *c) {
  double none = INFINITY, soon = 10;
  unsigned i;
  uint32_t live;
  INJECT(op_space, NULL, TM_OK, 1);
  for (i = 0; i < 70; i++) INJECT(op_spawn, &none, TM_OK, 0);
  INJECT(op_spawn, &soon, TM_OK, 1); /* deadline heaps */
  tm_sched_stats(c, &live, NULL);
  CHECK_EQ(live, 71);
}

static tm_status op_push(tm_core *c, void *ctx) {
  (void)ctx;
  return tm_mbox_push(c, g_pid, 1);
}

static tm_status op_timer(tm_core *c, void *ctx) {
  uint32_t id;
  (void)ctx;
  return tm_timer_add(c, g_pid, 2, 5.0, 2, &id);
}

static tm_status op_wait(tm_core *c, void *ctx) {
  (void)ctx;
  return tm_mbox_wait(c, g_pid, 1000, 0, 50.0);
}

static tm_status op_deadline(tm_core *c, void *ctx) {
  (void)ctx;
  return tm_proc_set_deadline(c, g_pid, 3.0);
}

static void mailbox_and_timer_operations_fail_cleanly(tm_core *c) {
  unsigned i;
  uint32_t n;
  g_pid = t_run(c);
  for (i = 0; i < 20; i++) INJECT(op_push, NULL, TM_OK, 0);
  CHECK_OK(tm_mbox_count(c, g_pid, &n));
  CHECK_EQ(n, 20);
  INJECT(op_timer, NULL, TM_OK, 1);
  INJECT(op_deadline, NULL, TM_OK, 0);
  INJECT(op_wait, NULL, TM_BLOCKED, 1);
  CHECK_OK(tm_clock_advance(c, 2, 5.0, NULL));
  CHECK_EQ(t_state(c, g_pid), TM_PROC_WAIT_MESSAGE); /* cursor 1000 */
}

/* A hook that fails after a budget of allocations. */
static long budget;
static void *failing_hook(void *ud, void *ptr, size_t old_n, size_t n) {
  (void)ud;
  (void)old_n;
  if (n == 0) { free(ptr); return NULL; }
  if (budget-- <= 0) return NULL;
  return realloc(ptr, n);
}

static void core_creation_fails_cleanly_when_the_allocator_fails(tm_core *c) {
  tm_config cfg;
  tm_core *k = NULL;
  long b;
  (void)c;
  tm_config_init(&cfg);
  cfg.alloc = failing_hook;
  for (b = 0; b < 20; b++) { /* every allocation of creation fails once */
    tm_status st;
    budget = b;
    st = tm_core_create(&cfg, &k);
    if (st == TM_OK) break;
    CHECK_EQ(st, TM_E_NOMEM);
  }
  CHECK(b >= 3 && b < 20);
  tm_core_destroy(k);
  cfg.max_depth = 0;
  CHECK_ST(tm_core_create(&cfg, &k), TM_E_ARG);
}

static void the_memory_limit_refuses_growth_and_the_core_keeps_working(tm_core *c) {
  tm_config cfg;
  tm_core *k = NULL;
  uint32_t s, i, n = 0;
  uint64_t before = 0, after = 0;
  tm_bytes o;
  tm_status st = TM_OK;
  (void)c;
  tm_config_init(&cfg);
  cfg.memory_limit = 256 << 10;
  cfg.xfer_bytes = 4096;
  CHECK_OK(tm_core_create(&cfg, &k));
  CHECK_OK(tm_space_create(k, &s));
  for (i = 0; i < 100000 && st == TM_OK; i++) {
    cb_build(&t, "[sis]", "fill", (long long)i, "some payload bytes");
    tm_space_digest(k, s, &before);
    st = tm_space_out(k, s, t.b, t.n, NULL);
  }
  CHECK_EQ(st, TM_E_NOMEM);
  CHECK(strstr(tm_core_errmsg(k), "limit 262144") != NULL);
  CHECK(tm_core_live_bytes(k) <= 256 << 10);
  tm_space_digest(k, s, &after);
  CHECK(before == after);
  CHECK_EQ(tm_core_check(k), TM_OK);
  tm_space_stats(k, s, &n, NULL, NULL);
  CHECK(n > 500);
  cb_build(&p, "[sFF]", "fill", TM_FORMAL_INTEGER, TM_FORMAL_ANY);
  for (i = 0; i < 50; i++) CHECK_EQ(tm_space_inp(k, s, p.b, p.n, &o), TM_OK);
  cb_build(&t, "[sis]", "again", 1LL, "fits now");
  CHECK_EQ(tm_space_out(k, s, t.b, t.n, NULL), TM_OK);
  tm_core_set_memory_limit(k, 0);
  CHECK_EQ(tm_space_out(k, s, t.b, t.n, NULL), TM_OK);
  tm_core_destroy(k);
}

const test_case alloc_tests[] = {
    {"an out that fails to allocate changes nothing", an_out_that_fails_to_allocate_changes_nothing},
    {"a wide tuple fails cleanly while growing scratch space", a_wide_tuple_fails_cleanly_while_growing_scratch},
    {"indexing a group fails cleanly", indexing_a_group_fails_cleanly},
    {"waking waiters fails cleanly when their copies cannot be made", waking_waiters_fails_cleanly_when_copies_cannot_be_made},
    {"registering a waiter fails cleanly", registering_a_waiter_fails_cleanly},
    {"growing the transfer area fails without losing the tuple", growing_the_transfer_area_fails_without_losing_the_tuple},
    {"creating spaces and processes fails cleanly", creating_spaces_and_processes_fails_cleanly},
    {"mailbox and timer operations fail cleanly", mailbox_and_timer_operations_fail_cleanly},
    {"core creation fails cleanly when the allocator fails", core_creation_fails_cleanly_when_the_allocator_fails},
    {"the memory limit refuses growth and the core keeps working", the_memory_limit_refuses_growth_and_the_core_keeps_working},
    {NULL, NULL}};
