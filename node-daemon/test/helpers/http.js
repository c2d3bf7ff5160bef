// @ts-check
/**
 * HTTP against a test daemon's own port, for the dashboard and API tests: one request
 * with full control of the headers (fetch would not send Host, Origin or Sec-Fetch-Site
 * as given), and the dashboard secret read from the page as the page's script reads it.
 *
 * Invariant: every request is bounded (it fails with the path in its message when the
 * daemon does not answer in time); a body that is not JSON leaves `json` null.
 */
import http from 'node:http';

/**
 * @typedef {{method?: string, path: string, headers?: Record<string, string>, body?: string}} TestRequest
 * @typedef {{status: number, headers: http.IncomingHttpHeaders, text: string, json: any}} TestResponse
 */

/**
 * @param {number} port @param {TestRequest} req @param {number} [timeoutMs]
 * @returns {Promise<TestResponse>}
 */
export function request(port, req, timeoutMs = 30000) {
  const method = req.method ?? 'GET';
  return new Promise((resolve, reject) => {
    const r = http.request({ host: '127.0.0.1', port, method, path: req.path, headers: req.headers ?? {} }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => {
        let json = null;
        try {
          json = JSON.parse(text);
        } catch {
          // not JSON
        }
        resolve({ status: /** @type {number} */ (res.statusCode), headers: res.headers, text, json });
      });
    });
    r.setTimeout(timeoutMs, () => r.destroy(new Error(`${method} ${req.path} took longer than ${timeoutMs / 1000} s`)));
    r.on('error', reject);
    r.end(req.body);
  });
}

/**
 * The dashboard secret in the page the daemon serves ('' when the page has none).
 * @param {number} port
 */
export async function dashboardSecret(port) {
  const page = await request(port, { path: '/' });
  return /<meta name="termite-eval-secret" content="([^"]*)">/.exec(page.text)?.[1] ?? '';
}

/**
 * POST `body` as JSON to `path` with the dashboard secret, as the dashboard's buttons do.
 * @param {number} port @param {string} path @param {unknown} body @param {string} secret
 * @param {Record<string, string>} [headers] extra or overriding headers
 */
export function postAsDashboard(port, path, body, secret, headers = {}) {
  return request(port, { method: 'POST', path, headers: { 'content-type': 'application/json', 'x-termite-eval': secret, ...headers }, body: JSON.stringify(body) });
}
