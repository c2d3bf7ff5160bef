// @ts-check
/**
 * The daemon's HTTP router: a table of method + path → handler, and every refusal
 * answered in one place, in the order a request meets them:
 *
 *   421  the Host header does not name this daemon           (request-checks.js)
 *   404  no route for the path inside a family the router owns
 *   405  the route does not take this method (with `allow`)
 *   403  a state-changing request from another origin        (request-checks.js)
 *   415  a body of another media type than the route reads   (request-checks.js)
 *   413  a body over the route's bound (the connection is cut as soon as it is over)
 *   400  a body that does not parse
 *   500  a handler that failed before it answered
 *
 * Invariants: a path outside every family is not answered here (the caller, host.js,
 * answers it), so the router never claims the mesh's WebSocket endpoint or /health.
 * Refusals on a family whose answers are JSON (the API) are `{ok: false, error}`;
 * elsewhere they are plain text. No CORS header is ever sent, and OPTIONS is no route's
 * method, so a preflight is never granted.
 */
import { hostAllowed, sameOrigin, changesState, contentTypeIs } from './request-checks.js';
import { sendJson, sendText } from './respond.js';
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
    const refuse = refusal(res, family.json);
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

/**
 * @param {Res} res @param {boolean} json
 * @returns {(status: number, message: string) => void}
 */
function refusal(res, json) {
  return (status, message) => {
    if (json) sendJson(res, status, { ok: false, error: message });
    else sendText(res, status, `${message}\n`);
  };
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
 * The request's body as text; rejects with 'too large' (and cuts the connection) as
 * soon as it is over `max` bytes.
 * @param {Req} req @param {number} max @returns {Promise<string>}
 */
function readBody(req, max) {
  return new Promise((resolve, reject) => {
    /** @type {Buffer[]} */
    const chunks = [];
    let size = 0;
    req.on('data', (/** @type {Buffer} */ c) => {
      size += c.length;
      if (size > max) {
        reject(new Error('too large'));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
