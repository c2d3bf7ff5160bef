// @ts-check
/**
 * Which OS user is at the other end of a loopback connection: what lets the daemon keep
 * its dashboard (the page that holds the dashboard secret) and its REPL to the user it
 * runs as, on a machine other users share.
 *
 * On Linux the kernel lists every TCP socket with its owner's uid in /proc/net/tcp and
 * /proc/net/tcp6; the client's socket of a loopback connection is the one whose local
 * end is the connection's remote end and whose remote end is ours. Elsewhere (no such
 * files) the owner cannot be known, and the answer says so.
 *
 * Invariants: only loopback connections are looked up (another machine's users are not
 * this machine's); only for the routes that need it (GET /, POST /api/eval), never on a
 * hot path; once per connection (the answer is kept with the socket); the kernel's
 * tables are read by one read at a time, and the lookups that arrive during a read
 * share the next one, so a flood of requests costs at most two reads in a row, not one
 * each; a read is indexed once (the ends of each established socket → its line), and a
 * lookup is then one map access, whatever the number of lookups. A
 * connection that cannot be found (it closed meanwhile) has no owner, which is not the
 * daemon's user.
 */
import { readFile } from 'node:fs/promises';
import { endianness } from 'node:os';
import { isIPv4 } from 'node:net';

/**
 * @typedef {{kind: 'remote'} | {kind: 'unknown', why: string} | {kind: 'user', uid: number|null}} PeerUser
 *   remote: not a loopback connection; unknown: this system does not say; user: the uid
 *   owning the client's socket (null: no such socket any more)
 */

/** @type {WeakMap<import('node:net').Socket, Promise<PeerUser>>} per connection */
const known = new WeakMap();

/**
 * The OS user of the client of a loopback TCP connection.
 * @param {import('node:net').Socket} socket the server's side
 * @returns {Promise<PeerUser>}
 */
export function peerUser(socket) {
  let p = known.get(socket);
  if (p === undefined) {
    p = lookUp(socket);
    known.set(socket, p);
  }
  return p;
}

/** @param {import('node:net').Socket} socket @returns {Promise<PeerUser>} */
async function lookUp(socket) {
  const remote = plainAddress(socket.remoteAddress ?? '');
  const local = plainAddress(socket.localAddress ?? '');
  if (!isLoopback(remote)) return { kind: 'remote' };
  let sockets;
  try {
    sockets = await freshTables();
  } catch (e) {
    return { kind: 'unknown', why: `no /proc/net/tcp (${/** @type {NodeJS.ErrnoException} */ (e).code ?? e})` };
  }
  // the client's socket: local end = the connection's remote end, remote end = ours
  const mine = kernelAddresses(remote);
  const ours = kernelAddresses(local);
  for (let i = 0; i < mine.length && i < ours.length; i++) {
    const uid = sockets.uid(`${mine[i]}:${hexPort(socket.remotePort)} ${ours[i]}:${hexPort(socket.localPort)}`);
    if (uid !== null) return { kind: 'user', uid };
  }
  return { kind: 'user', uid: null };
}

/**
 * The established sockets of one read of the kernel's tables, by their two ends as the
 * tables write them.
 */
class SocketIndex {
  /** @param {string[]} tables */
  constructor(tables) {
    this.tables = tables;
    /** @type {Map<string, [number, number]>} "LOCAL:PORT REMOTE:PORT" → [table, offset of what follows the state] */
    this.ends = new Map();
    tables.forEach((table, t) => {
      // each line: "  sl: LOCAL:PORT REMOTE:PORT ST ..."
      for (let at = table.indexOf('\n') + 1; at > 0 && at < table.length; at = table.indexOf('\n', at) + 1) {
        const start = table.indexOf(': ', at) + 2;
        const space = table.indexOf(' ', table.indexOf(' ', start) + 1);
        if (start < 2 || space < 0 || table.charCodeAt(space + 1) !== 48 || table.charCodeAt(space + 2) !== 49) continue; // state 01: established
        this.ends.set(table.slice(start, space), [t, space + 3]);
      }
    });
  }

  /** The uid owning the socket with these ends, or null. @param {string} key */
  uid(key) {
    const hit = this.ends.get(key);
    if (hit === undefined) return null;
    const table = this.tables[hit[0]];
    const end = table.indexOf('\n', hit[1]);
    // after the state: tx:rx tr:when retrnsmt uid
    const uid = Number(table.slice(hit[1], end < 0 ? undefined : end).trim().split(/\s+/)[3]);
    return Number.isInteger(uid) ? uid : null;
  }
}

/** @type {Promise<SocketIndex>|null} the read in progress */
let reading = null;
/** @type {Promise<SocketIndex>|null} the read that starts when that one ends */
let queued = null;

/**
 * The kernel's socket tables, read after this call: the read in progress began too
 * early for a connection that may be newer, so a caller during it waits for the next.
 * @returns {Promise<SocketIndex>}
 */
function freshTables() {
  if (reading === null) {
    reading = readTables().finally(() => (reading = null));
    return reading;
  }
  queued ??= reading.catch(() => {}).then(() => {
    queued = null;
    return freshTables();
  });
  return queued;
}

async function readTables() {
  const tables = await Promise.all([readFile('/proc/net/tcp', 'latin1'), readFile('/proc/net/tcp6', 'latin1').catch(() => '')]);
  return new SocketIndex(tables);
}

/** An IPv4-mapped IPv6 address as IPv4; others as they are. @param {string} a */
function plainAddress(a) {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(a);
  return m ? m[1] : a;
}

/** @param {string} a */
function isLoopback(a) {
  return (isIPv4(a) && a.startsWith('127.')) || a === '::1';
}

/**
 * How the kernel writes an address in /proc/net/tcp{,6}: each 32-bit word as the
 * machine holds it, in upper-case hex. An IPv4 address is written plain (tcp), or
 * mapped (tcp6: a socket of the IPv6 family); both ends of a socket are written alike.
 * @param {string} a an IPv4 address or ::1
 * @returns {string[]} [plain, mapped] for IPv4, [::1] for ::1
 */
function kernelAddresses(a) {
  if (a === '::1') return [words([...new Array(15).fill(0), 1])];
  if (!isIPv4(a)) return [];
  const v4 = a.split('.').map(Number);
  return [words(v4), words([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...v4])];
}

/** @param {number[]} bytes 4 or 16 */
function words(bytes) {
  let out = '';
  for (let i = 0; i < bytes.length; i += 4) {
    const w = bytes.slice(i, i + 4);
    if (endianness() === 'LE') w.reverse();
    out += w.map((b) => b.toString(16).padStart(2, '0')).join('');
  }
  return out.toUpperCase();
}

/** @param {number|undefined} port */
function hexPort(port) {
  return (port ?? 0).toString(16).toUpperCase().padStart(4, '0');
}
