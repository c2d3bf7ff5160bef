// @ts-check
/**
 * Moving logical nodes from one physical node to another when the first is drained
 * (docs/messengers.md, "Draining a physical node"): `exportNodes` takes every logical
 * node off this physical node's table as plain data — names, node variables with their
 * versions, links, mailbox, waiters — and leaves a forwarding record for each
 * (`LogicalNetwork#moved`); `adoptNodes` puts such data into a table (the target's, or
 * this one's again when the move failed).
 *
 * Invariants:
 *  - a logical node keeps its address when it moves: links and addresses held anywhere
 *    keep working (the drained node forwards what still arrives for it, prims-messengers
 *    resolves an address through `moved`);
 *  - the data is Scheme values only (vectors, strings, numbers, pids, closures), so it
 *    travels with the value codec like any message;
 *  - adoption checks everything a peer could send: shapes, types, and the same limits as
 *    nodes made here (nodes per physical node, links per node, mail, waiters); a refused
 *    adoption adds nothing.
 */
import { schemeErrorOf, stringText, Pair } from '../scheme-data.js';
import { LogicalNode, LIMITS, keyOf } from './logical-network.js';

/** @typedef {import('./logical-network.js').LogicalNetwork} LogicalNetwork */

/**
 * Take every logical node off `net`, recording that they went to physical node `toId`:
 * a vector per node, #(address name permanent? vars links mail mail-waiters var-waiters).
 * @param {LogicalNetwork} net @param {string} toId
 * @returns {any[]}
 */
export function exportNodes(net, toId) {
  const out = [];
  for (const ln of net.nodes.values()) {
    const varWaiters = [];
    if (ln.varWaiters !== null) for (const [name, ws] of ln.varWaiters) for (const w of ws) varWaiters.push([name, w.id, w.pid, w.tag, w.pred]);
    out.push([
      ln.addr, ln.name, ln.permanent || ln.addr === net.rootAddr,
      [...ln.vars].map(([k, c]) => [k, c.v, c.ver]),
      ln.links.map((l) => [l.name, l.weight, l.to, l.toNameKey ?? false]),
      ln.mail.slice(),
      ln.mailWaiters.map((w) => [w.pid, w.tag]),
      varWaiters,
    ]);
    net.moved.set(ln.addr, toId);
  }
  net.nodes.clear();
  net.rootAddr = ''; // a root made later here is a new node
  return out;
}

/** @param {any} x @param {string} what */
function vectorOf(x, what) {
  return Array.isArray(x) ? x : schemeErrorOf('type', 'drain-node', `malformed logical node data: ${what} must be a vector`, x);
}

/**
 * Add the nodes exported by `exportNodes` to `net`, checked as a peer's input; the
 * largest waiter id among them (the caller keeps its own ids above it).
 * @param {LogicalNetwork} net @param {any} items a list or vector of node vectors
 */
export function adoptNodes(net, items) {
  const nodes = [];
  if (Array.isArray(items)) nodes.push(...items);
  else for (let c = items, n = 0; c instanceof Pair && n <= LIMITS.nodes; c = c.cdr, n++) nodes.push(c.car);
  if (net.nodes.size + nodes.length > LIMITS.nodes) schemeErrorOf('resource-limit', 'drain-node', `too many logical nodes on this physical node (limit ${LIMITS.nodes})`);
  const made = nodes.map((x) => nodeFromData(net, vectorOf(x, 'a node')));
  let maxId = 0;
  for (const { ln, ids } of made) {
    net.nodes.set(ln.addr, ln);
    net.moved.delete(ln.addr);
    maxId = Math.max(maxId, ids);
  }
  return maxId;
}

/**
 * One logical node from its data (not yet in the table): checked, limits applied.
 * @param {LogicalNetwork} net @param {any[]} d
 */
function nodeFromData(net, d) {
  if (d.length !== 8) schemeErrorOf('type', 'drain-node', 'malformed logical node data: 8 fields expected', d);
  const addr = stringText(d[0]);
  if (typeof addr !== 'string' || addr[0] !== '@' || addr.lastIndexOf('/') < 2) schemeErrorOf('type', 'drain-node', 'malformed logical node data: not an address', d[0]);
  if (net.nodes.has(addr)) schemeErrorOf('type', 'drain-node', 'a logical node with this address is here already', addr);
  const ln = new LogicalNode(addr, d[1]);
  ln.permanent = d[2] === true;
  for (const v of vectorOf(d[3], 'variables')) {
    const [k, value, ver] = vectorOf(v, 'a variable');
    const name = stringText(k);
    if (typeof name !== 'string' || typeof ver !== 'number') schemeErrorOf('type', 'drain-node', 'malformed node variable', v);
    ln.vars.set(name, { v: value, ver });
  }
  const links = vectorOf(d[4], 'links');
  if (links.length > LIMITS.linksPerNode) schemeErrorOf('resource-limit', 'drain-node', `too many links on one logical node (limit ${LIMITS.linksPerNode})`);
  for (const l of links) {
    const [name, weight, to, toNameKey] = vectorOf(l, 'a link');
    const dest = stringText(to);
    const key = stringText(toNameKey);
    if (typeof dest !== 'string' || (key !== false && typeof key !== 'string')) schemeErrorOf('type', 'drain-node', 'malformed link', l);
    ln.links.push({ name, nameKey: keyOf(name, 'drain-node'), weight, weightKey: keyOf(weight, 'drain-node'), to: dest, toNameKey: key === false ? null : key });
  }
  ln.mail = vectorOf(d[5], 'the mailbox').slice();
  if (ln.mail.length > LIMITS.mailPerNode) schemeErrorOf('resource-limit', 'drain-node', `the logical node's mailbox is full (limit ${LIMITS.mailPerNode})`);
  for (const w of vectorOf(d[6], 'mailbox waiters')) {
    const [pid, tag] = vectorOf(w, 'a waiter');
    ln.mailWaiters.push({ pid, tag });
  }
  let ids = 0;
  for (const w of vectorOf(d[7], 'variable waiters')) {
    const [k, id, pid, tag, pred] = vectorOf(w, 'a waiter');
    const name = stringText(k);
    if (typeof name !== 'string' || typeof id !== 'number') schemeErrorOf('type', 'drain-node', 'malformed waiter', w);
    if (ln.varWaiters === null) ln.varWaiters = new Map();
    const ws = ln.varWaiters.get(name);
    if (ws === undefined) ln.varWaiters.set(name, [{ id, pid, tag, pred }]);
    else ws.push({ id, pid, tag, pred });
    ids = Math.max(ids, id);
  }
  ln.waiterCount = ln.mailWaiters.length + (d[7].length);
  if (ln.waiterCount > LIMITS.waitersPerNode) schemeErrorOf('resource-limit', 'drain-node', `too many waiting messengers on one logical node (limit ${LIMITS.waitersPerNode})`);
  return { ln, ids };
}
