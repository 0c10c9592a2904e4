import {
  MESSAGE_KINDS,
  type AgentSpec,
  type Fleet,
  type ProviderRef,
  type ScriptedReply,
} from '@shared/domain';
import type { ProviderInfo } from '@shared/contract';

/** The built-in provider that answers from a script: it works everywhere, with no key. */
export const SCRIPTED_PROVIDER_ID = 'scripted';

/** Typing pace of the demo replies templates bring along: fast enough to keep moving, slow enough to read. */
export const DEMO_CHARS_PER_SECOND = 80;

export interface AgentTemplate {
  id: string;
  label: string;
  icon: string;
  /** Base of the agent's name; a number is added when taken. */
  name: string;
  blurb: string;
  make(provider: ProviderRef): Omit<AgentSpec, 'name'>;
}

const base = { tools: [], acceptedKinds: [...MESSAGE_KINDS], receiveOwnBroadcasts: false };

/**
 * An LLM agent. With the scripted provider (no key configured) it also gets demo replies in
 * its role at a typing pace, so a fleet built without a key still runs and is worth watching;
 * choosing a real provider later makes the system prompt take over.
 */
function llm(description: string, role: string, systemPrompt: string, demo: string[], tools: string[] = []) {
  return (provider: ProviderRef): Omit<AgentSpec, 'name'> => ({
    ...base,
    type: 'llm',
    description,
    role,
    systemPrompt,
    provider: { ...provider },
    tools,
    ...(provider.id === SCRIPTED_PROVIDER_ID ? demoScript(demo) : {}),
  });
}

function demoScript(replies: string[]): Pick<AgentSpec, 'script' | 'charsPerSecond'> {
  return {
    script: replies.map((content): ScriptedReply => ({ content })),
    charsPerSecond: DEMO_CHARS_PER_SECOND,
  };
}

/**
 * The provider new agents get: one that works on this machine. A provider with a key (stored
 * or in the environment) first, then a local server the user set up (no key needed), else the
 * built-in scripted one, which always works.
 */
export function workingProviderId(providers: readonly ProviderInfo[]): string {
  const keyed = providers.find((provider) => !provider.builtIn && provider.keySet);
  if (keyed) return keyed.id;
  const local = providers.find((provider) => !provider.builtIn && provider.saved && provider.keyOptional);
  return local?.id ?? SCRIPTED_PROVIDER_ID;
}

/** A nested team starts as a two-step scripted pipeline so it runs before it is edited. */
function nestedFleet(): Fleet {
  return {
    version: 1,
    name: 'Nested team',
    description: 'A team used as one agent.',
    agents: [
      {
        ...base,
        name: 'drafter',
        type: 'scripted',
        description: 'Drafts',
        role: 'drafter',
        systemPrompt: '',
        script: [{ content: 'Draft ready.' }],
        charsPerSecond: DEMO_CHARS_PER_SECOND,
      },
      {
        ...base,
        name: 'checker',
        type: 'scripted',
        description: 'Checks',
        role: 'checker',
        systemPrompt: '',
        script: [{ content: 'Checked. DONE' }],
        charsPerSecond: DEMO_CHARS_PER_SECOND,
      },
    ],
    team: { pattern: 'sequential' },
    layout: {},
  };
}

export const AGENT_TEMPLATES: readonly AgentTemplate[] = [
  {
    id: 'planner',
    label: 'Planner',
    icon: '☰',
    name: 'planner',
    blurb: 'Breaks the task into steps',
    make: llm(
      'Turns the task into a short, ordered plan and tracks progress.',
      'planner',
      'You are the planner. Read the task, then write a numbered plan of at most 6 concrete steps, each naming who should do it. Keep it short. When all steps are done, say "PLAN COMPLETE".',
      [
        'Here is the plan:\n1. Pin down what a good answer must contain.\n2. Gather the facts and constraints it depends on.\n3. Write a first draft.\n4. Review it and fix what is weak.\n5. Put the final version together.',
        'Steps 1 to 3 are done and the draft is under review. Once the fixes are in, the final version closes the plan.',
        'Every step is done. PLAN COMPLETE',
      ],
    ),
  },
  {
    id: 'coder',
    label: 'Coder',
    icon: '⌨',
    name: 'coder',
    blurb: 'Writes and fixes code',
    make: llm(
      'Writes working code for the current step and explains it briefly.',
      'coder',
      'You are a careful software engineer. Write complete, runnable code in fenced blocks with the language named. Prefer small functions and clear names. When feedback arrives, fix exactly what was pointed out.',
      [
        'A first version:\n\n```python\ndef summarize(lines: list[str]) -> str:\n    kept = [line.strip() for line in lines if line.strip()]\n    return "\\n".join(f"{index}. {line}" for index, line in enumerate(kept, 1))\n```\n\nIt numbers every non-empty line.',
        'Fixed: empty input now gives an empty string, and a test covers it:\n\n```python\ndef test_empty():\n    assert summarize([]) == ""\n```',
      ],
      ['calculator'],
    ),
  },
  {
    id: 'critic',
    label: 'Critic / reviewer',
    icon: '✓',
    name: 'critic',
    blurb: 'Reviews and asks for fixes',
    make: llm(
      'Reviews the last answer for errors, gaps and risks.',
      'reviewer',
      'You are a demanding reviewer. Check the last message for mistakes, missing cases and unclear parts. List concrete issues with suggested fixes. If nothing important is left, reply with "DONE" (the stop word a new fleet listens for).',
      [
        'Two issues:\n- Empty input is not handled.\n- Nothing tests it.\nPlease fix both before we go on.',
        'Both points are addressed and the test passes. DONE',
      ],
    ),
  },
  {
    id: 'researcher',
    label: 'Researcher',
    icon: '❝',
    name: 'researcher',
    blurb: 'Finds and cites facts',
    make: llm(
      'Gathers relevant facts from the files it may read and cites them.',
      'researcher',
      'You are a researcher. Answer with facts you can support. Use the read_file tool to consult documents, quote the passages you rely on, and say plainly when something cannot be found.',
      [
        'Three findings, each with its source:\n1. The main constraint is time, not budget (notes.md, section 2).\n2. Two earlier attempts failed on the same step (report.txt, page 4).\n3. Nothing in the files covers costs, so that part stays open.',
        'I checked again: no file mentions costs. I would not guess a figure.',
      ],
      ['read_file', 'current_time'],
    ),
  },
  {
    id: 'writer',
    label: 'Document writer',
    icon: '✎',
    name: 'writer',
    blurb: 'Writes the final document',
    make: llm(
      'Turns the discussion into a clear, well-structured document.',
      'writer',
      'You are a technical writer. Produce a clean Markdown document from the conversation so far: a title, a one-paragraph summary, then sections with headings. Do not invent facts that were not discussed.',
      [
        '# Summary\n\nThe team agreed on a five-step plan, wrote a first version, and fixed the two issues the review found.\n\n## Decisions\n- Keep the scope small.\n- Test the empty case.\n\n## Open questions\n- Costs are not covered by any source yet.',
      ],
    ),
  },
  {
    id: 'decomposer',
    label: 'Task decomposer',
    icon: '⋔',
    name: 'decomposer',
    blurb: 'Splits work into subtasks',
    make: llm(
      'Splits a large task into independent subtasks that can run in parallel.',
      'decomposer',
      'You split work. Given a task, output a list of independent subtasks, each self-contained with its inputs and the expected output. Avoid overlap between subtasks.',
      [
        'Independent subtasks:\n1. Collect the requirements (input: the task; output: a checklist).\n2. Survey what exists (input: the files; output: three findings with sources).\n3. Draft the answer (input: checklist and findings; output: a first version).',
      ],
    ),
  },
  {
    id: 'summarizer',
    label: 'Summarizer',
    icon: '≡',
    name: 'summarizer',
    blurb: 'Condenses the conversation',
    make: llm(
      'Condenses long discussions into the decisions and open questions.',
      'summarizer',
      'Summarize the conversation so far in at most 8 bullet points: decisions taken, results produced, and open questions. Be faithful and concise.',
      [
        '- A plan of five steps was agreed.\n- A first version exists.\n- The review found two issues; both are fixed.\n- Open: nobody has looked at costs.',
      ],
    ),
  },
  {
    id: 'router',
    label: 'Router / selector',
    icon: '⇄',
    name: 'router',
    blurb: 'Decides who speaks next',
    make: llm(
      'Reads each message and decides which specialist should handle it next.',
      'router',
      'You are a dispatcher. For each message, decide which agent is best placed to continue, based on their descriptions. Reply with only the agent name and a one-line reason.',
      [
        'planner: the task needs a plan before anyone writes anything.',
        'critic: there is a draft to review now.',
      ],
    ),
  },
  {
    id: 'human',
    label: 'Human',
    icon: '☺',
    name: 'human',
    blurb: 'A person answers when asked',
    make: () => ({
      ...base,
      type: 'human',
      description: 'A person who reviews and answers when it is their turn.',
      role: 'human',
      systemPrompt: '',
    }),
  },
  {
    id: 'scripted',
    label: 'Scripted',
    icon: '¶',
    name: 'scripted',
    blurb: 'Canned replies, no model',
    make: () => ({
      ...base,
      type: 'scripted',
      description: 'Answers with canned replies: for demos and tests, no model or key needed.',
      role: 'canned replies',
      systemPrompt: '',
      script: [{ content: 'Here is my first canned reply.' }, { content: 'And my second one. DONE' }],
      charsPerSecond: DEMO_CHARS_PER_SECOND,
    }),
  },
  {
    id: 'team',
    label: 'Team (nested fleet)',
    icon: '⬡',
    name: 'team',
    blurb: 'A whole team as one agent',
    make: () => ({
      ...base,
      type: 'team',
      description: 'A nested team that works as one agent.',
      role: 'team',
      systemPrompt: '',
      fleet: nestedFleet(),
    }),
  },
];

export function findTemplate(id: string): AgentTemplate | undefined {
  return AGENT_TEMPLATES.find((template) => template.id === id);
}

/** The icon of the template an agent most likely came from (by role, then type). */
export function iconFor(agent: Pick<AgentSpec, 'type' | 'role'>): string {
  const byRole = AGENT_TEMPLATES.find(
    (template) => template.id !== 'team' && template.make({ id: 'x', model: 'x' }).role === agent.role,
  );
  if (byRole) return byRole.icon;
  if (agent.type === 'human') return '☺';
  if (agent.type === 'scripted') return '¶';
  if (agent.type === 'team') return '⬡';
  return '◆';
}
