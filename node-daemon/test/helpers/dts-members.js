// @ts-check
/**
 * Raw peers as members of a daemon's distributed space, for the tests that count the DTS
 * frames a daemon sends (linda-distributed-ownership, linda-distributed-sharing): the
 * DTS message numbers, a peer's join of a space, a Scheme program run on the daemon
 * through a node joined to it, and the template bytes and frame filter those tests use.
 * Every wait is bounded; the caller stops the peers it is given (`peers`).
 */
import assert from 'node:assert/strict';
import { encodeValue } from '@termite/scheme';
import { runProgram } from './daemons.js';
import { hostilePeer } from './peer.js';

export const DTS = 34;
export const D = { OUT: 1, IN: 2, CHOWN_REQ: 4, CHOWN_ACK: 5, DELETE: 6, REPAIR_REQ: 8, REPAIR_ACK: 9 };

/**
 * A raw peer of daemon `d` joined to its distributed space `name`, with its join's
 * REPAIR_ACK; the peer is pushed on `peers` (for the caller to stop).
 * @param {import('./daemons.js').Daemon} d @param {string} token @param {string} name
 * @param {Array<Awaited<ReturnType<typeof hostilePeer>>>} peers @param {any} [init] hostilePeer's
 */
export async function joinMember(d, token, name, peers, init = {}) {
  const p = await hostilePeer(d, token, init);
  peers.push(p);
  const mark = p.frames.length;
  p.send([DTS, D.REPAIR_REQ, name, true, []]);
  const ack = await p.frame((f) => p.frames.indexOf(f) >= mark && f[0] === DTS && f[1] === D.REPAIR_ACK && f[2] === name && f[6] === true, `the join of ${name}`);
  return { p, ack };
}

/**
 * Run Scheme on daemon `d` (through a node joined to it, `d` bound to the daemon's node
 * and `show` printing its arguments); its printed lines.
 * @param {import('./daemons.js').Daemon} d @param {string} token @param {string} body
 */
export async function onDaemon(d, token, body) {
  const r = await runProgram(`(define d (make-node "127.0.0.1" ${d.port}))
(define (show . xs) (write xs) (newline))
${body}`, { token, join: [d.url], timeoutMs: 30000 });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  return r.stdout;
}

/** The bytes of the template ("task" ?integer): an actual string, then the formal of type code 1 (tag 40992). */
export function taskTemplate() {
  const actual = encodeValue(['task', 0], { stringsAsText: true });
  return Uint8Array.from([...actual.subarray(0, actual.length - 1), 0xd9, 0xa0, 0x20, 0x01]);
}

/**
 * The DTS frames of `kind` for space `name` that `p` received since `mark`.
 * @param {any} p @param {number} mark @param {number} kind @param {string} name
 */
export const dtsFramesSince = (p, mark, kind, name) => p.frames.slice(mark).filter((/** @type {any} */ f) => f[0] === DTS && f[1] === kind && f[2] === name);
