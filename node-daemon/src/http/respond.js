// @ts-check
/**
 * How the daemon's HTTP side writes a whole answer: JSON for the API, plain text for
 * everything else (refusals of pages and assets, build failures).
 *
 * Invariant: every answer written here is `nosniff` and never cached (`no-store`): they
 * are errors or live state, never something a browser should keep.
 */

/** @typedef {import('node:http').ServerResponse} Res */

/** @param {Res} res @param {number} status @param {any} body */
export function sendJson(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(JSON.stringify(body));
}

/** @param {Res} res @param {number} status @param {string} text @param {string} [type] */
export function sendText(res, status, text, type = 'text/plain; charset=utf-8') {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.end(text);
}
