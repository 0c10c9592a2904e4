import { BROADCAST, USER, type TokenUsage } from '@shared/domain';
import { agentName } from './build-events';
import { boldFields, parameterTable, readChatDevEntries, type ChatDevEntry } from './chatdev-entries';
import type { ForeignConversation, ForeignMessage } from './conversation';
import { TransferError } from './transfer-error';
import { titleFrom } from './validate';

export { looksLikeChatDevLog } from './chatdev-entries';

/** Lines ChatDev writes over and over that carry nothing (its web visualizer was not running). */
const NOISE = /^flask app\.py did not start for online log$/;
const START_CHAT = /^(.+?): \*\*\[Start Chat\]\*\*\s*$/;
const REPLY = /^(.+?): \*\*(.+?)<->(.+?) on : (.+?), turn (\d+)\*\*\s*$/;
const SECTION = /^(?:(.+?): )?\*\*\[(.+?)\]\*\*:?\s*$/;
const ENDED = 'The ChatDev run ended (its log closes with the run summary).';
const CUT_SHORT = 'The ChatDev log ends without the run summary: the run may have been stopped.';

/** A phase's parameters as the `[chatting]` / `[RolePlaying]` tables give them. */
interface Phase {
  name: string | null;
  assistant: string | null;
  user: string | null;
  model: string | null;
}

/** What ChatDev logged between two utterances, kept on the message before it. */
interface Note {
  section: string;
  text: string;
}

/**
 * Converts a ChatDev log into a transcript. Each utterance becomes a message: a
 * `Role: **[Start Chat]**` prompt from the phase's instructing role to its assistant role, a
 * `A: **A<->B on : Phase, turn N**` reply from A to B, with the token usage logged just before
 * it. The role prompt ChatDev prints in brackets at the top of each utterance (the addressee's
 * system message) becomes that role's system prompt (its configuration) the first time it
 * appears; a different prompt for the same role later is kept as a system message. Phase
 * tables, seminar conclusions, code updates, test reports and the closing summary are kept in
 * the messages' `meta.chatdev`; the "flask app.py did not start" lines are dropped.
 */
export function importChatDevLog(text: string, fileTime: number): ForeignConversation {
  const entries = readChatDevEntries(text);
  if (entries.length === 0)
    throw new TransferError('invalid-input', 'The ChatDev log holds no entries: there is nothing to import.');
  const messages: ForeignMessage[] = [];
  const agents: string[] = [];
  const promptsSeen = new Set<string>();
  const systemPrompts = new Map<string, string>();
  const phase: Phase = { name: null, assistant: null, user: null, model: null };
  const run: Record<string, string> = {};
  let pendingUsage: TokenUsage | undefined;
  let notesBeforeFirst: Note[] = [];
  let ended = false;

  const addAgent = (raw: string): string => {
    const name = agentName(raw.trim());
    if (name !== USER && name !== BROADCAST && !agents.includes(name)) agents.push(name);
    return name;
  };
  const note = (section: string, body: string) => {
    const last = messages.at(-1);
    const item: Note = { section, text: body };
    if (!last) {
      notesBeforeFirst.push(item);
      return;
    }
    const chatdev = chatdevMeta(last);
    chatdev.notes = [...(Array.isArray(chatdev.notes) ? (chatdev.notes as Note[]) : []), item];
  };
  const utterance = (entry: ChatDevEntry, from: string, to: string, body: string, extra: object) => {
    const { prompt, content } = splitRolePrompt(body);
    const speaker = addAgent(from);
    const addressee = addAgent(to);
    if (prompt) {
      const owner = /\bYou are ([A-Z][A-Za-z ]+?)\./.exec(prompt)?.[1];
      const promptFor = owner ? addAgent(owner) : addressee;
      // The first prompt a role was given is its configuration; a later, different one (a new
      // phase) is a message the role received, so nothing ChatDev said is lost.
      const configured = systemPrompts.get(promptFor);
      if (configured === undefined) systemPrompts.set(promptFor, prompt);
      else if (configured !== prompt && !promptsSeen.has(`${promptFor}\n${prompt}`)) {
        promptsSeen.add(`${promptFor}\n${prompt}`);
        messages.push({ from: 'system', to: promptFor, kind: 'system', content: prompt, at: entry.at });
      }
    }
    const meta: Record<string, unknown> = {
      chatdev: {
        ...(phase.name ? { phase: phase.name } : {}),
        ...(phase.model ? { model: phase.model } : {}),
        line: entry.line,
        ...extra,
        ...(notesBeforeFirst.length > 0 ? { notes: notesBeforeFirst } : {}),
      },
    };
    notesBeforeFirst = [];
    messages.push({ from: speaker, to: addressee, kind: 'text', content, at: entry.at, meta });
  };

  for (const entry of entries) {
    const newline = entry.text.indexOf('\n');
    const head = (newline < 0 ? entry.text : entry.text.slice(0, newline)).trim();
    const body = newline < 0 ? '' : entry.text.slice(newline + 1).trim();
    if (NOISE.test(head) || head === '') continue;
    const reply = REPLY.exec(head);
    if (reply) {
      const [, from, , to, phaseName, turn] = reply as unknown as [
        string,
        string,
        string,
        string,
        string,
        string,
      ];
      utterance(entry, from, to, body, { phase: phaseName.trim(), turn: Number(turn) });
      const last = messages.at(-1);
      if (last && pendingUsage) last.usage = pendingUsage;
      pendingUsage = undefined;
      continue;
    }
    const start = START_CHAT.exec(head);
    if (start) {
      const from = (start[1] as string).trim();
      const to = from === phase.assistant ? phase.user : phase.assistant;
      utterance(entry, from, to ?? BROADCAST, body, { start: true });
      continue;
    }
    const section = SECTION.exec(head);
    const name = section?.[2] ?? null;
    switch (name) {
      case 'Preprocessing':
        Object.assign(run, boldFields(body));
        notesBeforeFirst.push({ section: name, text: body });
        break;
      case 'chatting':
      case 'RolePlaying': {
        const table = parameterTable(body);
        phase.name = table.phase_name ?? phase.name;
        phase.assistant = table.assistant_role_name ?? phase.assistant;
        phase.user = table.user_role_name ?? phase.user;
        phase.model = table.model_type ?? phase.model;
        break;
      }
      case 'OpenAI_Usage_Info Receive':
        pendingUsage = usageOf(body);
        break;
      case 'Post Info':
        ended = true;
        note(name, body);
        break;
      default:
        note(name ?? head.slice(0, 200), name ? body : entry.text);
    }
  }

  if (messages.length === 0) {
    throw new TransferError(
      'invalid-input',
      'The ChatDev log holds no utterances ("Role: **[Start Chat]**" or "A: **A<->B on : Phase, turn N**"): there is nothing to import.',
    );
  }
  const task = run.task_prompt ?? messages.find((message) => message.kind === 'text')?.content ?? '';
  return {
    title: run.project_name?.trim() || titleFrom(task, 'ChatDev run'),
    task,
    agents,
    team: { pattern: 'sequential', order: agents },
    messages,
    systemPrompts: Object.fromEntries(systemPrompts),
    stopReason: ended ? ENDED : CUT_SHORT,
    createdAt: entries[0]?.at ?? fileTime,
  };
}

function chatdevMeta(message: ForeignMessage): Record<string, unknown> {
  message.meta ??= {};
  const existing = message.meta.chatdev;
  if (typeof existing === 'object' && existing !== null && !Array.isArray(existing))
    return existing as Record<string, unknown>;
  const created: Record<string, unknown> = {};
  message.meta.chatdev = created;
  return created;
}

/**
 * ChatDev prints the addressee's role prompt in brackets before what was said:
 * `[ChatDev is a software company ... ]\n\n<the message>`. A body that is only brackets is
 * kept whole as the message.
 */
function splitRolePrompt(body: string): { prompt: string | null; content: string } {
  if (!body.startsWith('[')) return { prompt: null, content: body };
  const end = body.indexOf(']\n\n');
  if (end < 0) return { prompt: null, content: body };
  const content = body.slice(end + 3).trim();
  if (content === '') return { prompt: null, content: body };
  return { prompt: body.slice(1, end).trim(), content };
}

function usageOf(body: string): TokenUsage | undefined {
  const prompt = /prompt_tokens:\s*(\d+)/.exec(body)?.[1];
  const completion = /completion_tokens:\s*(\d+)/.exec(body)?.[1];
  if (prompt === undefined || completion === undefined) return undefined;
  return { prompt: Number(prompt), completion: Number(completion) };
}
