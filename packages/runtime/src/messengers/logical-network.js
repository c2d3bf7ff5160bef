// @ts-check
/**
 * The logical network's state on one physical node (the (termite messengers) library,
 * docs/messengers.md): the logical nodes this node hosts — their names, node variables,
 * mailboxes, outgoing links and the messengers residing on them — and, for each
 * messenger process here, its network variables (which logical node it is on, the link
 * it came by and that link's weight).
 *
 * One LogicalNetwork per TermiteNode (`networkOf`, made on first use), reached only by
 * the node's own processes through the primitives of prims-messengers.js; another
 * physical node changes it by running a process here (`on`, remote spawn, migration).
 *
 * Invariants:
 *  - an address is the string "@<physical node id>/<serial>", unique in the mesh (a
 *    node's name never starts with "@"); the serial is never reused on a node, so an
 *    address of a deleted node stays dead;
 *  - a link is kept on the node it leaves: an undirected link is two entries, one on
 *    each end (the paper's pair of LINK structures), a directed link one entry;
 *  - a link entry caches its destination's name (names never change), so a hop matches
 *    names without asking the destination's physical node;
 *  - node variables hold copies (copyMessage): messengers share a node variable's value,
 *    never a mutable object of another process; each variable has a version, bumped on
 *    every write, so read-modify-write is a compare-and-set on the version;
 *  - a waiter (mailbox or predicate) is removed by exactly one party — the waiter giving
 *    up or the writer waking it — so a wake-up is delivered at most once;
 *  - every per-peer quantity is bounded: logical nodes per physical node, links per
 *    logical node, messages per mailbox, waiters per node (LIMITS).
 */
import { Sym, Flonum, Ratnum, schemeErrorOf, stringText } from '../scheme-data.js';
import { copyMessage } from '../copy.js';

/** What one physical node holds at most (a peer's messengers cannot make it spend more). */
export const LIMITS = { nodes: 100_000, linksPerNode: 10_000, mailPerNode: 10_000, waitersPerNode: 10_000 };

/** The wildcard of hop/delete/create parameters. */
export const WILDCARD = Sym.intern('*');

/**
 * A name or weight as a key compared by value: symbols, strings, numbers; #f is "none".
 * @param {any} x @param {string} who @returns {string|null}
 */
export function keyOf(x, who) {
  if (x === false) return null;
  x = stringText(x); // a mutable string names what its text names
  if (x instanceof Sym) return x === WILDCARD ? schemeErrorOf('type', who, 'the wildcard * is not a name', x) : `s${x.name}`;
  if (typeof x === 'string') return `"${x}`;
  if (typeof x === 'number') return `n${x}`;
  if (typeof x === 'bigint') return `n${x}`;
  if (x instanceof Flonum) return Number.isInteger(x.v) ? `n${x.v}` : `f${x.v}`;
  if (x instanceof Ratnum) return `r${x.num}/${x.den}`;
  return schemeErrorOf('type', who, 'expected a symbol, string, number or #f as a name or weight', x);
}

/**
 * @typedef {object} Link
 * @property {any} name the link's name (a Scheme value, or #f)
 * @property {string|null} nameKey
 * @property {any} weight the link's weight (a number, or #f)
 * @property {string|null} weightKey
 * @property {string} to the destination's address
 * @property {string|null} toNameKey the destination's name, as a key
 */

/** @typedef {{pid: any, tag: any}} MailWaiter */
/** @typedef {{id: number, pid: any, tag: any, pred: any}} VarWaiter */

/** A logical node: the paper's Node Control Block. */
export class LogicalNode {
  /** @param {string} addr @param {any} name */
  constructor(addr, name) {
    this.addr = addr;
    this.name = name;
    this.nameKey = keyOf(name, 'create');
    /** @type {Map<string, {v: any, ver: number}>} node variables by name */
    this.vars = new Map();
    /** @type {Link[]} links leaving this node */
    this.links = [];
    /** @type {Set<any>} messenger processes residing here */
    this.residents = new Set();
    /** @type {any[]} the mailbox (oldest first) */
    this.mail = [];
    /** @type {MailWaiter[]} messengers blocked in m-recv, oldest first */
    this.mailWaiters = [];
    /** @type {Map<string, VarWaiter[]>|null} predicate waits by variable name */
    this.varWaiters = null;
    this.waiterCount = 0;
    /** never deleted when left empty: a physical node's root, here or where a drain moved it */
    this.permanent = false;
  }

  /** Residents that are still alive (a killed messenger never departed). */
  liveResidents() {
    for (const p of this.residents) if (!p.alive) this.residents.delete(p);
    return this.residents.size;
  }
}

/**
 * A messenger's network variables: where it is and how it came, plus what it needs to
 * be duplicated (its first procedure) and to report its end (its credit).
 * @typedef {object} MessengerState
 * @property {string} addr
 * @property {any} link the last link's name, or #f
 * @property {any} weight the last link's weight, or #f
 * @property {any} me the messenger's own record (Scheme: its procedure, controller, credit)
 */

/** The logical network hosted by one physical node (see the file header). */
export class LogicalNetwork {
  /** @param {any} node the TermiteNode */
  constructor(node) {
    this.node = node;
    /** @type {Map<string, LogicalNode>} */
    this.nodes = new Map();
    this.serial = 0;
    /** @type {Map<any, MessengerState>} messenger process → its network variables */
    this.messengers = new Map();
    /** @type {Map<string, number>} logical nodes this node placed on each physical node (create's balancing) */
    this.placed = new Map();
    this.rootAddr = '';
    /** @type {Map<string, string>} logical nodes a drain moved away → the physical node id they went to */
    this.moved = new Map();
    /** how many hops, creates and deletes ran here (dashboard, benchmarks) */
    this.stats = { hops: 0, creates: 0, deletes: 0, arrivals: 0 };
  }

  /** The root logical node "init", where messengers are injected by default. */
  root() {
    if (this.rootAddr === '') this.rootAddr = this.makeNode(Sym.intern('init')).addr;
    return /** @type {LogicalNode} */ (this.nodes.get(this.rootAddr));
  }

  /** @param {any} name */
  makeNode(name) {
    if (this.nodes.size >= LIMITS.nodes) schemeErrorOf('resource-limit', 'create', `too many logical nodes on this physical node (limit ${LIMITS.nodes})`);
    const ln = new LogicalNode(`@${this.node.id}/${this.serial++}`, name);
    this.nodes.set(ln.addr, ln);
    this.stats.creates++;
    return ln;
  }

  /**
   * The id of the physical node holding `addr`: this one, where a drain moved it, or the
   * one its address names.
   * @param {string} addr
   */
  physicalIdOf(addr) {
    if (this.nodes.has(addr)) return this.node.id;
    return this.moved.get(addr) ?? addr.slice(1, addr.lastIndexOf('/'));
  }

  /** @param {any} addr @param {string} who @returns {LogicalNode} */
  local(addr, who) {
    addr = stringText(addr);
    const ln = typeof addr === 'string' ? this.nodes.get(addr) : undefined;
    if (ln === undefined) {
      if (typeof addr !== 'string') schemeErrorOf('type', who, 'expected a logical node address (a string)', addr);
      schemeErrorOf('no-such-node', who, 'no such logical node (it does not exist, or was deleted)', addr);
    }
    return /** @type {LogicalNode} */ (ln);
  }

  /**
   * Add a link leaving `from` (a node of this physical node).
   * @param {LogicalNode} from @param {any} name @param {any} weight @param {string} to @param {any} toName
   */
  addLink(from, name, weight, to, toName) {
    if (from.links.length >= LIMITS.linksPerNode) schemeErrorOf('resource-limit', 'create', `too many links on one logical node (limit ${LIMITS.linksPerNode})`);
    from.links.push({ name, nameKey: keyOf(name, 'create'), weight, weightKey: keyOf(weight, 'create'), to, toNameKey: keyOf(toName, 'create') });
  }

  /**
   * Remove the links of `from` to `to` named `nameKey`; whether `from` has no link left.
   * @param {LogicalNode} from @param {string} to @param {string|null} nameKey
   */
  removeLinks(from, to, nameKey) {
    from.links = from.links.filter((l) => !(l.to === to && l.nameKey === nameKey));
    return from.links.length === 0;
  }

  /**
   * Delete `ln` if it has no link and no messenger but `except` on it; whether it did.
   * @param {LogicalNode} ln @param {any} except
   */
  deleteIfEmpty(ln, except) {
    if (ln.links.length > 0 || ln.addr === this.rootAddr || ln.permanent) return false;
    ln.residents.delete(except);
    if (ln.liveResidents() > 0) return false;
    this.nodes.delete(ln.addr);
    this.stats.deletes++;
    return true;
  }

  /**
   * A process arrives on a node of this physical node (a hop, a create, an injection).
   * @param {any} proc @param {string} addr @param {any} link @param {any} weight @param {any} me
   */
  arrive(proc, addr, link, weight, me) {
    const ln = this.local(addr, 'hop');
    const old = this.messengers.get(proc);
    if (old !== undefined) {
      const from = this.nodes.get(old.addr);
      if (from !== undefined) from.residents.delete(proc);
      old.addr = addr;
      old.link = link;
      old.weight = weight;
      old.me = me;
    } else {
      this.messengers.set(proc, { addr, link, weight, me });
    }
    ln.residents.add(proc);
    // a messenger killed by terminate! never departs: forget such entries now and then
    if ((++this.stats.arrivals & 4095) === 0) this.forgetDead();
    return ln;
  }

  /** Drop the entries of messenger processes that died without departing. */
  forgetDead() {
    for (const [proc, st] of this.messengers) {
      if (proc.alive) continue;
      this.messengers.delete(proc);
      this.nodes.get(st.addr)?.residents.delete(proc);
    }
  }

  /** The process leaves this physical node (it migrates, or ends). @param {any} proc */
  depart(proc) {
    const st = this.messengers.get(proc);
    if (st === undefined) return;
    this.messengers.delete(proc);
    const ln = this.nodes.get(st.addr);
    if (ln !== undefined) ln.residents.delete(proc);
  }

  /** @param {any} proc @param {string} who */
  stateOf(proc, who) {
    const st = this.messengers.get(proc);
    if (st === undefined) return schemeErrorOf('context', who, 'must be called by a messenger (a process started by inject)');
    return st;
  }

  // ---------------------------------------------------------------- node variables

  /** @param {LogicalNode} ln @param {string} name @param {any} dflt */
  read(ln, name, dflt) {
    const cell = ln.vars.get(name);
    return cell === undefined ? dflt : copyMessage(cell.v);
  }

  /**
   * Write a variable (only if its version is still `ver`, when ver >= 0); the waiters on
   * that variable, to re-check, or false when the version had moved on.
   * @param {LogicalNode} ln @param {string} name @param {any} v @param {number} ver
   * @returns {VarWaiter[]|false}
   */
  write(ln, name, v, ver) {
    const cell = ln.vars.get(name);
    const cur = cell === undefined ? 0 : cell.ver;
    if (ver >= 0 && ver !== cur) return false;
    if (cell === undefined) ln.vars.set(name, { v: copyMessage(v), ver: 1 });
    else {
      cell.v = copyMessage(v);
      cell.ver = cur + 1;
    }
    const ws = ln.varWaiters === null ? undefined : ln.varWaiters.get(name);
    return ws === undefined ? [] : ws.slice();
  }

  /** @param {LogicalNode} ln @param {string} name */
  version(ln, name) {
    const cell = ln.vars.get(name);
    return cell === undefined ? 0 : cell.ver;
  }

  /** @param {LogicalNode} ln @param {string} name @param {VarWaiter} w */
  addVarWaiter(ln, name, w) {
    if (ln.waiterCount >= LIMITS.waitersPerNode) schemeErrorOf('resource-limit', 'wait-until', `too many waiting messengers on one logical node (limit ${LIMITS.waitersPerNode})`);
    if (ln.varWaiters === null) ln.varWaiters = new Map();
    const ws = ln.varWaiters.get(name);
    if (ws === undefined) ln.varWaiters.set(name, [w]);
    else ws.push(w);
    ln.waiterCount++;
  }

  /** Remove waiter `id`; whether it was still there (its remover wakes it). @param {LogicalNode} ln @param {string} name @param {number} id */
  takeVarWaiter(ln, name, id) {
    const ws = ln.varWaiters === null ? undefined : ln.varWaiters.get(name);
    if (ws === undefined) return false;
    const i = ws.findIndex((w) => w.id === id);
    if (i < 0) return false;
    ws.splice(i, 1);
    if (ws.length === 0) /** @type {Map<string, VarWaiter[]>} */ (ln.varWaiters).delete(name);
    ln.waiterCount--;
    return true;
  }

  // ---------------------------------------------------------------- mailboxes

  /**
   * Put a message in `ln`'s mailbox: the waiter it must be handed to, or null (queued).
   * @param {LogicalNode} ln @param {any} v @returns {MailWaiter|null}
   */
  post(ln, v) {
    const w = ln.mailWaiters.shift();
    if (w !== undefined) {
      ln.waiterCount--;
      return w;
    }
    if (ln.mail.length >= LIMITS.mailPerNode) schemeErrorOf('resource-limit', 'm-send', `the logical node's mailbox is full (limit ${LIMITS.mailPerNode})`, ln.addr);
    ln.mail.push(copyMessage(v));
    return null;
  }

  /** @param {LogicalNode} ln @param {MailWaiter} w */
  addMailWaiter(ln, w) {
    if (ln.waiterCount >= LIMITS.waitersPerNode) schemeErrorOf('resource-limit', 'm-recv', `too many waiting messengers on one logical node (limit ${LIMITS.waitersPerNode})`);
    ln.mailWaiters.push(w);
    ln.waiterCount++;
  }

  /** Remove the waiter with tag `tag`; whether it was still there. @param {LogicalNode} ln @param {any} tag */
  takeMailWaiter(ln, tag) {
    const i = ln.mailWaiters.findIndex((w) => w.tag === tag);
    if (i < 0) return false;
    ln.mailWaiters.splice(i, 1);
    ln.waiterCount--;
    return true;
  }
}

/**
 * A JSON-ready picture of a physical node's logical network, for dashboards: each
 * logical node's address, name (as text), messengers on it and links, and the counters.
 * `limits` bounds what is listed (the first `nodes` logical nodes, `links` links over
 * them all); `total` counts everything.
 * @param {any} node a TermiteNode @param {{nodes?: number, links?: number}} [limits]
 */
export function logicalNetworkSnapshot(node, limits = {}) {
  const net = networks.get(node);
  if (net === undefined) return { nodes: [], stats: { hops: 0, creates: 0, deletes: 0, arrivals: 0 }, total: { nodes: 0, links: 0 } };
  const text = (/** @type {any} */ x) => (x === false ? null : x instanceof Sym ? x.name : typeof x === 'bigint' ? String(x) : x instanceof Flonum ? x.v : typeof x === 'object' ? String(x) : x);
  const maxNodes = limits.nodes ?? Infinity;
  let linksLeft = limits.links ?? Infinity;
  let links = 0;
  const nodes = [];
  for (const ln of net.nodes.values()) {
    links += ln.links.length;
    if (nodes.length >= maxNodes) continue;
    const shown = ln.links.slice(0, Math.max(0, linksLeft));
    linksLeft -= shown.length;
    nodes.push({ address: ln.addr, name: text(ln.name), messengers: ln.liveResidents(), links: shown.map((k) => ({ name: text(k.name), weight: text(k.weight), to: k.to })) });
  }
  return { nodes, stats: { ...net.stats }, total: { nodes: net.nodes.size, links } };
}

/** @type {WeakMap<object, LogicalNetwork>} */
const networks = new WeakMap();

/** The logical network of a physical node (made on first use). @param {any} node */
export function networkOf(node) {
  let net = networks.get(node);
  if (net === undefined) {
    net = new LogicalNetwork(node);
    networks.set(node, net);
  }
  return net;
}
