// @ts-check
/**
 * Stopping a process from the dashboard (docs/dashboard.md, "POST /api/kill"):
 *
 *   POST /api/kill   {pid: "N@NODE", at?: NODE} or {serial: N, node: NODE, at?: NODE}
 *                    → {ok: true, killed, node, at, ms}
 *
 * NODE is a node id or the start of one (the dashboard lists a pid as `N@` and the
 * first 8 characters of the node that spawned it), or HOST:PORT of a daemon known here.
 * `at` is the node that holds the process now (it differs from the pid's node once the
 * process migrated); it defaults to the pid's node. The process is terminated as
 * `terminate!` does (on this daemon, or through the mesh on the node that holds it: a
 * kill reaches a migrated process through its forwarding entries), then the answer
 * waits until `at` no longer lists it.
 *
 * Invariants: the router's request checks stand before this handler exactly as before
 * /api/eval (Host, same origin, the daemon's OS user, the dashboard secret, JSON), since
 * a kill changes the mesh; every outcome is a status a client can act on — 400 a body
 * that names no pid, 404 a node or a process that is not there, 502 a node that did not
 * answer, 504 a process still listed after KILL_BOUND_MS — and nothing here waits
 * without a bound.
 */
import { Pid } from '@termite/runtime';
import { knownNodes, resolveNode, parsePid, processesOf, listed } from '../repl/processes.js';
import { sendJson } from './respond.js';
import { bounded, errorText } from '../bounded.js';

/** What /api/kill's body holds (said in refusals). */
export const KILL_BODY = '{"pid": "N@NODE", "at": NODE} or {"serial": N, "node": NODE}';

/** How long a killed process may stay listed before the answer says so. */
const KILL_BOUND_MS = 2500;
/** How long a listing of a remote node may take. */
const LIST_BOUND_MS = 4000;

/** A refusal with its HTTP status. */
class KillRefusal extends Error {
  /** @param {number} status @param {string} message */
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/**
 * The node `spec` names, among the nodes known here; 404 when none, 400 when ambiguous.
 * @param {string} spec @param {{id: string, address: string|null}[]} nodes
 */
function nodeNamed(spec, nodes) {
  try {
    return resolveNode(spec, nodes);
  } catch (e) {
    throw new KillRefusal(/^no node/.test(errorText(e)) ? 404 : 400, errorText(e));
  }
}

/**
 * The pid and the node holding it, from the request's body.
 * @param {any} body @param {any} host
 * @returns {{pid: Pid, at: string}}
 */
export function killTarget(body, host) {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new KillRefusal(400, `expected ${KILL_BODY}`);
  const nodes = knownNodes(host.node, host);
  /** @type {Pid} */
  let pid;
  if (typeof body.pid === 'string') {
    const m = /^(?:#<pid\s+)?<?(\d+)(?:@([\w.:-]+))?>?$/.exec(body.pid.trim());
    if (!m) throw new KillRefusal(400, `${JSON.stringify(body.pid)} is not a pid (give N, N@NODE or #<pid N@NODE>)`);
    const node = m[2] === undefined ? host.node.id : nodeNamed(m[2], nodes);
    try {
      pid = parsePid(m[1], nodes, node);
    } catch (e) {
      throw new KillRefusal(400, errorText(e));
    }
  } else if (body.serial !== undefined || body.node !== undefined) {
    const serial = typeof body.serial === 'string' && /^\d+$/.test(body.serial) ? Number(body.serial) : body.serial;
    if (!Number.isSafeInteger(serial) || serial < 0) throw new KillRefusal(400, `serial must be a non-negative integer: ${JSON.stringify(body.serial)}`);
    if (typeof body.node !== 'string' || body.node === '') throw new KillRefusal(400, `expected ${KILL_BODY}: node must be a node id`);
    pid = new Pid(nodeNamed(body.node, nodes), serial);
  } else {
    throw new KillRefusal(400, `expected ${KILL_BODY}`);
  }
  if (body.at !== undefined && (typeof body.at !== 'string' || body.at === '')) throw new KillRefusal(400, 'at must be a node id');
  return { pid, at: body.at === undefined ? pid.node : nodeNamed(body.at, nodes) };
}

/**
 * The processes of `at`, or a 502 when it does not answer.
 * @param {any} host @param {string} at
 */
async function listingOf(host, at) {
  try {
    return await bounded(processesOf(host.node, host, at), LIST_BOUND_MS, `listing the processes of node ${at.slice(0, 12)}`);
  } catch (e) {
    throw new KillRefusal(502, errorText(e));
  }
}

/** POST /api/kill (the body is checked JSON by then). @param {import('./router.js').RouteContext} ctx */
export async function serveKill({ res, host, body }) {
  const started = Date.now();
  try {
    const { pid, at } = killTarget(body, host);
    const shown = `${pid.n}@${pid.node}`;
    if (listed(await listingOf(host, at), pid) === false) throw new KillRefusal(404, `no process ${shown} on node ${at}`);
    host.node.terminate(pid);
    const deadline = Date.now() + KILL_BOUND_MS;
    for (let i = 0; i < 100 && Date.now() < deadline; i++) {
      if (listed(await listingOf(host, at), pid) === false) return sendJson(res, 200, { ok: true, killed: shown, node: pid.node, at, ms: Date.now() - started });
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new KillRefusal(504, `${shown} is still listed on node ${at} ${KILL_BOUND_MS} ms after it was terminated`);
  } catch (e) {
    if (!(e instanceof KillRefusal)) throw e;
    sendJson(res, e.status, { ok: false, error: e.message, ms: Date.now() - started });
  }
}
