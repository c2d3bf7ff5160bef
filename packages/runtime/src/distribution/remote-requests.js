// @ts-check
/**
 * Requests (frame-vocabulary.js): asking another node and answering one. A request is
 * a vector [type, ...] sent with mesh.request; its answer is [#t value versions] or
 * [#f reason versions].
 *
 * Invariants:
 *  - a request that decodes with the code at hand and needs no waiting (all but EVAL)
 *    is answered in the task its frame arrived in (`onRequest` → `answerNow`): the mesh
 *    writes the answer at once, before whatever the request started runs (a spawned or
 *    arrived process runs at the end of that task);
 *  - anything else (missing code, a stale environment copy, EVAL, LIB) goes through
 *    `onRequestAsync`, which fetches and refreshes first;
 *  - every failure is an answer with its reason (`refusedRequest`), never a throw into
 *    the mesh; EVAL is answered only for the peers in `evalPeers`;
 *  - `call` reads an answer that decodes with the code at hand in the request's own
 *    promise reaction (each further await costs the caller a microtask turn).
 *
 * These functions are Distribution's methods (`this` is the Distribution), moved here whole.
 */
import { encodeValue, CodecError } from '@termite/scheme/internal';
import { SchemeError, ErrorObject, describeError } from '@termite/scheme';
import { NotGiven } from './capabilities.js';
import { R_SPAWN, R_MIGRATE, R_CODE, R_ENV, R_SERVICE, R_STATS, R_EVAL, R_AS, R_LIB, R_WHERE, R_VOUCH, NOT_READY, answerValue } from './frame-vocabulary.js';

/** @typedef {import('../distribution.js').Distribution} Distribution */

/**
 * A request from `from`. Answered in the same task when it decodes with the code at
 * hand and its answer needs no waiting (all but R_EVAL): the mesh then writes the
 * answer at once, before whatever the request started runs (a spawned or arrived
 * process runs at the end of the task, acceptSpawn). Otherwise, or if that fails
 * for want of code, through onRequestAsync.
 * @param {string} from @param {Uint8Array} bytes
 * @returns {Uint8Array | Promise<Uint8Array>}
 * @this {Distribution}
 */
export function onRequest(from, bytes) {
  let req;
  try {
    req = this.decodeReady(bytes);
  } catch (e) {
    return this.refusedRequest(from, e);
  }
  if (req === NOT_READY || !Array.isArray(req) || req[0] === R_EVAL || req[0] === R_LIB || req[0] === R_WHERE || this.stale(req) || this.waitsForVouching(from, req)) return this.onRequestAsync(from, bytes);
  try {
    const value = this.answerNow(from, req);
    if (this.restricted.size === 0) return this.encode([true, value]);
    return this.answerRestricted(from, value);
  } catch (e) {
    if (e instanceof NotGiven && this.restricted.has(from)) return this.onRequestAsync(from, bytes); // waits for a vouch (vouching.js)
    return this.refusedRequest(from, e);
  }
}

/**
 * @param {string} from @param {Uint8Array} bytes
 * @returns {Promise<Uint8Array>}
 * @this {Distribution}
 */
export async function onRequestAsync(from, bytes) {
  const arrived = Date.now(); // a vouching wait counts from here (whereabouts.js)
  try {
    const req = await this.decodeFetching(from, bytes);
    if (!Array.isArray(req)) throw new CodecError('malformed request');
    if (this.stale(req)) await this.refresh(from, req);
    const value = await this.answer(from, req, arrived);
    if (this.restricted.size === 0) return this.encode([true, value]);
    return this.answerRestricted(from, value);
  } catch (e) {
    return this.refusedRequest(from, e);
  }
}

/**
 * The answer to a request that failed, logged. A Scheme condition (a quota's
 * `resource-limit`, a `capability` refusal) is told as Scheme prints it ("spawn: too
 * many processes …"), with its kind as a fourth element so the caller raises one of
 * the same kind; any other error by its class ("CodecError: …").
 * @param {string} from @param {unknown} e @this {Distribution}
 */
export function refusedRequest(from, e) {
  const condition = e instanceof SchemeError && e.payload instanceof ErrorObject ? e.payload : null;
  const msg = condition !== null ? describeError(condition) : e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  this.log(`request from ${from.slice(0, 12)} refused: ${msg}`);
  // the shape of every answer: [ok, value or reason, versions], and a refused condition's kind
  return encodeValue(condition !== null ? [false, msg, [], condition.kind] : [false, msg, []]);
}

/**
 * Whether a request must wait before it is answered: a MIGRATE from a restricted peer
 * that this node cannot yet place there waits for the process's birth node to vouch
 * (whereabouts.js).
 * @param {string} from @param {any[]} req
 * @this {Distribution}
 */
export function waitsForVouching(from, req) {
  return req[0] === R_MIGRATE && this.restricted.size !== 0 && this.restricted.has(from) && this.needsVouching(from, req);
}

/** @param {string} from @param {any[]} req @param {number} [arrived] when the request arrived (ms) @this {Distribution} */
export async function answer(from, req, arrived = Date.now()) {
  if (req[0] === R_LIB) return this.libraryData(String(req[1])); // a signed record waits for its signature
  if (req[0] === R_WHERE) return this.answerWhere(from, req);
  if (this.waitsForVouching(from, req)) await this.vouchMigration(from, req, arrived);
  if (req[0] !== R_EVAL) {
    try {
      return this.answerNow(from, req);
    } catch (e) {
      if (e instanceof NotGiven && this.restricted.has(from)) return this.answerAfterVouch(from, req, e); // vouching.js
      throw e;
    }
  }
  if (this.evaluate === null || !this.evalPeers.has(from)) throw new Error('this node does not evaluate code for that peer');
  return JSON.stringify(await this.evaluate(String(req[1])));
}

/**
 * An answer's encoding when some peer is restricted: what it gives `from` is recorded
 * (capabilities.js) if `from` is one.
 * @param {string} from @param {any} value
 * @this {Distribution}
 */
export function answerRestricted(from, value) {
  this.give(from, value);
  const answer = [true, value];
  const bytes = this.encode(answer);
  this.giveEnvs(from, answer);
  return bytes;
}

/** The answer to any request but R_EVAL. @param {string} from @param {any[]} req @this {Distribution} */
export function answerNow(from, req) {
  if (req[0] === R_AS) return this.answerActed(from, req); // for a restricted peer's process (capabilities.js)
  // a restricted peer may ask only for what it was given (capabilities.js)
  if (this.restricted.size !== 0 && this.restricted.has(from)) this.checkRequest(from, req);
  switch (req[0]) {
    case R_SPAWN: return this.acceptSpawn(from, req[1], req[2], req[3]);
    case R_MIGRATE: return this.acceptMigration(from, req[1]);
    case R_CODE: return this.unitData(String(req[1]));
    case R_ENV: return this.envData(String(req[1]));
    case R_STATS: return JSON.stringify(this.snapshot());
    case R_VOUCH: return this.acceptVouch(from, req); // pids of this node another gave a restricted peer (vouching.js)
    case R_SERVICE: {
      const pid = this.services.get(String(req[1]));
      if (!pid) throw new Error(`no service named ${req[1]} on this node`);
      return pid;
    }
    default: throw new Error(`unknown request type ${req[0]}`);
  }
}

/**
 * Send a request, decode the answer (fetching code it needs from the same node).
 * @param {string} to @param {any[]} req @param {boolean} [wait] see decodeFetching
 * @param {string | null} [owner] the restricted peer whose process makes it (capabilities.js, actRequest)
 * @param {number} [timeoutMs] how long to wait for the answer (the node's request timeout)
 * @this {Distribution}
 */
export function call(to, req, wait = true, owner = null, timeoutMs = undefined) {
  if (this.spaceState !== undefined && this.spaceState.held !== null) this.flushHeldOut(); // an out held back leaves first (linda/remote-spaces.js)
  let bytes;
  if (this.restricted.size !== 0) {
    this.give(to, req);
    req = this.actRequest(to, req, owner);
  }
  try {
    bytes = this.encode(req);
  } catch (e) {
    return Promise.reject(e);
  }
  if (this.restricted.size !== 0) this.giveEnvs(to, req);
  // an answer that decodes with the code at hand is read in the request's own
  // reaction: each await costs the caller a microtask turn (a remote spawn had five)
  return this.mesh.request(to, bytes, { timeoutMs: timeoutMs ?? this.timeoutMs }).then((/** @type {Uint8Array} */ answer) => {
    const r = this.decodeReady(answer);
    return r !== NOT_READY && !(wait && this.stale(r)) ? answerValue(r) : this.callSlowly(to, answer, wait);
  });
}

/** call's answer when it needs code or environments first. @param {string} to @param {Uint8Array} answer @param {boolean} wait @this {Distribution} */
export async function callSlowly(to, answer, wait) {
  const r = await this.decodeFetching(to, answer, wait);
  // the answer that brings an environment's definitions is itself newer than our copy
  // of it: refreshing before reading it would ask for the same answer again, forever
  if (wait && Array.isArray(r) && this.stale(r)) await this.refresh(to, r);
  return answerValue(r);
}
