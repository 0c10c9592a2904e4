import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '../../../../src-shared/domain';
import { completed, lines, type ShapeRig } from './shape-programs';

/** Messages that are words (not tool calls or results): each must appear once, from its speaker. */
const words = (messages: Message[]) =>
  messages.filter((m) => !m.toolCalls?.length && !m.toolResults?.length).map((m) => m.content);

/**
 * The four shapes of issue 22 against one instrumentation: the conversation comes back as who
 * said what to whom, each sentence once, tool calls and handoffs on the agent that made them,
 * and the session completes once the program's work has ended.
 */
export function describeShapes(title: string, start: () => Promise<ShapeRig>): void {
  describe(title, () => {
    let rig: ShapeRig;
    beforeAll(async () => {
      rig = await start();
    });
    afterAll(async () => {
      await rig?.stop();
    });

    it('a pipeline (each agent passes on what it heard, history resent) reads Researcher -> Analyst -> Editor', async () => {
      const task = 'Pipeline task: organise the summer party for forty people.';
      const said = await rig.run(`pipeline-${title}`, async ({ turn }) => {
        const a1 = (await turn('Researcher', [{ role: 'user', content: task }])).text;
        // Quoted inside a longer input, in other formatting.
        const b1 = (await turn('Analyst', [{ role: 'user', content: `Researcher said:\n\n> *${a1}*` }])).text;
        // Every call resends what came before.
        const c1 = (
          await turn('Editor', [
            { role: 'user', content: task },
            { role: 'user', content: a1 },
            { role: 'user', content: `**Analyst:**   ${b1.replace(/ /g, '  ')}` },
          ])
        ).text;
        await turn('Researcher', [
          { role: 'user', content: task },
          { role: 'assistant', content: a1 },
          { role: 'user', content: c1 },
        ]);
      });
      const { session, messages } = await completed(rig.host, 'Pipeline task');
      const [a1, a2] = said.get('Researcher') as [string, string];
      const [b1] = said.get('Analyst') as [string];
      const [c1] = said.get('Editor') as [string];
      expect(lines(messages)).toEqual([
        `user -> Researcher: ${task}`,
        `Researcher -> Analyst: ${a1}`,
        `Analyst -> Editor: ${b1}`,
        `Editor -> Researcher: ${c1}`,
        `Researcher -> user: ${a2}`,
      ]);
      expect(session.status).toBe('completed');
    });

    it('a supervisor calling workers as tools inside its own span: delegations and results are edges, the calls stay on it, the workers are its team', async () => {
      const task = 'Supervisor task: price the venue for the offsite.';
      const questions: string[] = [];
      const said = await rig.run(`supervisor-${title}`, async ({ agent, turn, tool }) => {
        await agent('Supervisor', async () => {
          const first = await turn(
            'Supervisor',
            [{ role: 'user', content: task }],
            ['ask_Researcher', 'ask_Analyst'],
          );
          const results: Array<{ id: string; content: string }> = [];
          for (const call of first.toolCalls) {
            const worker = call.function.name.replace('ask_', '');
            const question = (JSON.parse(call.function.arguments) as { question: string }).question;
            questions.push(question);
            const content = await tool(call.function.name, call.id, call.function.arguments, async () => {
              return (await turn(worker, [{ role: 'user', content: question }])).text;
            });
            results.push({ id: call.id, content });
          }
          await turn('Supervisor', [
            { role: 'user', content: task },
            { role: 'assistant', content: null, tool_calls: first.toolCalls },
            ...results.map((result) => ({
              role: 'tool' as const,
              tool_call_id: result.id,
              content: result.content,
            })),
          ]);
        });
      });
      const { session, messages, events } = await completed(rig.host, 'Supervisor task');
      const [r] = said.get('Researcher') as [string];
      const [a] = said.get('Analyst') as [string];
      const [final] = said.get('Supervisor') as [string];
      expect(lines(messages)).toEqual([
        `user -> Supervisor: ${task}`,
        'Supervisor [ask_Researcher, ask_Analyst]',
        // Agents invoked inside the supervisor's span are its nested team, named as Fleetscope
        // names a team's members.
        `Supervisor -> Supervisor/Researcher: ${questions[0]}`,
        `Supervisor/Researcher -> Supervisor: ${r}`,
        `Supervisor -> Supervisor/Analyst: ${questions[1]}`,
        `Supervisor/Analyst -> Supervisor: ${a}`,
        `Supervisor -> user: ${final}`,
      ]);
      const started = events.find((e) => e.kind === 'session.started');
      const fleet = started?.kind === 'session.started' ? started.payload.fleet : null;
      const supervisor = fleet?.agents.find((agent) => agent.name === 'Supervisor');
      expect(fleet?.agents.map((agent) => agent.name)).toEqual(['Supervisor']);
      expect(supervisor?.type).toBe('team');
      expect(supervisor?.fleet?.agents.map((agent) => agent.name)).toEqual(['Researcher', 'Analyst']);
      expect(supervisor?.systemPrompt).toBe('You are Supervisor.');
      // Both calls requested and closed on the supervisor; nothing addressed to the user but its answer.
      const toolEvents = events.filter((e) => e.kind === 'tool.requested' || e.kind === 'tool.executed');
      expect(toolEvents.map((e) => `${e.kind} ${e.agent}`).sort()).toEqual([
        'tool.executed Supervisor',
        'tool.executed Supervisor',
        'tool.requested Supervisor',
        'tool.requested Supervisor',
      ]);
      expect(messages.filter((m) => m.to === 'user').map((m) => m.content)).toEqual([final]);
      expect(session.status).toBe('completed');
    });

    it('a handoff by a transfer tool is a handoff edge; the call and its result stay on the agent that handed off', async () => {
      const task = 'Handoff task: refund the deposit for the cancelled booking.';
      const said = await rig.run(`handoff-${title}`, async ({ turn }) => {
        const first = await turn('Triage', [{ role: 'user', content: task }], ['transfer_to_Billing']);
        const call = first.toolCalls[0];
        expect(call?.function.name).toBe('transfer_to_Billing');
        await turn('Billing', [
          { role: 'user', content: task },
          { role: 'assistant', content: null, tool_calls: first.toolCalls },
          { role: 'tool', tool_call_id: call?.id ?? '', content: '{"assistant": "Billing"}' },
        ]);
      });
      const { session, messages, events } = await completed(rig.host, 'Handoff task');
      const [answer] = said.get('Billing') as [string];
      expect(lines(messages)).toEqual([
        `user -> Triage: ${task}`,
        'Triage [transfer_to_Billing]',
        'Triage [transfer_to_Billing result]',
        `Billing -> user: ${answer}`,
      ]);
      const handoffs = events.flatMap((e) =>
        e.kind === 'handoff' ? [`${e.payload.from} -> ${e.payload.to}`] : [],
      );
      expect(handoffs).toEqual(['Triage -> Billing']);
      expect(session.status).toBe('completed');
    });

    it('a fan-out to three agents merged by a fourth: the plan reaches every worker once, each worker answers the merger', async () => {
      const task = 'Fan-out task: choose a venue for the offsite.';
      const workers = ['Alpha', 'Beta', 'Gamma'];
      const said = await rig.run(`fanout-${title}`, async ({ turn }) => {
        const plan = (await turn('Lead', [{ role: 'user', content: task }])).text;
        const answers = await Promise.all(
          workers.map(
            async (worker) => (await turn(worker, [{ role: 'user', name: 'Lead', content: plan }])).text,
          ),
        );
        const merged = answers.map((answer, i) => `${i + 1}. ${workers[i]}: ${answer}`).join('\n');
        await turn('Merger', [{ role: 'user', content: `Merge these:\n\n${merged}` }]);
      });
      const { session, messages } = await completed(rig.host, 'Fan-out task');
      const text = (agent: string) => (said.get(agent) as [string])[0];
      const edges = new Set(messages.map((m) => `${m.from} -> ${m.to}`));
      for (const worker of workers) expect(edges).toContain(`${worker} -> Merger`);
      expect(edges).toContain('user -> Lead');
      expect(edges).toContain('Merger -> user');
      // Every sentence exactly once, from its speaker.
      const spoken = [task, ...['Lead', ...workers, 'Merger'].map(text)];
      expect(words(messages).sort()).toEqual([...spoken].sort());
      for (const agent of ['Lead', ...workers, 'Merger'])
        expect(messages.find((m) => m.content === text(agent))?.from).toBe(agent);
      // The plan: one message, to every worker.
      const plan = messages.find((m) => m.content === text('Lead'));
      const receivers = [plan?.to, ...((plan?.meta.alsoTo as string[] | undefined) ?? [])];
      expect(receivers.sort()).toEqual(workers);
      expect(session.status).toBe('completed');
    });
  });
}
