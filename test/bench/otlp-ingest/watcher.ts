import WebSocket from 'ws';

/**
 * A browser tab's connection to the web host, without the browser: it says hello, watches one
 * session (as an open session view does) and notes when each run.events frame arrives and which
 * message texts it carried. Also times app.info round trips, the transport's floor.
 */
export class Watcher {
  private socket: WebSocket;
  private nextId = 1;
  private readonly pending = new Map<number, (value: unknown) => void>();
  /** Message text -> Date.now() when the frame carrying its completion arrived. */
  readonly seen = new Map<string, number>();
  events = 0;

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on('message', (data) => this.onFrame(String(data)));
  }

  static async connect(port: number, token: string): Promise<Watcher> {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}`, {
      origin: `http://127.0.0.1:${port}`,
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.once('open', () => resolve());
    });
    const watcher = new Watcher(socket);
    const welcomed = new Promise<void>((resolve) =>
      socket.on('message', (data) => {
        if ((JSON.parse(String(data)) as { type: string }).type === 'welcome') resolve();
      }),
    );
    socket.send(JSON.stringify({ type: 'hello', epoch: null, lastSeq: 0 }));
    await welcomed;
    return watcher;
  }

  call<T>(channel: string, payload: unknown): Promise<T> {
    const id = this.nextId++;
    const answer = new Promise<unknown>((resolve) => this.pending.set(id, resolve));
    this.socket.send(JSON.stringify({ type: 'call', id, channel, payload }));
    return answer.then((result) => {
      const r = result as { ok: boolean; value?: T; error?: { message: string } };
      if (!r.ok) throw new Error(`${channel}: ${r.error?.message}`);
      return r.value as T;
    });
  }

  close(): void {
    this.socket.close();
  }

  private onFrame(text: string): void {
    const frame = JSON.parse(text) as {
      type: string;
      id?: number;
      result?: unknown;
      events?: Array<{
        channel: string;
        payload: { events?: Array<{ kind: string; payload: { message?: { content: string } } }> };
      }>;
    };
    if (frame.type === 'result' && frame.id !== undefined) {
      this.pending.get(frame.id)?.(frame.result);
      this.pending.delete(frame.id);
      return;
    }
    if (frame.type !== 'events') return;
    const at = Date.now();
    for (const delivered of frame.events ?? []) {
      if (delivered.channel !== 'run.events') continue;
      for (const event of delivered.payload.events ?? []) {
        this.events++;
        if (event.kind === 'message.completed' && event.payload.message)
          this.seen.set(event.payload.message.content, at);
      }
    }
  }
}
