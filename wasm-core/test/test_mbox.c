/*
 * test_mbox.c — mailboxes: FIFO, selective receive with a cursor, wake-ups,
 * drain, steady-state allocation.
 */
#include "../src/core.h"
#include "test.h"

static void messages_come_out_in_arrival_order(tm_core *c) {
  uint32_t a = t_spawn(c, 2, INFINITY), h, i;
  for (i = 0; i < 100; i++) CHECK_OK(tm_mbox_push(c, a, i * 3));
  for (i = 0; i < 100; i++) {
    CHECK_OK(tm_mbox_take_first(c, a, &h));
    CHECK_EQ(h, i * 3);
  }
  CHECK_ST(tm_mbox_take_first(c, a, &h), TM_NOMATCH);
}

static void a_push_wakes_a_process_waiting_for_a_message(tm_core *c) {
  uint32_t a = t_run(c), b = t_spawn(c, 2, INFINITY), got, reason;
  CHECK_ST(tm_mbox_wait(c, a, 0, 0, INFINITY), TM_BLOCKED);
  CHECK_OK(tm_mbox_push(c, b, 1)); /* b is ready: stays ready */
  CHECK_EQ(t_state(c, b), TM_PROC_READY);
  CHECK_OK(tm_mbox_push(c, a, 2));
  CHECK_EQ(t_state(c, a), TM_PROC_READY);
  CHECK_OK(tm_sched_next(c, &got, &reason));
  CHECK(got == a && reason == TM_WAKE_MESSAGE);
  CHECK_OK(tm_mbox_wait(c, a, 0, 0, INFINITY)); /* mail present: no block */
  CHECK_EQ(t_state(c, a), TM_PROC_RUNNING);
}

static void selective_receive_walks_with_a_cursor(tm_core *c) {
  uint32_t a = t_run(c), seq, h, s1, s2, n, got, reason;
  CHECK_OK(tm_mbox_push(c, a, 10));
  CHECK_OK(tm_mbox_push(c, a, 11));
  CHECK_OK(tm_mbox_push(c, a, 12));
  CHECK_OK(tm_mbox_peek(c, a, 0, &s1, &h));
  CHECK_EQ(h, 10);
  CHECK_OK(tm_mbox_peek(c, a, s1 + 1, &s2, &h));
  CHECK_EQ(h, 11);
  CHECK_OK(tm_mbox_take(c, a, s2, &h)); /* take the middle one */
  CHECK_EQ(h, 11);
  CHECK_ST(tm_mbox_take(c, a, s2, &h), TM_NOMATCH);
  CHECK_OK(tm_mbox_peek(c, a, s1 + 1, &seq, &h)); /* skips the hole */
  CHECK_EQ(h, 12);
  CHECK_OK(tm_mbox_count(c, a, &n));
  CHECK_EQ(n, 2);
  /* nothing at or after seq + 1: waiting blocks although mail is there */
  CHECK_ST(tm_mbox_peek(c, a, seq + 1, &s1, &h), TM_NOMATCH);
  CHECK_ST(tm_mbox_wait(c, a, seq + 1, 0, INFINITY), TM_BLOCKED);
  CHECK_OK(tm_mbox_push(c, a, 13));
  CHECK_OK(tm_sched_next(c, &got, &reason));
  CHECK(got == a && reason == TM_WAKE_MESSAGE);
  CHECK_OK(tm_mbox_peek(c, a, seq + 1, &s1, &h));
  CHECK_EQ(h, 13);
  CHECK_OK(tm_mbox_take_first(c, a, &h));
  CHECK_EQ(h, 10);
}

static void holes_are_compacted_and_order_is_kept(tm_core *c) {
  uint32_t a = t_spawn(c, 2, INFINITY), seqs[64], i, h, n, s;
  for (i = 0; i < 64; i++) {
    CHECK_OK(tm_mbox_push(c, a, i));
    CHECK_OK(tm_mbox_peek(c, a, i == 0 ? 0 : seqs[i - 1] + 1, &seqs[i], &h));
  }
  for (i = 1; i < 63; i += 2) { /* take every odd message */
    CHECK_OK(tm_mbox_take(c, a, seqs[i], &h));
    CHECK_EQ(h, i);
    CHECK_OK(tm_mbox_check(c, a));
  }
  CHECK_OK(tm_mbox_count(c, a, &n));
  CHECK_EQ(n, 33);
  for (i = 0; i < 33; i++) {
    CHECK_OK(tm_mbox_peek(c, a, 0, &s, &h));
    CHECK_OK(tm_mbox_take(c, a, s, &h));
    CHECK_EQ(h, i < 32 ? 2 * i : 63);
  }
}

static void sequence_numbers_survive_wrap_around(tm_core *c) {
  uint32_t a = t_spawn(c, 2, INFINITY), s, h, i, first;
  c->sched.procs[a & TM_ID_INDEX_MASK].mbox.next_seq = 0xfffffffeu;
  for (i = 0; i < 5; i++) CHECK_OK(tm_mbox_push(c, a, i));
  CHECK_OK(tm_mbox_check(c, a));
  CHECK_OK(tm_mbox_peek(c, a, 0, &first, &h));
  CHECK_EQ(first, 0xfffffffeu);
  CHECK_OK(tm_mbox_peek(c, a, 0xffffffffu + 0u, &s, &h));
  CHECK_EQ(h, 1);
  CHECK_OK(tm_mbox_peek(c, a, 2, &s, &h)); /* seq 0 is skipped: 1 then 2 */
  CHECK_EQ(h, 3);
  CHECK_OK(tm_mbox_take(c, a, 1, &h));
  CHECK_EQ(h, 2);
}

static void ping_pong_allocates_nothing_in_steady_state(tm_core *c) {
  uint32_t a = t_spawn(c, 2, INFINITY), b = t_spawn(c, 2, INFINITY);
  uint32_t i, got, h, me = 0, other;
  uint64_t before = 0;
  for (i = 0; i < 20000; i++) {
    if (i == 100) before = tm_debug_alloc_count(c);
    CHECK_OK(tm_sched_next(c, &got, NULL));
    other = got == a ? b : a;
    CHECK_OK(tm_mbox_push(c, other, i));
    if (tm_mbox_take_first(c, got, &h) == TM_OK) me++;
    CHECK_OK(tm_proc_yield(c, got));
  }
  CHECK_EQ(tm_debug_alloc_count(c), before);
  CHECK(me >= 19999);
}

static void drain_returns_messages_then_timer_handles(tm_core *c) {
  uint32_t a = t_spawn(c, 2, INFINITY), id, out[8], n, i;
  for (i = 0; i < 3; i++) CHECK_OK(tm_mbox_push(c, a, 100 + i));
  CHECK_OK(tm_timer_add(c, a, 0, 50, 200, &id));
  CHECK_OK(tm_proc_drain(c, a, out, 2, &n));
  CHECK(n == 2 && out[0] == 100 && out[1] == 101);
  CHECK_OK(tm_proc_drain(c, a, out, 8, &n));
  CHECK(n == 2 && out[0] == 102 && out[1] == 200);
  CHECK_ST(tm_timer_cancel(c, id, NULL), TM_E_NO_TIMER);
  CHECK_OK(tm_proc_drain(c, a, out, 8, &n));
  CHECK_EQ(n, 0);
}

static void handles_must_fit_in_31_bits(tm_core *c) {
  uint32_t a = t_spawn(c, 2, INFINITY), n;
  CHECK_ST(tm_mbox_push(c, a, 0x80000000u), TM_E_ARG);
  CHECK_OK(tm_mbox_push(c, a, TM_HANDLE_MAX));
  CHECK_OK(tm_mbox_count(c, a, &n));
  CHECK_EQ(n, 1);
}

static void a_process_lives_bytes_cover_its_mailbox(tm_core *c) {
  uint32_t a = t_spawn(c, 2, INFINITY), i, h;
  size_t live;
  for (i = 0; i < 1000; i++) CHECK_OK(tm_mbox_push(c, a, i));
  CHECK_OK(tm_proc_live_bytes(c, a, &live));
  CHECK(live >= 1000 * 8);
  for (i = 0; i < 1000; i++) CHECK_OK(tm_mbox_take_first(c, a, &h));
  CHECK_OK(tm_proc_exit(c, a));
  CHECK_ST(tm_proc_live_bytes(c, a, &live), TM_E_NO_PROCESS);
}

const test_case mbox_tests[] = {
    {"messages come out in arrival order", messages_come_out_in_arrival_order},
    {"a push wakes a process waiting for a message", a_push_wakes_a_process_waiting_for_a_message},
    {"selective receive walks the mailbox with a cursor", selective_receive_walks_with_a_cursor},
    {"holes left by selective receive are compacted in order", holes_are_compacted_and_order_is_kept},
    {"sequence numbers survive wrap-around", sequence_numbers_survive_wrap_around},
    {"same-node ping-pong allocates nothing in steady state", ping_pong_allocates_nothing_in_steady_state},
    {"drain returns mailbox handles, then message-timer handles", drain_returns_messages_then_timer_handles},
    {"message handles must fit in 31 bits", handles_must_fit_in_31_bits},
    {"a process's live bytes cover its mailbox", a_process_lives_bytes_cover_its_mailbox},
    {NULL, NULL}};
