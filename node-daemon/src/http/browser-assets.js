// @ts-check
/**
 * What a browser tab needs to become a node: the worker page and the bundles.
 *
 *   GET /worker        the compute-worker page, with this mesh's token, this daemon's id,
 *                      the WebSocket URL to join and the STUN/TURN servers (with TURN
 *                      credentials made for this page: ice-servers.js) embedded (docs/browser.md)
 *   GET /assets/...    the browser bundles and the core's .wasm (@termite/web's bundles.js:
 *                      the ones shipped in the package, or in the repository built in
 *                      memory when this module loads, in parallel with the daemon's start-up)
 *   GET /assets/manifest.json   what was built, the sizes and the build time
 *
 * Invariants: the worker page carries the mesh token, so it is never stored, framed or
 * referred; the router's Host check (request-checks.js) keeps it from pages that rebind
 * their DNS name to this address, and its OS-user check from other users of this
 * machine. Assets are served with an ETag and revalidated
 * (`no-cache`); a worker script gets its own Content-Security-Policy (workers do not
 * inherit the page's).
 */
import { webAssets } from '@termite/web/bundles';
import { workerPageHtml, WORKER_PAGE_CSP } from '@termite/web/pages';
import { sendText } from './respond.js';
import { errorText } from '../bounded.js';
import { pageIceServers } from '../ice-servers.js';

/** The bundles: started when the daemon loads this module, in parallel with its start-up. */
const assets = webAssets().then(
  (a) => ({ ok: /** @type {const} */ (true), assets: a }),
  (e) => ({ ok: /** @type {const} */ (false), error: errorText(e) }),
);

/** GET /worker. @param {import('./router.js').RouteContext} ctx */
export function serveWorkerPage({ req, res, host }) {
  const authority = /** @type {string} */ (req.headers.host);
  const html = workerPageHtml({
    token: host.token,
    // a page served over https:// joins over wss:// (a secure page may not open ws://)
    join: `${/** @type {any} */ (req.socket).encrypted ? 'wss' : 'ws'}://${authority}/`,
    daemonId: host.identity.id,
    // a tab installs the libraries of the publishers its daemon trusts
    trust: [...(host.distribution?.libraries.trusted ?? [])],
    workerUrl: '/assets/js/worker.js',
    iceServers: pageIceServers(host.opts.ice),
    iceTransportPolicy: host.opts.ice?.policy ?? 'all',
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

/** GET /assets/NAME. @param {import('./router.js').RouteContext} ctx */
export async function serveAsset({ req, res, path }) {
  const name = path.slice('/assets/'.length);
  const built = await assets;
  if (!built.ok) return sendText(res, 500, `the browser bundles could not be built: ${built.error}\n`);
  if (name === 'manifest.json') {
    const files = Object.fromEntries([...built.assets.files].map(([k, v]) => [k, v.body.length]));
    return sendText(res, 200, JSON.stringify({ buildMs: Math.round(built.assets.ms), prebuilt: built.assets.prebuilt, files, warnings: built.assets.warnings }), 'application/json');
  }
  const a = built.assets.files.get(name);
  if (!a) return sendText(res, 404, 'not found\n');
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
