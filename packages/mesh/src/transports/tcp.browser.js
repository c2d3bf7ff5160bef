// @ts-check
/**
 * The TCP transport in a browser: there is none (a page cannot open TCP sockets).
 * Selected instead of tcp.js by package.json "browser"; a mesh node in a tab never
 * enables it, and one that tries gets TransportUnavailableError.
 */
import { TransportUnavailableError } from '../errors.js';

export const DEFAULT_TCP_MAX_MESSAGE_BYTES = 1024 * 1024;

/**
 * @param {import('./tcp.js').TcpInit} [_init]
 * @returns {(components: import('../interfaces.js').TransportComponents) => any}
 */
export function tcpTransport(_init) {
  return () => {
    throw new TransportUnavailableError('a browser tab cannot open TCP links; it joins a daemon over WebSocket');
  };
}

/** @returns {Promise<never>} */
export async function listenSharedServer() {
  throw new TransportUnavailableError('a browser tab cannot listen');
}
