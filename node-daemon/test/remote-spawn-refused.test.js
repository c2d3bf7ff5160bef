// @ts-check
/**
 * A remote spawn the daemon refuses at a quota reaches the caller as the Scheme
 * condition the daemon raised (docs/security.md, "Limits on processes and their
 * time"): its text as Scheme prints it ("spawn: too many processes spawned from peer …
 * (limit N)"), never a JavaScript class name, and its kind (`resource-limit`) on the
 * wire, so the calling process gets a condition of that kind. Against a real daemon
 * started with a per-peer limit of 3: a program that joins it and spawns there until
 * refused, and a hand-driven peer that reads the refusal's raw answer.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, runProgram, newToken, waitFor } from './helpers/daemons.js';
import { hostilePeer, closureRef, unitOf, R } from './helpers/peer.js';

const token = newToken();
const LIMIT = 3;
/** @type {import('./helpers/daemons.js').Daemon} */
let d;

before(async () => {
  d = await startDaemon({ token, args: ['--max-processes-per-peer', String(LIMIT)] });
});

after(async () => {
  await d?.stop('SIGKILL');
});

test('a program\'s remote spawn refused at the per-peer limit raises the daemon\'s condition text, without a JS class name', { timeout: 60_000 }, async () => {
  const r = await runProgram(
    `(define a (make-node "127.0.0.1" ${d.port}))
     (define (fill k)
       (cond ((= k 10) (display "never refused") (newline))
             ((catch (lambda (e) (display (error-object-message e)) (newline) (write e) (newline) #f)
                (remote-spawn a (lambda () (? 30 #f))))
              (fill (+ k 1)))))
     (fill 0)`,
    { token, join: [d.url], timeoutMs: 40_000 },
  );
  assert.equal(r.status, 0, r.stderr + r.stdout);
  assert.match(r.stdout, new RegExp(`^spawn: too many processes spawned from peer \\w+ \\(limit ${LIMIT}\\): ${LIMIT}$`, 'm'));
  // the condition the calling process got: raised by remote-spawn, with the daemon's words
  assert.match(r.stdout, /^#<error "remote-spawn: spawn: too many processes spawned from peer \w+ \(limit 3\): 3">$/m);
  assert.doesNotMatch(r.stdout, /SchemeError|Error:|never refused/);
  await waitFor(() => /request from \w+ refused: spawn: too many processes spawned from peer/.test(d.log()), 5000, 'the refusal in the daemon log');
});

test('the refusal\'s answer on the wire: the condition text and its kind, resource-limit; the daemon serves on', { timeout: 60_000 }, async () => {
  const peer = await hostilePeer(d, token);
  try {
    const u = unitOf('(lambda (s) (lambda () (? s #f)))');
    peer.units.set(u.hash, ['refused-spawn', u.data, false]);
    const inner = u.lambdas.findIndex((l) => l.nfree === 1);
    const spawnOnce = () => peer.request([R.SPAWN, closureRef(u.hash, 'refused-env', inner, [30]), null, false, []], 20_000);
    for (let i = 0; i < LIMIT; i++) {
      const ok = await spawnOnce();
      assert.equal(ok[0], true, `spawn ${i + 1} of ${LIMIT}: ${ok[1]}`);
    }
    const refused = await spawnOnce();
    assert.equal(refused[0], false);
    assert.match(String(refused[1]), new RegExp(`^spawn: too many processes spawned from peer ${peer.id.slice(0, 12)} \\(limit ${LIMIT}\\): ${LIMIT}$`));
    assert.equal(refused[3], 'resource-limit');
    assert.equal(refused.length, 4);
    // other refusals keep their shape and their error's name
    const bad = await peer.request([R.SPAWN, 42, null, false, []]);
    assert.deepEqual([bad[0], bad.length], [false, 3]);
    assert.match(String(bad[1]), /^CodecError: SPAWN needs a procedure to run, got 42/);
    assert.equal(d.child.exitCode, null, 'the daemon is alive');
  } finally {
    await peer.stop();
  }
});
