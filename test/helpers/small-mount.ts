import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real small filesystem (tmpfs) for fault tests: a full disk, a read-only folder. Mounting
 * needs root (or CAP_SYS_ADMIN); `reason` says why it could not, for a visible skip.
 */
export interface SmallMount {
  dir: string;
  /** Remounts read-only (`mount -o remount,ro`). */
  makeReadOnly(): void;
  unmount(): void;
}

/** Mounts a tmpfs of `size` (such as "3m"), or says why it cannot. */
export function mountTmpfs(size: string): { mount: SmallMount } | { reason: string } {
  const dir = mkdtempSync(join(tmpdir(), 'fleetscope-mount-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const why = (error as { stderr?: Buffer }).stderr?.toString().trim() || String(error);
    return { reason: `cannot mount a tmpfs here (${why}); needs root or CAP_SYS_ADMIN` };
  }
  return {
    mount: {
      dir,
      makeReadOnly: () => execFileSync('mount', ['-o', 'remount,ro', dir], { stdio: 'pipe' }),
      unmount() {
        try {
          execFileSync('umount', [dir], { stdio: 'pipe' });
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    },
  };
}

/** A folder inside the mount (a data folder). */
export function folderIn(mount: SmallMount, name: string): string {
  const dir = join(mount.dir, name);
  mkdirSync(dir, { recursive: true });
  return dir;
}
