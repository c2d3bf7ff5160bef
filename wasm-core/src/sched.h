/*
 * sched.h — the process table and the run queue.
 */
#ifndef TM_SCHED_H
#define TM_SCHED_H

#include "mbox.h"

#define TM_NONE 0xFFFFFFFFu          /* "no index" in index-linked lists */
#define TM_ID_INDEX_BITS 21           /* pids and timer ids: index bits */
#define TM_ID_INDEX_MASK ((1u << TM_ID_INDEX_BITS) - 1)
#define TM_ID_GEN_MAX ((1u << (32 - TM_ID_INDEX_BITS)) - 1)

/* id = gen << 21 | index; gen in 1..2047, so id 0 is never valid. */
static inline uint32_t tm_id_make(uint32_t index, uint32_t gen) {
  return gen << TM_ID_INDEX_BITS | index;
}
static inline uint32_t tm_id_next_gen(uint32_t gen) {
  return gen >= TM_ID_GEN_MAX ? 1 : gen + 1;
}

struct tm_waiter;
struct tm_blob;

typedef struct tm_proc {
  double deadline;           /* INFINITY if none */
  uint32_t gen;              /* generation of the current/next occupant */
  uint8_t state;             /* 0 = free slot, else TM_PROC_* */
  uint8_t prio;              /* 0..TM_PRIORITIES-1 */
  uint8_t reason;            /* TM_WAKE_* since it last became ready */
  uint8_t pad;
  uint32_t qnext, qprev;     /* FIFO run queue or free list links */
  uint32_t hpos;             /* index in its level's deadline heap or NONE */
  uint32_t qseq;             /* when it became ready (EDF tie-break) */
  uint32_t wait_timer;       /* id of its wait timer, 0 if none */
  uint32_t timers;           /* first of its message timers (index) or NONE */
  tm_mbox mbox;              /* message handles */
  struct tm_waiter *waiter;  /* while waiting on a tuple */
  struct tm_blob *delivery;  /* tuple delivered by its last wake-up */
  size_t live;               /* bytes charged to this process */
} tm_proc;

/* One priority level: FIFO of processes without deadline, heap of those
 * with one. */
typedef struct tm_runq {
  uint32_t fhead, ftail; /* FIFO (index links through qnext/qprev) */
  uint32_t *heap;        /* min-heap of indices by (deadline, qseq),
                            sched.hcap entries inside sched.heapbuf */
  uint32_t hlen;         /* heap length */
} tm_runq;

typedef struct tm_sched {
  tm_proc *procs;          /* process table */
  uint32_t cap;            /* slots allocated */
  uint32_t hwm;            /* slots ever used (ids below it were issued) */
  uint32_t free_head;      /* free slots, oldest freed first */
  uint32_t free_tail;
  uint32_t live;           /* processes not exited */
  uint32_t ready;          /* processes in a run queue */
  uint32_t running;        /* index of the running process or TM_NONE */
  uint32_t ndeadline;      /* live processes with a finite deadline */
  uint32_t qseq;           /* counter for tm_proc.qseq */
  uint32_t *heapbuf;       /* storage of all levels' heaps */
  uint32_t hcap;           /* heap capacity of each level */
  tm_runq q[TM_PRIORITIES];
} tm_sched;

/* Index of a live process, or TM_NONE (message set via tm_fail). */
TM_INTERNAL uint32_t tm_sched_lookup(tm_core *c, uint32_t pid, tm_status *st);
/* Like lookup, and the process must be running. */
TM_INTERNAL uint32_t tm_sched_running(tm_core *c, uint32_t pid,
                                      const char *op, tm_status *st);
/* Waiting -> ready with a reason; cancels the wait timer and, unless the
 * reason is TM_WAKE_TUPLE, the waiter. Never allocates. */
TM_INTERNAL void tm_sched_wake(tm_core *c, uint32_t pi, uint32_t reason);
/* Running -> waiting state `state` (no queue work needed). */
TM_INTERNAL void tm_sched_block(tm_core *c, uint32_t pi, uint32_t state);
TM_INTERNAL void tm_sched_free(tm_core *c);

#endif
