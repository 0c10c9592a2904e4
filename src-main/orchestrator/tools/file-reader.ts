import { open, realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { ToolError, type Tool } from './tool';

/** Bytes returned at most; longer files are cut and say so. */
export const MAX_READ_BYTES = 64 * 1024;

/**
 * Resolves `path` inside `root` and refuses anything that leaves it, symlinks included
 * (both sides are compared after realpath).
 */
export async function resolveInside(root: string, path: string): Promise<string> {
  if (isAbsolute(path)) throw new ToolError('give a path relative to the shared folder');
  const realRoot = await realpath(root);
  let target: string;
  try {
    target = await realpath(resolve(realRoot, path));
  } catch {
    throw new ToolError(`no file "${path}" in the shared folder`);
  }
  const rel = relative(realRoot, target);
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new ToolError(`"${path}" is outside the shared folder`);
  }
  return target;
}

export const readFileTool: Tool = {
  name: 'read_file',
  description:
    'Reads a text file (read-only) from the folder the user shared. Paths are relative to that folder.',
  parameters: {
    type: 'object',
    properties: { path: { type: 'string', minLength: 1 } },
    required: ['path'],
    additionalProperties: false,
  },
  async execute(args, context) {
    if (context.fileRoot === null) throw new ToolError('no folder was shared for reading files');
    const target = await resolveInside(context.fileRoot, args.path as string);
    const info = await stat(target);
    if (!info.isFile()) throw new ToolError(`"${String(args.path)}" is not a file`);
    const handle = await open(target, 'r');
    try {
      const buffer = Buffer.alloc(Math.min(info.size, MAX_READ_BYTES));
      await handle.read(buffer, 0, buffer.length, 0);
      const text = buffer.toString('utf8');
      return info.size > MAX_READ_BYTES ? `${text}\n[cut: the file has ${info.size} bytes]` : text;
    } finally {
      await handle.close();
    }
  },
};
