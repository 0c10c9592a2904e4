import { describe, expect, it } from 'vitest';
import { mount } from '@vue/test-utils';
import { defineComponent, h, ref } from 'vue';
import type { TerminationSpec } from '@shared/domain';
import TerminationEditor from '../../../src-renderer/builder/TerminationEditor.vue';
import { describeCondition } from '../../../src-renderer/builder/termination';

function host(initial: TerminationSpec | undefined) {
  const spec = ref<TerminationSpec | undefined>(initial);
  const view = mount(
    defineComponent({
      setup: () => () =>
        h(TerminationEditor, {
          modelValue: spec.value,
          agents: ['planner', 'critic'],
          'onUpdate:modelValue': (value: TerminationSpec | undefined) => (spec.value = value),
        }),
    }),
  );
  return { spec, view };
}

describe('the termination builder', () => {
  it('warns that a fleet without a condition stops at the default cap, and adds one', async () => {
    const { spec, view } = host(undefined);
    expect(view.get('[data-testid="termination-warning"]').text()).toContain('stops after 50 messages');
    await view.get('[data-testid="termination-add"]').trigger('click');
    expect(spec.value).toEqual({
      type: 'or',
      conditions: [
        { type: 'text-mention', text: 'DONE' },
        { type: 'max-messages', max: 20 },
      ],
    });
    expect(view.get('[data-testid="termination-summary"]').text()).toBe(
      'Stops at (“DONE” mentioned OR 20 messages).',
    );
  });

  it('edits values inside the tree', async () => {
    const { spec, view } = host({
      type: 'or',
      conditions: [
        { type: 'text-mention', text: 'DONE' },
        { type: 'max-messages', max: 20 },
      ],
    });
    await view.get('[data-testid="condition-value-0.1"]').setValue('8');
    await view.get('[data-testid="condition-value-0.0"]').setValue('APPROVE');
    expect(spec.value).toEqual({
      type: 'or',
      conditions: [
        { type: 'text-mention', text: 'APPROVE' },
        { type: 'max-messages', max: 8 },
      ],
    });
  });

  it('groups a condition with AND, switches a group to AND/OR, and collapses a group of one', async () => {
    const { spec, view } = host({ type: 'timeout', seconds: 60 });
    await view.get('[data-testid="condition-and-0"]').trigger('click');
    expect(spec.value).toEqual({
      type: 'and',
      conditions: [
        { type: 'timeout', seconds: 60 },
        { type: 'max-messages', max: 20 },
      ],
    });
    await view.get('[data-testid="condition-type-0"]').setValue('or');
    expect(spec.value?.type).toBe('or');
    await view.get('[data-testid="condition-or-0.1"]').trigger('click');
    expect(describeCondition(spec.value!)).toBe('(60 s OR (20 messages OR 20 messages))');
    await view.get('[data-testid="condition-remove-0.0"]').trigger('click');
    expect(spec.value).toEqual({
      type: 'or',
      conditions: [
        { type: 'max-messages', max: 20 },
        { type: 'max-messages', max: 20 },
      ],
    });
    await view.get('[data-testid="condition-remove-0.1"]').trigger('click');
    expect(spec.value).toEqual({ type: 'max-messages', max: 20 });
    await view.get('[data-testid="condition-remove-0"]').trigger('click');
    expect(spec.value).toBeUndefined();
  });

  it('changes a condition type to one with its own values', async () => {
    const { spec, view } = host({ type: 'max-messages', max: 5 });
    await view.get('[data-testid="condition-type-0"]').setValue('handoff');
    expect(spec.value).toEqual({ type: 'handoff', target: 'user' });
    await view.get('[data-testid="condition-type-0"]').setValue('source-match');
    expect(spec.value).toEqual({ type: 'source-match', sources: ['planner'] });
  });

  it('sets a cost budget in dollars and a token budget for one agent, limited to named agents', async () => {
    const { spec, view } = host({ type: 'max-messages', max: 5 });
    await view.get('[data-testid="condition-type-0"]').setValue('cost-budget');
    expect(spec.value).toEqual({ type: 'cost-budget', maxCost: 1 });
    await view.get('[data-testid="condition-value-0"]').setValue('0.25');
    expect(spec.value).toEqual({ type: 'cost-budget', maxCost: 0.25 });
    expect(view.get('[data-testid="termination-summary"]').text()).toBe('Stops at $0.25 spent.');

    await view.get('[data-testid="condition-or-0"]').trigger('click');
    await view.get('[data-testid="condition-type-0.1"]').setValue('agent-token-budget');
    await view.get('[data-testid="condition-value-0.1"]').setValue('5000');
    await view.get('[data-testid="condition-agents-0.1"]').setValue('critic, planner');
    expect(spec.value).toEqual({
      type: 'or',
      conditions: [
        { type: 'cost-budget', maxCost: 0.25 },
        { type: 'agent-token-budget', maxTokens: 5000, agents: ['critic', 'planner'] },
      ],
    });
    expect(view.get('[data-testid="termination-summary"]').text()).toBe(
      'Stops at ($0.25 spent OR 5000 tokens by one of critic, planner).',
    );
    // Emptied, the agents field means any agent again.
    await view.get('[data-testid="condition-agents-0.1"]').setValue('');
    expect((spec.value as { conditions: unknown[] }).conditions[1]).toEqual({
      type: 'agent-token-budget',
      maxTokens: 5000,
    });
  });
});
