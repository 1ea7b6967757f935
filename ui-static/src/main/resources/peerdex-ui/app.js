// Peerdex search page: streams results over Server-Sent Events (/api/search/stream) as the peer finds them.
(function () {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const form = $('search-form'), input = $('q'), results = $('results'), status = $('status'), nav = $('navigators');
  let source = null;
  let words = [];

  function esc(s) {
    return String(s == null ? '' : s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
  }

  function highlight(text) {
    let html = esc(text);
    for (const w of words) {
      if (w.length < 2) continue;
      const re = new RegExp('(^|[^\\p{L}\\p{N}])(' + w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + ')(?=$|[^\\p{L}\\p{N}])', 'giu');
      html = html.replace(re, '$1<b>$2</b>');
    }
    return html;
  }

  function resultItem(r) {
    const li = document.createElement('li');
    li.className = 'result';
    li.dataset.hash = r.urlHash;
    li.dataset.score = r.score;
    li.innerHTML =
      '<a class="title" href="' + esc(r.url) + '">' + esc(r.title) + '</a>' +
      '<div class="url">' + esc(r.url) + '</div>' +
      '<p class="snippet">' + highlight(r.snippet) + '</p>' +
      '<div class="meta">' +
      (r.date ? '<span>' + esc(r.date) + '</span>' : '') +
      '<span>' + esc(r.filetype) + (r.language ? ' · ' + esc(r.language) : '') + '</span>' +
      '<span class="score" title="score">' + Number(r.score).toFixed(2) + '</span>' +
      '<button type="button" data-action="promote" title="rank this higher">▲ promote</button>' +
      '<button type="button" data-action="demote" title="rank this lower">▼ demote</button>' +
      '<button type="button" data-action="bookmark" title="bookmark">★ bookmark</button>' +
      '<a href="/api/index/url/' + esc(r.urlHash) + '" title="metadata and crawl/parse history">metadata &amp; history</a>' +
      (r.cached ? '<span title="learned from another peer">cached</span>' : '') +
      '</div>';
    return li;
  }

  function addResult(r, rank) {
    if (results.querySelector('[data-hash="' + r.urlHash + '"]')) return;
    const li = resultItem(r);
    li.dataset.rank = rank;
    const after = Array.from(results.children).find((c) => Number(c.dataset.rank) > rank);
    results.insertBefore(li, after || null);
  }

  function showNavigators(navs) {
    nav.innerHTML = '';
    for (const [facet, entries] of Object.entries(navs || {})) {
      if (!entries || entries.length === 0) continue;
      const h = document.createElement('h3');
      h.textContent = facet;
      nav.appendChild(h);
      const ul = document.createElement('ul');
      ul.className = 'nav-' + facet;
      for (const e of entries) {
        const li = document.createElement('li');
        const a = document.createElement('a');
        a.href = '#';
        a.className = 'navigator';
        a.dataset.modifier = e.modifier;
        a.innerHTML = '<span>' + esc(e.value) + '</span><span class="count">' + e.count + '</span>';
        if (!e.modifier) a.classList.add('inert');
        li.appendChild(a);
        ul.appendChild(li);
      }
      nav.appendChild(ul);
    }
  }

  function search(q) {
    if (source) source.close();
    results.innerHTML = '';
    nav.innerHTML = '';
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
      results.innerHTML = '';
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
