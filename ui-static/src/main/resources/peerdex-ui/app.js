// Peerdex search page: streams results over Server-Sent Events (/api/search/stream) as the peer finds them, a page
// of PAGE results at a time (previous/next over the API's offset), with completions from /suggest.json.
(function () {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const form = $('search-form'), input = $('q'), results = $('results'), status = $('status'), nav = $('navigators');
  const pager = $('pager'), suggest = $('suggest');
  const PAGE = 20;
  const MAX_OFFSET = 1000; // the API's bound (SearchRequest.MAX_OFFSET)
  let source = null;
  // what to mark in snippets: the peer's own reading of the query ("highlight" of the query and done events);
  // phrases are marked as a whole, function words only when the query has nothing else
  let marks = [];
  let current = { q: '', offset: 0 };

  const { h, fill } = window.PeerdexDom;

  const escapeRe = (w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

  // the snippet as text nodes, the marked words and phrases in <b>: a snippet comes from a crawled page, never
  // parsed as HTML
  function highlight(text) {
    const s = String(text == null ? '' : text);
    const ws = marks.filter((w) => w.length >= 2).sort((a, b) => b.length - a.length)
      .map((w) => w.split(/\s+/).map(escapeRe).join('[^\\p{L}\\p{N}]+'));
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
        h('a', { href: '/url.html?hash=' + encodeURIComponent(r.urlHash), title: 'metadata, crawl/parse history and postings' },
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

  function showNavigators(navs, over, total) {
    fill(nav);
    // the counts cover the best results only when there are more: say so instead of passing them off as totals
    const partial = over > 0 && over < total;
    if (partial) nav.appendChild(h('p', { id: 'nav-note', class: 'muted' }, 'counts over the top ' + over + ' of ' + total + ' results'));
    for (const [facet, entries] of Object.entries(navs || {})) {
      if (!entries || entries.length === 0) continue;
      nav.appendChild(h('h3', null, facet));
      const ul = h('ul', { class: 'nav-' + facet });
      for (const e of entries) {
        const a = h('a', { href: '#', class: 'navigator' }, h('span', null, e.value), h('span', { class: 'count' }, e.count));
        if (e.modifier) a.dataset.modifier = e.modifier;
        else a.classList.add('inert');
        ul.appendChild(h('li', null, a));
      }
      nav.appendChild(ul);
    }
  }

  // "Results 21–40 of 462" with previous / next over the API's offset
  function showPager(total, shown) {
    fill(pager);
    const { q, offset } = current;
    if (total === 0 || shown === 0 && offset === 0) return;
    const first = offset + 1, last = offset + shown;
    const hasPrev = offset > 0;
    const hasNext = offset + PAGE < total && offset + PAGE <= MAX_OFFSET && shown === PAGE;
    const link = (label, to, cls) => {
      const a = h('a', { href: '/?q=' + encodeURIComponent(q) + (to > 0 ? '&offset=' + to : ''), class: cls, rel: cls }, label);
      a.addEventListener('click', (ev) => { ev.preventDefault(); go(q, to, true); });
      return a;
    };
    fill(pager,
      hasPrev ? link('‹ Previous', Math.max(0, offset - PAGE), 'prev') : null,
      h('span', { class: 'range' }, shown > 0 ? 'Results ' + first + '–' + last + ' of ' + total : 'No more results'),
      hasNext ? link('Next ›', offset + PAGE, 'next') : null);
  }

  function search(q, offset) {
    if (source) source.close();
    current = { q, offset };
    fill(results);
    fill(nav);
    fill(pager);
    hideSuggestions();
    status.className = 'muted';
    status.textContent = 'Searching…';
    // until the peer says what it read, mark the plain words typed (not exclusions or operators)
    marks = q.toLowerCase().split(/\s+/).filter((w) => w && !w.startsWith('-') && w.indexOf(':') < 0).map((w) => w.replace(/"/g, ''));
    const url = '/api/search/stream?count=' + PAGE + '&offset=' + offset + '&q=' + encodeURIComponent(q) +
      '&resource=' + encodeURIComponent($('resource').value);
    source = new EventSource(url);
    source.addEventListener('query', (ev) => { marks = JSON.parse(ev.data).highlight || []; });
    source.addEventListener('result', (ev) => {
      const r = JSON.parse(ev.data);
      addResult(r, r.rank);
    });
    source.addEventListener('progress', (ev) => {
      const p = JSON.parse(ev.data);
      status.textContent = p.candidates + ' candidates · ' + p.peersAnswered + '/' + p.peersAsked + ' peers answered';
    });
    source.addEventListener('navigators', (ev) => showNavigators(JSON.parse(ev.data), 0, 0));
    source.addEventListener('done', (ev) => {
      const d = JSON.parse(ev.data);
      source.close();
      source = null;
      if (d.highlight) marks = d.highlight;
      // final order: re-rank what streamed in
      fill(results);
      d.results.forEach((r, i) => addResult(r, offset + i + 1));
      showNavigators(d.navigators, d.navigatorsOver, d.total);
      showPager(d.total, d.results.length);
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

  // a search the address bar can come back to: ?q=...&offset=...
  function go(q, offset, push) {
    document.body.dataset.state = 'searching';
    const address = '/?q=' + encodeURIComponent(q) + (offset > 0 ? '&offset=' + offset : '');
    if (push) history.pushState({ q, offset }, '', address);
    else history.replaceState({ q, offset }, '', address);
    search(q, offset);
    if (push) window.scrollTo(0, 0);
  }

  window.addEventListener('popstate', (ev) => {
    const st = ev.state;
    if (st && st.q) { input.value = st.q; search(st.q, st.offset || 0); }
  });

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const q = input.value.trim();
    if (q) go(q, 0, q !== current.q);
  });

  // completions: words and phrases from /suggest.json (OpenSearch suggestions: [query, [completions]]), shown as
  // text in a list under the box; arrows move, Enter or a click takes one, Escape closes
  let suggestTimer = null;
  let suggestSeq = 0;
  let active = -1;

  function hideSuggestions() {
    suggest.hidden = true;
    fill(suggest);
    active = -1;
    input.setAttribute('aria-expanded', 'false');
  }

  function showSuggestions(list) {
    fill(suggest);
    active = -1;
    for (const c of list) {
      const li = h('li', { class: 'suggestion', role: 'option' }, c);
      li.addEventListener('mousedown', (ev) => { ev.preventDefault(); take(c); });
      suggest.appendChild(li);
    }
    suggest.hidden = list.length === 0;
    input.setAttribute('aria-expanded', String(list.length > 0));
  }

  function take(c) {
    input.value = c;
    hideSuggestions();
    form.requestSubmit();
  }

  function mark(i) {
    const items = Array.from(suggest.children);
    if (items.length === 0) return;
    active = (i + items.length) % items.length;
    items.forEach((li, j) => li.classList.toggle('active', j === active));
  }

  input.addEventListener('input', () => {
    clearTimeout(suggestTimer);
    const typed = input.value;
    if (!typed.trim()) { hideSuggestions(); return; }
    suggestTimer = setTimeout(() => {
      const seq = ++suggestSeq;
      fetch('/suggest.json?count=8&query=' + encodeURIComponent(typed)).then((r) => r.json()).then((j) => {
        // an answer to an older keystroke, or to a box that changed since, is dropped
        if (seq !== suggestSeq || input.value !== typed || !Array.isArray(j) || !Array.isArray(j[1])) return;
        showSuggestions(j[1].map(String));
      }).catch(() => hideSuggestions());
    }, 120);
  });

  input.addEventListener('keydown', (ev) => {
    if (suggest.hidden) return;
    if (ev.key === 'ArrowDown') { ev.preventDefault(); mark(active + 1); }
    else if (ev.key === 'ArrowUp') { ev.preventDefault(); mark(active - 1); }
    else if (ev.key === 'Escape') hideSuggestions();
    else if (ev.key === 'Enter' && active >= 0) { ev.preventDefault(); take(suggest.children[active].textContent); }
  });

  input.addEventListener('blur', () => setTimeout(hideSuggestions, 100));

  nav.addEventListener('click', (ev) => {
    const a = ev.target.closest('a.navigator');
    if (!a) return;
    ev.preventDefault();
    if (!a.dataset.modifier) return;
    input.value = (input.value.trim() + ' ' + a.dataset.modifier).trim();
    go(input.value, 0, true);
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
  const params = new URLSearchParams(location.search);
  const initial = params.get('q');
  if (params.get('resource') === 'global') $('resource').value = 'global';
  if (initial) {
    input.value = initial;
    const offset = Math.max(0, Math.min(MAX_OFFSET, parseInt(params.get('offset') || '0', 10) || 0));
    go(initial, offset, false);
  }
})();
