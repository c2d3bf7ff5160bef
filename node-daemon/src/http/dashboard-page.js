// @ts-check
/**
 * GET / — the dashboard page (docs/dashboard.md), as @termite/web builds it: one HTML
 * page with its script and stylesheet inlined, built on the first request and shared.
 *
 * Invariants: served under the page's own Content-Security-Policy (its script by hash,
 * connections to its own origin), never framed, no referrer, revalidated by ETag; the
 * page holds no mesh token.
 */
import { dashboardPage } from '@termite/web/pages';
import { sendText } from './respond.js';
import { errorText } from '../bounded.js';

/** @param {import('./router.js').RouteContext} ctx */
export async function serveDashboardPage({ req, res }) {
  let built;
  try {
    built = await dashboardPage();
  } catch (e) {
    return sendText(res, 500, `The dashboard could not be built (esbuild, through @termite/web's build.js, bundles it): ${errorText(e)}\n`);
  }
  const headers = {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': built.csp,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-cache',
    etag: built.etag,
  };
  if (req.headers['if-none-match'] === built.etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  res.writeHead(200, headers);
  res.end(req.method === 'HEAD' ? undefined : built.html);
}
