// @ts-check
/**
 * An unauthenticated client at the HTTP/WebSocket level, on raw node:net sockets: an
 * upgrade request with the headers a test chooses, then nothing (no HELLO). `flood`
 * keeps a number of such connections open, reopening each as soon as the daemon closes
 * it (bounded: a cap on openings), and records how long each lived.
 *
 * Run as a program (`node raw-upgrade.js --flood PORT SLOTS MAX_OPENS`), it floods from a
 * process of its own, as an attacker would: it prints `ready` once SLOTS connections
 * were opened and the first were closed, and on a `stop` line on stdin prints one JSON
 * line `{opens, closed, longest, ages}` (ages: how old the connections still open were)
 * and exits. Without `--flood` (as `node --test` runs every file under test/) it does nothing.
 */
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

/**
 * @typedef {object} Upgraded
 * @property {number} status 101, or the refusal's status
 * @property {string} body the refusal's body
 * @property {number} openedAt
 * @property {Promise<{at: number, byDaemon: boolean}>} closed when the daemon sent its close frame or the socket ended
 * @property {net.Socket} socket
 */

/**
 * Open a TCP connection, send a WebSocket upgrade request, and then nothing.
 * @param {number} port @param {Record<string, string>} [headers]
 * @returns {Promise<Upgraded>}
 */
export function rawUpgrade(port, headers = {}) {
  const socket = net.connect(port, '127.0.0.1');
  const lines = [`GET / HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Connection: Upgrade', 'Upgrade: websocket', 'Sec-WebSocket-Version: 13',
    `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  let buf = Buffer.alloc(0);
  /** @type {(c: {at: number, byDaemon: boolean}) => void} */
  let closedWith = () => {};
  const closed = new Promise((r) => { closedWith = r; });
  return new Promise((resolve, reject) => {
    /** @type {Upgraded | null} */
    let up = null;
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      if (up === null) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const status = Number(/^HTTP\/1\.1 (\d+)/.exec(buf.subarray(0, end).toString())?.[1]);
        up = { status, body: '', openedAt: Date.now(), closed: /** @type {any} */ (closed), socket };
        buf = buf.subarray(end + 4);
        if (status === 101) resolve(up);
      }
      if (up.status !== 101) up.body = buf.toString();
      else if (hasCloseFrame(buf)) {
        closedWith({ at: Date.now(), byDaemon: true });
        socket.destroy();
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      closedWith({ at: Date.now(), byDaemon: up !== null });
      if (up === null) reject(new Error('closed before an answer'));
      else if (up.status !== 101) resolve(up);
    });
  });
}

/** Whether the unmasked server frames in buf include a close frame (opcode 8). @param {Buffer} buf */
function hasCloseFrame(buf) {
  let i = 0;
  while (i + 2 <= buf.length) {
    const opcode = buf[i] & 0x0f;
    let len = buf[i + 1] & 0x7f;
    let at = i + 2;
    if (len === 126) { if (at + 2 > buf.length) return false; len = buf.readUInt16BE(at); at += 2; }
    else if (len === 127) { if (at + 8 > buf.length) return false; len = Number(buf.readBigUInt64BE(at)); at += 8; }
    if (opcode === 8) return true;
    i = at + len;
  }
  return false;
}

/**
 * `slots` connections that upgrade and send nothing, each reopened as soon as it closes,
 * at most `maxOpens` in all.
 * @param {number} port @param {number} slots @param {number} maxOpens
 */
export function flood(port, slots, maxOpens) {
  let stopped = false;
  let opens = 0;
  /** @type {number[]} how long each lived before the daemon closed it */
  const lifetimes = [];
  /** @type {Set<Upgraded>} */
  const live = new Set();
  const slot = async () => {
    while (!stopped && opens < maxOpens) {
      opens++;
      const u = await rawUpgrade(port).catch(() => null);
      if (!u) continue;
      live.add(u);
      const c = await u.closed;
      live.delete(u);
      if (c.byDaemon && !stopped) lifetimes.push(c.at - u.openedAt);
    }
  };
  const running = Promise.all(Array.from({ length: slots }, slot));
  return {
    lifetimes, live, opens: () => opens,
    async stop() {
      stopped = true;
      const ages = [...live].map((u) => Date.now() - u.openedAt);
      for (const u of live) u.socket.destroy();
      await running;
      return ages;
    },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === '--flood') {
  const [port, slots, maxOpens] = process.argv.slice(3).map(Number);
  const f = flood(port, slots, maxOpens);
  const ready = setInterval(() => {
    if (f.opens() <= slots || f.lifetimes.length === 0) return;
    clearInterval(ready);
    process.stdout.write('ready\n');
  }, 10);
  createInterface({ input: process.stdin }).on('line', async (line) => {
    if (line !== 'stop') return;
    clearInterval(ready);
    const ages = await f.stop();
    // a quiet machine opens 80,000 connections in a full-scale run: no spread of them into one call
    process.stdout.write(`${JSON.stringify({ opens: f.opens(), closed: f.lifetimes.length, longest: f.lifetimes.reduce((a, b) => Math.max(a, b), 0), ages })}\n`);
    process.exit(0);
  });
}
