// Peerdex console: federated sources (docs/federation.md) over GET/PUT /api/federation. Self-contained: it fills
// every element with a data-federation-panel attribute, and exposes PeerdexFederation.mount(el) / .load() for a
// console page that wants to (re)load it when shown.
(function () {
  'use strict';
  const { h, fill } = window.PeerdexDom;
  const KINDS = ['yacy-json', 'opensearch-rss', 'opensearch-json', 'solr'];
  const panels = [];
  let sources = [];

  function api(method, path, body) {
    const opts = { method, headers: { 'X-Peerdex-Console': '1' } };
    if (body !== undefined) { opts.headers['Content-Type'] = 'application/json'; opts.body = JSON.stringify(body); }
    return fetch(path, opts).then((r) => r.text().then((t) => {
      let j;
      try { j = t ? JSON.parse(t) : {}; } catch (e) { j = { text: t }; }
      if (!r.ok) throw new Error(j.error || (r.status + ' ' + r.statusText));
      return j;
    }));
  }

  function template() {
    const th = (...names) => h('thead', null, h('tr', null, names.map((n) => h('th', null, n))));
    return [
      h('p', { class: 'muted' }, 'Outside engines whose results are mixed into searches that federate (resource=global, or ' +
        'federated=true), each bounded by its timeout and size cap. The query is sent to them in plain text.'),
      h('table', { class: 'table fed-sources' }, th('on', 'name', 'kind', 'URL template', 'timeout', 'weight', ''), h('tbody')),
      h('form', { class: 'row-form fed-add' },
        h('input', { name: 'name', placeholder: 'name', 'aria-label': 'source name', required: '', pattern: '[A-Za-z0-9][A-Za-z0-9._-]{0,39}' }),
        h('select', { name: 'kind', 'aria-label': 'kind' }, KINDS.map((k) => h('option', null, k))),
        h('input', { name: 'url', placeholder: 'http://host/yacysearch.json?query={query}&maximumRecords={count}', 'aria-label': 'URL template', required: '' }),
        h('input', { name: 'timeout', value: '2s', 'aria-label': 'timeout', size: '5' }),
        h('input', { name: 'weight', value: '1.0', 'aria-label': 'weight', size: '4' }),
        h('button', { type: 'submit' }, 'Add source')),
      h('h3', null, 'Try a query'),
      h('form', { class: 'row-form fed-try' },
        h('input', { name: 'q', placeholder: 'a query', 'aria-label': 'query', required: '' }),
        h('button', { type: 'submit' }, 'Search the sources')),
      h('table', { class: 'table fed-report' }, th('source', 'status', 'ms', 'results', 'error'), h('tbody')),
      h('p', { class: 'fed-flash', hidden: true })];
  }

  function say(el, msg, isError) {
    const f = el.querySelector('.fed-flash');
    f.hidden = false;
    f.className = 'fed-flash flash' + (isError ? ' error' : '');
    f.textContent = msg;
  }

  function draw() {
    panels.forEach((el) => {
      fill(el.querySelector('.fed-sources tbody'), sources.map((s, i) =>
        h('tr', { class: 'fed-source', dataset: { name: s.name } },
          h('td', null, h('input', { type: 'checkbox', dataset: { toggle: i }, checked: !!s.enabled, 'aria-label': 'enabled' })),
          h('td', null, s.name), h('td', null, s.kind), h('td', null, h('code', null, s.url)), h('td', null, s.timeout),
          h('td', null, s.weight), h('td', null, h('button', { type: 'button', dataset: { remove: i } }, 'remove')))));
    });
  }

  function save(next, el, what) {
    return api('PUT', '/api/federation', { sources: next })
      .then((j) => { sources = j.sources; draw(); say(el, what + ' (' + sources.length + ' sources).'); })
      .catch((e) => say(el, e.message, true));
  }

  function mount(el) {
    if (el.dataset.federationMounted) return;
    el.dataset.federationMounted = '1';
    fill(el, template());
    panels.push(el);
    el.querySelector('.fed-add').addEventListener('submit', (ev) => {
      ev.preventDefault();
      const f = ev.target;
      const s = { name: f.elements['name'].value.trim(), kind: f.elements['kind'].value, url: f.elements['url'].value.trim(),
        timeout: f.elements['timeout'].value.trim() || '2s',
        weight: Number(f.elements['weight'].value || 1), enabled: true };
      save(sources.concat([s]), el, 'Source ' + s.name + ' added').then(() => { f.elements['name'].value = ''; f.elements['url'].value = ''; });
    });
    el.querySelector('.fed-sources').addEventListener('click', (ev) => {
      const t = ev.target;
      if (t.dataset.remove !== undefined) {
        const i = Number(t.dataset.remove);
        save(sources.filter((_, k) => k !== i), el, 'Source ' + sources[i].name + ' removed');
      } else if (t.dataset.toggle !== undefined) {
        const i = Number(t.dataset.toggle);
        const next = sources.map((s, k) => (k === i ? Object.assign({}, s, { enabled: t.checked }) : s));
        save(next, el, 'Source ' + sources[i].name + (t.checked ? ' enabled' : ' disabled'));
      }
    });
    el.querySelector('.fed-try').addEventListener('submit', (ev) => {
      ev.preventDefault();
      const q = ev.target.q.value.trim();
      api('GET', '/api/search?resource=local&federated=true&count=20&q=' + encodeURIComponent(q)).then((j) => {
        const rows = ((j.network && j.network.sources) || []).filter((s) => s.name !== 'local');
        fill(el.querySelector('.fed-report tbody'), rows.map((s) => h('tr', { class: 'fed-status', dataset: { status: s.status } },
          h('td', null, s.name), h('td', null, s.status), h('td', null, s.ms), h('td', null, s.results), h('td', null, s.error || ''))));
      }).catch((e) => say(el, e.message, true));
    });
    load();
  }

  function load() {
    return api('GET', '/api/federation').then((j) => { sources = j.sources || []; draw(); })
      .catch((e) => panels.forEach((el) => say(el, e.message, true)));
  }

  window.PeerdexFederation = { mount, load };
  const auto = () => document.querySelectorAll('[data-federation-panel]').forEach(mount);
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', auto);
  else auto();
})();
