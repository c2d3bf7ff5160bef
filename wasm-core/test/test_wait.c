/*
 * test_wait.c — waiting templates: blocking in/rd, wake-ups by out,
 * timeouts, cancellation.
 */
#include "test.h"

static cb t, p;

/* Run a fresh process and block it on template p (in or rd). */
static uint32_t block_on(tm_core *c, uint32_t s, int in, uint32_t *pid) {
  tm_bytes o;
  *pid = t_run(c);
  return (uint32_t)(in ? tm_space_in(c, s, p.b, p.n, *pid, 0, INFINITY, &o)
                       : tm_space_rd(c, s, p.b, p.n, *pid, 0, INFINITY, &o));
}

static void an_in_on_an_empty_space_blocks_its_process(tm_core *c) {
  uint32_t s = t_space(c), pid, waiters;
  cb_build(&p, "[sF]", "job", TM_FORMAL_INTEGER);
  CHECK_EQ(block_on(c, s, 1, &pid), TM_BLOCKED);
  CHECK_EQ(t_state(c, pid), TM_PROC_WAIT_TUPLE);
  CHECK_OK(tm_space_stats(c, s, NULL, &waiters, NULL));
  CHECK_EQ(waiters, 1);
}

static void an_out_wakes_the_waiting_in_which_takes_the_tuple(tm_core *c) {
  uint32_t s = t_space(c), pid, woken = 0, got, reason;
  tm_bytes o;
  size_t live;
  cb_build(&p, "[sF]", "job", TM_FORMAL_INTEGER);
  CHECK_EQ(block_on(c, s, 1, &pid), TM_BLOCKED);
  cb_build(&t, "[si]", "job", 7LL);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, &woken));
  CHECK_EQ(woken, 1);
  CHECK_EQ(t_count(c, s), 0); /* taken, not stored */
  CHECK_EQ(t_state(c, pid), TM_PROC_READY);
  CHECK_OK(tm_proc_live_bytes(c, pid, &live));
  CHECK(live >= t.n);
  CHECK_OK(tm_sched_next(c, &got, &reason));
  CHECK(got == pid && reason == TM_WAKE_TUPLE);
  CHECK_OK(tm_proc_take_tuple(c, pid, &o));
  CHECK(o.len == t.n && memcmp(o.bytes, t.b, t.n) == 0);
  CHECK_ST(tm_proc_take_tuple(c, pid, &o), TM_NOMATCH);
  CHECK_OK(tm_proc_live_bytes(c, pid, &live));
  CHECK_EQ(live, 0);
}

static void every_waiting_rd_gets_a_copy_and_the_first_in_takes_it(tm_core *c) {
  uint32_t s = t_space(c), rd1, in1, rd2, in2, woken = 0, got, i, waiters;
  uint32_t order[3];
  tm_bytes o;
  cb_build(&p, "[sF]", "x", TM_FORMAL_ANY);
  CHECK_EQ(block_on(c, s, 0, &rd1), TM_BLOCKED);
  CHECK_EQ(block_on(c, s, 1, &in1), TM_BLOCKED);
  CHECK_EQ(block_on(c, s, 0, &rd2), TM_BLOCKED);
  CHECK_EQ(block_on(c, s, 1, &in2), TM_BLOCKED);
  cb_build(&t, "[si]", "x", 1LL);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, &woken));
  CHECK_EQ(woken, 3);
  CHECK_EQ(t_count(c, s), 0);
  CHECK_EQ(t_state(c, in2), TM_PROC_WAIT_TUPLE);
  CHECK_OK(tm_space_stats(c, s, NULL, &waiters, NULL));
  CHECK_EQ(waiters, 1);
  for (i = 0; i < 3; i++) { /* woken in arrival order */
    CHECK_OK(tm_sched_next(c, &got, NULL));
    order[i] = got;
    CHECK_OK(tm_proc_take_tuple(c, got, &o));
    CHECK(o.len == t.n && memcmp(o.bytes, t.b, t.n) == 0);
    CHECK_OK(tm_proc_exit(c, got));
  }
  CHECK(order[0] == rd1 && order[1] == in1 && order[2] == rd2);
  /* the second out goes to in2 */
  CHECK_OK(tm_space_out(c, s, t.b, t.n, &woken));
  CHECK_EQ(woken, 1);
  CHECK_EQ(t_state(c, in2), TM_PROC_READY);
}

static void with_only_rds_waiting_the_tuple_is_also_stored(tm_core *c) {
  uint32_t s = t_space(c), a, b, woken = 0;
  cb_build(&p, "[F]", TM_FORMAL_STRING);
  CHECK_EQ(block_on(c, s, 0, &a), TM_BLOCKED);
  CHECK_EQ(block_on(c, s, 0, &b), TM_BLOCKED);
  cb_build(&t, "[s]", "hello");
  CHECK_OK(tm_space_out(c, s, t.b, t.n, &woken));
  CHECK_EQ(woken, 2);
  CHECK_EQ(t_count(c, s), 1);
}

static void a_tuple_that_does_not_match_wakes_nobody(tm_core *c) {
  uint32_t s = t_space(c), pid, woken = 9;
  cb_build(&p, "[sF]", "job", TM_FORMAL_INTEGER);
  CHECK_EQ(block_on(c, s, 1, &pid), TM_BLOCKED);
  cb_build(&t, "[ss]", "job", "not an integer");
  CHECK_OK(tm_space_out(c, s, t.b, t.n, &woken));
  cb_build(&t, "[sii]", "job", 1LL, 2LL);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, &woken));
  CHECK_EQ(woken, 0);
  CHECK_EQ(t_state(c, pid), TM_PROC_WAIT_TUPLE);
  CHECK_EQ(t_count(c, s), 2);
}

static void a_matching_tuple_present_is_returned_without_blocking(tm_core *c) {
  uint32_t s = t_space(c), pid = t_run(c);
  tm_bytes o;
  cb_build(&t, "[si]", "job", 3LL);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  cb_build(&p, "[sF]", "job", TM_FORMAL_INTEGER);
  CHECK_OK(tm_space_rd(c, s, p.b, p.n, pid, 0, INFINITY, &o));
  CHECK_OK(tm_space_in(c, s, p.b, p.n, pid, 0, INFINITY, &o));
  CHECK_EQ(t_state(c, pid), TM_PROC_RUNNING);
  CHECK_EQ(t_count(c, s), 0);
  /* a timeout already passed means "poll" */
  CHECK_ST(tm_space_in(c, s, p.b, p.n, pid, 0, 0.0, &o), TM_NOMATCH);
  CHECK_EQ(t_state(c, pid), TM_PROC_RUNNING);
}

static void a_waiting_in_times_out_on_its_clock(tm_core *c) {
  uint32_t s = t_space(c), pid = t_run(c), got, reason, fired, waiters;
  tm_bytes o;
  double next;
  cb_build(&p, "[sF]", "job", TM_FORMAL_INTEGER);
  CHECK_ST(tm_space_in(c, s, p.b, p.n, pid, 1, 50.0, &o), TM_BLOCKED);
  CHECK_OK(tm_clock_next(c, 1, &next));
  CHECK(next == 50.0);
  CHECK_OK(tm_clock_advance(c, 0, 100.0, &fired)); /* other clock */
  CHECK_EQ(fired, 0);
  CHECK_OK(tm_clock_advance(c, 1, 49.0, &fired));
  CHECK_EQ(fired, 0);
  CHECK_OK(tm_clock_advance(c, 1, 50.0, &fired));
  CHECK_EQ(fired, 1);
  CHECK_OK(tm_sched_next(c, &got, &reason));
  CHECK(got == pid && reason == TM_WAKE_TIMEOUT);
  CHECK_OK(tm_space_stats(c, s, NULL, &waiters, NULL));
  CHECK_EQ(waiters, 0);
  cb_build(&t, "[si]", "job", 1LL);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  CHECK_EQ(t_count(c, s), 1);
}

static void a_tuple_before_the_timeout_cancels_the_timer(tm_core *c) {
  uint32_t s = t_space(c), pid = t_run(c), fired;
  tm_bytes o;
  double next;
  cb_build(&p, "[sF]", "job", TM_FORMAL_INTEGER);
  CHECK_ST(tm_space_in(c, s, p.b, p.n, pid, 1, 50.0, &o), TM_BLOCKED);
  cb_build(&t, "[si]", "job", 1LL);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  CHECK_OK(tm_clock_next(c, 1, &next));
  CHECK(isinf(next));
  CHECK_OK(tm_clock_advance(c, 1, 60.0, &fired));
  CHECK_EQ(fired, 0);
}

static void interrupting_or_exiting_cancels_the_waiter(tm_core *c) {
  uint32_t s = t_space(c), a, b, got, reason, waiters;
  cb_build(&p, "[sF]", "job", TM_FORMAL_INTEGER);
  CHECK_EQ(block_on(c, s, 1, &a), TM_BLOCKED);
  CHECK_EQ(block_on(c, s, 1, &b), TM_BLOCKED);
  CHECK_OK(tm_proc_interrupt(c, a));
  CHECK_OK(tm_proc_exit(c, b));
  CHECK_OK(tm_space_stats(c, s, NULL, &waiters, NULL));
  CHECK_EQ(waiters, 0);
  CHECK_OK(tm_sched_next(c, &got, &reason));
  CHECK(got == a && reason == TM_WAKE_INTERRUPT);
  CHECK_ST(tm_proc_interrupt(c, a), TM_E_TRANSITION);
  cb_build(&t, "[si]", "job", 1LL);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  CHECK_EQ(t_count(c, s), 1);
}

static void blocking_requires_the_running_process(tm_core *c) {
  uint32_t s = t_space(c), pid = t_spawn(c, 1, INFINITY);
  tm_bytes o;
  cb_build(&p, "[F]", TM_FORMAL_ANY);
  CHECK_ST(tm_space_in(c, s, p.b, p.n, pid, 0, INFINITY, &o), TM_E_TRANSITION);
  CHECK_MSG("not running");
  CHECK_ST(tm_space_in(c, s, p.b, p.n, 0, 0, INFINITY, &o), TM_E_NO_PROCESS);
  pid = t_run(c);
  CHECK_ST(tm_space_in(c, s, p.b, p.n, pid, 9, INFINITY, &o), TM_E_ARG);
  CHECK_MSG("no such clock");
  CHECK_ST(tm_space_in(c, s, p.b, p.n, pid, 0, NAN, &o), TM_E_ARG);
}

static void destroying_a_space_interrupts_its_waiters(tm_core *c) {
  uint32_t s = t_space(c), pid, got, reason;
  cb_build(&p, "[F]", TM_FORMAL_ANY);
  CHECK_EQ(block_on(c, s, 1, &pid), TM_BLOCKED);
  CHECK_OK(tm_space_destroy(c, s));
  CHECK_OK(tm_sched_next(c, &got, &reason));
  CHECK(got == pid && reason == TM_WAKE_INTERRUPT);
}

static void many_waiters_with_distinct_keys_are_matched_selectively(tm_core *c) {
  uint32_t s = t_space(c), pids[200], i, woken = 0;
  for (i = 0; i < 200; i++) {
    cb_build(&p, "[iF]", (long long)i, TM_FORMAL_ANY);
    CHECK_EQ(block_on(c, s, 1, &pids[i]), TM_BLOCKED);
  }
  cb_build(&t, "[is]", 123LL, "reply");
  CHECK_OK(tm_space_out(c, s, t.b, t.n, &woken));
  CHECK_EQ(woken, 1);
  CHECK_EQ(t_state(c, pids[123]), TM_PROC_READY);
  CHECK_EQ(t_state(c, pids[122]), TM_PROC_WAIT_TUPLE);
}

static void an_uncollected_tuple_is_dropped_when_the_process_waits_again(tm_core *c) {
  uint32_t s = t_space(c), pid, got;
  size_t live;
  tm_bytes o;
  cb_build(&p, "[F]", TM_FORMAL_ANY);
  CHECK_EQ(block_on(c, s, 1, &pid), TM_BLOCKED);
  cb_build(&t, "[s]", "first");
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  CHECK_OK(tm_sched_next(c, &got, NULL));
  CHECK_ST(tm_space_in(c, s, p.b, p.n, pid, 0, INFINITY, &o), TM_BLOCKED);
  CHECK_OK(tm_proc_live_bytes(c, pid, &live));
  CHECK(live > 0);
  CHECK_ST(tm_proc_take_tuple(c, pid, &o), TM_NOMATCH);
}

static void waiters_see_tuples_of_the_small_path(tm_core *c) {
  uint32_t s = t_space(c), pid, rd, woken = 0, i;
  tm_bytes o;
  /* small-path tuples, then a waiter that none of them matches */
  cb_build(&p, "[sF]", "job", TM_FORMAL_INTEGER);
  for (i = 0; i < 3; i++) {
    cb_build(&t, "[ss]", "job", "no");
    CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
    CHECK_ST(tm_space_inp(c, s, p.b, p.n, &o), TM_NOMATCH); /* memo warm */
  }
  CHECK_EQ(block_on(c, s, 1, &pid), TM_BLOCKED);
  cb_build(&p, "[FF]", TM_FORMAL_ANY, TM_FORMAL_INTEGER);
  CHECK_EQ(block_on(c, s, 0, &rd), TM_BLOCKED);
  /* with waiters the out takes the general path and wakes both */
  cb_build(&t, "[si]", "job", 9LL);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, &woken));
  CHECK_EQ(woken, 2);
  CHECK_EQ(t_count(c, s), 3);
  CHECK_OK(tm_proc_take_tuple(c, pid, &o));
  CHECK(cb_equal_hex(&o, "82 636a6f62 09"));
  CHECK_OK(tm_proc_take_tuple(c, rd, &o));
  CHECK(cb_equal_hex(&o, "82 636a6f62 09"));
  CHECK_CORE();
  /* nobody waits again: the small path stores, the small inp finds */
  CHECK_OK(tm_space_out(c, s, t.b, t.n, &woken));
  CHECK_EQ(woken, 0);
  cb_build(&p, "[sF]", "job", TM_FORMAL_INTEGER);
  CHECK_OK(tm_space_inp(c, s, p.b, p.n, &o));
  CHECK(cb_equal_hex(&o, "82 636a6f62 09"));
  CHECK_ST(tm_space_inp(c, s, p.b, p.n, &o), TM_NOMATCH);
  CHECK_EQ(t_count(c, s), 3);
  CHECK_CORE();
}

/* L²imbo's QoS: of the ins waiting for a tuple, the one whose process has
 * the highest priority takes it, then the earliest deadline; rds are all
 * woken whatever their priority. */
static void the_waiting_in_of_highest_priority_takes_the_tuple(tm_core *c) {
  uint32_t s = t_space(c), early, urgent, soon, woken = 0;
  cb_build(&p, "[sF]", "job", TM_FORMAL_INTEGER);
  CHECK_EQ(block_on(c, s, 1, &early), TM_BLOCKED); /* t_run: priority 0 */
  CHECK_OK(tm_proc_set_priority(c, early, 2));
  CHECK_EQ(block_on(c, s, 1, &soon), TM_BLOCKED);
  CHECK_OK(tm_proc_set_priority(c, soon, 2));
  CHECK_OK(tm_proc_set_deadline(c, soon, 5.0));
  CHECK_EQ(block_on(c, s, 1, &urgent), TM_BLOCKED);
  CHECK_OK(tm_proc_set_priority(c, urgent, 1));
  cb_build(&t, "[si]", "job", 1LL);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, &woken));
  CHECK_EQ(woken, 1);
  CHECK_EQ(t_state(c, urgent), TM_PROC_READY);   /* last to come, first served */
  CHECK_EQ(t_state(c, early), TM_PROC_WAIT_TUPLE);
  cb_build(&t, "[si]", "job", 2LL);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, &woken));
  CHECK_EQ(t_state(c, soon), TM_PROC_READY);     /* a deadline before none */
  CHECK_EQ(t_state(c, early), TM_PROC_WAIT_TUPLE);
  cb_build(&t, "[si]", "job", 3LL);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, &woken));
  CHECK_EQ(t_state(c, early), TM_PROC_READY);
  CHECK_CORE();
}

const test_case wait_tests[] = {
    {"waiters see tuples of the small path", waiters_see_tuples_of_the_small_path},
    {"an in on an empty space blocks its process", an_in_on_an_empty_space_blocks_its_process},
    {"an out wakes the waiting in, which takes the tuple", an_out_wakes_the_waiting_in_which_takes_the_tuple},
    {"every waiting rd gets a copy and the first waiting in takes the tuple", every_waiting_rd_gets_a_copy_and_the_first_in_takes_it},
    {"with only rds waiting the tuple is also stored", with_only_rds_waiting_the_tuple_is_also_stored},
    {"a tuple that does not match wakes nobody", a_tuple_that_does_not_match_wakes_nobody},
    {"a matching tuple already present is returned without blocking", a_matching_tuple_present_is_returned_without_blocking},
    {"a waiting in times out on its own clock", a_waiting_in_times_out_on_its_clock},
    {"a tuple arriving before the timeout cancels the timer", a_tuple_before_the_timeout_cancels_the_timer},
    {"interrupting or exiting a waiting process cancels its waiter", interrupting_or_exiting_cancels_the_waiter},
    {"blocking in/rd requires the running process and a valid clock", blocking_requires_the_running_process},
    {"destroying a space interrupts its waiters", destroying_a_space_interrupts_its_waiters},
    {"many waiters with distinct keys are matched selectively", many_waiters_with_distinct_keys_are_matched_selectively},
    {"an uncollected tuple is dropped when the process waits again", an_uncollected_tuple_is_dropped_when_the_process_waits_again},
    {"the waiting in of highest priority takes the tuple", the_waiting_in_of_highest_priority_takes_the_tuple},
    {NULL, NULL}};
