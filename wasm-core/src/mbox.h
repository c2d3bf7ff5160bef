/*
 * mbox.h — per-process mailboxes: a ring of (sequence, handle) pairs.
 */
#ifndef TM_MBOX_H
#define TM_MBOX_H

#include "alloc.h"

#define TM_MSG_HOLE 0xFFFFFFFFu /* handle of a taken message not yet compacted */

typedef struct tm_msg {
  uint32_t seq;    /* sequence number, increasing along the ring */
  uint32_t handle; /* caller's handle, or TM_MSG_HOLE */
} tm_msg;

typedef struct tm_mbox {
  tm_msg *ring;      /* cap entries, NULL while cap is 0 */
  uint32_t cap;      /* 0 or a power of two */
  uint32_t head;     /* ring index of the oldest entry */
  uint32_t count;    /* entries in use, holes included */
  uint32_t holes;    /* taken entries inside the ring */
  uint32_t next_seq; /* sequence of the next push; never 0 */
  uint32_t reserved; /* entries kept free for pending message timers */
  uint32_t cursor;   /* while waiting: wake for a message with seq >= cursor */
} tm_mbox;

/* Make room for `extra` more entries beyond count + reserved. */
TM_INTERNAL tm_status tm_mbox_reserve(tm_core *c, size_t *acct, tm_mbox *m,
                                      uint32_t extra);
/* Append into reserved room (never allocates); returns its sequence. */
TM_INTERNAL uint32_t tm_mbox_append(tm_mbox *m, uint32_t handle);
/* Whether a live message with seq >= cursor (0: any) is present. */
TM_INTERNAL int tm_mbox_has_from(const tm_mbox *m, uint32_t cursor);
/* Deliver to process index pi: append and wake it if it waits for it.
 * Room must be reserved. */
TM_INTERNAL void tm_mbox_deliver(tm_core *c, uint32_t pi, uint32_t handle);
TM_INTERNAL void tm_mbox_free(tm_core *c, size_t *acct, tm_mbox *m);
TM_INTERNAL void tm_mbox_init(tm_mbox *m);

#endif
