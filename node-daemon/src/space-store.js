// @ts-check
/**
 * The durable log of a daemon's central tuple spaces (`--data DIR`: DIR/spaces.sqlite),
 * the SpaceStore the runtime names (packages/runtime/src/linda/space-table.js), kept
 * in SQLite through better-sqlite3.
 *
 * Invariants:
 *  - WAL journal, `synchronous = NORMAL`: a tuple is in the log once `append` returns,
 *    and survives the daemon's process being killed (kill -9) — a committed WAL frame is
 *    in the operating system's hands; a power loss may lose the last commits (FULL
 *    would sync every commit to the disk, at several times the cost);
 *  - one row per tuple, its canonical CBOR bytes as they went into the core; `remove`
 *    drops one row with those bytes (tuples with the same bytes are interchangeable);
 *  - `load` gives each space's rows in insertion order (the rowid), so the replayed
 *    core keeps "oldest first".
 */
import { createRequire } from 'node:module';

// better-sqlite3 has no type declarations here: its API is used through `any`
const Database = /** @type {any} */ (createRequire(import.meta.url)('better-sqlite3'));

/** The sync setting the log is kept with (stated in docs/linda.md; bench/linda.js uses the same). */
export const SYNC = 'NORMAL';

/**
 * Open (creating if needed) the log at `file`.
 * @param {string} file
 * @returns {import('@termite/runtime').SpaceStore & {close: () => void}}
 */
export function openSpaceStore(file) {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${SYNC}`);
  db.exec(`
    CREATE TABLE IF NOT EXISTS spaces (name TEXT PRIMARY KEY) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS tuples (id INTEGER PRIMARY KEY, space TEXT NOT NULL, bytes BLOB NOT NULL);
    CREATE INDEX IF NOT EXISTS tuples_by_bytes ON tuples (space, bytes);
  `);
  const declare = db.prepare('INSERT OR IGNORE INTO spaces (name) VALUES (?)');
  const append = db.prepare('INSERT INTO tuples (space, bytes) VALUES (?, ?)');
  const remove = db.prepare('DELETE FROM tuples WHERE id = (SELECT id FROM tuples WHERE space = ? AND bytes = ? ORDER BY id LIMIT 1)');
  const names = db.prepare('SELECT name FROM spaces ORDER BY name');
  const rows = db.prepare('SELECT bytes FROM tuples WHERE space = ? ORDER BY id');
  return {
    declare: (space) => void declare.run(space),
    append: (space, tuple) => void append.run(space, tuple),
    remove: (space, tuple) => remove.run(space, tuple).changes === 1,
    load: () => names.all().map((/** @type {any} */ r) => ({
      space: String(r.name),
      tuples: rows.all(r.name).map((/** @type {any} */ t) => new Uint8Array(t.bytes.buffer, t.bytes.byteOffset, t.bytes.byteLength)),
    })),
    close: () => db.close(),
  };
}
