// @ts-check
/**
 * Seeing and stopping processes, for `,ps` / `,kill` at the REPL and for the
 * `termite-node ps` / `kill` commands: which node a user means (an id prefix, an
 * address host:port, or a ws:// URL), its processes as a table (from the node's own
 * snapshot, or a peer's through the dashboard's STATS request, bounded in time), and
 * a pid as a user types it (`N`, `N@NODE`, or as printed: `#<pid N@NODE>`).
 *
 * A remote listing shows the first 200 processes a node reports, with its live count.
 */
import { Pid } from '@termite/runtime';

/** @typedef {{pid: string, name: string, state: string, migrated: boolean}} ProcessRow */
/** @typedef {{id: string, address: string|null, live: number, processes: ProcessRow[]}} NodeProcesses */

/**
 * The node ids this node knows (itself first), with their addresses when known.
 * @param {any} node the runtime node @param {any|null} host the host (mesh), or null
 * @returns {{id: string, address: string|null}[]}
 */
export function knownNodes(node, host) {
  const self = { id: node.id, address: node.ref?.host != null ? `${node.ref.host}:${node.ref.port}` : null };
  if (host === null) return [self];
  const peers = host.mesh.peers().map((/** @type {any} */ p) => ({ id: p.id, address: p.listenUrl ? p.listenUrl.replace(/^wss?:\/\//, '').replace(/\/$/, '') : null }));
  const routes = host.mesh.routes().map((/** @type {any} */ r) => ({ id: r.id, address: null }));
  const seen = new Set();
  return [self, ...peers, ...routes].filter((n) => !seen.has(n.id) && seen.add(n.id));
}

/**
 * The node `spec` names: an id or id prefix, host:port, or ws://host:port.
 * @param {string} spec @param {{id: string, address: string|null}[]} nodes
 * @returns {string} its id
 */
export function resolveNode(spec, nodes) {
  const s = spec.replace(/^wss?:\/\//, '').replace(/\/$/, '');
  const byAddress = nodes.filter((n) => n.address === s);
  if (byAddress.length === 1) return byAddress[0].id;
  const byId = nodes.filter((n) => n.id.startsWith(s));
  if (byId.length === 1) return byId[0].id;
  if (byId.length > 1) throw new Error(`${spec} names ${byId.length} nodes; give more of the id`);
  throw new Error(`no node ${spec} is known here (known: ${nodes.map((n) => n.address ?? n.id.slice(0, 12)).join(', ')})`);
}

/**
 * The processes of the node `id` (this node, or one reachable through the mesh).
 * @param {any} node @param {any|null} host @param {string} id
 * @returns {Promise<NodeProcesses>}
 */
export async function processesOf(node, host, id) {
  let snap;
  if (id === node.id) snap = node.snapshot(100000);
  else {
    const all = await host.distribution.meshSnapshot(3000);
    snap = all.find((/** @type {any} */ s) => s.id === id);
    if (!snap || snap.unreachable) throw new Error(`node ${id.slice(0, 12)} did not answer`);
  }
  return { id: snap.id, address: snap.address ?? null, live: snap.processes.live, processes: snap.processes.shown };
}

/**
 * A listing as text, erl's `i()` in spirit: one process a line.
 * @param {NodeProcesses} p
 */
export function formatProcesses(p) {
  const rows = p.processes.map((r) => [r.pid, r.name, r.state + (r.migrated ? ' (migrated here)' : '')]);
  const header = ['PID', 'NAME', 'STATE'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (/** @type {string[]} */ r) => r.map((c, i) => (i < r.length - 1 ? c.padEnd(widths[i]) : c)).join('  ');
  const more = p.live > p.processes.length ? `\n(${p.live - p.processes.length} more not shown)` : '';
  return `node ${p.id}${p.address ? ` (${p.address})` : ''}: ${p.live} process${p.live === 1 ? '' : 'es'}\n${[line(header), ...rows.map(line)].join('\n')}${more}`;
}

/**
 * A pid as a user types it. Without @NODE it names a process of `defaultNode`.
 * @param {string} text @param {{id: string, address: string|null}[]} nodes @param {string} defaultNode
 */
export function parsePid(text, nodes, defaultNode) {
  const m = /^(?:#<pid\s+)?<?(\d+)(?:@([\w.:-]+))?>?$/.exec(text.trim());
  if (!m) throw new Error(`${text} is not a pid (give N, N@NODE or #<pid N@NODE>)`);
  const n = Number(m[1]);
  if (!Number.isSafeInteger(n)) throw new Error(`${text} is not a pid`);
  return new Pid(m[2] === undefined ? defaultNode : resolveNode(m[2], nodes), n);
}

/**
 * Whether the listing has the process `pid`, when the listing is complete enough to say.
 * @param {NodeProcesses} p @param {Pid} pid @returns {boolean|null} null: not listed, but the listing was cut
 */
export function listed(p, pid) {
  const shown = `${pid.n}@${pid.node.slice(0, 8)}`;
  if (p.processes.some((r) => r.pid === shown)) return true;
  return p.live > p.processes.length ? null : false;
}

/**
 * Terminate `pid` and wait (bounded) until its node no longer lists it.
 * @param {any} node @param {any|null} host @param {Pid} pid
 * @returns {Promise<string>} what happened, for the user
 */
export async function killProcess(node, host, pid) {
  const before = await processesOf(node, host, pid.node);
  if (listed(before, pid) === false) throw new Error(`no process ${pid.n} on node ${pid.node.slice(0, 12)}`);
  node.terminate(pid);
  for (let i = 0; i < 50; i++) {
    const after = await processesOf(node, host, pid.node);
    if (listed(after, pid) === false) return `killed ${String(pid)}`;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${String(pid)} is still listed 2.5 s after the kill`);
}
