// @ts-check
/**
 * The primitives under the (termite messengers) library (docs/messengers.md): each reads
 * or changes the calling process's physical node's logical network
 * (logical-network.js) and never blocks — waiting (m-recv, wait-until, virtual time) is
 * done in Scheme by a selective receive on a tag (scheme-sources/messengers.scm), and
 * anything on another physical node runs there in a process of its own (`on`,
 * `remote-spawn`, `migrate`).
 *
 * Every name here starts with `%`: programs use the Scheme procedures built on them.
 * Each takes the calling process's node from the running thread, so a primitive called
 * by a process that migrated acts on the node it is on now.
 */
import { definePrimitive, defineBuiltin, unwind, PEND_SUSPEND } from '@termite/scheme/internal';
import { VOID, Sym, Pair, arrayToList, schemeErrorOf, stringText } from '../scheme-data.js';
import { NodeRef, Pid } from '../termite-values.js';
import { current } from '../prims-processes.js';
import { networkOf, keyOf, WILDCARD } from './logical-network.js';
import { exportNodes, adoptNodes } from './lnet-transfer.js';
import { prepareDrain } from '../distribution/drain.js';

/** @param {string} who */
function here(who) {
  const proc = current(who);
  return { proc, net: networkOf(proc.node) };
}

/** The physical node id in an address. @param {any} addr @param {string} who */
function physicalOf(addr, who) {
  addr = stringText(addr);
  if (typeof addr !== 'string' || addr[0] !== '@' || addr.lastIndexOf('/') < 2) schemeErrorOf('type', who, 'expected a logical node address', addr);
  return addr.slice(1, addr.lastIndexOf('/'));
}

/** A variable name as a key. @param {any} name @param {string} who */
function varKey(name, who) {
  name = stringText(name);
  if (name instanceof Sym) return name.name;
  if (typeof name === 'string') return `"${name}`;
  return schemeErrorOf('type', who, 'expected a node variable name (a symbol or string)', name);
}

/** A pattern: null for the wildcard, else the key of the value. @param {any} x @param {string} who */
const patternOf = (x, who) => (x === WILDCARD ? undefined : keyOf(x, who));

definePrimitive('%lnet-root', 0, 0, () => here('inject').net.root().addr);
definePrimitive('%lnet-address?', 1, 1, (/** @type {any} */ x) => { x = stringText(x); return typeof x === 'string' && x[0] === '@' && x.lastIndexOf('/') > 1; });
/** Whether addr is held by this physical node (or names it and was not moved away by a drain). */
definePrimitive('%lnet-local?', 1, 1, (/** @type {any} */ addr) => {
  const node = current('hop').node;
  const id = physicalOf(addr, 'hop');
  const net = networkOf(node);
  const a = stringText(addr);
  if (net.nodes.has(a)) return true;
  return id === node.id && !net.moved.has(a);
});
definePrimitive('%lnet-exists?', 1, 1, (/** @type {any} */ addr) => here('hop').net.nodes.has(stringText(addr)));

/** `(%lnet-physical addr)`: the NodeRef of the physical node holding addr. */
definePrimitive('%lnet-physical', 1, 1, (/** @type {any} */ addr) => {
  physicalOf(addr, 'hop');
  const node = current('hop').node;
  const id = networkOf(node).physicalIdOf(stringText(addr));
  if (id === node.id) return node.ref;
  return node.remote !== null && node.remote.nodeRefOf ? node.remote.nodeRefOf(id) : new NodeRef(id, null, null);
});

definePrimitive('%lnet-make-node', 1, 1, (/** @type {any} */ name) => {
  name = stringText(name);
  if (typeof name === 'string' && name[0] === '@') schemeErrorOf('type', 'create', 'a node name may not start with "@" (that is an address)', name);
  return here('create').net.makeNode(name).addr;
});

definePrimitive('%lnet-name', 1, 1, (/** @type {any} */ addr) => here('create').net.local(addr, 'create').name);

/** `(%lnet-link! from to name weight to-name)`: a link leaving local node `from`. */
definePrimitive('%lnet-link!', 5, 5, (/** @type {any} */ from, /** @type {any} */ to, /** @type {any} */ name, /** @type {any} */ weight, /** @type {any} */ toName) => {
  const { net } = here('create');
  physicalOf(to, 'create');
  net.addLink(net.local(from, 'create'), name, weight, to, toName);
  return VOID;
});

/** `(%lnet-unlink! from to name)`: remove from's links to `to` named `name`; #t when none is left. */
definePrimitive('%lnet-unlink!', 3, 3, (/** @type {any} */ from, /** @type {any} */ to, /** @type {any} */ name) => {
  const { net } = here('delete');
  const ln = net.nodes.get(stringText(from));
  return ln === undefined ? false : net.removeLinks(ln, to, keyOf(name, 'delete'));
});

/** `(%lnet-delete-if-empty! addr)`: delete a linkless node nobody but the caller is on. */
definePrimitive('%lnet-delete-if-empty!', 1, 1, (/** @type {any} */ addr) => {
  const { proc, net } = here('delete');
  const ln = net.nodes.get(stringText(addr));
  return ln === undefined ? false : net.deleteIfEmpty(ln, proc);
});

/**
 * `(%lnet-match node link weight physical-id move?)`: the links of the caller's node whose
 * destination name, link name, weight and physical node (its id) match (each a value or *):
 * a list of #(address link weight). With move?, when that is one link to a node of this
 * physical node, the caller moves there at once and the answer is #t (a local hop in
 * one call: the hot path).
 */
definePrimitive('%lnet-match', 5, 5, (/** @type {any} */ nodePat, /** @type {any} */ linkPat, /** @type {any} */ weightPat, /** @type {any} */ physPat, /** @type {any} */ move) => {
  const { proc, net } = here('hop');
  const ln = net.local(net.stateOf(proc, 'hop').addr, 'hop');
  const n = patternOf(nodePat, 'hop');
  const l = patternOf(linkPat, 'hop');
  const w = patternOf(weightPat, 'hop');
  const p = physPat === WILDCARD ? null : typeof physPat === 'string' ? physPat : schemeErrorOf('type', 'hop', 'expected a node or * as the physical parameter', physPat);
  /** @type {any[]} */
  const out = [];
  for (const k of ln.links) {
    if (n !== undefined && k.toNameKey !== n) continue;
    if (l !== undefined && k.nameKey !== l) continue;
    if (w !== undefined && k.weightKey !== w) continue;
    if (p !== null && net.physicalIdOf(k.to) !== p) continue;
    out.push([k.to, k.name, k.weight]);
  }
  if (move && out.length === 1 && net.nodes.has(out[0][0])) {
    const [to, name, weight] = out[0];
    net.arrive(proc, to, name, weight, net.stateOf(proc, 'hop').me);
    return true;
  }
  return arrayToList(out);
});

/** `(%lnet-nodes name)`: the addresses of this physical node's logical nodes named name (or *). */
definePrimitive('%lnet-nodes', 1, 1, (/** @type {any} */ namePat) => {
  const { net } = here('hop');
  const n = patternOf(namePat, 'hop');
  /** @type {string[]} */
  const out = [];
  for (const ln of net.nodes.values()) if (n === undefined || ln.nameKey === n) out.push(ln.addr);
  return arrayToList(out);
});

/**
 * `(%lnet-place candidates)`: the physical node (of a list of NodeRefs, this one first)
 * that this node has placed the fewest logical nodes on; counts the placement.
 */
definePrimitive('%lnet-place', 1, 1, (/** @type {any} */ candidates) => {
  const { net } = here('create');
  let best = null;
  let bestCount = Infinity;
  for (let c = candidates; c instanceof Pair; c = c.cdr) {
    const id = c.car instanceof NodeRef ? c.car.id : null;
    if (id === null) continue;
    const count = net.placed.get(id) ?? 0;
    if (count < bestCount) {
      best = c.car;
      bestCount = count;
    }
  }
  if (best === null) return current('create').node.ref;
  net.placed.set(best.id, bestCount + 1);
  return best;
});

// ------------------------------------------------------------------ network variables

/** `(%msgr-arrive addr link weight me)`: the caller is now a messenger on local node addr. */
definePrimitive('%msgr-arrive', 4, 4, (/** @type {any} */ addr, /** @type {any} */ link, /** @type {any} */ weight, /** @type {any} */ me) => {
  const { proc, net } = here('hop');
  net.arrive(proc, stringText(addr), link, weight, me);
  return VOID;
});
/** `(%msgr-try-arrive addr link weight me)`: as %msgr-arrive, but #f (and nothing done) when addr is gone. */
definePrimitive('%msgr-try-arrive', 4, 4, (/** @type {any} */ addr, /** @type {any} */ link, /** @type {any} */ weight, /** @type {any} */ me) => {
  const { proc, net } = here('hop');
  addr = stringText(addr);
  if (!net.nodes.has(addr)) return false;
  net.arrive(proc, addr, link, weight, me);
  return true;
});
/**
 * `(%msgr-move node notice-pid notice)`: continue on physical node `node` (a messenger's
 * hop there): #!void there, or here an error object when the move was not made. One
 * frame, no answer (distribution/one-way-migration.js); if `node` cannot take the
 * messenger, it sends `notice` (the credit going back) to `notice-pid` (#f: nobody).
 */
defineBuiltin('%msgr-move', function (/** @type {number} */ _d, /** @type {any} */ ref, /** @type {any} */ npid, /** @type {any} */ notice) {
  if (!(ref instanceof NodeRef)) schemeErrorOf('type', 'hop', 'expected a node', ref);
  const proc = current('hop');
  const remote = proc.node.remote;
  if (remote === null) schemeErrorOf('unsupported', 'hop', 'this node is not part of a mesh (start it as a daemon, or with --join)');
  const to = /** @type {NodeRef} */ (ref);
  const n = npid instanceof Pid ? { pid: npid, msg: notice } : null;
  proc.node.blockExternal(proc, { who: 'hop' });
  // the continuation is complete once this slice has unwound: move after it
  queueMicrotask(() => (remote.hop ? remote.hop(proc, to, n) : remote.migrate(proc, to)));
  return unwind(PEND_SUSPEND, proc.waiting);
}, 3, 0);

definePrimitive('%msgr-depart', 0, 0, () => {
  const { proc, net } = here('hop');
  net.depart(proc);
  return VOID;
});
definePrimitive('%msgr?', 0, 0, () => {
  const { proc, net } = here('messenger?');
  return net.messengers.has(proc);
});
definePrimitive('%msgr-here', 0, 0, () => {
  const { proc, net } = here('current-lnode');
  return net.stateOf(proc, 'current-lnode').addr;
});
definePrimitive('%msgr-link', 0, 0, () => {
  const { proc, net } = here('last-link');
  return net.stateOf(proc, 'last-link').link;
});
definePrimitive('%msgr-weight', 0, 0, () => {
  const { proc, net } = here('last-weight');
  return net.stateOf(proc, 'last-weight').weight;
});
definePrimitive('%msgr-me', 0, 0, () => {
  const { proc, net } = here('hop');
  return net.stateOf(proc, 'hop').me;
});
definePrimitive('%msgr-set-me!', 1, 1, (/** @type {any} */ me) => {
  const { proc, net } = here('hop');
  net.stateOf(proc, 'hop').me = me;
  return VOID;
});

// ------------------------------------------------------------------ node variables

/** The caller's logical node. @param {string} who */
function lnodeOfCaller(who) {
  const { proc, net } = here(who);
  return { net, ln: net.local(net.stateOf(proc, who).addr, who) };
}

definePrimitive('%node-var-ref', 2, 2, (/** @type {any} */ name, /** @type {any} */ dflt) => {
  const { net, ln } = lnodeOfCaller('node-ref');
  return net.read(ln, varKey(name, 'node-ref'), dflt);
});

/** `(%node-var-ref-at addr name default)`: a variable of a logical node of this physical node. */
definePrimitive('%node-var-ref-at', 3, 3, (/** @type {any} */ addr, /** @type {any} */ name, /** @type {any} */ dflt) => {
  const { net } = here('node-ref-at');
  return net.read(net.local(addr, 'node-ref-at'), varKey(name, 'node-ref-at'), dflt);
});

/** `(%node-var-get name default)`: (version . value), read together. */
definePrimitive('%node-var-get', 2, 2, (/** @type {any} */ name, /** @type {any} */ dflt) => {
  const { net, ln } = lnodeOfCaller('node-update!');
  const key = varKey(name, 'node-update!');
  return new Pair(net.version(ln, key), net.read(ln, key, dflt));
});

/**
 * `(%node-var-set! name value version)`: write (if the version is still `version`, or
 * always when it is -1); the waiters to re-check as a list of #(id pid tag pred), or #f
 * when the version had moved on.
 */
definePrimitive('%node-var-set!', 3, 3, (/** @type {any} */ name, /** @type {any} */ value, /** @type {any} */ ver) => {
  const { net, ln } = lnodeOfCaller('node-set!');
  const ws = net.write(ln, varKey(name, 'node-set!'), value, ver);
  if (ws === false) return false;
  if (ws.length === 0) return null;
  return arrayToList(ws.map((w) => [w.id, w.pid, w.tag, w.pred]));
});

let waiterSerial = 0;

/** `(%node-var-wait! name pred tag)`: register a predicate wait; its id. */
definePrimitive('%node-var-wait!', 3, 3, (/** @type {any} */ name, /** @type {any} */ pred, /** @type {any} */ tag) => {
  const { net, ln } = lnodeOfCaller('wait-until');
  const id = ++waiterSerial;
  net.addVarWaiter(ln, varKey(name, 'wait-until'), { id, pid: current('wait-until').pid, tag, pred });
  return id;
});

/** `(%node-var-unwait! name id)`: #t when the caller removed the waiter (nobody else will wake it). */
definePrimitive('%node-var-unwait!', 2, 2, (/** @type {any} */ name, /** @type {any} */ id) => {
  const { net, ln } = lnodeOfCaller('wait-until');
  return net.takeVarWaiter(ln, varKey(name, 'wait-until'), id);
});

// ------------------------------------------------------------------ mailboxes

/** `(%lnode-post addr value)`: #f when queued, or (pid . tag) of the waiter to hand it to. */
definePrimitive('%lnode-post', 2, 2, (/** @type {any} */ addr, /** @type {any} */ v) => {
  const { net } = here('m-send');
  const w = net.post(net.local(addr, 'm-send'), v);
  return w === null ? false : new Pair(w.pid, w.tag);
});

/** `(%lnode-take tag)`: (value) from the caller's node's mailbox, or #f having registered a waiter. */
definePrimitive('%lnode-take', 1, 1, (/** @type {any} */ tag) => {
  const { net, ln } = lnodeOfCaller('m-recv');
  if (ln.mail.length > 0) return new Pair(ln.mail.shift(), null);
  net.addMailWaiter(ln, { pid: current('m-recv').pid, tag });
  return false;
});

/** `(%lnode-untake addr tag)`: #t when the caller removed its waiter. */
definePrimitive('%lnode-untake', 2, 2, (/** @type {any} */ addr, /** @type {any} */ tag) => {
  const { net } = here('m-recv');
  const ln = net.nodes.get(stringText(addr));
  return ln === undefined ? true : net.takeMailWaiter(ln, tag);
});

// ------------------------------------------------------------------ inspection

/**
 * `(%lnet-describe)`: this physical node's logical nodes, each
 * #(address name messengers (#(link weight to) ...) (variable ...)).
 */
definePrimitive('%lnet-describe', 0, 0, () => {
  const { net } = here('lnet-describe');
  const out = [];
  for (const ln of net.nodes.values()) {
    out.push([
      ln.addr, ln.name, ln.liveResidents(),
      arrayToList(ln.links.map((k) => [k.name, k.weight, k.to])),
      arrayToList([...ln.vars.keys()].map((k) => (k[0] === '"' ? k.slice(1) : Sym.intern(k)))),
    ]);
  }
  return arrayToList(out);
});

// ------------------------------------------------------------------ draining (lnet-transfer.js, distribution/drain.js)

/** `(%lnet-moved addr)`: the physical node a drain moved addr to (a NodeRef), or #f. */
definePrimitive('%lnet-moved', 1, 1, (/** @type {any} */ addr) => {
  const node = current('hop').node;
  const a = stringText(addr);
  const net = networkOf(node);
  if (net.nodes.has(a)) return false;
  const id = net.moved.get(a);
  if (id === undefined) return false;
  return node.remote !== null && node.remote.nodeRefOf ? node.remote.nodeRefOf(id) : new NodeRef(id, null, null);
});

/** `(%drain-export! target-id)`: every logical node of this physical node, taken off it for that node. */
definePrimitive('%drain-export!', 1, 1, (/** @type {any} */ id) => {
  if (typeof id !== 'string') return schemeErrorOf('type', 'drain-node', 'expected a node id', id);
  return arrayToList(exportNodes(here('drain-node').net, id));
});

/** `(%lnet-adopt! nodes)`: put exported logical nodes into this physical node's table; how many. */
definePrimitive('%lnet-adopt!', 1, 1, (/** @type {any} */ nodes) => {
  const { net } = here('drain-node');
  const before = net.nodes.size;
  waiterSerial = Math.max(waiterSerial, adoptNodes(net, nodes));
  return net.nodes.size - before;
});

/**
 * `(%drain-prepare! tag)`: set every process of this node that can move up to wait for
 * the drain's go (tag); #(moving-pids (#(pid reason) ...)).
 */
definePrimitive('%drain-prepare!', 1, 1, (/** @type {any} */ tag) => {
  const { proc, net } = here('drain-node');
  const messengerState = (/** @type {any} */ p) => {
    const st = net.messengers.get(p);
    return st === undefined ? false : [st.addr, st.link, st.weight, st.me];
  };
  const { moving, staying } = prepareDrain(proc.node, proc, tag, messengerState);
  return [arrayToList(moving), arrayToList(staying)];
});
