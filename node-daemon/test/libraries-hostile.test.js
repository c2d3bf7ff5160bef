// @ts-check
/**
 * Received code may not write a library's globals nor the runtime's, nor name what a
 * library does not define: a hostile peer serves an honest, trusted library, then units
 * whose IR (crafted by hand, as only a hostile peer would) assigns one of its globals,
 * assigns a runtime procedure, defines a global in the library's namespace, names a
 * name the library never defined or a library it does not require, or passes a
 * library's own code off as a program's. Each is refused with an error naming what it
 * tried, and the library keeps working for honest code. The daemon is an OS process
 * on a free loopback port, stopped by PID.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createIdentity, base64url } from '@termite/mesh';
import { compileProgramText, wireToData } from '@termite/scheme';
import { signedBytes } from '@termite/runtime';
import { startDaemon, newToken } from './helpers/daemons.js';
import { hostilePeer, closureRef, unitOf, R } from './helpers/peer.js';

/** @type {import('./helpers/daemons.js').Daemon[]} */
const started = [];
after(async () => {
  await Promise.all(started.map((d) => d.stop('SIGKILL')));
});

const KEY = '(shared lib)@1.0';
const NS = `lib:${KEY}`;

/**
 * A program unit whose thunk (lambda `thunk`) runs `(set! h 1)` and `(g)` on its own
 * globals '.'::h and '.'::g; `edit(data)` then crafts it; it requires `requires`.
 * @param {(data: any[]) => void} edit @param {string[]} requires
 */
function crafted(edit, requires) {
  return unitOf('(define h 0) (define (g) 0) (define thunk (lambda () (set! h 1) (g)))', (data) => {
    edit(data);
    data[5] = requires;
  });
}

/** The index of global '.'::`name` in unit data. @param {any[]} data @param {string} name */
const globalIndex = (data, name) => data[2].findIndex((/** @type {string[]} */ g) => g[0] === '.' && g[1] === name);

/**
 * Make the thunk's `set!` of '.'::h assign `to` instead (a global added to the unit's table).
 * @param {[string, string]} to
 */
const setOf = (to) => (/** @type {any[]} */ data) => {
  const h = globalIndex(data, 'h');
  data[2].push(to);
  let n = 0;
  const walk = (/** @type {any} */ x) => {
    if (!Array.isArray(x)) return;
    if (x[0] === 12 /* T_GSET */ && x.length === 3 && x[1] === h) {
      x[1] = data[2].length - 1;
      n++;
    }
    x.forEach(walk);
  };
  walk(data[4]);
  assert.equal(n, 1, 'one set! of h in the crafted unit');
};

/** Make every reference to '.'::g one to `to` (the top level still defines '.'::g). @param {[string, string]} to */
const readOf = (to) => (/** @type {any[]} */ data) => {
  const g = globalIndex(data, 'g');
  data[2].push(to);
  let n = 0;
  const walk = (/** @type {any} */ x) => {
    if (!Array.isArray(x)) return;
    if (x[0] === 22 /* K_CALL */ && x.length === 6) return [x[4], x[5]].forEach(walk); // not its live set
    if (x[0] === 3 /* A_GLOBAL */ && x.length === 2 && x[1] === g) {
      x[1] = data[2].length - 1;
      n++;
    }
    x.forEach(walk);
  };
  walk(data[4]);
  assert.equal(n, 1, 'one reference to g in the crafted unit');
};

/** Turn the thunk's `set!` of h into a plain value (honest code). @param {any} x @param {any[]} data */
function walkSets(x, data) {
  if (!Array.isArray(x)) return;
  if (x[0] === 12 /* T_GSET */ && x.length === 3 && x[1] === globalIndex(data, 'h')) {
    x.splice(0, 3, ...x[2]);
    return;
  }
  x.forEach((y) => walkSets(y, data));
}

/** Make '.'::g (its definition included) `to`. @param {[string, string]} to */
const renameG = (to) => (/** @type {any[]} */ data) => {
  data[2][globalIndex(data, 'g')] = to;
};

test('received code cannot write library or runtime globals, nor name what a library does not define', async () => {
  const token = newToken();
  const pub = await createIdentity();
  const b = await startDaemon({ token, args: ['--trust', pub.id] });
  started.push(b);
  const peer = await hostilePeer(b, token);
  try {
    // the trusted, honest library: the peer serves its record and its code
    const lib = compileProgramText(`(define-library (shared lib@1.0) (export f) (import (scheme base)) (begin (define hidden 41) (define (f) (+ hidden 1)))) (import (shared lib@1.0)) f`)[0];
    peer.libs.set(KEY, [KEY, lib.hash, [], base64url(pub.publicKey), base64url(await pub.sign(signedBytes(KEY, lib.hash, [])))]);
    peer.units.set(lib.hash, [KEY, wireToData(lib.wire), false]);
    /** @param {{data: any[], hash: string}} u @param {RegExp} refusal */
    const refused = async (u, refusal) => {
      peer.units.set(u.hash, ['hostile', u.data, false]);
      const a = await peer.request([R.SPAWN, closureRef(u.hash, `prog:${u.hash}`, 2), [], false]);
      assert.equal(a[0], false, `refused: ${refusal}`);
      assert.match(String(a[1]), refusal);
    };
    // set! of a library's exported procedure (would change it for every program on the node)
    await refused(crafted(setOf([NS, 'f']), [NS]), /lambda \d+: assigns library \(shared lib\)@1\.0's global f, which code received from another node may not write/);
    // set! of a runtime procedure
    await refused(crafted(setOf(['rt', 'car']), []), /assigns runtime procedure car, which code received from another node may not write/);
    // define in the library's namespace (the unit's top level defines g)
    await refused(crafted(renameG([NS, 'g']), [NS]), /lambda 0: defines library \(shared lib\)@1\.0's global g/);
    // a name the library never defined (reading it would create a global in its environment)
    await refused(crafted(readOf([NS, 'invented']), [NS]), /names invented, which library \(shared lib\)@1\.0 does not define/);
    // a library the unit does not declare it requires
    await refused(crafted(readOf([NS, 'f']), []), /names f of library \(shared lib\)@1\.0, which it does not require/);
    // the library's own code passed off as a program's: its top level would redefine the library's globals
    const a = await peer.request([R.SPAWN, closureRef(lib.hash, `prog:${lib.hash}`, 0), [], false]);
    assert.equal(a[0], false);
    assert.match(String(a[1]), /is the code of library \(shared lib\)@1\.0, not of a program/);
    // the library is intact: honest code calling f spawns (its answer is the daemon's to run)
    const honest = crafted((data) => {
      data[4].forEach((/** @type {any[]} */ lam) => lam[2].forEach((/** @type {any[]} */ c) => walkSets(c, data)));
      readOf([NS, 'f'])(data);
    }, [NS]);
    peer.units.set(honest.hash, ['honest', honest.data, false]);
    const ok = await peer.request([R.SPAWN, closureRef(honest.hash, `prog:${honest.hash}`, 2), [], false]);
    assert.equal(ok[0], true, String(ok[1]));
  } finally {
    await peer.mesh.stop();
  }
});
