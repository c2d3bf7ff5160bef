// @ts-check
/**
 * One set-up for the tests of tabs that reach a second daemon through their own
 * (restricted-routes, restricted-vouching, restricted-vouching-more): two real daemons A
 * and B, B joined to A and, unless told otherwise, letting pages of A's origin open its
 * mesh WebSocket (so a tab of A may link to B directly); tabs are Node mesh peers whose
 * upgrades carry A's `Origin`. If B fails to start, A is stopped. Also what they spawn
 * on a daemon through a peer (an echo server, a process that hands a pid to a tab).
 */
import assert from 'node:assert/strict';
import { decodeValue, writeString } from '@termite/scheme';
import { Pid } from '@termite/runtime';
import { startDaemon, waitFor } from './daemons.js';
import { hostilePeer, unitOf, closureRef, F, R } from './peer.js';

/**
 * Start A, then B joined to A.
 * @param {string} token @param {{allowOriginOfA?: boolean}} [opts]
 * @returns {Promise<{a: import('./daemons.js').Daemon, b: import('./daemons.js').Daemon, origin: string, tabOfA: () => ReturnType<typeof hostilePeer>}>}
 */
export async function startDaemonPair(token, opts = {}) {
  const a = await startDaemon({ token });
  const origin = `http://127.0.0.1:${a.port}`;
  let b;
  try {
    b = await startDaemon({ token, join: [a.url], args: opts.allowOriginOfA === false ? [] : ['--allow-origin', origin] });
  } catch (e) {
    await a.stop('SIGKILL');
    throw e;
  }
  return { a, b, origin, tabOfA: () => hostilePeer(a, token, { websocket: { origin } }) };
}

/**
 * The frames `who` gets from node `fromId`, decoded (a frame that does not decode is
 * kept as ['undecodable', reason]), in a list that grows as they come.
 * @param {Awaited<ReturnType<typeof hostilePeer>>} who @param {string} fromId @returns {any[]}
 */
export function framesFrom(who, fromId) {
  /** @type {any[]} */
  const into = [];
  who.mesh.onMessage((from, payload) => {
    if (from !== fromId) return;
    try {
      into.push(decodeValue(payload, { resolveCode: () => ({ lams: [], lamsByName: new Map() }) }));
    } catch (e) {
      into.push(['undecodable', String(e)]);
    }
  });
  return into;
}

/**
 * Wait (bounded) for a frame in `list` that `pred` accepts, and return it.
 * @param {any[]} list @param {(f: any) => boolean} pred @param {string} what @param {number} [ms]
 */
export async function frameIn(list, pred, what, ms = 10_000) {
  await waitFor(() => list.some(pred), ms, what);
  return list.find(pred);
}

// an echo server: it sends its pid to `to`, then answers each #(reply-to text) with (echo text)
export const ECHO = unitOf('(lambda (to) (lambda () (! to (self)) (let loop () (let ((m (?))) (! (vector-ref m 0) (list \'echo (vector-ref m 1))) (loop)))))');
// a process that hands `pid` (or a space) to `to`: #(to pid)
export const PASS = unitOf('(lambda (v) (lambda () (! (vector-ref v 0) (list \'given (vector-ref v 1)))))');

/** @typedef {Awaited<ReturnType<typeof hostilePeer>>} Peer */

/**
 * Spawning on a daemon through a peer of it, each spawn in an environment of its own
 * (named `TAG-env-N`, so that files running at once never share one).
 * @param {string} tag
 */
export function peerSpawner(tag) {
  let envs = 0;
  const nextEnv = () => `${tag}-env-${++envs}`;
  /** `who` spawns `unit` on its daemon with the free value `fv`; resolves with the pid. @param {Peer} who @param {typeof ECHO} unit @param {any} fv */
  async function spawnOn(who, unit, fv) {
    who.units.set(unit.hash, ['unit', unit.data, false]);
    const answer = await who.request([R.SPAWN, closureRef(unit.hash, nextEnv(), unit.lambdas.findIndex((l) => l.nfree === 1), [fv]), null, false, []]);
    assert.equal(answer[0], true, String(answer[1]));
    return /** @type {Pid} */ (answer[1]);
  }
  /** An echo server on `who`'s daemon, spawned by `who`. @param {Peer} who */
  const echoOn = (who) => spawnOn(who, ECHO, new Pid(who.id, 1000 + ++envs));
  /**
   * A process of `giver`'s daemon gives `tab` the value `x` (in a SEND to its process
   * `n`); resolves once the tab has it. @param {Peer} giver @param {Peer} tab @param {any} x @param {number} n
   */
  async function give(giver, tab, x, n) {
    await spawnOn(giver, PASS, [new Pid(tab.id, n), x]);
    await tab.frame((f) => f[0] === F.SEND && f[2] === n && writeString(f[3]).startsWith('(given '), 'what the daemon passes on');
  }
  return { spawnOn, echoOn, give, nextEnv };
}
