// @ts-check
/**
 * One js-libp2p node on the simulated internet, for the evaluation in
 * bench/scale/libp2p.js (run by scripts/netsim.js inside a host's namespace):
 *
 *   node bench/scale/libp2p-node.js '{"role":"server"|"measure", ...}'
 *
 * The node: TCP, Noise, Yamux, identify, ping, Kademlia (kad-dht, server mode, its own
 * protocol id so that it never meets another DHT), the circuit-relay-v2 transport, and
 * with `relay: true` the circuit-relay-v2 server. It listens on `listen` (IP:PORT) and
 * announces only `announce` (the relayed link's address: every connection to it then
 * crosses that link's latency, as the mesh's links do); it dials each of `dial` first;
 * with `reserveOn` it listens through that relay (a circuit reservation).
 *
 * role "server": prints `libp2p ready PEERID` and runs until SIGTERM.
 * role "measure": then runs the task and prints `libp2p {...}` (JSON) and exits:
 *   - `lookups: [PEERID...]`: for each, a Kademlia findPeer (ms, and the queries it
 *     sent: SEND_QUERY events), then a dial to the address found and `rounds` pings
 *     (median ms), the first dial and ping timed together as `firstRttMs`;
 *   - `relayPing: {relay, peer}`: `rounds` pings to PEERID through the relay's circuit
 *     (median ms), and the limited (relayed) connection checked.
 * Bounded: the whole task by `timeoutMs`. js-libp2p 3 needs Node 22's
 * Promise.withResolvers; on Node 20 it is supplied here.
 */
if (typeof (/** @type {any} */ (Promise)).withResolvers !== 'function') {
  /** @type {any} */ (Promise).withResolvers = function withResolvers() {
    /** @type {any} */ let resolve;
    /** @type {any} */ let reject;
    const promise = new Promise((a, b) => { resolve = a; reject = b; });
    return { promise, resolve, reject };
  };
}

const { createLibp2p } = await import('libp2p');
const { tcp } = await import('@libp2p/tcp');
const { noise } = await import('@chainsafe/libp2p-noise');
const { yamux } = await import('@chainsafe/libp2p-yamux');
const { identify } = await import('@libp2p/identify');
const { ping } = await import('@libp2p/ping');
const { kadDHT, passthroughMapper } = await import('@libp2p/kad-dht');
const { circuitRelayServer, circuitRelayTransport } = await import('@libp2p/circuit-relay-v2');
const { multiaddr } = await import('@multiformats/multiaddr');
const { peerIdFromString } = await import('@libp2p/peer-id');

/** @param {number[]} xs */
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : null;
};

/**
 * A ping, tried again (at most twice) when its stream or connection failed: on a loaded
 * machine a connection is sometimes closed under a ping; `failures` counts them.
 * @param {any} node @param {any} target @param {{failures: number}} counts
 */
async function pingAgain(node, target, counts) {
  for (let tries = 1; ; tries++) {
    try {
      return await node.services.ping.ping(target, { signal: AbortSignal.timeout(10_000) });
    } catch (e) {
      counts.failures++;
      if (tries >= 3) throw e;
    }
  }
}

/** `IP:PORT` as a TCP multiaddr. @param {string} hp */
const tcpAddr = (hp) => {
  const i = hp.lastIndexOf(':');
  return `/ip4/${hp.slice(0, i)}/tcp/${hp.slice(i + 1)}`;
};

/** @param {any} t */
async function start(t) {
  /** @type {Record<string, any>} */
  const services = {
    identify: identify(),
    // a ping's stream may still be closing when the next one opens
    ping: ping({ runOnLimitedConnection: true, maxOutboundStreams: 16, maxInboundStreams: 16 }),
    dht: kadDHT({ protocol: '/termite-eval/kad/1.0.0', clientMode: false, peerInfoMapper: passthroughMapper }),
  };
  if (t.relay) services.relay = circuitRelayServer({ reservations: { applyDefaultLimit: false } });
  const node = await createLibp2p({
    // listening on RELAY/p2p-circuit makes a reservation on that relay
    addresses: { listen: [tcpAddr(t.listen), ...(t.reserveOn ? [`${t.reserveOn}/p2p-circuit`] : [])], announce: t.announce ? [tcpAddr(t.announce)] : [] },
    transports: [tcp(), circuitRelayTransport()],
    connectionEncrypters: [noise()],
    streamMuxers: [yamux()],
    // the defaults (10 s, 6 s per address) are too short for dozens of nodes starting on two loaded cores;
    // every relayed connection arrives from the relays' one address, which the per-address inbound
    // rate limit (5 a second) would otherwise refuse
    connectionManager: {
      dialTimeout: 30_000, addressDialTimeout: 20_000, inboundUpgradeTimeout: 30_000,
      inboundConnectionThreshold: 10_000, maxIncomingPendingConnections: 1_000,
    },
    // the simulated internet's addresses are private ones: allow them
    connectionGater: { denyDialMultiaddr: () => false },
    services,
  });
  // a handshake through a relayed link fails now and then on the loaded machine ("Missing
  // newline", an upgrade timeout): a failed dial is tried again, at most 3 times
  for (const d of t.dial ?? []) {
    for (let tries = 1; ; tries++) {
      phase = `dialling ${d} (try ${tries})`;
      try {
        await node.dial(multiaddr(d), { signal: AbortSignal.timeout(30_000) });
        break;
      } catch (e) {
        if (tries >= 3) throw e;
        await new Promise((r) => setTimeout(r, 200 * tries));
      }
    }
  }
  if (t.reserveOn) {
    const until = Date.now() + 20_000;
    while (!node.getMultiaddrs().some((/** @type {any} */ m) => m.toString().includes('/p2p-circuit'))) {
      if (Date.now() > until) throw new Error(`no reservation on ${t.reserveOn} within 20 s`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  return node;
}

/**
 * For each peer: the network's Kademlia lookup (getClosestPeers of its key, which always
 * asks the network; findPeer would answer from the peer store when the node already
 * heard of it), then findPeer for its addresses, a dial and the first ping, then pings.
 * @param {any} node @param {any} t
 */
async function lookups(node, t) {
  const out = [];
  for (const id of t.lookups) {
    const peer = peerIdFromString(id);
    phase = `looking up ${id}`;
    let queries = 0;
    let found = false;
    const t0 = performance.now();
    for await (const ev of node.services.dht.getClosestPeers(peer.toMultihash().bytes, { signal: AbortSignal.timeout(30_000) })) {
      if (ev.name === 'SEND_QUERY') queries++;
      if (ev.name === 'FINAL_PEER' && ev.peer.id.equals(peer)) found = true;
      if (ev.name === 'PEER_RESPONSE' && ev.closer.some((/** @type {any} */ p) => p.id.equals(peer))) found = true;
    }
    const lookupMs = performance.now() - t0;
    /** @type {any} */
    let info = null;
    try {
      for await (const ev of node.services.dht.findPeer(peer, { signal: AbortSignal.timeout(30_000) })) if (ev.name === 'FINAL_PEER') info = ev.peer;
    } catch (e) {
      if (/** @type {any} */ (e)?.name !== 'NotFoundError') throw e;
    }
    if (!found || !info) {
      out.push({ id, lookupMs, queries, found: false });
      continue;
    }
    phase = `dialling ${id} at ${info.multiaddrs.join(' ')}`;
    const t1 = performance.now();
    await node.services.ping.ping(info.multiaddrs.map((/** @type {any} */ m) => (m.toString().includes('/p2p/') ? m : m.encapsulate(`/p2p/${id}`))));
    const firstRttMs = performance.now() - t1;
    const times = [];
    const counts = { failures: 0 };
    for (let i = 0; i < t.rounds; i++) times.push(await pingAgain(node, peer, counts));
    out.push({ id, lookupMs, queries, found: true, addrs: info.multiaddrs.map(String), firstRttMs, rttMs: median(times), pingFailures: counts.failures });
  }
  return out;
}

/** @param {any} node @param {any} t */
async function relayPing(node, t) {
  const target = multiaddr(`${t.relayPing.relay}/p2p-circuit/p2p/${t.relayPing.peer}`);
  const t0 = performance.now();
  phase = `dialling ${target}`;
  const conn = await node.dial(target);
  const dialMs = performance.now() - t0;
  phase = 'pinging through the relay';
  const times = [];
  const counts = { failures: 0 };
  for (let i = 0; i < t.rounds + 3; i++) {
    const ms = await pingAgain(node, target, counts);
    if (i >= 3) times.push(ms);
  }
  return { dialMs, rttMs: median(times), limited: conn.limits != null, remote: conn.remoteAddr.toString(), pingFailures: counts.failures };
}

/** What the node is doing (named when the task times out). */
let phase = 'starting';
const task = JSON.parse(process.argv[2] ?? '{}');
const timer = setTimeout(() => {
  process.stdout.write(`libp2p ${JSON.stringify({ ok: false, error: `task not done within ${task.timeoutMs} ms (${phase})` })}\n`);
  process.exit(1);
}, task.timeoutMs ?? 120_000);
try {
  const node = await start(task);
  if (task.role === 'server') {
    clearTimeout(timer);
    process.stdout.write(`libp2p ready ${node.peerId.toString()}\n`);
    process.once('SIGTERM', () => { Promise.resolve(node.stop()).finally(() => process.exit(0)); });
  } else {
    // let the DHT's routing table take in the bootstrap peer and, through its first lookup, the others
    const want = Math.min(20, Math.max(1, (task.lookups ?? []).length));
    const until = Date.now() + 15_000;
    while (/** @type {any} */ (node.services.dht).routingTable.size < want && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    const result = { ok: true };
    if (task.lookups) Object.assign(result, { lookups: await lookups(node, task) });
    if (task.relayPing) Object.assign(result, { relay: await relayPing(node, task) });
    clearTimeout(timer);
    process.stdout.write(`libp2p ${JSON.stringify(result)}\n`);
    await node.stop();
    process.exit(0);
  }
} catch (e) {
  clearTimeout(timer);
  process.stdout.write(`libp2p ${JSON.stringify({ ok: false, error: String(/** @type {any} */ (e)?.stack ?? e) })}\n`);
  process.exit(1);
}
