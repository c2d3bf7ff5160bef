/*
 * timer.c — clocks and their timer heaps.
 *
 * Invariants (checked by tm_timer_check):
 *  - A slot is pending (kind != FREE) iff it is in the heap of its clock
 *    at position hpos; each clock's heap is a min-heap by (when, seq).
 *    Free slots are on the free list, reused oldest-first; a slot's
 *    generation is bumped when it is freed, so stale ids are detected.
 *  - A wait timer's owner is waiting and owner->wait_timer is its id.
 *  - A message timer is on its owner's list (proc->timers, newest first)
 *    and reserves one entry of the owner's mailbox (mbox.reserved counts
 *    them), so firing it never allocates.
 *  - advance fires timers in (when, seq) order and never moves a clock
 *    backwards.
 */
#include <math.h>
#include <string.h>

#include "core.h"

tm_status tm_timer_clock_ok(tm_core *c, uint32_t clock) {
  if (clock < TM_CLOCKS) return TM_OK;
  return tm_fail(c, TM_E_ARG, "no such clock %u (clocks are 0..%u)", clock,
                 TM_CLOCKS - 1);
}

/* ---- heap ------------------------------------------------------------- */

static int earlier(const tm_timer *a, const tm_timer *b) {
  if (a->when != b->when) return a->when < b->when;
  return (int32_t)(a->seq - b->seq) < 0;
}

static void hset(tm_timers *t, tm_clock *k, uint32_t pos, uint32_t i) {
  k->heap[pos] = i;
  t->slots[i].hpos = pos;
}

static void hup(tm_timers *t, tm_clock *k, uint32_t pos) {
  uint32_t i = k->heap[pos];
  while (pos > 0) {
    uint32_t parent = (pos - 1) / 2;
    if (!earlier(&t->slots[i], &t->slots[k->heap[parent]])) break;
    hset(t, k, pos, k->heap[parent]);
    pos = parent;
  }
  hset(t, k, pos, i);
}

static void hdown(tm_timers *t, tm_clock *k, uint32_t pos) {
  uint32_t i = k->heap[pos];
  for (;;) { /* bounded: pos at least doubles */
    uint32_t l = 2 * pos + 1, m = l;
    if (l >= k->len) break;
    if (l + 1 < k->len && earlier(&t->slots[k->heap[l + 1]], &t->slots[k->heap[l]]))
      m = l + 1;
    if (!earlier(&t->slots[k->heap[m]], &t->slots[i])) break;
    hset(t, k, pos, k->heap[m]);
    pos = m;
  }
  hset(t, k, pos, i);
}

static void hremove(tm_timers *t, tm_clock *k, uint32_t pos) {
  uint32_t last = k->heap[--k->len];
  if (pos == k->len) return;
  hset(t, k, pos, last);
  hup(t, k, pos);
  hdown(t, k, t->slots[last].hpos);
}

/* ---- slots ------------------------------------------------------------- */

tm_status tm_timer_reserve(tm_core *c, uint32_t clock) {
  tm_timers *t = &c->timers;
  tm_clock *k = &t->clocks[clock];
  if (t->free_head == TM_NONE && t->hwm == t->cap) {
    if (t->hwm > TM_ID_INDEX_MASK - 1)
      return tm_fail(c, TM_E_LIMIT, "too many timers (%u)", t->live);
    if (tm_mem_grow(c, NULL, (void **)&t->slots, &t->cap, t->hwm + 1,
                    sizeof *t->slots, 16) != TM_OK)
      return tm_nomem(c, "growing the timer table");
  }
  if (tm_mem_grow(c, NULL, (void **)&k->heap, &k->cap, k->len + 1,
                  sizeof *k->heap, 16) != TM_OK)
    return tm_nomem(c, "growing a timer heap");
  return TM_OK;
}

/* Take a slot and put it in the heap (room reserved). */
static uint32_t arm(tm_core *c, uint32_t owner, uint32_t clock, double when,
                    uint32_t kind, uint32_t handle) {
  tm_timers *t = &c->timers;
  tm_clock *k = &t->clocks[clock];
  uint32_t i;
  tm_timer *tm;
  if (t->free_head != TM_NONE) {
    i = t->free_head;
    t->free_head = t->slots[i].next;
    if (t->free_head == TM_NONE) t->free_tail = TM_NONE;
  } else {
    i = t->hwm++;
    t->slots[i].gen = 1;
  }
  tm = &t->slots[i];
  tm->when = when;
  tm->seq = t->seq++;
  tm->owner = owner;
  tm->handle = handle;
  tm->clock = (uint8_t)clock;
  tm->kind = (uint8_t)kind;
  tm->next = tm->prev = TM_NONE;
  k->heap[k->len] = i;
  hup(t, k, k->len++);
  t->live++;
  return tm_id_make(i, tm->gen);
}

uint32_t tm_timer_arm_wait(tm_core *c, uint32_t pi, uint32_t clock,
                           double when) {
  return arm(c, pi, clock, when, TM_TIMER_WAIT, 0);
}

/* Slot index of a pending timer id, or TM_NONE. */
static uint32_t find(tm_core *c, uint32_t id) {
  tm_timers *t = &c->timers;
  uint32_t i = id & TM_ID_INDEX_MASK;
  if (id == 0 || i >= t->hwm || t->slots[i].kind == TM_TIMER_FREE ||
      t->slots[i].gen != id >> TM_ID_INDEX_BITS)
    return TM_NONE;
  return i;
}

/* Unlink a message timer from its owner's list. */
static void owner_unlink(tm_core *c, uint32_t i) {
  tm_timer *tm = &c->timers.slots[i];
  tm_proc *p = &c->sched.procs[tm->owner];
  if (tm->prev != TM_NONE) c->timers.slots[tm->prev].next = tm->next;
  else p->timers = tm->next;
  if (tm->next != TM_NONE) c->timers.slots[tm->next].prev = tm->prev;
  p->mbox.reserved--;
}

/* Remove slot i from its heap (and owner list) and free it. */
static void release(tm_core *c, uint32_t i) {
  tm_timers *t = &c->timers;
  tm_timer *tm = &t->slots[i];
  hremove(t, &t->clocks[tm->clock], tm->hpos);
  if (tm->kind == TM_TIMER_MESSAGE) owner_unlink(c, i);
  tm->kind = TM_TIMER_FREE;
  tm->gen = tm_id_next_gen(tm->gen);
  tm->next = TM_NONE;
  if (t->free_tail != TM_NONE) t->slots[t->free_tail].next = i;
  else t->free_head = i;
  t->free_tail = i;
  t->live--;
}

void tm_timer_disarm(tm_core *c, uint32_t id) {
  uint32_t i = find(c, id);
  if (i != TM_NONE) release(c, i);
}

void tm_timer_drop_owner(tm_core *c, uint32_t pi) {
  uint32_t guard;
  tm_proc *p = &c->sched.procs[pi];
  for (guard = 0; p->timers != TM_NONE && guard <= c->timers.hwm; guard++)
    release(c, p->timers);
}

uint32_t tm_timer_take_owner(tm_core *c, uint32_t pi, uint32_t *handles,
                             uint32_t max) {
  tm_proc *p = &c->sched.procs[pi];
  uint32_t n = 0;
  while (n < max && p->timers != TM_NONE) {
    handles[n++] = c->timers.slots[p->timers].handle;
    release(c, p->timers);
  }
  return n;
}

/* ---- public ------------------------------------------------------------- */

static tm_status add(tm_core *c, uint32_t pid, uint32_t clock, double when,
                     uint32_t handle, uint32_t *id) {
  tm_status st = TM_OK;
  uint32_t pi = tm_sched_lookup(c, pid, &st), i;
  tm_proc *p;
  *id = 0;
  if (pi == TM_NONE) return st;
  if ((st = tm_timer_clock_ok(c, clock)) != TM_OK) return st;
  if (when != when) return tm_fail(c, TM_E_ARG, "timer: time is NaN");
  if (handle > TM_HANDLE_MAX)
    return tm_fail(c, TM_E_ARG, "timer: handle %u above %u", handle,
                   TM_HANDLE_MAX);
  p = &c->sched.procs[pi];
  if ((st = tm_timer_reserve(c, clock)) != TM_OK) return st;
  if ((st = tm_mbox_reserve(c, &p->live, &p->mbox, 1)) != TM_OK) return st;
  *id = arm(c, pi, clock, when, TM_TIMER_MESSAGE, handle);
  i = *id & TM_ID_INDEX_MASK;
  c->timers.slots[i].next = p->timers;
  if (p->timers != TM_NONE) c->timers.slots[p->timers].prev = i;
  p->timers = i;
  p->mbox.reserved++;
  return TM_OK;
}

tm_status tm_timer_add(tm_core *c, uint32_t pid, uint32_t clock, double when,
                       uint32_t handle, uint32_t *id) {
  TM_API_CHECK(c != NULL && id != NULL);
  return tm_done(c, add(c, pid, clock, when, handle, id));
}

tm_status tm_timer_cancel(tm_core *c, uint32_t id, uint32_t *handle) {
  uint32_t i = find(c, id);
  if (i == TM_NONE || c->timers.slots[i].kind != TM_TIMER_MESSAGE)
    return tm_fail(c, TM_E_NO_TIMER, "no such timer: id %u has fired, was "
                   "cancelled or never existed", id);
  if (handle != NULL) *handle = c->timers.slots[i].handle;
  release(c, i);
  return tm_done(c, TM_OK);
}

/* Fire the earliest timer of clock k. */
static void fire(tm_core *c, tm_clock *k) {
  uint32_t i = k->heap[0];
  tm_timer *tm = &c->timers.slots[i];
  uint32_t owner = tm->owner, handle = tm->handle, kind = tm->kind;
  release(c, i);
  if (kind == TM_TIMER_WAIT) {
    c->sched.procs[owner].wait_timer = 0;
    tm_sched_wake(c, owner, TM_WAKE_TIMEOUT);
  } else {
    tm_mbox_deliver(c, owner, handle);
  }
}

static tm_status advance(tm_core *c, uint32_t clock, double now,
                         uint32_t *fired) {
  tm_status st = tm_timer_clock_ok(c, clock);
  tm_clock *k;
  uint32_t n = 0, limit;
  if (fired != NULL) *fired = 0;
  if (st != TM_OK) return st;
  k = &c->timers.clocks[clock];
  if (now != now || now < k->now)
    return tm_fail(c, TM_E_ARG, "advance: clock %u is at %g, cannot move to "
                   "%g", clock, k->now, now);
  k->now = now;
  limit = k->len; /* firing never adds timers */
  while (n < limit && k->len > 0 && c->timers.slots[k->heap[0]].when <= now) {
    fire(c, k);
    n++;
  }
  if (fired != NULL) *fired = n;
  return TM_OK;
}

tm_status tm_clock_advance(tm_core *c, uint32_t clock, double now,
                           uint32_t *fired) {
  return tm_done(c, advance(c, clock, now, fired));
}

tm_status tm_clock_now(tm_core *c, uint32_t clock, double *now) {
  tm_status st;
  TM_API_CHECK(c != NULL && now != NULL);
  st = tm_timer_clock_ok(c, clock);
  *now = 0;
  if (st == TM_OK) *now = c->timers.clocks[clock].now;
  return tm_done(c, st);
}

tm_status tm_clock_next(tm_core *c, uint32_t clock, double *when) {
  tm_status st;
  tm_clock *k;
  TM_API_CHECK(c != NULL && when != NULL);
  st = tm_timer_clock_ok(c, clock);
  *when = INFINITY;
  if (st != TM_OK) return tm_done(c, st);
  k = &c->timers.clocks[clock];
  if (k->len > 0) *when = c->timers.slots[k->heap[0]].when;
  return tm_done(c, TM_OK);
}

void tm_timer_free_all(tm_core *c) {
  tm_timers *t = &c->timers;
  uint32_t k;
  for (k = 0; k < TM_CLOCKS; k++)
    tm_mem_free(c, NULL, t->clocks[k].heap,
                (size_t)t->clocks[k].cap * sizeof(uint32_t));
  tm_mem_free(c, NULL, t->slots, (size_t)t->cap * sizeof *t->slots);
  memset(t, 0, sizeof *t);
}

/* ---- checks --------------------------------------------------------------- */

static tm_status check_slot(tm_core *c, uint32_t i, uint32_t *per_owner) {
  tm_timer *tm = &c->timers.slots[i];
  tm_clock *k = &c->timers.clocks[tm->clock];
  tm_proc *p;
  if (tm->clock >= TM_CLOCKS || tm->hpos >= k->len || k->heap[tm->hpos] != i ||
      tm->owner >= c->sched.hwm)
    return tm_fail(c, TM_E_CORRUPT, "timer: slot %u not in its heap", i);
  p = &c->sched.procs[tm->owner];
  if (p->state == 0)
    return tm_fail(c, TM_E_CORRUPT, "timer: slot %u owned by a dead process", i);
  if (tm->kind == TM_TIMER_WAIT && p->wait_timer != tm_id_make(i, tm->gen))
    return tm_fail(c, TM_E_CORRUPT, "timer: wait timer %u not its owner's", i);
  if (tm->kind == TM_TIMER_MESSAGE) per_owner[0]++;
  return TM_OK;
}

/* Message-timer lists: each owner's list length equals mbox.reserved. */
static tm_status check_owner_lists(tm_core *c, uint32_t nmsg) {
  uint32_t i, j, n, total = 0;
  for (i = 0; i < c->sched.hwm; i++) {
    tm_proc *p = &c->sched.procs[i];
    uint32_t prev = TM_NONE;
    if (p->state == 0) continue;
    for (j = p->timers, n = 0; j != TM_NONE && n <= nmsg; j = c->timers.slots[j].next, n++) {
      tm_timer *tm = &c->timers.slots[j];
      if (tm->kind != TM_TIMER_MESSAGE || tm->owner != i || tm->prev != prev)
        return tm_fail(c, TM_E_CORRUPT, "timer: owner list of %u broken", i);
      prev = j;
    }
    if (n != p->mbox.reserved)
      return tm_fail(c, TM_E_CORRUPT, "timer: process %u has %u message "
                     "timers, %u reserved", i, n, p->mbox.reserved);
    total += n;
  }
  if (total != nmsg)
    return tm_fail(c, TM_E_CORRUPT, "timer: %u message timers listed, %u "
                   "pending", total, nmsg);
  return TM_OK;
}

static tm_status timer_check(tm_core *c) {
  tm_timers *t = &c->timers;
  uint32_t i, k, pos, live = 0, nmsg = 0, heaped = 0;
  tm_status st;
  for (i = 0; i < t->hwm; i++) {
    if (t->slots[i].kind == TM_TIMER_FREE) continue;
    live++;
    if ((st = check_slot(c, i, &nmsg)) != TM_OK) return st;
  }
  for (k = 0; k < TM_CLOCKS; k++) {
    tm_clock *ck = &t->clocks[k];
    for (pos = 1; pos < ck->len; pos++)
      if (earlier(&t->slots[ck->heap[pos]], &t->slots[ck->heap[(pos - 1) / 2]]))
        return tm_fail(c, TM_E_CORRUPT, "timer: heap order broken on clock %u",
                       k);
    heaped += ck->len;
  }
  if (live != t->live || heaped != live)
    return tm_fail(c, TM_E_CORRUPT, "timer: %u pending, %u recorded, %u in "
                   "heaps", live, t->live, heaped);
  return check_owner_lists(c, nmsg);
}

tm_status tm_timer_check(tm_core *c) { return tm_done(c, timer_check(c)); }

uint64_t tm_timer_digest(tm_core *c) {
  tm_timers *t = &c->timers;
  uint64_t h = tm_mix64(t->live), w;
  uint32_t i;
  for (i = 0; i < t->hwm; i++) {
    tm_timer *tm = &t->slots[i];
    if (tm->kind == TM_TIMER_FREE) continue;
    memcpy(&w, &tm->when, 8);
    h += tm_mix64(w ^ ((uint64_t)tm->owner << 32 | tm->handle) ^
                  ((uint64_t)tm->kind << 40 | (uint64_t)tm->clock << 48 | i));
  }
  return h;
}
