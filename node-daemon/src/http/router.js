// @ts-check
/**
 * The daemon's HTTP router: a table of method + path → handler, and every refusal
 * answered in one place, in the order a request meets them:
 *
 *   421  the Host header does not name this daemon           (request-checks.js)
 *   404  no route for the path inside a family the router owns
 *   405  the route does not take this method (with `allow`)
 *   403  a state-changing request from another origin        (request-checks.js)
 *   403  a route for the daemon's OS user, from another user  (request-checks.js)
 *   401  a route that runs code or kills, without the dashboard secret (request-checks.js)
 *   415  a body of another media type than the route reads   (request-checks.js)
 *   413  a body over the route's bound (by its Content-Length, or as soon as it is over)
 *   400  a body that does not parse
 *   500  a handler that failed before it answered
 *
 * Invariants: a path outside every family is not answered here (the caller, host.js,
 * answers it), so the router never claims the mesh's WebSocket endpoint or /health.
 * A refusal given before the request's body is read is written whole first, then the
 * rest of the body is read and dropped within a bound (respond.js, answerUnreadBody),
 * so the client receives the refusal rather than a reset connection; nothing of a
 * refused body is kept. Refusals of 401, 403 and 413 are logged, at most one line a
 * second (the lines not written are counted in the next one).
 * Refusals on a family whose answers are JSON (the API) are `{ok: false, error}`;
 * elsewhere they are plain text. No CORS header is ever sent, and OPTIONS is no route's
 * method, so a preflight is never granted.
 */
import { hostAllowed, sameOrigin, changesState, contentTypeIs, secretPresented, otherUser, SECRET_HEADER } from './request-checks.js';
import { sendJson, sendText, answerUnreadBody } from './respond.js';
import { errorText } from '../bounded.js';

/** @typedef {import('node:http').IncomingMessage} Req */
/** @typedef {import('node:http').ServerResponse} Res */

/**
 * @typedef {object} RouteContext what a handler is given
 * @property {Req} req
 * @property {Res} res
 * @property {any} host the started host (node-daemon/src/host.js)
 * @property {string} path the URL's path
 * @property {any} body the parsed body, for a route that reads one (else undefined)
 */

/**
 * @typedef {object} Route
 * @property {string} path the path, or (with `prefix`) what it starts with
 * @property {boolean} [prefix]
 * @property {string[]} methods what it takes (HEAD is listed where GET's headers are answered)
 * @property {{type: 'application/json', max: number, shape: string}} [body] the body it reads: its media type (JSON is the
 *   only one read), its size bound in bytes, and what it holds (said in refusals)
 * @property {boolean} [secret] it runs code or stops processes: the dashboard secret is required (401 without it)
 * @property {boolean} [ownUser] it holds or uses a secret (the dashboard's, the mesh token): for the daemon's OS user only, on a loopback connection (403)
 * @property {(ctx: RouteContext) => void | Promise<void>} handle
 */

/**
 * @typedef {object} Family a group of paths the router owns
 * @property {string} path
 * @property {boolean} [prefix]
 * @property {boolean} json refusals as JSON (else text)
 */

/**
 * The `route` hook of host.js for a table of routes.
 * @param {Family[]} families the paths this router answers (404 within them)
 * @param {Route[]} routes
 * @returns {(req: Req, res: Res, host: any) => boolean} true when the request is answered here
 */
export function createRouter(families, routes) {
  return (req, res, host) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const family = families.find((f) => matches(f, path));
    if (family === undefined) return false;
    const refuse = refusal(req, res, host, family.json);
    if (!hostAllowed(req, host)) {
      refuse(421, 'This daemon answers only requests that name it by address (an IP address, localhost or its --host name) in the Host header.');
      return true;
    }
    const route = routes.find((r) => matches(r, path));
    if (route === undefined) {
      refuse(404, family.json ? `no such endpoint: ${path}` : 'not found');
      return true;
    }
    dispatch(route, { req, res, host, path, body: undefined }, refuse).catch((e) => {
      if (!res.headersSent) refuse(500, errorText(e));
      else res.destroy();
    });
    return true;
  };
}

/** @param {{path: string, prefix?: boolean}} r @param {string} path */
function matches(r, path) {
  return r.prefix ? path.startsWith(r.path) : path === r.path;
}

/** The refusals worth a log line: someone tried what they may not. */
const LOGGED = new Set([401, 403, 413]);
const LOG_EVERY_MS = 1000;
/** @type {WeakMap<any, {at: number, skipped: number}>} per host: the last refusal logged */
const logged = new WeakMap();

/**
 * @param {Req} req @param {Res} res @param {any} host @param {boolean} json
 * @returns {(status: number, message: string) => void}
 */
function refusal(req, res, host, json) {
  return (status, message) => {
    if (LOGGED.has(status)) logRefusal(host, `${req.method} ${new URL(req.url ?? '/', 'http://x').pathname} from ${req.socket.remoteAddress}:${req.socket.remotePort}: ${status} ${message}`);
    const text = json ? JSON.stringify({ ok: false, error: message }) : `${message}\n`;
    const type = json ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8';
    if (bodyUnread(req)) answerUnreadBody(req, res, status, text, type);
    else if (json) sendJson(res, status, { ok: false, error: message });
    else sendText(res, status, text);
  };
}

/** Whether the request has a body not read to its end. @param {Req} req */
function bodyUnread(req) {
  if (req.complete) return false;
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/** A refusal in the host's log, at most one line per LOG_EVERY_MS. @param {any} host @param {string} line */
function logRefusal(host, line) {
  const log = host.opts?.log;
  if (typeof log !== 'function') return;
  const now = Date.now();
  const last = logged.get(host) ?? { at: -Infinity, skipped: 0 };
  logged.set(host, last);
  if (now - last.at < LOG_EVERY_MS) {
    last.skipped++;
    return;
  }
  log(`http: refused ${line}${last.skipped > 0 ? ` (${last.skipped} more refused since the last such line)` : ''}`);
  last.at = now;
  last.skipped = 0;
}

/**
 * The method and body checks, then the handler.
 * @param {Route} route @param {RouteContext} ctx @param {(status: number, message: string) => void} refuse
 */
async function dispatch(route, ctx, refuse) {
  const { req, res } = ctx;
  const method = req.method ?? 'GET';
  if (!route.methods.includes(method)) {
    res.setHeader('allow', route.methods.join(', '));
    const only = route.methods.filter((m) => m !== 'HEAD').join(' or ');
    return refuse(405, route.body ? `${only} ${route.body.shape} as ${route.body.type}` : `${only} only`);
  }
  if (changesState(method) && !sameOrigin(req)) return refuse(403, 'cross-origin request refused');
  if (route.ownUser) {
    const why = await otherUser(req);
    if (why !== null) return refuse(403, why);
  }
  if (route.secret && !secretPresented(req, ctx.host)) {
    const given = req.headers[SECRET_HEADER] !== undefined;
    return refuse(401, `${given ? 'wrong' : 'no'} dashboard secret: evaluating on this daemon or stopping a process takes the secret of the dashboard page it serves, in the X-Termite-Eval header${given ? ' (the daemon restarted since the page was loaded? reload it)' : ''}`);
  }
  if (route.body) {
    const { type, max, shape } = route.body;
    if (!contentTypeIs(req, type)) return refuse(415, `the body must be ${type}: ${shape}`);
    try {
      ctx.body = JSON.parse(await readBody(req, max));
    } catch (e) {
      const tooLarge = e instanceof Error && e.message === 'too large';
      return refuse(tooLarge ? 413 : 400, tooLarge ? `the body is over ${max} bytes` : `the body is not JSON: ${errorText(e)}`);
    }
  }
  await route.handle(ctx);
}

/**
 * The request's body as text; rejects with 'too large' when its Content-Length is over
 * `max` bytes (before reading any of it) or as soon as what arrived is over `max` (what
 * follows is the refusal's to drop).
 * @param {Req} req @param {number} max @returns {Promise<string>}
 */
function readBody(req, max) {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > max) return reject(new Error('too large'));
    /** @type {Buffer[]} */
    const chunks = [];
    let size = 0;
    req.on('data', (/** @type {Buffer} */ c) => {
      if (size > max) return;
      size += c.length;
      if (size > max) {
        chunks.length = 0;
        reject(new Error('too large'));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
