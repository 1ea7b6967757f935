// Peerdex operator's console: plain JS over the admin APIs (DESIGN.md §6). One page per #hash.
(function () {
  'use strict';
  const $ = (id) => document.getElementById(id);
  // every value from the API (titles, URLs, peer ids, rules) goes into the page as text (dom.js), never as HTML
  const { h, svg: svgEl, fill } = window.PeerdexDom;
  const td = (...c) => h('td', null, ...c);
  const timers = [];

  // Every call sends the console's marker header; writes are also same-origin (the server refuses other Origins).
  function api(method, path, body, raw) {
    const opts = { method, headers: { 'X-Peerdex-Console': '1' } };
    if (body !== undefined) {
      opts.headers['Content-Type'] = raw ? 'text/plain' : 'application/json';
      opts.body = raw ? body : JSON.stringify(body);
    }
    return fetch(path, opts).then((r) => r.text().then((t) => {
      let j;
      try { j = t ? JSON.parse(t) : {}; } catch (e) { j = { text: t }; }
      if (!r.ok) throw new Error(j.error && j.error.msg ? j.error.msg : (j.error || r.status + ' ' + r.statusText));
      return j;
    }));
  }

  function flash(msg, isError) {
    const f = $('flash');
    f.hidden = false;
    f.className = 'flash' + (isError ? ' error' : '');
    f.textContent = msg;
  }
  const fail = (e) => flash(e.message || String(e), true);

  function fmtBytes(n) {
    if (n == null) return '–';
    const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let i = 0;
    while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
    return n.toFixed(i ? 1 : 0) + ' ' + u[i];
  }

  // ---- pages --------------------------------------------------------------------------------------------------
  const pages = { dashboard: dashboard, crawl: crawl, index: () => {}, blacklist: blacklist, ranking: ranking, network: network,
    settings: settings, federation: () => window.PeerdexFederation && PeerdexFederation.load() };

  function show() {
    // #page or #page/ARG (#crawl/ID opens one crawl's monitor)
    const [name, arg] = (location.hash || '#dashboard').slice(1).split('/');
    const page = pages[name] ? name : 'dashboard';
    while (timers.length) clearInterval(timers.pop());
    document.querySelectorAll('.page').forEach((p) => { p.hidden = p.id !== 'page-' + page; });
    document.querySelectorAll('.tabs a').forEach((a) => a.classList.toggle('active', a.dataset.page === page));
    $('flash').hidden = true;
    document.body.dataset.page = page;
    pages[page](arg ? decodeURIComponent(arg) : undefined);
  }
  window.addEventListener('hashchange', show);

  // ---- status dashboard -----------------------------------------------------------------------------------------
  function dashboard() {
    const load = () => api('GET', '/api/status').then((s) => {
      $('peer-label').textContent = s.peerId + ' · ' + s.network + ' · ' + s.mode;
      const r = s.dht && s.dht.replication ? s.dht.replication : { outboxPostings: 0, outboxEntries: 0 };
      const cards = [
        ['documents', s.documents], ['postings', s.postings], ['peers', s.peers],
        ['pages/min', s.pagesPerMinute], ['queries/min', s.queriesPerMinute],
        ['heap', fmtBytes(s.heapUsedBytes) + ' / ' + fmtBytes(s.heapMaxBytes)], ['disk', fmtBytes(s.diskUsedBytes)],
        ['replication backlog', r.outboxPostings + (r.outboxEntries ? ' (' + r.outboxEntries + ' batches)' : '')],
        ['uptime', Math.round(s.uptime / 60) + ' min'], ['version', s.version]];
      fill($('cards'), cards.map(([k, v]) => h('div', { class: 'card', dataset: { key: k } },
        h('div', { class: 'v' }, v), h('div', { class: 'k' }, k))));
      $('status-line').textContent = 'partitions ' + s.partitions + ', redundancy ' + s.redundancy + ', position ' + s.position;
    }).catch(fail);
    load();
    loadRates();
    loadCrawls();
    timers.push(setInterval(load, 3000));
    timers.push(setInterval(loadRates, 10000));
    timers.push(setInterval(loadCrawls, 3000));
  }

  // pages/min and queries/min in each minute of the last hour (/api/status/rates), drawn by plot.js
  function loadRates() {
    return api('GET', '/api/status/rates').then((r) => {
      const series = (values) => (values || []).map((v, i) => [i, v]);
      const o = { xMax: 59, xStart: '60 min ago', xEnd: 'now' };
      window.PeerdexPlot.draw($('plot-pages'), series(r.pages), Object.assign({ label: 'pages/min' }, o));
      window.PeerdexPlot.draw($('plot-queries'), series(r.queries), Object.assign({ label: 'queries/min' }, o));
    }).catch(fail);
  }

  // the running crawls, each a link to its monitor on the crawl page
  function loadCrawls() {
    return api('GET', '/api/crawl').then((j) => {
      const running = (j.crawls || []).filter((c) => c.state === 'running');
      fill($('active-crawls'), running.length ? running.map((c) => h('li', { class: 'active-crawl', dataset: { id: c.id } },
        h('a', { href: '#crawl/' + encodeURIComponent(c.id) }, c.url || c.id), ' ',
        h('span', { class: 'muted' }, (c.fetched || 0) + ' fetched, ' + (c.queued || 0) + ' queued, ' +
          Number(c.pagesPerMinute || 0).toFixed(1) + ' pages/min')))
        : h('li', { class: 'muted' }, 'no crawl is running'));
    }).catch(() => fill($('active-crawls'), h('li', { class: 'muted' }, 'crawls unavailable')));
  }

  // ---- crawl console: crawl.js ------------------------------------------------------------------------------------
  function crawl(id) {
    window.PeerdexCrawl.show((t) => timers.push(t), id);
  }

  // ---- index browser ----------------------------------------------------------------------------------------------
  $('word-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const w = $('word').value.trim();
    api('GET', '/api/index/word/' + encodeURIComponent(w)).then((j) => {
      $('word-summary').textContent = (j.word ? '"' + j.word + '" ' : '') + 'word hash ' + j.wordHash + ': ' + j.count + ' postings';
      fill(document.querySelector('#postings tbody'), j.postings.map((p) => h('tr', { class: 'posting' },
        td(p.url || ''), td(h('a', { href: '#index', dataset: { open: p.urlHash } }, p.urlHash)), td(p.hitCount),
        td((p.flags || []).join(' ')), td(p.holder || 'here'))));
    }).catch(fail);
  });

  $('postings').addEventListener('click', (ev) => {
    const h = ev.target.dataset.open;
    if (!h) return;
    ev.preventDefault();
    $('urlhash').value = h;
    openUrl(h);
  });

  function openUrl(hash) {
    api('GET', '/api/index/url/' + encodeURIComponent(hash)).then((j) => {
      const m = j.metadata || {};
      $('url-detail').hidden = false;
      $('url-detail').dataset.hash = hash;
      $('url-title').textContent = m.title || m.url || hash;
      const fields = [['URL', m.url], ['hash', j.urlHash], ['language', m.language], ['MIME type', m.mimeType], ['size', fmtBytes(m.size)],
        ['words', j.words], ['text length', j.textLength], ['author', m.author], ['holder', m.holder || 'this peer'],
        ['fetched', m.fetched ? new Date(m.fetched).toISOString() : '']];
      fill($('url-meta'), fields.map(([k, v]) => [h('dt', null, k), h('dd', null, v)]));
      const e = $('url-edit');
      e.title.value = m.title || '';
      e.description.value = m.description || '';
      e.author.value = m.author || '';
      e.keywords.value = (m.keywords || []).join(', ');
      e.language.value = m.language || '';
      fill($('url-history'), (j.history || []).map((e) => h('li', null, new Date(e.time || e.at || 0).toISOString() + ' ' +
        (e.event || e.kind || '') + ' ' + (e.status || '') + ' ' + (e.detail || e.message || ''))));
    }).catch(fail);
  }

  $('url-edit').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const h = $('url-detail').dataset.hash;
    const e = ev.target;
    const body = { title: e.title.value, description: e.description.value, author: e.author.value,
      keywords: e.keywords.value.split(',').map((k) => k.trim()).filter(Boolean), language: e.language.value.trim() };
    api('PUT', '/api/index/url/' + encodeURIComponent(h), body)
      .then(() => { flash('Saved the metadata of ' + h + '.'); openUrl(h); }).catch(fail);
  });

  $('url-form').addEventListener('submit', (ev) => { ev.preventDefault(); openUrl($('urlhash').value.trim()); });

  $('url-delete').addEventListener('click', () => {
    const h = $('url-detail').dataset.hash;
    api('DELETE', '/api/index/url/' + encodeURIComponent(h)).then((j) => {
      flash('Deleted ' + h + ' (' + j.deletedPostings + ' postings).');
      $('url-detail').hidden = true;
      document.querySelectorAll('#postings a[data-open]').forEach((a) => { if (a.dataset.open === h) a.closest('tr').remove(); });
    }).catch(fail);
  });

  $('host-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const h = $('host-delete').value.trim();
    if (!window.confirm('Delete every document of ' + h + ' from this peer\'s index?')) return;
    api('DELETE', '/api/index/host/' + encodeURIComponent(h))
      .then((j) => flash('Deleted ' + j.deletedDocuments + ' documents (' + j.deletedPostings + ' postings) of ' + j.host + '.')).catch(fail);
  });

  // ---- blacklist editor -------------------------------------------------------------------------------------------
  let rules = [];
  function blacklist() {
    api('GET', '/api/blacklist').then((j) => { rules = j.rules; drawRules(); }).catch(fail);
  }
  function drawRules() {
    fill(document.querySelector('#rules tbody'), rules.map((r, i) => h('tr', { class: 'rule' },
      td(r.scope), td(h('code', null, r.host)), td(h('code', null, r.path)),
      td(h('button', { type: 'button', dataset: { remove: i } }, 'remove')))));
  }
  function saveRules(next) {
    return api('PUT', '/api/blacklist', { rules: next }).then((j) => { rules = j.rules; drawRules(); flash('Blacklist saved (' + rules.length + ' rules).'); });
  }
  $('rule-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    saveRules(rules.concat([{ scope: $('rule-scope').value, host: $('rule-host').value.trim(), path: $('rule-path').value.trim() || '.*' }]))
      .then(() => { $('rule-host').value = ''; $('rule-path').value = ''; }).catch(fail);
  });
  $('rules').addEventListener('click', (ev) => {
    const i = ev.target.dataset.remove;
    if (i !== undefined) saveRules(rules.filter((_, k) => k !== Number(i))).catch(fail);
  });
  $('test-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    api('GET', '/api/blacklist/test?url=' + encodeURIComponent($('test-url').value.trim())).then((j) => {
      const hits = Object.entries(j.scopes).filter(([, r]) => r);
      fill($('test-result'), hits.length === 0 ? 'Not blocked in any scope.'
        : ['Blocked in ', hits.map(([sc, r], i) => [i ? ', ' : '', h('b', null, sc), ' by ', h('code', null, r.host + '/' + r.path)])]);
      $('test-result').dataset.blocked = String(j.blocked);
    }).catch(fail);
  });
  $('import-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    api('POST', '/api/blacklist/import?scopes=' + encodeURIComponent($('import-scopes').value), $('import-text').value, true)
      .then((j) => { flash('Imported ' + j.imported + ' rules.'); blacklist(); }).catch(fail);
  });

  // ---- ranking profile editor -------------------------------------------------------------------------------------
  let loaded = null;
  let saveTimer = null;
  function ranking() {
    api('GET', '/api/ranking').then((p) => {
      loaded = p;
      drawSliders(p);
      markUnsaved(false);
      preview();
      loadProfiles().catch(fail);
    }).catch(fail);
  }
  function drawSliders(p) {
    $('profile-name').value = p.name;
    fill($('sliders'), p.factors.map((f) => {
      const v = p.coefficients[f.key];
      return h('label', { class: 'slider', title: f.description }, h('span', null, f.key),
        h('input', { type: 'range', min: '-20', max: '20', step: '0.1', dataset: { factor: f.key }, value: v }),
        h('output', null, v));
    }));
  }
  function currentProfile() {
    const c = {};
    document.querySelectorAll('#sliders input[data-factor]').forEach((i) => { c[i.dataset.factor] = Number(i.value); });
    return { name: $('profile-name').value || 'custom', coefficients: c };
  }
  function markUnsaved(unsaved) {
    document.body.dataset.rankingUnsaved = String(unsaved);
    $('ranking-state').textContent = unsaved ? 'Unsaved changes: the preview shows them; the peer still ranks with the active profile.'
      : 'The preview ranks with the sliders as they are; nothing is saved until you save.';
    $('ranking-state').className = unsaved ? 'unsaved' : 'muted';
  }
  $('sliders').addEventListener('input', (ev) => {
    const i = ev.target;
    if (!i.dataset.factor) return;
    i.nextElementSibling.textContent = i.value;
    markUnsaved(true);
    clearTimeout(saveTimer);
    saveTimer = setTimeout(preview, 250);
  });
  $('ranking-save').addEventListener('click', () => {
    api('PUT', '/api/ranking', currentProfile()).then((p) => {
      loaded = Object.assign({ factors: loaded ? loaded.factors : p.factors }, p);
      markUnsaved(false);
      flash('Saved ' + p.name + ' as the active profile.');
    }).catch(fail);
  });
  $('ranking-revert').addEventListener('click', () => {
    if (!loaded) return;
    drawSliders(loaded);
    markUnsaved(false);
    preview();
  });
  function loadProfiles() {
    return api('GET', '/api/ranking/profiles').then((j) => {
      fill($('profile-list'), j.profiles.map((p) => h('option', { selected: p.name === j.active }, p.name)));
    });
  }
  $('profile-save').addEventListener('click', () => {
    const p = currentProfile();
    api('PUT', '/api/ranking/profiles/' + encodeURIComponent(p.name), p)
      .then(() => { flash('Saved profile ' + p.name + '.'); return loadProfiles(); }).catch(fail);
  });
  $('profile-apply').addEventListener('click', () => {
    const name = $('profile-list').value;
    if (!name) return;
    api('POST', '/api/ranking/profiles/' + encodeURIComponent(name) + '/apply')
      .then((p) => { loaded = p; drawSliders(p); markUnsaved(false); preview(); flash('Applied profile ' + name + '.'); }).catch(fail);
  });
  $('ranking-reset').addEventListener('click', () => {
    api('POST', '/api/ranking/reset').then((p) => { loaded = p; drawSliders(p); markUnsaved(false); preview(); flash('Reset to the default profile.'); }).catch(fail);
  });
  let previewSeq = 0;
  // the factors that moved this result most, signed: what the sliders do to it
  function explain(x) {
    if (!x || !x.factors) return null;
    const parts = Object.entries(x.factors).filter(([, p]) => Math.abs(p.contribution) > 1e-9)
      .sort((a, b) => Math.abs(b[1].contribution) - Math.abs(a[1].contribution)).slice(0, 4);
    return h('div', { class: 'explain' }, parts.map(([k, p]) => h('span', { class: 'factor' + (p.contribution < 0 ? ' neg' : ''),
      dataset: { factor: k }, title: 'raw ' + Number(p.raw).toFixed(3) + ', normalized ' + Number(p.normalized).toFixed(3) +
        ' × ' + p.coefficient }, k + ' ' + (p.contribution >= 0 ? '+' : '') + Number(p.contribution).toFixed(2))));
  }
  function preview() {
    const q = $('preview-q').value.trim();
    if (!q) return;
    document.body.dataset.preview = 'loading';
    const seq = ++previewSeq;
    api('POST', '/api/ranking/preview', { q: q, count: 10, profile: currentProfile() }).then((d) => {
      if (seq !== previewSeq) return; // a newer slider position is being previewed
      fill($('preview'), d.results.map((r) => h('li', { class: 'preview-item', dataset: { url: r.url } }, r.title, ' ',
        h('span', { class: 'muted' }, r.url + ' · ' + Number(r.score).toFixed(3)), explain(r.explain))));
      document.body.dataset.preview = 'done';
    }).catch(fail);
  }
  $('preview-form').addEventListener('submit', (ev) => { ev.preventDefault(); preview(); });

  // ---- network view -----------------------------------------------------------------------------------------------
  const MAX_POS = Math.pow(2, 63);
  let wordPlacement = null;
  $('ring-word-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const w = $('ring-word').value.trim();
    if (!w) { wordPlacement = null; $('word-partitions').hidden = true; network(); return; }
    api('GET', '/api/peers/word/' + encodeURIComponent(w)).then((j) => {
      wordPlacement = j;
      $('word-partitions').hidden = false;
      fill(document.querySelector('#word-partitions tbody'), j.partitions.map((p) => h('tr', { class: 'word-partition' },
        td(p.partition), td(p.position), td(p.holders[0] || ''), td(p.holders.slice(1).join(', ')))));
      while (timers.length) clearInterval(timers.pop());
      network();
    }).catch(fail);
  });
  let lastTraffic = null;
  // messages and bytes per peer since the previous poll (the "last interval"), from the cumulative counters
  function trafficDeltas(now) {
    const out = {};
    for (const [id, c] of Object.entries(now.peers || {})) {
      const b = lastTraffic && lastTraffic.peers[id] ? lastTraffic.peers[id] : null;
      out[id] = { messages: c.sentMessages + c.receivedMessages - (b ? b.sentMessages + b.receivedMessages : 0),
        bytes: c.sentBytes + c.receivedBytes - (b ? b.sentBytes + b.receivedBytes : 0) };
    }
    return out;
  }
  function trafficCells(c, d) {
    if (!c) return [td('–'), td('–'), td('–')];
    return [h('td', { class: 'sent', dataset: { messages: c.sentMessages } }, c.sentMessages + ' · ' + fmtBytes(c.sentBytes)),
      h('td', { class: 'received', dataset: { messages: c.receivedMessages } }, c.receivedMessages + ' · ' + fmtBytes(c.receivedBytes)),
      td(d && d.messages > 0 ? h('span', { class: 'badge live' }, d.messages + ' msg · ' + fmtBytes(d.bytes)) : 'idle')];
  }
  function network() {
    const load = () => Promise.all([api('GET', '/api/peers'), api('GET', '/api/peers/traffic')]).then(([j, t]) => {
      const peers = j.peers || [];
      const traffic = t.peers || {};
      const delta = lastTraffic ? trafficDeltas(t) : {};
      const seconds = lastTraffic ? Math.max(0.001, (t.at - lastTraffic.at) / 1000) : 0;
      lastTraffic = t;
      const svg = [svgEl('circle', { r: 120, fill: 'none', stroke: '#cbd5e1', 'stroke-width': 2 })];
      const at = (p) => {
        const a = 2 * Math.PI * (Number(p.position) / MAX_POS) - Math.PI / 2;
        return [120 * Math.cos(a), 120 * Math.sin(a)];
      };
      const self = peers.find((p) => p.self);
      if (self) {
        const [sx, sy] = at(self);
        for (const p of peers) {
          const d = delta[p.peerId];
          if (p.self || !traffic[p.peerId]) continue;
          const [x, y] = at(p);
          const live = d && d.messages > 0;
          const width = live ? Math.min(6, 1 + Math.log10(1 + d.bytes) / 1.5) : 1;
          svg.push(svgEl('line', { class: 'traffic' + (live ? ' live' : ''), 'data-peer': p.peerId, x1: sx, y1: sy, x2: x, y2: y,
            'stroke-width': width.toFixed(1) }, svgEl('title', null, p.peerId + ': ' +
            (live ? d.messages + ' messages, ' + fmtBytes(d.bytes) + ' in ' + seconds.toFixed(0) + ' s' : 'idle'))));
          if (live) svg.push(svgEl('text', { class: 'badge', x: (sx + x) / 2 - 8, y: (sy + y) / 2 }, d.messages));
        }
      }
      for (const p of peers) {
        const a = 2 * Math.PI * (Number(p.position) / MAX_POS) - Math.PI / 2;
        const x = 120 * Math.cos(a), y = 120 * Math.sin(a);
        for (const r of p.ranges || []) {
          // one range per point of the peer (its virtual positions): from the point before to this one
          const a0 = 2 * Math.PI * (Number(r.fromExclusive) / MAX_POS) - Math.PI / 2;
          const a1 = 2 * Math.PI * (Number(r.toInclusive) / MAX_POS) - Math.PI / 2;
          const large = r.share > 0.5 ? 1 : 0;
          if (r.share >= 0.999) svg.push(svgEl('circle', { r: 132, fill: 'none', stroke: '#93c5fd', 'stroke-width': 6 }));
          else svg.push(svgEl('path', { d: 'M ' + 132 * Math.cos(a0) + ' ' + 132 * Math.sin(a0) + ' A 132 132 0 ' + large + ' 1 ' +
            132 * Math.cos(a1) + ' ' + 132 * Math.sin(a1), fill: 'none', stroke: '#93c5fd', 'stroke-width': 6, opacity: '.7' }));
        }
        svg.push(svgEl('circle', { class: 'peer ' + p.role + (p.self ? ' self' : ''), cx: x, cy: y, r: 7 }, svgEl('title', null, p.peerId + ' ' + p.role)));
        svg.push(svgEl('text', { x: x * 1.22 - 18, y: y * 1.22 + 3 }, String(p.peerId).slice(0, 6) + (p.role === 'passive' ? ' (passive)' : '')));
      }
      if (wordPlacement) {
        for (const p of wordPlacement.partitions) {
          const a = 2 * Math.PI * (Number(p.position) / MAX_POS) - Math.PI / 2;
          svg.push(svgEl('line', { class: 'partition', x1: 100 * Math.cos(a), y1: 100 * Math.sin(a), x2: 112 * Math.cos(a), y2: 112 * Math.sin(a),
            stroke: '#dc2626', 'stroke-width': 2 }, svgEl('title', null, 'partition ' + p.partition + ': ' + p.holders.join(', '))));
        }
      }
      if (peers.some((p) => p.role === 'passive')) peers.sort((a, b) => (a.role === 'passive') - (b.role === 'passive'));
      svg.push(svgEl('text', { x: -30, y: 4 }, peers.length + ' peer' + (peers.length === 1 ? '' : 's')));
      fill($('ring'), svg);
      fill(document.querySelector('#peers tbody'), peers.map((p) => h('tr', { class: 'peer-row ' + p.role },
        td(p.peerId + (p.self ? ' (this peer)' : '')), td(p.role),
        h('td', { title: p.position }, (Number(p.position) / MAX_POS).toFixed(4)),
        td((p.ranges && p.ranges.length) ? (100 * p.ranges.reduce((t, r) => t + r.share, 0)).toFixed(1) + '%' : '–'),
        td(p.http || p.address),
        td(p.lastSeen ? new Date(p.lastSeen).toISOString().slice(11, 19) : ''), trafficCells(traffic[p.peerId], delta[p.peerId]))));
    }).catch(fail);
    load();
    timers.push(setInterval(load, 3000));
  }

  // ---- settings -------------------------------------------------------------------------------------------------
  const MIB = 1024 * 1024;
  function settings() {
    api('GET', '/api/settings').then(drawSettings).catch(fail);
  }
  function drawSettings(s) {
    const f = $('settings-form');
    f.contentTypes.value = s.contentTypes.join('\n');
    f.writeBufferBytes.value = s.memory.writeBufferBytes / MIB;
    f.cacheBytes.value = s.memory.cacheBytes / MIB;
    f.maxPageBytes.value = s.memory.maxPageBytes / MIB;
    f.depth.value = s.crawl.depth;
    f.minDelayMs.value = s.crawl.minDelayMs;
    f.maxPages.value = s.crawl.maxPages;
    f.fromIndex.checked = s.suggestions.fromIndex;
    f.minFrequency.value = s.suggestions.minFrequency;
    f.words.value = s.suggestions.words.join('\n');
    $('settings-running').textContent = 'In use now: write buffer ' + fmtBytes(s.running.writeBufferBytes) + ', cache ' +
      fmtBytes(s.running.cacheBytes) + ', max page ' + fmtBytes(s.running.maxPageBytes) + '.';
    const r = $('settings-restart');
    r.hidden = s.restartRequired.length === 0;
    r.textContent = 'Saved; takes effect when the peer restarts: ' + s.restartRequired.join(', ') + '.';
    document.body.dataset.settings = 'loaded';
  }
  const lines = (t) => t.split(/[\n,]/).map((x) => x.trim()).filter(Boolean);
  $('settings-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const f = ev.target;
    const body = {
      contentTypes: lines(f.contentTypes.value),
      memory: { writeBufferBytes: Math.round(Number(f.writeBufferBytes.value) * MIB), cacheBytes: Math.round(Number(f.cacheBytes.value) * MIB),
        maxPageBytes: Math.round(Number(f.maxPageBytes.value) * MIB) },
      crawl: { depth: Number(f.depth.value), minDelayMs: Number(f.minDelayMs.value), maxPages: Number(f.maxPages.value) },
      suggestions: { fromIndex: f.fromIndex.checked, minFrequency: Number(f.minFrequency.value), words: lines(f.words.value) } };
    api('PUT', '/api/settings', body).then((s) => { drawSettings(s); flash('Settings saved.'); }).catch(fail);
  });
  $('words-file').addEventListener('change', (ev) => {
    const file = ev.target.files[0];
    if (!file) return;
    file.text().then((t) => {
      const f = $('settings-form');
      f.words.value = (f.words.value ? f.words.value + '\n' : '') + t.trim();
      flash('Loaded ' + lines(t).length + ' words from ' + file.name + '; save to use them.');
    });
  });
  $('suggest-form').addEventListener('submit', (ev) => ev.preventDefault());
  $('suggest-q').addEventListener('input', () => {
    const q = $('suggest-q').value;
    fetch('/suggest.json?query=' + encodeURIComponent(q)).then((r) => r.json()).then((j) => {
      if ($('suggest-q').value !== q) return;
      fill($('suggest-list'), (j[1] || []).map((w) => h('li', { class: 'suggestion' }, w)));
    }).catch(fail);
  });

  show();
})();
