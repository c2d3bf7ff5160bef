// @ts-check
/**
 * Local Linda on the C core's tuple store (docs/linda.md).
 *
 *   (out field ...)            (out space field ...)
 *   (in field-or-formal ...)   → the matching tuple, removed, as a list; blocks until one exists
 *   (rd ...)                   → a copy, not removed
 *   (inp ...) (rdp ...)        → the tuple or #f, never blocking
 *   (in-timeout seconds default field ...), (rd-timeout ...)
 *   (tuple-count field-or-formal ...)
 *   ?any ?integer ?number ?float ?string ?symbol ?bytes ?boolean ?vector ?null ?list
 *   (formal 'integer)          the formals, as values: templates are data
 *   (make-space 'name)         a named space of this node; the default space otherwise
 *
 * A tuple is encoded with the Scheme value codec (a CBOR array of its fields; symbols
 * tag 40960, formals tag 40992) and matched by the core without being decoded; a
 * process blocked in `in`/`rd` waits in the core and is woken by the matching `out`.
 */
import { unwind, PEND_SUSPEND, definePrimitive, defineBuiltin, encodeValue, decodeValue, rtEnv } from '@termite/scheme/internal';
import { BLOCKED } from '@termite/core';
import { VOID, Sym, Closure, SchemeError, schemeErrorOf, arrayToList, Pair, CALL, stringText } from './scheme-data.js';
import { SpaceRef, Formal, FORMAL_NAMES, NodeRef } from './termite-values.js';
import { current, seconds } from './prims-processes.js';
import { W_TUPLE } from './termite-node/process.js';
import { resolveCode } from './code.js';
import { coreSpace, declareSpace, putTuple, noteWithdrawn, spaceTable } from './linda/space-table.js';
import { requestRemote, requestRemoteAsync, abandonRemoteAsync, sendRemoteOut, OP } from './linda/remote-spaces.js';
import { qosWait, deadlineError } from './linda/qos.js';
import { readyReplica, dtsOut, dtsTake, dtsRead } from './linda/dts-operations.js';
import { ensureReplica } from './linda/dts-protocol.js';
import { startDtsAsync, cancelDtsAsync, DTS_ASYNC_BASE } from './linda/dts-async.js';
import { waitRecord, cancelRecord } from './linda/core-records.js';

export { coreSpace };

const TAG_LIST = 40962;

/**
 * Refuse a process that a restricted peer spawned (`proc.peer`) a space of this node that
 * was not given to that peer (distribution/capabilities.js). The node's own processes
 * (`peer` null) pay one comparison.
 * @param {any} proc @param {string} name @param {string} who
 */
function confine(proc, name, who) {
  if (proc.peer === null || proc.node.remote == null || proc.node.remote.maySpace(proc.peer, name)) return;
  schemeErrorOf('capability', who, `a restricted peer's process may not use the space ${name}, which was not given to it`, Sym.intern(name));
}

/**
 * The same for making or naming a space (`make-space`): a new name becomes the peer's.
 * @param {any} proc @param {string} name @param {string} who
 */
function confineMake(proc, name, who) {
  if (proc.peer === null || proc.node.remote == null) return;
  if (!proc.node.remote.mayMakeSpace(proc.peer, name, spaceTable(proc.node).info.has(name))) {
    schemeErrorOf('capability', who, `a restricted peer's process may not use the space ${name}, which was not given to it`, Sym.intern(name));
  }
}

/**
 * Split `(op [space] field ...)` arguments, the space checked against what the calling
 * process may use.
 * @param {any} proc the calling process @param {any[]} args @param {string} who
 */
function spaceAndFields(proc, args, who) {
  const node = proc.node;
  let name = 'default';
  let kind = 'local';
  let fields = args;
  if (args.length > 0 && args[0] instanceof SpaceRef) {
    const ref = args[0];
    if (ref.node !== node.id && ref.kind !== 'distributed') schemeErrorOf('internal', who, 'a space of another node reached a local operation', ref);
    name = ref.name;
    kind = ref.kind;
    fields = args.slice(1);
  }
  if (fields.length === 0) schemeErrorOf('arity', who, 'a tuple needs at least one field');
  confine(proc, name, who);
  return { space: coreSpace(node, name, kind), fields, name };
}

/**
 * Check the fields and encode them. A template's fields are actuals or formals, and a
 * formal must be a field of its own: inside a list or a vector it would be compared as
 * data and never match, so it is refused with an error. A tuple's fields are actuals
 * or, as the S/Net kernel allows, formals: a formal field of a stored tuple matches any
 * actual of its type in a template (never a formal); the core applies that rule. (A
 * formal inside a field of a tuple is data: a stored template.)
 * @param {any[]} fields @param {string} who @param {boolean} template
 */
function encodeFields(fields, who, template) {
  for (const f of fields) {
    if (template && !(f instanceof Formal) && (f instanceof Pair || Array.isArray(f))) {
      const hidden = nestedFormal(f);
      if (hidden !== null) schemeErrorOf('type', who, 'a formal must be a whole field of the template, not inside a list or vector (it would be matched as data)', f);
    }
  }
  try {
    return encodeValue(fields, { stringsAsText: true });
  } catch (e) {
    return schemeErrorOf('type', who, `a field cannot be stored: ${e instanceof Error ? e.message : e}`);
  }
}

/**
 * The first formal inside a list or vector (at any depth), or null. Iterative, and safe
 * on cycles (objects already seen are skipped).
 * @param {any} root
 * @returns {Formal|null}
 */
function nestedFormal(root) {
  const stack = [root];
  const seen = new Set();
  while (stack.length > 0) {
    const x = stack.pop();
    if (x instanceof Formal) return x;
    if (typeof x !== 'object' || x === null || seen.has(x)) continue;
    if (x instanceof Pair) {
      seen.add(x);
      stack.push(x.car, x.cdr);
    } else if (Array.isArray(x)) {
      seen.add(x);
      for (let i = 0; i < x.length; i++) stack.push(x[i]);
    }
  }
  return null;
}

/** @param {Uint8Array} bytes */
export function decodeTuple(bytes) {
  return arrayToList(decodeValue(bytes, { resolveCode }));
}

/**
 * Run a core call, turning its errors (malformed template, unknown formal, memory)
 * into Scheme errors naming the Linda operation.
 * @template T @param {string} who @param {() => T} f @returns {T}
 */
function coreCall(who, f) {
  try {
    return f();
  } catch (e) {
    if (e && typeof e === 'object' && 'status' in e) return schemeErrorOf('linda', who, /** @type {any} */ (e).message);
    throw e;
  }
}

/**
 * A Linda operation as a runtime procedure: on a space of this node it runs `local`;
 * on a space of another node it sends the operation there (linda/remote-spaces.js)
 * and the process waits for the answer.
 * @param {string} who @param {number} op @param {boolean} template @param {(args: any[]) => any} local
 */
function lindaProcedure(who, op, template, local) {
  defineBuiltin(who, function (/** @type {number} */ _d, /** @type {any[]} */ ...args) {
    const first = args[0];
    if (first instanceof SpaceRef) {
      const proc = current(who);
      if (first.kind === 'distributed') return distributedOp(proc, who, op, args);
      if (first.node !== proc.node.id) {
        const fields = args.slice(1);
        if (fields.length === 0) schemeErrorOf('arity', who, 'a tuple needs at least one field');
        if (op === OP.out) return sendRemoteOut(proc, first, encodeFields(fields, who, false));
        return requestRemote(proc, who, first, op, encodeFields(fields, who, template), false, false);
      }
    }
    return local(args);
  }, 1, -1);
}

/**
 * A non-blocking operation on a distributed space (linda/dts-operations.js): out, inp,
 * rdp and tuple-count run on this node's replica (joined first if it is new here).
 * @param {any} proc @param {string} who @param {number} op @param {any[]} args
 */
function distributedOp(proc, who, op, args) {
  const ref = args[0];
  const fields = args.slice(1);
  if (fields.length === 0) schemeErrorOf('arity', who, 'a tuple needs at least one field');
  confine(proc, ref.name, who);
  if (op === OP.out) {
    const bytes = encodeFields(fields, who, false);
    let rep;
    try {
      rep = ensureReplica(proc.node, ref.name, ref.node);
    } catch (e) {
      return schemeErrorOf('linda', who, e instanceof Error ? e.message : String(e), ref);
    }
    dtsOut(proc, rep, bytes);
    return VOID;
  }
  const rep = readyReplica(proc, ref, who, args, op === OP.inp);
  if ('suspended' in rep) return rep.suspended;
  const bytes = encodeFields(fields, who, true);
  if (op === OP.count) return coreCall(who, () => rep.space.countBytes(bytes));
  const t = { who, ref, bytes, probe: true, timeoutAt: 0, dflt: false, byDeadline: false, req: 0, decode: decodeTuple };
  return op === OP.inp ? dtsTake(proc, rep, t) : dtsRead(proc, rep, t);
}

lindaProcedure('out', OP.out, false, (args) => {
  const proc = current('out');
  const node = proc.node;
  const { space, fields, name } = spaceAndFields(proc, args, 'out');
  const bytes = encodeFields(fields, 'out', false);
  coreCall('out', () => putTuple(node, name, space, bytes));
  // a process it woke is ready in the core: the running loop takes it (or, out of time,
  // reschedules); a poke from inside the loop would only queue a second, empty run
  if (!node.looping) node.poke();
  return VOID;
});

/** @param {string} who @param {boolean} remove */
function probe(who, remove) {
  lindaProcedure(who, remove ? OP.inp : OP.rdp, true, (args) => {
    const proc = current(who);
    const node = proc.node;
    const { space, fields, name } = spaceAndFields(proc, args, who);
    const bytes = encodeFields(fields, who, true);
    const r = coreCall(who, () => (remove ? space.inpBytes(bytes) : space.rdpBytes(bytes)));
    if (r === undefined) return false;
    if (remove) noteWithdrawn(node, name, r);
    return decodeTuple(r);
  });
}
probe('inp', true);
probe('rdp', false);

lindaProcedure('tuple-count', OP.count, true, (args) => {
  const proc = current('tuple-count');
  const { space, fields } = spaceAndFields(proc, args, 'tuple-count');
  return coreCall('tuple-count', () => space.countBytes(encodeFields(fields, 'tuple-count', true)));
});

/**
 * The blocking operations: `(in ...)`, `(rd ...)`, and with a timeout
 * `(in-timeout seconds default ...)`, `(rd-timeout seconds default ...)`.
 * @param {string} who @param {boolean} remove @param {boolean} timed
 */
function blocking(who, remove, timed) {
  const code = function (/** @type {number} */ d, /** @type {any[]} */ ...args) {
    const proc = current(who);
    const node = proc.node;
    if (proc.signalled) throw new SchemeError(proc.takeSignal());
    const at = timed ? 2 : 0;
    if (args[at] instanceof SpaceRef && args[at].kind === 'distributed') return distributedBlocking(proc, who, remove, timed, args);
    if (args[at] instanceof SpaceRef && args[at].node !== node.id) return remoteBlocking(proc, who, remove, timed, args);
    let timeoutAt = Infinity;
    let dflt = false;
    if (timed) {
      if (args.length < 3) schemeErrorOf('arity', who, 'expected seconds, a default and at least one field');
      timeoutAt = node.now() + seconds(args[0], who);
      dflt = args[1];
      args = args.slice(2);
    }
    const { space, fields, name } = spaceAndFields(proc, args, who);
    const bytes = encodeFields(fields, who, true);
    const q = qosWait(proc, timeoutAt);
    const r = coreCall(who, () => (remove ? space.inBytes(proc.cpid, bytes, { timeoutAt: q.timeoutAt }) : space.rdBytes(proc.cpid, bytes, { timeoutAt: q.timeoutAt })));
    if (r === undefined) {
      if (q.byDeadline) throw new SchemeError(deadlineError(who));
      return dflt;
    }
    if (r !== BLOCKED) {
      if (remove) noteWithdrawn(node, name, /** @type {Uint8Array} */ (r));
      return decodeTuple(/** @type {Uint8Array} */ (r));
    }
    proc.waiting = {
      kind: W_TUPLE,
      space: name,
      resume: (/** @type {any} */ th, /** @type {string} */ reason) => {
        if (reason === 'tuple') {
          th.act = 1; // ACT_RETURN
          const got = node.core.takeTupleBytes(proc.cpid);
          if (remove) noteWithdrawn(node, name, got);
          th.val = decodeTuple(got);
        } else if (reason === 'timeout' && !q.byDeadline) {
          th.act = 1;
          th.val = dflt;
        } else if (reason === 'timeout') {
          th.act = 0; // ACT_CALL: raise the deadline's error
          th.clo = rtEnv.cell('raise').v;
          th.args = [deadlineError(who)];
        } else {
          th.act = 0; // ACT_CALL: raise
          th.clo = rtEnv.cell('raise').v;
          th.args = [Sym.intern('interrupted')];
        }
      },
    };
    return unwind(PEND_SUSPEND, proc.waiting);
  };
  defineBuiltin(who, code, timed ? 3 : 1, -1);
}
/**
 * A blocking operation on a space of another node: the timeout, if any, runs on the
 * holder's clock.
 * @param {any} proc @param {string} who @param {boolean} remove @param {boolean} timed @param {any[]} args
 */
function remoteBlocking(proc, who, remove, timed, args) {
  if (timed && args.length < 4) schemeErrorOf('arity', who, 'expected seconds, a default and at least one field');
  const ms = timed ? seconds(args[0], who) : Infinity;
  const q = qosWait(proc, proc.node.now() + ms);
  const wait = q.byDeadline ? Math.max(0, q.timeoutAt - proc.node.now()) : ms;
  const timeoutMs = wait === Infinity ? false : wait;
  const fields = args.slice(timed ? 3 : 1);
  if (fields.length === 0) schemeErrorOf('arity', who, 'a tuple needs at least one field');
  return requestRemote(proc, who, args[timed ? 2 : 0], remove ? OP.in : OP.rd, encodeFields(fields, who, true), timeoutMs, timed ? args[1] : false, q.byDeadline);
}

/**
 * A blocking operation on a distributed space (linda/dts-operations.js), under the
 * process's deadline like a local one.
 * @param {any} proc @param {string} who @param {boolean} remove @param {boolean} timed @param {any[]} args
 */
function distributedBlocking(proc, who, remove, timed, args) {
  if (timed && args.length < 4) schemeErrorOf('arity', who, 'expected seconds, a default and at least one field');
  const ref = args[timed ? 2 : 0];
  const fields = args.slice(timed ? 3 : 1);
  if (fields.length === 0) schemeErrorOf('arity', who, 'a tuple needs at least one field');
  confine(proc, ref.name, who);
  const bytes = encodeFields(fields, who, true);
  const q = qosWait(proc, timed ? proc.node.now() + seconds(args[0], who) : Infinity);
  const rep = readyReplica(proc, ref, who, args, remove);
  if ('suspended' in rep) return rep.suspended;
  const t = { who, ref, bytes, probe: false, timeoutAt: q.timeoutAt, dflt: timed ? args[1] : false, byDeadline: q.byDeadline, req: 0, decode: decodeTuple };
  return remove ? dtsTake(proc, rep, t) : dtsRead(proc, rep, t);
}

blocking('in', true, false);
blocking('rd', false, false);
blocking('in-timeout', true, true);
blocking('rd-timeout', false, true);

/**
 * `(%async-wait remove? tag fields)`: an asynchronous `in`/`rd` on a space of this node
 * waits as a record of the core (linda/core-records.js), served in one order with the
 * waiting processes; the tuple reaches the calling process as `(%async tag tuple)`.
 * Returns the record's id; on another node's space, a pending request's number, negated
 * (remoteAsync); on a distributed space, a record beside its replica (remoteAsync).
 */
definePrimitive('%async-wait', 3, 3, (/** @type {any} */ remove, /** @type {any} */ tag, /** @type {any} */ list) => {
  const who = remove === false ? 'rd-async' : 'in-async';
  const proc = current(who);
  const node = proc.node;
  const args = [];
  for (let p = list; p instanceof Pair && args.length <= 4096; p = p.cdr) args.push(p.car);
  if (args[0] instanceof SpaceRef && (args[0].node !== node.id || args[0].kind === 'distributed')) return remoteAsync(proc, who, remove !== false, tag, args);
  const { space, fields, name } = spaceAndFields(proc, args, who);
  const bytes = encodeFields(fields, who, true);
  const pid = proc.pid;
  let rid = 0; // the record's id once it waits
  const answer = (/** @type {Uint8Array} */ got) => {
    const owner = node.local(pid);
    if (owner === null || !owner.alive) return false; // ended: an in's tuple goes back
    if (remove !== false) noteWithdrawn(node, name, got);
    owner.asyncRecords?.delete(rid);
    node.deliver(owner, arrayToList([Sym.intern('%async'), tag, decodeTuple(got)]));
    node.poke();
    return true;
  };
  const q = proc.qos;
  const id = coreCall(who, () => waitRecord(node, name, space, bytes, remove !== false, q === null ? 2 : q.priority, q === null ? Infinity : q.deadlineAt, answer));
  if (id instanceof Uint8Array) { // a tuple came in since the probe: answered at once
    answer(id);
    return 0;
  }
  rid = id;
  (proc.asyncRecords ??= new Set()).add(id);
  return id;
});

/**
 * An asynchronous `in`/`rd` on a space of another node: a pending request of this node
 * (linda/remote-spaces.js), no process. Its tuple reaches the owner as `(%async tag
 * tuple)`, an error (the holder gone, a tuple that cannot be decoded here) as `(%async
 * tag #f error)`; if the owner has ended, an `in`'s tuple goes back. Returns the
 * request's number, negated (a local record's id is positive); on a distributed space,
 * the id of a record beside its replica (linda/dts-async.js), above 2^32.
 * @param {any} proc @param {string} who @param {boolean} remove @param {any} tag @param {any[]} args
 */
function remoteAsync(proc, who, remove, tag, args) {
  const node = proc.node;
  const fields = args.slice(1);
  if (fields.length === 0) schemeErrorOf('arity', who, 'a tuple needs at least one field');
  const pid = proc.pid;
  let n = 0;
  const deliver = (/** @type {{value?: any, raise?: any}} */ answer) => {
    const owner = node.local(pid);
    if (owner === null || !owner.alive) return false; // ended: an in's tuple goes back
    owner.asyncRecords?.delete(-n);
    const msg = 'raise' in answer ? [Sym.intern('%async'), tag, false, answer.raise] : [Sym.intern('%async'), tag, answer.value];
    try {
      node.deliver(owner, arrayToList(msg));
    } catch {
      return false; // its mailbox is full: the tuple goes back
    }
    node.pokeAfterTask(); // it runs at the end of this frame's task (remote-spaces.js, onReply)
    return true;
  };
  if (args[0].kind === 'distributed') {
    confine(proc, args[0].name, who);
    const id = coreCall(who, () => startDtsAsync(proc, who, args[0], remove, encodeFields(fields, who, true), decodeTuple, deliver));
    n = -id;
  } else n = requestRemoteAsync(proc, who, args[0], remove, encodeFields(fields, who, true), deliver);
  (proc.asyncRecords ??= new Set()).add(-n);
  return -n;
}

/**
 * `(%async-abandon id)`: stop an asynchronous operation's wait (scheme-sources/termite.scm):
 * a core record, a request on another node's space, or a record beside a distributed
 * space's replica, by the number `%async-wait` returned. Nothing was taken that is not
 * already in the owner's mailbox as its answer (the record's `out` delivers at once).
 */
definePrimitive('%async-abandon', 1, 1, (/** @type {any} */ id) => {
  const proc = current('async-cancel');
  const node = proc.node;
  if (typeof id !== 'number') schemeErrorOf('type', 'async-cancel', 'expected the number of an asynchronous operation', id);
  proc.asyncRecords?.delete(id);
  if (id < 0) abandonRemoteAsync(node.remote, -id);
  else if (id >= DTS_ASYNC_BASE) cancelDtsAsync(node, id);
  else if (id !== 0) cancelRecord(node, id);
  return false;
});

// ------------------------------------------------------------------ spaces and formals

/** @param {any} name @param {string} who */
function spaceName(name, who) {
  const text = name instanceof Sym ? name.name : typeof stringText(name) === 'string' ? stringText(name) : schemeErrorOf('type', who, 'expected a symbol or string naming the space', name);
  if (text.length === 0 || text.length > 256) schemeErrorOf('range', who, 'a space name has 1 to 256 characters', name);
  return text;
}

/** @param {any} kind @param {string} who */
function spaceKind(kind, who) {
  const k = kind instanceof Sym ? kind.name : null;
  if (k !== 'local' && k !== 'central' && k !== 'distributed') schemeErrorOf('type', who, "expected the kind 'local, 'central or 'distributed", kind);
  return k;
}

/** `(remote-space name node)` is in scheme-sources/distribution.scm: it builds on this. */
definePrimitive('%space-ref', 2, 2, (/** @type {any} */ id, /** @type {any} */ name) => {
  const text = spaceName(name, 'remote-space');
  if (typeof id !== 'string') schemeErrorOf('type', 'remote-space', 'expected a node', id);
  return new SpaceRef(id, text, 'central');
});

/** @param {any} s @param {string} who */
function homeOf(s, who) {
  if (!(s instanceof SpaceRef)) schemeErrorOf('type', who, 'expected a space', s);
  const node = current(who).node;
  return s.node === node.id ? node.ref : node.remote?.nodeRefOf(s.node) ?? new NodeRef(s.node, null, null);
}
definePrimitive('space-node', 1, 1, (/** @type {any} */ s) => homeOf(s, 'space-node'));
definePrimitive('space-home', 1, 1, (/** @type {any} */ s) => homeOf(s, 'space-home'));
definePrimitive('space-kind', 1, 1, (/** @type {any} */ s) => {
  if (!(s instanceof SpaceRef)) schemeErrorOf('type', 'space-kind', 'expected a space', s);
  return Sym.intern(s.kind);
});

/**
 * `(%make-space name kind)`: a space of this node (made `kind` if new; an existing one
 * keeps its kind). `make-space` (scheme-sources/distribution.scm) builds on this.
 */
definePrimitive('%make-space', 2, 2, (/** @type {any} */ name, /** @type {any} */ kind) => {
  const proc = current('make-space');
  const node = proc.node;
  const text = spaceName(name, 'make-space');
  const k = spaceKind(kind, 'make-space');
  confineMake(proc, text, 'make-space');
  if (k === 'distributed') return makeDistributed(node, text, node.id);
  return new SpaceRef(node.id, text, declareSpace(node, text, k));
});

/**
 * The reference of a distributed space: its replica here (made with `home` as its home
 * if new); a space of this node of that name with another kind keeps its kind.
 * @param {any} node @param {string} name @param {string} home
 */
function makeDistributed(node, name, home) {
  const had = spaceTable(node).info.get(name);
  if (had !== undefined && had.kind !== 'distributed') return new SpaceRef(node.id, name, had.kind);
  const rep = ensureReplica(node, name, home);
  return new SpaceRef(rep.home, name, 'distributed');
}

/** `(%make-space-on node-id name kind)`: the same on another node (it answers the kind the space has). */
defineBuiltin('%make-space-on', function (/** @type {number} */ _d, /** @type {any} */ id, /** @type {any} */ name, /** @type {any} */ kind) {
  const proc = current('make-space');
  const text = spaceName(name, 'make-space');
  const k = spaceKind(kind, 'make-space');
  if (typeof id !== 'string') schemeErrorOf('type', 'make-space', 'expected a node', id);
  if (id === proc.node.id) {
    confineMake(proc, text, 'make-space');
    if (k === 'distributed') return makeDistributed(proc.node, text, id);
    return new SpaceRef(id, text, declareSpace(proc.node, text, k));
  }
  if (k === 'distributed') return new SpaceRef(id, text, 'distributed'); // joined on first use
  return requestRemote(proc, 'make-space', new SpaceRef(id, text, k), OP.make, null, false, false);
}, 3, 0);

definePrimitive('space?', 1, 1, (/** @type {any} */ x) => x instanceof SpaceRef, { pure: true });
definePrimitive('default-space', 0, 0, () => new SpaceRef(current('default-space').node.id, 'default'));

const formalsByName = new Map(FORMAL_NAMES.map((n, i) => [n, i]));
formalsByName.set('array', 8);
formalsByName.set('list', -1);

/** @param {string} name */
function formalNamed(name) {
  if (name === 'list') return new Formal(11, TAG_LIST);
  const code = formalsByName.get(name);
  if (code === undefined || code === 11) return null;
  return new Formal(code);
}

definePrimitive('formal', 1, 2, (/** @type {any} */ type, /** @type {any} */ tag) => {
  const name = type instanceof Sym ? type.name : String(type);
  if (name === 'tagged') {
    if (typeof tag !== 'number' || !Number.isSafeInteger(tag) || tag < 0) schemeErrorOf('type', 'formal', 'a tagged formal needs a CBOR tag number (a non-negative exact integer)', tag);
    return new Formal(11, tag);
  }
  if (tag !== undefined) schemeErrorOf('arity', 'formal', `only a tagged formal takes a tag number: (formal 'tagged n)`, tag);
  const f = formalNamed(name);
  if (f === null) schemeErrorOf('range', 'formal', `unknown formal type (expected one of ${[...formalsByName.keys()].join(', ')})`, type);
  return f;
});
definePrimitive('formal?', 1, 1, (/** @type {any} */ x) => x instanceof Formal, { pure: true });

/** `?integer` and friends: the formals bound as constants in the runtime. */
export function installFormalConstants() {
  for (const name of ['any', 'integer', 'number', 'float', 'string', 'symbol', 'bytes', 'boolean', 'vector', 'null', 'list']) {
    rtEnv.cell(`?${name}`).v = formalNamed(name);
  }
}

