// Peerdex search page: streams results over Server-Sent Events (/api/search/stream) as the peer finds them.
(function () {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const form = $('search-form'), input = $('q'), results = $('results'), status = $('status'), nav = $('navigators');
  let source = null;
  let words = [];

  const { h, fill } = window.PeerdexDom;

  // the snippet as text nodes, the query's words in <b>: a snippet comes from a crawled page, never parsed as HTML
  function highlight(text) {
    const s = String(text == null ? '' : text);
    const ws = words.filter((w) => w.length >= 2).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    if (ws.length === 0) return [s];
    const re = new RegExp('(^|[^\\p{L}\\p{N}])(' + ws.join('|') + ')(?=$|[^\\p{L}\\p{N}])', 'giu');
    const out = [];
    let at = 0;
    let m;
    while ((m = re.exec(s)) !== null) {
      const start = m.index + m[1].length;
      if (start > at) out.push(s.slice(at, start));
      out.push(h('b', null, m[2]));
      at = start + m[2].length;
      if (m[0].length === 0) re.lastIndex++;
    }
    if (at < s.length) out.push(s.slice(at));
    return out;
  }

  function resultItem(r) {
    const li = h('li', { class: 'result', dataset: { hash: r.urlHash, score: r.score } },
      h('a', { class: 'title', href: r.url, rel: 'noopener noreferrer' }, r.title || r.url),
      h('div', { class: 'url' }, r.url),
      h('p', { class: 'snippet' }, highlight(r.snippet)),
      h('div', { class: 'meta' },
        r.date ? h('span', null, r.date) : null,
        h('span', null, String(r.filetype == null ? '' : r.filetype) + (r.language ? ' · ' + r.language : '')),
        h('span', { class: 'score', title: 'score' }, Number(r.score).toFixed(2)),
        h('button', { type: 'button', dataset: { action: 'promote' }, title: 'rank this higher' }, '▲ promote'),
        h('button', { type: 'button', dataset: { action: 'demote' }, title: 'rank this lower' }, '▼ demote'),
        h('button', { type: 'button', dataset: { action: 'bookmark' }, title: 'bookmark' }, '★ bookmark'),
        h('a', { href: '/api/index/url/' + encodeURIComponent(r.urlHash), title: 'metadata and crawl/parse history' },
          'metadata & history'),
        r.cached ? h('span', { title: 'learned from another peer' }, 'cached') : null));
    return li;
  }

  function addResult(r, rank) {
    if (Array.from(results.children).some((c) => c.dataset.hash === String(r.urlHash))) return;
    const li = resultItem(r);
    li.dataset.rank = rank;
    const after = Array.from(results.children).find((c) => Number(c.dataset.rank) > rank);
    results.insertBefore(li, after || null);
  }

  function showNavigators(navs) {
    fill(nav);
    for (const [facet, entries] of Object.entries(navs || {})) {
      if (!entries || entries.length === 0) continue;
      const heading = document.createElement('h3');
      heading.textContent = facet;
      nav.appendChild(heading);
      const ul = document.createElement('ul');
      ul.className = 'nav-' + facet;
      for (const e of entries) {
        const li = document.createElement('li');
        const a = document.createElement('a');
        a.href = '#';
        a.className = 'navigator';
        if (e.modifier) a.dataset.modifier = e.modifier;
        fill(a, h('span', null, e.value), h('span', { class: 'count' }, e.count));
        if (!e.modifier) a.classList.add('inert');
        li.appendChild(a);
        ul.appendChild(li);
      }
      nav.appendChild(ul);
    }
  }

  function search(q) {
    if (source) source.close();
    fill(results);
    fill(nav);
    status.className = 'muted';
    status.textContent = 'Searching…';
    words = q.toLowerCase().split(/\s+/).filter((w) => w && !w.startsWith('-') && w.indexOf(':') < 0).map((w) => w.replace(/"/g, ''));
    history.replaceState(null, '', '/?q=' + encodeURIComponent(q));
    const url = '/api/search/stream?count=20&q=' + encodeURIComponent(q) + '&resource=' + encodeURIComponent($('resource').value);
    source = new EventSource(url);
    source.addEventListener('result', (ev) => {
      const r = JSON.parse(ev.data);
      addResult(r, r.rank);
    });
    source.addEventListener('progress', (ev) => {
      const p = JSON.parse(ev.data);
      status.textContent = p.candidates + ' candidates · ' + p.peersAnswered + '/' + p.peersAsked + ' peers answered';
    });
    source.addEventListener('navigators', (ev) => showNavigators(JSON.parse(ev.data)));
    source.addEventListener('done', (ev) => {
      const d = JSON.parse(ev.data);
      source.close();
      source = null;
      // final order: re-rank what streamed in
      fill(results);
      d.results.forEach((r, i) => addResult(r, i + 1));
      showNavigators(d.navigators);
      status.textContent = d.total + ' results in ' + d.timing.total + ' ms' +
        (d.total === 0 ? ' — nothing matches every word; try fewer words' : '');
      document.body.dataset.state = 'done';
    });
    source.onerror = () => {
      if (!source) return;
      source.close();
      source = null;
      fetch('/api/search?count=1&q=' + encodeURIComponent(q)).then((r) => r.json()).then((j) => {
        if (j.error) { status.className = 'error'; status.textContent = j.error; }
      }).catch(() => { status.className = 'error'; status.textContent = 'The peer did not answer.'; });
    };
  }

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    document.body.dataset.state = 'searching';
    const q = input.value.trim();
    if (q) search(q);
  });

  nav.addEventListener('click', (ev) => {
    const a = ev.target.closest('a.navigator');
    if (!a) return;
    ev.preventDefault();
    if (!a.dataset.modifier) return;
    input.value = (input.value.trim() + ' ' + a.dataset.modifier).trim();
    form.requestSubmit();
  });

  results.addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-action]');
    if (!b) return;
    const hash = b.closest('.result').dataset.hash;
    fetch('/api/feedback', { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ urlHash: hash, action: b.dataset.action }) })
      .then((r) => r.json()).then((j) => {
        if (j.error) { status.className = 'error'; status.textContent = j.error; return; }
        b.classList.add('done');
        b.title = 'saved: later searches rank this ' + (b.dataset.action === 'demote' ? 'lower' : 'higher');
      });
  });

  function firstRun() {
    fetch('/api/status').then((r) => r.json()).then((s) => {
      if (s.documents === 0) $('firstrun').hidden = false;
    }).catch(() => {});
    $('index-manual').addEventListener('click', () => {
      $('firstrun-status').textContent = 'Indexing the manual…';
      fetch('/api/index/manual', { method: 'POST' }).then((r) => r.json()).then((j) => {
        if (j.error) { $('firstrun-status').textContent = j.error; return; }
        $('firstrun-status').textContent = 'Indexed ' + j.indexed + ' pages of the manual. Try a search!';
        input.value = input.value || 'peer';
      });
    });
    $('crawl-form').addEventListener('submit', (ev) => {
      ev.preventDefault();
      fetch('/api/crawl', { method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: $('crawl-url').value, depth: 3, range: 'site' }) })
        .then((r) => r.json()).then((j) => {
          $('firstrun-status').textContent = j.error ? j.error : 'Crawl ' + j.id + ' started; results appear as pages are indexed.';
        }).catch(() => { $('firstrun-status').textContent = 'Could not start the crawl.'; });
    });
  }

  firstRun();
  const initial = new URLSearchParams(location.search).get('q');
  if (initial) { input.value = initial; search(initial); }
})();
