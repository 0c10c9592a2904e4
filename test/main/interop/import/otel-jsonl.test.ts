import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importFile } from '../../../../src-main/interop/import';
import { MemorySessions } from '../../../helpers/memory-sessions';
import { makeTempDir } from '../../../helpers/temp-dir';

const temps: Array<ReturnType<typeof makeTempDir>> = [];
afterEach(() => temps.splice(0).forEach((temp) => temp.remove()));

function file(name: string, text: string): string {
  const temp = makeTempDir();
  temps.push(temp);
  const path = join(temp.dir, name);
  writeFileSync(path, text);
  return path;
}

const BASE_NS = BigInt(Date.UTC(2026, 1, 2, 10, 0, 0)) * 1_000_000n;

/** One ExportTraceServiceRequest as the collector's file exporter writes it (one line). */
function exportLine(spanIds: number[], text: (id: number) => string): string {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'crew' } }] },
        scopeSpans: [
          {
            scope: { name: 'openinference.instrumentation.crewai' },
            spans: spanIds.map((id) => ({
              traceId: '5b8aa5a2d2c872e8321cf37308d69df2',
              spanId: id.toString(16).padStart(16, '0'),
              name: 'ChatCompletion',
              kind: 1,
              startTimeUnixNano: String(BASE_NS + BigInt(id) * 1_000_000_000n),
              endTimeUnixNano: String(BASE_NS + BigInt(id) * 1_000_000_000n + 500_000_000n),
              attributes: [
                { key: 'openinference.span.kind', value: { stringValue: 'LLM' } },
                { key: 'agent.name', value: { stringValue: 'analyst' } },
                { key: 'output.value', value: { stringValue: text(id) } },
              ],
              status: {},
            })),
          },
        ],
      },
    ],
  });
}

describe('OTLP JSON Lines (the collector file exporter)', () => {
  it('imports every line of a collector file as one session', async () => {
    const path = file(
      'traces.jsonl',
      `${exportLine([1, 2], (id) => `answer ${id}`)}\n${exportLine([3], () => 'answer 3')}\n`,
    );
    const store = new MemorySessions();
    const result = await importFile(path, store);
    expect(result).toMatchObject({ format: 'otlp-json', messageCount: 3 });
    const contents = store.sessions
      .get(result.sessionId)
      ?.events.flatMap((e) => (e.kind === 'message.completed' ? [e.payload.message.content] : []));
    expect(contents).toEqual(['answer 1', 'answer 2', 'answer 3']);
  });

  it('reads lines longer than the head that tells formats apart', async () => {
    const long = 'x'.repeat(90 * 1024);
    const path = file('big.json', `${exportLine([1], () => long)}\n${exportLine([2], () => 'short')}\n`);
    const store = new MemorySessions();
    const result = await importFile(path, store);
    expect(result).toMatchObject({ format: 'otlp-json', messageCount: 2 });
  });

  it('names the line that is not a trace export, and leaves other JSON Lines refused as before', async () => {
    const broken = file('traces.jsonl', `${exportLine([1], () => 'a')}\n{"resourceSpans": [\n`);
    await expect(importFile(broken, new MemorySessions())).rejects.toThrow(
      /Line 2 of the OTLP JSON Lines file is not JSON/,
    );
    const other = file(
      'events.jsonl',
      '{"role":"user","content":"hi"}\n{"role":"assistant","content":"yo"}\n',
    );
    await expect(importFile(other, new MemorySessions())).rejects.toThrow(/JSON Lines/);
  });
});

describe('files that look like traces but are not in a form Fleetscope reads', () => {
  it('says they look like spans and which forms are read', async () => {
    const path = file(
      'jaeger.json',
      JSON.stringify({ spans: [{ traceID: 'x', spanID: 'y', span_id: '1', operationName: 'chat' }] }),
    );
    await expect(importFile(path, new MemorySessions())).rejects.toThrow(
      /looks like trace spans \(items with "span_id"\), but not in a form Fleetscope reads: OTLP\/JSON/,
    );
    const shapeless = file('otlp.json', JSON.stringify({ resourceSpans: { spans: [] } }));
    await expect(importFile(shapeless, new MemorySessions())).rejects.toThrow(
      'Invalid trace file: $.resourceSpans must be a list.',
    );
  });
});
