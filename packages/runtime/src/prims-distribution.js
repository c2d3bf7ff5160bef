// @ts-check
/**
 * The Termite node primitives (docs/scheme.md, "The (termite) library"; docs/mesh.md
 * §11, "Termite over the mesh"): make-node, current-node (in prims-processes.js),
 * remote-spawn, remote-spawn-link, migrate, publish-service, remote-service; `on` is
 * written in Scheme on top of remote-spawn (scheme-sources/distribution.scm).
 * Operations that wait for another node block only the calling process (its scheduler
 * keeps running the others) and always end — with an error raised in the process if
 * the other node does not answer within the request timeout.
 */
import { R, unwind, PEND_SUSPEND, definePrimitive, defineBuiltin } from '@termite/scheme/internal';
import { VOID, Closure, Sym, Flonum, schemeErrorOf, ErrorObject, arrayToList, stringText } from './scheme-data.js';
import { NodeRef, Pid } from './termite-values.js';
import { current, checkPid } from './prims-processes.js';

/** @param {string} who */
function distribution(who) {
  const proc = current(who);
  const remote = proc.node.remote;
  if (remote === null) schemeErrorOf('unsupported', who, 'this node is not part of a mesh (start it as a daemon, or with --join)');
  return { proc, remote };
}

/** @param {any} x @param {string} who @returns {NodeRef} */
function checkNode(x, who) {
  if (!(x instanceof NodeRef)) schemeErrorOf('type', who, 'expected a node (make-node host port)', x);
  return x;
}

definePrimitive('make-node', 2, 2, (/** @type {any} */ host, /** @type {any} */ port) => {
  host = stringText(host); // a mutable string gives its text
  if (typeof host !== 'string') schemeErrorOf('type', 'make-node', 'expected a host name string', host);
  if (typeof port !== 'number' || port < 1 || port > 65535) schemeErrorOf('type', 'make-node', 'expected a port number', port);
  // the node listening there may be this one: then it is equal? to (current-node)
  const self = R.thread?.owner?.node?.ref;
  if (self && self.host === host && self.port === port) return self;
  return new NodeRef(null, host, port);
});

/**
 * Block the calling process until `work` settles: its value is returned in the
 * process, its error raised there.
 * @param {string} who @param {(proc: any, remote: any) => Promise<any>} work
 */
function blockOn(who, work) {
  const { proc, remote } = distribution(who);
  proc.node.blockExternal(proc, { who });
  let pending;
  try {
    pending = work(proc, remote);
  } catch (e) {
    pending = Promise.reject(e); // work need not be async; its error is still the process's
  }
  pending.then(
    (value) => proc.node.resumeExternal(proc, { value }),
    (e) => proc.node.resumeExternal(proc, { raise: asCondition(e, who) }),
  );
  return unwind(PEND_SUSPEND, proc.waiting);
}

/**
 * The condition a failed remote operation raises: of kind `remote`, or of the kind of
 * the Scheme condition the other node refused it with (a quota's `resource-limit`).
 * @param {any} e @param {string} who
 */
function asCondition(e, who) {
  if (e instanceof ErrorObject) return e;
  return new ErrorObject(e instanceof Error ? e.message : String(e), null, typeof e?.kind === 'string' ? e.kind : 'remote', who);
}

/** @param {string} who @param {boolean} link */
function remoteSpawn(who, link) {
  defineBuiltin(who, function (/** @type {number} */ _d, /** @type {any} */ node, /** @type {any} */ thunk) {
    checkNode(node, who);
    if (!(thunk instanceof Closure)) schemeErrorOf('type', who, 'expected a procedure of no arguments', thunk);
    return blockOn(who, (proc, remote) => remote.remoteSpawn(node, thunk, proc.params, link ? proc.pid : false));
  }, 2, 0);
}
remoteSpawn('remote-spawn', false);
remoteSpawn('remote-spawn-link', true);

/** `(migrate node)`: continue this process on `node`; it keeps its pid, mailbox and links. */
defineBuiltin('migrate', function (/** @type {number} */ _d, /** @type {any} */ node) {
  checkNode(node, 'migrate');
  const { proc, remote } = distribution('migrate');
  proc.node.blockExternal(proc, { who: 'migrate' });
  // the continuation is complete once this slice has unwound: migrate after it
  queueMicrotask(() => remote.migrate(proc, node));
  return unwind(PEND_SUSPEND, proc.waiting);
}, 1, 0);

definePrimitive('publish-service', 2, 2, (/** @type {any} */ name, /** @type {any} */ pid) => {
  const { proc, remote } = distribution('publish-service');
  const text = name instanceof Sym ? name.name : typeof stringText(name) === 'string' ? stringText(name) : schemeErrorOf('type', 'publish-service', 'expected a symbol or string', name);
  checkPid(pid, 'publish-service');
  // a process of a restricted peer may not take over another's service (capabilities.js)
  if (proc.peer !== null && !remote.mayPublish(proc.peer, text)) schemeErrorOf('capability', 'publish-service', 'a restricted peer\'s process may not replace a service it was not given', name);
  remote.services.set(text, pid);
  return VOID;
});

defineBuiltin('remote-service', function (/** @type {number} */ _d, /** @type {any} */ name, /** @type {any} */ node) {
  const text = name instanceof Sym ? name.name : typeof stringText(name) === 'string' ? stringText(name) : schemeErrorOf('type', 'remote-service', 'expected a symbol or string', name);
  checkNode(node, 'remote-service');
  return blockOn('remote-service', (proc, remote) => remote.remoteService(text, node, proc.peer));
}, 2, 0);

definePrimitive('node-id', 1, 1, (/** @type {any} */ node) => {
  const ref = checkNode(node, 'node-id');
  return ref.id ?? false;
});

definePrimitive('mesh-nodes', 0, 0, () => {
  const { remote } = distribution('mesh-nodes');
  return arrayToList(remote.knownNodes());
});

definePrimitive('node-load', 0, 0, () => new Flonum(current('node-load').node.load()));

/** `(node-kind)`: what kind of node this process runs on, the symbol daemon or tab. */
definePrimitive('node-kind', 0, 0, () => Sym.intern(current('node-kind').node.kind));

/** `(%node-id node)`: the id of a node (connecting to learn it when needed). */
defineBuiltin('%node-id', function (/** @type {number} */ _d, /** @type {any} */ node) {
  checkNode(node, 'remote-space');
  if (node.id !== null) return node.id;
  return blockOn('remote-space', (_proc, remote) => remote.resolveNode(node));
}, 1, 0);

export { Pid, arrayToList };
