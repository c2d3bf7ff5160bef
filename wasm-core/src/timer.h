/*
 * timer.h — clocks and the timer heaps.
 */
#ifndef TM_TIMER_H
#define TM_TIMER_H

#include "alloc.h"

enum { TM_TIMER_FREE = 0, TM_TIMER_WAIT = 1, TM_TIMER_MESSAGE = 2 };

typedef struct tm_timer {
  double when;        /* due time on its clock */
  uint32_t gen;       /* generation of the id (slot reuse count) */
  uint32_t seq;       /* creation order: ties fire oldest first */
  uint32_t owner;     /* process table index */
  uint32_t handle;    /* message timers: the handle delivered */
  uint32_t hpos;      /* index in its clock's heap */
  uint32_t next, prev;/* owner's message-timer list, or the free list */
  uint8_t clock;      /* 0..TM_CLOCKS-1 */
  uint8_t kind;       /* TM_TIMER_* */
  uint8_t pad[2];
} tm_timer;

typedef struct tm_clock {
  double now;         /* the caller's latest time */
  uint32_t *heap;     /* min-heap of timer indices by (when, seq) */
  uint32_t len, cap;
} tm_clock;

typedef struct tm_timers {
  tm_timer *slots;    /* timer table */
  uint32_t cap, hwm;  /* allocated, ever used */
  uint32_t free_head, free_tail; /* free slots, oldest first */
  uint32_t live;      /* pending timers */
  uint32_t seq;       /* creation counter */
  tm_clock clocks[TM_CLOCKS];
} tm_timers;

/* Ensure one more timer on `clock` can be armed without allocating. */
TM_INTERNAL tm_status tm_timer_reserve(tm_core *c, uint32_t clock);
/* Arm the wait timer of process pi (room reserved); returns its id. */
TM_INTERNAL uint32_t tm_timer_arm_wait(tm_core *c, uint32_t pi,
                                       uint32_t clock, double when);
/* Remove a pending timer by id (no-op if stale). */
TM_INTERNAL void tm_timer_disarm(tm_core *c, uint32_t id);
/* Cancel every message timer of process pi (exit). */
TM_INTERNAL void tm_timer_drop_owner(tm_core *c, uint32_t pi);
/* Cancel up to max message timers of process pi, oldest first, writing
 * their handles; returns how many. */
TM_INTERNAL uint32_t tm_timer_take_owner(tm_core *c, uint32_t pi,
                                         uint32_t *handles, uint32_t max);
/* Digest of pending timers (part of tm_sched_digest). */
TM_INTERNAL uint64_t tm_timer_digest(tm_core *c);
/* Validate a clock id; TM_E_ARG with a message if bad. */
TM_INTERNAL tm_status tm_timer_clock_ok(tm_core *c, uint32_t clock);
TM_INTERNAL void tm_timer_free_all(tm_core *c);

#endif
