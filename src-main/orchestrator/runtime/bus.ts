import {
  draftSchema,
  MESSAGE_KINDS,
  type Draft,
  type Message,
  type MessageKind,
  type MessageState,
  type TokenUsage,
} from '@shared/domain';
import { newId } from './ids';
import { memberOf, routeMessage, type BusMember } from './routing';
import type { SessionState } from './session-state';

export type { BusMember } from './routing';

/** What each member said and received so far (see `MessageBus.restore`). */
export interface BusMemory {
  inboxes: Readonly<Record<string, readonly Message[]>>;
  views: Readonly<Record<string, readonly Message[]>>;
}

export interface BusOptions {
  /** Prefix of nested teams (`outer/`), empty at the top level. */
  scope: string;
  /** Who stands outside this team: `user` at the top, the team agent when nested. */
  owner: string;
  members: readonly BusMember[];
  /** Called after every message is recorded and delivered. */
  onMessage(message: Message): void;
}

/** A message a draft could not become; the run treats it as an agent bug. */
export class InvalidDraftError extends Error {}

const KINDS: ReadonlySet<string> = new Set(MESSAGE_KINDS);

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

const USAGE_COUNTS = ['cached', 'reasoning'] as const;
const USAGE_TEXTS = ['model', 'provider'] as const;
const USAGE_TIMES = ['firstTokenMs', 'durationMs'] as const;
const USAGE_KEYS: ReadonlySet<string> = new Set([
  'prompt',
  'completion',
  'cost',
  ...USAGE_COUNTS,
  ...USAGE_TEXTS,
  ...USAGE_TIMES,
]);
const isTime = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0;

/**
 * `usage` as draftSchema returns it, when every field is one tokenUsageSchema allows with a value
 * it accepts (else undefined: zod decides, and names what is wrong).
 */
function plainUsage(usage: unknown): TokenUsage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const fields = usage as Record<string, unknown>;
  const { prompt, completion } = fields;
  if (!isCount(prompt) || !isCount(completion)) return undefined;
  const plain: TokenUsage = { prompt, completion };
  for (const key in fields) {
    const value = fields[key];
    if (!USAGE_KEYS.has(key)) return undefined;
    if (value === undefined) continue;
    if ((USAGE_COUNTS as readonly string[]).includes(key)) {
      if (!isCount(value)) return undefined;
    } else if ((USAGE_TEXTS as readonly string[]).includes(key)) {
      if (typeof value !== 'string' || value.length > 200) return undefined;
    } else if (key === 'cost') {
      if (value !== null && !isTime(value)) return undefined;
    } else if (!isTime(value)) return undefined;
    (plain as Record<string, unknown>)[key] = value;
  }
  return plain;
}

/**
 * The draft as `draftSchema.parse` returns it, for the plain drafts of every model reply (no
 * meta, tool calls or tool results); null for anything else, which zod then decides. Checks the
 * same rules as the schema, without walking zod's machinery once per message: the one check a
 * turn pays in full. It only ever says "valid": every refusal and every other shape is zod's.
 */
export function plainDraft(draft: Draft): Draft | null {
  if (typeof draft !== 'object' || draft === null) return null;
  const { to, kind, content, parentId, meta, toolCalls, toolResults, usage } = draft as Record<
    keyof Draft,
    unknown
  >;
  if (meta !== undefined || toolCalls !== undefined || toolResults !== undefined) return null;
  if (typeof to !== 'string' || to.length === 0 || typeof content !== 'string') return null;
  if (typeof kind !== 'string' || !KINDS.has(kind)) return null;
  if (parentId !== undefined && parentId !== null && (typeof parentId !== 'string' || parentId.length === 0))
    return null;
  const counted = usage === undefined ? undefined : plainUsage(usage);
  if (usage !== undefined && counted === undefined) return null;
  return {
    to,
    kind: kind as MessageKind,
    content,
    ...(parentId !== undefined ? { parentId } : {}),
    ...(counted !== undefined ? { usage: counted } : {}),
  };
}

/** The draft as draftSchema returns it; throws InvalidDraftError naming what is wrong. */
function validDraft(draft: Draft, sender: () => string): Draft {
  const plain = plainDraft(draft);
  if (plain !== null) return plain;
  const parsed = draftSchema.safeParse(draft);
  if (parsed.success) return parsed.data;
  const detail = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'draft'}: ${issue.message}`);
  throw new InvalidDraftError(`${sender()} tried to send an invalid message (${detail.join('; ')}).`);
}

/** Opening a streamed message: the envelope is known before the content. */
export interface MessageOpening {
  to: string;
  kind: MessageKind;
  parentId: string | null;
}

/**
 * Point-to-point and broadcast delivery for one team. Every message is validated, stamped
 * (`from` = its sender, id, thread) and recorded as events before it is delivered.
 */
export class MessageBus {
  private readonly members = new Map<string, BusMember>();
  private readonly inboxes = new Map<string, Message[]>();
  private readonly views = new Map<string, Message[]>();

  constructor(
    private readonly session: SessionState,
    private readonly options: BusOptions,
  ) {
    for (const member of options.members) {
      this.members.set(member.name, member);
      this.inboxes.set(member.name, []);
      this.views.set(member.name, []);
    }
  }

  /** Name used in envelopes and events: the scope plus the member's name. */
  qualify(name: string): string {
    return this.members.has(name) ? `${this.options.scope}${name}` : name;
  }

  /** Member name from an envelope name, or null when it is not a member of this team. */
  memberName(address: string): string | null {
    return memberOf(this.members, this.options.scope, address);
  }

  /** Gives every member the inbox and view a session's events say it had (resume and fork). */
  restore(memory: BusMemory): void {
    for (const name of this.members.keys()) {
      this.inboxes.set(name, [...(memory.inboxes[name] ?? [])]);
      this.views.set(name, [...(memory.views[name] ?? [])]);
    }
  }

  get owner(): string {
    return this.options.owner;
  }

  /** Messages delivered to a member, in order. */
  inbox(name: string): readonly Message[] {
    return this.inboxes.get(name) ?? [];
  }

  /** What a member knows: what it said and what it received, in order. */
  view(name: string): readonly Message[] {
    return this.views.get(name) ?? [];
  }

  /** Starts a streamed message from `from` (a member name or the owner). */
  open(from: string, opening: MessageOpening): MessageWriter {
    return new MessageWriter(this, this.session, from, opening);
  }

  /** Validates and delivers a whole message at once. */
  send(from: string, draft: Draft): Message {
    const writer = this.open(from, { to: draft.to, kind: draft.kind, parentId: draft.parentId ?? null });
    return writer.complete(draft);
  }

  /** Records and delivers a finished message. Called by MessageWriter. */
  deliver(message: Message): void {
    const recorder = this.session.recorder;
    const delivery = routeMessage(this.members, this.options.scope, this.options.owner, message);
    if (delivery.sender !== null) this.views.get(delivery.sender)?.push(message);
    this.session.messageCount += 1;
    // Durable in the sink's next group commit; no surface shows it before then (see EventSink).
    recorder.emit(message.from, { kind: 'message.completed', payload: { message } });

    for (const receiver of delivery.receivers) this.receive(receiver.name, message, receiver.own);
    if (delivery.outcome === 'dropped') {
      recorder.emit(message.from, {
        kind: 'message.dropped',
        payload: { message, reason: `There is no agent named "${message.to}" in this team.` },
      });
    }
    const bounce = delivery.bouncedBy ? this.bounceMessage(message, delivery.bouncedBy) : null;
    this.options.onMessage(message);
    if (bounce) this.deliver(bounce);
  }

  private receive(name: string, message: Message, isOwn: boolean): void {
    this.inboxes.get(name)?.push(message);
    if (!isOwn) this.views.get(name)?.push(message);
  }

  private bounceMessage(message: Message, member: BusMember): Message {
    const receiver = member.name;
    const id = newId('msg');
    return {
      id,
      threadId: this.session.threadFor(id, message.id),
      parentId: message.id,
      from: this.qualify(receiver),
      to: message.from,
      kind: 'error',
      content: `${receiver} does not accept ${message.kind} messages (it accepts: ${member.acceptedKinds.join(', ')}).`,
      meta: { bounced: true },
      state: 'complete',
      t: this.session.recorder.now(),
    };
  }
}

/**
 * One message being written. `message.started` is emitted lazily (on the first delta or at
 * completion), so a reply that turns out to be a tool call can still change its envelope.
 */
export class MessageWriter {
  readonly id = newId('msg');
  private startedAt: number | null = null;
  private text = '';
  private finished = false;

  constructor(
    private readonly bus: MessageBus,
    private readonly session: SessionState,
    private readonly from: string,
    private opening: MessageOpening,
  ) {}

  get started(): boolean {
    return this.startedAt !== null;
  }

  get content(): string {
    return this.text;
  }

  /** Changes the envelope before anything was emitted; ignored afterwards. */
  reopen(opening: Partial<MessageOpening>): void {
    if (this.startedAt === null) this.opening = { ...this.opening, ...opening };
  }

  delta(text: string): void {
    if (text.length === 0 || this.finished) return;
    this.start();
    this.text += text;
    this.session.recorder.delta(this.sender(), this.id, text);
  }

  /** Validates the draft, records the message and delivers it. `state` is partial for cut-off replies. */
  complete(draft: Draft, state: MessageState = 'complete'): Message {
    if (this.finished) throw new InvalidDraftError(`Message ${this.id} was already completed.`);
    const valid = validDraft(draft, () => this.sender());
    this.reopen({ to: valid.to, kind: valid.kind, parentId: valid.parentId ?? this.opening.parentId });
    this.start();
    this.finished = true;
    const recorder = this.session.recorder;
    if (valid.usage) {
      this.session.addUsage(valid.usage);
      recorder.emit(this.sender(), { kind: 'usage', payload: { messageId: this.id, usage: valid.usage } });
    }
    const message: Message = {
      id: this.id,
      threadId: this.session.threadFor(this.id, this.opening.parentId),
      parentId: this.opening.parentId,
      from: this.sender(),
      to: this.bus.qualify(valid.to),
      kind: valid.kind,
      content: valid.content,
      meta: valid.meta ?? {},
      ...(valid.toolCalls ? { toolCalls: valid.toolCalls } : {}),
      ...(valid.toolResults ? { toolResults: valid.toolResults } : {}),
      ...(valid.usage ? { usage: valid.usage } : {}),
      state,
      t: this.startedAt ?? recorder.now(),
    };
    this.bus.deliver(message);
    return message;
  }

  private sender(): string {
    return this.bus.qualify(this.from);
  }

  private start(): void {
    if (this.startedAt !== null) return;
    const recorder = this.session.recorder;
    this.startedAt = recorder.now();
    const parentId = this.opening.parentId;
    recorder.emit(this.sender(), {
      kind: 'message.started',
      payload: {
        messageId: this.id,
        threadId: this.session.threadFor(this.id, parentId),
        parentId,
        from: this.sender(),
        to: this.bus.qualify(this.opening.to),
        kind: this.opening.kind,
      },
    });
  }
}
