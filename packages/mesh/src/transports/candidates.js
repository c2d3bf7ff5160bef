// @ts-check
/**
 * ICE candidate policy (docs/mesh.md §4): which candidates a node announces
 * and accepts. The project's tests and benchmarks must keep all traffic on
 * loopback, whichever way the browser is run:
 *
 * - 'loopback' (default): only UDP host candidates with address 127.0.0.1
 *   pass, in both directions. node-datachannel bound to 127.0.0.1 gathers
 *   exactly those; so does Chromium run in a network namespace of its own
 *   whose only interface is loopback.
 * - 'loopback-rewrite': as 'loopback', but an IPv4 host candidate with
 *   another address is rewritten to 127.0.0.1 instead of dropped: Chromium in
 *   the host's network namespace gathers the default-route address on a
 *   socket bound to 0.0.0.0, so it does receive on 127.0.0.1
 *   (e2e/helpers/browser.js launches it so). IPv6 and mDNS (`.local`)
 *   candidates are dropped.
 * - 'any': no filtering (real networks; add STUN/TURN servers then).
 *
 * Both ends apply their policy to what they send and to what they receive,
 * and the filter is idempotent, so a candidate that passed once passes again.
 */

/** @typedef {'loopback' | 'loopback-rewrite' | 'any'} CandidatePolicy */

export const LOOPBACK = '127.0.0.1';

/**
 * @param {string} line a candidate line, with or without `a=`
 * @param {CandidatePolicy} policy
 * @returns {string | null} the line to use (without `a=`), or null to drop it
 */
export function filterCandidate(line, policy) {
  const c = line.replace(/^a=/, '').trim();
  if (policy === 'any') return c || null;
  // candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type> ...
  const f = c.split(/\s+/);
  if (f.length < 8 || !f[0].startsWith('candidate:') || f[6] !== 'typ') return null;
  if (f[2].toLowerCase() !== 'udp' || f[7] !== 'host') return null;
  if (f[4] === LOOPBACK) return f.join(' ');
  const ipv4 = /^\d{1,3}(\.\d{1,3}){3}$/.test(f[4]);
  if (policy === 'loopback-rewrite' && ipv4) {
    f[4] = LOOPBACK;
    return f.join(' ');
  }
  return null;
}

/**
 * Apply the policy to the candidate lines of an SDP (other lines unchanged).
 * @param {string} sdp @param {CandidatePolicy} policy
 */
export function filterSdp(sdp, policy) {
  if (policy === 'any') return sdp;
  const eol = sdp.includes('\r\n') ? '\r\n' : '\n';
  const out = [];
  for (const line of sdp.split(eol)) {
    if (line.startsWith('a=candidate:')) {
      const c = filterCandidate(line, policy);
      if (c) out.push('a=' + c);
    } else out.push(line);
  }
  return out.join(eol);
}

/** @param {unknown} p @returns {p is CandidatePolicy} */
export function isCandidatePolicy(p) {
  return p === 'loopback' || p === 'loopback-rewrite' || p === 'any';
}
