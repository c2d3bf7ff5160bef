// @ts-check
/**
 * Running a program on a node: its libraries are instantiated once per node, the
 * program in a fresh environment, and its top level becomes the node's main process.
 * Its libraries are registered as this node's (publishLibrary).
 * The promise resolves when the main process returns (other processes may still run:
 * `termite-node run` exits at that point) or dies.
 */
import { compileProgramText, linkProgram, SchemeError, describeError, uncaughtBacktrace } from '@termite/scheme';
import { registerUnitInstance } from './code.js';
import { signalSender } from './termite-node/links-and-signals.js';

/**
 * A program's environment id names this run, not just the program's code: other nodes
 * keep replicas of its definitions under this id, and a second run of the same program
 * (same unit hash) must not find the first run's definitions there.
 * @param {{kind: string, hash: string}[]} units
 */
function programEnvId(units) {
  const prog = units.find((u) => u.kind !== 'library');
  const nonce = crypto.getRandomValues(new Uint32Array(2));
  return `prog:${prog ? prog.hash.slice(0, 16) : ''}/${nonce[0].toString(16)}${nonce[1].toString(16)}`;
}

/**
 * A library a program loaded here: its code can be sent (CODE) and, when it has a
 * version and this node a publisher key, its signed record too (LIB, code-libraries/).
 * @param {import('./termite-node.js').TermiteNode} node @param {any} inst @param {any} u
 */
export function publishLibrary(node, inst, u) {
  registerUnitInstance(inst);
  /** @type {any} */ (node).libraries?.publish(String(u.ns ?? `lib:${u.name}`).slice(4), u.hash, u.requires);
}

/**
 * @param {import('./termite-node.js').TermiteNode} node
 * @param {string} text
 * @param {{file?: string, libraryPath?: string[], readFile?: (p: string) => string|null, trace?: any, onTrace?: any, onTime?: any}} [opts]
 * @returns {Promise<{ok: true, value: any, exitCode?: any, pid?: any} | {ok: false, error: any, message: string, backtrace?: string[]|null}>}
 */
export async function runProgramOn(node, text, opts = {}) {
  let program;
  try {
    const units = compileProgramText(text, opts);
    program = linkProgram(units, { envId: programEnvId(units), onLibrary: (inst, u) => publishLibrary(node, inst, u) });
    registerUnitInstance(program);
    node.environments.set(program.env.id, program.env);
  } catch (e) {
    if (e instanceof SchemeError) return { ok: false, error: e.payload, message: describeError(e.payload) };
    throw e;
  }
  return new Promise((resolve) => {
    const proc = node.spawn(program.top);
    proc.onExit = (outcome) => {
      const exitCode = /** @type {any} */ (proc).exitCode;
      if (outcome.ok) resolve({ ok: true, value: outcome.value, exitCode, pid: proc.pid });
      else {
        const backtrace = uncaughtBacktrace(outcome.value, proc);
        // it died of a linked process's crash: say whose (as erl's "** exception exit")
        const from = signalSender(outcome.value);
        const via = from === null ? '' : ` (exit signal from linked process ${from.n})`;
        resolve({ ok: false, error: outcome.value, message: describeError(outcome.value, backtrace) + via, backtrace });
      }
    };
  });
}
