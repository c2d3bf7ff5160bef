// @ts-check
/**
 * Draining a node, the process side (docs/processes.md, "Draining a node"): which
 * processes of this node can be moved to another node, and setting each one up to move
 * itself. A movable process is suspended at a point its continuation can resume from
 * anywhere — ready to run (pre-empted, or not started), waiting in a selective receive
 * (`recv`, `??`, `!?`) or in a `?` without a timeout; its thread is rewritten so that
 * when it next runs it calls the drain's resumption procedure (`%drain-resume` of
 * scheme-sources/messengers.scm) with what it was about to do: that procedure waits for
 * the drainer's go, migrates with the ordinary `migrate` (every check of migration.js
 * applies), re-registers a messenger on its logical node there, tells the drainer, and
 * does what the process was about to do.
 *
 * Invariants:
 *  - nothing is rewritten in a process that cannot resume elsewhere: one waiting for
 *    another node (a remote call, a migration), for a tuple, in `sleep`, in a `?` with a
 *    timeout, for room to send, a JavaScript process, or one whose end this node's host
 *    waits for (`onExit`: the REPL's process, a program's main process); those are
 *    listed with the reason, never silently left;
 *  - a rewritten process that was waiting is woken with its wait cancelled and resumes
 *    exactly as rewritten (W_SEND: "continue where the slice ended"); a selective receive
 *    it was in resumes with `rescan`, which makes `%scan` look at its mailbox from the
 *    oldest message again (the sequence numbers of a mailbox are per node);
 *  - the caller (the drainer) is never moved: it is the one waiting for the others.
 */
import { ACT_RETURN, ACT_CALL, rtEnv } from '@termite/scheme/internal';
import { arrayToList, Sym } from '../scheme-data.js';
import { W_RECEIVE, W_SCAN, W_SLEEP, W_TUPLE, W_EXTERNAL, W_SEND } from '../termite-node/process.js';

/** @typedef {import('../termite-node/process.js').Process} Process */

const RESUME_AS_REWRITTEN = Object.freeze({ kind: W_SEND });

/** Why a process in wait `kind` cannot move. @type {Record<number, string>} */
const STAYS = {
  [W_SLEEP]: 'sleeping',
  [W_TUPLE]: 'waiting for a tuple',
  [W_EXTERNAL]: 'waiting for another node (a remote call or a migration)',
  [W_SEND]: 'waiting for room to send',
};

/** Every live process of a node (its own and those that migrated in). @param {any} node @returns {Process[]} */
function liveProcesses(node) {
  const out = [];
  for (const p of node.bySlot) if (p !== undefined && p.alive) out.push(p);
  for (const p of node.guests.values()) if (p.alive) out.push(p);
  return out;
}

/**
 * What the process was about to do, as the resumption's (how x args), or the reason it
 * cannot move.
 * @param {Process} p @returns {{how: string, x: any, args: any} | string}
 */
function pendingStep(p) {
  const w = p.waiting;
  if (w === null) {
    if (p.act === ACT_RETURN) return { how: 'return', x: p.val, args: null };
    if (p.act === ACT_CALL) return { how: 'call', x: p.clo, args: arrayToList(p.args ?? []) };
    return 'in a state a drain does not resume';
  }
  if (w.kind === W_SCAN) return { how: 'return', x: Sym.intern('rescan'), args: null };
  if (w.kind === W_RECEIVE) return w.hasDefault || w.timed ? 'waiting in ? with a timeout' : { how: 'receive', x: false, args: null };
  return STAYS[w.kind] ?? 'waiting';
}

/**
 * Set every movable process of `node` up to move (see the file header): the pids that
 * will move, and #(pid reason) for each that stays.
 * @param {any} node a TermiteNode
 * @param {Process} caller the drainer
 * @param {any} tag the drain's tag (the go and the acknowledgements carry it)
 * @param {(p: Process) => any} messengerState a messenger's #(address link weight me), or #f
 */
export function prepareDrain(node, caller, tag, messengerState) {
  const resume = rtEnv.cell('%drain-resume').v;
  const moving = [];
  const staying = [];
  for (const p of liveProcesses(node)) {
    if (p === caller) continue;
    if (p.handler !== null) {
      staying.push([p.pid, 'a JavaScript process']);
      continue;
    }
    if (p.onExit !== null) {
      // its end is awaited here by the host (the REPL's process, a program's main one)
      staying.push([p.pid, 'watched by this node (the REPL\'s or a program\'s main process)']);
      continue;
    }
    const step = pendingStep(p);
    if (typeof step === 'string') {
      staying.push([p.pid, step]);
      continue;
    }
    const wasWaiting = p.waiting !== null;
    p.act = ACT_CALL;
    p.clo = resume;
    p.args = [tag, caller.pid, messengerState(p), Sym.intern(step.how), step.x, step.args];
    if (wasWaiting) {
      p.waiting = RESUME_AS_REWRITTEN;
      if (node.isWaiting(p)) node.core.interrupt(p.cpid);
    }
    moving.push(p.pid);
  }
  node.poke();
  return { moving, staying };
}
