// @ts-check
/**
 * The checks every browser-facing request of the daemon passes (docs/dashboard.md,
 * "Security"; docs/browser.md, "Host-header check"), as one rule set used by the router
 * (router.js) for every route:
 *
 *   - Host (DNS rebinding): the Host header must name this daemon by an IP literal
 *     (IPv6 in brackets), `localhost`, or the --host name it listens on, with or without
 *     a port; nothing else — no trailing dot, no other spelling. A page of another site
 *     that rebinds its DNS name to this address sends its own name, and is refused (421).
 *   - Same origin (CSRF): a request that changes state (any method but GET and HEAD)
 *     coming from a browser must come from this origin (403).
 *   - Content type: a route that reads a body takes exactly its media type (415), so a
 *     cross-origin page cannot send it as a "simple request" without a CORS preflight,
 *     which this server never grants.
 *   - Dashboard secret (who may evaluate): a route that runs code (POST /api/eval) takes
 *     only requests carrying this daemon's secret in the `X-Termite-Eval` header (401).
 *     The secret is 256 random bits made when the daemon starts (host.js), written into
 *     the dashboard page it serves (so the page's own script can read it, and nothing
 *     else of another origin can) and compared in constant time. The mesh token is not
 *     accepted in its place: worker pages and tabs hold the mesh token, and a tab must
 *     not be able to evaluate on the daemon.
 *   - Same OS user (a shared machine): the pages holding a secret (the dashboard with its
 *     secret, the worker page with the mesh token) and the REPL answer a loopback
 *     connection only from the OS user the daemon runs as, or root (403); other users of
 *     the machine reach 127.0.0.1 too (peer-user.js; Linux, where the kernel says who
 *     owns a socket; elsewhere, and for connections from other machines, this check does
 *     not apply).
 *
 * Where the two earlier guards differed (the dashboard's and the worker page's), the
 * stricter of them is the rule: real IP literals only, and no trailing-dot names.
 */
import { isIP } from 'node:net';
import { createHash, timingSafeEqual } from 'node:crypto';
import { peerUser } from './peer-user.js';

/** @typedef {import('node:http').IncomingMessage} Req */

/**
 * Whether the Host header names this daemon.
 * @param {Req} req @param {any} host a started host (node-daemon/src/host.js)
 */
export function hostAllowed(req, host) {
  const name = hostName(req.headers.host);
  if (name === null) return false;
  if (isIP(name) !== 0 || name === 'localhost') return true;
  const listen = String(host.opts?.host ?? '').toLowerCase();
  return listen !== '' && name === listen;
}

/** @param {string|undefined} h @returns {string|null} the host name, without port and brackets, lower case */
function hostName(h) {
  if (!h) return null;
  const m = /^\[([0-9a-fA-F:.]+)\](?::\d+)?$/.exec(h) ?? /^([^:\s[\]]+)(?::\d+)?$/.exec(h);
  return m ? m[1].toLowerCase() : null;
}

/**
 * A request from a page must come from this origin: a browser sends `Origin` with every
 * POST and `Sec-Fetch-Site` with every request, and a page cannot forge either.
 * Requests with neither (curl, other programs) are allowed: they are not a browser
 * acting for another site, and the Host check already confined them to this machine's
 * names.
 * @param {Req} req
 */
export function sameOrigin(req) {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

/** Whether a method changes state (and so must come from this origin). @param {string} method */
export function changesState(method) {
  return method !== 'GET' && method !== 'HEAD';
}

/**
 * Whether the request's body is declared as `type` (parameters such as charset aside).
 * @param {Req} req @param {string} type
 */
export function contentTypeIs(req, type) {
  return String(req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase() === type;
}

/** The header that carries the dashboard secret. */
export const SECRET_HEADER = 'x-termite-eval';

/**
 * Whether the request carries this daemon's dashboard secret. Both sides are hashed
 * first, so the comparison takes the same time whatever the length or content given.
 * @param {Req} req @param {any} host a started host with its `evalSecret`
 */
export function secretPresented(req, host) {
  const given = req.headers[SECRET_HEADER];
  const secret = host.evalSecret;
  if (typeof given !== 'string' || typeof secret !== 'string' || secret === '') return false;
  const digest = (/** @type {string} */ s) => createHash('sha256').update(s, 'utf8').digest();
  return timingSafeEqual(digest(given), digest(secret));
}

/**
 * Whether the client may see what only the daemon's OS user may (a page with a secret,
 * the REPL): `null` when it may, or why not.
 * @param {Req} req
 * @returns {Promise<string|null>}
 */
export async function otherUser(req) {
  const self = typeof process.getuid === 'function' ? process.getuid() : null;
  if (self === null) return null;
  const who = await peerUser(req.socket);
  if (who.kind !== 'user') return null;
  if (who.uid === self || who.uid === 0) return null;
  return who.uid === null
    ? 'the connection\'s owner could not be found'
    : `this daemon's dashboard, REPL and worker page are for the OS user it runs as (uid ${self}); this connection is from uid ${who.uid}`;
}
