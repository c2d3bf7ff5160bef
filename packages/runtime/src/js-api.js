// @ts-check
/**
 * The JavaScript face of a node, for npm users: processes written in JavaScript (async
 * functions with a promise-based receive) beside processes written in Scheme, message
 * sending between them, and tuple operations.
 *
 * Values: what JavaScript sends is converted with `fromJs` — integers stay exact
 * integers, other numbers become inexact reals, arrays become vectors, `list(...)`
 * builds a list, `sym('a')` a symbol; anything else must already be a Scheme value
 * (pids, tags, strings, booleans, null as the empty list). What JavaScript receives is
 * the Scheme value itself; `toJs` converts lists to arrays and reals to numbers.
 */
import { rtEnv } from '@termite/scheme/internal';
import { compileProgramText, linkProgram, Thread, runToCompletion, Pair, Sym, Flonum, Values, Closure, arrayToList, VOID } from '@termite/scheme';
import { Pid, SpaceRef, Formal } from './termite-values.js';
import { registerUnitInstance } from './code.js';

/**
 * A JS value to a Scheme value.
 * @param {any} v
 * @returns {any}
 */
export function fromJs(v) {
  if (typeof v === 'number') return Number.isSafeInteger(v) && !Object.is(v, -0) ? v : new Flonum(v);
  if (Array.isArray(v) && !Object.isFrozen(v)) return v.map(fromJs);
  if (v === undefined) return VOID;
  return v;
}

/**
 * A Scheme value to plain JS where there is an obvious mapping (lists → arrays,
 * reals → numbers, symbols → their names prefixed with nothing), recursively.
 * @param {any} v
 * @returns {any}
 */
export function toJs(v) {
  if (v instanceof Flonum) return v.v;
  if (v instanceof Pair) {
    const out = [];
    let p = v;
    for (let n = 0; p instanceof Pair && n < 1e7; n++, p = p.cdr) out.push(toJs(p.car));
    return out;
  }
  if (Array.isArray(v)) return v.map(toJs);
  if (v instanceof Sym) return v.name;
  if (v instanceof Values) return v.vals.map(toJs);
  return v;
}

/** @param {...any} xs */
export const list = (...xs) => arrayToList(xs.map(fromJs));
/** @param {string} name */
export const sym = (name) => Sym.intern(name);

/** The formals, for templates built in JavaScript. */
export const formal = {
  any: new Formal(0), integer: new Formal(1), number: new Formal(2), float: new Formal(3),
  string: new Formal(4), symbol: new Formal(5), bytes: new Formal(6), boolean: new Formal(7),
  vector: new Formal(8), null: new Formal(10), list: new Formal(11, 40962),
};

class Timeout extends Error {
  constructor() {
    super('receive timed out');
    this.name = 'ReceiveTimeoutError';
  }
}

/**
 * The context a JavaScript process gets: its pid, send, receive as a promise.
 */
export class JsProcess {
  /** @param {import('./termite-node.js').TermiteNode} node */
  constructor(node) {
    this.node = node;
    /** @type {any[]} messages delivered and not yet received */
    this.queue = [];
    /** @type {{pred: (m: any) => boolean, resolve: (m: any) => void, timer: any}|null} */
    this.waiter = null;
    this.proc = node.spawnHandler((msg) => this.deliver(msg));
    this.pid = this.proc.pid;
  }

  /** @param {any} msg */
  deliver(msg) {
    const w = this.waiter;
    if (w !== null && w.pred(msg)) {
      this.waiter = null;
      if (w.timer !== null) clearTimeout(w.timer);
      w.resolve(msg);
      return;
    }
    this.queue.push(msg);
  }

  /**
   * The next message (or the first satisfying `pred`), as a promise.
   * @param {{timeoutMs?: number, pred?: (m: any) => boolean}} [opts]
   * @returns {Promise<any>} rejects with ReceiveTimeoutError after timeoutMs
   */
  receive(opts = {}) {
    const pred = opts.pred ?? (() => true);
    const i = this.queue.findIndex(pred);
    if (i >= 0) return Promise.resolve(this.queue.splice(i, 1)[0]);
    if (this.waiter !== null) return Promise.reject(new Error('a receive is already pending on this process'));
    return new Promise((resolve, reject) => {
      const timer = opts.timeoutMs === undefined ? null : setTimeout(() => {
        this.waiter = null;
        reject(new Timeout());
      }, opts.timeoutMs);
      this.waiter = { pred, resolve, timer };
    });
  }

  /**
   * Send a value (converted with fromJs) to a process. Returns false when the message
   * waits for room in the mesh's queue to the pid's node: a sender of many messages
   * should then `await sendReady(pid)` before sending more. Throws (a SchemeError) when
   * the message can never be sent (larger than the mesh's frame limit).
   * @param {Pid} pid @param {any} value
   * @returns {boolean}
   */
  send(pid, value) {
    const taken = this.node.send(pid, fromJs(value));
    this.node.poke();
    return taken !== false;
  }

  /**
   * Settles once the messages waiting for room in the mesh's queue to the node of `pid`
   * have left (at once when none wait); rejects if they were dropped (the node became
   * unreachable, or no room came within the request timeout).
   * @param {Pid} pid
   * @returns {Promise<void>}
   */
  sendReady(pid) {
    const remote = this.node.remote;
    return remote === null || pid.node === this.node.id ? Promise.resolve() : remote.whenSent(pid);
  }

  /**
   * Call a Scheme procedure (`!?` style) on a server: sends (self tag msg) and waits for
   * (tag reply).
   * @param {Pid} pid @param {any} msg @param {{timeoutMs?: number}} [opts]
   */
  async call(pid, msg, opts = {}) {
    const tag = this.node.makeTag();
    this.send(pid, list(this.pid, tag, msg));
    const reply = await this.receive({ ...opts, pred: (m) => m instanceof Pair && m.car === tag });
    return reply.cdr.car;
  }

  /** End this process (links receive nothing: a normal exit). */
  exit() {
    if (this.proc.alive) this.node.finish(this.proc, false, VOID);
  }
}

/**
 * What installJsApi (and createNode) add to a node: the JavaScript API's methods, as
 * the package's type declarations show them.
 * @typedef {object} JsApi
 * @property {(text: string, opts?: Parameters<typeof import('./program.js').runProgramOn>[2]) => ReturnType<typeof import('./program.js').runProgramOn>} runProgram
 * @property {(body: (self: JsProcess) => Promise<any>) => Pid} spawnJs
 * @property {() => JsProcess} mailbox
 * @property {(source: string) => Pid} spawnScheme
 * @property {(...fields: any[]) => void} out
 * @property {(...fields: any[]) => Promise<any[]>} in
 * @property {(...fields: any[]) => Promise<any[]>} rd
 * @property {(...fields: any[]) => Promise<any[] | null>} inp
 * @property {(...fields: any[]) => Promise<any[] | null>} rdp
 * @property {(name: string) => SpaceRef} space
 */
/** @typedef {import('./termite-node.js').TermiteNode & JsApi} ApiNode a node as createNode returns it */

/**
 * Install the JS API on a node.
 * @param {import('./termite-node.js').TermiteNode} node
 */
export function installJsApi(node) {
  const n = /** @type {any} */ (node);
  /**
   * Run an async JS function as a process; resolves its promise when it ends.
   * @param {(self: JsProcess) => Promise<any>} body
   */
  n.spawnJs = (body) => {
    const self = new JsProcess(node);
    Promise.resolve()
      .then(() => body(self))
      .then(
        () => self.exit(),
        (e) => {
          if (self.proc.alive) node.finish(self.proc, true, e instanceof Error ? e.message : e);
        },
      );
    return self.pid;
  };
  /** A JS process to talk to the node from outside (send, receive, call). */
  n.mailbox = () => new JsProcess(node);
  /**
   * Spawn a process running a Scheme procedure given as source text (an expression
   * evaluating to a procedure of no arguments), compiled on this node.
   * @param {string} source
   */
  n.spawnScheme = (source) => {
    const units = compileProgramText(source, { file: 'spawnScheme' });
    const prog = linkProgram(units);
    registerUnitInstance(prog);
    const r = runToCompletion(new Thread(prog.top, []));
    if (!r.ok || !(r.value instanceof Closure)) throw new Error('spawnScheme: the source must evaluate to a procedure');
    return node.spawn(r.value).pid;
  };
  /** out a tuple (JS values) into the default space or a named one. */
  n.out = (/** @type {any[]} */ ...fields) => callTupleOp(node, 'out', fields);
  /** in/rd/inp/rdp from JavaScript: resolves with the tuple's fields (Scheme values). */
  n.in = (/** @type {any[]} */ ...fields) => tupleRequest(node, 'in', fields);
  n.rd = (/** @type {any[]} */ ...fields) => tupleRequest(node, 'rd', fields);
  n.inp = (/** @type {any[]} */ ...fields) => tupleRequest(node, 'inp', fields);
  n.rdp = (/** @type {any[]} */ ...fields) => tupleRequest(node, 'rdp', fields);
  n.space = (/** @type {string} */ name) => new SpaceRef(node.id, name);
}

/**
 * Run a Linda operation in a short-lived Scheme process (the core's blocking in/rd
 * belong to processes: %js-tuple-op, scheme-sources/js-support.scm) and deliver its
 * result to a JS mailbox.
 * @param {import('./termite-node.js').TermiteNode} node @param {string} op @param {any[]} fields
 */
function tupleRequest(node, op, fields) {
  const box = new JsProcess(node);
  const helper = rtEnv.cell('%js-tuple-op').v;
  node.spawnCall(helper, [box.pid, Sym.intern(op), fields.map(fromJs)]);
  return box.receive().then((r) => {
    box.exit();
    if (r instanceof Pair && r.car === Sym.intern('error')) throw new Error(String(r.cdr.car));
    return r === false ? null : toJs(r);
  });
}

/** @param {import('./termite-node.js').TermiteNode} node @param {string} op @param {any[]} fields */
function callTupleOp(node, op, fields) {
  const helper = rtEnv.cell('%js-tuple-op').v;
  node.spawnCall(helper, [false, Sym.intern(op), fields.map(fromJs)]);
}

export { Pid };

