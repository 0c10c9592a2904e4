// The import benchmark's probe. It runs on its own thread in the benchmark process, so its
// timings do not suffer from the benchmark's own work (building and sending a 30 MB frame):
// it calls a cheap channel over its own WebSocket every `intervalMs` and samples the host's
// resident memory from /proc. On 'mark' it posts what it saw since the last mark and starts
// afresh; 'stop' does the same and ends.
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import WebSocket from 'ws';

const { wsUrl, origin, pid, intervalMs, channel } = workerData;
const sent = new Map();
const latencies = [];
const rssMb = [];
let nextId = 1;
let timer = null;

function residentMb() {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

function tick() {
  const id = nextId++;
  sent.set(id, performance.now());
  socket.send(JSON.stringify({ type: 'call', id, channel, payload: {} }));
  const rss = residentMb();
  if (rss !== null) rssMb.push(rss);
}

const socket = new WebSocket(wsUrl, { origin });
socket.on('open', () => {
  timer = setInterval(tick, intervalMs);
  parentPort.postMessage({ type: 'ready' });
});
socket.on('message', (data) => {
  const frame = JSON.parse(String(data));
  if (frame.type !== 'result' || !sent.has(frame.id)) return;
  latencies.push(performance.now() - sent.get(frame.id));
  sent.delete(frame.id);
});
socket.on('error', (error) => parentPort.postMessage({ type: 'error', message: String(error) }));

function report(type) {
  const now = performance.now();
  // Calls still unanswered count with the time they have waited so far.
  const waiting = [...sent.values()].map((at) => now - at);
  parentPort.postMessage({ type, latencies: latencies.splice(0), waiting, rssMb: rssMb.splice(0) });
}

parentPort.on('message', (message) => {
  if (message.type === 'mark') report('marked');
  if (message.type !== 'stop') return;
  clearInterval(timer);
  report('result');
  socket.close();
});
