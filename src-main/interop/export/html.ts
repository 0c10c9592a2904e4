import {
  describeUsage,
  formatCost,
  stopReasonSentence,
  type FleetInput,
  type RunEvent,
} from '@shared/domain';
import { SessionGraphTally } from './html-graph';
import { CONTENT_SECURITY_POLICY, SCRIPT, STYLE } from './html-template';
import type { RenderInput } from './render-types';
import { escapeHtml } from './text';

/** One replay step as the page's script reads it. */
type ReplayItem =
  | {
      k: 'm';
      from: string;
      to: string;
      kind: string;
      t: number;
      content: string;
      calls: Array<{ name: string; arguments: string }>;
      results: Array<{ name: string; content: string; isError: boolean }>;
      /** The model call's usage in a line (describeUsage), when it reported one. */
      usage?: string;
    }
  | {
      k: 'tool' | 'handoff' | 'error' | 'stop' | 'human';
      title: string;
      body: string;
      t: number;
      agent: string | null;
    };

/**
 * JSON for a `<script type="application/json">` block: every `<` becomes \u003c, so no content can
 * close the script element or open a comment; U+2028/2029 are escaped for older parsers.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/**
 * One self-contained file that replays the session: agents, messages in order, play/pause and a
 * slider. The data is streamed into an inline JSON block item by item.
 */
export function* renderHtml(input: RenderInput): Generator<string> {
  const { summary } = input;
  const title = escapeHtml(summary.title || 'Untitled session');
  const stopped = summary.stopReason
    ? ` · ${stopReasonSentence(summary.stopReason, { messages: summary.messageCount })}`
    : '';
  const subtitle = escapeHtml(
    `${summary.fleetName} · ${capitalize(summary.status)}${stopped} · ${readableDate(summary.createdAt)} · ` +
      `${summary.tokens} tokens · ${formatCost({ cost: summary.cost ?? 0, unpricedCalls: summary.unpricedCalls ?? 0 })}`,
  );
  yield '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n';
  yield `<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">\n`;
  yield `<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>${title} · Fleetscope</title>\n`;
  yield `<style>${STYLE}</style>\n</head>\n<body>\n`;
  yield `<header><h1>${title}</h1><p>${subtitle}</p></header>\n`;
  yield '<div class="layout">\n<aside><h2>Agents</h2><ul id="agents"></ul></aside>\n<main>\n';
  yield '<div class="controls"><button id="play" type="button">Play</button>';
  yield '<input id="position" type="range" min="0" max="0" value="0" aria-label="Position in the session">';
  yield '<span id="counter"></span></div>\n<ol id="items"></ol>\n</main>\n';
  yield `<script type="application/json" id="fleetscope-data">{"session":${scriptJson(summary)},"agents":${scriptJson(agentsOf(input.fleet))},"items":[`;
  const graph = new SessionGraphTally(input.fleet);
  let separator = '\n';
  const shownResults = new Set<string>();
  for (const event of input.events) {
    if (event.kind === 'message.completed') graph.add(event.payload.message);
    const item = toItem(event, shownResults);
    if (!item) continue;
    yield separator + scriptJson(item);
    separator = ',\n';
  }
  yield '\n]}</script>\n';
  // The graph needs every message counted, so it comes last in the file; the layout puts it on top.
  yield `<figure class="graph" aria-label="Who spoke to whom">\n${graph.svg()}\n<figcaption>Who spoke to whom: thicker arrows carry more messages; the speaker is highlighted as the session replays.</figcaption></figure>\n`;
  yield `</div>\n<script>${SCRIPT}</script>\n</body>\n</html>\n`;
}

/** "2026-11-22 17:40 UTC": the same in every time zone the file is opened in. */
function readableDate(epochMs: number): string {
  const iso = new Date(epochMs).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function agentsOf(fleet: FleetInput | null): Array<{ name: string; detail: string }> {
  return (fleet?.agents ?? []).map((agent) => ({
    name: agent.name,
    detail: [kindOf(agent), agent.description].filter(Boolean).join(' · '),
  }));
}

/** What an agent runs on, in plain words: its model, "Scripted demo", a person or a team. */
function kindOf(agent: FleetInput['agents'][number]): string {
  switch (agent.type ?? 'llm') {
    case 'scripted':
      return 'Scripted demo';
    case 'human':
      return 'a person';
    case 'team':
      return 'a team';
    default:
      return agent.provider?.id === 'scripted' ? 'Scripted demo' : (agent.provider?.model ?? 'model');
  }
}

/** `shownResults` keeps a tool result from showing twice (as an event and inside a message). */
function toItem(event: RunEvent, shownResults: Set<string>): ReplayItem | null {
  const base = { t: event.t, agent: event.agent };
  switch (event.kind) {
    case 'message.completed': {
      const m = event.payload.message;
      const results = (m.toolResults ?? []).filter((result) => !shownResults.has(result.callId));
      for (const result of results) shownResults.add(result.callId);
      return {
        k: 'm',
        from: m.from,
        to: m.to,
        kind: m.kind,
        t: m.t,
        content: m.content,
        calls: (m.toolCalls ?? []).map((call) => ({ name: call.name, arguments: call.arguments })),
        results: results.map((result) => ({
          name: result.name,
          content: result.content,
          isError: result.isError,
        })),
        ...(m.usage ? { usage: describeUsage(m.usage) } : {}),
      };
    }
    case 'tool.executed': {
      const { name, callId, result, isError } = event.payload;
      if (shownResults.has(callId)) return null;
      shownResults.add(callId);
      return {
        ...base,
        k: 'tool',
        title: `${isError ? 'Tool error' : 'Tool result'}: ${name}`,
        body: result,
      };
    }
    case 'handoff':
      return {
        ...base,
        k: 'handoff',
        title: `Handoff: ${event.payload.from} → ${event.payload.to}`,
        body: '',
      };
    case 'error':
      return { ...base, k: 'error', title: `Error (${event.payload.code})`, body: event.payload.message };
    case 'human.requested':
      return { ...base, k: 'human', title: 'Asked the human', body: event.payload.prompt };
    case 'human.given':
      return { ...base, k: 'human', title: 'The human answered', body: event.payload.text };
    case 'session.stopped':
      return {
        ...base,
        k: 'stop',
        title: stopReasonSentence(event.payload.stopReason),
        body: event.payload.detail ?? '',
      };
    default:
      return null;
  }
}
