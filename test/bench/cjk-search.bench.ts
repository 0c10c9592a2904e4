import { afterAll, describe, expect, it } from 'vitest';
import { openHistory } from '../../src-main/history';
import { makeTempDir } from '../helpers/temp-dir';
import { sampleEvents } from '../main/interop/export/sample-session';
import { BenchReport, benchReps, benchSize, interleave, p95Of } from './harness';

/**
 * Full-text search in a store whose messages are half Chinese and Japanese: a CJK word (indexed
 * a character per token, searched as a phrase) vs a Latin word as frequent in the same store, p95
 * of QUERIES `listSessions` searches each. A word in many messages costs the same in either
 * script: the time goes into mapping its hits to sessions, not into matching. FLEETSCOPE_BENCH_MESSAGES sets the size (default 100,000).
 */
const MESSAGES = benchSize('FLEETSCOPE_BENCH_MESSAGES', 100_000);
const REPS = benchReps();
const QUERIES = 20;
const SESSIONS = 20;

const CJK = [
  '我们今天讨论了如何提高团队的生产力和沟通效率',
  '今日は天気がいいので散歩に行きましょう',
  '这个函数的返回值需要检查一下是否为空',
  '会議の資料は明日までに準備してください',
];
const temp = makeTempDir('fleetscope-bench-cjk-');
afterAll(() => temp.remove());

describe('search in a store of Chinese and Japanese messages', () => {
  it(`finds a word inside a sentence across ${MESSAGES} messages`, async () => {
    const history = openHistory(temp.dir);
    const perSession = Math.round(MESSAGES / SESSIONS);
    for (let session = 0; session < SESSIONS; session++) {
      const marker = session === 7;
      history.store.importSession(
        {
          title: `Session ${session}`,
          task: 'Talk',
          fleetName: 'bench',
          source: 'bench',
          createdAt: Date.now(),
          tags: [],
        },
        sampleEvents(perSession, (i) =>
          i % 2 === 0
            ? `${CJK[(i / 2) % CJK.length]}${marker && i === 42 ? '，生产力报告' : ''} ${i}`
            : `Message ${i}: the ${marker && i === 43 ? 'throughput' : i % 8 === 1 ? 'weekly' : 'usual'} report`,
        ),
      );
    }
    const search = async (text: string) => history.store.listSessions({ search: text }).total;
    expect(await search('生产力')).toBe(SESSIONS);
    expect(await search('生产力报告')).toBe(1);
    expect(await search('throughput')).toBe(1);
    const times = await interleave(REPS, {
      cjk: () => p95Of(QUERIES, () => search('生产力报告')),
      cjkCommon: () => p95Of(QUERIES, () => search('天気')),
      latin: () => p95Of(QUERIES, () => search('throughput')),
      latinCommon: () => p95Of(QUERIES, () => search('weekly')),
    });
    history.close();
    const report = new BenchReport('cjk-search', `Search in a ${MESSAGES}-message CJK store`, { MESSAGES });
    report.add({
      id: 'cjk-rare',
      label: `a CJK word in one session (sessions.list search), p95 of ${QUERIES}`,
      unit: 'ms',
      values: times.cjk,
      baseline: { label: 'a Latin word in one session, same store', values: times.latin },
      goal: { kind: 'value', max: 100, text: '< 100 ms' },
    });
    report.add({
      id: 'cjk-common',
      label: `a CJK word in an eighth of the messages, p95 of ${QUERIES}`,
      unit: 'ms',
      values: times.cjkCommon,
      baseline: { label: 'a Latin word in an eighth of the messages, same store', values: times.latinCommon },
      goal: { kind: 'ratio', max: 1.5, text: 'as fast as the same search in Latin script (<= 1.5x)' },
    });
    report.finish();
  });
});
