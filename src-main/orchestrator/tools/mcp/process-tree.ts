import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Parent of each live process (Linux: /proc; elsewhere `ps`). Empty when neither can be read. */
function parents(): Map<number, number> {
  const map = new Map<number, number>();
  if (process.platform === 'linux') {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        // The command name (2nd field) is in parentheses and may hold spaces: read after the last ')'.
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        map.set(Number(entry), ppid);
      } catch {
        // The process ended while the table was read.
      }
    }
    return map;
  }
  try {
    const table = execFileSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8' });
    for (const line of table.split('\n')) {
      const [pid, ppid] = line.trim().split(/\s+/).map(Number);
      if (pid !== undefined && ppid !== undefined && Number.isFinite(pid)) map.set(pid, ppid);
    }
  } catch {
    // No ps: only the root is known.
  }
  return map;
}

/** `root` and every process below it, parents before children. */
export function processTree(root: number): number[] {
  const table = parents();
  const tree = [root];
  for (let index = 0; index < tree.length; index += 1) {
    for (const [pid, ppid] of table) if (ppid === tree[index] && !tree.includes(pid)) tree.push(pid);
  }
  return tree;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Sends `signal` to each process that is still there. */
export function signalAll(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
}

/**
 * Ends a process tree: SIGTERM, then SIGKILL to whatever is left after `graceMs`. On Windows
 * `taskkill /T /F` ends the tree at once. Resolves once every process is gone (or after the kill).
 */
export async function killTree(pids: readonly number[], graceMs: number): Promise<void> {
  if (process.platform === 'win32') {
    const root = pids[0];
    if (root !== undefined && isAlive(root)) {
      try {
        execFileSync('taskkill', ['/pid', String(root), '/T', '/F'], { stdio: 'ignore' });
      } catch {
        // Already gone.
      }
    }
    return;
  }
  signalAll(pids, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (pids.some(isAlive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  signalAll(pids.filter(isAlive), 'SIGKILL');
}
