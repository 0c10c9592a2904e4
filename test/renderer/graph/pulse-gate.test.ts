import { describe, expect, it } from 'vitest';
import { mount } from '@vue/test-utils';
import { defineComponent, h, nextTick, ref } from 'vue';
import { PULSE_GATE, PULSE_SPAN, pulseFloorFor, usePulse } from '../../../src-renderer/graph/node-text';

describe('when the graph pulses', () => {
  it('pulses for what a step, play or live frame brought, never for a jump far ahead or back', async () => {
    const on = ref(true);
    const floor = ref(0);
    /** The pulse key of an element whose last message is at `lastSeq` (0 = no pulse yet). */
    const lastSeq = ref(0);
    const Pulsing = defineComponent({
      setup() {
        const key = usePulse(() => lastSeq.value);
        return () => h('span', { 'data-key': key.value });
      },
    });
    const wrapper = mount(Pulsing, { global: { provide: { [PULSE_GATE as symbol]: { on, floor } } } });
    const key = () => Number(wrapper.find('span').attributes('data-key'));
    let shown = 100;
    /** The graph moves from `shown` to `next`, where the element's last message is at `at`. */
    const move = async (next: number, at: number) => {
      floor.value = pulseFloorFor(shown, next);
      shown = next;
      lastSeq.value = at;
      await nextTick();
    };

    await move(130, 120); // a step: its message pulses
    expect(key()).toBe(120);
    await move(130 + PULSE_SPAN, 125 + PULSE_SPAN); // play or live, a long frame: still pulses
    expect(key()).toBe(125 + PULSE_SPAN);
    await move(90_000, 89_990); // a seek far ahead: shows the state there, pulses nothing
    expect(key()).toBe(125 + PULSE_SPAN);
    await move(40_000, 39_990); // a seek back: nothing either
    expect(key()).toBe(125 + PULSE_SPAN);
    await move(40_010, 40_005); // stepping on from there pulses again
    expect(key()).toBe(40_005);
    wrapper.unmount();
  });
});
