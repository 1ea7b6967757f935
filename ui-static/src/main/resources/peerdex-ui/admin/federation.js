// Peerdex console: federated sources (docs/federation.md) over GET/PUT /api/federation. Self-contained: it fills
// every element with a data-federation-panel attribute, and exposes PeerdexFederation.mount(el) / .load() for a
// console page that wants to (re)load it when shown.
(function () {
  'use strict';
  const esc = (s) => String(s == null ? '' : s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
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
    return '<p class="muted">Outside engines whose results are mixed into searches that federate (resource=global, or ' +
      'federated=true), each bounded by its timeout and size cap. The query is sent to them in plain text.</p>' +
      '<table class="table fed-sources"><thead><tr><th>on</th><th>name</th><th>kind</th><th>URL template</th><th>timeout</th>' +
      '<th>weight</th><th></th></tr></thead><tbody></tbody></table>' +
      '<form class="row-form fed-add">' +
      '<input name="name" placeholder="name" aria-label="source name" required pattern="[A-Za-z0-9][A-Za-z0-9._-]{0,39}">' +
      '<select name="kind" aria-label="kind">' + KINDS.map((k) => '<option>' + k + '</option>').join('') + '</select>' +
      '<input name="url" placeholder="http://host/yacysearch.json?query={query}&amp;maximumRecords={count}" aria-label="URL template" required>' +
      '<input name="timeout" value="2s" aria-label="timeout" size="5">' +
      '<input name="weight" value="1.0" aria-label="weight" size="4">' +
      '<button type="submit">Add source</button></form>' +
      '<h3>Try a query</h3><form class="row-form fed-try"><input name="q" placeholder="a query" aria-label="query" required>' +
      '<button type="submit">Search the sources</button></form><table class="table fed-report"><thead><tr><th>source</th>' +
      '<th>status</th><th>ms</th><th>results</th><th>error</th></tr></thead><tbody></tbody></table>' +
      '<p class="fed-flash" hidden></p>';
  }

  function say(el, msg, isError) {
    const f = el.querySelector('.fed-flash');
    f.hidden = false;
    f.className = 'fed-flash flash' + (isError ? ' error' : '');
    f.textContent = msg;
  }

  function draw() {
    panels.forEach((el) => {
      el.querySelector('.fed-sources tbody').innerHTML = sources.map((s, i) =>
        '<tr class="fed-source" data-name="' + esc(s.name) + '"><td><input type="checkbox" data-toggle="' + i + '"' +
        (s.enabled ? ' checked' : '') + ' aria-label="enabled"></td><td>' + esc(s.name) + '</td><td>' + esc(s.kind) +
        '</td><td><code>' + esc(s.url) + '</code></td><td>' + esc(s.timeout) + '</td><td>' + esc(s.weight) +
        '</td><td><button type="button" data-remove="' + i + '">remove</button></td></tr>').join('');
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
    el.innerHTML = template();
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
        el.querySelector('.fed-report tbody').innerHTML = rows.map((s) => '<tr class="fed-status" data-status="' + esc(s.status) +
          '"><td>' + esc(s.name) + '</td><td>' + esc(s.status) + '</td><td>' + esc(s.ms) + '</td><td>' + esc(s.results) +
          '</td><td>' + esc(s.error || '') + '</td></tr>').join('');
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
