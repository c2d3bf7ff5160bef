// @ts-check
/**
 * What distribution says to other nodes: the types of its frames and requests, their
 * shapes, and the shape of an answer. Every payload is a vector encoded with the value
 * codec (docs/wire-format.md), its last item the list of program environments its
 * procedures come from, [[environment-id version] ...] (docs/mesh.md, "Termite over the
 * mesh"); the frame lengths below count it.
 *
 *   one-way frames (mesh.send; one-way-frames.js):
 *     SEND   [1, pid-node, pid-n, message]      deliver to a process (forwarded if it moved)
 *     SIGNAL [2, pid-node, pid-n, payload]      an exit signal from a linked process
 *     LINK   [3, from-node, from-n, to]         `from` gets an outbound link to `to`
 *     UNLINK [4, from-node, from-n, to]
 *     KILL   [5, pid-node, pid-n]               terminate!
 *     MOVED  [6, pid-node, pid-n, node-id]      the process now lives on node-id
 *     GONE   [7, pid-node, pid-n]               the process ended: drop forwarding entries
 *     ERROR  [8, message]                       a frame from the receiver was refused (undecodable, malformed,
 *                                               unknown type, code it named unobtainable); logged, never answered
 *     EXITED [9, to-node, to-n, from]          `from`, linked to `to`, returned normally: only a monitor's
 *                                               relay takes it (a normal end kills no linked process)
 *     AS     [10, owner, browser?, frame]         `frame` (one of the above, without its environment
 *                                               list, or a SPACE_OP) sent by a process of the
 *                                               restricted peer `owner` (browser?: it joined from a
 *                                               browser): the receiver checks it as if `owner` sent it
 *                                               (capabilities.js)
 *     HOP    [13, notice-pid, notice, state]    a process moving here one way (a messenger's hop); `state` is
 *                                               the encoding of [process-state envs]; if it cannot be taken,
 *                                               `notice` goes to `notice-pid` (#f: none): one-way-migration.js
 *     SPACE_OP, SPACE_REPLY, SPACE_ACK, SPACE_CANCEL [30..33, ...]  operations on tuple spaces held by other
 *                                               nodes: ../linda/remote-spaces.js has their shapes
 *   requests (mesh.request; remote-requests.js), answered [#t value versions] or [#f error-message versions]:
 *     SPAWN   [20, thunk, params, link-to]      remote-spawn: start a process, answer its pid
 *     MIGRATE [21, process-state]               take over a running process
 *     CODE    [22, unit-hash]                   the IR of a unit (code on demand)
 *     ENV     [23, environment-id]              the global definitions of an environment
 *     SERVICE [24, name]                        a published service's pid
 *     STATS   [25]                              the node's snapshot (JSON text) for dashboards
 *     EVAL    [26, text]                        evaluate Scheme text in the node's REPL environment
 *                                               (JSON text: {ok, outputs}); only for nodes that
 *                                               enable it (the daemon's dashboard)
 *     AS      [27, owner, browser?, request]    a SPAWN, MIGRATE or SERVICE made by a process of the
 *                                               restricted peer `owner`, checked as if `owner` asked
 *     LIB     [28, key]                         the signed record of library key "(foo bar)@1.2"
 *                                               ([key, unit hash, requires, public key, signature])
 *     VOUCH   [36, peer, browser?, serials]     "I gave these pids of yours to the restricted peer `peer`":
 *                                               recorded as given to it (vouching.js); answered with how many
 *
 * Invariants: the numbers are the wire format (other nodes and e2e tests use them); a
 * SEND frame written by sendHeadBytes + message + NO_ENVS_BYTES is byte for byte the
 * frame the general encoder writes (packages/runtime/test/send-frames.test.js).
 */
import { CborWriter, CodecError } from '@termite/scheme/internal';

export const F_SEND = 1, F_SIGNAL = 2, F_LINK = 3, F_UNLINK = 4, F_KILL = 5, F_MOVED = 6, F_GONE = 7, F_ERROR = 8, F_EXITED = 9, F_AS = 10;
export const F_HOP = 13;
/** Frame names (for messages) and their lengths on the wire (the environment versions included). */
export const FRAMES = [null, ['SEND', 5], ['SIGNAL', 5], ['LINK', 5], ['UNLINK', 5], ['KILL', 4], ['MOVED', 5], ['GONE', 4], null, ['EXITED', 5]];
/** The environment list of a frame with no procedure in it (encode's small path). */
export const NO_ENVS = /** @type {any[]} */ (/** @type {unknown} */ (Object.freeze([])));
export const R_SPAWN = 20, R_MIGRATE = 21, R_CODE = 22, R_ENV = 23, R_SERVICE = 24, R_STATS = 25, R_EVAL = 26, R_AS = 27, R_LIB = 28, R_WHERE = 29, R_VOUCH = 36;

/** The encoding of NO_ENVS, the last item of a SEND frame with no procedure in it. */
export const NO_ENVS_BYTES = new Uint8Array([0x80]);
/** How many pids' SEND heads a node keeps (a direct-mapped cache, by serial). */
export const SEND_HEADS = 64;

/**
 * The start of a SEND frame to `pid` as encodeSmallValue writes it: the head of an array
 * of 5, then its first three items (the type, the node id, the serial). Null when the
 * serial is not below 2^32 (deliverLocalSend reads no larger one; the frame is then
 * encoded whole).
 * @param {import('../termite-values.js').Pid} pid
 */
export function sendHeadBytes(pid) {
  if (!Number.isSafeInteger(pid.n) || pid.n < 0 || pid.n >= 2 ** 32) return null;
  const w = new CborWriter(64);
  w.array(5);
  w.int(F_SEND);
  w.text(pid.node);
  w.int(pid.n);
  return w.bytes();
}

/** decodeReady's result when the value cannot be decoded yet. */
export const NOT_READY = Symbol('not ready');

/**
 * The value of an answer [ok, value or reason, versions]; a refusal throws its reason,
 * with `kind` set when the answer names the kind of the Scheme condition that refused
 * it ([false, reason, versions, kind]: remote-requests.js, refusedRequest).
 * @param {unknown} r
 */
export function answerValue(r) {
  if (!Array.isArray(r) || r.length < 3 || r.length > 4) throw new CodecError('malformed answer');
  if (r[0] === true) return r[1];
  const refusal = new Error(String(r[1]));
  if (typeof r[3] === 'string') /** @type {any} */ (refusal).kind = r[3];
  throw refusal;
}

/** The key of a pid in distribution's maps (location, forwarding, watchers). @param {string} node @param {number} n */
export const key = (node, n) => `${node}/${n}`;

/** The pid a key names, as [node, serial]. @param {string} k */
export function splitKey(k) {
  const i = k.lastIndexOf('/');
  return /** @type {[string, number]} */ ([k.slice(0, i), Number(k.slice(i + 1))]);
}
