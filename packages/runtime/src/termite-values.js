// @ts-check
/**
 * The Scheme values the process runtime adds: process ids, tags, node references,
 * tuple-space handles and Linda formals — each with its printer, its equality (by what
 * it denotes, so a pid sent away and back is `equal?` to the original) and its CBOR
 * codec (docs/wire-format.md). In JavaScript they print as in Scheme (`String(pid)` is
 * `#<pid 3@…>`, and so is `console.log(pid)`, through `toString` and Node's inspect
 * hook, found by its registered symbol so that the browser build needs no node:util).
 */
import { registerValueCodec, registerEquality, registerPrinter, CodecError } from '@termite/scheme/internal';

export const TAG_PID = 40974;
export const TAG_TAG = 40975;
export const TAG_NODE = 40976;
export const TAG_SPACE = 40983;
export const TAG_FORMAL = 40992;

/** Node's util.inspect hook, by its registered name (no import of node:util). */
const INSPECT = Symbol.for('nodejs.util.inspect.custom');

/** @param {string} id */
const shortId = (id) => (id.length > 12 ? id.slice(0, 12) : id);

/** A process identifier: the node that created the process and its serial there. */
export class Pid {
  /** @param {string} node node id @param {number} n serial, unique on that node */
  constructor(node, n) {
    this.node = node;
    this.n = n;
    /** @type {any} the local Process, when this pid names one of this node's processes (a cache, never sent) */
    this.p = null;
    /** @type {Uint8Array | null} this pid's CBOR encoding, kept by the encoder (keepsWire) */
    this.wire = null;
  }
  toString() {
    return `#<pid ${this.n}@${shortId(this.node)}>`;
  }
  [INSPECT]() {
    return this.toString();
  }
}

/** A universally unique tag (`make-tag`): node id + serial. */
export class Tag {
  /** @param {string} node @param {number} n */
  constructor(node, n) {
    this.node = node;
    this.n = n;
  }
  toString() {
    return `#<tag ${this.n}@${shortId(this.node)}>`;
  }
  [INSPECT]() {
    return this.toString();
  }
}

/**
 * A reference to a node. A daemon is named by its address (host, port) and id; a
 * browser tab by id only. Two references are `equal?` when they share an id, or,
 * when either lacks an id, the same address.
 */
export class NodeRef {
  /** @param {string|null} id @param {string|null} host @param {number|null} port */
  constructor(id, host, port) {
    this.id = id;
    this.host = host;
    this.port = port;
  }
  toString() {
    return `#<node ${this.host !== null ? `${this.host}:${this.port}` : shortId(this.id ?? '?')}>`;
  }
  [INSPECT]() {
    return this.toString();
  }
}

/** The kinds of tuple space a reference may name (docs/linda.md, "Kinds of space"). */
export const SPACE_KINDS = ['local', 'central', 'distributed'];

/**
 * A reference to a tuple space: its home (the node holding it), its name there and its
 * kind. Equality is by home and name: the kind describes the space, it does not name it.
 */
export class SpaceRef {
  /** @param {string} node the node holding the space @param {string} name @param {string} [kind] 'local', 'central' or 'distributed' */
  constructor(node, name, kind = 'local') {
    this.node = node;
    this.name = name;
    this.kind = kind;
  }
  toString() {
    return `#<space ${this.name}@${shortId(this.node)}${this.kind === 'local' ? '' : ` ${this.kind}`}>`;
  }
  [INSPECT]() {
    return this.toString();
  }
}

/** A Linda formal: matches any field of its type (core type codes, docs/wire-format.md). */
export class Formal {
  /** @param {number} code @param {number} [tag] for code 11 (tagged) */
  constructor(code, tag = 0) {
    this.code = code;
    this.tag = tag;
  }
  toString() {
    return this.code === 11 ? `#<formal tagged ${this.tag}>` : `#<formal ${FORMAL_NAMES[this.code]}>`;
  }
  [INSPECT]() {
    return this.toString();
  }
}

export const FORMAL_NAMES = ['any', 'integer', 'number', 'float', 'string', 'symbol', 'bytes', 'boolean', 'vector', 'map', 'null', 'tagged'];

registerEquality(Pid, (a, b) => a.node === b.node && a.n === b.n, { eqv: true });
registerEquality(Tag, (a, b) => a.node === b.node && a.n === b.n, { eqv: true });
registerEquality(NodeRef, (a, b) => nodeRefEqual(a, b), { eqv: true });
registerEquality(SpaceRef, (a, b) => a.node === b.node && a.name === b.name, { eqv: true });
registerEquality(Formal, (a, b) => a.code === b.code && a.tag === b.tag, { eqv: true });

/** @param {NodeRef} a @param {NodeRef} b */
export function nodeRefEqual(a, b) {
  if (a.id !== null && b.id !== null) return a.id === b.id;
  return a.host !== null && a.host === b.host && a.port === b.port;
}

registerPrinter(Pid, (x) => x.toString());
registerPrinter(Tag, (x) => x.toString());
registerPrinter(NodeRef, (x) => x.toString());
registerPrinter(SpaceRef, (x) => x.toString());
registerPrinter(Formal, (x) => x.toString());

/** @param {any} x @param {string} what */
const text = (x, what) => {
  if (typeof x !== 'string') throw new CodecError(`${what} must be a string`);
  return x;
};
/** @param {any} x @param {string} what */
const serial = (x, what) => {
  if (!Number.isSafeInteger(x) || x < 0) throw new CodecError(`${what} must be a non-negative integer`);
  return x;
};

/** Pids decoded on this node are resolved to local processes through this hook. */
export const pidHooks = {
  /** @type {(pid: Pid) => Pid} */
  intern: (pid) => pid,
};

/**
 * The size of the CBOR head at b[at] if it is an unsigned integer below 2^32, as a
 * pid's serial is written, else 0 (serialAt reads its value).
 * @param {Uint8Array} b @param {number} at
 */
export function serialHeadSize(b, at) {
  const ib = b[at];
  return ib < 24 ? 1 : ib === 24 ? 2 : ib === 25 ? 3 : ib === 26 ? 5 : 0;
}

/** The serial whose head is at b[at] (serialHeadSize gave its size). @param {Uint8Array} b @param {number} at */
export function serialAt(b, at) {
  const ib = b[at];
  if (ib < 24) return ib;
  if (ib === 24) return b[at + 1];
  if (ib === 25) return (b[at + 1] << 8) | b[at + 2];
  return ((b[at + 1] << 24) >>> 0) + ((b[at + 2] << 16) | (b[at + 3] << 8) | b[at + 4]);
}

/**
 * Other nodes' pids decoded lately, by serial: a message's reply-to pid recurs in
 * message after message, and finding it here costs less than decoding it again. Pids of
 * this node's processes are not kept (a pid holds its Process; a dead one would stay).
 */
const RECENT_PIDS = 64;
/** @type {Array<Pid | undefined>} */
const recentPids = new Array(RECENT_PIDS).fill(undefined);

/**
 * A pid in recentPids whose encoded fields, [node id, serial], are the bytes at d.pos
 * (ASCII node id, serial below 2^32), with d.pos moved past them; else undefined.
 * @param {Uint8Array} b @param {{pos: number}} d
 */
function knownPid(b, d) {
  let at = d.pos;
  if (b[at] !== 0x82) return undefined;
  const th = b[at + 1];
  let len;
  if (th >= 0x60 && th < 0x78) {
    len = th - 0x60;
    at += 2;
  } else if (th === 0x78) {
    len = b[at + 2];
    at += 3;
  } else return undefined;
  const textAt = at;
  at += len;
  const size = serialHeadSize(b, at);
  if (size === 0 || at + size > b.length) return undefined;
  const n = serialAt(b, at);
  at += size;
  const pid = recentPids[n & (RECENT_PIDS - 1)];
  if (pid === undefined || pid.n !== n) return undefined;
  const node = pid.node;
  if (node.length !== len) return undefined;
  for (let i = 0; i < len; i++) if (node.charCodeAt(i) !== b[textAt + i]) return undefined;
  d.pos = at;
  return pid;
}

registerValueCodec({
  cls: Pid,
  leaf: true,
  keepsWire: true,
  tag: TAG_PID,
  encode: (x) => [x.node, x.n],
  decode: ([node, n]) => {
    const pid = pidHooks.intern(new Pid(text(node, 'pid node'), serial(n, 'pid serial')));
    if (pid.p === null && n < 2 ** 32) recentPids[n & (RECENT_PIDS - 1)] = pid;
    return pid;
  },
  decodeKnown: knownPid,
});
registerValueCodec({
  cls: Tag,
  leaf: true,
  tag: TAG_TAG,
  encode: (x) => [x.node, x.n],
  decode: ([node, n]) => new Tag(text(node, 'tag node'), serial(n, 'tag serial')),
});
registerValueCodec({
  cls: NodeRef,
  leaf: true,
  tag: TAG_NODE,
  encode: (x) => [x.id ?? false, x.host ?? false, x.port ?? false],
  decode: ([id, host, port]) => new NodeRef(id === false ? null : text(id, 'node id'), host === false ? null : text(host, 'node host'), port === false ? null : serial(port, 'node port')),
});
registerValueCodec({
  cls: SpaceRef,
  leaf: true,
  tag: TAG_SPACE,
  // [home, name] for a local space (the form older nodes write), [home, name, kind] otherwise
  encode: (x) => (x.kind === 'local' ? [x.node, x.name] : [x.node, x.name, x.kind]),
  decode: (v) => {
    if (v.length !== 2 && v.length !== 3) throw new CodecError('a space reference is [home, name] or [home, name, kind]');
    const kind = v.length === 3 ? text(v[2], 'space kind') : 'local';
    if (!SPACE_KINDS.includes(kind)) throw new CodecError(`unknown space kind ${JSON.stringify(kind.slice(0, 40))} (expected one of ${SPACE_KINDS.join(', ')})`);
    const name = text(v[1], 'space name');
    if (name.length > 256) throw new CodecError('a space name is at most 256 characters');
    return new SpaceRef(text(v[0], 'space node'), name, kind);
  },
});
// A formal is tag 40992 around its type code, or around [11, tag] — exactly what the
// C core's matcher expects in a template.
registerValueCodec({
  cls: Formal,
  leaf: true,
  tag: TAG_FORMAL,
  single: true,
  encode: (x) => [x.code === 11 ? [11, x.tag] : x.code],
  decode: ([v]) => {
    if (Number.isInteger(v) && v >= 0 && v <= 10) return new Formal(v);
    if (Array.isArray(v) && v.length === 2 && v[0] === 11 && Number.isInteger(v[1])) return new Formal(11, v[1]);
    throw new CodecError(`unknown formal type ${v}`);
  },
});
