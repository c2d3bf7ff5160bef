// @ts-check
/**
 * A tab passes on what it holds, seen from the tab (distribution/passing-on.js): with
 * `vouchWhenPassingOn`, a frame, request or answer to another peer naming pids or spaces
 * of a third node makes one VOUCH request to that node per frame, before the frame,
 * each item once per receiver; its own pids, the receiver's and distributed spaces are
 * not vouched for; without the option, none. The mesh is a stand-in that records what
 * is sent and requested; node-daemon/test/restricted-passing-on.test.js runs the holder's
 * side between real daemons, e2e/migration.test.js and e2e/messengers.test.js the tab's
 * in Chromium.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeValue, encodeValue } from '@termite/scheme/internal';
import { arrayToList } from '@termite/scheme';
import { withNode } from './harness.js';
import { Distribution } from '../src/distribution.js';
import { Pid, SpaceRef } from '../src/termite-values.js';

/** A stand-in mesh: records sends and requests in one log. */
function standInMesh() {
  /** @type {Array<[string, string, any]>} */
  const log = [];
  return {
    id: 'stand-in', log, onMessage() {}, onRequest() {}, isReachable: () => true, on() { return () => {}; },
    /** @param {string} to @param {Uint8Array} bytes */
    send(to, bytes) { log.push(['send', to, decodeValue(bytes)]); return true; },
    /** @param {string} to @param {Uint8Array} bytes */
    request(to, bytes) { log.push(['request', to, decodeValue(bytes)]); return Promise.resolve(encodeValue([true, 1, []])); },
  };
}

test('a tab vouches to a third node for the pids and spaces of that node it hands another peer, before the frame', () =>
  withNode(async ({ node }) => {
    const mesh = standInMesh();
    const dist = new Distribution(node, /** @type {any} */ (mesh), { vouchWhenPassingOn: true });
    dist.send(new Pid('tab2', 1), [new Pid('p', 7), new SpaceRef('p', 'work', 'local'), new Pid('tab2', 3), new Pid(node.id, 5), new SpaceRef('q', 'd', 'distributed')]);
    assert.deepEqual(mesh.log.map(([kind, to, v]) => [kind, to, v[0] === 36 ? v.slice(0, 5) : v[0]]), [
      ['request', 'p', [36, 'tab2', false, [7], ['work']]],
      ['send', 'tab2', 1],
    ]);
    mesh.log.length = 0;
    dist.send(new Pid('tab2', 1), [new Pid('p', 7), new Pid('p', 8)]);
    assert.deepEqual(mesh.log.filter(([kind]) => kind === 'request').map(([, to, v]) => [to, v[3]]), [['p', [8]]], 'a pid told before is not told again');
    mesh.log.length = 0;
    dist.send(new Pid('tab3', 1), [new Pid('p', 7)]);
    assert.deepEqual(mesh.log.filter(([kind]) => kind === 'request').map(([, to, v]) => [to, v[1], v[3]]), [['p', 'tab3', [7]]], 'told once per receiver');
    // a pid deep in a long list (past the quick scan) and one in a list of pairs
    mesh.log.length = 0;
    dist.send(new Pid('tab5', 1), [Array.from({ length: 1000 }, (_, i) => i), arrayToList([1, 'two', new Pid('p', 11)])]);
    assert.deepEqual(mesh.log.filter(([kind]) => kind === 'request').map(([, to, v]) => [to, v[1], v[3]]), [['p', 'tab5', [11]]], 'found past the quick scan');
    mesh.log.length = 0;
    dist.send(new Pid('tab5', 1), arrayToList([1, 'no pid here', [2, 3]]));
    assert.deepEqual(mesh.log.map(([kind]) => kind), ['send'], 'a message holding no reference: no request');
    // an answer to a request from another tab (a program environment's definitions) too
    mesh.log.length = 0;
    dist.services.set('svc', new Pid('p', 9));
    await dist.onRequest('tab4', encodeValue([24, 'svc', []]));
    assert.deepEqual(mesh.log.filter(([kind]) => kind === 'request').map(([, to, v]) => [to, v[1], v[3]]), [['p', 'tab4', [9]]], 'an answer handing on a pid');
  }));

test('a node without the option vouches for nothing it passes on', () =>
  withNode(async ({ node }) => {
    const mesh = standInMesh();
    const dist = new Distribution(node, /** @type {any} */ (mesh), {});
    dist.send(new Pid('tab2', 1), [new Pid('p', 7)]);
    assert.deepEqual(mesh.log.map(([kind, to]) => [kind, to]), [['send', 'tab2']]);
  }));

test('a SPAWN acted for a restricted peer may name its caller (its link) in its thunk; any other pid not given is refused', () =>
  withNode(async ({ node, run }) => {
    const mesh = standInMesh();
    const dist = new Distribution(node, /** @type {any} */ (mesh), { restrictedPeers: ['tab'] });
    const r = await run('(spawn (lambda () (let loop () (? 60000 #f) (loop))))');
    assert.ok(r.ok, r.message);
    const caller = /** @type {Pid} */ (r.value);
    const r2 = await run('(spawn (lambda () (let loop () (? 60000 #f) (loop))))');
    const other = /** @type {Pid} */ (r2.value);
    // the thunk here is a plain vector: a SPAWN whose check passes then fails for want of a procedure
    const acted = (/** @type {any} */ thunk, /** @type {any} */ link) => () => dist.answerNow('daemon', [27, 'tab', true, [20, thunk, null, link], []]);
    assert.throws(acted([caller], caller), /SPAWN needs a procedure/, 'its own pid, in the thunk and as the link: checked and taken');
    assert.throws(acted([other], caller), new RegExp(`^Error: SPAWN refused: tab is a restricted peer and it names process ${other.n}, whose pid it was not given$`));
    assert.throws(acted([caller], false), new RegExp(`process ${caller.n}, whose pid it was not given`), 'without a link, no caller is known');
  }));

test('a process a restricted peer owns keeps its pid given to that peer when it leaves the node', () =>
  withNode(async ({ node, run }) => {
    const mesh = standInMesh();
    const dist = new Distribution(node, /** @type {any} */ (mesh), { restrictedPeers: ['tab'] });
    const owned = node.spawn(/** @type {any} */ ((await run('(lambda () (? 60000 #f))')).value), { peer: 'tab' });
    const r = await run('(spawn (lambda () (? 60000 #f)))');
    const other = /** @type {Pid} */ (r.value);
    dist.noteCarried(owned.pid, []);
    dist.noteCarried(other, []);
    node.retire(owned); // gone from here, as a process that left
    assert.equal(dist.mayReach('tab', owned.pid, null), true, 'its own process, away');
    assert.equal(dist.mayReach('tab', other, null), false, 'a process not its own');
  }));

test('an AS frame a tab relays is handled as its own: taken for a process that passed through it, held for one it was not given', () =>
  withNode(async ({ node, run }) => {
    const mesh = standInMesh();
    const dist = new Distribution(node, /** @type {any} */ (mesh), { restrictedPeers: ['tab'] });
    const spawnIdle = async () => /** @type {Pid} */ ((await run('(spawn (lambda () (let loop () (? 60000 #f) (loop))))')).value);
    const visited = await spawnIdle(), other = await spawnIdle();
    /** @type {any} */ (node.local(visited)).visited = ['tab'];
    const delivered = node.stats.messages;
    const relay = (/** @type {Pid} */ pid) => dist.handleFrame('tab', [10, 'some-daemon', false, [1, node.id, pid.n, 'relayed'], []], new Uint8Array(16));
    relay(visited);
    assert.equal(node.stats.messages, delivered + 1, 'taken: the process passed through the tab');
    relay(other);
    assert.equal(node.stats.messages, delivered + 1, 'not taken for a pid the tab was not given, whatever owner it names');
    assert.equal(dist.vouchState?.held.get('tab')?.length, 1, 'held for a vouch, as the tab\'s own frame');
  }));
