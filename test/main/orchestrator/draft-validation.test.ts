import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { draftSchema, MESSAGE_KINDS, type Draft } from '@shared/domain';
import { MemorySink } from '../../../src-main/orchestrator';
import { InvalidDraftError, MessageBus, plainDraft } from '../../../src-main/orchestrator/runtime/bus';
import { EventRecorder } from '../../../src-main/orchestrator/runtime/recorder';
import { SessionState } from '../../../src-main/orchestrator/runtime/session-state';

/** Values a draft field may hold, right and wrong (what a faulty agent could hand over). */
const anyValue = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.string({ maxLength: 6 }),
  fc.constantFrom('', 'text', 'code', 'tool', 'nope', '*', 'user', '\ud83d\ude00'),
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom(0.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, -0),
  fc.boolean(),
  fc.constant([]),
  fc.constant({}),
);
const usageValue = fc.oneof(
  anyValue,
  fc.record({ prompt: anyValue, completion: anyValue }),
  fc.record({ prompt: fc.nat(), completion: fc.nat(), extra: anyValue }),
  fc.record({ prompt: fc.nat(), completion: fc.nat() }),
);
const draftLike = fc.record(
  {
    to: anyValue,
    kind: fc.oneof(anyValue, fc.constantFrom(...MESSAGE_KINDS)),
    content: anyValue,
    parentId: anyValue,
    meta: fc.oneof(fc.constant(undefined), fc.constant({}), fc.constant({ a: 1 })),
    toolCalls: fc.oneof(fc.constant(undefined), fc.constant([])),
    usage: usageValue,
    other: anyValue,
  },
  { requiredKeys: [] },
);
const validPlain = fc.record(
  {
    to: fc.string({ minLength: 1, maxLength: 8 }),
    kind: fc.constantFrom(...MESSAGE_KINDS),
    content: fc.string({ maxLength: 20 }),
    parentId: fc.oneof(fc.constant(null), fc.string({ minLength: 1, maxLength: 8 })),
    usage: fc.record({ prompt: fc.nat(), completion: fc.nat() }),
  },
  { requiredKeys: ['to', 'kind', 'content'] },
);

describe('draft validation', () => {
  it('the plain-draft check accepts only what the draft schema accepts, and returns what it returns', () => {
    fc.assert(
      fc.property(draftLike, (draft) => {
        const plain = plainDraft(draft as Draft);
        if (plain === null) return;
        const parsed = draftSchema.safeParse(draft);
        expect(parsed.success).toBe(true);
        expect(plain).toEqual(parsed.success ? parsed.data : null);
      }),
      { numRuns: 3000 },
    );
  });

  it('takes every plain model reply without the schema (same result as the schema)', () => {
    fc.assert(
      fc.property(validPlain, (draft) => {
        const plain = plainDraft(draft);
        expect(plain).not.toBeNull();
        expect(plain).toEqual(draftSchema.parse(draft));
      }),
      { numRuns: 500 },
    );
  });

  it('still refuses, with the schema-named reason, what only the schema can judge', () => {
    const bus = new MessageBus(new SessionState(new EventRecorder('s1', new MemorySink())), {
      scope: '',
      owner: 'user',
      members: [{ name: 'alice', acceptedKinds: ['text'], receiveOwnBroadcasts: false }],
      onMessage: () => {},
    });
    const bad = [
      { to: 'alice', kind: 'text', content: 'x', usage: { prompt: -1, completion: 0 } },
      { to: 'alice', kind: 'text', content: 'x', usage: { prompt: 1.5, completion: 0 } },
      { to: 'alice', kind: 'shout', content: 'x' },
      { to: 'alice', kind: 'text', content: 'x', parentId: '' },
      { to: 'alice', kind: 'text', content: 7 },
    ];
    for (const draft of bad) {
      expect(plainDraft(draft as Draft)).toBeNull();
      expect(() => bus.send('alice', draft as Draft)).toThrow(InvalidDraftError);
    }
    expect(() =>
      bus.send('alice', { to: 'alice', kind: 'text', content: 'x', usage: { prompt: -1 } } as Draft),
    ).toThrow(/usage/);
    // Extra fields are dropped, as the schema drops them.
    const sent = bus.send('alice', {
      to: 'alice',
      kind: 'text',
      content: 'x',
      usage: { prompt: 2, completion: 3, colour: 9 },
    } as Draft);
    expect(sent.usage).toEqual({ prompt: 2, completion: 3 });
  });
});
