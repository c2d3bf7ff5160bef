// @ts-check
/**
 * Slowloris: many connections that dribble an HTTP request's headers a byte at a time
 * and never finish them cannot take a daemon's HTTP side or its mesh endpoint from the
 * others (docs/security.md, "Attack suite"). Against a real daemon: SOCKETS connections
 * (200 here, 2,000 at full scale, TERMITE_ATTACK=full) each write one byte every 500 ms
 * for DURATION_MS, reopened when the daemon closes them; meanwhile /health is polled —
 * every poll must answer, the median within the bound above the idle daemon's — and a
 * new peer joins and runs a procedure on the daemon. Bounded; the daemon is stopped by PID.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { runProgram, health } from './helpers/daemons.js';
import { fileDaemon } from './helpers/file-daemon.js';

const FULL = process.env.TERMITE_ATTACK === 'full';
const SOCKETS = FULL ? 2000 : 200;
const DURATION_MS = FULL ? 60_000 : 8000;
/** The bound on the median /health round trip, above the idle daemon's (ms). */
const HEALTH_MEDIAN_MS = 20;
const file = fileDaemon();

/** Poll /health for `ms`, one poll after the other; every poll must answer ok. @param {number} ms */
async function pollHealth(ms) {
  /** @type {number[]} */
  const times = [];
  const end = performance.now() + ms;
  for (let i = 0; i < 100_000 && performance.now() < end; i++) {
    const t0 = performance.now();
    assert.equal((await health(file.daemon.url)).ok, true);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length / 2)], max: times[times.length - 1], polls: times.length };
}

/**
 * SOCKETS dribbling connections until `stop()`: each writes a request line, then one
 * header byte every 500 ms; a connection the daemon closes is reopened.
 */
function slowloris() {
  let stopped = false;
  let opened = 0;
  let closedByDaemon = 0;
  /** @type {Set<net.Socket>} */
  const sockets = new Set();
  const open = () => {
    if (stopped) return;
    opened++;
    const s = net.connect(file.daemon.port, '127.0.0.1');
    sockets.add(s);
    s.on('error', () => {});
    s.on('connect', () => s.write(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${file.daemon.port}\r\nX-Slow: `));
    s.on('close', () => {
      sockets.delete(s);
      if (!stopped) {
        closedByDaemon++;
        setTimeout(open, 50);
      }
    });
  };
  for (let i = 0; i < SOCKETS; i++) open();
  const drip = setInterval(() => {
    for (const s of sockets) if (s.writable) s.write('a');
  }, 500);
  return {
    stats: () => ({ opened, closedByDaemon, open: sockets.size }),
    stop() {
      stopped = true;
      clearInterval(drip);
      for (const s of sockets) s.destroy();
    },
  };
}

test(`${SOCKETS} slowloris connections: /health keeps answering and a new peer joins and runs a procedure on the daemon`, { timeout: DURATION_MS + 90_000 }, async (t) => {
  const idle = await pollHealth(1000);
  const attack = slowloris();
  try {
    // a legitimate peer joins while the attack runs
    const joined = runProgram(
      `(define a (make-node "127.0.0.1" ${file.daemon.port}))
       (display (on a (lambda () (* 6 7)))) (newline)`,
      { token: file.token, join: [file.daemon.url], timeoutMs: 30_000 },
    );
    const h = await pollHealth(DURATION_MS);
    const r = await joined;
    const s = attack.stats();
    t.diagnostic(`${SOCKETS} slowloris connections for ${DURATION_MS / 1000} s (${s.opened} opened, ${s.closedByDaemon} closed by the daemon, ${s.open} open at the end): /health median ${h.p50.toFixed(1)} ms, worst ${h.max.toFixed(1)} ms (${h.polls} polls; idle ${idle.p50.toFixed(1)} ms)`);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, '42\n');
    assert.ok(h.p50 <= HEALTH_MEDIAN_MS + idle.p50, `median /health ${h.p50.toFixed(1)} ms`);
    assert.ok(s.open >= SOCKETS * 0.9, `the attack held its connections (${s.open} open)`);
  } finally {
    attack.stop();
  }
  assert.equal(file.daemon.child.exitCode, null, 'the daemon is alive');
  assert.equal((await health(file.daemon.url)).ok, true);
});
