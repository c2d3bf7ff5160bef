// @ts-check
/**
 * How the daemon's HTTP side writes a whole answer: JSON for the API, plain text for
 * everything else (refusals of pages and assets, build failures).
 *
 * Invariant: every answer written here is `nosniff` and never cached (`no-store`): they
 * are errors or live state, never something a browser should keep. An answer given
 * before the request's body was read (a refusal) is written whole first; then up to
 * DISCARD_MAX bytes of the body are read and dropped (a body that ends within them
 * closes the connection cleanly); past them nothing more is read (TCP stops the
 * sender) and the connection is cut LINGER_MS later — time for the client to read the
 * answer, which a reset arriving first would destroy. Every refused connection is
 * closed within DISCARD_MS at the latest.
 */

/** @typedef {import('node:http').ServerResponse} Res */
/** @typedef {import('node:http').IncomingMessage} Req */

/** What is read and dropped of a refused body, at most, after the refusal is written. */
export const DISCARD_MAX = 1024 * 1024;
/** How long the client has to read the refusal once the body is no longer read. */
export const LINGER_MS = 1000;
/** How long a refused connection stays open, at most. */
export const DISCARD_MS = 5000;

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

/**
 * Answer a request whose body is not read (yet): the whole answer is written at once,
 * then the body is dropped (bounded, see above) and the connection closed. Cutting the
 * connection at once instead would reset it under a client still sending, which then
 * sees ECONNRESET rather than the answer.
 * @param {Req} req @param {Res} res @param {number} status @param {string} text @param {string} type
 */
export function answerUnreadBody(req, res, status, text, type) {
  const bytes = Buffer.from(text, 'utf8');
  res.writeHead(status, { 'content-type': type, 'content-length': String(bytes.length), connection: 'close', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  res.write(bytes);
  let dropped = 0;
  /** @type {NodeJS.Timeout|null} */
  let linger = null;
  const finish = () => {
    clearTimeout(bound);
    if (linger !== null) clearTimeout(linger);
    if (!res.writableEnded) res.end();
  };
  const cut = () => {
    finish();
    req.socket.destroy();
  };
  const bound = setTimeout(cut, DISCARD_MS);
  bound.unref();
  req.on('data', (/** @type {Buffer} */ c) => {
    dropped += c.length;
    if (dropped <= DISCARD_MAX || linger !== null) return;
    // enough dropped: read no more (the sender is held by TCP), cut once it had time to read the answer
    req.pause();
    req.socket.pause();
    linger = setTimeout(cut, LINGER_MS);
    linger.unref();
  });
  req.on('end', finish);
  req.on('error', finish);
  req.on('close', () => {
    clearTimeout(bound);
    if (linger !== null) clearTimeout(linger);
  });
  req.resume();
}
