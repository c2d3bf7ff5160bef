// @ts-check
/**
 * Ports on the wire (tag 40982). A port is a resource tied to the node that made it,
 * and a resource that cannot move is reached through a process that holds it
 * (docs/processes.md, "Standard output is a process"). So:
 *  - memory ports (string and bytevector, input and output) travel by value: their
 *    unread input and accumulated output are copied, and the copy continues on the
 *    receiver;
 *  - the console ports travel by name ('rt:stdout', ...) and become the receiver's
 *    console;
 *  - ports other packages make travel as they say (`wireFields`, `portDecoders`): the
 *    process runtime's port to a node's stdout process travels as that process's pid;
 *  - file ports cannot travel: encoding one is an error naming the file.
 */
import { Port } from './port.js';
import { registerValueCodec, CodecError, TAG_PORT } from '../codec/index.js';

/** @type {Map<string, Port>} the node's console ports by name */
export const consolePorts = new Map();

/**
 * Other kinds of port that can travel, added by other packages: a port with a
 * `wireFields()` method encodes as those fields (the first is its kind), and
 * `portDecoders.get(kind)` rebuilds it on the receiver (e.g. a port whose output goes
 * to a process, which travels as that process's pid).
 * @type {Map<string, (fields: any[]) => Port>}
 */
export const portDecoders = new Map();

const MEMORY_KINDS = new Set(['string-input', 'string-output', 'bytevector-input', 'bytevector-output']);

registerValueCodec({
  cls: Port,
  tag: TAG_PORT,
  shareable: true,
  encode: (/** @type {any} */ p) => {
    if (p.uid) return ['console', p.uid];
    if (typeof p.wireFields === 'function') return p.wireFields();
    if (!MEMORY_KINDS.has(p.kind)) throw new CodecError(`cannot send a ${p.kind} port${p.name ? ' on ' + p.name : ''}: it is tied to this node`);
    const accumulated = p.binary ? p.outBytes.slice(0, p.outLength) : p.out;
    const unread = p.binary ? p.bytes.slice(p.pos) : p.text.slice(p.pos);
    return [p.kind, p.inputOpen, p.outputOpen, unread, accumulated];
  },
  decode: (fields) => {
    if (fields[0] === 'console') {
      const port = consolePorts.get(String(fields[1]));
      if (!port) throw new CodecError(`unknown console port ${fields[1]}`);
      return port;
    }
    const custom = portDecoders.get(String(fields[0]));
    if (custom) return custom(fields);
    const [kind, inputOpen, outputOpen, unread, accumulated] = fields;
    if (!MEMORY_KINDS.has(kind)) throw new CodecError(`unknown port kind ${kind}`);
    const binary = kind.startsWith('bytevector');
    const input = kind.endsWith('input');
    /** @type {any} */
    const p = input ? (binary ? Port.fromBytes(unread) : Port.fromString(unread)) : binary ? Port.bytesOutput() : Port.stringOutput();
    p.inputOpen = input && inputOpen === true;
    p.outputOpen = !input && outputOpen === true;
    if (!input) {
      if (binary) {
        p.outBytes = accumulated;
        p.outLength = accumulated.length;
      } else {
        p.out = accumulated;
      }
    }
    return p;
  },
});
