// @ts-check
/**
 * The STUN and TURN servers a daemon gives the tabs it serves (--stun, --turn,
 * --turn-user, --turn-secret, --turn-ttl, --ice-policy; node-daemon/README.md).
 *
 * TURN credentials are coturn's REST-style ones (`use-auth-secret`): the username is
 * `EXPIRY:USER` (EXPIRY in Unix seconds) and the password is
 * base64(HMAC-SHA1(secret, username)). The TURN server checks them with the same
 * shared secret, so the daemon makes them for each page it serves and the secret never
 * leaves the daemon; a page's credentials stop working at EXPIRY.
 *
 * Invariant: what reaches a page are URLs only, in the form the mesh's WebRTC adapters
 * read (`turn:USER:PASSWORD@HOST:PORT`, USER and PASSWORD percent-encoded, since a REST
 * username holds a colon and a base64 password may hold `/` and `+`).
 */
import { createHmac } from 'node:crypto';

/**
 * @typedef {object} IceConfig
 * @property {string[]} stun `stun:HOST[:PORT]` URLs
 * @property {string[]} turn `turn:HOST[:PORT][?transport=udp|tcp]` or `turns:…` URLs (no credentials)
 * @property {string} turnUser the user part of the REST username
 * @property {string|undefined} turnSecret coturn's static-auth-secret (required with turn)
 * @property {number} turnTtlS how long a page's TURN credentials last, in seconds
 * @property {'all' | 'relay'} policy the pages' ICE transport policy
 */

const STUN_URL = /^stun:[A-Za-z0-9.\-[\]:]+$/;
const TURN_URL = /^turns?:[A-Za-z0-9.\-[\]]+(:\d{1,5})?(\?transport=(udp|tcp))?$/;

/**
 * Check the ICE options of the command line; throws an Error naming the mistake.
 * @param {{stun: string[], turn: string[], turnUser?: string, turnSecret?: string, turnTtlS?: number, policy?: string}} o
 * @returns {IceConfig}
 */
export function checkIceConfig(o) {
  for (const u of o.stun) {
    if (!STUN_URL.test(u)) throw new Error(`--stun expects stun:HOST:PORT, got ${u}`);
  }
  for (const u of o.turn) {
    if (u.includes('@')) throw new Error(`--turn takes no credentials in the URL (they would reach every tab): give turn:HOST:PORT and --turn-secret, got ${u}`);
    if (!TURN_URL.test(u)) throw new Error(`--turn expects turn:HOST:PORT or turns:HOST:PORT (optionally ?transport=udp|tcp), got ${u}`);
  }
  if (o.turn.length > 0 && !o.turnSecret) throw new Error('--turn needs --turn-secret (or $TERMITE_TURN_SECRET): the TURN server\'s static-auth-secret, from which each page gets credentials of limited life');
  if (o.turn.length === 0 && o.turnSecret) throw new Error('--turn-secret is given without --turn');
  const user = o.turnUser ?? 'termite';
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(user)) throw new Error(`--turn-user expects 1 to 64 letters, digits, '.', '_' or '-', got ${user}`);
  const ttl = o.turnTtlS ?? 86_400;
  if (!Number.isInteger(ttl) || ttl < 60 || ttl > 7 * 86_400) throw new Error(`--turn-ttl expects whole seconds from 60 to 604800, got ${o.turnTtlS}`);
  const policy = o.policy ?? 'all';
  if (policy !== 'all' && policy !== 'relay') throw new Error(`--ice-policy expects all or relay, got ${policy}`);
  if (policy === 'relay' && o.turn.length === 0) throw new Error('--ice-policy relay needs a --turn server (relay candidates come only from TURN)');
  return { stun: [...o.stun], turn: [...o.turn], turnUser: user, turnSecret: o.turnSecret, turnTtlS: ttl, policy };
}

/**
 * coturn's REST credentials for `user`, valid until `nowS + ttlS`.
 * @param {string} secret @param {string} user @param {number} ttlS @param {number} nowS Unix seconds
 * @returns {{username: string, credential: string}}
 */
export function turnRestCredentials(secret, user, ttlS, nowS) {
  const username = `${Math.floor(nowS) + ttlS}:${user}`;
  return { username, credential: createHmac('sha1', secret).update(username).digest('base64') };
}

/**
 * The STUN/TURN URLs for one page served now: TURN with fresh REST credentials.
 * @param {IceConfig | undefined} ice @param {number} [nowS]
 * @returns {string[]}
 */
export function pageIceServers(ice, nowS = Date.now() / 1000) {
  if (!ice) return [];
  const out = [...ice.stun];
  if (ice.turn.length > 0 && ice.turnSecret) {
    const c = turnRestCredentials(ice.turnSecret, ice.turnUser, ice.turnTtlS, nowS);
    const auth = `${encodeURIComponent(c.username)}:${encodeURIComponent(c.credential)}`;
    for (const u of ice.turn) {
      const [, scheme, rest] = /** @type {RegExpExecArray} */ (/^(turns?):(.*)$/.exec(u));
      out.push(`${scheme}:${auth}@${rest}`);
    }
  }
  return out;
}
