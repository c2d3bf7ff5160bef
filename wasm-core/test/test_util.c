/*
 * test_util.c — the CBOR builder and shortcuts shared by the tests.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "test.h"

void cb_reset(cb *e) { e->n = 0; }

static void put(cb *e, uint8_t b) {
  if (e->n < sizeof e->b) e->b[e->n++] = b;
}

void cb_head(cb *e, unsigned major, uint64_t v) {
  int k, i;
  uint8_t mt = (uint8_t)(major << 5);
  if (v < 24) { put(e, mt | (uint8_t)v); return; }
  if (v <= 0xff) { put(e, mt | 24); k = 1; }
  else if (v <= 0xffff) { put(e, mt | 25); k = 2; }
  else if (v <= 0xffffffffull) { put(e, mt | 26); k = 4; }
  else { put(e, mt | 27); k = 8; }
  for (i = k - 1; i >= 0; i--) put(e, (uint8_t)(v >> (8 * i)));
}

void cb_int(cb *e, int64_t v) {
  if (v >= 0) cb_head(e, 0, (uint64_t)v);
  else cb_head(e, 1, (uint64_t)(-(v + 1)));
}

void cb_text(cb *e, const char *s) {
  size_t n = strlen(s), i;
  cb_head(e, 3, n);
  for (i = 0; i < n; i++) put(e, (uint8_t)s[i]);
}

void cb_bytes(cb *e, const void *p, size_t n) {
  size_t i;
  cb_head(e, 2, n);
  for (i = 0; i < n; i++) put(e, ((const uint8_t *)p)[i]);
}

void cb_f64(cb *e, double d) {
  uint64_t u;
  int i;
  memcpy(&u, &d, 8);
  put(e, 0xfb);
  for (i = 7; i >= 0; i--) put(e, (uint8_t)(u >> (8 * i)));
}

void cb_formal(cb *e, unsigned code) {
  cb_head(e, 6, TM_TAG_FORMAL);
  cb_head(e, 0, code);
}

void cb_formal_tagged(cb *e, uint64_t tag) {
  cb_head(e, 6, TM_TAG_FORMAL);
  cb_head(e, 4, 2);
  cb_head(e, 0, TM_FORMAL_TAGGED);
  cb_head(e, 0, tag);
}

static int hexval(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

void cb_hex(cb *e, const char *hex) {
  int hi = -1;
  for (; *hex; hex++) {
    int v = hexval(*hex);
    if (v < 0) continue;
    if (hi < 0) { hi = v; continue; }
    put(e, (uint8_t)(hi << 4 | v));
    hi = -1;
  }
}

/* Number of items directly inside the bracket starting at fmt[0] == '['. */
static unsigned count_items(const char *fmt) {
  unsigned n = 0, depth = 0;
  for (fmt++; *fmt && !(depth == 0 && *fmt == ']'); fmt++) {
    if (depth == 0) n++;
    if (*fmt == '[') depth++;
    else if (*fmt == ']') depth--;
  }
  return n;
}

static const char *build(cb *e, const char *fmt, va_list *ap) {
  switch (*fmt) {
    case '[': {
      cb_head(e, 4, count_items(fmt));
      for (fmt++; *fmt && *fmt != ']';) fmt = build(e, fmt, ap);
      return *fmt ? fmt + 1 : fmt;
    }
    case 'i': cb_int(e, va_arg(*ap, long long)); break;
    case 's': cb_text(e, va_arg(*ap, const char *)); break;
    case 'y': cb_head(e, 6, TM_TAG_SYMBOL); cb_text(e, va_arg(*ap, const char *)); break;
    case 'd': cb_f64(e, va_arg(*ap, double)); break;
    case 'F': cb_formal(e, (unsigned)va_arg(*ap, int)); break;
    case 'T': cb_formal_tagged(e, va_arg(*ap, unsigned long long)); break;
    case 't': put(e, 0xf5); break;
    case 'f': put(e, 0xf4); break;
    case 'n': put(e, 0xf6); break;
    case 'x': cb_hex(e, va_arg(*ap, const char *)); break;
    default: break;
  }
  return fmt + 1;
}

cb *cb_build(cb *e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  cb_reset(e);
  build(e, fmt, &ap);
  va_end(ap);
  return e;
}

int cb_equal_hex(const tm_bytes *b, const char *hex) {
  static cb want;
  cb_reset(&want);
  cb_hex(&want, hex);
  return b->len == want.n && (b->len == 0 || memcmp(b->bytes, want.b, b->len) == 0);
}

uint32_t t_space(tm_core *c) {
  uint32_t id = 0;
  if (tm_space_create(c, &id) != TM_OK) abort();
  return id;
}

uint32_t t_spawn(tm_core *c, uint32_t prio, double deadline) {
  uint32_t pid = 0;
  if (tm_proc_spawn(c, prio, deadline, &pid) != TM_OK) abort();
  return pid;
}

uint32_t t_run(tm_core *c) {
  uint32_t pid = t_spawn(c, 0, INFINITY), got = 0;
  /* level 0: callers make sure no other level-0 process is ready */
  if (tm_sched_next(c, &got, NULL) != TM_OK || got != pid) abort();
  return pid;
}

uint32_t t_state(tm_core *c, uint32_t pid) {
  uint32_t st = 0;
  tm_proc_state(c, pid, &st);
  return st;
}

uint32_t t_count(tm_core *c, uint32_t space) {
  uint32_t n = 0;
  tm_space_stats(c, space, &n, NULL, NULL);
  return n;
}
