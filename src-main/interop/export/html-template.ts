/**
 * The static parts of the HTML replay. No external resources: the CSP below forbids every
 * network fetch, and the script builds the page with textContent only (never innerHTML), so
 * message content always renders as text.
 */

export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:";

export const STYLE = `
:root { color-scheme: light dark; --fg: #1d232a; --muted: #66707a; --line: #d9dee3; --bg: #fff; --card: #f6f8fa; --accent: #2563eb; --err: #b42318; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e9ec; --muted: #9aa4ae; --line: #333a41; --bg: #15191d; --card: #1d2227; --accent: #60a5fa; --err: #f97066; } }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header { padding: 16px 24px; border-bottom: 1px solid var(--line); }
header h1 { margin: 0 0 4px; font-size: 20px; }
header p { margin: 0; color: var(--muted); }
.layout { display: grid; grid-template-columns: minmax(240px, 340px) 1fr; grid-template-rows: auto 1fr; grid-template-areas: "graph main" "agents main"; min-height: calc(100vh - 80px); }
.layout > main { grid-area: main; }
aside { grid-area: agents; border-right: 1px solid var(--line); padding: 16px; }
figure.graph { grid-area: graph; margin: 0; padding: 12px 16px 0; border-right: 1px solid var(--line); }
figure.graph svg { display: block; width: 100%; height: auto; max-height: 60vh; }
figure.graph figcaption { color: var(--muted); font-size: 12px; margin-top: 6px; }
.graph .edge { opacity: .55; }
.graph .edge path { fill: none; stroke: var(--muted); }
.graph .edge polygon { fill: var(--muted); }
.graph .edge.live { opacity: 1; }
.graph .edge.live path { stroke: var(--accent); }
.graph .edge.live polygon { fill: var(--accent); }
.graph .fan { display: none; }
.graph .fan.live { display: inline; }
.graph .fan line { stroke: var(--accent); stroke-width: 1.5; stroke-dasharray: 5 4; opacity: .7; }
.graph .node rect { fill: var(--card); stroke: var(--agent); stroke-width: 2; }
.graph .node text { fill: var(--fg); font: 600 12px system-ui, sans-serif; text-anchor: middle; }
.graph .node text.badge { fill: var(--muted); font-weight: 400; font-size: 10px; }
.graph .node.speaking rect { fill: var(--agent); }
.graph .node.speaking text:not(.badge) { fill: #fff; }
.graph .node.hearing rect { stroke-width: 3; stroke-dasharray: 4 3; }
@media (max-width: 700px) { .layout { grid-template-columns: 1fr; grid-template-areas: "graph" "agents" "main"; } }
aside h2 { font-size: 13px; text-transform: uppercase; color: var(--muted); margin: 0 0 8px; }
aside ul { list-style: none; margin: 0; padding: 0; }
aside li { padding: 6px 8px; border-radius: 6px; margin-bottom: 4px; }
aside li.active { background: var(--accent); color: #fff; }
aside li small { display: block; opacity: .75; }
main { padding: 0 24px 24px; min-width: 0; }
.controls { position: sticky; top: 0; background: var(--bg); display: flex; gap: 12px; align-items: center; padding: 12px 0; border-bottom: 1px solid var(--line); }
.controls input[type=range] { flex: 1; }
.controls button { min-width: 72px; padding: 4px 12px; }
ol { list-style: none; padding: 0; margin: 12px 0 0; }
li.item { border: 1px solid var(--line); background: var(--card); border-radius: 8px; padding: 8px 12px; margin-bottom: 8px; }
li.item .meta { color: var(--muted); font-size: 12px; }
li.item .who { font-weight: 600; color: var(--fg); }
li.item pre { white-space: pre-wrap; word-break: break-word; margin: 6px 0 0; font: 13px/1.45 ui-monospace, monospace; }
li.item.error { border-color: var(--err); }
li.item.note { background: transparent; border-style: dashed; }
details { margin-top: 6px; }
summary { cursor: pointer; color: var(--muted); }
`;

/** Reads the embedded data and replays it; plain ES2017, no dependencies. */
export const SCRIPT = `
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('fleetscope-data').textContent);
  var items = data.items;
  var list = document.getElementById('items');
  var slider = document.getElementById('position');
  var counter = document.getElementById('counter');
  var play = document.getElementById('play');
  var agentList = document.getElementById('agents');
  var agentNodes = {};
  var shown = 0;
  var timer = null;

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function clock(ms) {
    var s = Math.floor(ms / 1000);
    return Math.floor(s / 60) + ':' + String(s % 60).padStart(2, '0') + '.' + String(Math.round(ms) % 1000).padStart(3, '0');
  }
  function block(summary, body) {
    var d = el('details');
    d.appendChild(el('summary', '', summary));
    d.appendChild(el('pre', '', body));
    return d;
  }
  function render(item) {
    var li = el('li', 'item');
    var meta = el('div', 'meta');
    if (item.k === 'm') {
      meta.appendChild(el('span', 'who', item.from + ' \\u2192 ' + item.to));
      meta.appendChild(document.createTextNode(' \\u00b7 ' + item.kind + ' \\u00b7 ' + clock(item.t)));
      if (item.usage) meta.appendChild(document.createTextNode(' \\u00b7 ' + item.usage));
      li.appendChild(meta);
      if (item.content) li.appendChild(el('pre', '', item.content));
      (item.calls || []).forEach(function (c) { li.appendChild(block('Tool call ' + c.name, c.arguments)); });
      (item.results || []).forEach(function (r) { li.appendChild(block((r.isError ? 'Tool error ' : 'Tool result ') + r.name, r.content)); });
    } else {
      li.className = 'item ' + (item.k === 'error' ? 'error' : 'note');
      meta.appendChild(el('span', 'who', item.title));
      meta.appendChild(document.createTextNode(' \\u00b7 ' + clock(item.t)));
      li.appendChild(meta);
      if (item.body) li.appendChild(item.k === 'tool' ? block('Output', item.body) : el('pre', '', item.body));
    }
    return li;
  }
  var graphNodes = {};
  Array.prototype.forEach.call(document.querySelectorAll('.graph [data-agent]'), function (node) { graphNodes[node.getAttribute('data-agent')] = node; });
  var graphEdges = Array.prototype.slice.call(document.querySelectorAll('.graph .edge, .graph .fan'));
  function mark(node, name, on) { if (node) { if (on) node.classList.add(name); else node.classList.remove(name); } }
  function highlight(item) {
    Object.keys(agentNodes).forEach(function (name) { agentNodes[name].classList.remove('active'); });
    Object.keys(graphNodes).forEach(function (name) { mark(graphNodes[name], 'speaking', false); mark(graphNodes[name], 'hearing', false); });
    graphEdges.forEach(function (edge) { mark(edge, 'live', false); });
    var who = item && (item.from || item.agent);
    if (who && agentNodes[who]) agentNodes[who].classList.add('active');
    if (!who || who === 'user') return;
    mark(graphNodes[who], 'speaking', true);
    if (item.k !== 'm') return;
    if (item.to === '*') {
      Object.keys(graphNodes).forEach(function (name) { if (name !== who) mark(graphNodes[name], 'hearing', true); });
      graphEdges.forEach(function (edge) { if (edge.classList.contains('fan') && edge.getAttribute('data-from') === who) mark(edge, 'live', true); });
      return;
    }
    mark(graphNodes[item.to], 'hearing', true);
    graphEdges.forEach(function (edge) { if (!edge.classList.contains('fan') && edge.getAttribute('data-from') === who && edge.getAttribute('data-to') === item.to) mark(edge, 'live', true); });
  }
  function showUpTo(n) {
    n = Math.max(0, Math.min(items.length, n));
    while (shown < n) list.appendChild(render(items[shown++]));
    while (shown > n) { list.removeChild(list.lastChild); shown--; }
    slider.value = String(n);
    counter.textContent = n + ' / ' + items.length;
    highlight(items[n - 1]);
  }
  function stop() { if (timer) clearInterval(timer); timer = null; play.textContent = 'Play'; }
  function start() {
    if (shown >= items.length) showUpTo(0);
    play.textContent = 'Pause';
    timer = setInterval(function () {
      showUpTo(shown + 1);
      if (list.lastChild) list.lastChild.scrollIntoView({ block: 'nearest' });
      if (shown >= items.length) stop();
    }, 600);
  }
  data.agents.forEach(function (a) {
    var li = el('li', '', a.name);
    li.appendChild(el('small', '', a.detail));
    agentNodes[a.name] = li;
    agentList.appendChild(li);
  });
  slider.max = String(items.length);
  slider.addEventListener('input', function () { stop(); showUpTo(Number(slider.value)); });
  play.addEventListener('click', function () { if (timer) stop(); else start(); });
  document.addEventListener('keydown', function (e) { if (e.key === ' ' && e.target === document.body) { e.preventDefault(); play.click(); } });
  showUpTo(items.length);
})();
`;
