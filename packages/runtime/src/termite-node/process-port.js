// @ts-check
/**
 * A textual output port whose writes become messages to a process (the node's stdout
 * process): resources are processes (Termite §3.1), so output from any process, on any
 * node, arrives in order at the node that owns the terminal. Such a port travels as
 * ['process', target] (a process's parameters go with it to other nodes) and decodes to
 * a port of this realm's node writing to the same target.
 */
import { Port, portDecoders } from '@termite/scheme/internal';
import { ErrorObject, SchemeError } from '../scheme-data.js';
import { Pid } from '../termite-values.js';
import { firstNode } from './realm-nodes.js';

/** @typedef {import('../termite-node.js').TermiteNode} TermiteNode */

/**
 * A port writing to the process `target` through `node`.
 * @param {TermiteNode} node @param {Pid} target
 */
export function makeProcessPort(node, target) {
  const port = new Port({ kind: 'process', output: true, sink: (s) => node.send(target, s), buffering: 'none' });
  /** @type {any} */ (port).target = target;
  /** @type {any} */ (port).wireFields = () => ['process', target];
  return port;
}

portDecoders.set('process', (fields) => {
  const target = fields[1];
  if (!(target instanceof Pid)) throw new SchemeError(new ErrorObject('bad process port', null, 'codec', null));
  const node = firstNode();
  return makeProcessPort(node, target);
});
