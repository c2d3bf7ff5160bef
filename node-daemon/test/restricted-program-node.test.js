// @ts-check
/**
 * A program's node (`termite-node run --restrict-routed-tabs`) restricts tabs as a daemon does,
 * those that reach it through a daemon included (docs/security.md, "Across nodes: routes and deputies"):
 * a real daemon D, a program run with `--join D`, a tab played by a Node mesh node whose
 * upgrade to D carried D's `Origin`, and an unrestricted peer of D.
 *  - the tab's SEND, routed through D, to a process of the program whose pid no node gave
 *    it is refused by the program's node with the documented reason (an ERROR frame to
 *    the tab), and the process gets nothing;
 *  - a pid of the program that a process of D hands the tab is vouched for by D: the
 *    tab's SEND to it is taken, and the program sees it and ends normally.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeString, encodeValue, decodeValue } from '@termite/scheme';
import { Pid } from '@termite/runtime';
import { startDaemon, runProgram, newToken, waitFor } from './helpers/daemons.js';
import { hostilePeer, closureRef, unitOf, F, R } from './helpers/peer.js';

const PROGRAM = `
(define main (self))
(define (echo) (let loop () (let ((m (?))) (! (vector-ref m 0) (list 'echo (vector-ref m 1))) (! main 'echoed) (loop))))
(define hidden (spawn echo))
(define handed (spawn echo))
(display (list 'ready (node-id (current-node)) hidden handed))
(newline)
(display (list 'done (? 40 'timeout)))
(newline)
`;

// a process that hands `pid` to `to`: #(to pid)
const PASS = unitOf('(lambda (v) (lambda () (! (vector-ref v 0) (list \'given (vector-ref v 1)))))');

test('a tab reaching a program\'s node through a daemon may send only to the pids it was handed', async () => {
  const token = newToken();
  const d = await startDaemon({ token });
  /** @type {Awaited<ReturnType<typeof hostilePeer>>[]} */
  const peers = [];
  try {
    const tab = await hostilePeer(d, token, { websocket: { origin: `http://127.0.0.1:${d.port}` } });
    peers.push(tab);
    const peer = await hostilePeer(d, token);
    peers.push(peer);
    /** @type {RegExpExecArray | null} */
    let ready = null;
    const run = runProgram(PROGRAM, { token, join: [d.url], timeoutMs: 60_000, args: ['--restrict-routed-tabs'], onStdout: (all) => (ready ??= /\(ready (\w+) #<pid (\d+)@\w+> #<pid (\d+)@\w+>\)/.exec(all)) });
    await waitFor(() => ready !== null, 30_000, 'the program ready');
    const [, id, hiddenN, handedN] = /** @type {RegExpExecArray} */ (ready);
    const hidden = new Pid(id, Number(hiddenN)), handed = new Pid(id, Number(handedN));
    /** @type {any[]} */
    const fromProgram = [];
    tab.mesh.onMessage((from, payload) => {
      if (from === id) fromProgram.push(decodeValue(payload, { resolveCode: () => ({ lams: [], lamsByName: new Map() }) }));
    });
    await waitFor(() => tab.mesh.isReachable(id), 10_000, 'the tab reaching the program\'s node');
    assert.equal(tab.mesh.peers().length, 1, 'the tab is linked to the daemon only');
    // a pid never handed: refused by the program's node
    tab.mesh.send(id, encodeValue([F.SEND, hidden.node, hidden.n, [new Pid(tab.id, 60), 'not handed'], []]));
    await waitFor(() => fromProgram.some((f) => f[0] === F.ERROR), 10_000, 'the program\'s node refusing the SEND');
    const refusal = fromProgram.find((f) => f[0] === F.ERROR);
    assert.equal(String(refusal[1]), `SEND to process ${hidden.n} refused: ${tab.id.slice(0, 12)} is a restricted peer and was not given that pid`);
    // a pid a process of the daemon hands the tab: taken
    peer.units.set(PASS.hash, ['unit', PASS.data, false]);
    const spawned = await peer.request([R.SPAWN, closureRef(PASS.hash, `rpn-${process.pid}`, PASS.lambdas.findIndex((l) => l.nfree === 1), [[new Pid(tab.id, 61), handed]]), null, false, []]);
    assert.equal(spawned[0], true, String(spawned[1]));
    await tab.frame((f) => f[0] === F.SEND && f[2] === 61, 'the pid the daemon hands the tab');
    tab.mesh.send(id, encodeValue([F.SEND, handed.node, handed.n, [new Pid(tab.id, 62), 'handed'], []]));
    await waitFor(() => fromProgram.some((f) => f[0] === F.SEND && f[2] === 62), 10_000, 'the echo of the handed process');
    assert.equal(writeString(fromProgram.find((f) => f[0] === F.SEND && f[2] === 62)[3]), '(echo "handed")');
    const { status, stdout, stderr } = await run;
    assert.equal(status, 0, stderr);
    assert.match(stdout, /\(done echoed\)/);
    assert.ok(!fromProgram.some((f) => f[0] === F.SEND && f[2] === 60), 'the process never handed got nothing');
  } finally {
    await Promise.all(peers.map((p) => p.stop()));
    await d.stop('SIGKILL');
  }
});
