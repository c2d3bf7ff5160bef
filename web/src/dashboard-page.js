// @ts-check
/**
 * The dashboard page as the daemon serves it at `/`: web/src/dashboard/index.html with
 * the dashboard's bundle (bundles.js's dashboardBundle: pre-built in a packed package, else
 * bundled now) inlined, so the page needs nothing
 * but the daemon that serves it.
 *
 * Invariants: built once per process, on first demand, and shared by every request (a
 * failed build is forgotten, so the next request tries again). The inlined script and
 * style cannot close their elements (`</script`, `</style` are escaped). The
 * Content-Security-Policy allows exactly this script, by its hash, and connections to
 * the page's own origin; it forbids framing. The page carries no mesh token; its one
 * piece of configuration is the daemon's dashboard secret (what POST /api/eval takes),
 * put into a `<meta name="termite-eval-secret">` per daemon by `dashboardHtml` — outside
 * the script, so the script's hash, and the policy, stay the same.
 */
import { readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dashboardBundle } from './bundles.js';

/** Where the page template (index.html) is. */
const dashboardDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'dashboard');

/**
 * @typedef {object} DashboardPage
 * @property {string} html
 * @property {string} etag
 * @property {string} csp the Content-Security-Policy header the page must be served with
 */

/** @type {Promise<DashboardPage>|null} */
let page = null;

/** The dashboard page (built on the first call). @returns {Promise<DashboardPage>} */
export function dashboardPage() {
  page ??= assemble();
  page.catch(() => (page = null)); // a failed build is retried on the next request
  return page;
}

const SECRET_SLOT = '/*EVAL-SECRET*/';

/**
 * The page's HTML for one daemon: the built page with that daemon's dashboard secret.
 * @param {DashboardPage} built @param {string} secret (base64url: nothing to escape, but
 *   it is escaped anyway)
 */
export function dashboardHtml(built, secret) {
  const safe = secret.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return built.html.replace(SECRET_SLOT, () => safe);
}

/** @returns {Promise<DashboardPage>} */
async function assemble() {
  const { script: js, style: css } = await dashboardBundle();
  const script = js.replace(/<\/(script)/gi, '<\\/$1');
  const style = css.replace(/<\/(style)/gi, '<\\/$1');
  const template = await readFile(path.join(dashboardDir, 'index.html'), 'utf8');
  const html = template
    .replace('/*DASHBOARD-CSS*/', () => style)
    .replace('/*DASHBOARD-JS*/', () => script);
  const scriptHash = createHash('sha256').update(script).digest('base64');
  const csp = [
    "default-src 'none'",
    `script-src 'sha256-${scriptHash}'`,
    "style-src 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return { html, etag: `"${createHash('sha256').update(html).digest('base64url').slice(0, 22)}"`, csp };
}
