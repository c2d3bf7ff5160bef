/*
 * test_record.c — waiter records: an in or rd waiting with no process,
 * served by an out in one order with the waiting processes, listed by
 * tm_space_woken_records, cancelled, dropped with their space.
 */
#include "test.h"

static cb t, p;

/* The records the last out served, as a count and the ids in ids[]. */
static uint32_t woken(tm_core *c, uint32_t *ids, uint32_t max) {
  tm_bytes o;
  uint32_t n, i;
  if (tm_space_woken_records(c, &o) != TM_OK) return 0xFFFFFFFFu;
  n = (uint32_t)(o.len / 4);
  for (i = 0; i < n && i < max; i++) memcpy(&ids[i], o.bytes + 4 * i, 4);
  return n;
}

static tm_status wait_rec(tm_core *c, uint32_t s, uint32_t rec, uint32_t kind,
                          uint32_t prio, double deadline) {
  tm_bytes o;
  return tm_space_wait_record(c, s, p.b, p.n, rec, kind, prio, deadline, &o);
}

static void a_record_waits_and_an_out_serves_it(tm_core *c) {
  uint32_t s = t_space(c), waiters, ids[4], w = 9;
  size_t live0, live1;
  CHECK_OK(tm_space_stats(c, s, NULL, NULL, &live0));
  cb_build(&p, "[sF]", "job", TM_FORMAL_INTEGER);
  CHECK_EQ(wait_rec(c, s, 41, 1, 0, INFINITY), TM_BLOCKED);
  CHECK_OK(tm_space_stats(c, s, NULL, &waiters, &live1));
  CHECK_EQ(waiters, 1);
  CHECK(live1 > live0); /* charged to its space */
  CHECK_CORE();
  cb_build(&t, "[si]", "job", 7LL);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, &w));
  CHECK_EQ(w, 0); /* no process woken */
  CHECK_EQ(woken(c, ids, 4), 1);
  CHECK_EQ(ids[0], 41);
  CHECK_EQ(t_count(c, s), 0); /* the record's in took it */
  CHECK_OK(tm_space_stats(c, s, NULL, &waiters, NULL));
  CHECK_EQ(waiters, 0);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL)); /* a later out: none */
  CHECK_EQ(woken(c, ids, 4), 0);
  CHECK_EQ(t_count(c, s), 1);
  CHECK_CORE();
}

static void a_tuple_present_answers_a_record_at_once(tm_core *c) {
  uint32_t s = t_space(c), waiters;
  tm_bytes o;
  cb_build(&t, "[si]", "job", 7LL);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  cb_build(&p, "[sF]", "job", TM_FORMAL_INTEGER);
  CHECK_OK(tm_space_wait_record(c, s, p.b, p.n, 5, 2, 0, INFINITY, &o));
  CHECK_EQ(o.len, t.n);
  CHECK_EQ(t_count(c, s), 1); /* rd leaves it */
  CHECK_OK(tm_space_wait_record(c, s, p.b, p.n, 6, 1, 0, INFINITY, &o));
  CHECK_EQ(o.len, t.n);
  CHECK_EQ(t_count(c, s), 0); /* in takes it */
  CHECK_OK(tm_space_stats(c, s, NULL, &waiters, NULL));
  CHECK_EQ(waiters, 0);
  CHECK_CORE();
}

/* A process waiting in on p with priority prio (t_run gives 0); 0 if
 * it could not be made. */
static uint32_t proc_in(tm_core *c, uint32_t s, uint32_t prio) {
  tm_bytes o;
  uint32_t pid = t_run(c);
  if (tm_space_in(c, s, p.b, p.n, pid, 0, INFINITY, &o) != TM_BLOCKED ||
      tm_proc_set_priority(c, pid, prio) != TM_OK)
    return 0; /* no process: the test's state checks fail */
  return pid;
}

static void records_and_processes_are_served_in_one_order(tm_core *c) {
  uint32_t s = t_space(c), ids[4], pa, pb, w;
  cb_build(&p, "[sF]", "job", TM_FORMAL_INTEGER);
  pa = proc_in(c, s, 2);                                 /* 1st: prio 2 */
  CHECK_EQ(wait_rec(c, s, 10, 1, 2, INFINITY), TM_BLOCKED); /* 2nd: prio 2 */
  CHECK_EQ(wait_rec(c, s, 11, 1, 1, INFINITY), TM_BLOCKED); /* 3rd: prio 1 */
  pb = proc_in(c, s, 2);                                 /* 4th: prio 2 */
  CHECK_EQ(wait_rec(c, s, 12, 1, 2, 50.0), TM_BLOCKED);  /* 5th: deadline */
  cb_build(&t, "[si]", "job", 1LL);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, &w)); /* priority 1 first */
  CHECK(w == 0 && woken(c, ids, 4) == 1 && ids[0] == 11);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, &w)); /* then a deadline */
  CHECK(w == 0 && woken(c, ids, 4) == 1 && ids[0] == 12);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, &w)); /* then arrival: a process */
  CHECK(w == 1 && woken(c, ids, 4) == 0);
  CHECK_EQ(t_state(c, pa), TM_PROC_READY);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, &w)); /* a record before pb */
  CHECK(w == 0 && woken(c, ids, 4) == 1 && ids[0] == 10);
  CHECK_EQ(t_state(c, pb), TM_PROC_WAIT_TUPLE);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, &w));
  CHECK_EQ(t_state(c, pb), TM_PROC_READY);
  CHECK_EQ(t_count(c, s), 0);
  CHECK_CORE();
}

static void every_rd_record_gets_the_tuple_beside_one_in(tm_core *c) {
  uint32_t s = t_space(c), ids[8], w;
  cb_build(&p, "[sF]", "job", TM_FORMAL_INTEGER);
  CHECK_EQ(wait_rec(c, s, 1, 2, 0, INFINITY), TM_BLOCKED);
  CHECK_EQ(wait_rec(c, s, 2, 1, 3, INFINITY), TM_BLOCKED);
  CHECK_EQ(wait_rec(c, s, 3, 2, 3, INFINITY), TM_BLOCKED);
  CHECK_EQ(wait_rec(c, s, 4, 1, 3, INFINITY), TM_BLOCKED);
  cb_build(&t, "[si]", "job", 1LL);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, &w));
  CHECK_EQ(woken(c, ids, 8), 3); /* both rds and the first in, in order */
  CHECK(ids[0] == 1 && ids[1] == 2 && ids[2] == 3);
  CHECK_EQ(t_count(c, s), 0);
  cb_build(&p, "[sF]", "other", TM_FORMAL_INTEGER); /* a key not waited */
  CHECK_EQ(wait_rec(c, s, 5, 2, 0, INFINITY), TM_BLOCKED);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, &w)); /* only in 4 */
  CHECK(woken(c, ids, 8) == 1 && ids[0] == 4);
  CHECK_CORE();
}

static void a_cancelled_record_is_not_served(tm_core *c) {
  uint32_t s = t_space(c), ids[4], waiters;
  cb_build(&p, "[sF]", "job", TM_FORMAL_INTEGER);
  CHECK_EQ(wait_rec(c, s, 8, 1, 0, INFINITY), TM_BLOCKED);
  CHECK_EQ(tm_space_cancel_record(c, s, p.b, p.n, 9), TM_NOMATCH);
  CHECK_OK(tm_space_cancel_record(c, s, p.b, p.n, 8));
  CHECK_EQ(tm_space_cancel_record(c, s, p.b, p.n, 8), TM_NOMATCH);
  CHECK_OK(tm_space_stats(c, s, NULL, &waiters, NULL));
  CHECK_EQ(waiters, 0);
  cb_build(&t, "[si]", "job", 1LL);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  CHECK_EQ(woken(c, ids, 4), 0);
  CHECK_EQ(t_count(c, s), 1);
  CHECK_CORE();
}

static void destroying_a_space_drops_its_records(tm_core *c) {
  uint32_t s = t_space(c), pid;
  tm_bytes o;
  cb_build(&p, "[sF]", "job", TM_FORMAL_INTEGER);
  CHECK_EQ(wait_rec(c, s, 1, 1, 0, INFINITY), TM_BLOCKED);
  pid = t_run(c);
  CHECK_EQ(tm_space_in(c, s, p.b, p.n, pid, 0, INFINITY, &o), TM_BLOCKED);
  CHECK_EQ(wait_rec(c, s, 2, 2, 0, INFINITY), TM_BLOCKED);
  CHECK_OK(tm_space_destroy(c, s));
  CHECK_EQ(t_state(c, pid), TM_PROC_READY); /* interrupted */
  CHECK_EQ(tm_space_cancel_record(c, s, p.b, p.n, 1), TM_E_NO_SPACE);
  CHECK_CORE(); /* the run's end checks every byte is freed */
}

static void a_tuple_with_a_formal_serves_a_record(tm_core *c) {
  uint32_t s = t_space(c), ids[4];
  cb_build(&p, "[si]", "job", 3LL);
  CHECK_EQ(wait_rec(c, s, 77, 1, 0, INFINITY), TM_BLOCKED);
  cb_build(&t, "[sF]", "job", TM_FORMAL_INTEGER); /* S/Net */
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  CHECK(woken(c, ids, 4) == 1 && ids[0] == 77);
  CHECK_EQ(t_count(c, s), 0);
  CHECK_CORE();
}

static void bad_record_arguments_are_refused(tm_core *c) {
  uint32_t s = t_space(c), waiters;
  cb_build(&p, "[sF]", "job", TM_FORMAL_INTEGER);
  CHECK_EQ(wait_rec(c, s, 0, 1, 0, INFINITY), TM_E_ARG);
  CHECK_EQ(wait_rec(c, s, 1, 3, 0, INFINITY), TM_E_ARG);
  CHECK_EQ(wait_rec(c, s, 1, 1, TM_PRIORITIES, INFINITY), TM_E_ARG);
  CHECK_EQ(wait_rec(c, s, 1, 1, 0, NAN), TM_E_ARG);
  CHECK_EQ(wait_rec(c, s + 1000, 1, 1, 0, INFINITY), TM_E_NO_SPACE);
  cb_build(&p, "s", "job"); /* not an array */
  CHECK(wait_rec(c, s, 1, 1, 0, INFINITY) < 0);
  CHECK_OK(tm_space_stats(c, s, NULL, &waiters, NULL));
  CHECK_EQ(waiters, 0);
  CHECK_CORE();
}

/* Every allocation of an out serving many records may fail: the space is
 * then as it was, and a retry serves them all. */
static void an_out_that_cannot_list_its_records_changes_nothing(tm_core *c) {
  uint32_t s = t_space(c), ids[64], i, waiters;
  tm_status st;
  cb_build(&p, "[sF]", "job", TM_FORMAL_INTEGER);
  for (i = 1; i <= 40; i++)
    CHECK_EQ(wait_rec(c, s, i, 2, 0, INFINITY), TM_BLOCKED);
  cb_build(&t, "[si]", "job", 1LL);
  tm_core_set_memory_limit(c, tm_core_live_bytes(c));
  st = tm_space_out(c, s, t.b, t.n, NULL);
  tm_core_set_memory_limit(c, 0);
  if (st != TM_OK) {
    CHECK_EQ(st, TM_E_NOMEM);
    CHECK_OK(tm_space_stats(c, s, NULL, &waiters, NULL));
    CHECK_EQ(waiters, 40);
    CHECK_EQ(t_count(c, s), 0);
    CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL));
  }
  CHECK_EQ(woken(c, ids, 64), 40);
  CHECK(ids[0] == 1 && ids[39] == 40);
  CHECK_EQ(t_count(c, s), 1);
  CHECK_CORE();
}

/* The hand-over: an out that a waiting in (record or process) takes is not
 * stored: the space holds no tuple and no more bytes than before its
 * waiters came (the copy a process is handed is charged to the process),
 * where the same out with nobody waiting stores it; an rd record beside
 * the in sees it too. */
static void an_out_taken_by_a_waiting_in_is_handed_over_not_stored(tm_core *c) {
  uint32_t s = t_space(c), ids[4], w, pid, waiters;
  size_t live0, live1, live2;
  tm_bytes o;
  cb_build(&p, "[sF]", "job", TM_FORMAL_INTEGER);
  cb_build(&t, "[si]", "job", 3LL);
  CHECK_EQ(wait_rec(c, s, 1, 1, 0, INFINITY), TM_BLOCKED); /* warm-up: */
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL)); /* the chains, the list */
  CHECK_EQ(woken(c, ids, 4), 1);
  CHECK_OK(tm_space_stats(c, s, NULL, NULL, &live0));
  CHECK_EQ(wait_rec(c, s, 2, 2, 0, INFINITY), TM_BLOCKED); /* an rd */
  CHECK_EQ(wait_rec(c, s, 3, 1, 0, INFINITY), TM_BLOCKED); /* an in */
  CHECK_OK(tm_space_out(c, s, t.b, t.n, &w));
  CHECK(woken(c, ids, 4) == 2 && ids[0] == 2 && ids[1] == 3);
  CHECK_EQ(t_count(c, s), 0);
  CHECK_OK(tm_space_stats(c, s, NULL, &waiters, &live1));
  CHECK_EQ(waiters, 0);
  CHECK_EQ(live1, live0);
  pid = t_run(c); /* a process's in */
  CHECK_EQ(tm_space_in(c, s, p.b, p.n, pid, 0, INFINITY, &o), TM_BLOCKED);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, &w));
  CHECK_EQ(w, 1);
  CHECK_EQ(t_state(c, pid), TM_PROC_READY);
  CHECK_EQ(t_count(c, s), 0);
  CHECK_OK(tm_space_stats(c, s, NULL, NULL, &live1));
  CHECK_EQ(live1, live0);
  CHECK_OK(tm_space_out(c, s, t.b, t.n, NULL)); /* the control: stored */
  CHECK_EQ(t_count(c, s), 1);
  CHECK_OK(tm_space_stats(c, s, NULL, NULL, &live2));
  CHECK(live2 > live0);
  CHECK_CORE();
}

const test_case record_tests[] = {
    {"a waiter record waits and an out serves it", a_record_waits_and_an_out_serves_it},
    {"a tuple present answers a record at once", a_tuple_present_answers_a_record_at_once},
    {"records and processes are served in one order", records_and_processes_are_served_in_one_order},
    {"every rd record gets the tuple beside one in", every_rd_record_gets_the_tuple_beside_one_in},
    {"a cancelled record is not served", a_cancelled_record_is_not_served},
    {"destroying a space drops its records", destroying_a_space_drops_its_records},
    {"a tuple with a formal serves a record", a_tuple_with_a_formal_serves_a_record},
    {"bad record arguments are refused", bad_record_arguments_are_refused},
    {"an out that cannot list its records changes nothing", an_out_that_cannot_list_its_records_changes_nothing},
    {"an out taken by a waiting in is handed over, not stored", an_out_taken_by_a_waiting_in_is_handed_over_not_stored},
    {NULL, NULL}};
