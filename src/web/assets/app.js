// The topology page's controller: who is looking (sign-in in keystone mode), the live snapshot
// stream, the page's state (search, project, focus, expanded groups, theme) and the keyboard.
import { buildView } from '/ui/view-model.js';
import { drawLinks, render } from '/ui/render.js';

const $ = (selector) => document.querySelector(selector);
const root = $('#topology');
const state = { query: '', project: '', focus: null, expanded: new Set() };
let feed = null;
let view = null;
let stream = null;
let drawPending = false;

function draw() {
  if (drawPending) return;
  drawPending = true;
  requestAnimationFrame(() => {
    drawPending = false;
    if (!feed) return;
    const focused = document.activeElement?.closest?.('[data-kind]');
    const keep = focused && { kind: focused.dataset.kind, id: focused.dataset.id };
    const started = performance.now();
    view = buildView(feed, state);
    render(root, view);
    document.documentElement.dataset.renderMs = String(Math.round(performance.now() - started));
    updateProjects(view.projects);
    $('#focus-info').hidden = !state.focus;
    $('#focus-name').textContent = view.focusName ?? '';
    if (keep) root.querySelector(`[data-kind="${keep.kind}"][data-id="${CSS.escape(keep.id)}"]`)?.focus();
    document.documentElement.dataset.generatedAt = feed.generated_at;
    requestAnimationFrame(() => drawLinks(root, view));
  });
}

function updateProjects(projects) {
  const select = $('#project');
  const have = [...select.options].slice(1).map((o) => o.value);
  if (have.join() === projects.join()) return;
  select.replaceChildren(new Option('all', ''), ...projects.map((p) => new Option(p, p)));
  select.value = projects.includes(state.project) ? state.project : '';
}

function setLive(text, value) {
  const live = $('#live');
  live.dataset.state = value;
  live.textContent = text;
}

function connect() {
  stream?.close();
  setLive('connecting', 'connecting');
  stream = new EventSource('/ui/events');
  stream.addEventListener('snapshot', (event) => {
    feed = JSON.parse(event.data);
    setLive('live', 'live');
    draw();
  });
  stream.addEventListener('error', () => {
    // EventSource reconnects by itself; a stream refused for want of a session does not.
    setLive('reconnecting', stream.readyState === EventSource.CLOSED ? 'offline' : 'connecting');
    if (stream.readyState === EventSource.CLOSED) void start();
  });
}

async function start() {
  const session = await (await fetch('/ui/session', { headers: { accept: 'application/json' } })).json();
  const signedOut = session.auth === 'keystone' && !session.signed_in;
  $('#sign-in').hidden = !signedOut;
  root.hidden = signedOut;
  $('#sign-out').hidden = session.auth !== 'keystone' || signedOut;
  $('#who').textContent = session.signed_in
    ? [session.user, session.project, session.admin ? 'admin' : ''].filter(Boolean).join(' · ')
    : '';
  if (signedOut) {
    stream?.close();
    stream = null;
    feed = null;
    setLive('signed out', 'offline');
    $('#sign-in [name=username]').focus();
    return;
  }
  connect();
}

$('#sign-in').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const response = await fetch('/ui/session', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(Object.fromEntries(form)),
  });
  if (response.ok) {
    event.target.reset();
    $('#sign-in-error').textContent = '';
    await start();
    return;
  }
  const body = await response.json().catch(() => ({}));
  $('#sign-in-error').textContent = body.error?.message ?? body.NeutronError?.message ?? `Error ${response.status}`;
});

$('#sign-out').addEventListener('click', async () => {
  stream?.close();
  stream = null;
  await fetch('/ui/session', { method: 'DELETE' });
  for (const band of root.querySelectorAll('.cards, .nodes')) band.replaceChildren();
  root.querySelector('#links').replaceChildren();
  await start();
});

$('#search').addEventListener('input', (event) => {
  state.query = event.target.value;
  draw();
});
$('#project').addEventListener('change', (event) => {
  state.project = event.target.value;
  draw();
});
$('#focus-clear').addEventListener('click', () => {
  state.focus = null;
  draw();
});

root.addEventListener('click', (event) => {
  const expand = event.target.closest('[data-expand]');
  if (expand) {
    const id = expand.dataset.expand;
    if (state.expanded.has(id)) state.expanded.delete(id);
    else state.expanded.add(id);
    draw();
    return;
  }
  const focus = event.target.closest('[data-focus]');
  if (focus) {
    const [kind, id] = focus.dataset.focus.split(':');
    state.focus = { kind, id };
    draw();
  }
});

// Keyboard: / search, arrows move between items, Enter expands a network's ports, f focuses, Esc clears.
document.addEventListener('keydown', (event) => {
  const typing = event.target.matches?.('input, select, textarea');
  if (event.key === '/' && !typing) {
    event.preventDefault();
    $('#search').focus();
    return;
  }
  if (event.key === 'Escape') {
    state.focus = null;
    state.query = '';
    $('#search').value = '';
    draw();
    return;
  }
  if (typing) return;
  const current = event.target.closest?.('[data-kind][tabindex]');
  const items = [...root.querySelectorAll('[data-kind][tabindex]')];
  const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
  if (step) {
    event.preventDefault();
    const at = current ? items.indexOf(current) : -1;
    items[Math.max(0, Math.min(items.length - 1, at + step))]?.focus();
  } else if (event.key === 'Home' || event.key === 'End') {
    event.preventDefault();
    (event.key === 'Home' ? items[0] : items[items.length - 1])?.focus();
  } else if (current && event.key === 'Enter' && current.dataset.kind === 'network') {
    current.querySelector('[data-expand]')?.click();
  } else if (current && event.key === 'f' && ['network', 'router'].includes(current.dataset.kind)) {
    state.focus = { kind: current.dataset.kind, id: current.dataset.id };
    draw();
  }
});

// Theme: the system's, or the one chosen here (kept in this browser).
const THEMES = ['auto', 'light', 'dark'];
function applyTheme(theme) {
  if (theme === 'auto') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  $('#theme').textContent = `◐ ${theme}`;
  $('#theme').title = `Theme: ${theme === 'auto' ? 'follows the system' : theme}`;
}
let theme = localStorage.getItem('octonet-theme') ?? 'auto';
applyTheme(theme);
$('#theme').addEventListener('click', () => {
  theme = THEMES[(THEMES.indexOf(theme) + 1) % THEMES.length];
  localStorage.setItem('octonet-theme', theme);
  applyTheme(theme);
});

window.addEventListener('resize', () => view && drawLinks(root, view));
void start();
