import { MESSAGE_KINDS, type AgentSpec, type Fleet, type ProviderRef } from '@shared/domain';

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

function llm(description: string, role: string, systemPrompt: string, tools: string[] = []) {
  return (provider: ProviderRef): Omit<AgentSpec, 'name'> => ({
    ...base,
    type: 'llm',
    description,
    role,
    systemPrompt,
    provider: { ...provider },
    tools,
  });
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
      },
      {
        ...base,
        name: 'checker',
        type: 'scripted',
        description: 'Checks',
        role: 'checker',
        systemPrompt: '',
        script: [{ content: 'Checked. DONE' }],
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
      'You are a demanding reviewer. Check the last message for mistakes, missing cases and unclear parts. List concrete issues with suggested fixes. If nothing important is left, reply with "APPROVE".',
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
      role: 'scripted',
      systemPrompt: '',
      script: [{ content: 'Here is my first canned reply.' }, { content: 'And my second one. DONE' }],
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
