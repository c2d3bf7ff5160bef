// @ts-check
/**
 * Named errors of @termite/mesh, one class per condition (the js-libp2p
 * convention). Code branches on `err.name`, never on the message; the same
 * names travel to peers in ERROR and RES_ERR frames (docs/mesh.md §7), so a
 * peer that receives `{name: 'FrameTooLargeError'}` knows exactly what it did.
 * Every message names the offending value (a size, a type code, a node id).
 */

/** Base class of every error this package throws or reports. */
export class MeshError extends Error {
  /** @param {string} message @param {ErrorOptions} [options] */
  constructor(message, options) {
    super(message, options);
    this.name = 'MeshError';
  }
}

/** A caller passed a bad argument (not a node id, a negative size, a bad URL...). */
export class InvalidArgumentError extends MeshError {
  /** @param {string} message */
  constructor(message) { super(message); this.name = 'InvalidArgumentError'; }
}

/** The node is not started (or already stopped). */
export class NotStartedError extends MeshError {
  /** @param {string} message */
  constructor(message) { super(message); this.name = 'NotStartedError'; }
}

/**
 * A peer was refused admission (or refused us). `reason` is one of the fixed
 * strings of {@link ADMISSION_REASONS}; the message adds detail.
 */
export class AdmissionError extends MeshError {
  /**
   * @param {AdmissionReason} reason
   * @param {string} [detail]
   */
  constructor(reason, detail) {
    super(detail ? `admission refused: ${reason} (${detail})` : `admission refused: ${reason}`);
    this.name = 'AdmissionError';
    /** Why: one of ADMISSION_REASONS. */
    this.reason = reason;
    /** Logged at info, not warn: one of many a flood causes (the handshake table logs a summary). */
    this.quiet = false;
  }
}

/**
 * The fixed reasons of an admission refusal. A refused peer receives one of
 * them in the ERROR frame's message (`admission refused: bad token`).
 * @typedef {'bad token' | 'bad signature' | 'node id does not match key' | 'replayed handshake'
 *   | 'protocol version' | 'malformed handshake' | 'unexpected frame' | 'handshake timeout'
 *   | 'too many handshakes' | 'connected to self' | 'connection closed' | 'node stopping'
 *   | 'encryption required'} AdmissionReason
 */
/** @type {readonly AdmissionReason[]} */
export const ADMISSION_REASONS = Object.freeze(/** @type {AdmissionReason[]} */ ([
  'bad token', 'bad signature', 'node id does not match key', 'replayed handshake',
  'protocol version', 'malformed handshake', 'unexpected frame', 'handshake timeout',
  'too many handshakes', 'connected to self', 'connection closed', 'node stopping', 'encryption required',
]));

/**
 * A frame carried an envelope version this node does not speak (a node of another
 * release: frames.js VERSION says what changed in each).
 */
export class ProtocolVersionError extends MeshError {
  /** @param {unknown} version the peer's @param {number} spoken this node's (frames.js VERSION) */
  constructor(version, spoken) {
    super(`protocol version ${String(version)} is not supported (this node speaks version ${spoken})`);
    this.name = 'ProtocolVersionError';
    this.version = version;
    /** The version this node speaks. */
    this.spoken = spoken;
  }
}

/** Bytes that are not a well-formed frame: not CBOR, truncated, wrong field types or counts. */
export class MalformedFrameError extends MeshError {
  /** @param {string} message */
  constructor(message) { super(message); this.name = 'MalformedFrameError'; }
}

/** A frame whose type code this node does not know. */
export class UnknownFrameTypeError extends MeshError {
  /** @param {unknown} frameType */
  constructor(frameType) {
    super(`unknown frame type ${String(frameType)}`);
    this.name = 'UnknownFrameTypeError';
    this.frameType = frameType;
  }
}

/** A CBOR tag inside a frame envelope (envelopes use no tags; payloads are opaque). */
export class UnknownTagError extends MeshError {
  /** @param {number} tag @param {number} offset */
  constructor(tag, offset) {
    super(`unknown CBOR tag ${tag} at byte ${offset} of the frame envelope`);
    this.name = 'UnknownTagError';
    this.tag = tag;
  }
}

/** A well-formed frame that is not allowed in the current state (HELLO after admission, ...). */
export class UnexpectedFrameError extends MeshError {
  /** @param {string} message */
  constructor(message) { super(message); this.name = 'UnexpectedFrameError'; }
}

/** A frame or message larger than a limit (transport message size, maxFrameBytes). */
export class FrameTooLargeError extends MeshError {
  /** @param {number} size @param {number} limit @param {string} [what] */
  constructor(size, limit, what = 'frame') {
    super(`${what} of ${size} bytes exceeds the limit of ${limit} bytes`);
    this.name = 'FrameTooLargeError';
    this.size = size;
    this.limit = limit;
  }
}

/** A CHUNK frame out of sequence (wrong index, a new message while one is incomplete, sizes that do not add up). */
export class ChunkOrderError extends MeshError {
  /** @param {string} message */
  constructor(message) { super(message); this.name = 'ChunkOrderError'; }
}

/** Reassembling a chunked message would exceed the node's reassembly memory budget. */
export class ReassemblyLimitError extends MeshError {
  /** @param {string} message */
  constructor(message) { super(message); this.name = 'ReassemblyLimitError'; }
}

/** A chunked message was not completed within reassemblyTimeoutMs. */
export class ReassemblyTimeoutError extends MeshError {
  /** @param {string} message */
  constructor(message) { super(message); this.name = 'ReassemblyTimeoutError'; }
}

/** A peer sent more bad frames than the error budget allows; its connection is closed. */
export class TooManyErrorsError extends MeshError {
  /** @param {number} count @param {number} windowMs */
  constructor(count, windowMs) {
    super(`${count} protocol errors within ${windowMs} ms: closing the connection`);
    this.name = 'TooManyErrorsError';
  }
}

/** A send or operation on a connection that is closed or closing. */
export class ConnectionClosedError extends MeshError {
  /** @param {string} message */
  constructor(message) { super(message); this.name = 'ConnectionClosedError'; }
}

/** Opening a connection failed (refused, timed out, bad URL). */
export class DialError extends MeshError {
  /** @param {string} message @param {ErrorOptions} [options] */
  constructor(message, options) { super(message, options); this.name = 'DialError'; }
}

/** The transport cannot do this in this environment (a WebSocket listener in a browser). */
export class TransportUnavailableError extends MeshError {
  /** @param {string} message */
  constructor(message) { super(message); this.name = 'TransportUnavailableError'; }
}

/** No direct link and no route to a node id. */
export class UnreachableError extends MeshError {
  /** @param {string} peerId @param {string} [detail] */
  constructor(peerId, detail) {
    super(`node ${peerId} is unreachable${detail ? ': ' + detail : ''}`);
    this.name = 'UnreachableError';
    this.peerId = peerId;
  }
}

/** A routed frame used up its hop limit before reaching its destination. */
export class HopLimitError extends MeshError {
  /** @param {string} dst @param {number} hopLimit */
  constructor(dst, hopLimit) {
    super(`routed frame to ${dst} exceeded the hop limit of ${hopLimit}`);
    this.name = 'HopLimitError';
  }
}

/** A peer's send queue is full (maxQueueBytes): the caller must wait for 'drain'. */
export class QueueFullError extends MeshError {
  /** @param {string} peerId @param {number} queued @param {number} limit */
  constructor(peerId, queued, limit) {
    super(`send queue to ${peerId} is full (${queued} bytes queued, limit ${limit})`);
    this.name = 'QueueFullError';
    this.peerId = peerId;
  }
}

/** A request got no response within its timeout. */
export class RequestTimeoutError extends MeshError {
  /** @param {string} peerId @param {number} timeoutMs */
  constructor(peerId, timeoutMs) {
    super(`request to ${peerId} got no response within ${timeoutMs} ms`);
    this.name = 'RequestTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

/** An operation was cancelled through its AbortSignal. */
export class AbortError extends MeshError {
  /** @param {string} [message] */
  constructor(message = 'the operation was aborted') { super(message); this.name = 'AbortError'; }
}

/** Too many requests are outstanding (maxPendingRequests). */
export class TooManyRequestsError extends MeshError {
  /** @param {number} limit */
  constructor(limit) {
    super(`${limit} requests are already outstanding`);
    this.name = 'TooManyRequestsError';
  }
}

/** A request reached a node that has no request handler (onRequest was never called). */
export class NoHandlerError extends MeshError {
  /** @param {string} nodeId */
  constructor(nodeId) {
    super(`node ${nodeId} has no request handler`);
    this.name = 'NoHandlerError';
  }
}

/** A peer's request handler failed; `remoteName` is the name of its error. */
export class RemoteError extends MeshError {
  /** @param {string} remoteName @param {string} message */
  constructor(remoteName, message) {
    super(`${remoteName}: ${message}`);
    this.name = 'RemoteError';
    this.remoteName = remoteName;
    this.remoteMessage = message;
  }
}

/** The direct link to a peer went down while an operation was waiting on it. */
export class PeerDownError extends MeshError {
  /** @param {string} peerId @param {string} reason */
  constructor(peerId, reason) {
    super(`peer ${peerId} went down: ${reason}`);
    this.name = 'PeerDownError';
    this.peerId = peerId;
  }
}

/** upgrade() could not open the new transport; traffic stays on the existing link. */
export class UpgradeError extends MeshError {
  /** @param {string} message @param {ErrorOptions} [options] */
  constructor(message, options) { super(message, options); this.name = 'UpgradeError'; }
}

/** A WebRTC signal that is malformed or names an unknown session. */
export class SignallingError extends MeshError {
  /** @param {string} message */
  constructor(message) { super(message); this.name = 'SignallingError'; }
}

/** An identity that cannot be loaded (unreadable file, bad permissions, id/key mismatch). */
export class IdentityError extends MeshError {
  /** @param {string} message @param {ErrorOptions} [options] */
  constructor(message, options) { super(message, options); this.name = 'IdentityError'; }
}

/**
 * Throw an AbortError if `signal` is aborted (the libp2p `throwIfAborted` rule:
 * every async API checks its signal before starting work).
 * @param {AbortSignal | undefined} signal
 */
export function throwIfAborted(signal) {
  if (signal?.aborted) throw new AbortError();
}
