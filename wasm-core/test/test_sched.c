/*
 * test_sched.c — process table, transitions, priorities, EDF.
 */
#include <time.h>

#include "test.h"

static uint32_t next_pid(tm_core *c) {
  uint32_t pid = 0;
  tm_sched_next(c, &pid, NULL);
  return pid;
}

static void spawn_next_yield_follow_fifo_order(tm_core *c) {
  uint32_t a = t_spawn(c, 2, INFINITY), b = t_spawn(c, 2, INFINITY);
  uint32_t got, reason;
  CHECK_EQ(t_state(c, a), TM_PROC_READY);
  CHECK_OK(tm_sched_next(c, &got, &reason));
  CHECK(got == a && reason == TM_WAKE_SPAWN);
  CHECK_EQ(t_state(c, a), TM_PROC_RUNNING);
  CHECK_OK(tm_proc_yield(c, a));
  CHECK_OK(tm_sched_next(c, &got, &reason));
  CHECK(got == b && reason == TM_WAKE_SPAWN);
  CHECK_OK(tm_proc_yield(c, b));
  CHECK_OK(tm_sched_next(c, &got, &reason));
  CHECK(got == a && reason == TM_WAKE_YIELD);
}

static void lower_priority_numbers_run_first(tm_core *c) {
  uint32_t low = t_spawn(c, 3, INFINITY), high = t_spawn(c, 0, INFINITY);
  uint32_t mid = t_spawn(c, 1, INFINITY);
  CHECK_EQ(next_pid(c), high);
  CHECK_OK(tm_proc_exit(c, high));
  CHECK_EQ(next_pid(c), mid);
  CHECK_OK(tm_proc_exit(c, mid));
  CHECK_EQ(next_pid(c), low);
}

static void earliest_deadline_first_within_a_priority(tm_core *c) {
  uint32_t none1 = t_spawn(c, 2, INFINITY), d30 = t_spawn(c, 2, 30);
  uint32_t d10 = t_spawn(c, 2, 10), none2 = t_spawn(c, 2, INFINITY);
  uint32_t d20 = t_spawn(c, 2, 20), other = t_spawn(c, 3, 1);
  uint32_t want[] = {d10, d20, d30, none1, none2, other}, i;
  for (i = 0; i < 6; i++) {
    CHECK_EQ(next_pid(c), want[i]);
    CHECK_OK(tm_proc_exit(c, want[i]));
  }
  CHECK_ST(tm_sched_next(c, &i, NULL), TM_NOMATCH);
  CHECK_EQ(i, 0);
}

static void equal_deadlines_keep_arrival_order(tm_core *c) {
  uint32_t a = t_spawn(c, 2, 5), b = t_spawn(c, 2, 5), d = t_spawn(c, 2, 5);
  CHECK_EQ(next_pid(c), a);
  CHECK_OK(tm_proc_yield(c, a));
  CHECK_EQ(next_pid(c), b);
  CHECK_OK(tm_proc_exit(c, b));
  CHECK_EQ(next_pid(c), d);
  CHECK_OK(tm_proc_exit(c, d));
  CHECK_EQ(next_pid(c), a);
}

static void invalid_transitions_are_errors_not_corruption(tm_core *c) {
  uint32_t a = t_spawn(c, 2, INFINITY), b = t_spawn(c, 2, INFINITY), got;
  CHECK_ST(tm_proc_yield(c, a), TM_E_TRANSITION);
  CHECK_MSG("is ready, not running");
  CHECK_EQ(next_pid(c), a);
  CHECK_ST(tm_sched_next(c, &got, NULL), TM_E_TRANSITION);
  CHECK_MSG("still running");
  CHECK_ST(tm_proc_yield(c, b), TM_E_TRANSITION);
  CHECK_ST(tm_proc_interrupt(c, a), TM_E_TRANSITION);
  CHECK_ST(tm_proc_sleep(c, b, 0, 10), TM_E_TRANSITION);
  CHECK_ST(tm_proc_spawn(c, TM_PRIORITIES, INFINITY, &got), TM_E_ARG);
  CHECK_ST(tm_proc_spawn(c, 0, NAN, &got), TM_E_ARG);
  CHECK_ST(tm_proc_set_priority(c, a, 9), TM_E_ARG);
  CHECK_EQ(t_state(c, a), TM_PROC_RUNNING);
  CHECK_EQ(t_state(c, b), TM_PROC_READY);
}

static void exited_pids_are_stale_and_slots_get_new_generations(tm_core *c) {
  uint32_t a = t_spawn(c, 2, INFINITY), b, st;
  CHECK_OK(tm_proc_exit(c, a));
  CHECK_EQ(t_state(c, a), TM_PROC_EXITED);
  CHECK_ST(tm_proc_exit(c, a), TM_E_NO_PROCESS);
  CHECK_MSG("has exited");
  CHECK_ST(tm_mbox_push(c, a, 1), TM_E_NO_PROCESS);
  b = t_spawn(c, 2, INFINITY); /* same slot, new generation */
  CHECK(b != a && (b & 0x1fffff) == (a & 0x1fffff));
  CHECK_EQ(t_state(c, a), TM_PROC_EXITED);
  CHECK_EQ(t_state(c, b), TM_PROC_READY);
  CHECK_ST(tm_proc_state(c, 0, &st), TM_E_NO_PROCESS);
  CHECK_ST(tm_proc_state(c, 0x7fffff, &st), TM_E_NO_PROCESS);
  CHECK_MSG("never issued");
}

static void freed_slots_are_reused_oldest_first(tm_core *c) {
  uint32_t p[4], i, q;
  for (i = 0; i < 4; i++) p[i] = t_spawn(c, 2, INFINITY);
  CHECK_OK(tm_proc_exit(c, p[2]));
  CHECK_OK(tm_proc_exit(c, p[0]));
  q = t_spawn(c, 2, INFINITY);
  CHECK_EQ(q & 0x1fffff, p[2] & 0x1fffff);
  q = t_spawn(c, 2, INFINITY);
  CHECK_EQ(q & 0x1fffff, p[0] & 0x1fffff);
}

static void changing_priority_or_deadline_requeues(tm_core *c) {
  uint32_t a = t_spawn(c, 2, INFINITY), b = t_spawn(c, 2, INFINITY);
  CHECK_OK(tm_proc_set_priority(c, b, 1));
  CHECK_EQ(next_pid(c), b);
  CHECK_OK(tm_proc_yield(c, b));
  CHECK_OK(tm_proc_set_priority(c, b, 2));
  CHECK_OK(tm_proc_set_deadline(c, a, 100));
  CHECK_OK(tm_proc_set_deadline(c, b, 50));
  CHECK_EQ(next_pid(c), b);
  CHECK_OK(tm_proc_set_deadline(c, b, INFINITY)); /* running: no requeue */
  CHECK_OK(tm_proc_yield(c, b));
  CHECK_EQ(next_pid(c), a);
}

static void sleeping_processes_wake_when_their_time_comes(tm_core *c) {
  uint32_t a = t_run(c), got, reason, fired;
  CHECK_ST(tm_proc_sleep(c, a, 2, 0.0), TM_NOMATCH); /* already due */
  CHECK_ST(tm_proc_sleep(c, a, 2, INFINITY), TM_E_ARG);
  CHECK_ST(tm_proc_sleep(c, a, 2, 5.0), TM_BLOCKED);
  CHECK_EQ(t_state(c, a), TM_PROC_WAIT_TIMER);
  CHECK_ST(tm_sched_next(c, &got, NULL), TM_NOMATCH);
  CHECK_OK(tm_clock_advance(c, 2, 5.0, &fired));
  CHECK_EQ(fired, 1);
  CHECK_OK(tm_sched_next(c, &got, &reason));
  CHECK(got == a && reason == TM_WAKE_TIMEOUT);
}

static void a_ring_of_250000_processes_is_created_and_destroyed(tm_core *c) {
  enum { N = 250000 };
  static uint32_t pids[N];
  uint32_t i, live, ready, got;
  clock_t t0 = clock();
  for (i = 0; i < N; i++) CHECK_OK(tm_proc_spawn(c, 2, INFINITY, &pids[i]));
  tm_sched_stats(c, &live, &ready);
  CHECK(live == N && ready == N);
  CHECK_OK(tm_sched_check(c));
  for (i = 0; i < N; i++) { /* each runs once, then the ring is torn down */
    CHECK_OK(tm_sched_next(c, &got, NULL));
    CHECK_EQ(got, pids[i]);
    if (i + 1 < N) CHECK_OK(tm_mbox_push(c, pids[i + 1], i));
    CHECK_OK(tm_proc_exit(c, got));
  }
  tm_sched_stats(c, &live, &ready);
  CHECK(live == 0 && ready == 0);
  /* generous bound even under sanitizers: amortised growth, no O(n^2) */
  CHECK((double)(clock() - t0) / CLOCKS_PER_SEC < 20.0);
}

static void the_scheduler_digest_tracks_observable_state(tm_core *c) {
  uint64_t d0 = tm_sched_digest(c), d1;
  uint32_t a = t_spawn(c, 2, INFINITY);
  d1 = tm_sched_digest(c);
  CHECK(d1 != d0);
  CHECK_OK(tm_mbox_push(c, a, 5));
  CHECK(tm_sched_digest(c) != d1);
}

const test_case sched_tests[] = {
    {"spawn, next and yield follow FIFO order", spawn_next_yield_follow_fifo_order},
    {"lower priority numbers run first", lower_priority_numbers_run_first},
    {"earliest deadline first within a priority, then FIFO", earliest_deadline_first_within_a_priority},
    {"equal deadlines keep arrival order", equal_deadlines_keep_arrival_order},
    {"invalid transitions are errors and change nothing", invalid_transitions_are_errors_not_corruption},
    {"exited pids are stale and reused slots get new generations", exited_pids_are_stale_and_slots_get_new_generations},
    {"freed slots are reused oldest first", freed_slots_are_reused_oldest_first},
    {"changing priority or deadline requeues a ready process", changing_priority_or_deadline_requeues},
    {"sleeping processes wake when their time comes", sleeping_processes_wake_when_their_time_comes},
    {"a ring of 250,000 processes is created and destroyed", a_ring_of_250000_processes_is_created_and_destroyed},
    {"the scheduler digest tracks observable state", the_scheduler_digest_tracks_observable_state},
    {NULL, NULL}};
