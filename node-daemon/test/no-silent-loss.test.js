// @ts-check
/**
 * No silent loss of messages between real nodes (docs/mesh.md, "When the mesh cannot
 * take a frame"; distribution/send-queue.js): a real daemon on a free loopback port,
 * and a sender that is either a `termite-node run` program or a node in this process
 * (when the test must choose its moment or its timeouts). Each test does the attack
 * and asserts that nothing disappears: every message arrives in order, or the sender
 * gets an error raised in its process, and the daemon keeps serving. Daemons are
 * stopped by PID; a SIGSTOPped daemon is continued before it is stopped.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createMeshNode, createIdentity, createMemoryLogger } from '@termite/mesh';
import { createNode, Distribution } from '@termite/runtime';
import { ErrorObject } from '@termite/scheme';
import { runProgram, health, newToken } from './helpers/daemons.js';
import { daemonScope } from './helpers/daemon-scope.js';

const { daemon } = daemonScope();

/**
 * Await `p` for at most `ms`.
 * @template T @param {Promise<T>} p @param {number} ms @param {string} what @returns {Promise<T>}
 */
function within(p, ms, what) {
  /** @type {any} */
  let t;
  return Promise.race([p, new Promise((_, reject) => { t = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms); })])
    .finally(() => clearTimeout(t));
}

/** A receiver that checks each (vector i bytes) and answers (count next-expected wrong) to (done from). */
const RECEIVER = `(lambda ()
    (let loop ((count 0) (next 0) (wrong '()))
      (let ((m (?)))
        (if (vector? m)
            (let ((i (vector-ref m 0)) (b (vector-ref m 1)))
              (loop (+ count 1) (+ i 1)
                    (if (and (= i next) (= (bytevector-length b) 65536) (= (bytevector-u8-ref b 65535) (modulo i 256)))
                        wrong
                        (if (< (length wrong) 5) (cons (list next i) wrong) wrong))))
            (! (cadr m) (list count next (reverse wrong)))))))`;

test('the attack: 2,000 messages of 64 KiB in a burst to a process on a daemon arrive complete and in order', async () => {
  const token = newToken();
  const a = await daemon({ token });
  const r = await runProgram(
    `
(define a (make-node "127.0.0.1" ${a.port}))
(define receiver (remote-spawn a ${RECEIVER}))
(let loop ((i 0))
  (if (< i 2000)
      (begin (! receiver (vector i (make-bytevector 65536 (modulo i 256)))) (loop (+ i 1)))))
(! receiver (list 'done (self)))
(write (? 60)) (newline)
`,
    { token, join: [a.url], timeoutMs: 90_000 },
  );
  assert.equal(r.status, 0, r.stderr);
  // every sequence number, once, in order: 2,000 messages, the next expected is 2000, nothing out of place
  assert.equal(r.stdout, '(2000 2000 ())\n');
  assert.doesNotMatch(r.stderr + a.log(), /not sent/);
  assert.equal((await health(a.url)).ok, true);
});

test('a 70 MB message raises in the sender with the mesh\'s limit, and the daemon keeps serving', async () => {
  const token = newToken();
  const a = await daemon({ token });
  const r = await runProgram(
    `
(define a (make-node "127.0.0.1" ${a.port}))
(define echo (remote-spawn a (lambda () (let loop () (recv ((from tag m) (! from (list tag (list 'pong m))))) (loop)))))
(display (guard (e (#t (error-object-message e))) (! echo (make-bytevector 73400320 7)) 'no-error)) (newline)
(write (!? echo 'ping 10)) (newline)
`,
    { token, join: [a.url], timeoutMs: 60_000 },
  );
  assert.equal(r.status, 0, r.stderr);
  const [raised, after] = r.stdout.split('\n');
  assert.match(raised, new RegExp(`^message to process \\d+ on node ${a.id.slice(0, 12)} not sent: its frame of 734\\d{5} bytes \\(70 MiB\\) exceeds the mesh's limit of 67108864 bytes \\(64 MiB\\)$`));
  assert.equal(after, '(pong ping)');
  assert.match(r.stderr, /1 frame to node \w+ not sent \(FrameTooLargeError\)/);
  assert.equal((await health(a.url)).ok, true);
});

/**
 * A node in this process joined to daemon `d`, and a receiver spawned on the daemon.
 * @param {import('./helpers/daemons.js').Daemon} d @param {string} token
 * @param {{peerTimeoutMs?: number, requestTimeoutMs?: number}} timeouts
 */
async function senderNode(d, token, timeouts) {
  const mesh = createMeshNode({
    identity: await createIdentity(), token, webrtc: false, join: [d.url], logger: createMemoryLogger(),
    peerTimeoutMs: timeouts.peerTimeoutMs,
  });
  await mesh.start();
  /** @type {string[]} */
  const log = [];
  const node = /** @type {any} */ (await createNode({ id: mesh.id, log: (s) => log.push(s) }));
  const dist = new Distribution(node, mesh, { log: (s) => log.push(s), requestTimeoutMs: timeouts.requestTimeoutMs });
  const r = await node.runProgram(`(remote-spawn (make-node "127.0.0.1" ${d.port}) (lambda () (let loop () (?) (loop))))`, { file: 'receiver.scm' });
  assert.ok(r.ok, r.message);
  const burst = await node.runProgram(`(lambda (to)
    (let loop ((i 0))
      (if (< i 2000)
          (begin (! to (vector i (make-bytevector 65536 (modulo i 256)))) (loop (+ i 1)))
          'all-sent)))`, { file: 'burst.scm' });
  assert.ok(burst.ok, burst.message);
  /** Start the burst; resolves with how the sending process ended. */
  const send = () => {
    const proc = node.spawnCall(burst.value, [r.value]);
    return /** @type {Promise<{ok: boolean, value: any}>} */ (new Promise((resolve) => (proc.onExit = resolve)));
  };
  const stop = async () => {
    node.stop();
    await mesh.stop();
  };
  return { mesh, node, dist, log, send, stop };
}

test('the daemon freezes (SIGSTOP) during a burst: the blocked sender is told within the heartbeat timeout, and the daemon serves again once continued', async () => {
  const token = newToken();
  const a = await daemon({ token });
  const s = await senderNode(a, token, {});
  try {
    a.child.kill('SIGSTOP');
    const t0 = Date.now();
    const end = await within(s.send(), 15_000, 'the sender ending');
    const ms = Date.now() - t0;
    assert.equal(end.ok, false, 'the sender was told');
    assert.ok(end.value instanceof ErrorObject, String(end.value));
    assert.equal(end.value.kind, 'send');
    assert.match(end.value.message, new RegExp(`^\\d+ messages? to node ${a.id.slice(0, 12)} not sent: node ${a.id} is unreachable`));
    assert.ok(ms < 10_000, `told after ${ms} ms`);
    assert.ok(s.dist.stats.queued >= 1 && s.dist.stats.dropped >= 1);
    const lines = s.log.filter((l) => l.includes('not sent'));
    assert.ok(lines.length >= 1 && lines.length <= 3, lines.join('\n'));
    a.child.kill('SIGCONT');
    assert.equal((await within(health(a.url), 10_000, 'the daemon\'s /health')).ok, true);
  } finally {
    a.child.kill('SIGCONT');
    await s.stop();
  }
});

test('no room comes while the link stays up: the send fails after the request timeout, not never', async () => {
  const token = newToken();
  const a = await daemon({ token });
  // heartbeats would take 30 s to give up: the outbox's own bound (1 s without progress) ends the wait
  const s = await senderNode(a, token, { peerTimeoutMs: 30_000, requestTimeoutMs: 1000 });
  try {
    a.child.kill('SIGSTOP');
    const t0 = Date.now();
    const end = await within(s.send(), 10_000, 'the sender ending');
    const ms = Date.now() - t0;
    assert.equal(end.ok, false);
    assert.equal(end.value.kind, 'send');
    assert.match(end.value.message, /^\d+ messages? to node \w+ not sent: the send queue to it had no room for 1000 ms$/);
    assert.ok(ms >= 1000 && ms < 5000, `told after ${ms} ms`);
    assert.equal(s.mesh.peers().length, 1, 'the link is still up');
  } finally {
    a.child.kill('SIGCONT');
    await s.stop();
  }
});
