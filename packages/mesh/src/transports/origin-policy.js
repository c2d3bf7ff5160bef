// @ts-check
/**
 * Which browser pages may open a WebSocket to a listening node (docs/mesh.md §4,
 * "Which pages may open the WebSocket"). A browser sends `Origin` with every WebSocket
 * upgrade and a page cannot forge it; other programs (mesh nodes in Node) send none.
 *
 *   - no `Origin` header: allowed (not a browser; admission still needs the token);
 *   - an origin in the allow-list (`allowedOrigins`): allowed;
 *   - this node's own pages: the origin is the `Host` the request was sent to (scheme
 *     aside) and that Host names this node (an IP literal, `localhost`, or a name the
 *     listener was given): a page this node served, opening the WebSocket on the name
 *     it was loaded from. A page of another site whose DNS name was rebound to this
 *     address sends its own name as Host, which names nothing here;
 *   - the loopback equivalents of that: a page of `http://localhost:P` opening
 *     `ws://127.0.0.1:P` (or `[::1]`), same port, both loopback names;
 *   - anything else, `null` (sandboxed and file pages) included: refused, 403, before
 *     the upgrade.
 *
 * Pure functions of the request's headers: no state, no I/O.
 */
import { isIP } from 'node:net';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * @typedef {object} OriginPolicy
 * @property {ReadonlySet<string>} allowed origins as `URL.origin` spells them
 * @property {ReadonlySet<string>} hostNames lower-case names (not IP literals) that name this node
 */

/**
 * @param {readonly string[]} allowedOrigins already normalized (options.js)
 * @param {readonly (string | undefined)[]} hostNames names the listener was given (IP literals are ignored: every literal names the node)
 * @returns {OriginPolicy}
 */
export function originPolicy(allowedOrigins, hostNames) {
  const names = hostNames.filter((h) => typeof h === 'string' && h !== '' && isIP(h) === 0).map((h) => /** @type {string} */ (h).toLowerCase());
  return { allowed: new Set(allowedOrigins), hostNames: new Set(names) };
}

/**
 * Whether an upgrade with these headers may proceed; the reason when not.
 * @param {OriginPolicy} policy
 * @param {string | undefined} origin the `Origin` header
 * @param {string | undefined} host the `Host` header
 * @returns {string | null} null if allowed, else why not
 */
export function checkOrigin(policy, origin, host) {
  if (origin === undefined) return null;
  const o = URL.canParse(origin) ? new URL(origin) : null;
  if (!o || (o.protocol !== 'http:' && o.protocol !== 'https:')) return `origin ${JSON.stringify(origin.slice(0, 200))} may not open a WebSocket here`;
  if (policy.allowed.has(o.origin)) return null;
  const h = host !== undefined && URL.canParse(`${o.protocol}//${host}`) ? new URL(`${o.protocol}//${host}`) : null;
  if (h && h.host === o.host && namesThisNode(policy, h.hostname)) return null;
  if (h && h.port === o.port && LOOPBACK.has(h.hostname) && LOOPBACK.has(o.hostname)) return null;
  return `origin ${o.origin} is neither this node's own nor allowed (allowedOrigins; termite-node --allow-origin)`;
}

/** @param {OriginPolicy} policy @param {string} hostname as URL spells it (IPv6 in brackets) */
function namesThisNode(policy, hostname) {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) !== 0 || hostname === 'localhost' || policy.hostNames.has(hostname);
}
