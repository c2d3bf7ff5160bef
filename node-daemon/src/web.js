// @ts-check
/**
 * The daemon's browser routes (the `route` hook of host.js; daemon.js loads this
 * module):
 *
 *   GET /worker        the compute-worker page, with this mesh's token, this daemon's
 *                      id and the WebSocket URL to join embedded (docs/browser.md)
 *   GET /assets/...    the browser bundles and the core's .wasm (@termite/web's
 *                      build.js, built in memory when this module loads)
 *   GET /assets/manifest.json   what was built, the sizes and the build time
 *   /  and /api/...    the dashboard: delegated to ./dashboard-api.js when that module
 *                      exists; it exports `handleDashboard(req, res, host)`
 *                      answering true when it handled the request
 *
 * Every request here must name this daemon in its Host header by an IP address,
 * `localhost` or the --host it was started with: a page of another site that rebinds
 * its DNS name to 127.0.0.1 (DNS rebinding) would otherwise be able to read the
 * worker page, and so the mesh token, from the user's browser.
 */
import { buildWebAssets } from '@termite/web/build';
import { workerPageHtml, WORKER_PAGE_CSP } from '@termite/web/pages';

/** @typedef {import('node:http').IncomingMessage} Req */
/** @typedef {import('node:http').ServerResponse} Res */

/** The bundles: started when the daemon loads this module, in parallel with its start-up. */
const assets = buildWebAssets().then(
  (a) => ({ ok: /** @type {const} */ (true), assets: a }),
  (e) => ({ ok: /** @type {const} */ (false), error: e instanceof Error ? e.message : String(e) }),
);

/** @type {Promise<((req: Req, res: Res, host: any) => boolean | Promise<boolean>) | null> | null} */
let dashboard = null;

function loadDashboard() {
  dashboard ??= import('./dashboard-api.js').then(
    (m) => /** @type {any} */ (m).handleDashboard ?? /** @type {any} */ (m).handle ?? /** @type {any} */ (m).default ?? /** @type {any} */ (m).dashboardRoutes ?? null,
    (e) => {
      if (e?.code !== 'ERR_MODULE_NOT_FOUND' || !String(e?.message).includes('dashboard-api.js')) throw e;
      return null;
    },
  );
  return dashboard;
}

/**
 * @param {Req} req @param {Res} res @param {any} host the daemon (host.js startHost)
 * @returns {boolean} whether the request was handled here
 */
export function dashboardRoutes(req, res, host) {
  const url = new URL(req.url ?? '/', 'http://x');
  const p = url.pathname;
  const mine = p === '/worker' || p === '/worker/' || p.startsWith('/assets/');
  const delegated = p === '/' || p === '/api' || p.startsWith('/api/');
  if (!mine && !delegated) return false;
  if (!hostAllowed(req.headers.host, host)) {
    send(res, 421, 'text/plain; charset=utf-8', 'this daemon answers only requests that name it by address (Host header)\n');
    return true;
  }
  if (p === '/worker' || p === '/worker/') {
    if (req.method !== 'GET' && req.method !== 'HEAD') return methodNotAllowed(res);
    workerPage(req, res, host);
    return true;
  }
  if (mine) {
    if (req.method !== 'GET' && req.method !== 'HEAD') return methodNotAllowed(res);
    void serveAsset(req, res, p.slice('/assets/'.length));
    return true;
  }
  void delegate(req, res, host, p);
  return true;
}

/** @param {Req} req @param {Res} res @param {any} host */
function workerPage(req, res, host) {
  const authority = /** @type {string} */ (req.headers.host);
  const html = workerPageHtml({
    token: host.token,
    join: `ws://${authority}/`,
    daemonId: host.identity.id,
    workerUrl: '/assets/js/worker.js',
    pageScriptUrl: '/assets/js/worker-page.js',
  });
  res.writeHead(200, {
    'content-type': 'text/html; charset=utf-8',
    // the page carries the mesh token: never stored, never framed, never referred
    'cache-control': 'no-store',
    'content-security-policy': WORKER_PAGE_CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
  });
  res.end(req.method === 'HEAD' ? undefined : html);
}

/** @param {Req} req @param {Res} res @param {string} name */
async function serveAsset(req, res, name) {
  const built = await assets;
  if (!built.ok) {
    send(res, 500, 'text/plain; charset=utf-8', `the browser bundles could not be built: ${built.error}\n`);
    return;
  }
  if (name === 'manifest.json') {
    const files = Object.fromEntries([...built.assets.files].map(([k, v]) => [k, v.body.length]));
    send(res, 200, 'application/json', JSON.stringify({ buildMs: Math.round(built.assets.ms), files, warnings: built.assets.warnings }));
    return;
  }
  const a = built.assets.files.get(name);
  if (!a) {
    send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
    return;
  }
  /** @type {Record<string, string>} */
  const headers = {
    'content-type': a.type,
    etag: a.etag,
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
  };
  // a worker script's own policy (workers do not inherit the page's): compile checked IR and the core
  if (name.startsWith('js/')) headers['content-security-policy'] = "default-src 'none'; script-src 'self' 'unsafe-eval'; connect-src 'self' ws: wss:";
  if (req.headers['if-none-match'] === a.etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  headers['content-length'] = String(a.body.length);
  res.writeHead(200, headers);
  res.end(req.method === 'HEAD' ? undefined : a.body);
}

/** @param {Req} req @param {Res} res @param {any} host @param {string} p */
async function delegate(req, res, host, p) {
  let handler;
  try {
    handler = await loadDashboard();
  } catch (e) {
    send(res, 500, 'text/plain; charset=utf-8', `the dashboard failed to load: ${e instanceof Error ? e.message : e}\n`);
    return;
  }
  if (handler) {
    try {
      if (await handler(req, res, host)) return;
    } catch (e) {
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', `dashboard error: ${e instanceof Error ? e.message : e}\n`);
      return;
    }
  }
  if (res.headersSent) return;
  if (p === '/') {
    send(res, 200, 'text/html; charset=utf-8', `<!doctype html><meta charset="utf-8"><title>termite-node</title>
<p>termite-node <code>${host.identity.id}</code>. The dashboard is not part of this build.
<p><a href="/worker">Open a compute worker tab</a>
`);
    return;
  }
  send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
}

/**
 * Whether a Host header names this daemon: an IP literal, `localhost`, or the host it
 * was started with (with or without a port).
 * @param {string | undefined} value @param {any} host
 */
export function hostAllowed(value, host) {
  if (!value) return false;
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:]+)(?::(\d+))?$/.exec(value);
  if (!m) return false;
  const name = m[1].toLowerCase();
  if (name === 'localhost' || name.startsWith('[')) return true;
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(name)) return true;
  return name === String(host.opts?.host ?? '').toLowerCase();
}

/** @param {Res} res */
function methodNotAllowed(res) {
  res.setHeader('allow', 'GET, HEAD');
  send(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n');
  return true;
}

/** @param {Res} res @param {number} code @param {string} type @param {string} body */
function send(res, code, type, body) {
  res.writeHead(code, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(body);
}
