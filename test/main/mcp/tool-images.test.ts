import { describe, expect, it } from 'vitest';
import { ofKind } from '../../helpers/fleet-builders';
import { gone, referenceServer } from '../../helpers/mcp-servers';
import { call, runWithServers, toolFleet } from './mcp-run-helpers';

describe('images in MCP tool results', () => {
  it('keeps the everything server’s image for people and names it for the model', async () => {
    const fleet = toolFleet(
      { everything: referenceServer('everything', ['stdio']) },
      ['everything/get-tiny-image'],
      [call('everything/get-tiny-image', {}, 'Here is the picture.')],
    );
    const { handle, events, pids } = runWithServers({ fleet, task: 'Show me a picture' });
    expect((await handle.done).status).toBe('completed');
    const results = ofKind(events, 'message.completed').flatMap(
      (event) => event.payload.message.toolResults ?? [],
    );
    expect(results).toHaveLength(1);
    const [image] = results[0]?.images ?? [];
    expect(image?.mimeType).toBe('image/png');
    // A PNG file begins with these bytes.
    expect(
      Buffer.from(image?.data ?? '', 'base64')
        .subarray(1, 4)
        .toString('latin1'),
    ).toBe('PNG');
    expect(results[0]?.content).toMatch(/\[image image\/png, \d+ bytes\]/);
    expect(await gone(pids())).toBe(true);
  }, 60_000);
});
