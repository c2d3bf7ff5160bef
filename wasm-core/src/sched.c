/*
 * sched.c — the process table and the run queue.
 *
 * Invariants (checked by tm_sched_check):
 *  - A slot is free (state 0) iff it is on the free list; free slots are
 *    reused oldest-first, and a slot's generation is bumped when it is
 *    freed, so every pid issued for it before is stale from then on.
 *  - A process is READY iff it is in exactly one run queue: the deadline
 *    heap of its level when its deadline is finite (hpos is its index
 *    there), otherwise the FIFO of its level. `ready` counts them.
 *  - At most one process is RUNNING and `running` names it.
 *  - WAIT_TUPLE iff waiter != NULL; wait_timer != 0 only while waiting.
 *    A waiting process holds no delivered tuple.
 *  - Each level's heap has room for every process with a finite deadline
 *    (`ndeadline`), so making a process ready never allocates.
 *  - proc.live = its mailbox ring + its waiter + its delivered tuple.
 */
#include <math.h>
#include <string.h>

#include "core.h"

/* ---- lookup ------------------------------------------------------------ */

uint32_t tm_sched_lookup(tm_core *c, uint32_t pid, tm_status *st) {
  tm_sched *s = &c->sched;
  uint32_t i = pid & TM_ID_INDEX_MASK, gen = pid >> TM_ID_INDEX_BITS;
  if (pid != 0 && i < s->hwm && s->procs[i].state != 0 &&
      s->procs[i].gen == gen)
    return i;
  if (pid == 0 || gen == 0 || i >= s->hwm)
    *st = tm_fail(c, TM_E_NO_PROCESS, "no such process: pid %u was never "
                  "issued", pid);
  else
    *st = tm_fail(c, TM_E_NO_PROCESS, "no such process: pid %u has exited",
                  pid);
  return TM_NONE;
}

static const char *state_name(uint32_t st) {
  static const char *names[] = {"free", "ready", "running", "waiting-message",
                                "waiting-tuple", "waiting-timer", "exited"};
  return st <= TM_PROC_EXITED ? names[st] : "invalid";
}

uint32_t tm_sched_running(tm_core *c, uint32_t pid, const char *op,
                          tm_status *st) {
  uint32_t i = tm_sched_lookup(c, pid, st);
  if (i == TM_NONE) return i;
  if (c->sched.procs[i].state == TM_PROC_RUNNING) return i;
  *st = tm_fail(c, TM_E_TRANSITION, "%s: process %u is %s, not running", op,
                pid, state_name(c->sched.procs[i].state));
  return TM_NONE;
}

static uint32_t pid_of(tm_core *c, uint32_t i) {
  return tm_id_make(i, c->sched.procs[i].gen);
}

/* ---- run queue ----------------------------------------------------------- */

static int heap_less(const tm_proc *a, const tm_proc *b) {
  if (a->deadline != b->deadline) return a->deadline < b->deadline;
  return (int32_t)(a->qseq - b->qseq) < 0;
}

static void heap_set(tm_sched *s, tm_runq *q, uint32_t pos, uint32_t i) {
  q->heap[pos] = i;
  s->procs[i].hpos = pos;
}

static void heap_up(tm_sched *s, tm_runq *q, uint32_t pos) {
  uint32_t i = q->heap[pos];
  while (pos > 0) {
    uint32_t parent = (pos - 1) / 2;
    if (!heap_less(&s->procs[i], &s->procs[q->heap[parent]])) break;
    heap_set(s, q, pos, q->heap[parent]);
    pos = parent;
  }
  heap_set(s, q, pos, i);
}

static void heap_down(tm_sched *s, tm_runq *q, uint32_t pos) {
  uint32_t i = q->heap[pos];
  for (;;) { /* bounded: pos at least doubles */
    uint32_t l = 2 * pos + 1, m = l;
    if (l >= q->hlen) break;
    if (l + 1 < q->hlen &&
        heap_less(&s->procs[q->heap[l + 1]], &s->procs[q->heap[l]]))
      m = l + 1;
    if (!heap_less(&s->procs[q->heap[m]], &s->procs[i])) break;
    heap_set(s, q, pos, q->heap[m]);
    pos = m;
  }
  heap_set(s, q, pos, i);
}

static void heap_remove(tm_sched *s, tm_runq *q, uint32_t pos) {
  uint32_t last = q->heap[--q->hlen];
  s->procs[q->heap[pos]].hpos = TM_NONE;
  if (pos == q->hlen) return;
  heap_set(s, q, pos, last);
  heap_up(s, q, pos);
  heap_down(s, q, s->procs[last].hpos);
}

static void fifo_push(tm_sched *s, tm_runq *q, uint32_t i) {
  tm_proc *p = &s->procs[i];
  p->qnext = TM_NONE;
  p->qprev = q->ftail;
  if (q->ftail != TM_NONE) s->procs[q->ftail].qnext = i;
  else q->fhead = i;
  q->ftail = i;
}

static void fifo_remove(tm_sched *s, tm_runq *q, uint32_t i) {
  tm_proc *p = &s->procs[i];
  if (p->qprev != TM_NONE) s->procs[p->qprev].qnext = p->qnext;
  else q->fhead = p->qnext;
  if (p->qnext != TM_NONE) s->procs[p->qnext].qprev = p->qprev;
  else q->ftail = p->qprev;
  p->qnext = p->qprev = TM_NONE;
}

/* Make process i ready (no allocation: heap room is reserved). */
static void enqueue(tm_sched *s, uint32_t i, uint32_t reason) {
  tm_proc *p = &s->procs[i];
  tm_runq *q = &s->q[p->prio];
  p->state = TM_PROC_READY;
  p->reason = (uint8_t)reason;
  p->qseq = s->qseq++;
  s->ready++;
  if (isfinite(p->deadline)) {
    q->heap[q->hlen] = i;
    heap_up(s, q, q->hlen++);
  } else {
    fifo_push(s, q, i);
  }
}

static void dequeue(tm_sched *s, uint32_t i) {
  tm_proc *p = &s->procs[i];
  tm_runq *q = &s->q[p->prio];
  if (p->hpos != TM_NONE) heap_remove(s, q, p->hpos);
  else fifo_remove(s, q, i);
  s->ready--;
}

/* Give every level's heap room for n processes (one block, so growth is
 * all-or-nothing). */
static tm_status heap_reserve(tm_core *c, uint32_t n) {
  tm_sched *s = &c->sched;
  uint32_t cap = s->hcap ? s->hcap : 8, l;
  uint32_t *block;
  if (n <= s->hcap) return TM_OK;
  while (cap < n) cap *= 2;
  block = tm_mem_alloc(c, NULL, (size_t)cap * TM_PRIORITIES * sizeof *block);
  if (block == NULL) return tm_nomem(c, "growing the deadline queues");
  for (l = 0; l < TM_PRIORITIES; l++) {
    if (s->q[l].hlen > 0)
      memcpy(block + (size_t)l * cap, s->q[l].heap,
             s->q[l].hlen * sizeof *block);
    s->q[l].heap = block + (size_t)l * cap;
  }
  tm_mem_free(c, NULL, s->heapbuf, (size_t)s->hcap * TM_PRIORITIES * 4);
  s->heapbuf = block;
  s->hcap = cap;
  return TM_OK;
}

/* ---- transitions ---------------------------------------------------------- */

void tm_sched_block(tm_core *c, uint32_t i, uint32_t state) {
  c->sched.procs[i].state = (uint8_t)state;
  c->sched.running = TM_NONE;
}

void tm_sched_wake(tm_core *c, uint32_t i, uint32_t reason) {
  tm_proc *p = &c->sched.procs[i];
  if (p->waiter != NULL) tm_store_cancel_waiter(c, p->waiter);
  if (p->wait_timer != 0) {
    tm_timer_disarm(c, p->wait_timer);
    p->wait_timer = 0;
  }
  enqueue(&c->sched, i, reason);
}

static tm_status check_priority(tm_core *c, uint32_t prio, double deadline) {
  if (prio >= TM_PRIORITIES)
    return tm_fail(c, TM_E_ARG, "priority %u out of range (0..%u)", prio,
                   TM_PRIORITIES - 1);
  if (deadline != deadline) return tm_fail(c, TM_E_ARG, "deadline is NaN");
  return TM_OK;
}

/* A slot for a new process: the oldest freed one, or a new one. */
static tm_status take_slot(tm_core *c, uint32_t *out) {
  tm_sched *s = &c->sched;
  if (s->free_head != TM_NONE) {
    *out = s->free_head;
    s->free_head = s->procs[*out].qnext;
    if (s->free_head == TM_NONE) s->free_tail = TM_NONE;
    return TM_OK;
  }
  if (s->hwm > TM_ID_INDEX_MASK - 1)
    return tm_fail(c, TM_E_LIMIT, "too many processes (%u alive)", s->live);
  if (tm_mem_grow(c, NULL, (void **)&s->procs, &s->cap, s->hwm + 1,
                  sizeof *s->procs, 64) != TM_OK)
    return tm_nomem(c, "growing the process table");
  s->procs[s->hwm].gen = 1;
  *out = s->hwm++;
  return TM_OK;
}

static tm_status spawn(tm_core *c, uint32_t prio, double deadline,
                       uint32_t *pid) {
  tm_sched *s = &c->sched;
  uint32_t i = 0, gen;
  tm_status st = check_priority(c, prio, deadline);
  tm_proc *p;
  *pid = 0;
  if (st != TM_OK) return st;
  if (isfinite(deadline) && (st = heap_reserve(c, s->ndeadline + 1)) != TM_OK)
    return st;
  if ((st = take_slot(c, &i)) != TM_OK) return st;
  p = &s->procs[i];
  gen = p->gen;
  memset(p, 0, sizeof *p);
  p->gen = gen;
  p->prio = (uint8_t)prio;
  p->deadline = deadline;
  p->hpos = p->qnext = p->qprev = TM_NONE;
  p->timers = TM_NONE;
  tm_mbox_init(&p->mbox);
  s->live++;
  if (isfinite(deadline)) s->ndeadline++;
  enqueue(s, i, TM_WAKE_SPAWN);
  *pid = tm_id_make(i, gen);
  return TM_OK;
}

tm_status tm_proc_spawn(tm_core *c, uint32_t prio, double deadline,
                        uint32_t *pid) {
  TM_API_CHECK(c != NULL && pid != NULL);
  return tm_done(c, spawn(c, prio, deadline, pid));
}

/* Release everything a process holds and free its slot. */
static void release(tm_core *c, uint32_t i) {
  tm_sched *s = &c->sched;
  tm_proc *p = &s->procs[i];
  if (p->state == TM_PROC_READY) dequeue(s, i);
  if (p->state == TM_PROC_RUNNING) s->running = TM_NONE;
  if (p->waiter != NULL) tm_store_cancel_waiter(c, p->waiter);
  if (p->wait_timer != 0) tm_timer_disarm(c, p->wait_timer);
  tm_timer_drop_owner(c, i);
  tm_mbox_free(c, &p->live, &p->mbox);
  if (p->delivery != NULL) tm_store_free_blob(c, i, p->delivery);
  if (isfinite(p->deadline)) s->ndeadline--;
  p->delivery = NULL;
  p->wait_timer = 0;
  p->state = 0;
  p->gen = tm_id_next_gen(p->gen);
  p->qnext = TM_NONE;
  if (s->free_tail != TM_NONE) s->procs[s->free_tail].qnext = i;
  else s->free_head = i;
  s->free_tail = i;
  s->live--;
}

tm_status tm_proc_exit(tm_core *c, uint32_t pid) {
  tm_status st = TM_OK;
  uint32_t i = tm_sched_lookup(c, pid, &st);
  if (i == TM_NONE) return tm_done(c, st);
  release(c, i);
  return tm_done(c, TM_OK);
}

tm_status tm_proc_state(tm_core *c, uint32_t pid, uint32_t *state) {
  tm_sched *s = &c->sched;
  uint32_t i = pid & TM_ID_INDEX_MASK, gen = pid >> TM_ID_INDEX_BITS;
  TM_API_CHECK(c != NULL && state != NULL);
  *state = 0;
  if (pid == 0 || gen == 0 || i >= s->hwm)
    return tm_fail(c, TM_E_NO_PROCESS, "no such process: pid %u was never "
                   "issued", pid);
  *state = (s->procs[i].state == 0 || s->procs[i].gen != gen)
               ? TM_PROC_EXITED
               : s->procs[i].state;
  return tm_done(c, TM_OK);
}

tm_status tm_sched_next(tm_core *c, uint32_t *pid, uint32_t *reason) {
  tm_sched *s = &c->sched;
  uint32_t l, i;
  TM_API_CHECK(c != NULL && pid != NULL);
  *pid = 0;
  if (reason != NULL) *reason = TM_WAKE_NONE;
  if (s->running != TM_NONE)
    return tm_fail(c, TM_E_TRANSITION, "next: process %u is still running; "
                   "it must yield, wait or exit first", pid_of(c, s->running));
  for (l = 0; l < TM_PRIORITIES; l++) {
    tm_runq *q = &s->q[l];
    if (q->hlen > 0) {
      i = q->heap[0];
      heap_remove(s, q, 0);
    } else if (q->fhead != TM_NONE) {
      i = q->fhead;
      fifo_remove(s, q, i);
    } else {
      continue;
    }
    s->ready--;
    s->running = i;
    s->procs[i].state = TM_PROC_RUNNING;
    if (reason != NULL) *reason = s->procs[i].reason;
    s->procs[i].reason = TM_WAKE_NONE;
    *pid = pid_of(c, i);
    return tm_done(c, TM_OK);
  }
  return tm_done(c, TM_NOMATCH);
}

tm_status tm_proc_yield(tm_core *c, uint32_t pid) {
  tm_status st = TM_OK;
  uint32_t i = tm_sched_running(c, pid, "yield", &st);
  if (i == TM_NONE) return tm_done(c, st);
  c->sched.running = TM_NONE;
  enqueue(&c->sched, i, TM_WAKE_YIELD);
  return tm_done(c, TM_OK);
}

static tm_status sleep_op(tm_core *c, uint32_t pid, uint32_t clock,
                          double when) {
  tm_status st = TM_OK;
  uint32_t i = tm_sched_running(c, pid, "sleep", &st);
  if (i == TM_NONE) return st;
  if ((st = tm_timer_clock_ok(c, clock)) != TM_OK) return st;
  if (!isfinite(when))
    return tm_fail(c, TM_E_ARG, "sleep: wake-up time must be finite");
  if (!(when > c->timers.clocks[clock].now)) return TM_NOMATCH;
  if ((st = tm_timer_reserve(c, clock)) != TM_OK) return st;
  c->sched.procs[i].wait_timer = tm_timer_arm_wait(c, i, clock, when);
  tm_sched_block(c, i, TM_PROC_WAIT_TIMER);
  return TM_BLOCKED;
}

tm_status tm_proc_sleep(tm_core *c, uint32_t pid, uint32_t clock,
                        double when) {
  return tm_done(c, sleep_op(c, pid, clock, when));
}

static int is_waiting(uint32_t state) {
  return state == TM_PROC_WAIT_MESSAGE || state == TM_PROC_WAIT_TUPLE ||
         state == TM_PROC_WAIT_TIMER;
}

tm_status tm_proc_interrupt(tm_core *c, uint32_t pid) {
  tm_status st = TM_OK;
  uint32_t i = tm_sched_lookup(c, pid, &st);
  if (i == TM_NONE) return tm_done(c, st);
  if (!is_waiting(c->sched.procs[i].state))
    return tm_fail(c, TM_E_TRANSITION, "interrupt: process %u is %s, not "
                   "waiting", pid, state_name(c->sched.procs[i].state));
  tm_sched_wake(c, i, TM_WAKE_INTERRUPT);
  return tm_done(c, TM_OK);
}

/* Change priority and deadline of process i, re-queueing it if ready. */
static tm_status requeue(tm_core *c, uint32_t i, uint32_t prio,
                         double deadline) {
  tm_sched *s = &c->sched;
  tm_proc *p = &s->procs[i];
  int was = isfinite(p->deadline), now = isfinite(deadline);
  tm_status st = check_priority(c, prio, deadline);
  if (st != TM_OK) return st;
  if (now && !was && (st = heap_reserve(c, s->ndeadline + 1)) != TM_OK)
    return st;
  s->ndeadline += (uint32_t)(now - was);
  if (p->state == TM_PROC_READY) {
    uint32_t reason = p->reason;
    dequeue(s, i);
    p->prio = (uint8_t)prio;
    p->deadline = deadline;
    enqueue(s, i, reason);
  } else {
    p->prio = (uint8_t)prio;
    p->deadline = deadline;
  }
  return TM_OK;
}

tm_status tm_proc_set_priority(tm_core *c, uint32_t pid, uint32_t prio) {
  tm_status st = TM_OK;
  uint32_t i = tm_sched_lookup(c, pid, &st);
  if (i == TM_NONE) return tm_done(c, st);
  return tm_done(c, requeue(c, i, prio, c->sched.procs[i].deadline));
}

tm_status tm_proc_set_deadline(tm_core *c, uint32_t pid, double deadline) {
  tm_status st = TM_OK;
  uint32_t i = tm_sched_lookup(c, pid, &st);
  if (i == TM_NONE) return tm_done(c, st);
  return tm_done(c, requeue(c, i, c->sched.procs[i].prio, deadline));
}

tm_status tm_proc_live_bytes(tm_core *c, uint32_t pid, size_t *bytes) {
  tm_status st = TM_OK;
  uint32_t i;
  TM_API_CHECK(c != NULL && bytes != NULL);
  i = tm_sched_lookup(c, pid, &st);
  *bytes = 0;
  if (i == TM_NONE) return tm_done(c, st);
  *bytes = c->sched.procs[i].live;
  return tm_done(c, TM_OK);
}

void tm_sched_stats(tm_core *c, uint32_t *live, uint32_t *ready) {
  if (live != NULL) *live = c->sched.live;
  if (ready != NULL) *ready = c->sched.ready;
}

void tm_sched_free(tm_core *c) {
  tm_sched *s = &c->sched;
  uint32_t i;
  for (i = 0; i < s->hwm; i++)
    if (s->procs[i].state != 0) release(c, i);
  tm_mem_free(c, NULL, s->procs, (size_t)s->cap * sizeof *s->procs);
  tm_mem_free(c, NULL, s->heapbuf, (size_t)s->hcap * TM_PRIORITIES * 4);
  memset(s, 0, sizeof *s);
}

/* ---- checks ---------------------------------------------------------------- */

/* Walk the free list and every FIFO; mark visited slots in `seen`
 * (qnext chains are bounded by hwm). */
static tm_status check_lists(tm_core *c, uint32_t *nfree, uint32_t *nfifo) {
  tm_sched *s = &c->sched;
  uint32_t i, l, n;
  for (i = s->free_head, n = 0; i != TM_NONE && n <= s->hwm; i = s->procs[i].qnext)
    if (s->procs[i].state != 0 || ++n > s->hwm)
      return tm_fail(c, TM_E_CORRUPT, "sched: free list holds a live slot");
  *nfree = n;
  *nfifo = 0;
  for (l = 0; l < TM_PRIORITIES; l++) {
    uint32_t prev = TM_NONE;
    for (i = s->q[l].fhead, n = 0; i != TM_NONE; i = s->procs[i].qnext) {
      tm_proc *p = &s->procs[i];
      if (++n > s->hwm || p->state != TM_PROC_READY || p->prio != l ||
          p->qprev != prev || p->hpos != TM_NONE || isfinite(p->deadline))
        return tm_fail(c, TM_E_CORRUPT, "sched: bad FIFO entry at level %u",
                       l);
      prev = i;
    }
    if (s->q[l].ftail != prev)
      return tm_fail(c, TM_E_CORRUPT, "sched: FIFO tail wrong at level %u", l);
    *nfifo += n;
  }
  return TM_OK;
}

static tm_status check_heaps(tm_core *c, uint32_t *nheap) {
  tm_sched *s = &c->sched;
  uint32_t l, k;
  *nheap = 0;
  for (l = 0; l < TM_PRIORITIES; l++) {
    tm_runq *q = &s->q[l];
    if (q->hlen > s->hcap || s->hcap < s->ndeadline)
      return tm_fail(c, TM_E_CORRUPT, "sched: heap room below the number of "
                     "deadlines");
    for (k = 0; k < q->hlen; k++) {
      tm_proc *p = &s->procs[q->heap[k]];
      if (p->hpos != k || p->state != TM_PROC_READY || p->prio != l ||
          !isfinite(p->deadline) ||
          (k > 0 && heap_less(p, &s->procs[q->heap[(k - 1) / 2]])))
        return tm_fail(c, TM_E_CORRUPT, "sched: heap order broken at level "
                       "%u position %u", l, k);
    }
    *nheap += q->hlen;
  }
  return TM_OK;
}

/* One live process: state-dependent fields and its byte account. */
static tm_status check_proc(tm_core *c, uint32_t i, uint32_t *counts) {
  tm_proc *p = &c->sched.procs[i];
  size_t bytes = p->mbox.cap ? tm_mem_size((size_t)p->mbox.cap * sizeof(tm_msg)) : 0;
  if (p->state > TM_PROC_WAIT_TIMER)
    return tm_fail(c, TM_E_CORRUPT, "sched: slot %u has state %u", i, p->state);
  counts[p->state]++;
  if ((p->state == TM_PROC_WAIT_TUPLE) != (p->waiter != NULL))
    return tm_fail(c, TM_E_CORRUPT, "sched: waiter set iff waiting-tuple");
  if (p->wait_timer != 0 && !is_waiting(p->state))
    return tm_fail(c, TM_E_CORRUPT, "sched: wait timer on a process that "
                   "does not wait");
  if (is_waiting(p->state) && p->delivery != NULL)
    return tm_fail(c, TM_E_CORRUPT, "sched: waiting process holds a tuple");
  if (p->state == TM_PROC_RUNNING && c->sched.running != i)
    return tm_fail(c, TM_E_CORRUPT, "sched: running process not recorded");
  if (p->waiter != NULL) bytes += tm_mem_size(p->waiter->size);
  if (p->delivery != NULL)
    bytes += tm_mem_size(sizeof(tm_blob) + p->delivery->len);
  if (bytes != p->live)
    return tm_fail(c, TM_E_CORRUPT, "sched: process %u holds %zu bytes, "
                   "%zu recorded", i, bytes, p->live);
  return TM_OK;
}

static tm_status sched_check(tm_core *c) {
  tm_sched *s = &c->sched;
  uint32_t counts[TM_PROC_EXITED + 1] = {0}, nfree = 0, nfifo = 0, nheap = 0;
  uint32_t i, nd = 0;
  tm_status st;
  if ((st = check_lists(c, &nfree, &nfifo)) != TM_OK) return st;
  if ((st = check_heaps(c, &nheap)) != TM_OK) return st;
  for (i = 0; i < s->hwm; i++) {
    if (s->procs[i].state == 0) continue;
    if ((st = check_proc(c, i, counts)) != TM_OK) return st;
    nd += isfinite(s->procs[i].deadline) ? 1u : 0u;
  }
  if (nfree + s->live != s->hwm || counts[0] != 0)
    return tm_fail(c, TM_E_CORRUPT, "sched: %u free + %u live != %u slots",
                   nfree, s->live, s->hwm);
  if (counts[TM_PROC_READY] != s->ready || nfifo + nheap != s->ready)
    return tm_fail(c, TM_E_CORRUPT, "sched: %u ready recorded, %u found, %u "
                   "queued", s->ready, counts[TM_PROC_READY], nfifo + nheap);
  if (counts[TM_PROC_RUNNING] != (s->running != TM_NONE ? 1u : 0u) ||
      nd != s->ndeadline)
    return tm_fail(c, TM_E_CORRUPT, "sched: running or deadline count wrong");
  return TM_OK;
}

tm_status tm_sched_check(tm_core *c) { return tm_done(c, sched_check(c)); }

uint64_t tm_sched_digest(tm_core *c) {
  tm_sched *s = &c->sched;
  uint64_t h = tm_mix64((uint64_t)s->live << 32 | s->ready), d;
  uint32_t i, l, k;
  for (i = 0; i < s->hwm; i++) {
    tm_proc *p = &s->procs[i];
    if (p->state == 0) continue;
    memcpy(&d, &p->deadline, 8);
    h += tm_mix64(((uint64_t)i << 32 | p->gen) ^ tm_mix64(d) ^
                  ((uint64_t)p->state << 8 | p->prio << 16 | p->reason) ^
                  tm_mix64(p->mbox.count + ((uint64_t)p->mbox.next_seq << 32)) ^
                  (uint64_t)(uintptr_t)p->delivery ^ p->wait_timer);
    for (k = 0; k < p->mbox.count; k++) {
      tm_msg *m = &p->mbox.ring[(p->mbox.head + k) & (p->mbox.cap - 1)];
      h += tm_mix64((uint64_t)m->seq << 32 | m->handle) * (i + 1);
    }
  }
  for (l = 0; l < TM_PRIORITIES; l++)
    for (i = s->q[l].fhead, k = 0; i != TM_NONE && k <= s->hwm;
         i = s->procs[i].qnext, k++)
      h = tm_mix64(h ^ i);
  return tm_mix64(h ^ tm_timer_digest(c));
}
