// @ts-check
/**
 * An operator's approval of a library publisher from the dashboard (docs/dashboard.md,
 * "Libraries"):
 *
 *   POST /api/libraries/approve   {publisher: ID, node?: NODE} → {ok: true, publisher, persisted}
 *
 * `node`, when given, must be this daemon's id: a daemon approves only for itself (the
 * dashboard lists other nodes' waiting publishers; each is approved on its own node).
 * ID is a node id or a base64url public key. The publisher is trusted from then on by
 * this daemon: kept in DATA/trust when the daemon has --data (`persisted`), and every
 * install waiting for its approval goes on (code-libraries/library-registry.js).
 *
 * Invariants: the router's request checks stand before this handler as before /api/kill
 * (Host, same origin, the daemon's OS user, the dashboard secret, JSON): an approval lets
 * code of that publisher run here; a malformed id is 400 with the rule, and nothing is
 * written for it.
 */
import { sendJson } from './respond.js';
import { publisherId } from '../library-store.js';

/** What the body holds (said in refusals). */
export const APPROVE_BODY = '{"publisher": ID}';

/** POST /api/libraries/approve. @param {import('./router.js').RouteContext} ctx */
export async function serveApprove({ res, host, body }) {
  if (body === null || typeof body !== 'object' || typeof body.publisher !== 'string') return sendJson(res, 400, { ok: false, error: `expected ${APPROVE_BODY}` });
  const libraries = host.distribution?.libraries;
  if (!libraries) return sendJson(res, 503, { ok: false, error: 'this node installs no libraries' });
  if (typeof body.node === 'string' && body.node !== '' && body.node !== host.node?.id) {
    return sendJson(res, 404, { ok: false, error: `this daemon approves publishers for itself only: approve on node ${body.node.slice(0, 12)}'s own dashboard (or run termite-node trust add there)` });
  }
  let id;
  try {
    id = await publisherId(body.publisher);
  } catch (e) {
    return sendJson(res, 400, { ok: false, error: e instanceof Error ? e.message.replace('--trust expects', 'expected') : String(e) });
  }
  try {
    await libraries.approve(id);
  } catch (e) {
    return sendJson(res, 500, { ok: false, error: `the approval of ${id} could not be kept: ${e instanceof Error ? e.message : e}` });
  }
  sendJson(res, 200, { ok: true, publisher: id, persisted: libraries.persistTrust !== null });
}
