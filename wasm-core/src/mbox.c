/*
 * mbox.c — mailboxes: per-process rings of (sequence, handle).
 *
 * Invariants (checked by tm_mbox_check):
 *  - Entries ring[(head + k) & (cap - 1)], k < count, have strictly
 *    increasing sequence numbers (serial arithmetic, so wrap-around is
 *    fine while fewer than 2^31 messages are queued); `holes` of them are
 *    taken (handle TM_MSG_HOLE). The first and last entries are never
 *    holes, so the newest sequence is always the last entry's.
 *  - count + reserved <= cap: pending message timers always find room.
 *  - Holes are compacted once they are more than half of the entries, so
 *    selective receive stays O(log n) per lookup and O(1) amortised per
 *    removal; push and take_first are O(1) and allocation-free once the
 *    ring is big enough.
 */
#include <math.h>
#include <string.h>

#include "core.h"

#define AT(m, k) ((m)->ring[((m)->head + (k)) & ((m)->cap - 1)])

void tm_mbox_init(tm_mbox *m) {
  memset(m, 0, sizeof *m);
  m->next_seq = 1;
}

void tm_mbox_free(tm_core *c, size_t *acct, tm_mbox *m) {
  tm_mem_free(c, acct, m->ring, (size_t)m->cap * sizeof *m->ring);
  m->ring = NULL;
  m->cap = m->count = m->head = m->holes = m->reserved = 0;
}

static void compact(tm_mbox *m);

/* Serial-number comparison: a - b as a signed distance. */
static int32_t seq_diff(uint32_t a, uint32_t b) { return (int32_t)(a - b); }

tm_status tm_mbox_reserve(tm_core *c, size_t *acct, tm_mbox *m,
                          uint32_t extra) {
  uint64_t need = (uint64_t)m->count - m->holes + m->reserved + extra;
  uint32_t cap = m->cap ? m->cap : 4, k, n = 0;
  tm_msg *ring;
  if ((uint64_t)m->count + m->reserved + extra <= m->cap) return TM_OK;
  if (need <= m->cap) { /* holes make the room */
    compact(m);
    return TM_OK;
  }
  while (cap < need) {
    if (cap >= (1u << 30)) return tm_fail(c, TM_E_LIMIT, "mailbox full");
    cap *= 2;
  }
  ring = tm_mem_alloc(c, acct, (size_t)cap * sizeof *ring);
  if (ring == NULL) return tm_nomem(c, "growing a mailbox");
  for (k = 0; k < m->count; k++) /* copy, dropping holes */
    if (AT(m, k).handle != TM_MSG_HOLE) ring[n++] = AT(m, k);
  tm_mem_free(c, acct, m->ring, (size_t)m->cap * sizeof *ring);
  m->ring = ring;
  m->cap = cap;
  m->head = 0;
  m->count = n;
  m->holes = 0;
  return TM_OK;
}

uint32_t tm_mbox_append(tm_mbox *m, uint32_t handle) {
  uint32_t seq = m->next_seq;
  AT(m, m->count).seq = seq;
  AT(m, m->count).handle = handle;
  m->count++;
  m->next_seq = seq + 1 == 0 ? 1 : seq + 1;
  return seq;
}

int tm_mbox_has_from(const tm_mbox *m, uint32_t cursor) {
  if (m->count == 0) return 0;
  return cursor == 0 || seq_diff(AT(m, m->count - 1).seq, cursor) >= 0;
}

void tm_mbox_deliver(tm_core *c, uint32_t pi, uint32_t handle) {
  tm_proc *p = &c->sched.procs[pi];
  tm_mbox_append(&p->mbox, handle);
  if (p->state == TM_PROC_WAIT_MESSAGE &&
      tm_mbox_has_from(&p->mbox, p->mbox.cursor))
    tm_sched_wake(c, pi, TM_WAKE_MESSAGE);
}

/* Drop holes at both ends, keeping the end entries live. */
static void trim_ends(tm_mbox *m) {
  while (m->count > 0 && AT(m, 0).handle == TM_MSG_HOLE) {
    m->head = (m->head + 1) & (m->cap - 1);
    m->count--;
    m->holes--;
  }
  while (m->count > 0 && AT(m, m->count - 1).handle == TM_MSG_HOLE) {
    m->count--;
    m->holes--;
  }
}

/* Squeeze out holes in place (order kept). */
static void compact(tm_mbox *m) {
  uint32_t k, n = 0;
  for (k = 0; k < m->count; k++)
    if (AT(m, k).handle != TM_MSG_HOLE) AT(m, n++) = AT(m, k);
  m->count = n;
  m->holes = 0;
}

/* First position whose sequence is >= seq (count if none). */
static uint32_t lower_bound(const tm_mbox *m, uint32_t seq) {
  uint32_t lo = 0, hi = m->count;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (seq_diff(AT(m, mid).seq, seq) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Remove the entry at position k. */
static uint32_t remove_at(tm_mbox *m, uint32_t k) {
  uint32_t h = AT(m, k).handle;
  AT(m, k).handle = TM_MSG_HOLE;
  m->holes++;
  trim_ends(m);
  if (m->holes > 4 && m->holes * 2 > m->count) compact(m);
  return h;
}

static tm_status push(tm_core *c, uint32_t pid, uint32_t handle) {
  tm_status st = TM_OK;
  uint32_t pi = tm_sched_lookup(c, pid, &st);
  tm_proc *p;
  if (pi == TM_NONE) return st;
  if (handle > TM_HANDLE_MAX)
    return tm_fail(c, TM_E_ARG, "push: handle %u above %u", handle,
                   TM_HANDLE_MAX);
  p = &c->sched.procs[pi];
  if ((st = tm_mbox_reserve(c, &p->live, &p->mbox, 1)) != TM_OK) return st;
  tm_mbox_deliver(c, pi, handle);
  return TM_OK;
}

tm_status tm_mbox_push(tm_core *c, uint32_t pid, uint32_t handle) {
  return tm_done(c, push(c, pid, handle));
}

tm_status tm_mbox_take_first(tm_core *c, uint32_t pid, uint32_t *handle) {
  tm_status st = TM_OK;
  uint32_t pi;
  tm_mbox *m;
  TM_API_CHECK(c != NULL && handle != NULL);
  pi = tm_sched_lookup(c, pid, &st);
  if (pi == TM_NONE) return tm_done(c, st);
  m = &c->sched.procs[pi].mbox;
  if (m->count == 0) return tm_done(c, TM_NOMATCH);
  *handle = AT(m, 0).handle;
  m->head = (m->head + 1) & (m->cap - 1);
  m->count--;
  trim_ends(m);
  return tm_done(c, TM_OK);
}

tm_status tm_mbox_peek(tm_core *c, uint32_t pid, uint32_t cursor,
                       uint32_t *seq, uint32_t *handle) {
  tm_status st = TM_OK;
  uint32_t pi, k;
  tm_mbox *m;
  TM_API_CHECK(c != NULL && seq != NULL && handle != NULL);
  pi = tm_sched_lookup(c, pid, &st);
  if (pi == TM_NONE) return tm_done(c, st);
  m = &c->sched.procs[pi].mbox;
  k = cursor == 0 ? 0 : lower_bound(m, cursor);
  while (k < m->count && AT(m, k).handle == TM_MSG_HOLE) k++;
  if (k >= m->count) return tm_done(c, TM_NOMATCH);
  *seq = AT(m, k).seq;
  *handle = AT(m, k).handle;
  return tm_done(c, TM_OK);
}

tm_status tm_mbox_take(tm_core *c, uint32_t pid, uint32_t seq,
                       uint32_t *handle) {
  tm_status st = TM_OK;
  uint32_t pi, k;
  tm_mbox *m;
  TM_API_CHECK(c != NULL && handle != NULL);
  pi = tm_sched_lookup(c, pid, &st);
  if (pi == TM_NONE) return tm_done(c, st);
  m = &c->sched.procs[pi].mbox;
  k = lower_bound(m, seq);
  if (k >= m->count || AT(m, k).seq != seq || AT(m, k).handle == TM_MSG_HOLE)
    return tm_done(c, TM_NOMATCH);
  *handle = remove_at(m, k);
  return tm_done(c, TM_OK);
}

static tm_status wait_op(tm_core *c, uint32_t pid, uint32_t cursor,
                         uint32_t clock, double timeout_at) {
  tm_status st = TM_OK;
  uint32_t pi = tm_sched_running(c, pid, "receive", &st);
  tm_proc *p;
  if (pi == TM_NONE) return st;
  if ((st = tm_timer_clock_ok(c, clock)) != TM_OK) return st;
  if (timeout_at != timeout_at)
    return tm_fail(c, TM_E_ARG, "receive: timeout is NaN");
  p = &c->sched.procs[pi];
  if (tm_mbox_has_from(&p->mbox, cursor)) return TM_OK;
  if (!(timeout_at > c->timers.clocks[clock].now)) return TM_NOMATCH;
  if (isfinite(timeout_at) && (st = tm_timer_reserve(c, clock)) != TM_OK)
    return st;
  p->mbox.cursor = cursor;
  if (isfinite(timeout_at))
    p->wait_timer = tm_timer_arm_wait(c, pi, clock, timeout_at);
  tm_sched_block(c, pi, TM_PROC_WAIT_MESSAGE);
  return TM_BLOCKED;
}

tm_status tm_mbox_wait(tm_core *c, uint32_t pid, uint32_t cursor,
                       uint32_t clock, double timeout_at) {
  return tm_done(c, wait_op(c, pid, cursor, clock, timeout_at));
}

tm_status tm_mbox_count(tm_core *c, uint32_t pid, uint32_t *count) {
  tm_status st = TM_OK;
  uint32_t pi;
  TM_API_CHECK(c != NULL && count != NULL);
  pi = tm_sched_lookup(c, pid, &st);
  *count = 0;
  if (pi == TM_NONE) return tm_done(c, st);
  *count = c->sched.procs[pi].mbox.count - c->sched.procs[pi].mbox.holes;
  return tm_done(c, TM_OK);
}

tm_status tm_proc_drain(tm_core *c, uint32_t pid, uint32_t *handles,
                        uint32_t max, uint32_t *n) {
  tm_status st = TM_OK;
  uint32_t pi, k = 0;
  tm_mbox *m;
  TM_API_CHECK(c != NULL && n != NULL && (handles != NULL || max == 0));
  pi = tm_sched_lookup(c, pid, &st);
  *n = 0;
  if (pi == TM_NONE) return tm_done(c, st);
  m = &c->sched.procs[pi].mbox;
  while (k < max && m->count > 0) {
    handles[k++] = AT(m, 0).handle;
    m->head = (m->head + 1) & (m->cap - 1);
    m->count--;
    trim_ends(m);
  }
  k += tm_timer_take_owner(c, pi, handles + k, max - k);
  *n = k;
  return tm_done(c, TM_OK);
}

static tm_status mbox_check(tm_core *c, uint32_t pid) {
  tm_status st = TM_OK;
  uint32_t pi = tm_sched_lookup(c, pid, &st), k, holes = 0;
  tm_mbox *m;
  if (pi == TM_NONE) return st;
  m = &c->sched.procs[pi].mbox;
  if ((m->cap & (m->cap - 1)) != 0 || (uint64_t)m->count + m->reserved > m->cap ||
      m->next_seq == 0 || (m->cap > 0) != (m->ring != NULL))
    return tm_fail(c, TM_E_CORRUPT, "mbox: process %u ring sizes wrong", pid);
  for (k = 0; k < m->count; k++) {
    if (AT(m, k).handle == TM_MSG_HOLE) holes++;
    if (k > 0 && seq_diff(AT(m, k).seq, AT(m, k - 1).seq) <= 0)
      return tm_fail(c, TM_E_CORRUPT, "mbox: sequence order broken at %u", k);
  }
  if (holes != m->holes ||
      (m->count > 0 && (AT(m, 0).handle == TM_MSG_HOLE ||
                        AT(m, m->count - 1).handle == TM_MSG_HOLE)))
    return tm_fail(c, TM_E_CORRUPT, "mbox: %u holes found, %u recorded, or a "
                   "hole at an end", holes, m->holes);
  return TM_OK;
}

tm_status tm_mbox_check(tm_core *c, uint32_t pid) {
  return tm_done(c, mbox_check(c, pid));
}
