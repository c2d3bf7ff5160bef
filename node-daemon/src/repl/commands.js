// @ts-check
/**
 * The REPL's comma commands (docs/repl.md): `,help`, `,quit`, `,bt` (the last error's
 * backtrace), `,ps [NODE]` and `,i` (processes), `,kill PID`, `,trace NAME` /
 * `,untrace NAME` (calls to a global procedure), `,time EXPR`. Each takes the
 * session and the rest of the line and returns the text to print, or throws an Error
 * whose message is printed. A command never ends the session except `,quit`.
 */
import { describeError } from '@termite/scheme';
import { knownNodes, resolveNode, processesOf, formatProcesses, parsePid, killProcess } from './processes.js';

/**
 * @typedef {object} CommandContext
 * @property {any} node the runtime node
 * @property {any|null} host the mesh host, or null for a node of its own
 * @property {import('@termite/runtime').NodeEvaluator} evaluator
 * @property {(text: string) => Promise<{ok: boolean, outputs: string[], exited?: any}>} evaluate evaluate Scheme text as an input
 */

/** @typedef {{text?: string, quit?: boolean, exited?: any}} CommandResult */

const HELP = `REPL commands (the rest is Scheme, evaluated on this node):
  ,help              this text
  ,quit  ,q          leave (so does Ctrl-D on an empty line; (exit N) leaves with status N)
  ,bt                the backtrace of the last error
  ,ps [NODE]  ,i     the processes of this node, or of NODE (an id prefix or HOST:PORT)
  ,kill PID          terminate a process (PID as printed: 12, 12@NODE or #<pid 12@NODE>)
  ,trace NAME        print each call to the global procedure NAME and what it returns
  ,untrace NAME      stop tracing NAME
  ,time EXPR         evaluate EXPR and print how long it took
Keys: Tab completes names; Ctrl-C clears the line, or interrupts a running evaluation
(twice: stops the REPL's process; definitions stay); up/down recall history.`;

/** @type {Record<string, (ctx: CommandContext, arg: string) => Promise<CommandResult>>} */
const COMMANDS = {
  help: async () => ({ text: HELP }),
  quit: async () => ({ quit: true }),
  bt: async (ctx) => ({ text: backtrace(ctx.evaluator.lastError) }),
  ps: async (ctx, arg) => ({ text: await listing(ctx, arg) }),
  kill: async (ctx, arg) => {
    if (arg === '') throw new Error(',kill needs a PID');
    const nodes = knownNodes(ctx.node, ctx.host);
    return { text: await killProcess(ctx.node, ctx.host, parsePid(arg, nodes, ctx.node.id)) };
  },
  trace: async (ctx, arg) => ({ text: await trace(ctx, arg, true) }),
  untrace: async (ctx, arg) => ({ text: await trace(ctx, arg, false) }),
  time: async (ctx, arg) => {
    if (arg === '') throw new Error(',time needs an expression');
    const t0 = performance.now();
    const r = await ctx.evaluate(arg);
    const ms = performance.now() - t0;
    return { text: [...r.outputs, `;; ${ms < 10 ? ms.toFixed(2) : ms.toFixed(1)} ms`].join('\n'), exited: r.exited };
  },
};
COMMANDS.q = COMMANDS.quit;
COMMANDS.i = COMMANDS.ps;

/** The command names, with their comma (for completion). */
export const COMMAND_NAMES = Object.keys(COMMANDS).map((c) => `,${c}`);

/**
 * Run the command line `line` (it starts with a comma).
 * @param {CommandContext} ctx @param {string} line
 * @returns {Promise<CommandResult>}
 */
export async function runCommand(ctx, line) {
  const m = /^,\s*([\w-]+)\s*([^]*)$/.exec(line.trim());
  const cmd = m ? COMMANDS[m[1]] : undefined;
  if (!m || cmd === undefined || !Object.hasOwn(COMMANDS, m[1])) return { text: `Error: unknown command ${line.trim().split(/\s/)[0]} (,help lists the commands)` };
  try {
    return await cmd(ctx, m[2].trim());
  } catch (e) {
    return { text: `Error: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/**
 * The last error with its frames: `schemeBacktrace` (frames, innermost first) when the
 * error carries them, else where it was raised.
 * @param {any} error
 */
export function backtrace(error) {
  if (error === null || error === undefined) return 'no error yet';
  const lines = [`Error: ${describeError(error)}`];
  const frames = error?.schemeBacktrace;
  if (Array.isArray(frames) && frames.length > 0) for (const f of frames) lines.push(`  ${f}`);
  else if (error?.loc) lines.push(`  raised at ${error.loc}${error.who ? ` in ${error.who}` : ''} (no frames recorded)`);
  else lines.push('  (no frames recorded for this error)');
  return lines.join('\n');
}

/** @param {CommandContext} ctx @param {string} arg */
async function listing(ctx, arg) {
  const id = arg === '' ? ctx.node.id : resolveNode(arg, knownNodes(ctx.node, ctx.host));
  if (id !== ctx.node.id && ctx.host === null) throw new Error('this REPL is not part of a mesh (start it with --join URL --token T)');
  return formatProcesses(await processesOf(ctx.node, ctx.host, id));
}

/**
 * `,trace NAME`: NAME is set to a procedure that prints each call (indented by depth)
 * and its results, then calls the original; `,untrace NAME` puts the original back.
 * Recursive calls through the global name are traced too (and are no longer tail
 * calls while traced).
 * @param {CommandContext} ctx @param {string} name @param {boolean} on
 */
async function trace(ctx, name, on) {
  if (!/^[^\s()'"`,;|#][^\s()'"`,;|]*$/.test(name)) throw new Error(`${on ? ',trace' : ',untrace'} needs the name of a global procedure`);
  if (!ctx.evaluator.globalNames().includes('%repl-traced')) {
    const r = await ctx.evaluate(TRACE_SOURCE);
    if (!r.ok) throw new Error(`cannot set up tracing: ${r.outputs.join(' ')}`);
  }
  const r = await ctx.evaluate(on ? `(%repl-trace! '${name} ${name} (lambda (p) (set! ${name} p)))` : `(%repl-untrace! '${name} (lambda (p) (set! ${name} p)))`);
  if (!r.ok) throw new Error(r.outputs.join('\n').replace(/^Error: /, ''));
  return on ? `tracing ${name}` : `${name} no longer traced`;
}

const TRACE_SOURCE = `
(define %repl-traced '())
(define (%repl-trace! name proc set)
  (if (assq name %repl-traced) (error "already traced" name))
  (if (not (procedure? proc)) (error "not a procedure" name))
  (let ((depth 0))
    (set! %repl-traced (cons (cons name proc) %repl-traced))
    (set (lambda args
           (let ((indent (make-string (* 2 depth) #\\space)))
             (display indent) (write (cons name args)) (newline)
             (set! depth (+ depth 1))
             (call-with-values (lambda () (apply proc args))
               (lambda results
                 (set! depth (- depth 1))
                 (display indent) (display "=>")
                 (for-each (lambda (r) (display " ") (write r)) results)
                 (newline)
                 (apply values results))))))))
(define (%repl-untrace! name set)
  (let ((entry (assq name %repl-traced)))
    (if (not entry) (error "not traced" name))
    (set (cdr entry))
    (set! %repl-traced (let drop ((l %repl-traced)) (cond ((null? l) l) ((eq? (car l) entry) (cdr l)) (else (cons (car l) (drop (cdr l)))))))))
`;
