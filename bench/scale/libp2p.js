// @ts-check
/**
 * `scale.libp2p.*` (bench/scale.js): js-libp2p's pieces that would replace the mesh's
 * own routing and relay, against the mesh, on the same simulated internet
 * (scripts/netsim.js: namespaces, 20 ms user-space latency relays on every link), both
 * measured in the same run. The libp2p nodes are bench/scale/libp2p-node.js.
 *
 * Relay (a → r → b, two 20 ms links, so 80 ms of link latency per round trip):
 *   scale.libp2p.relay.rtt      ms  js-libp2p: ping over a circuit-relay-v2 connection
 *                                   (b holds a reservation on r; a dials r's circuit to b)
 *   scale.libp2p.relay.dial     ms  js-libp2p: opening that relayed connection
 *   scale.libp2p.relay.mesh_rtt ms  the mesh: a request from a node beside daemon a to
 *                                   daemon b, routed through daemon r (2 hops)
 *
 * Peer routing (N nodes, BENCH_SCALE_LIBP2P_N, default 10, in the binary tree of
 * scale.join: node i reaches node ⌊(i−1)/2⌋ through a 20 ms link):
 *   scale.libp2p.dht.lookup      ms  js-libp2p: median Kademlia lookup (getClosestPeers of the
 *                                    node's key, asking the network) of every other node by a
 *                                    newcomer bootstrapped on node 0
 *   scale.libp2p.dht.found       ratio  lookups that found their node (the figures below are of those)
 *   scale.libp2p.dht.queries     n   its median number of DHT queries sent per lookup
 *   scale.libp2p.dht.first_rtt   ms  median lookup + dial + first ping (the newcomer's first
 *                                    exchange with a node it did not know)
 *   scale.libp2p.dht.rtt.far     ms  median ping to the farthest tree node once connected
 *                                    (libp2p dials it directly: one 20 ms link)
 *   scale.libp2p.mesh.routes     ms  the mesh: a newcomer beside daemon 0 until it has a route
 *                                    to every daemon (path-vector gossip, no lookup)
 *   scale.libp2p.mesh.rtt.far    ms  the mesh: median round trip to the farthest daemon (routed
 *                                    along the tree: one 20 ms link per hop)
 *
 * Node 20: js-libp2p 3 needs Promise.withResolvers (Node 22); libp2p-node.js supplies it.
 * Without js-libp2p installed (it is a development dependency of the repository only) the
 * figures are not measured and a comment says why.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildTree } from '../../scripts/netsim.js';

const NODE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'libp2p-node.js');
const PORT = 7400;
const READY = /libp2p ready (\w+)/;
const RESULT = /^libp2p (\{.*\})$/m;

/** @param {string} wsUrl a link's ws://IP:PORT @returns {string} IP:PORT */
const hostPort = (wsUrl) => wsUrl.replace(/^ws:\/\//, '');
/** @param {string} hp @param {string} [peer] */
const tcpAddr = (hp, peer) => `/ip4/${hp.slice(0, hp.lastIndexOf(':'))}/tcp/${hp.slice(hp.lastIndexOf(':') + 1)}${peer ? `/p2p/${peer}` : ''}`;

/** @typedef {import('../../scripts/netsim.js').Netsim} Netsim */

/**
 * A libp2p server node in `host`'s namespace. @param {Netsim} sim @param {import('../../scripts/netsim.js').SimHost} host
 * @param {object} task @returns {Promise<string>} its peer id
 */
async function server(sim, host, task) {
  // many nodes start one after another on a loaded machine: a generous bound
  // (its own bound comes first, so that a node that is stuck says where)
  const { match } = await sim.startNodeScript(host, [NODE, JSON.stringify({ role: 'server', listen: `${host.ip}:${PORT}`, timeoutMs: 100_000, ...task })], READY, 120_000);
  return match[1];
}

/** The measuring node's answer. @param {Netsim} sim @param {import('../../scripts/netsim.js').SimHost} host @param {object} task @param {number} timeoutMs */
async function measure(sim, host, task, timeoutMs) {
  // it listens on loopback only: no node can dial it directly (past the links' latency); it dials out
  const { match } = await sim.startNodeScript(host, [NODE, JSON.stringify({ role: 'measure', listen: '127.0.0.1:0', timeoutMs, ...task })], RESULT, timeoutMs + 5000);
  const r = JSON.parse(match[1]);
  if (!r.ok) throw new Error(`libp2p measurement: ${r.error}`);
  return r;
}

/** @param {number[]} xs */
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * a → r → b: js-libp2p over circuit-relay-v2, then the mesh's daemons on the same line.
 * @param {import('../lib/index.js').Reporter} rep @param {(f: (sim: Netsim) => Promise<void>) => Promise<void>} inSim @param {number} rounds
 */
async function relay(rep, inSim, rounds) {
  /** @type {any} */
  let lp = null;
  /** @type {number | null} */
  let meshMs = null;
  await inSim(async (sim) => {
    const [a, r, b] = ['a', 'r', 'b'].map((n) => sim.addHost(n));
    const la = hostPort(sim.link(r, 20));
    const lb = hostPort(sim.link(r, 20));
    await sim.startRelays();
    const rId = await server(sim, r, { relay: true, announce: la });
    const bId = await server(sim, b, { reserveOn: tcpAddr(lb, rId) });
    lp = (await measure(sim, a, { relayPing: { relay: tcpAddr(la, rId), peer: bId }, rounds }, 60_000)).relay;
  });
  await inSim(async (sim) => {
    const token = randomBytes(12).toString('hex');
    const [a, r, b] = ['a', 'r', 'b'].map((n) => sim.addHost(n));
    const la = sim.link(r, 20);
    const lb = sim.link(r, 20);
    await sim.startRelays();
    const dr = await sim.startDaemon(r, { token });
    const [da, db] = await Promise.all([sim.startDaemon(a, { token, join: [la] }), sim.startDaemon(b, { token, join: [lb] })]);
    const p = await sim.probe(a, { join: da.url, token, targets: [dr.id, db.id], rtt: [db.id], rounds, timeoutMs: 60_000 }, 70_000);
    if (!p.ok) throw new Error(`scale.libp2p.relay.mesh_rtt: ${p.error}`);
    meshMs = p.rttMs[db.id];
  });
  if (!lp || meshMs === null) return;
  rep.bench('scale.libp2p.relay.rtt', lp.rttMs, 'ms', { note: `js-libp2p ping through a circuit-relay-v2 relay, two 20 ms links (80 ms of link latency), median of ${rounds}${lp.limited ? ', a limited connection' : ''}` });
  rep.bench('scale.libp2p.relay.dial', lp.dialMs, 'ms', { note: 'opening the relayed connection (TCP, Noise, Yamux to the relay, then the circuit, Noise, Yamux end to end)' });
  rep.bench('scale.libp2p.relay.mesh_rtt', meshMs, 'ms', { note: `the mesh: the same line of daemons, a request routed through the middle one (+1 local hop), median of ${rounds}` });
}

/**
 * N nodes in a tree: js-libp2p's Kademlia lookups, then the mesh's routes.
 * @param {import('../lib/index.js').Reporter} rep @param {(f: (sim: Netsim) => Promise<void>) => Promise<void>} inSim @param {number} n @param {number} rounds
 */
async function dht(rep, inSim, n, rounds) {
  /** @type {any[]} */
  let looked = [];
  await inSim(async (sim) => {
    const hosts = Array.from({ length: n }, (_, i) => sim.addHost(`d${i}`));
    const links = hosts.map((h) => hostPort(sim.link(h, 20)));
    await sim.startRelays();
    /** @type {string[]} */
    const ids = [];
    // one after another, parents first (nodes started together dial each other at once, and a
    // handshake then fails now and then): a node dials its parent through the parent's link,
    // and announces its own link
    for (let i = 0; i < n; i++) ids.push(await server(sim, hosts[i], { announce: links[i], dial: i === 0 ? [] : [tcpAddr(links[Math.floor((i - 1) / 2)])] }));
    // a lookup, a dial and the pings for each of n - 1 nodes, on a loaded machine
    const r = await measure(sim, hosts[0], { dial: [tcpAddr(`${hosts[0].ip}:${PORT}`)], lookups: ids.slice(1), rounds }, 30_000 + n * (6_000 + rounds * 200));
    looked = r.lookups;
  });
  const all = looked;
  looked = looked.filter((l) => l.found);
  if (looked.length === 0) throw new Error(`scale.libp2p.dht: none of ${all.length} lookups found its node`);
  /** @type {{reach: number, far: number} | null} */
  let mesh = null;
  await inSim(async (sim) => {
    const token = randomBytes(12).toString('hex');
    const { hosts, daemons } = await buildTree(sim, { daemons: n, nat: 0, delayMs: 20, token });
    const far = daemons[n - 1].id;
    const p = await sim.probe(hosts[0], { join: daemons[0].url, token, targets: daemons.slice(1).map((d) => d.id), rtt: [far], rounds, timeoutMs: 120_000 }, 130_000);
    if (!p.ok) throw new Error(`scale.libp2p.mesh: ${p.error}`);
    mesh = { reach: p.reachedAt - p.joinedAt, far: p.rttMs[far] };
  });
  if (!mesh) return;
  const m = /** @type {{reach: number, far: number}} */ (mesh);
  const depth = Math.floor(Math.log2(n));
  rep.bench('scale.libp2p.dht.lookup', median(looked.map((l) => l.lookupMs)), 'ms', { note: `js-libp2p kad-dht lookup (getClosestPeers, k=20) of each of ${n - 1} nodes by a newcomer bootstrapped on node 0, median (max ${Math.round(Math.max(...looked.map((l) => l.lookupMs)))})` });
  rep.bench('scale.libp2p.dht.found', looked.length / all.length, 'ratio', { note: `lookups that found their node (and its address): ${looked.length} of ${all.length}` });
  rep.bench('scale.libp2p.dht.queries', median(looked.map((l) => l.queries)), 'count', { note: `DHT queries sent per lookup, median (max ${Math.max(...looked.map((l) => l.queries))})` });
  rep.bench('scale.libp2p.dht.first_rtt', median(looked.map((l) => l.lookupMs + l.firstRttMs)), 'ms', { note: 'lookup + dial + first ping (a new connection: TCP, Noise, Yamux over the 20 ms link), median' });
  const failures = looked.reduce((sum, l) => sum + (l.pingFailures ?? 0), 0);
  const far = looked[looked.length - 1];
  rep.bench('scale.libp2p.dht.rtt.far', far.rttMs, 'ms', { note: `ping to node ${all.indexOf(far) + 1} (the farthest found) once connected: a direct connection over its one 20 ms link, median of ${rounds}${failures ? `; ${failures} pings failed and were tried again` : ''}` });
  rep.bench('scale.libp2p.mesh.routes', m.reach, 'ms', { note: `the mesh: a newcomer beside daemon 0 until it has a route to all ${n - 1} daemons (gossip, no lookup)` });
  rep.bench('scale.libp2p.mesh.rtt.far', m.far, 'ms', { note: `the mesh: round trip to daemon ${n - 1}, ${depth} hops along the tree (20 ms each way per hop), median of ${rounds}` });
}

/**
 * @param {import('../lib/index.js').Reporter} rep
 * @param {(f: (sim: Netsim) => Promise<void>) => Promise<void>} inSim
 * @param {{nodes: number, rounds: number}} o
 */
export async function libp2pEvaluation(rep, inSim, o) {
  try {
    await import('libp2p');
  } catch (e) {
    rep.comment(`scale.libp2p: not measured: js-libp2p is not installed (${e instanceof Error ? e.message.split('\n')[0] : e})`);
    return;
  }
  // a figure's group is measured when the prefix selects one of its figures (scale.libp2p.dht.lookup) or all
  const wanted = (/** @type {string} */ group) => rep.wants(group) || rep.prefix.startsWith(group);
  if (wanted('scale.libp2p.relay')) await relay(rep, inSim, o.rounds);
  if (wanted('scale.libp2p.dht') || wanted('scale.libp2p.mesh')) await dht(rep, inSim, o.nodes, o.rounds);
}
