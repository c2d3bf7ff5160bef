// @ts-check
/**
 * Vouching seen from the node that gives (distribution/vouching.js): a frame to a
 * restricted peer naming pids of other nodes makes one VOUCH request per third node,
 * before the frame is sent, naming each pid once per peer (a pid told before is not
 * told again; one whose vouch failed is told again with the next frame); pids of this
 * node, of the peer's own node and of a restricted node are not vouched for; and an
 * unrestricted destination makes none. And from the node that holds the pids: a
 * restricted peer's frame for a pid not given is held, and taken once a daemon vouches
 * for it (only live processes are recorded); beyond 256 held frames one is refused at
 * once; a restricted peer's VOUCH and a malformed one are refused; a request refused
 * for a pid not given is asked again when a vouch comes (64 waiting per peer). Spaces:
 * vouched for by name (not a distributed one), recorded by the holder only when they are
 * its local spaces; a Linda operation on one not given is held until the vouch, or
 * answered with its error after the hold. A local `!` to a process a restricted peer
 * spawned here vouches for what it holds, unless its sender is that peer's or another
 * restricted peer's. The
 * mesh is a stand-in that records what is sent and requested;
 * node-daemon/test/restricted-vouching.test.js runs it between real daemons.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeValue, encodeValue } from '@termite/scheme/internal';
import { arrayToList } from '@termite/scheme';
import { withNode } from './harness.js';
import { Distribution } from '../src/distribution.js';
import { Pid, SpaceRef } from '../src/termite-values.js';
import { declareSpace } from '../src/linda/space-table.js';
import { NotGiven } from '../src/distribution/capabilities.js';

/** A stand-in mesh: records sends and requests in one log, answers requests with `answer()`. @param {() => Promise<any>} answer */
function standInMesh(answer) {
  /** @type {Array<[string, string, any]>} */
  const log = [];
  return {
    id: 'stand-in', log, onMessage() {}, onRequest() {}, isReachable: () => true, on() { return () => {}; },
    /** @param {string} to @param {Uint8Array} bytes */
    send(to, bytes) { log.push(['send', to, decodeValue(bytes)]); return true; },
    /** @param {string} to @param {Uint8Array} bytes */
    request(to, bytes) { log.push(['request', to, decodeValue(bytes)]); return answer().then((v) => encodeValue(v)); },
  };
}

test('a frame to a restricted peer naming pids of other nodes vouches once per third node and pid, before the frame', () =>
  withNode(async ({ node }) => {
    const mesh = standInMesh(async () => [true, 1, []]);
    const dist = new Distribution(node, /** @type {any} */ (mesh), { restrictedPeers: ['tab', 'other-tab'] });
    try {
      dist.send(new Pid('tab', 1), [new Pid('b', 7), new Pid('b', 8), new Pid('c', 3), new Pid(node.id, 5), new Pid('tab', 9), new Pid('other-tab', 4)]);
      const requests = mesh.log.slice(0, 2).map(([kind, to, v]) => [kind, to, [...v.slice(0, 3), [...v[3]].sort()]]).sort();
      assert.deepEqual(requests, [
        ['request', 'b', [36, 'tab', false, [7, 8]]],
        ['request', 'c', [36, 'tab', false, [3]]],
      ]);
      assert.deepEqual(mesh.log.slice(2).map(([kind, to, v]) => [kind, to, v[0]]), [['send', 'tab', 1]], 'the frame after its vouches');
      mesh.log.length = 0;
      dist.send(new Pid('tab', 1), [new Pid('b', 7), new Pid('b', 10)]);
      assert.deepEqual(mesh.log.filter(([kind]) => kind === 'request').map(([, to, v]) => [to, v[3]]), [['b', [10]]], 'a pid told before is not told again');
      mesh.log.length = 0;
      dist.send(new Pid('daemon', 1), [new Pid('b', 11)]);
      assert.deepEqual(mesh.log.map(([kind]) => kind), ['send'], 'no vouch for an unrestricted destination');
    } finally {
      node.remote = null;
    }
  }));

test('a pid whose vouch failed is told again with the next frame naming it', () =>
  withNode(async ({ node }) => {
    let fail = true;
    const mesh = standInMesh(async () => (fail ? [false, 'refused', []] : [true, 1, []]));
    const dist = new Distribution(node, /** @type {any} */ (mesh), { restrictedPeers: ['tab'] });
    try {
      dist.send(new Pid('tab', 1), [new Pid('b', 7)]);
      await new Promise((r) => setImmediate(r)); // the refusal's reactions
      fail = false;
      dist.send(new Pid('tab', 1), [new Pid('b', 7)]);
      assert.deepEqual(mesh.log.filter(([kind]) => kind === 'request').map(([, , v]) => v[3]), [[7], [7]]);
    } finally {
      node.remote = null;
    }
  }));

test('the holder: a restricted peer\'s frame for a pid not given waits for a vouch, bounded; a restricted peer may not vouch', () =>
  withNode(async ({ node, run }) => {
    const mesh = standInMesh(async () => [true, 1, []]);
    const dist = new Distribution(node, /** @type {any} */ (mesh), { restrictedPeers: ['tab'] });
    try {
      const r = await run('(spawn (lambda () (let loop () (? 60000 #f) (loop))))');
      assert.ok(r.ok, r.message);
      const pid = /** @type {Pid} */ (r.value);
      const frame = (/** @type {string} */ text) => [1, node.id, pid.n, text, []];
      const errors = () => mesh.log.filter(([kind, to, v]) => kind === 'send' && to === 'tab' && v[0] === 8).map(([, , v]) => String(v[1]));
      const delivered = node.stats.messages;
      dist.handleFrame('tab', frame('early'), new Uint8Array(16));
      assert.equal(node.stats.messages, delivered, 'not delivered yet');
      assert.deepEqual(errors(), [], 'held, not refused');
      // the peer's VOUCH for itself is refused; a daemon's makes the held frame taken
      assert.throws(() => dist.acceptVouch('tab', [36, 'tab', false, [pid.n], []]), /^Error: VOUCH refused: tab is a restricted peer and vouches for itself$/);
      assert.throws(() => dist.acceptVouch('daemon', [36, 'tab', 'yes', [pid.n], []]), /malformed VOUCH request/);
      assert.equal(dist.acceptVouch('daemon', [36, 'tab', false, [pid.n, 999_999], []]), 1, 'only live processes are recorded');
      assert.equal(dist.vouchState?.held.size, 0, 'the held frame was taken');
      assert.equal(dist.mayReach('tab', pid, node.local(pid)), true);
      assert.equal(node.stats.messages, delivered + 1, 'delivered once vouched for');
      // beyond MAX_HELD frames for one peer, a frame is refused at once
      const r2 = await run('(spawn (lambda () (let loop () (? 60000 #f) (loop))))');
      const other = /** @type {Pid} */ (r2.value);
      for (let i = 0; i < 257; i++) dist.handleFrame('tab', [1, node.id, other.n, i, []], new Uint8Array(16));
      assert.equal(dist.vouchState?.held.get('tab')?.length, 256);
      assert.equal(errors().length, 1, 'the 257th refused at once');
      assert.match(errors()[0], /^SEND to process \d+ refused: tab is a restricted peer and was not given that pid$/);
      dist.replayHeld('tab'); // nothing changed: they wait on
      assert.equal(dist.vouchState?.held.get('tab')?.length, 256);
    } finally {
      for (const t of dist.vouchState?.timers.values() ?? []) clearTimeout(t);
      node.remote = null;
    }
  }));

test('the holder: requests refused for a pid not given are asked again when a vouch comes, 64 per peer at most', () =>
  withNode(async ({ node, run }) => {
    const mesh = standInMesh(async () => [true, 1, []]);
    const dist = new Distribution(node, /** @type {any} */ (mesh), { restrictedPeers: ['tab'] });
    try {
      const r = await run('(spawn (lambda () (let loop () (? 60000 #f) (loop))))');
      const pid = /** @type {Pid} */ (r.value);
      // a SERVICE request the answer to which, asked again, is "no service": so each retry shows
      const waits = Array.from({ length: 65 }, () => dist.answerAfterVouch('tab', [24, 'absent', []], new NotGiven('not given')).then(() => 'answered', (e) => String(e.message)));
      const early = await Promise.race([waits[64], new Promise((res) => setTimeout(() => res('still waiting'), 200))]);
      assert.equal(early, 'not given', 'the 65th waits for nothing: refused at once');
      dist.acceptVouch('daemon', [36, 'tab', false, [pid.n], []]);
      const outcomes = await Promise.all(waits.slice(0, 64));
      assert.deepEqual(new Set(outcomes), new Set(['no service named absent on this node']), 'each of the 64 asked again once the vouch came');
      assert.equal(dist.vouchState?.waiting, 0);
    } finally {
      node.remote = null;
    }
  }));

test('spaces: a frame to a restricted peer naming spaces of another node vouches for them by name; the holder records its local ones, and holds a Linda operation until then', () =>
  withNode(async ({ node }) => {
    const mesh = standInMesh(async () => [true, 1, []]);
    const dist = new Distribution(node, /** @type {any} */ (mesh), { restrictedPeers: ['tab'] });
    try {
      // the giver: every space reference but a distributed one, once per peer
      dist.send(new Pid('tab', 1), [new SpaceRef('b', 'jobs', 'local'), new SpaceRef('b', 'named', 'central'), new SpaceRef('b', 'dts', 'distributed'), new Pid('b', 7)]);
      assert.deepEqual(mesh.log.filter(([kind]) => kind === 'request').map(([, to, v]) => [to, [...v.slice(0, 4), [...v[4]].sort()]]), [['b', [36, 'tab', false, [7], ['jobs', 'named']]]]);
      mesh.log.length = 0;
      dist.send(new Pid('tab', 1), [new SpaceRef('b', 'jobs', 'local'), new SpaceRef(node.id, 'mine', 'local')]);
      assert.deepEqual(mesh.log.map(([kind]) => kind), ['send'], 'a space told before, and one of this node, are not vouched for');
      // the holder: a Linda operation of the peer on a local space not given is held
      declareSpace(node, 'held', 'local');
      declareSpace(node, 'shared', 'central');
      mesh.log.length = 0;
      dist.handleFrame('tab', [30, 1, 3, 'held', 'local', encodeValue(['key']), false, []], new Uint8Array(16));
      assert.equal(dist.vouchState?.held.get('tab')?.length, 1, 'held');
      assert.deepEqual(mesh.log, [], 'not answered yet');
      assert.throws(() => dist.acceptVouch('daemon', [36, 'tab', false, [], [7], []]), /malformed VOUCH request/);
      assert.throws(() => dist.acceptVouch('daemon', [36, 'tab', false, [], ['x'.repeat(257)], []]), /malformed VOUCH request/);
      assert.equal(dist.acceptVouch('daemon', [36, 'tab', false, [], ['held', 'shared', 'absent'], []]), 1, 'only existing local spaces are recorded');
      assert.equal(dist.maySpace('tab', 'held'), true);
      assert.equal(dist.vouchState?.held.size, 0, 'the held operation was served');
      assert.deepEqual(mesh.log.map(([kind, to, v]) => [kind, to, v.slice(0, 4)]), [['send', 'tab', [31, 1, 0, false]]], 'answered: nothing there');
    } finally {
      for (const t of dist.vouchState?.timers.values() ?? []) clearTimeout(t);
      node.remote = null;
    }
  }));

test('spaces: a held Linda operation whose space is never vouched for is answered with its error after the hold', () =>
  withNode(async ({ node }) => {
    const mesh = standInMesh(async () => [true, 1, []]);
    const dist = new Distribution(node, /** @type {any} */ (mesh), { restrictedPeers: ['tab'], log: () => {} });
    try {
      declareSpace(node, 'secret', 'local');
      dist.handleFrame('tab', [30, 2, 3, 'secret', 'local', encodeValue(['key']), false, []], new Uint8Array(16));
      assert.deepEqual(mesh.log, []);
      await new Promise((r) => setTimeout(r, 1100));
      const replies = mesh.log.filter(([kind, to, v]) => kind === 'send' && to === 'tab' && v[0] === 31);
      assert.equal(replies.length, 1);
      assert.deepEqual(replies[0][2].slice(0, 3), [31, 2, 4]);
      assert.match(String(replies[0][2][3]), /^rdp: tab is a restricted peer and the space secret was not given to it$/);
    } finally {
      for (const t of dist.vouchState?.timers.values() ?? []) clearTimeout(t);
      node.remote = null;
    }
  }));

test('a local ! to a process of a restricted peer vouches for the pids of third nodes in it, unless the sender is that peer\'s or another restricted peer\'s', () =>
  withNode(async ({ node, run }) => {
    const mesh = standInMesh(async () => [true, 1, []]);
    const dist = new Distribution(node, /** @type {any} */ (mesh), { restrictedPeers: ['tab', 'tab2'] });
    try {
      const sinkThunk = await run("(lambda () (recv (('never-sent) #t)))"); // keeps what it gets: its pattern takes nothing
      const relayThunk = await run('(lambda () (let ((m (?))) (! (car m) (cdr m))))');
      assert.ok(sinkThunk.ok && relayThunk.ok, `${sinkThunk.message} ${relayThunk.message}`);
      const sink = node.spawn(sinkThunk.value, { peer: 'tab' }); // a process the tab spawned here
      const ofNode = node.spawn(relayThunk.value); // a process of this node
      const ofTab = node.spawn(relayThunk.value, { peer: 'tab' }); // another of the tab's
      const ofTab2 = node.spawn(relayThunk.value, { peer: 'tab2' }); // one of another restricted peer
      node.deliver(ofNode, arrayToList([sink.pid, new Pid('b', 7)]));
      node.deliver(ofTab, arrayToList([sink.pid, new Pid('b', 8)]));
      node.deliver(ofTab2, arrayToList([sink.pid, new Pid('b', 9)]));
      for (let i = 0; i < 200 && node.core.mailboxSize(sink.cpid) < 3; i++) await new Promise((r) => setTimeout(r, 10));
      assert.equal(node.core.mailboxSize(sink.cpid), 3, 'all three delivered');
      assert.deepEqual(mesh.log.map(([kind, to, v]) => [kind, to, v.slice(0, 4)]), [['request', 'b', [36, 'tab', false, [7]]]], 'only what a process not the tab\'s wrote');
    } finally {
      node.remote = null;
    }
  }));
