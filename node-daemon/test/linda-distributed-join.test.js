// @ts-check
/**
 * The join of a distributed space is bounded (docs/linda.md, "Distributed spaces"): a
 * real daemon's first operation on a distributed space whose home is a live peer that
 * never answers the join (helpers/peer.js, admitted to the mesh and answering nothing
 * of DTS) fails after the stated time (dts-protocol.js JOIN_TIMEOUT_MS, 10 s) with an
 * error naming the space and its home; the daemon keeps serving, and the next operation
 * asks the home again — answered this time, the replica holds the home's tuple.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { encodeValue } from '@termite/scheme';
import { startDaemon, runProgram, health, newToken } from './helpers/daemons.js';
import { hostilePeer } from './helpers/peer.js';

const DTS = 34;
const D = { REPAIR_REQ: 8, REPAIR_ACK: 9 };
const token = newToken();
/** @type {import('./helpers/daemons.js').Daemon} */
let d;
/** @type {Awaited<ReturnType<typeof hostilePeer>>} */
let peer;

before(async () => {
  d = await startDaemon({ token });
  peer = await hostilePeer(d, token);
});

after(async () => {
  await peer?.stop();
  await d?.stop('SIGKILL');
});

/** Scheme: on the daemon, `expr` with `s` bound to the peer's distributed space `silent`. @param {string} expr */
function onDaemon(expr) {
  return `
(define d (make-node "127.0.0.1" ${d.port}))
(write (on d (lambda ()
  (let loop ((ns (mesh-nodes)))
    (cond ((null? ns) 'peer-not-in-mesh)
          ((equal? (node-id (car ns)) "${peer.id}")
           (let ((s (make-space 'silent 'distributed (car ns))))
             ${expr}))
          (else (loop (cdr ns))))))))
(newline)`;
}

test('a join the home never answers fails after 10 s with a clear error; the next operation joins again', async () => {
  const started = Date.now();
  const r = await runProgram(onDaemon(`
             (let ((t0 (current-second)))
               (list (catch (lambda (e) (error-object-message e)) (in s 'x ?integer))
                     (- (current-second) t0)))`), { token, join: [d.url], timeoutMs: 40000 });
  const took = Date.now() - started;
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /in: the distributed space silent cannot be joined: its home [0-9a-z]+ did not answer within 10 s/, r.stdout + r.stderr);
  const waited = Number(/ ([0-9.]+)\)\s*$/.exec(r.stdout.trim())?.[1]);
  assert.ok(waited >= 9.5 && waited < 15, `the in waited ${waited} s (expected the 10 s bound)`);
  assert.ok(took < 30000, `the program took ${took} ms`);
  const asked = peer.frames.filter((f) => f[0] === DTS && f[1] === D.REPAIR_REQ && f[2] === 'silent' && f[3] === true);
  assert.equal(asked.length, 1, 'the daemon asked the home once');
  assert.ok(await health(d.url), "the daemon still answers /health");

  // the next operation asks again; the home answers now with one tuple it owns, ("x" 7)
  const mark = peer.frames.length;
  const second = runProgram(onDaemon(`(list 'count (space-count s "x" ?integer))`), { token, join: [d.url], timeoutMs: 20000 });
  const ask = await peer.frame((f) => peer.frames.indexOf(f) >= mark && f[0] === DTS && f[1] === D.REPAIR_REQ && f[3] === true, 'the second join');
  assert.equal(ask[2], 'silent');
  peer.send([DTS, D.REPAIR_ACK, 'silent', [[`${peer.id}/b/1`, peer.id, encodeValue(['x', 7])]], [], [], true, []]);
  const r2 = await second;
  assert.equal(r2.status, 0, r2.stdout + r2.stderr);
  assert.match(r2.stdout, /\(count 1\)/, r2.stdout + r2.stderr);
});
