// @ts-check
/**
 * The table of inbound handshakes in progress, and who gets a place in it when it is
 * full (docs/mesh.md §3, "Handshakes an unauthenticated client cannot exhaust").
 *
 * An unauthenticated client can open connections and never finish their handshakes;
 * each holds a place until its deadline. This table keeps such clients from locking
 * out a peer that does know the token:
 *
 * - a share of `maxHandshakesPerAddress` places for one remote address (an IP; an IPv6
 *   address counts by its /64, which one holder owns) and `maxHandshakes` in all;
 * - when a new connection finds its address's share or the whole table full, the
 *   oldest place that can be taken back is: first one whose peer has not sent a HELLO
 *   yet, else one whose peer has not proven the token yet; a handshake whose peer has
 *   proven the token is never evicted;
 * - a place is not taken back in its first `handshakeGraceMs` (the time a dialler
 *   needs to read the 101 and send its HELLO, which a loaded machine stretches): while
 *   every candidate is that young the new connection is placed beyond the share, up to
 *   OVERFLOW times it (and times `maxHandshakes`); only there is a young place taken
 *   back, and only if nothing can be is the new connection refused. A dialler that
 *   sends its HELLO at once (every mesh node does) is therefore never evicted by idle
 *   connections, and by nothing at all unless OVERFLOW × `maxHandshakesPerAddress`
 *   newer connections from its address arrive before its HELLO does.
 *
 * Invariants: an entry is in the table from `claim` until `release` (idempotent); the
 * per-address counts are the number of entries of each key, at most OVERFLOW times
 * the share (the total at most OVERFLOW × maxHandshakes); entries are in the order of
 * their `since`; `claim` evicts at most one entry (aborting its controller with an
 * AdmissionError) before it adds the new one. Evictions and refusals under a flood are
 * logged as one summary line at most every SUMMARY_MS, not one line per connection (a
 * flood must not become a log flood).
 */
import { AdmissionError } from './errors.js';

/** The stages of an inbound handshake, as far as eviction cares. */
export const STAGE_WAITING = 0; // no frame from the peer yet
export const STAGE_HELLO = 1; // the peer sent a well-formed HELLO
export const STAGE_PROVEN = 2; // the peer proved the token and its key

/** Minimum time between two summary lines of a flood. */
const SUMMARY_MS = 10_000;
/** How many times its share (and the table its size) an address may hold while every candidate is in its grace. */
export const OVERFLOW = 4;
/** The grace of a new place when the options give none (ms), at most half the HELLO deadline. */
export const GRACE_MS = 1000;

/**
 * @typedef {object} HandshakeEntry
 * @property {import('./interfaces.js').Connection} conn
 * @property {string} key the address it counts against
 * @property {number} stage STAGE_WAITING, STAGE_HELLO or STAGE_PROVEN
 * @property {number} since when it arrived (performance.now(), ms)
 * @property {AbortController} controller aborted (with the reason) to evict it
 */

export class HandshakeTable {
  /** @type {Map<import('./interfaces.js').Connection, HandshakeEntry>} insertion order = age */
  #entries = new Map();
  /** @type {Map<string, number>} */
  #perAddress = new Map();
  #counts = { evicted: 0, refused: 0, helloTimeouts: 0 };
  #lastSummary = -Infinity;

  /**
   * @param {{maxHandshakes: number, maxHandshakesPerAddress: number, helloTimeoutMs?: number, handshakeGraceMs?: number}} limits
   * @param {import('./logger.js').Logger} logger
   */
  constructor(limits, logger) {
    this.limits = limits;
    this.logger = logger;
    /** a new place's grace (ms) */
    this.graceMs = limits.handshakeGraceMs ?? Math.min(GRACE_MS, (limits.helloTimeoutMs ?? 2 * GRACE_MS) / 2);
  }

  get size() {
    return this.#entries.size;
  }

  /**
   * Find a place for a new inbound connection, evicting one if need be.
   * @param {import('./interfaces.js').Connection} conn
   * @returns {HandshakeEntry | string} the entry, or why the connection is refused
   */
  claim(conn) {
    const key = addressKey(conn);
    const now = performance.now();
    const { maxHandshakes, maxHandshakesPerAddress } = this.limits;
    const mine = this.#perAddress.get(key) ?? 0;
    const total = this.#entries.size;
    if (mine >= maxHandshakesPerAddress || total >= maxHandshakes) {
      // first a place past its grace, within the share that is full
      const scope = mine >= maxHandshakesPerAddress ? key : null;
      let victim = this.#oldestEvictable(scope, now - this.graceMs);
      let what = scope === null ? `all ${maxHandshakes} handshake places are taken` : `${maxHandshakesPerAddress} handshakes from ${key} are in progress`;
      const overMine = mine >= maxHandshakesPerAddress * OVERFLOW;
      if (victim === null && (overMine || total >= maxHandshakes * OVERFLOW)) {
        // every candidate is young, and the overflow is full too: the oldest young one goes
        victim = this.#oldestEvictable(overMine ? key : null, Infinity);
        what = overMine ? `${mine} handshakes from ${key} are in progress, all started within ${this.graceMs} ms` : `all ${total} handshake places are taken, all within ${this.graceMs} ms`;
        if (victim === null) {
          this.#note('refused', { address: conn.remoteAddress, reason: what });
          return `no place can be taken back: ${what}`;
        }
      }
      if (victim !== null) this.#evict(victim, what, now);
    }
    /** @type {HandshakeEntry} */
    const entry = { conn, key, stage: STAGE_WAITING, since: now, controller: new AbortController() };
    this.#entries.set(conn, entry);
    this.#perAddress.set(key, (this.#perAddress.get(key) ?? 0) + 1);
    return entry;
  }

  /** Take a place back: abort its handshake with the reason. @param {HandshakeEntry} victim @param {string} what @param {number} now */
  #evict(victim, what, now) {
    this.release(victim.conn);
    const ageMs = Math.round(now - victim.since);
    const err = new AdmissionError('too many handshakes',
      `evicted after ${ageMs} ms ${victim.stage === STAGE_WAITING ? 'without a HELLO' : 'without proof of the token'}: ${what}`);
    err.quiet = true;
    victim.controller.abort(err);
    this.#note('evicted', { address: victim.conn.remoteAddress, reason: what });
  }

  /** @param {import('./interfaces.js').Connection} conn @param {number} stage */
  advance(conn, stage) {
    const e = this.#entries.get(conn);
    if (e && stage > e.stage) e.stage = stage;
  }

  /** Free the connection's place (idempotent). @param {import('./interfaces.js').Connection} conn */
  release(conn) {
    const e = this.#entries.get(conn);
    if (!e) return;
    this.#entries.delete(conn);
    const n = (this.#perAddress.get(e.key) ?? 1) - 1;
    if (n > 0) this.#perAddress.set(e.key, n);
    else this.#perAddress.delete(e.key);
  }

  /** A connection that sent nothing before the HELLO deadline (counted into the summary). @param {string} address */
  helloTimeout(address) {
    this.#note('helloTimeouts', { address, reason: 'no HELLO before the deadline' });
  }

  /**
   * The oldest entry (of `key`, or of any address when null) that arrived at or before
   * `before` and may be evicted: one still waiting for its HELLO, else one whose peer
   * has not proven the token.
   * @param {string | null} key @param {number} before
   */
  #oldestEvictable(key, before) {
    /** @type {HandshakeEntry | null} */
    let unproven = null;
    for (const e of this.#entries.values()) {
      if (e.since > before) break; // in arrival order: the rest are younger
      if (key !== null && e.key !== key) continue;
      if (e.stage === STAGE_WAITING) return e;
      if (e.stage === STAGE_HELLO && unproven === null) unproven = e;
    }
    return unproven;
  }

  /**
   * Count an event of a flood; log the first at once, then one summary per SUMMARY_MS.
   * @param {'evicted' | 'refused' | 'helloTimeouts'} what @param {{address: string, reason: string}} last
   */
  #note(what, last) {
    this.#counts[what]++;
    const now = Date.now();
    if (now - this.#lastSummary < SUMMARY_MS) return;
    this.#lastSummary = now;
    this.logger.warn('handshakes refused or evicted (an unauthenticated client may be holding connections open)', {
      ...this.#counts, inProgress: this.#entries.size, sinceMs: SUMMARY_MS, last,
    });
    this.#counts = { evicted: 0, refused: 0, helloTimeouts: 0 };
  }
}

/**
 * The address a connection counts against: its IP without the port (IPv4-mapped IPv6
 * as IPv4, IPv6 by its first four groups, the /64 one holder gets), or its whole
 * printable address for other transports (a WebRTC connection names the peer node).
 * @param {import('./interfaces.js').Connection} conn
 */
export function addressKey(conn) {
  if (conn.transport === 'webrtc') return conn.remoteAddress;
  const colon = conn.remoteAddress.lastIndexOf(':');
  const ip = (colon > 0 ? conn.remoteAddress.slice(0, colon) : conn.remoteAddress).toLowerCase();
  if (ip.startsWith('::ffff:') && ip.includes('.')) return ip.slice(7);
  if (!ip.includes(':')) return ip;
  return `${ipv6Groups(ip).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address (without a zone), `::` expanded. @param {string} ip */
function ipv6Groups(ip) {
  const bare = ip.split('%')[0];
  const [head, tail] = bare.includes('::') ? bare.split('::') : [bare, null];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const fill = tail === null ? [] : new Array(Math.max(0, 8 - h.length - t.length)).fill('0');
  return [...h, ...fill, ...t].map((g) => g.replace(/^0+(?=.)/, ''));
}
