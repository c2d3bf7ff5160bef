// @ts-check
/**
 * What a user is told when `--join URL` fails, one sentence per cause, the same for the
 * daemon, `run` and `repl`: no token given, a wrong token, a node that cannot be
 * reached, or another refusal (with the mesh's own words). Also the lines a node logs
 * when a peer joins or leaves. Pure functions of the mesh's errors and events: the
 * host decides where the lines go and `run` / `repl` decide the exit status.
 */

/** Why a join failed, for a program to act on. @typedef {'no-token'|'wrong-token'|'unreachable'|'refused'} JoinFailureKind */

/** The error of a join that was never tried: a generated token can never match a mesh's. */
export class NoTokenError extends Error {
  constructor() {
    super('no token given');
    this.name = 'NoTokenError';
  }
}

/**
 * Classify a join failure.
 * @param {any} error the error mesh.start() reported for the URL
 * @returns {JoinFailureKind}
 */
export function joinFailureKind(error) {
  if (error instanceof NoTokenError) return 'no-token';
  const message = String(error?.message ?? error);
  if (error?.reason === 'bad token' || /bad token/.test(message)) return 'wrong-token';
  if (error?.name === 'DialError' || /cannot connect|ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ETIMEDOUT|timed? ?out/i.test(message)) return 'unreachable';
  return 'refused';
}

/**
 * The line a user reads for a failed join.
 * @param {string} url @param {any} error
 */
export function describeJoinFailure(url, error) {
  const message = String(error?.message ?? error);
  switch (joinFailureKind(error)) {
    case 'no-token':
      return `cannot join ${url}: no token given (pass --token T, or set TERMITE_TOKEN, to the token of the mesh you join)`;
    case 'wrong-token':
      return `cannot join ${url}: wrong token (the node there belongs to a mesh with another token; check --token or TERMITE_TOKEN)`;
    case 'unreachable':
      return `cannot join ${url}: unreachable (${message.replace(/^cannot connect to \S+: /, '')}; is a termite-node listening there?)`;
    default:
      return `cannot join ${url}: refused (${message})`;
  }
}

/** @param {{id: string, transport: string, address?: string}} e */
export function peerJoinedLine(e) {
  return `peer ${e.id} joined (${e.transport}${e.address ? ` ${e.address}` : ''})`;
}

/** @param {{id: string, reason: string}} e */
export function peerLeftLine(e) {
  return `peer ${e.id} left (${e.reason})`;
}
