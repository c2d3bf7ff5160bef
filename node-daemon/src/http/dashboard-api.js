// @ts-check
/**
 * The dashboard's JSON API (docs/dashboard.md):
 *
 *   GET  /api/state    the mesh now: every reachable node's snapshot with its rates, the
 *                      recent rate history and the recent migrations (and it keeps the
 *                      host's Monitor sampling for 15 s)
 *   POST /api/eval     {node, code} → {ok, incomplete, outputs, node, ms}: evaluate
 *                      Scheme text on a node of the mesh (this daemon, or a tab that
 *                      lets this daemon evaluate there)
 *
 * (GET /api/events, the same state as a stream, is event-stream.js's.)
 *
 * Invariants: /api/eval on the daemon is full access to the daemon, so the router's
 * request checks (request-checks.js: Host, same origin, the dashboard secret, JSON)
 * stand before it; an evaluation is bounded (EVAL_BOUND_MS) and a node that refuses,
 * is unreachable or is too slow answers 502 with the reason. `(exit)` ends only the
 * REPL's process there, never the daemon: the answer says so at once (ok false,
 * `exited` the code), and the next input starts a new REPL process.
 */
import { monitorOf } from '../monitor/monitor.js';
import { sendJson } from './respond.js';
import { bounded, errorText } from '../bounded.js';

const EVAL_BOUND_MS = 35000;

/** What /api/eval's body holds (said in refusals). */
export const EVAL_BODY = '{"node": ID, "code": TEXT}';

/** GET /api/state. @param {import('./router.js').RouteContext} ctx */
export async function serveState({ res, host }) {
  const m = monitorOf(host);
  m.interest();
  const tick = await m.fresh();
  sendJson(res, 200, { ...m.hello(), ...tick, ok: true });
}

/** POST /api/eval (the body is checked JSON by then). @param {import('./router.js').RouteContext} ctx */
export async function serveEval({ res, host, body }) {
  if (body === null || typeof body !== 'object' || typeof body.code !== 'string') {
    return sendJson(res, 400, { ok: false, error: `expected ${EVAL_BODY}` });
  }
  const self = host.node?.id;
  const node = typeof body.node === 'string' && body.node !== '' ? body.node : self;
  if (!host.distribution) return sendJson(res, 503, { ok: false, error: 'this node has no evaluator' });
  const started = Date.now();
  try {
    const r = await bounded(host.distribution.evalOn(node, body.code), EVAL_BOUND_MS, 'the evaluation');
    const answer = { ok: Boolean(r.ok), incomplete: Boolean(r.incomplete), outputs: r.outputs ?? [], node, ms: Date.now() - started };
    if (r.exited !== undefined) {
      const code = typeof r.exited === 'number' || typeof r.exited === 'boolean' ? r.exited : String(r.exited);
      return sendJson(res, 200, { ...answer, ok: false, exited: code, error: `exit ends only the REPL's process, not the node (exit code ${code}); the next input starts a new REPL process. A daemon stops on SIGINT or SIGTERM.` });
    }
    sendJson(res, 200, answer);
  } catch (e) {
    // the node refused, is unreachable, or took too long: the REPL shows why
    sendJson(res, 502, { ok: false, incomplete: false, outputs: [], error: errorText(e), node, ms: Date.now() - started });
  }
}
