// @ts-check
/**
 * GET / — the dashboard page (docs/dashboard.md), as @termite/web builds it: one HTML
 * page with its script and stylesheet inlined, built on the first request and shared.
 *
 * Invariants: served under the page's own Content-Security-Policy (its script by hash,
 * connections to its own origin), never framed, no referrer; the page holds no mesh
 * token but holds this daemon's dashboard secret (what POST /api/eval takes), so, like
 * the worker page, it is never stored (`no-store`, no ETag).
 */
import { dashboardPage, dashboardHtml } from '@termite/web/pages';
import { sendText } from './respond.js';
import { errorText } from '../bounded.js';

/** @param {import('./router.js').RouteContext} ctx */
export async function serveDashboardPage({ req, res, host }) {
  let built;
  try {
    built = await dashboardPage();
  } catch (e) {
    return sendText(res, 500, `The dashboard page could not be made (@termite/web's bundles.js: its pre-built bundle, or esbuild in a repository checkout): ${errorText(e)}\n`);
  }
  const headers = {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': built.csp,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    // the page carries the dashboard secret: never stored
    'cache-control': 'no-store',
  };
  res.writeHead(200, headers);
  res.end(req.method === 'HEAD' ? undefined : dashboardHtml(built, host.evalSecret ?? ''));
}
