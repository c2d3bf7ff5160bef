/*
 * termite_core.h — the one public header of the Termite Mesh C core.
 *
 * The core holds a node's Linda tuple spaces (tuples stored as canonical CBOR,
 * indexed per field) and its process scheduler (process table, run queue with
 * priorities and earliest-deadline-first, timer heap, mailboxes of message
 * handles). Process code runs in the embedder (JavaScript); the core decides
 * who runs next and records why each process was woken.
 * size: the whole public API is one header, one section per mechanism, so an
 * embedder includes one file; the sections below split it.
 *
 * Sections:
 *   1. Status codes and limits
 *   2. Core: configuration, allocator hook, lifetime, errors, live bytes
 *   3. Transfer area (the one region bulk data crosses between JS and wasm)
 *   4. CBOR: validation and canonical form
 *   5. Spaces: the tuple store (out, in, rd, inp, rdp, count, waiters)
 *   6. Processes and the scheduler
 *   7. Clocks and timers
 *   8. Mailboxes
 *   9. Consistency checks and debugging
 *
 * Rules that hold for every function unless its comment says otherwise:
 *  - A function returning tm_status returns TM_OK (0) or a non-negative
 *    outcome (TM_NOMATCH, TM_BLOCKED) on success and a negative TM_E_* code on
 *    failure. A failed call leaves every content, state and counter of the
 *    object model as it was (no partial effects) and sets the message
 *    returned by tm_core_errmsg(); the only thing it may leave behind is
 *    reserved capacity (a table grown before a later step failed).
 *  - Input bytes (tuples, templates) are borrowed for the duration of the call
 *    only; the core copies what it keeps. They may point into the transfer
 *    area.
 *  - Result bytes (tm_bytes) point into the core's transfer area. They stay
 *    valid until the next call on the same core that produces result bytes or
 *    reserves the transfer area. The caller must not free them.
 *  - Peer-supplied bytes are never trusted: malformed input yields a status
 *    and a message, never an abort or an assertion.
 *  - Ids (spaces, processes, timers) carry a generation, so a stale id is
 *    detected rather than aliasing a newer object.
 */
#ifndef TERMITE_CORE_H
#define TERMITE_CORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* TM_API marks every public function (the export checker greps for it). */
#if defined(__EMSCRIPTEN__)
#define TM_API __attribute__((used, visibility("default")))
#elif defined(__GNUC__)
#define TM_API __attribute__((visibility("default")))
#else
#define TM_API
#endif

/* ===================================================================== */
/* 1. Status codes and limits                                            */
/* ===================================================================== */

typedef int32_t tm_status;

enum {
  TM_OK = 0,                /* success */
  TM_NOMATCH = 1,           /* success, but nothing matched / queue empty */
  TM_BLOCKED = 2,           /* success: the process now waits */
  TM_E_MALFORMED = -1,      /* bytes are not well-formed CBOR */
  TM_E_LIMIT = -2,          /* a depth, length or count limit was exceeded */
  TM_E_TEMPLATE = -3,       /* not an array, arity mismatch, formal in a tuple */
  TM_E_UNKNOWN_FORMAL = -4, /* tag 40992 with an unknown type code */
  TM_E_NO_SPACE = -5,       /* space id does not name a live space */
  TM_E_NO_PROCESS = -6,     /* pid does not name a live process */
  TM_E_TRANSITION = -7,     /* state transition not allowed from this state */
  TM_E_NOMEM = -8,          /* allocation failed or memory limit reached */
  TM_E_NO_TIMER = -9,       /* timer id does not name a pending timer */
  TM_E_ARG = -10,           /* bad argument (clock id, priority, time, handle) */
  TM_E_CORRUPT = -11        /* a consistency check failed (a bug, not input) */
};

/* CBOR tags shared with the rest of the project (docs/wire-format.md). */
#define TM_TAG_SYMBOL 40960u  /* text: a symbol */
#define TM_TAG_FORMAL 40992u  /* unsigned code, or [11, tag]: a Linda formal */

/* Formal type codes (content of tag 40992). */
enum {
  TM_FORMAL_ANY = 0,     /* every field */
  TM_FORMAL_INTEGER = 1, /* major types 0 and 1, tags 2 and 3 */
  TM_FORMAL_NUMBER = 2,  /* integers, floats, tag 30 */
  TM_FORMAL_FLOAT = 3,   /* floats */
  TM_FORMAL_STRING = 4,  /* text strings */
  TM_FORMAL_SYMBOL = 5,  /* tag 40960 */
  TM_FORMAL_BYTES = 6,   /* byte strings */
  TM_FORMAL_BOOLEAN = 7, /* true, false */
  TM_FORMAL_ARRAY = 8,   /* untagged arrays */
  TM_FORMAL_MAP = 9,     /* maps */
  TM_FORMAL_NULL = 10,   /* null */
  TM_FORMAL_TAGGED = 11  /* [11, n]: any value carrying tag n */
};

#define TM_PRIORITIES 4        /* priority levels; 0 is the most urgent */
#define TM_PRIORITY_DEFAULT 2  /* the level spawn uses when asked for it */
#define TM_CLOCKS 4            /* clock domains; 0 is real time by convention */
#define TM_MAX_ARITY 4096      /* most fields a tuple or template may have */
#define TM_MAX_DEPTH 1024      /* cap of max_depth: keeps the recursive reader
                                  well inside the wasm and native stacks */
#define TM_HANDLE_MAX 0x7FFFFFFFu /* message handles are 0..TM_HANDLE_MAX */

/* Return a static, never-NULL name for a status ("TM_E_NOMEM", ...). */
TM_API const char *tm_status_name(tm_status status);

/* ===================================================================== */
/* 2. Core                                                               */
/* ===================================================================== */

typedef struct tm_core tm_core;

/*
 * The allocator hook, Lua style: one function for everything.
 *   new_size == 0: free `ptr` (whose size is old_size); return NULL.
 *   ptr == NULL:   allocate new_size bytes.
 *   otherwise:     resize the block from old_size to new_size.
 * Return NULL on failure (the block is then left untouched). Sizes are exact,
 * so the core's live-byte counters are exact.
 */
typedef void *(*tm_alloc_fn)(void *ud, void *ptr, size_t old_size,
                             size_t new_size);

typedef struct tm_config {
  tm_alloc_fn alloc;        /* allocator hook; NULL uses malloc/realloc/free */
  void *alloc_ud;           /* passed to every call of alloc */
  size_t memory_limit;      /* most live bytes the core may hold; 0: no limit */
  uint64_t hash_seed;       /* seeds field hashing (pick it at random) */
  uint32_t max_depth;       /* deepest CBOR nesting accepted (default 64,
                               at most TM_MAX_DEPTH) */
  uint32_t max_item_bytes;  /* largest tuple/template accepted (default 16 MiB) */
  uint32_t xfer_bytes;      /* initial transfer area capacity (default 64 KiB) */
} tm_config;

/* Fill *cfg with the defaults above. Never fails. */
TM_API void tm_config_init(tm_config *cfg);

/*
 * Create a core. On TM_OK *out owns a new core that the caller must release
 * with tm_core_destroy(). Fails with TM_E_NOMEM (nothing allocated remains)
 * or TM_E_ARG (cfg NULL, max_depth 0 or above TM_MAX_DEPTH). The config is
 * copied.
 */
TM_API tm_status tm_core_create(const tm_config *cfg, tm_core **out);

/* Free the core and everything it holds. NULL is allowed. */
TM_API void tm_core_destroy(tm_core *core);

/*
 * Message describing the last failed call on this core: which field, which
 * byte offset, what was expected. Owned by the core, valid until the next
 * failing call. "" if no call has failed.
 */
TM_API const char *tm_core_errmsg(const tm_core *core);

/* Status returned by the last call on this core that returns tm_status. */
TM_API tm_status tm_core_last_status(const tm_core *core);

/* Bytes currently allocated by the core (all spaces, processes, buffers,
 * and freed small blocks kept in its pools for reuse). */
TM_API size_t tm_core_live_bytes(const tm_core *core);

/* Change the memory limit (0: none). Lowering it below the live bytes only
 * makes later allocations fail; nothing is freed. */
TM_API void tm_core_set_memory_limit(tm_core *core, size_t limit);

/* ===================================================================== */
/* 3. Transfer area                                                      */
/* ===================================================================== */

/* Bytes returned by the core: they live in the transfer area (see rules). */
typedef struct tm_bytes {
  const uint8_t *bytes; /* first byte; NULL when len is 0 */
  size_t len;           /* number of bytes */
} tm_bytes;

#define TM_XFER_MAGIC 0x544d5802u /* "TMX" + layout version 2 */

/* Bytes of tm_xfer.keep. */
#define TM_XFER_KEEP 256

/*
 * The transfer area. One per core, allocated by tm_core_create at a fixed
 * address for the core's lifetime (only `data` may move when it grows).
 * JavaScript writes encoded tuples/templates into `data` and passes that
 * address to the calls in section 5; the core copies results into `data`.
 * The scratch fields let a wasm caller pass out-parameter addresses without
 * allocating. `keep` is the caller's: input bytes it passes again and
 * again (the JS binding keeps its recently used templates there, so a
 * repeated template is not copied into `data` for every call); the core
 * reads it only as an input and never writes it. packages/core/src/layout.js
 * mirrors this layout and a test compares it with tm_xfer_layout().
 */
typedef struct tm_xfer {
  uint32_t magic;  /* TM_XFER_MAGIC */
  uint32_t cap;    /* capacity of data in bytes */
  uint8_t *data;   /* input/result region; moves only when it grows */
  tm_bytes result; /* scratch out-parameter for result bytes */
  uint32_t u32[4]; /* scratch out-parameters (ids, counts, handles) */
  double f64[2];   /* scratch out-parameters (times) */
  uint32_t reason; /* wake reason of the pid returned by the last next */
  uint32_t pad;    /* keeps the size a multiple of 8 */
  uint8_t keep[TM_XFER_KEEP]; /* the caller's inputs; never written by the core */
} tm_xfer;

enum {
  TM_XFER_OFF_MAGIC = 0, TM_XFER_OFF_CAP, TM_XFER_OFF_DATA,
  TM_XFER_OFF_RESULT_BYTES, TM_XFER_OFF_RESULT_LEN, TM_XFER_OFF_U32,
  TM_XFER_OFF_F64, TM_XFER_OFF_REASON, TM_XFER_OFF_KEEP, TM_XFER_SIZE,
  TM_XFER_FIELDS
};

/* The core's transfer area. Owned by the core; never NULL. */
TM_API tm_xfer *tm_core_xfer(tm_core *core);

/*
 * Make xfer->cap at least n bytes (data may move; its old contents are
 * kept). Invalidates earlier result bytes. TM_E_NOMEM / TM_E_LIMIT on
 * failure (the area is then unchanged).
 */
TM_API tm_status tm_core_xfer_reserve(tm_core *core, size_t n);

/* Offset (or size, for TM_XFER_SIZE) of a tm_xfer field; ~0u if unknown. */
TM_API uint32_t tm_xfer_layout(uint32_t field);

/* ===================================================================== */
/* 4. CBOR                                                               */
/* ===================================================================== */

/*
 * Validate one CBOR data item occupying exactly `len` bytes and produce its
 * deterministic encoding (RFC 8949 §4.2.1: shortest arguments, definite
 * lengths, map keys sorted bytewise, shortest exact floats, NaN as f97e00,
 * bignums of tags 2/3 that fit in 64 bits as plain integers, no leading zero
 * bytes in bignums). Rejects: truncation, trailing bytes, reserved
 * additional information (28-30), misplaced break codes, indefinite-length
 * major types 0/1/6, chunks of the wrong type, invalid UTF-8, two-byte simple
 * values below 32, duplicate map keys, tag 2/3 around a non-byte-string,
 * nesting deeper than max_depth, items larger than max_item_bytes.
 * On TM_OK, out receives the canonical bytes in the transfer area; *was_canonical
 * (if not NULL) is 1 when the input already was canonical (then nothing was
 * re-encoded).
 */
TM_API tm_status tm_cbor_canonicalize(tm_core *core, const uint8_t *in,
                                      size_t len, tm_bytes *out,
                                      int *was_canonical);

/* ===================================================================== */
/* 5. Spaces (the tuple store)                                           */
/* ===================================================================== */

/*
 * A tuple is a CBOR array (1..TM_MAX_ARITY fields, any values except a
 * formal at the top level). A template is an array whose top-level fields
 * may be formals (tag 40992). A template matches a tuple of the same arity
 * when each formal accepts the tuple's field type and each actual equals the
 * tuple's field as canonical bytes (so 1 never equals 1.0). Formals nested
 * inside an actual are plain data. Of several matching tuples, the oldest
 * is chosen.
 *
 * Space ids are nonzero; 0 never names a space.
 */

/* Create an empty space; *space receives its id. TM_E_NOMEM on failure. */
TM_API tm_status tm_space_create(tm_core *core, uint32_t *space);

/*
 * Destroy a space and its tuples. Processes waiting on its templates are
 * woken with TM_WAKE_INTERRUPT. TM_E_NO_SPACE if the id is stale.
 */
TM_API tm_status tm_space_destroy(tm_core *core, uint32_t space);

/*
 * Add a tuple. It is first matched against the space's waiting templates in
 * arrival order: every waiting rd gets a copy, and the first waiting in takes
 * the tuple (which is then not stored). Woken processes become ready with
 * reason TM_WAKE_TUPLE and collect the bytes with tm_proc_take_tuple().
 * *woken (may be NULL) receives the number of processes woken.
 * A top-level field may be a formal (S/Net): it matches any actual of its
 * type in a template, and never a formal.
 * Errors: TM_E_NO_SPACE, TM_E_MALFORMED, TM_E_LIMIT, TM_E_TEMPLATE (not an
 * array, empty, too many fields), TM_E_UNKNOWN_FORMAL (a formal field of no
 * known type), TM_E_NOMEM.
 */
TM_API tm_status tm_space_out(tm_core *core, uint32_t space,
                              const uint8_t *tuple, size_t len,
                              uint32_t *woken);

/*
 * Non-blocking in/rd: find the oldest tuple matching the template, copy it
 * into the transfer area (*out), and for inp remove it. TM_NOMATCH (and an
 * empty *out) if none matches. Errors: TM_E_NO_SPACE, TM_E_MALFORMED,
 * TM_E_LIMIT, TM_E_TEMPLATE, TM_E_UNKNOWN_FORMAL, TM_E_NOMEM (the transfer
 * area could not grow; the tuple is then not removed).
 */
TM_API tm_status tm_space_inp(tm_core *core, uint32_t space,
                              const uint8_t *tmpl, size_t len, tm_bytes *out);
TM_API tm_status tm_space_rdp(tm_core *core, uint32_t space,
                              const uint8_t *tmpl, size_t len, tm_bytes *out);

/*
 * Blocking in/rd on behalf of process `pid`, which must be running. If a
 * tuple matches now: TM_OK with *out as for inp/rdp. Otherwise, if
 * timeout_at (a time on `clock`, in ms; INFINITY for none) is later than the
 * clock's now, a waiter is registered, the process enters waiting-tuple and
 * TM_BLOCKED is returned; the process wakes with TM_WAKE_TUPLE (collect the
 * tuple with tm_proc_take_tuple), TM_WAKE_TIMEOUT or TM_WAKE_INTERRUPT. If
 * the timeout has already passed: TM_NOMATCH. Extra errors:
 * TM_E_NO_PROCESS, TM_E_TRANSITION (pid not running), TM_E_ARG (clock).
 */
TM_API tm_status tm_space_in(tm_core *core, uint32_t space,
                             const uint8_t *tmpl, size_t len, uint32_t pid,
                             uint32_t clock, double timeout_at, tm_bytes *out);
TM_API tm_status tm_space_rd(tm_core *core, uint32_t space,
                             const uint8_t *tmpl, size_t len, uint32_t pid,
                             uint32_t clock, double timeout_at, tm_bytes *out);

/*
 * Remove one stored tuple whose canonical bytes are exactly those of
 * `tuple` — by what it is, not by what it matches: a tuple holding formals
 * (S/Net) removes only its equal, never an actual it would match, and an
 * actual tuple never removes a formal one. TM_NOMATCH if the space holds
 * none. Waiters are not involved. Errors: TM_E_NO_SPACE, TM_E_MALFORMED,
 * TM_E_LIMIT, TM_E_TEMPLATE, TM_E_UNKNOWN_FORMAL, as for tm_space_out.
 */
TM_API tm_status tm_space_remove_exact(tm_core *core, uint32_t space,
                                       const uint8_t *tuple, size_t len);

/*
 * Waiter records (docs/c-api.md): an in (kind 1) or rd (kind 2) with no
 * process, named by `record` (nonzero, unique among the space's records),
 * waiting in the one waiter list with the processes and served in one order
 * with them (priority 0 first, then deadline, then arrival). wait_record:
 * TM_OK with *out as for inp/rdp, or TM_BLOCKED (the record waits; no
 * timer; charged to the space). cancel_record: TM_OK, or TM_NOMATCH if it
 * no longer waits. woken_records: the records the last out served, as
 * uint32 LE in the transfer area, in arrival order (that out's tuple is
 * theirs). Errors as for rdp, and TM_E_ARG.
 */
TM_API tm_status tm_space_wait_record(tm_core *core, uint32_t space,
    const uint8_t *tmpl, size_t len, uint32_t record, uint32_t kind,
    uint32_t prio, double deadline, tm_bytes *out);
TM_API tm_status tm_space_cancel_record(tm_core *core, uint32_t space,
    const uint8_t *tmpl, size_t len, uint32_t record);
TM_API tm_status tm_space_woken_records(tm_core *core, tm_bytes *out);

/* Number of stored tuples matching the template. Errors as for rdp. */
TM_API tm_status tm_space_count(tm_core *core, uint32_t space,
                                const uint8_t *tmpl, size_t len,
                                uint32_t *count);

/*
 * Statistics of a space: stored tuples, waiting templates, and live bytes
 * (tuples, index chains, the chain table; waiters are charged to their
 * processes). Any out-pointer may be NULL. TM_E_NO_SPACE if stale.
 */
TM_API tm_status tm_space_stats(tm_core *core, uint32_t space,
                                uint32_t *tuples, uint32_t *waiters,
                                size_t *live_bytes);

/*
 * Move the tuple delivered to `pid` by a wake-up (TM_WAKE_TUPLE) into the
 * transfer area. TM_NOMATCH if the process holds none. TM_E_NOMEM if the
 * transfer area could not grow (the tuple is then kept).
 */
TM_API tm_status tm_proc_take_tuple(tm_core *core, uint32_t pid,
                                    tm_bytes *out);

/* ===================================================================== */
/* 6. Processes and the scheduler                                        */
/* ===================================================================== */

/*
 * A pid is index + generation: bits 0..20 index a slot in the process table,
 * bits 21..31 count the slot's reuses (never 0), so pid 0 is never valid.
 * Exited slots are reused oldest-first.
 *
 * States and transitions (anything else is TM_E_TRANSITION):
 *   spawn                 -> ready
 *   ready   --next-->        running      (at most one process runs)
 *   running --yield-->       ready
 *   running --mbox_wait-->   waiting-message
 *   running --space_in/rd--> waiting-tuple
 *   running --sleep-->       waiting-timer
 *   waiting-* --event-->     ready        (message, tuple, timeout, interrupt)
 *   any live --exit-->       exited       (slot freed at once)
 * Run order: lower priority number first; within a level, processes with a
 * deadline in earliest-deadline-first order, then those without, FIFO.
 */

enum {
  TM_PROC_READY = 1,
  TM_PROC_RUNNING = 2,
  TM_PROC_WAIT_MESSAGE = 3,
  TM_PROC_WAIT_TUPLE = 4,
  TM_PROC_WAIT_TIMER = 5,
  TM_PROC_EXITED = 6
};

/* Why a process became ready (reported by next). */
enum {
  TM_WAKE_NONE = 0,
  TM_WAKE_SPAWN = 1,     /* first run */
  TM_WAKE_YIELD = 2,     /* it yielded */
  TM_WAKE_MESSAGE = 3,   /* a message arrived (mbox_wait) */
  TM_WAKE_TUPLE = 4,     /* a tuple was delivered (tm_proc_take_tuple) */
  TM_WAKE_TIMEOUT = 5,   /* its wait timed out, or its sleep ended */
  TM_WAKE_INTERRUPT = 6  /* tm_proc_interrupt, or its space was destroyed */
};

/*
 * Create a ready process with `priority` (0..TM_PRIORITIES-1) and
 * `deadline` (any number; INFINITY for none). *pid receives its id.
 * Errors: TM_E_ARG (priority, NaN deadline), TM_E_LIMIT (2^21 - 1
 * processes alive), TM_E_NOMEM. The table grows by doubling.
 */
TM_API tm_status tm_proc_spawn(tm_core *core, uint32_t priority,
                               double deadline, uint32_t *pid);

/*
 * Terminate a live process in any state: it leaves the run queue, its
 * waiter and timers are cancelled, its mailbox and delivered tuple are
 * freed (drain the mailbox first with tm_proc_drain if the handles matter),
 * and its slot is freed. TM_E_NO_PROCESS if the pid is stale.
 */
TM_API tm_status tm_proc_exit(tm_core *core, uint32_t pid);

/*
 * State of a process: TM_PROC_* in *state. A pid whose slot has been reused
 * or freed reports TM_PROC_EXITED; TM_E_NO_PROCESS only for pids never
 * issued by this core (index beyond the table, or generation 0).
 */
TM_API tm_status tm_proc_state(tm_core *core, uint32_t pid, uint32_t *state);

/* Pick the next process to run and mark it running. *pid receives it and
 * *reason (may be NULL) why it became ready. TM_NOMATCH (and *pid 0) if none
 * is ready. TM_E_TRANSITION if a process is still running. */
TM_API tm_status tm_sched_next(tm_core *core, uint32_t *pid, uint32_t *reason);

/* The running process goes back to the ready queue (behind its peers). */
TM_API tm_status tm_proc_yield(tm_core *core, uint32_t pid);

/* The running process waits on `clock` until `when`; TM_BLOCKED. If `when`
 * is not later than the clock's now, it stays running and TM_NOMATCH is
 * returned. INFINITY is refused (TM_E_ARG): use tm_mbox_wait to wait for
 * nothing but messages. */
TM_API tm_status tm_proc_sleep(tm_core *core, uint32_t pid, uint32_t clock,
                               double when);

/* Wake a waiting process with TM_WAKE_INTERRUPT, cancelling its waiter and
 * wait timer (used for exit signals, kills, cancelling a blocked in/rd).
 * TM_E_TRANSITION if it is not waiting. */
TM_API tm_status tm_proc_interrupt(tm_core *core, uint32_t pid);

/* Change priority / deadline; a ready process is re-queued. Errors:
 * TM_E_NO_PROCESS, TM_E_ARG, TM_E_NOMEM (deadline heap growth). */
TM_API tm_status tm_proc_set_priority(tm_core *core, uint32_t pid,
                                      uint32_t priority);
TM_API tm_status tm_proc_set_deadline(tm_core *core, uint32_t pid,
                                      double deadline);

/* Bytes held for a process: its mailbox ring, its waiter and its
 * delivered tuple (timers live in a shared table and are not counted). */
TM_API tm_status tm_proc_live_bytes(tm_core *core, uint32_t pid,
                                    size_t *bytes);

/* Live processes and ready processes. Either pointer may be NULL. */
TM_API void tm_sched_stats(tm_core *core, uint32_t *live, uint32_t *ready);

/* ===================================================================== */
/* 7. Clocks and timers                                                  */
/* ===================================================================== */

/*
 * Clocks 0..TM_CLOCKS-1 are separate time domains whose "now" only the
 * caller moves (milliseconds as doubles; 0 initially; real time by
 * convention on clock 0, virtual time elsewhere). Timers belong to a
 * process and a clock. A wait timer (armed by a blocking call with a
 * timeout) wakes its process with TM_WAKE_TIMEOUT. A message timer
 * (tm_timer_add) pushes its handle into the owner's mailbox when it fires
 * (Erlang's send_after); the mailbox space is reserved when it is added, so
 * firing never allocates.
 */

/* Add a message timer. *timer receives its id. Errors: TM_E_NO_PROCESS,
 * TM_E_ARG (clock, NaN, handle > TM_HANDLE_MAX), TM_E_NOMEM. */
TM_API tm_status tm_timer_add(tm_core *core, uint32_t pid, uint32_t clock,
                              double when, uint32_t handle, uint32_t *timer);

/* Cancel a pending message timer; *handle (may be NULL) gets its handle
 * back. TM_E_NO_TIMER if it fired, was cancelled, or never existed. */
TM_API tm_status tm_timer_cancel(tm_core *core, uint32_t timer,
                                 uint32_t *handle);

/*
 * Move `clock` to `now` and fire, in time order, every timer due at or
 * before it: waiting processes become ready (TM_WAKE_TIMEOUT), message
 * timers deliver their handle. *fired (may be NULL) gets the number fired.
 * TM_E_ARG if `now` is NaN or earlier than the clock's now.
 */
TM_API tm_status tm_clock_advance(tm_core *core, uint32_t clock, double now,
                                  uint32_t *fired);

/* The clock's now, and its earliest pending timer (INFINITY if none). */
TM_API tm_status tm_clock_now(tm_core *core, uint32_t clock, double *now);
TM_API tm_status tm_clock_next(tm_core *core, uint32_t clock, double *when);

/* ===================================================================== */
/* 8. Mailboxes                                                          */
/* ===================================================================== */

/*
 * Each process has a queue of message handles (0..TM_HANDLE_MAX, chosen by
 * the caller, which keeps the message values). Each message gets a sequence
 * number (1, 2, ...; 0 is never used) so a selective receive can keep a
 * cursor: cursor 0 means "from the oldest message", cursor c means "messages
 * with sequence number >= c". Storage is a ring per process that grows by
 * doubling and is reused, so push / take_first allocate nothing in steady
 * state.
 */

/* Append a handle; wakes the process if it waits for a message at or after
 * its cursor. Errors: TM_E_NO_PROCESS, TM_E_ARG, TM_E_NOMEM. */
TM_API tm_status tm_mbox_push(tm_core *core, uint32_t pid, uint32_t handle);

/* Remove the oldest message. TM_NOMATCH if the mailbox is empty. */
TM_API tm_status tm_mbox_take_first(tm_core *core, uint32_t pid,
                                    uint32_t *handle);

/* The oldest message with sequence >= cursor (see above), without removing
 * it. TM_NOMATCH if there is none. */
TM_API tm_status tm_mbox_peek(tm_core *core, uint32_t pid, uint32_t cursor,
                              uint32_t *seq, uint32_t *handle);

/* Remove the message with sequence number `seq`. TM_NOMATCH if absent. */
TM_API tm_status tm_mbox_take(tm_core *core, uint32_t pid, uint32_t seq,
                              uint32_t *handle);

/*
 * The running process waits for a message with sequence >= cursor, until
 * timeout_at on `clock` (INFINITY: no timeout). TM_OK without blocking if
 * such a message is already there; TM_NOMATCH if none is there and the
 * timeout has already passed; otherwise TM_BLOCKED.
 */
TM_API tm_status tm_mbox_wait(tm_core *core, uint32_t pid, uint32_t cursor,
                              uint32_t clock, double timeout_at);

/* Number of messages in the mailbox. */
TM_API tm_status tm_mbox_count(tm_core *core, uint32_t pid, uint32_t *count);

/*
 * Remove up to `max` handles the core holds for a process — mailbox
 * messages (oldest first), then pending message timers (cancelled) — into
 * handles[]. *n receives how many. Call until *n < max before tm_proc_exit
 * to release the caller's values.
 */
TM_API tm_status tm_proc_drain(tm_core *core, uint32_t pid, uint32_t *handles,
                               uint32_t max, uint32_t *n);

/* ===================================================================== */
/* 9. Consistency checks and debugging                                   */
/* ===================================================================== */

/*
 * Each check walks one module's structures and verifies its invariants
 * (counts, links, index chains, heap order, accounting). TM_OK, or
 * TM_E_CORRUPT with the first violation in tm_core_errmsg(). Cost is linear
 * in the structure; tests call them after every step.
 */
TM_API tm_status tm_space_check(tm_core *core, uint32_t space);
TM_API tm_status tm_sched_check(tm_core *core);
TM_API tm_status tm_timer_check(tm_core *core);
TM_API tm_status tm_mbox_check(tm_core *core, uint32_t pid);
/* All of the above for every space and process, plus the byte accounting. */
TM_API tm_status tm_core_check(tm_core *core);

/* An order-sensitive digest of a space's contents (tuples in arrival order
 * per arity, waiters per chain; not which groups are indexed), and of the
 * scheduler's observable state (process states, queues, mailboxes,
 * timers). Equal digests before and after a failed call show it changed
 * nothing. */
TM_API tm_status tm_space_digest(tm_core *core, uint32_t space,
                                 uint64_t *digest);
TM_API uint64_t tm_sched_digest(tm_core *core);

#ifdef TM_DEBUG
/* Make the n-th allocation from now fail (1 = the next one); 0 disables. */
TM_API void tm_debug_fail_alloc(tm_core *core, uint64_t n);
/* Allocations attempted since the core was created. */
TM_API uint64_t tm_debug_alloc_count(const tm_core *core);
/* Stored tuples examined by searches, and waiting templates by outs, since
 * the core was created (proves that an indexed search does not scan). */
TM_API uint64_t tm_debug_examined(const tm_core *core);
#endif

#ifdef __cplusplus
}
#endif
#endif /* TERMITE_CORE_H */
