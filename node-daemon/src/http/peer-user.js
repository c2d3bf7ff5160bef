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
 * this machine's); the files are read only when a route that needs it is asked for
 * (GET /, POST /api/eval), never on a hot path; a connection that cannot be found (it
 * closed meanwhile) has no owner, which is not the daemon's user.
 */
import { readFile } from 'node:fs/promises';
import { endianness } from 'node:os';
import { isIPv4 } from 'node:net';

/**
 * @typedef {{kind: 'remote'} | {kind: 'unknown', why: string} | {kind: 'user', uid: number|null}} PeerUser
 *   remote: not a loopback connection; unknown: this system does not say; user: the uid
 *   owning the client's socket (null: no such socket any more)
 */

/**
 * The OS user of the client of a loopback TCP connection.
 * @param {import('node:net').Socket} socket the server's side
 * @returns {Promise<PeerUser>}
 */
export async function peerUser(socket) {
  const remote = plainAddress(socket.remoteAddress ?? '');
  const local = plainAddress(socket.localAddress ?? '');
  if (!isLoopback(remote)) return { kind: 'remote' };
  let tables;
  try {
    tables = await Promise.all([readFile('/proc/net/tcp', 'latin1'), readFile('/proc/net/tcp6', 'latin1').catch(() => '')]);
  } catch (e) {
    return { kind: 'unknown', why: `no /proc/net/tcp (${/** @type {NodeJS.ErrnoException} */ (e).code ?? e})` };
  }
  // the client's socket: local end = the connection's remote end, remote end = ours
  const want = {
    local: new Set(kernelAddresses(remote).map((a) => `${a}:${hexPort(socket.remotePort)}`)),
    remote: new Set(kernelAddresses(local).map((a) => `${a}:${hexPort(socket.localPort)}`)),
  };
  for (const table of tables) {
    const uid = findOwner(table, want);
    if (uid !== null) return { kind: 'user', uid };
  }
  return { kind: 'user', uid: null };
}

/**
 * The uid of the established socket of `table` with those ends, or null.
 * @param {string} table @param {{local: Set<string>, remote: Set<string>}} want
 */
function findOwner(table, want) {
  const lines = table.split('\n');
  for (let i = 1; i < lines.length; i++) {
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
    const f = lines[i].trim().split(/\s+/);
    if (f.length < 8 || f[3] !== '01') continue;
    if (want.local.has(f[1]) && want.remote.has(f[2])) return Number(f[7]);
  }
  return null;
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
 * machine holds it, in upper-case hex. An IPv4 address may also sit in tcp6, mapped.
 * @param {string} a an IPv4 address or ::1
 * @returns {string[]}
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
