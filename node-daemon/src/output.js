// @ts-check
/**
 * Buffered console output for a node: Scheme output is collected and written to the
 * file descriptor in large chunks (one system call per flush, not per `display`).
 * Flushed when the buffer passes 16 KiB, after every scheduling round and before the
 * process exits.
 */
import { writeSync } from 'node:fs';

export class BufferedOutput {
  /** @param {number} fd */
  constructor(fd) {
    this.fd = fd;
    /** @type {string[]} */
    this.chunks = [];
    this.size = 0;
  }
  /** @param {string} s */
  write(s) {
    this.chunks.push(s);
    this.size += s.length;
    if (this.size > 16384) this.flush();
  }
  flush() {
    if (this.chunks.length === 0) return;
    const text = this.chunks.join('');
    this.chunks = [];
    this.size = 0;
    const bytes = Buffer.from(text, 'utf8');
    let off = 0;
    for (let tries = 0; off < bytes.length && tries < 100000; tries++) {
      try {
        off += writeSync(this.fd, bytes, off);
      } catch (e) {
        if (/** @type {any} */ (e).code !== 'EAGAIN') throw e;
      }
    }
  }
}
