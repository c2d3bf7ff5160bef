// @ts-check
/**
 * A program in a real pseudo-terminal, for tests of interactive commands (the REPL):
 * python3's pty module (on the machine; no npm dependency) forks the program on a new
 * pty of 100x30, copies what the test writes to the terminal's input (keys: '\t',
 * '\x03' for Ctrl-C, '\x04' for Ctrl-D, '\x1b[A' for the up arrow) and what the program
 * writes to the test. The program sees a TTY on stdin, stdout and stderr.
 */
import { spawn } from 'node:child_process';

const BRIDGE = `
import os, pty, sys, select, struct, fcntl, termios, signal
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', 30, 100, 0, 0))
os.kill(pid, signal.SIGWINCH)
stdin_open = True
while True:
    fds = [fd] + ([0] if stdin_open else [])
    r, _, _ = select.select(fds, [], [], 0.05)
    if fd in r:
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        os.write(1, data)
    if 0 in r:
        data = os.read(0, 65536)
        if not data:
            stdin_open = False
        else:
            os.write(fd, data)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status) if hasattr(os, 'waitstatus_to_exitcode') else status >> 8)
`;

/**
 * @typedef {object} Pty
 * @property {(keys: string) => void} type write to the terminal's input
 * @property {() => string} screen everything written so far (escape sequences included)
 * @property {() => string} text what was written, escape sequences removed
 * @property {(re: RegExp, timeoutMs?: number, from?: number) => Promise<void>} expect wait until text() (from offset `from`) matches
 * @property {() => number} mark the current length of text(), for expect's `from`
 * @property {Promise<number|null>} exited the exit status
 * @property {() => void} kill
 */

/**
 * @param {string} command @param {string[]} args @param {{env?: Record<string, string>}} [opts]
 * @returns {Pty}
 */
export function startPty(command, args, opts = {}) {
  const child = spawn('python3', ['-c', BRIDGE, command, ...args], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, TERM: 'xterm', ...opts.env } });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  const text = () => out.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');
  return {
    type: (keys) => child.stdin.write(keys),
    screen: () => out,
    text,
    mark: () => text().length,
    expect: async (re, timeoutMs = 10000, from = 0) => {
      const until = Date.now() + timeoutMs;
      while (Date.now() < until) {
        if (re.test(text().slice(from))) return;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${re} in:\n${text().slice(from)}`);
    },
    exited,
    kill: () => child.kill('SIGKILL'),
  };
}
