// Peerdex operator's console: plain JS over the admin APIs (DESIGN.md §6). One page per #hash.
(function () {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s == null ? '' : s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
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
  const pages = { dashboard: dashboard, crawl: crawl, index: () => {}, blacklist: blacklist, ranking: ranking, network: network };

  function show() {
    const name = (location.hash || '#dashboard').slice(1);
    const page = pages[name] ? name : 'dashboard';
    while (timers.length) clearInterval(timers.pop());
    document.querySelectorAll('.page').forEach((p) => { p.hidden = p.id !== 'page-' + page; });
    document.querySelectorAll('.tabs a').forEach((a) => a.classList.toggle('active', a.dataset.page === page));
    $('flash').hidden = true;
    document.body.dataset.page = page;
    pages[page]();
  }
  window.addEventListener('hashchange', show);

  // ---- status dashboard -----------------------------------------------------------------------------------------
  function dashboard() {
    const load = () => api('GET', '/api/status').then((s) => {
      $('peer-label').textContent = s.peerId + ' · ' + s.network + ' · ' + s.mode;
      const repl = s.dht && s.dht.replication ? s.dht.replication.outboxPostings : 0;
      const cards = [
        ['documents', s.documents], ['postings', s.postings], ['peers', s.peers],
        ['pages/min', s.pagesPerMinute], ['heap', fmtBytes(s.heapUsedBytes) + ' / ' + fmtBytes(s.heapMaxBytes)],
        ['replication backlog', repl], ['uptime', Math.round(s.uptime / 60) + ' min'], ['version', s.version]];
      $('cards').innerHTML = cards.map(([k, v]) => '<div class="card" data-key="' + esc(k) + '"><div class="v">' + esc(v) +
        '</div><div class="k">' + esc(k) + '</div></div>').join('');
      $('status-line').textContent = 'partitions ' + s.partitions + ', redundancy ' + s.redundancy + ', position ' + s.position;
    }).catch(fail);
    load();
    timers.push(setInterval(load, 3000));
  }

  // ---- crawl console ----------------------------------------------------------------------------------------------
  function crawl() {
    const load = () => api('GET', '/api/crawl').then((j) => {
      const rows = (j.crawls || []).map((c) => {
        const total = Math.max(1, c.queued + c.fetched);
        return '<tr data-id="' + esc(c.id) + '"><td>' + esc(c.id) + '</td><td>' + esc(c.state) + (c.paused ? ' (paused: ' + esc(c.error) + ')' : '') + '</td><td><div class="bar">' +
          '<span class="indexed" style="width:' + (100 * c.indexed / total) + '%"></span>' +
          '<span class="fetched" style="width:' + (100 * Math.max(0, c.fetched - c.indexed) / total) + '%"></span></div></td>' +
          '<td>' + c.queued + '</td><td>' + c.fetched + '</td><td>' + c.indexed + '</td><td>' + c.skipped + '</td><td>' + c.errors +
          '</td><td>' + Number(c.pagesPerMinute || 0).toFixed(1) + '</td><td>' +
          (c.state === 'running' ? '<button type="button" data-stop="' + esc(c.id) + '">stop</button>' : '') + '</td></tr>';
      });
      document.querySelector('#crawl-table tbody').innerHTML = rows.join('');
    }).catch(fail);
    load();
    timers.push(setInterval(load, 2000));
  }

  $('crawl-start').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const f = ev.target;
    const body = { url: f.url.value, depth: Number(f.depth.value), range: f.range.value,
      maxPages: Number(f.maxPages.value), maxPagesPerHost: Number(f.maxPagesPerHost.value),
      minDelayMs: Number(f.minDelayMs.value), followQuery: f.followQuery.checked };
    if (f.mustMatch.value) body.mustMatch = f.mustMatch.value;
    if (f.mustNotMatch.value) body.mustNotMatch = f.mustNotMatch.value;
    if (f.recrawlAfter.value) body.recrawlAfter = f.recrawlAfter.value;
    if (f.contentTypes.value) body.contentTypes = f.contentTypes.value.split(',').map((s) => s.trim()).filter(Boolean);
    api('POST', '/api/crawl', body).then((j) => { flash('Crawl ' + j.id + ' started.'); crawl(); }).catch(fail);
  });

  $('crawl-table').addEventListener('click', (ev) => {
    const id = ev.target.dataset.stop;
    if (id) api('DELETE', '/api/crawl/' + encodeURIComponent(id)).then(() => flash('Crawl ' + id + ' stopped.')).catch(fail);
  });

  // ---- index browser ----------------------------------------------------------------------------------------------
  $('word-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const w = $('word').value.trim();
    api('GET', '/api/index/word/' + encodeURIComponent(w)).then((j) => {
      $('word-summary').textContent = (j.word ? '"' + j.word + '" ' : '') + 'word hash ' + j.wordHash + ': ' + j.count + ' postings';
      document.querySelector('#postings tbody').innerHTML = j.postings.map((p) =>
        '<tr class="posting"><td>' + esc(p.url || '') + '</td><td><a href="#index" data-open="' + esc(p.urlHash) + '">' + esc(p.urlHash) +
        '</a></td><td>' + p.hitCount + '</td><td>' + esc(p.flags.join(' ')) + '</td><td>' + esc(p.holder || 'here') + '</td></tr>').join('');
    }).catch(fail);
  });

  $('postings').addEventListener('click', (ev) => {
    const h = ev.target.dataset.open;
    if (!h) return;
    ev.preventDefault();
    $('urlhash').value = h;
    openUrl(h);
  });

  function openUrl(h) {
    api('GET', '/api/index/url/' + encodeURIComponent(h)).then((j) => {
      const m = j.metadata || {};
      $('url-detail').hidden = false;
      $('url-detail').dataset.hash = h;
      $('url-title').textContent = m.title || m.url || h;
      const fields = [['URL', m.url], ['hash', j.urlHash], ['language', m.language], ['MIME type', m.mimeType], ['size', fmtBytes(m.size)],
        ['words', j.words], ['text length', j.textLength], ['author', m.author], ['holder', m.holder || 'this peer'],
        ['fetched', m.fetched ? new Date(m.fetched).toISOString() : '']];
      $('url-meta').innerHTML = fields.map(([k, v]) => '<dt>' + esc(k) + '</dt><dd>' + esc(v) + '</dd>').join('');
      $('url-history').innerHTML = (j.history || []).map((e) => '<li>' + esc(new Date(e.time || e.at || 0).toISOString()) + ' ' +
        esc(e.event || e.kind || '') + ' ' + esc(e.status || '') + ' ' + esc(e.detail || e.message || '') + '</li>').join('');
    }).catch(fail);
  }

  $('url-form').addEventListener('submit', (ev) => { ev.preventDefault(); openUrl($('urlhash').value.trim()); });

  $('url-delete').addEventListener('click', () => {
    const h = $('url-detail').dataset.hash;
    api('DELETE', '/api/index/url/' + encodeURIComponent(h)).then((j) => {
      flash('Deleted ' + h + ' (' + j.deletedPostings + ' postings).');
      $('url-detail').hidden = true;
      document.querySelectorAll('#postings a[data-open="' + h + '"]').forEach((a) => a.closest('tr').remove());
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
    document.querySelector('#rules tbody').innerHTML = rules.map((r, i) =>
      '<tr class="rule"><td>' + esc(r.scope) + '</td><td><code>' + esc(r.host) + '</code></td><td><code>' + esc(r.path) +
      '</code></td><td><button type="button" data-remove="' + i + '">remove</button></td></tr>').join('');
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
      $('test-result').innerHTML = hits.length === 0 ? 'Not blocked in any scope.'
        : 'Blocked in ' + hits.map(([s, r]) => '<b>' + esc(s) + '</b> by <code>' + esc(r.host + '/' + r.path) + '</code>').join(', ');
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
      loaded = loaded || p;
      drawSliders(p);
      preview();
      loadProfiles().catch(fail);
    }).catch(fail);
  }
  function drawSliders(p) {
    $('profile-name').value = p.name;
    $('sliders').innerHTML = p.factors.map((f) => {
      const v = p.coefficients[f.key];
      return '<label class="slider" title="' + esc(f.description) + '"><span>' + esc(f.key) + '</span>' +
        '<input type="range" min="-20" max="20" step="0.1" data-factor="' + esc(f.key) + '" value="' + v + '">' +
        '<output>' + v + '</output></label>';
    }).join('');
  }
  function currentProfile() {
    const c = {};
    document.querySelectorAll('#sliders input[data-factor]').forEach((i) => { c[i.dataset.factor] = Number(i.value); });
    return { name: $('profile-name').value || 'custom', coefficients: c };
  }
  function saveProfile() {
    return api('PUT', '/api/ranking', currentProfile()).then(() => preview());
  }
  $('sliders').addEventListener('input', (ev) => {
    const i = ev.target;
    if (!i.dataset.factor) return;
    i.nextElementSibling.textContent = i.value;
    clearTimeout(saveTimer);
    saveTimer = setTimeout(() => saveProfile().catch(fail), 250);
  });
  $('profile-name').addEventListener('change', () => saveProfile().catch(fail));
  $('ranking-revert').addEventListener('click', () => {
    if (!loaded) return;
    api('PUT', '/api/ranking', { name: loaded.name, coefficients: loaded.coefficients })
      .then((p) => { drawSliders(Object.assign({ factors: loaded.factors }, p)); preview(); }).catch(fail);
  });
  function loadProfiles() {
    return api('GET', '/api/ranking/profiles').then((j) => {
      $('profile-list').innerHTML = j.profiles.map((p) => '<option' + (p.name === j.active ? ' selected' : '') + '>' + esc(p.name) + '</option>').join('');
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
      .then((p) => { drawSliders(p); preview(); flash('Applied profile ' + name + '.'); }).catch(fail);
  });
  $('ranking-reset').addEventListener('click', () => {
    api('POST', '/api/ranking/reset').then((p) => { drawSliders(p); preview(); flash('Reset to the default profile.'); }).catch(fail);
  });
  function preview() {
    const q = $('preview-q').value.trim();
    if (!q) return;
    document.body.dataset.preview = 'loading';
    api('GET', '/api/search?nav=none&count=10&q=' + encodeURIComponent(q)).then((d) => {
      $('preview').innerHTML = d.results.map((r) => '<li class="preview-item" data-url="' + esc(r.url) + '">' + esc(r.title) +
        ' <span class="muted">' + esc(r.url) + ' · ' + Number(r.score).toFixed(3) + '</span></li>').join('');
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
      document.querySelector('#word-partitions tbody').innerHTML = j.partitions.map((p) => '<tr class="word-partition"><td>' + p.partition +
        '</td><td>' + esc(p.position) + '</td><td>' + esc(p.holders[0] || '') + '</td><td>' + esc(p.holders.slice(1).join(', ')) + '</td></tr>').join('');
      while (timers.length) clearInterval(timers.pop());
      network();
    }).catch(fail);
  });
  function network() {
    const load = () => api('GET', '/api/peers').then((j) => {
      const peers = j.peers || [];
      const svg = ['<circle r="120" fill="none" stroke="#cbd5e1" stroke-width="2"></circle>'];
      for (const p of peers) {
        const a = 2 * Math.PI * (Number(p.position) / MAX_POS) - Math.PI / 2;
        const x = 120 * Math.cos(a), y = 120 * Math.sin(a);
        for (const r of p.ranges || []) {
          const a0 = 2 * Math.PI * (Number(r.fromExclusive) / MAX_POS) - Math.PI / 2;
          const large = r.share > 0.5 ? 1 : 0;
          if (r.share >= 0.999) svg.push('<circle r="132" fill="none" stroke="#93c5fd" stroke-width="6"></circle>');
          else svg.push('<path d="M ' + 132 * Math.cos(a0) + ' ' + 132 * Math.sin(a0) + ' A 132 132 0 ' + large + ' 1 ' +
            132 * Math.cos(a) + ' ' + 132 * Math.sin(a) + '" fill="none" stroke="#93c5fd" stroke-width="6" opacity=".7"></path>');
        }
        svg.push('<circle class="peer ' + esc(p.role) + (p.self ? ' self' : '') + '" cx="' + x + '" cy="' + y + '" r="7"><title>' +
          esc(p.peerId + ' ' + p.role) + '</title></circle>');
        svg.push('<text x="' + (x * 1.22 - 18) + '" y="' + (y * 1.22 + 3) + '">' + esc(p.peerId.slice(0, 6)) + '</text>');
      }
      if (wordPlacement) {
        for (const p of wordPlacement.partitions) {
          const a = 2 * Math.PI * (Number(p.position) / MAX_POS) - Math.PI / 2;
          svg.push('<line class="partition" x1="' + 100 * Math.cos(a) + '" y1="' + 100 * Math.sin(a) + '" x2="' + 112 * Math.cos(a) +
            '" y2="' + 112 * Math.sin(a) + '" stroke="#dc2626" stroke-width="2"><title>partition ' + p.partition + ': ' +
            esc(p.holders.join(', ')) + '</title></line>');
        }
      }
      svg.push('<text x="-30" y="4">' + peers.length + ' peer' + (peers.length === 1 ? '' : 's') + '</text>');
      $('ring').innerHTML = svg.join('');
      document.querySelector('#peers tbody').innerHTML = peers.map((p) => '<tr class="peer-row"><td>' + esc(p.peerId) + (p.self ? ' (this peer)' : '') +
        '</td><td>' + esc(p.role) + '</td><td>' + esc(p.position) + '</td><td>' +
        ((p.ranges && p.ranges[0]) ? (100 * p.ranges[0].share).toFixed(1) + '%' : '–') + '</td><td>' + esc(p.http || p.address) +
        '</td><td>' + (p.lastSeen ? esc(new Date(p.lastSeen).toISOString()) : '') + '</td></tr>').join('');
    }).catch(fail);
    load();
    timers.push(setInterval(load, 3000));
  }

  show();
})();
