// @ts-check
/**
 * Distribution: Termite processes across the mesh (issue 5; docs/mesh.md, "Termite
 * over the mesh"). The mesh moves opaque payloads between node ids; this module gives
 * them meaning:
 *
 *   one-way frames (mesh.send), each a vector [type, ...] encoded with the value codec:
 *     SEND   [1, pid-node, pid-n, message]      deliver to a process (forwarded if it moved)
 *     SIGNAL [2, pid-node, pid-n, payload]      an exit signal from a linked process
 *     LINK   [3, from-node, from-n, to]         `from` gets an outbound link to `to`
 *     UNLINK [4, from-node, from-n, to]
 *     KILL   [5, pid-node, pid-n]               terminate!
 *     MOVED  [6, pid-node, pid-n, node-id]      the process now lives on node-id
 *     GONE   [7, pid-node, pid-n]               the process ended: drop forwarding entries
 *     ERROR  [8, message]                       a frame from the receiver was refused (undecodable, malformed,
 *                                               unknown type, code it named unobtainable); logged, never answered
 *   requests (mesh.request), answered [#t value] or [#f error-message]:
 *     SPAWN   [20, thunk, params, link-to]      remote-spawn: start a process, answer its pid
 *     MIGRATE [21, process-state]               take over a running process
 *     CODE    [22, unit-hash]                   the IR of a unit (code on demand)
 *     ENV     [23, environment-id]              the global definitions of an environment
 *     SERVICE [24, name]                        a published service's pid
 *     STATS   [25]                              the node's snapshot (JSON text) for dashboards
 *     EVAL    [26, text]                        evaluate Scheme text in the node's REPL environment
 *                                               (JSON text: {ok, outputs}); only for nodes that
 *                                               enable it (the daemon's dashboard)
 *
 * Code on demand: decoding a value whose code (unit hash) this node lacks stops with
 * MissingCode; the unit's IR is fetched from the sender, its hash recomputed, checked
 * against this node's allowed library (ir/check-wire.js), compiled here, cached (memory,
 * and disk under --data), and decoding starts again. A peer never runs JavaScript it
 * received: it only ever receives IR.
 *
 * Location transparency (Termite §6): a pid names the node that created the process.
 * When a process migrates, its old node keeps a forwarding entry; a message arriving
 * there is forwarded and the sender's node is told where the process now lives (MOVED),
 * so later messages go straight there. When the process ends, every node it lived on
 * drops its entry (GONE).
 *
 * Failure: links to processes on a node that goes down (the mesh's 'peer:down', after
 * a disconnection or missed heartbeats) raise exit signals in the linked processes. A
 * node reached through others is down when no neighbour offers a route to it any more
 * (the mesh's 'routes' event, after its own neighbour lost it).
 */
import {
  encodeValue, encodeSmallValue, encodeSmallBetween, encodeAnyValue, decodeValue, CborWriter, CodecError, Environment, instantiate, rtEnv, libraryEnvs, runSlice,
  primitives, LinkError, SLICE_DONE, SLICE_DIED, Thread, checkWire, runtimeUnits, builtinUnit,
} from '@termite/scheme/internal';
import { wireToData, wireFromData, hashWire, threadToData, threadFromData, ErrorObject, VOID, Sym, arrayToList, schemeErrorOf, Closure, writeString } from '@termite/scheme';
import { Pid, NodeRef, serialHeadSize, serialAt } from './values.js';
import { resolveCode, registerUnitInstance, unitsByHash, MissingCode } from './code.js';
import { copyMessage } from './copy.js';

/** The compiler's internal operations (see passes/inline-primitives.js). */
const internalOpNames = new Set(['%make-box', '%unbox', '%set-box!', '%check-bound']);

const F_SEND = 1, F_SIGNAL = 2, F_LINK = 3, F_UNLINK = 4, F_KILL = 5, F_MOVED = 6, F_GONE = 7, F_ERROR = 8;
/** Frame names (for messages) and their lengths on the wire (the environment versions included). */
const FRAMES = [null, ['SEND', 5], ['SIGNAL', 5], ['LINK', 5], ['UNLINK', 5], ['KILL', 4], ['MOVED', 5], ['GONE', 4]];
/** The environment list of a frame with no procedure in it (encode's small path). */
const NO_ENVS = /** @type {any[]} */ (/** @type {unknown} */ (Object.freeze([])));
const R_SPAWN = 20, R_MIGRATE = 21, R_CODE = 22, R_ENV = 23, R_SERVICE = 24, R_STATS = 25, R_EVAL = 26;

/** The encoding of NO_ENVS, the last item of a SEND frame with no procedure in it. */
const NO_ENVS_BYTES = new Uint8Array([0x80]);
/** How many pids' SEND heads a node keeps (a direct-mapped cache, by serial). */
const SEND_HEADS = 64;

/**
 * The start of a SEND frame to `pid` as encodeSmallValue writes it: the head of an array
 * of 5, then its first three items (the type, the node id, the serial). Null when the
 * serial is not below 2^32 (deliverLocalSend reads no larger one; the frame is then
 * encoded whole).
 * @param {Pid} pid
 */
function sendHeadBytes(pid) {
  if (!Number.isSafeInteger(pid.n) || pid.n < 0 || pid.n >= 2 ** 32) return null;
  const w = new CborWriter(64);
  w.array(5);
  w.int(F_SEND);
  w.text(pid.node);
  w.int(pid.n);
  return w.bytes();
}

/** decodeReady's result when the value cannot be decoded yet. */
const NOT_READY = Symbol('not ready');

/** The value of an answer [ok, value or reason, versions]; a refusal throws its reason. @param {unknown} r */
function answerValue(r) {
  if (!Array.isArray(r) || r.length !== 3) throw new CodecError('malformed answer');
  if (r[0] !== true) throw new Error(String(r[1]));
  return r[1];
}

/** How many recent arrivals a node keeps for dashboards (Distribution#arrivals). */
const ARRIVALS_KEPT = 32;

/**
 * Runtime procedures a node does not let code from elsewhere call (the allowed
 * library is every runtime procedure except these): the file system, the host's
 * environment and command line, leaving the host process, and evaluation of text.
 */
export const DEFAULT_DENIED = new Set([
  'open-input-file', 'open-output-file', 'open-binary-input-file', 'open-binary-output-file',
  'call-with-input-file', 'call-with-output-file', 'with-input-from-file', 'with-output-to-file',
  'delete-file', 'file-exists?', 'load', 'exit', 'emergency-exit', '%exit', 'command-line',
  'get-environment-variable', 'get-environment-variables', 'eval', 'environment',
]);

/**
 * @typedef {object} CodeCache persistent cache of units' IR (disk in Node, IndexedDB in tabs)
 * @property {(hash: string) => Promise<Uint8Array|null>} get
 * @property {(hash: string, bytes: Uint8Array) => Promise<void>} put
 */

/** @param {string} node @param {number} n */
const key = (node, n) => `${node}/${n}`;

export class Distribution {
  /**
   * @param {import('./node.js').TermiteNode} node
   * @param {any} mesh a started MeshNode (@termite/mesh)
   * @param {{address?: {host: string, port: number}|null, codeCache?: CodeCache|null, denied?: Set<string>, log?: (s: string) => void, requestTimeoutMs?: number, evaluate?: ((text: string) => Promise<any>)|null, evalPeers?: Set<string>}} [opts]
   */
  constructor(node, mesh, opts = {}) {
    this.node = node;
    this.mesh = mesh;
    this.codeCache = opts.codeCache ?? null;
    this.denied = opts.denied ?? DEFAULT_DENIED;
    this.log = opts.log ?? node.log;
    this.timeoutMs = opts.requestTimeoutMs ?? 5000;
    /** @type {Map<string, string>} where processes born elsewhere now live (pid key → node id) */
    this.location = new Map();
    /** @type {Map<string, string>} processes that left this node: pid key → where they went */
    this.forwarding = new Map();
    /** @type {Map<string, Set<string>>} remote pid key → local pid keys linked to it (for peer-down signals) */
    this.watchers = new Map();
    /** @type {Map<string, Promise<void>>} environments whose definitions are being copied here */
    this.envLoading = new Map();
    /** @type {Map<string, Promise<void>>} environments whose copy is being brought up to date */
    this.refreshing = new Map();
    /** @type {Map<string, {version: number}>} program environments copied from other nodes, and the version copied */
    this.replicas = new Map();
    /** @type {Map<string, Pid>} published services */
    this.services = new Map();
    /** @type {Map<string, string>} "host:port" → node id */
    this.addressBook = new Map();
    /** @type {Map<string, Promise<any>>} code fetches in flight by hash */
    this.fetching = new Map();
    /** @type {Map<string, Promise<void>>} per-sender inbound chain (order of delivery) */
    this.inbound = new Map();
    /** @type {Map<any, any>} runtime units as values from other nodes see them (see receivedCode) */
    this.guardedUnits = new Map();
    this.stats = { sent: 0, received: 0, forwarded: 0, migrationsOut: 0, migrationsIn: 0, codeFetched: 0 };
    /**
     * The last ARRIVALS_KEPT processes that migrated here, oldest first, numbered: a
     * dashboard that samples every node now and then still sees a process that came and
     * left between two samples. @type {{seq: number, pid: string, from: string, name: string}[]}
     */
    this.arrivals = [];
    this.arrivalSeq = 0;
    /** @type {((text: string) => Promise<any>)|null} REPL evaluation of this node (dashboards), if enabled */
    this.evaluate = opts.evaluate ?? null;
    /**
     * Peers allowed to ask this node to evaluate text (EVAL). Evaluation is full access
     * to the node, so a daemon allows none (its own dashboard calls `evaluate` directly)
     * and a tab allows only the daemon that served it.
     * @type {Set<string>}
     */
    this.evalPeers = opts.evalPeers ?? new Set();
    node.remote = this;
    mesh.onMessage((/** @type {string} */ from, /** @type {Uint8Array} */ bytes) => this.onFrame(from, bytes));
    mesh.onRequest((/** @type {string} */ from, /** @type {Uint8Array} */ bytes) => this.onRequest(from, bytes));
    mesh.on('peer:up', (/** @type {any} */ e) => this.notePeer(e.id));
    mesh.on('peer:down', (/** @type {any} */ e) => this.peerDown(e.id, e.reason));
    mesh.on('routes', () => this.routesChanged());
  }

  // ------------------------------------------------------------------ addresses

  /** @param {string} id */
  notePeer(id) {
    for (const p of this.mesh.peers()) {
      if (p.id !== id || !p.listenUrl) continue;
      const m = /^wss?:\/\/([^/:]+):(\d+)/.exec(p.listenUrl);
      if (m) this.addressBook.set(`${m[1]}:${m[2]}`, id);
    }
  }

  /**
   * The node id a NodeRef names, connecting to it if needed.
   * @param {NodeRef} ref
   * @returns {Promise<string>}
   */
  async resolveNode(ref) {
    const known = this.knownNode(ref);
    if (known !== null) return known;
    const addr = `${ref.host}:${ref.port}`;
    const peer = await this.mesh.connect(`ws://${addr}`, { timeoutMs: this.timeoutMs });
    this.addressBook.set(addr, peer.id);
    return peer.id;
  }

  /**
   * resolveNode's answer when it needs no connection (the reference has an id, or names
   * this node or a reachable node of the address book), else null.
   * @param {NodeRef} ref @returns {string | null}
   */
  knownNode(ref) {
    if (ref.id !== null) return ref.id;
    const self = this.node.ref;
    if (self.host === ref.host && self.port === ref.port) return this.node.id;
    const known = this.addressBook.get(`${ref.host}:${ref.port}`);
    return known && this.mesh.isReachable(known) ? known : null;
  }

  /** decodeValue's options for a frame when no environment is being copied here (made once). */
  decodeOptions = { resolveCode: (/** @type {string} */ hash, /** @type {string} */ env) => this.receivedCode(hash, env) };

  /** onFrame's set of environments still loading (cleared for each frame). @type {Set<string>} */
  loadingScratch = new Set();

  /** This node's id as CBOR text, as a SEND frame to one of its processes names it. */
  get selfText() {
    if (this.selfTextBytes === null) {
      const w = new CborWriter(64);
      w.text(this.node.id);
      this.selfTextBytes = w.bytes();
    }
    return this.selfTextBytes;
  }

  /** @type {Uint8Array | null} */
  selfTextBytes = null;

  /** A NodeRef for a node id (with its address when known). @param {string} id */
  nodeRefOf(id) {
    if (id === this.node.id) return this.node.ref;
    for (const [addr, nid] of this.addressBook) {
      if (nid !== id) continue;
      const i = addr.lastIndexOf(':');
      return new NodeRef(id, addr.slice(0, i), Number(addr.slice(i + 1)));
    }
    return new NodeRef(id, null, null);
  }

  /** Where to send for a pid. @param {Pid} pid */
  whereIs(pid) {
    // most nodes forward for no process: no key string to build then
    if (this.location.size === 0) return pid.node;
    return this.location.get(key(pid.node, pid.n)) ?? pid.node;
  }

  // ------------------------------------------------------------------ outgoing (node.remote hooks)

  /**
   * Encode a frame or request, appending the versions of the program environments its
   * procedures come from (so a node holding a copy of such an environment refreshes it
   * when the original has new definitions).
   * @param {any[]} frame a new array (the environment list is appended to it)
   */
  encode(frame) {
    // a small frame has no procedure, so no environment to list: one pass
    frame.push(NO_ENVS);
    const small = encodeSmallValue(frame);
    if (small !== null) return small;
    /** @type {any[]} */
    const envs = [];
    frame[frame.length - 1] = envs; // filled by encodeOptions.onCode while encoding
    this.encodingEnvs = envs;
    try {
      return encodeAnyValue(frame, this.encodeOptions);
    } finally {
      this.encodingEnvs = null;
    }
  }

  /**
   * encodeValue's options for encode(), made once (a message costs no closure): each
   * program environment a procedure comes from is listed once in encodingEnvs.
   */
  encodeOptions = {
    onCode: (/** @type {any} */ unit) => {
      const env = unit?.env;
      const envs = this.encodingEnvs;
      if (!env || envs === null || env.id === 'rt' || env.id.startsWith('lib:')) return;
      for (const e of envs) if (e[0] === env.id) return;
      envs.push([env.id, env.version]);
    },
  };

  /** The environment list of the frame encode() is encoding. @type {any[] | null} */
  encodingEnvs = null;

  /** @param {string} to @param {any[]} frame */
  emit(to, frame) {
    let bytes;
    try {
      bytes = this.encode(frame);
    } catch (e) {
      this.log(`cannot send to ${to.slice(0, 12)}: ${e instanceof Error ? e.message : e}`);
      return false;
    }
    this.stats.sent++;
    return this.mesh.send(to, bytes);
  }

  /** @param {Pid} pid @param {any} msg */
  send(pid, msg) {
    const to = this.whereIs(pid);
    // the common case in one pass, the pid's part of the frame encoded once per pid
    let bytes = null;
    const head = this.sendHead(pid);
    if (head !== null) {
      try {
        bytes = encodeSmallBetween(head, msg, NO_ENVS_BYTES);
      } catch {
        bytes = null; // emit says why, through its general path
      }
    }
    if (bytes === null) {
      this.emit(to, [F_SEND, pid.node, pid.n, msg]);
      return;
    }
    this.stats.sent++;
    this.mesh.send(to, bytes);
  }

  /** The encoded head of a SEND frame to `pid` (sendHeadBytes), cached. @param {Pid} pid */
  sendHead(pid) {
    const slot = pid.n & (SEND_HEADS - 1);
    const c = this.sendHeads[slot];
    if (c !== undefined && c.n === pid.n && c.node === pid.node) return c.head;
    const head = sendHeadBytes(pid);
    this.sendHeads[slot] = { node: pid.node, n: pid.n, head };
    return head;
  }

  /** sendHead's cache: the heads of SEND frames to pids, by serial. @type {Array<{node: string, n: number, head: Uint8Array | null} | undefined>} */
  sendHeads = new Array(SEND_HEADS).fill(undefined);

  /** @param {Pid} pid @param {any} payload */
  signal(pid, payload) {
    this.emit(this.whereIs(pid), [F_SIGNAL, pid.node, pid.n, payload]);
  }

  /** `from` (remote) gets an outbound link to `to`. @param {Pid} from @param {Pid} to */
  link(from, to) {
    this.watch(from, to);
    this.emit(this.whereIs(from), [F_LINK, from.node, from.n, to]);
  }

  /** @param {Pid} from @param {Pid} to */
  unlink(from, to) {
    this.watchers.get(key(from.node, from.n))?.delete(key(to.node, to.n));
    this.emit(this.whereIs(from), [F_UNLINK, from.node, from.n, to]);
  }

  /** @param {Pid} pid */
  terminate(pid) {
    this.emit(this.whereIs(pid), [F_KILL, pid.node, pid.n]);
  }

  /** @param {Pid} pid */
  isAlive(pid) {
    return this.mesh.isReachable(this.whereIs(pid));
  }

  /**
   * Remember that local `to` must hear of `from`'s death, including when from's node
   * disappears.
   * @param {Pid} from @param {Pid} to
   */
  watch(from, to) {
    const k = key(from.node, from.n);
    let set = this.watchers.get(k);
    if (!set) this.watchers.set(k, (set = new Set()));
    set.add(key(to.node, to.n));
  }

  /** Routes changed: a watched node that is no longer reachable at all is down. */
  routesChanged() {
    /** @type {Set<string>} */
    const gone = new Set();
    for (const k of this.watchers.keys()) {
      const node = this.location.get(k) ?? splitKey(k)[0];
      if (node !== this.node.id && !gone.has(node) && !this.mesh.isReachable(node)) gone.add(node);
    }
    for (const id of gone) this.peerDown(id, 'no route to it any more');
  }

  /** A node went away: every process linked to one of its processes gets an exit signal. @param {string} id @param {string} reason */
  peerDown(id, reason) {
    for (const [k, locals] of this.watchers) {
      const [node, n] = splitKey(k);
      if ((this.location.get(k) ?? node) !== id) continue;
      this.watchers.delete(k);
      const from = new Pid(node, n);
      const payload = new ErrorObject(`node ${id.slice(0, 12)} is unreachable (${reason})`, arrayToList([from]), 'node-down', 'link');
      for (const lk of locals) {
        const [ln, nn] = splitKey(lk);
        this.node.signal(new Pid(ln, nn), payload);
      }
    }
    for (const [addr, nid] of this.addressBook) if (nid === id) this.addressBook.delete(addr);
  }

  // ------------------------------------------------------------------ incoming frames

  /**
   * Frames from one sender are handled in arrival order, even when one of them must
   * wait for code to be fetched.
   * @param {string} from @param {Uint8Array} bytes
   */
  onFrame(from, bytes) {
    this.stats.received++;
    const prev = this.inbound.get(from);
    if (prev === undefined) {
      if (this.deliverLocalSend(bytes)) return;
      // fast path: decode synchronously when all code is present and ready
      let frame;
      try {
        frame = this.decodeReady(bytes);
      } catch (e) {
        this.refuse(from, e);
        return;
      }
      if (frame !== NOT_READY && !this.stale(frame)) {
        this.handleFrame(from, frame, bytes);
        this.node.runArrivedNow();
        return;
      }
    }
    this.chain(from, () => this.decodeFetching(from, bytes).then((f) => this.refresh(from, f).then(() => this.handleFrame(from, f, bytes))));
  }

  /**
   * The commonest frame, handled without decoding the frame around its message: a SEND
   * to a live process of this node, [1, this node's id, n, msg, []] (no procedure in it,
   * so no environment list). False, having done nothing, for any other frame, for a
   * message that needs code or environments first, and for one that does not decode:
   * onFrame then decodes the whole frame, which fetches the code or refuses the frame
   * with its reason.
   * @param {Uint8Array} bytes
   */
  deliverLocalSend(bytes) {
    const len = bytes.length;
    const self = this.selfText;
    let at = 2 + self.length;
    if (len < at + 2 || bytes[0] !== 0x85 || bytes[1] !== F_SEND || bytes[len - 1] !== 0x80) return false;
    for (let i = 0; i < self.length; i++) if (bytes[2 + i] !== self[i]) return false;
    // the serial: an unsigned integer below 2^32
    const size = serialHeadSize(bytes, at);
    if (size === 0 || at + size >= len - 1) return false;
    const n = serialAt(bytes, at);
    at += size;
    const proc = this.node.bySerialNumber(n);
    if (proc === null) return false; // gone, or moved on: the general path forwards or drops
    let msg;
    try {
      msg = this.decodeReady(bytes, at, len - 1);
    } catch {
      return false; // the general path decodes the whole frame and says what is wrong
    }
    if (msg === NOT_READY) return false; // it fetches the code, or waits for the environments
    // just decoded: no one else holds this value, so it is delivered without a copy
    this.node.stats.messages++;
    this.node.core.send(proc.cpid, msg);
    this.node.runDelivered();
    return true;
  }

  /**
   * Whether a frame names a program environment this node holds a copy of that is
   * older than the sender's.
   * @param {any} frame
   */
  stale(frame) {
    const envs = Array.isArray(frame) ? frame[frame.length - 1] : null;
    if (!Array.isArray(envs) || envs.length === 0) return false;
    for (const e of envs) {
      const r = this.replicas.get(String(e[0]));
      if (r !== undefined && r.version < Number(e[1])) return true;
    }
    return false;
  }

  /**
   * Bring copies of program environments up to the versions a frame names.
   * @param {string} from @param {any} frame
   */
  async refresh(from, frame) {
    const envs = Array.isArray(frame) ? frame[frame.length - 1] : null;
    if (!Array.isArray(envs)) return;
    for (const [id, version] of envs) {
      // bounded: each round either finds the replica current or waits for one copy
      for (let round = 0; round < 4; round++) {
        const r = this.replicas.get(String(id));
        if (r === undefined || r.version >= Number(version)) break;
        const env = this.node.environments.get(String(id));
        if (!env) break;
        // one copy in flight per environment: frames that arrive meanwhile wait for it
        let p = this.refreshing.get(env.id);
        if (p === undefined) {
          p = this.loadGlobals(from, env, true).finally(() => this.refreshing.delete(env.id));
          this.refreshing.set(env.id, p);
        }
        await p;
      }
    }
  }

  /** @param {string} from @param {() => Promise<void>} step */
  chain(from, step) {
    const prev = this.inbound.get(from) ?? Promise.resolve();
    const next = prev.then(step).catch((e) => this.refuse(from, e));
    this.inbound.set(from, next);
    next.then(() => {
      if (this.inbound.get(from) === next) this.inbound.delete(from);
    });
  }

  /**
   * The value in bytes[start, end).
   * @param {Uint8Array} bytes
   * @param {Set<string>} [loading] collects the environments the value's code belongs to
   *   whose definitions are still being copied here
   * @param {number} [start] @param {number} [end]
   */
  decode(bytes, loading, start = 0, end = bytes.length) {
    if (loading === undefined || this.envLoading.size === 0) return decodeValue(bytes, this.decodeOptions, start, end);
    return decodeValue(bytes, {
      resolveCode: (hash, env) => {
        const unit = this.receivedCode(hash, env);
        if (this.envLoading.has(env)) loading.add(env);
        return unit;
      },
    }, start, end);
  }

  /**
   * The code a closure or frame received from another node runs. Runtime code is this
   * node's own, linked to the real procedures, so received values could otherwise reach
   * a denied procedure (a closure over `delete-file`, or over runtime code that calls
   * it, with free values of the sender's choosing): such lambdas, and the top level of
   * each runtime library, decode to stand-ins that raise an error naming the procedure.
   * @param {string} hash @param {string} env
   */
  receivedCode(hash, env) {
    const unit = resolveCode(hash, env);
    if (unit !== builtinUnit && runtimeUnits.get(hash) !== unit) return unit;
    let view = this.guardedUnits.get(unit);
    if (view !== undefined) return view;
    const denied = this.denied;
    if (unit === builtinUnit) {
      /** @type {Map<string, any>} */
      const standIns = new Map();
      view = {
        lams: [],
        lamsByName: {
          get: (/** @type {string} */ name) => {
            const lam = builtinUnit.lamsByName.get(name);
            if (lam === undefined || !denied.has(name)) return lam;
            if (!standIns.has(name)) standIns.set(name, deniedLambda(lam, name, `${name} is not allowed for code received from another node`));
            return standIns.get(name);
          },
        },
      };
    } else {
      view = {
        lamsByName: unit.lamsByName,
        lams: unit.lams.map((/** @type {any} */ lam, /** @type {number} */ i) => {
          if (i === 0) return deniedLambda(lam, lam.name, `the top level of runtime library ${unit.wire.name} cannot be run by another node`);
          const uses = denied.has(lam.name) ? lam.name : deniedNameIn(unit.wire, i, denied);
          if (uses === null) return lam;
          return deniedLambda(lam, uses, uses === lam.name ? `${uses} is not allowed for code received from another node` : `${lam.name} calls ${uses}, which is not allowed for code received from another node`);
        }),
      };
    }
    this.guardedUnits.set(unit, view);
    return view;
  }

  /**
   * Decode, fetching missing code from `from` (bounded number of rounds), then wait
   * until the environments of that code have their definitions (unless `wait` is false:
   * the answer that brings those definitions must not wait for itself).
   * @param {string} from @param {Uint8Array} bytes @param {boolean} [wait]
   */
  async decodeFetching(from, bytes, wait = true) {
    for (let round = 0; round < 256; round++) {
      /** @type {Set<string>} */
      const loading = new Set();
      let value;
      try {
        value = this.decode(bytes, loading);
      } catch (e) {
        if (!(e instanceof MissingCode)) throw e;
        await this.obtainUnit(from, e.hash, e.env);
        continue;
      }
      if (wait) for (const env of loading) await this.envLoading.get(env);
      return value;
    }
    throw new CodecError('too many units missing to decode a frame');
  }

  /**
   * @param {string} from @param {any} f the decoded frame @param {Uint8Array} bytes its encoding (for forwarding)
   */
  handleFrame(from, f, bytes) {
    if (!Array.isArray(f) || typeof f[0] !== 'number') {
      this.refuse(from, 'malformed frame: not a vector that starts with a frame type');
      return;
    }
    const [type, pnode, pn] = f;
    if (type === F_ERROR) {
      this.log(`${from.slice(0, 12)} refused a frame from this node: ${String(f[1]).slice(0, 1000)}`);
      return;
    }
    const shape = FRAMES[type];
    if (!Number.isInteger(type) || shape == null) {
      this.refuse(from, `unknown frame type ${type}`);
      return;
    }
    if (f.length !== shape[1] || typeof pnode !== 'string' || !Number.isInteger(pn) ||
        ((type === F_LINK || type === F_UNLINK) && !(f[3] instanceof Pid)) || (type === F_MOVED && typeof f[3] !== 'string')) {
      this.refuse(from, `malformed ${shape[0]} frame`);
      return;
    }
    if (type === F_MOVED) {
      // Only the node this one would send the process's messages to can say it moved
      // on (it forwarded one, or the process left it); believed from any other peer, a
      // MOVED would let that peer take this node's messages for anyone's processes.
      // A late duplicate from the previous host says what is already known: ignored.
      const at = this.whereIs(new Pid(pnode, pn)), to = String(f[3]);
      if (from === at) this.location.set(key(pnode, pn), to);
      else if (to !== at) this.refuse(from, `MOVED for process ${pn} of ${pnode.slice(0, 12)} from ${from.slice(0, 12)}, which is not where this node sends its messages (${at.slice(0, 12)})`);
      return;
    }
    if (type === F_GONE) {
      this.forwarding.delete(key(pnode, pn));
      this.location.delete(key(pnode, pn));
      return;
    }
    const pid = new Pid(String(pnode), Number(pn));
    const proc = this.node.local(pid);
    if (proc === null) {
      const to = this.forwarding.get(key(pid.node, pid.n));
      if (to !== undefined) {
        this.stats.forwarded++;
        this.mesh.send(to, bytes);
        if (from !== to) this.emit(from, [F_MOVED, pid.node, pid.n, to]);
        return;
      }
      if (type === F_LINK) {
        // linking to a process that does not exist: tell the other side at once
        const payload = new ErrorObject('linked process is not alive', arrayToList([pid]), 'noproc', 'link');
        this.node.signal(f[3], payload);
      }
      return; // a message to a process that is gone is dropped (send and pray)
    }
    switch (type) {
      case F_SEND:
        // just decoded: no one else holds this value, so it is delivered without a copy
        this.node.stats.messages++;
        this.node.core.send(proc.cpid, f[3]);
        this.node.pokeAfterTask();
        return;
      case F_SIGNAL:
        this.node.signal(pid, f[3]);
        return;
      case F_LINK:
        this.node.addLink(pid, f[3]);
        return;
      case F_UNLINK:
        this.node.removeLink(pid, f[3]);
        return;
      case F_KILL:
        this.node.terminate(pid);
        return;
    }
  }

  /**
   * Refuse a frame from `from`: a log line here and an ERROR frame to the sender, which
   * logs it (an ERROR is never answered, so two nodes cannot bounce errors).
   * @param {string} from @param {unknown} why an error or a message
   */
  refuse(from, why) {
    const msg = why instanceof Error ? `${why.name}: ${why.message}` : String(why);
    this.log(`frame from ${from.slice(0, 12)} refused: ${msg}`);
    this.emit(from, [F_ERROR, msg.slice(0, 1000)]);
  }

  // ------------------------------------------------------------------ requests

  /**
   * A request from `from`. Answered in the same task when it decodes with the code at
   * hand and its answer needs no waiting (all but R_EVAL): the mesh then writes the
   * answer at once, before whatever the request started runs (a spawned or arrived
   * process runs at the end of the task, acceptSpawn). Otherwise, or if that fails
   * for want of code, through onRequestAsync.
   * @param {string} from @param {Uint8Array} bytes
   * @returns {Uint8Array | Promise<Uint8Array>}
   */
  onRequest(from, bytes) {
    let req;
    try {
      req = this.decodeReady(bytes);
    } catch (e) {
      return this.refusedRequest(from, e);
    }
    if (req === NOT_READY || !Array.isArray(req) || req[0] === R_EVAL || this.stale(req)) return this.onRequestAsync(from, bytes);
    try {
      return this.encode([true, this.answerNow(from, req)]);
    } catch (e) {
      return this.refusedRequest(from, e);
    }
  }

  /**
   * `bytes` decoded now, or NOT_READY if that needs code this node does not have yet or
   * environments still being copied here (decodeFetching then waits for them). A
   * malformed value throws, as decodeFetching would.
   * @param {Uint8Array} bytes @param {number} [start] @param {number} [end] the value's bytes
   */
  decodeReady(bytes, start = 0, end = bytes.length) {
    // decode fills it only while environments are being copied here (rarely); it is
    // read before anything can decode again
    const loading = this.loadingScratch;
    if (loading.size !== 0) loading.clear(); // clear() allocates a new table even when empty
    let value;
    try {
      value = this.decode(bytes, loading, start, end);
    } catch (e) {
      if (e instanceof MissingCode) return NOT_READY;
      throw e;
    }
    return loading.size === 0 ? value : NOT_READY;
  }

  /**
   * @param {string} from @param {Uint8Array} bytes
   * @returns {Promise<Uint8Array>}
   */
  async onRequestAsync(from, bytes) {
    try {
      const req = await this.decodeFetching(from, bytes);
      if (!Array.isArray(req)) throw new CodecError('malformed request');
      if (this.stale(req)) await this.refresh(from, req);
      const value = await this.answer(from, req);
      return this.encode([true, value]);
    } catch (e) {
      return this.refusedRequest(from, e);
    }
  }

  /** The answer to a request that failed, logged. @param {string} from @param {unknown} e */
  refusedRequest(from, e) {
    const msg = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    this.log(`request from ${from.slice(0, 12)} refused: ${msg}`);
    return encodeValue([false, msg, []]); // the shape of every answer: [ok, value or reason, versions]
  }

  /** @param {string} from @param {any[]} req */
  async answer(from, req) {
    if (req[0] !== R_EVAL) return this.answerNow(from, req);
    if (this.evaluate === null || !this.evalPeers.has(from)) throw new Error('this node does not evaluate code for that peer');
    return JSON.stringify(await this.evaluate(String(req[1])));
  }

  /** The answer to any request but R_EVAL. @param {string} from @param {any[]} req */
  answerNow(from, req) {
    switch (req[0]) {
      case R_SPAWN: return this.acceptSpawn(from, req[1], req[2], req[3]);
      case R_MIGRATE: return this.acceptMigration(from, req[1]);
      case R_CODE: return this.unitData(String(req[1]));
      case R_ENV: return this.envData(String(req[1]));
      case R_STATS: return JSON.stringify(this.snapshot());
      case R_SERVICE: {
        const pid = this.services.get(String(req[1]));
        if (!pid) throw new Error(`no service named ${req[1]} on this node`);
        return pid;
      }
      default: throw new Error(`unknown request type ${req[0]}`);
    }
  }

  /**
   * Send a request, decode the answer (fetching code it needs from the same node).
   * @param {string} to @param {any[]} req @param {boolean} [wait] see decodeFetching
   */
  call(to, req, wait = true) {
    let bytes;
    try {
      bytes = this.encode(req);
    } catch (e) {
      return Promise.reject(e);
    }
    // an answer that decodes with the code at hand is read in the request's own
    // reaction: each await costs the caller a microtask turn (a remote spawn had five)
    return this.mesh.request(to, bytes, { timeoutMs: this.timeoutMs }).then((/** @type {Uint8Array} */ answer) => {
      const r = this.decodeReady(answer);
      return r !== NOT_READY && !(wait && this.stale(r)) ? answerValue(r) : this.callSlowly(to, answer, wait);
    });
  }

  /** call's answer when it needs code or environments first. @param {string} to @param {Uint8Array} answer @param {boolean} wait */
  async callSlowly(to, answer, wait) {
    const r = await this.decodeFetching(to, answer, wait);
    // the answer that brings an environment's definitions is itself newer than our copy
    // of it: refreshing before reading it would ask for the same answer again, forever
    if (wait && Array.isArray(r) && this.stale(r)) await this.refresh(to, r);
    return answerValue(r);
  }

  // ------------------------------------------------------------------ code on demand

  /** The unit's shippable form: [name, data, debug]. @param {string} hash */
  unitData(hash) {
    const inst = unitsByHash.get(hash);
    if (!inst) throw new Error(`this node does not have unit ${hash.slice(0, 16)}`);
    return [inst.wire.name ?? '', wireToData(inst.wire), inst.wire.debug ? [inst.wire.debug.file, inst.wire.debug.sites] : false];
  }

  /** The global definitions of an environment: [version, [[name value] ...]]. @param {string} envId */
  envData(envId) {
    const env = envId.startsWith('lib:') ? libraryEnvs.get(envId) : this.node.environments.get(envId);
    if (!env) throw new Error(`this node has no environment ${envId}`);
    const out = [];
    for (const [name, cell] of env.cells) if (cell.v?.constructor?.name !== 'Unbound') out.push([name, copyMessage(cell.v)]);
    return [env.version, out];
  }

  /**
   * Make unit `hash` available in environment `envId`: from the caches, or from node
   * `from`; checked, compiled and instantiated here.
   * @param {string} from @param {string} hash @param {string} envId
   */
  async obtainUnit(from, hash, envId) {
    const k = `${hash} ${envId}`;
    let p = this.fetching.get(k);
    if (!p) {
      p = this.fetchAndInstantiate(from, hash, envId).catch((e) => {
        // the refusal names the unit (the sender sees this message)
        if (e instanceof Error && !e.message.includes(hash.slice(0, 12))) e.message = `unit ${hash.slice(0, 16)}: ${e.message}`;
        throw e;
      });
      this.fetching.set(k, p);
      p.finally(() => this.fetching.delete(k)).catch(() => {});
    }
    return p;
  }

  /** @param {string} from @param {string} hash @param {string} envId */
  async fetchAndInstantiate(from, hash, envId) {
    const wire = await this.fetchWire(from, hash);
    for (const ns of wire.requires) {
      if (ns.startsWith('lib:') && !libraryEnvs.has(ns)) throw new LinkError(`unit ${hash.slice(0, 12)} needs library ${ns.slice(4)}, which this node lacks`);
    }
    if (envId.startsWith('lib:')) {
      if (!libraryEnvs.has(envId)) {
        const env = new Environment(envId);
        libraryEnvs.set(envId, env);
        const inst = instantiate(wire, hash, env, { deny: this.denied });
        registerUnitInstance(inst);
        await this.runToEnd(inst.top, `library ${envId.slice(4)}`);
      }
      return;
    }
    const environments = this.node.environments;
    let env = environments.get(envId);
    const fresh = env === undefined;
    if (fresh) {
      env = new Environment(envId);
      environments.set(envId, env);
    }
    const inst = instantiate(wire, hash, /** @type {Environment} */ (env), { deny: this.denied });
    registerUnitInstance(inst);
    if (fresh) {
      // until the definitions are here, frames using this environment's code wait
      const loaded = this.loadGlobals(from, /** @type {Environment} */ (env));
      this.envLoading.set(envId, loaded);
      try {
        await loaded;
      } finally {
        this.envLoading.delete(envId);
      }
    }
  }

  /**
   * Copy an environment's definitions from the node that has the original. A first
   * load fills what is undefined here; a refresh (the original has changed) takes every
   * definition from the original.
   * @param {string} from @param {Environment} env @param {boolean} [refresh]
   */
  async loadGlobals(from, env, refresh = false) {
    let answer;
    try {
      answer = await this.call(from, [R_ENV, env.id], false);
    } catch (e) {
      this.log(`the definitions of ${env.id} could not be fetched from ${from.slice(0, 12)}: ${e instanceof Error ? e.message : e}`);
      return;
    }
    const [version, globals] = answer;
    for (const [name, value] of globals) {
      const cell = env.cell(name);
      if (refresh || cell.v?.constructor?.name === 'Unbound') cell.v = value;
    }
    const r = this.replicas.get(env.id);
    if (r === undefined) this.replicas.set(env.id, { version: Number(version) });
    else r.version = Math.max(r.version, Number(version));
  }

  /**
   * The checked IR of a unit: memory, then the code cache, then node `from`.
   * @param {string} from @param {string} hash
   */
  async fetchWire(from, hash) {
    const known = unitsByHash.get(hash);
    if (known) return known.wire;
    let bytes = this.codeCache ? await this.codeCache.get(hash) : null;
    let shipped;
    if (bytes !== null) {
      shipped = decodeValue(bytes);
    } else {
      try {
        shipped = await this.call(from, [R_CODE, hash]);
      } catch (e) {
        throw new CodecError(`unit ${hash.slice(0, 16)} could not be fetched from ${from.slice(0, 12)}: ${e instanceof Error ? e.message : e}`);
      }
      this.stats.codeFetched++;
    }
    if (!Array.isArray(shipped) || shipped.length !== 3) throw new CodecError(`malformed unit ${hash.slice(0, 16)}`);
    const [name, data, debug] = shipped;
    const wire = wireFromData(data, String(name));
    checkWire(wire, this.policy());
    const actual = hashWire(wire);
    if (actual !== hash) throw new CodecError(`unit ${hash.slice(0, 16)} does not match its hash (got ${actual.slice(0, 16)})`);
    if (Array.isArray(debug)) /** @type {any} */ (wire).debug = { file: String(debug[0]), sites: debug[1] };
    if (bytes === null && this.codeCache) await this.codeCache.put(hash, encodeValue(shipped));
    return wire;
  }

  /**
   * The allowed library for received code: every runtime procedure this node has.
   * A unit naming anything else is refused. Procedures of the denied set are linked to
   * stand-ins that raise an error if called (`instantiate`'s deny option), so a program
   * that uses the file system in its main body can still ship its other closures.
   */
  policy() {
    return {
      primitiveAllowed: (/** @type {string} */ name) => primitives.has(name) || internalOpNames.has(name),
      globalAllowed: (/** @type {string} */ ns, /** @type {string} */ name) => (ns === 'rt' ? rtEnv.has(name) : ns === '.' || ns.startsWith('lib:')),
    };
  }

  /**
   * Run a thunk to its end outside the scheduler (library initialisation).
   * @param {any} thunk @param {string} what
   */
  async runToEnd(thunk, what) {
    const th = new Thread(thunk, []);
    for (let i = 0; i < 100000; i++) {
      const r = runSlice(th, 100000);
      if (r === SLICE_DONE) return;
      if (r === SLICE_DIED) throw new Error(`${what} failed to load`);
    }
  }

  // ------------------------------------------------------------------ remote spawn

  /**
   * Start `thunk` on another node (the caller's parameter bindings go with it, so its
   * output comes back to the caller's console); resolves with the new pid.
   * @param {NodeRef} ref @param {any} thunk @param {any} params @param {Pid|false} linkTo
   */
  remoteSpawn(ref, thunk, params, linkTo) {
    const to = this.knownNode(ref);
    if (to === null) return this.resolveNode(ref).then((id) => this.spawnOn(id, thunk, params, linkTo));
    return this.spawnOn(to, thunk, params, linkTo);
  }

  /** @param {string} to @param {any} thunk @param {any} params @param {Pid|false} linkTo @returns {Promise<Pid>} */
  spawnOn(to, thunk, params, linkTo) {
    if (to === this.node.id) {
      const p = this.node.spawn(thunk, { params });
      if (linkTo) {
        this.node.addLink(p.pid, linkTo);
        this.node.addLink(linkTo, p.pid);
      }
      return Promise.resolve(p.pid);
    }
    return this.call(to, [R_SPAWN, thunk, params, linkTo]).then((/** @type {unknown} */ pid) => {
      if (!(pid instanceof Pid)) throw new CodecError('spawn answered something that is not a pid');
      if (linkTo) {
        this.node.addLink(linkTo, pid);
        this.watch(pid, linkTo);
      }
      return pid;
    });
  }

  /** @param {string} from @param {any} thunk @param {any} params @param {any} linkTo */
  acceptSpawn(from, thunk, params, linkTo) {
    if (!(thunk instanceof Closure)) throw new CodecError(`SPAWN needs a procedure to run, got ${writeString(thunk).slice(0, 100)}`);
    const proc = this.node.spawn(thunk, { params });
    if (linkTo instanceof Pid) {
      this.node.addLink(proc.pid, linkTo);
      this.watch(linkTo, proc.pid);
    }
    // run it at the end of this task, after the answer (onRequest's fast path writes it
    // first), not after a turn of the event loop
    this.node.pokeAfterTask();
    void from;
    return proc.pid;
  }

  // ------------------------------------------------------------------ migration

  /**
   * Move a suspended process (blocked in `migrate`) to another node. On success the
   * process continues there and this node keeps a forwarding entry; on failure it is
   * resumed here with the error raised.
   * @param {import('./node.js').Process} proc @param {NodeRef} ref
   */
  async migrate(proc, ref) {
    let to;
    let seen = 0;
    try {
      to = await this.resolveNode(ref);
      if (to === this.node.id) {
        this.node.resumeExternal(proc, { value: VOID });
        return;
      }
      const { state, shippedUpTo } = this.processState(proc);
      seen = shippedUpTo;
      await this.call(to, [R_MIGRATE, state]);
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      this.node.resumeExternal(proc, { raise: new ErrorObject(`cannot migrate: ${msg}`, arrayToList([ref]), 'migrate', 'migrate') });
      return;
    }
    this.stats.migrationsOut++;
    const k = key(proc.pid.node, proc.pid.n);
    this.forwarding.set(k, to);
    this.location.set(k, to);
    // messages that arrived while it was moving follow it, in order
    const late = [];
    for (let c = seen + 1, n = 0; n < 1e7; n++) {
      const m = this.node.core.peek(proc.cpid, c);
      if (m === undefined) break;
      late.push(m.value);
      c = m.seq + 1;
    }
    this.node.retire(proc);
    for (const m of late) this.emit(to, [F_SEND, proc.pid.node, proc.pid.n, m]);
  }

  /**
   * A process's whole state, with its continuation resuming as a return of #!void
   * from `migrate`, and the sequence number of the last message shipped with it.
   * @param {import('./node.js').Process} proc
   */
  processState(proc) {
    const saved = { act: proc.act, val: proc.val };
    proc.act = 1; // ACT_RETURN
    proc.val = VOID;
    const thread = threadToData(proc, null);
    proc.act = saved.act;
    proc.val = saved.val;
    const mailbox = [];
    let last = 0;
    for (let c = 0, n = 0; n < 1e7; n++) {
      const m = this.node.core.peek(proc.cpid, c);
      if (m === undefined) break;
      mailbox.push(m.value);
      last = m.seq;
      c = m.seq + 1;
    }
    // each node once (a process hopping back and forth would otherwise ship a list growing by one id per hop)
    const visited = proc.visited?.includes(this.node.id) ? proc.visited : [...(proc.visited ?? []), this.node.id];
    return { state: [proc.pid, thread, mailbox, proc.links ?? [], visited], shippedUpTo: last };
  }

  /** @param {string} from @param {any} state */
  acceptMigration(from, state) {
    if (!Array.isArray(state) || state.length !== 5 || !(state[0] instanceof Pid)) throw new CodecError('malformed process state');
    const [pid, thread, mailbox, links, visited] = state;
    if (!Array.isArray(mailbox) || !Array.isArray(links) || !links.every((l) => l instanceof Pid) || !Array.isArray(visited)) {
      throw new CodecError('malformed process state (mailbox, links and visited nodes must be vectors; links, of pids)');
    }
    const proc = this.node.adopt(pid, threadFromData(thread, null));
    proc.visited = visited;
    proc.links = links.length > 0 ? links : null;
    for (const m of mailbox) this.node.core.send(proc.cpid, m);
    this.location.delete(key(pid.node, pid.n));
    this.forwarding.delete(key(pid.node, pid.n));
    this.stats.migrationsIn++;
    this.arrivals.push({ seq: ++this.arrivalSeq, pid: `${pid.n}@${pid.node.slice(0, 8)}`, from, name: proc.name ?? proc.k?.lam?.name ?? 'process' });
    if (this.arrivals.length > ARRIVALS_KEPT) this.arrivals.shift();
    this.node.pokeAfterTask(); // it runs after the answer, as a spawned process does
    return true;
  }

  /**
   * A process that lived on other nodes ended here: they drop their forwarding entries.
   * @param {import('./node.js').Process} proc
   */
  processEnded(proc) {
    for (const id of new Set(proc.visited ?? [])) if (id !== this.node.id) this.emit(id, [F_GONE, proc.pid.node, proc.pid.n]);
  }

  // ------------------------------------------------------------------ mesh view (dashboard)

  /** This node's snapshot plus its links. */
  snapshot() {
    const snap = /** @type {any} */ (this.node.snapshot());
    snap.peers = this.mesh.peers().map((/** @type {any} */ p) => ({ id: p.id, transport: p.transport, rttMs: p.rttMs }));
    snap.arrivals = this.arrivals.slice();
    return snap;
  }

  /**
   * Snapshots of every node this one can reach (itself included), each bounded in time.
   * @param {number} [timeoutMs]
   */
  async meshSnapshot(timeoutMs = 1500) {
    const ids = new Set([...this.mesh.peers().map((/** @type {any} */ p) => p.id), ...this.mesh.routes().map((/** @type {any} */ r) => r.id)]);
    const others = await Promise.all([...ids].map(async (id) => {
      try {
        const bytes = await this.mesh.request(id, encodeValue([R_STATS]), { timeoutMs });
        const r = decodeValue(bytes);
        return r[0] === true ? JSON.parse(r[1]) : null;
      } catch {
        return { id, unreachable: true };
      }
    }));
    return [this.snapshot(), ...others.filter((x) => x !== null)];
  }

  /**
   * Evaluate Scheme text on a node (this one or a peer that accepts EVAL).
   * @param {string} id @param {string} text
   */
  async evalOn(id, text) {
    if (id === this.node.id) {
      if (this.evaluate === null) throw new Error('evaluation is not enabled on this node');
      return this.evaluate(text);
    }
    const bytes = await this.mesh.request(id, encodeValue([R_EVAL, text]), { timeoutMs: 30000 });
    const r = decodeValue(bytes);
    if (r[0] !== true) throw new Error(String(r[1]));
    return JSON.parse(r[1]);
  }

  /** Node references for every node reachable from here (not this one). */
  knownNodes() {
    const ids = new Set([...this.mesh.peers().map((/** @type {any} */ p) => p.id), ...this.mesh.routes().map((/** @type {any} */ r) => r.id)]);
    ids.delete(this.node.id);
    return [...ids].sort().map((id) => this.nodeRefOf(id));
  }

  // ------------------------------------------------------------------ services

  /** @param {string} name @param {NodeRef} ref */
  async remoteService(name, ref) {
    const to = await this.resolveNode(ref);
    if (to === this.node.id) {
      const pid = this.services.get(name);
      if (!pid) throw new Error(`no service named ${name} on this node`);
      return pid;
    }
    return this.call(to, [R_SERVICE, name]);
  }
}

/**
 * A lambda that raises instead of running (called, or resumed as a frame); it keeps
 * its unit and index, so it still names the same code if sent on.
 * @param {any} lam @param {string} who @param {string} message
 */
function deniedLambda(lam, who, message) {
  const raise = () => schemeErrorOf('denied', who, message);
  return { ...lam, fast: raise, resume: raise };
}

/**
 * The first denied runtime procedure or primitive lambda `li` of a (trusted, well-formed)
 * wire unit names in its body, or null.
 * @param {any} wire @param {number} li @param {Set<string>} denied
 */
function deniedNameIn(wire, li, denied) {
  /** @type {string|null} */
  let found = null;
  const name = (/** @type {string} */ n) => (denied.has(n) ? (found = n) !== null : false);
  const global = (/** @type {number} */ g) => wire.globals[g][0] === 'rt' && name(wire.globals[g][1]);
  const atom = (/** @type {any[]} */ a) => a[0] === 3 /* A_GLOBAL */ && global(a[1]);
  const atoms = (/** @type {any[]} */ as) => as.some(atom);
  const triv = (/** @type {any[]} */ t) => {
    switch (t[0]) {
      case 10: return name(wire.prims[t[1]]) || atoms(t.slice(2)); // T_PRIM
      case 11: return atoms(t.slice(2)); // T_CLOSURE
      case 12: case 13: return global(t[1]) || atom(t[2]); // T_GSET, T_GDEF
      default: return atom(t);
    }
  };
  /** @type {(b: any[]) => boolean} */
  const block = (b) => b.some((ins) => {
    switch (ins[0]) {
      case 20: return triv(ins[1]); // K_RETURN
      case 21: return atom(ins[1]) || atoms(ins[2]); // K_TAIL
      case 22: return atom(ins[4]) || atoms(ins[5]); // K_CALL
      case 23: return triv(ins[2]); // K_LET
      case 24: return ins[1].some((/** @type {any[]} */ b) => atoms(b[2])); // K_FIX
      case 25: return atom(ins[1]) || block(ins[2]) || block(ins[3]); // K_IF
      case 26: return block(ins[3]); // K_JOIN
      case 27: return ins[2] !== null && atom(ins[2]); // K_JUMP
      case 28: return atoms(ins[1]); // K_LOOP
      default: return false;
    }
  });
  wire.lambdas[li].clauses.some((/** @type {any} */ c) => block(c.body));
  return found;
}

/** @param {string} k */
function splitKey(k) {
  const i = k.lastIndexOf('/');
  return /** @type {[string, number]} */ ([k.slice(0, i), Number(k.slice(i + 1))]);
}

export { Sym };
