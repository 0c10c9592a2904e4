import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExportFormat, UnmappedItem, UnmappedList } from '@shared/contract';
import type { RunEvent } from '@shared/domain';
import type { HistoryStore } from '../../history';
import { exportSession } from '../../interop/export';
import type { Handlers } from './dispatcher';
import { AppError } from './errors';
import type { EventHub } from '../delivery/event-hub';
import { importUploadedFile, uploadName } from '../services/import-upload';
import { modelCallList } from '../services/model-calls';
import { trackTask } from '../services/task-progress';

type SessionHandlers = Pick<
  Handlers,
  | 'sessions.list'
  | 'sessions.get'
  | 'sessions.messages'
  | 'sessions.events'
  | 'sessions.seek'
  | 'sessions.edges'
  | 'sessions.usage'
  | 'sessions.unmapped'
  | 'sessions.modelCalls'
  | 'sessions.turns'
  | 'sessions.rename'
  | 'sessions.tag'
  | 'sessions.delete'
  | 'sessions.export'
  | 'sessions.importData'
  | 'sessions.watch'
>;

/** The `span.unmapped` events of a session as the header's count lists them: name and why. */
export function unmappedList(events: Iterable<RunEvent>, limit: number): UnmappedList {
  const items: UnmappedItem[] = [];
  let total = 0;
  for (const event of events) {
    if (event.kind !== 'span.unmapped') continue;
    total++;
    if (items.length >= limit) continue;
    const { spanId, name, partly, attributes, events: spanEvents } = event.payload;
    const keys = Object.keys(attributes);
    const left = [
      ...(keys.length > 0 ? [`attributes ${keys.join(', ')}`] : []),
      ...(spanEvents.length > 0 ? [`events ${spanEvents.map((e) => e.name).join(', ')}`] : []),
    ].join('; ');
    const why =
      spanId === ''
        ? `The resource's attributes (${keys.join(', ')}) describe the sending program, not a message.`
        : partly
          ? `Mapped, but ${left || 'some of it'} had no Fleetscope meaning.`
          : 'The span is no agent, model call, tool or handoff (an HTTP call or a chain step, say).';
    items.push({ seq: event.seq, spanId, name, agent: event.agent, why });
  }
  return { items, total };
}

/** Edge-tally buckets built per turn of the event loop (about 30k seqs). */
const EDGE_BUCKETS_PER_TURN = 32;

const EXTENSIONS: Record<ExportFormat, string> = { md: 'md', json: 'json', html: 'html', otlp: 'otlp.json' };

/** A file name from a session title: letters, digits and dashes only. */
export function exportFileName(title: string, id: string, format: ExportFormat): string {
  const slug =
    title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 60) || 'session';
  return `${slug}-${id.slice(0, 8)}.${EXTENSIONS[format]}`;
}

export function registerSessionHandlers(deps: {
  store: HistoryStore;
  hub: EventHub;
  /** Where `sessions.export` writes (DATA_DIR/exports; elsewhere when the data folder is read-only). */
  exportDir: string;
  /** Where key variables are resolved (vault keys included), so exports can mask their values. */
  env: NodeJS.ProcessEnv;
}): SessionHandlers {
  const { store, hub } = deps;
  /** Every channel that names a session answers not-found for one that was never stored. */
  const requireSession = (id: string) => {
    const found = store.getSession(id);
    if (!found) throw new AppError('not-found', `No session with id "${id}".`);
    return found;
  };
  /**
   * The first graph totals of a long session need one pass over its messages (a second or more
   * at a million): built a slice at a time with a turn of the event loop between slices, so the
   * calls that draw the session (seek, pages, events) are answered meanwhile.
   */
  const prepareEdges = async (id: string, seq?: number) => {
    while (!store.prepareEdges(id, EDGE_BUCKETS_PER_TURN, seq))
      await new Promise((resolve) => setImmediate(resolve));
  };
  return {
    'sessions.list': (query) => store.listSessions(query),
    'sessions.get': ({ id }) => requireSession(store.resolveSessionId(id)),
    'sessions.messages': ({ id, ...query }) => store.pageMessages(id, query),
    'sessions.events': async ({ id, afterSeq, limit }) => {
      requireSession(id);
      await store.settle();
      store.flush();
      const max = limit ?? 5000;
      const events = [...store.iterateEvents(id, afterSeq, afterSeq + max)];
      return { events, lastSeq: store.lastEventSeq(id) };
    },
    'sessions.seek': async ({ id, seq }) => {
      await store.settle();
      return store.seek(id, seq);
    },
    'sessions.edges': async ({ id, seq }) => {
      await store.settle();
      await prepareEdges(id, seq);
      return store.edgeStats(id, seq);
    },
    'sessions.usage': async ({ id, seq }) => {
      await store.settle();
      return store.usage(id, seq);
    },
    'sessions.unmapped': async ({ id, limit }) => {
      requireSession(id);
      await store.settle();
      store.flush();
      return unmappedList(store.iterateEvents(id), limit ?? 1000);
    },
    'sessions.modelCalls': async ({ id, offset, limit }) => {
      requireSession(id);
      await store.settle();
      store.flush();
      return modelCallList(store.iterateEvents(id), offset ?? 0, limit ?? 50);
    },
    'sessions.turns': async ({ id, agent, aroundSeq, limit }) => {
      await store.settle();
      await prepareEdges(id);
      return store.turnIndex(id, { agent, aroundSeq: aroundSeq ?? 0, limit: limit ?? 200 });
    },
    'sessions.rename': ({ id, title }) => store.renameSession(id, title),
    'sessions.tag': ({ id, tags }) => store.setTags(id, tags),
    'sessions.delete': ({ id }) => {
      store.deleteSession(id);
      return { deleted: true };
    },
    'sessions.export': async ({ id, format, taskId }) => {
      const found = requireSession(id);
      const fileName = exportFileName(found.summary.title, id, format);
      const folder = deps.exportDir;
      mkdirSync(folder, { recursive: true });
      const path = join(folder, fileName);
      const task = trackTask(hub, `Exporting ${fileName}`, taskId);
      const result = await exportSession(store, id, format, path, {
        env: deps.env,
        onProgress: (done, total) => task.progress(done, total),
      }).finally(() => task.finish(1, 1));
      return { path, bytes: result.bytes, fileName };
    },
    'sessions.importData': async ({ fileName, content, taskId, allowDuplicate }) => {
      const folder = mkdtempSync(join(tmpdir(), 'fleetscope-import-'));
      try {
        // The upload keeps its own name, so refusals name the file the person picked.
        const path = join(folder, uploadName(fileName));
        await writeFile(path, content); // never blocks the host's event loop, whatever the size
        return await importUploadedFile({ store, hub }, { path, fileName, taskId, allowDuplicate });
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
    'sessions.watch': ({ ids }, { client }) => {
      if (!client) throw new AppError('unavailable', 'This surface receives no live events to choose from.');
      const unique = [...new Set(ids)];
      for (const id of unique) requireSession(id);
      client.watch(unique);
      return { ids: client.watching };
    },
  };
}
