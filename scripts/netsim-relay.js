// @ts-check
/**
 * The simulated internet's WAN links (scripts/netsim.js): a user-space TCP relay per
 * link that adds latency — and, optionally, loss — to everything crossing it, in each
 * direction. The kernel here has no netem qdisc, so delay is added here.
 *
 * Usage (run by netsim.js inside the "internet" namespace):
 *   node scripts/netsim-relay.js '[{"listen":"10.77.0.1:20001","target":"10.77.1.1:7400","delayMs":20,"lossPct":0}, ...]'
 * Prints `relay ready N` once every listener is up; runs until SIGTERM.
 *
 * Invariants:
 * - each chunk read from one side is written to the other `delayMs` later, in order: a
 *   chunk's release time is never before the previous chunk's of the same direction;
 * - loss on a byte stream cannot drop bytes (TCP would notice nothing and the stream
 *   would break), so a "lost" chunk is modelled as TCP recovers from one: delivered
 *   after an extra retransmission timeout (200 ms + 3 × delayMs), holding back the
 *   chunks behind it (head-of-line blocking);
 * - a side that closes or fails closes the other; every socket is closed on SIGTERM;
 * - memory per connection is bounded by TCP flow control: a side is paused while more
 *   than 4 MiB wait to be released toward the other.
 */
import net from 'node:net';

const MAX_PENDING = 4 * 1024 * 1024;

/** @typedef {{listen: string, target: string, delayMs: number, lossPct?: number}} LinkSpec */

/** @param {string} hp @returns {[string, number]} */
function hostPort(hp) {
  const i = hp.lastIndexOf(':');
  return [hp.slice(0, i), Number(hp.slice(i + 1))];
}

/**
 * Pipe `from` into `to` with the link's delay and loss.
 * @param {net.Socket} from @param {net.Socket} to @param {LinkSpec} spec
 */
function delayedPipe(from, to, spec) {
  let lastRelease = 0;
  let pending = 0;
  from.on('data', (chunk) => {
    const lost = (spec.lossPct ?? 0) > 0 && Math.random() * 100 < /** @type {number} */ (spec.lossPct);
    const now = performance.now();
    const at = Math.max(lastRelease, now + spec.delayMs + (lost ? 200 + 3 * spec.delayMs : 0));
    lastRelease = at;
    pending += chunk.length;
    if (pending > MAX_PENDING) from.pause();
    setTimeout(() => {
      pending -= chunk.length;
      if (!to.destroyed) to.write(chunk);
      if (pending <= MAX_PENDING && from.isPaused()) from.resume();
    }, Math.max(0, at - now));
  });
  from.on('end', () => setTimeout(() => to.end(), Math.max(0, lastRelease - performance.now())));
}

/** @param {LinkSpec} spec @param {Set<net.Socket>} sockets */
function startLink(spec, sockets) {
  const [host, port] = hostPort(spec.listen);
  const [thost, tport] = hostPort(spec.target);
  const server = net.createServer((inbound) => {
    const outbound = net.connect(tport, thost);
    for (const s of [inbound, outbound]) {
      s.setNoDelay(true);
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        inbound.destroy();
        outbound.destroy();
      });
    }
    inbound.on('close', () => outbound.destroy());
    outbound.on('close', () => inbound.destroy());
    delayedPipe(inbound, outbound, spec);
    delayedPipe(outbound, inbound, spec);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

async function main() {
  /** @type {LinkSpec[]} */
  const specs = JSON.parse(process.argv[2] ?? '[]');
  /** @type {Set<net.Socket>} */
  const sockets = new Set();
  const servers = await Promise.all(specs.map((s) => startLink(s, sockets)));
  process.stdout.write(`relay ready ${servers.length}\n`);
  process.once('SIGTERM', () => {
    for (const s of servers) /** @type {net.Server} */ (s).close();
    for (const s of sockets) s.destroy();
    process.exit(0);
  });
}

main().catch((e) => {
  process.stderr.write(`netsim-relay: ${e instanceof Error ? e.message : e}\n`);
  process.exit(1);
});
