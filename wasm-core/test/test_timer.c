/*
 * test_timer.c — clocks, message timers, receive timeouts.
 */
#include "test.h"

static void a_message_timer_delivers_its_handle_when_it_fires(tm_core *c) {
  uint32_t a = t_spawn(c, 2, INFINITY), id, fired, h = 0, n;
  CHECK_OK(tm_timer_add(c, a, 1, 10.0, 77, &id));
  CHECK_OK(tm_mbox_count(c, a, &n));
  CHECK_EQ(n, 0);
  CHECK_OK(tm_clock_advance(c, 1, 10.0, &fired));
  CHECK_EQ(fired, 1);
  CHECK_OK(tm_mbox_take_first(c, a, &h));
  CHECK_EQ(h, 77);
  CHECK_ST(tm_timer_cancel(c, id, &h), TM_E_NO_TIMER);
}

static void a_message_timer_wakes_a_process_waiting_for_mail(tm_core *c) {
  uint32_t a = t_run(c), id, got, reason;
  CHECK_OK(tm_timer_add(c, a, 1, 10.0, 5, &id));
  CHECK_ST(tm_mbox_wait(c, a, 0, 0, INFINITY), TM_BLOCKED);
  CHECK_OK(tm_clock_advance(c, 1, 20.0, NULL));
  CHECK_OK(tm_sched_next(c, &got, &reason));
  CHECK(got == a && reason == TM_WAKE_MESSAGE);
}

static void cancelling_returns_the_handle_once(tm_core *c) {
  uint32_t a = t_spawn(c, 2, INFINITY), id, h = 0, fired;
  CHECK_OK(tm_timer_add(c, a, 0, 10.0, 9, &id));
  CHECK_OK(tm_timer_cancel(c, id, &h));
  CHECK_EQ(h, 9);
  CHECK_ST(tm_timer_cancel(c, id, &h), TM_E_NO_TIMER);
  CHECK_MSG("no such timer");
  CHECK_OK(tm_clock_advance(c, 0, 100.0, &fired));
  CHECK_EQ(fired, 0);
  CHECK_ST(tm_timer_cancel(c, 0, &h), TM_E_NO_TIMER);
}

static void clocks_are_separate_time_domains(tm_core *c) {
  uint32_t a = t_spawn(c, 2, INFINITY), id, fired, n;
  double now;
  CHECK_OK(tm_timer_add(c, a, 0, 5.0, 1, &id));
  CHECK_OK(tm_timer_add(c, a, 3, 5.0, 2, &id));
  CHECK_OK(tm_clock_advance(c, 3, 1e9, &fired));
  CHECK_EQ(fired, 1);
  CHECK_OK(tm_clock_now(c, 0, &now));
  CHECK(now == 0.0);
  CHECK_OK(tm_clock_now(c, 3, &now));
  CHECK(now == 1e9);
  CHECK_OK(tm_mbox_count(c, a, &n));
  CHECK_EQ(n, 1);
}

static void clocks_never_move_backwards(tm_core *c) {
  uint32_t fired;
  CHECK_OK(tm_clock_advance(c, 1, 10.0, &fired));
  CHECK_ST(tm_clock_advance(c, 1, 9.0, &fired), TM_E_ARG);
  CHECK_MSG("cannot move to 9");
  CHECK_ST(tm_clock_advance(c, 1, NAN, &fired), TM_E_ARG);
  CHECK_ST(tm_clock_advance(c, TM_CLOCKS, 1.0, &fired), TM_E_ARG);
  CHECK_OK(tm_clock_advance(c, 1, 10.0, &fired));
}

static void timers_fire_in_time_then_creation_order(tm_core *c) {
  uint32_t a = t_spawn(c, 2, INFINITY), id, h, i;
  double when[] = {30, 10, 20, 10, 5};
  uint32_t want[] = {4, 1, 3, 2, 0};
  double next;
  for (i = 0; i < 5; i++) CHECK_OK(tm_timer_add(c, a, 1, when[i], i, &id));
  CHECK_OK(tm_clock_next(c, 1, &next));
  CHECK(next == 5.0);
  CHECK_OK(tm_clock_advance(c, 1, 100.0, NULL));
  for (i = 0; i < 5; i++) {
    CHECK_OK(tm_mbox_take_first(c, a, &h));
    CHECK_EQ(h, want[i]);
  }
}

static void a_receive_times_out_unless_a_message_comes_first(tm_core *c) {
  uint32_t a = t_run(c), got, reason, fired;
  double next;
  CHECK_ST(tm_mbox_wait(c, a, 0, 1, 50.0), TM_BLOCKED);
  CHECK_EQ(t_state(c, a), TM_PROC_WAIT_MESSAGE);
  CHECK_OK(tm_mbox_push(c, a, 3));
  CHECK_OK(tm_clock_next(c, 1, &next));
  CHECK(isinf(next)); /* the wait timer went with the wake-up */
  CHECK_OK(tm_sched_next(c, &got, &reason));
  CHECK(got == a && reason == TM_WAKE_MESSAGE);
  CHECK_ST(tm_mbox_wait(c, a, 2, 1, 60.0), TM_BLOCKED);
  CHECK_OK(tm_clock_advance(c, 1, 60.0, &fired));
  CHECK_EQ(fired, 1);
  CHECK_OK(tm_sched_next(c, &got, &reason));
  CHECK(got == a && reason == TM_WAKE_TIMEOUT);
  CHECK_ST(tm_mbox_wait(c, a, 2, 1, 60.0), TM_NOMATCH); /* already past */
}

static void exit_drops_the_timers_of_the_process(tm_core *c) {
  uint32_t a = t_spawn(c, 2, INFINITY), b = t_spawn(c, 2, INFINITY), id, fired;
  CHECK_OK(tm_timer_add(c, a, 0, 10, 1, &id));
  CHECK_OK(tm_timer_add(c, a, 0, 20, 2, &id));
  CHECK_OK(tm_timer_add(c, b, 0, 30, 3, &id));
  CHECK_OK(tm_proc_exit(c, a));
  CHECK_OK(tm_timer_check(c));
  CHECK_OK(tm_clock_advance(c, 0, 100, &fired));
  CHECK_EQ(fired, 1);
}

static void timer_arguments_are_validated(tm_core *c) {
  uint32_t a = t_spawn(c, 2, INFINITY), id;
  CHECK_ST(tm_timer_add(c, a, 4, 1, 1, &id), TM_E_ARG);
  CHECK_ST(tm_timer_add(c, a, 0, NAN, 1, &id), TM_E_ARG);
  CHECK_ST(tm_timer_add(c, a, 0, 1, 0x80000000u, &id), TM_E_ARG);
  CHECK_ST(tm_timer_add(c, 0, 0, 1, 1, &id), TM_E_NO_PROCESS);
}

const test_case timer_tests[] = {
    {"a message timer delivers its handle when it fires", a_message_timer_delivers_its_handle_when_it_fires},
    {"a message timer wakes a process waiting for mail", a_message_timer_wakes_a_process_waiting_for_mail},
    {"cancelling a timer returns its handle exactly once", cancelling_returns_the_handle_once},
    {"clocks are separate time domains", clocks_are_separate_time_domains},
    {"clocks never move backwards", clocks_never_move_backwards},
    {"timers fire in time order, then creation order", timers_fire_in_time_then_creation_order},
    {"a receive times out unless a message comes first", a_receive_times_out_unless_a_message_comes_first},
    {"exit drops the timers of the process", exit_drops_the_timers_of_the_process},
    {"timer arguments are validated", timer_arguments_are_validated},
    {NULL, NULL}};
