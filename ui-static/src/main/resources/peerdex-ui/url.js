// Peerdex: one URL of the index as a page (/url.html?hash=URLHASH): its metadata, crawl and parse history, images
// and postings from /api/index/url/HASH, and for an admin, edit and delete. Everything shown comes from a crawled
// page: it goes into the DOM as text (PeerdexDom), never as markup.
(function () {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const { h, fill } = window.PeerdexDom;
  const hash = new URLSearchParams(location.search).get('hash') || '';
  const api = '/api/index/url/' + encodeURIComponent(hash);

  const iso = (ms) => (ms > 0 ? new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC') : '');
  function bytes(n) {
    if (!(n >= 0)) return '';
    if (n < 1024) return n + ' bytes';
    if (n < 1048576) return (n / 1024).toFixed(1) + ' KiB';
    return (n / 1048576).toFixed(1) + ' MiB';
  }

  function failed(message) {
    $('error').textContent = message;
    $('error').hidden = false;
    document.body.dataset.state = 'error';
  }

  function render(j) {
    const m = j.metadata || {};
    document.title = (m.title || m.url || hash) + ' — Peerdex';
    $('title').textContent = m.title || m.url || hash;
    fill($('link'), m.url ? h('a', { href: m.url, rel: 'noopener noreferrer' }, m.url) : null);
    const rows = [['URL hash', j.urlHash], ['title', m.title], ['description', m.description], ['author', m.author],
      ['keywords', (m.keywords || []).join(', ')], ['language', m.language], ['document type', { h: 'HTML page', t: 'plain text', d: 'office document, e-book or RTF' }[m.doctype] || m.doctype],
      ['MIME type', m.mimeType], ['size', bytes(m.size)], ['date', iso(m.lastModified)], ['fetched', iso(m.fetched)],
      ['links on the page', m.url ? (m.linksLocal || 0) + ' to its host, ' + (m.linksOther || 0) + ' elsewhere' : ''],
      ['words in the text', m.wordsInText], ['text kept', j.textLength + ' characters'],
      ['headings', (m.headings || []).join(' · ')], ['held by', m.holder || (j.metadata ? 'this peer' : '')],
      ['feedback', j.feedback == null ? '' : String(j.feedback)]];
    fill($('meta'), rows.filter(([, v]) => v !== '' && v != null)
      .map(([k, v]) => [h('dt', null, k), h('dd', null, String(v))]));
    const events = j.history || [];
    fill($('history'), events.length === 0 ? h('li', { class: 'muted' }, 'nothing recorded')
      : events.map((e) => h('li', null, h('time', null, iso(e.at)), ' ', h('strong', null, e.event),
        e.status ? ' (' + e.status + ')' : '', e.detail ? ': ' + e.detail : '')));
    const images = j.images || [];
    $('images-section').hidden = images.length === 0;
    fill($('images'), images.map((i) => h('li', null,
      h('a', { href: i.src, rel: 'noopener noreferrer' }, i.src),
      i.alt ? h('span', { class: 'alt' }, ' — ' + i.alt) : null)));
    const postings = j.postings || [];
    $('postings-note').textContent = j.words + ' words indexed for this URL' +
      (postings.length < j.words ? '; the ' + postings.length + ' with the most hits are listed' : '') +
      '. A word shown by its hash came from elsewhere (the anchor text of a link to it).';
    fill($('postings').tBodies[0], postings.map((p) => h('tr', null,
      h('td', null, p.word ? h('a', { href: '/?q=' + encodeURIComponent(p.word) }, p.word) : h('code', null, p.wordHash)),
      h('td', null, String(p.hitCount)),
      h('td', null, (p.flags || []).join(', ')),
      h('td', null, (p.positions || []).join(' ')))));
    if (j.admin && j.metadata) {
      $('admin').hidden = false;
      const e = $('edit');
      e.title.value = m.title || '';
      e.description.value = m.description || '';
      e.author.value = m.author || '';
      e.keywords.value = (m.keywords || []).join(', ');
      e.language.value = m.language || '';
    }
    document.body.dataset.state = 'done';
  }

  function load() {
    return fetch(api).then((r) => r.json().then((j) => {
      if (!r.ok) throw new Error(j.error || 'HTTP ' + r.status);
      render(j);
    })).catch((e) => failed(String(e.message || e)));
  }

  function adminStatus(text) {
    $('admin-status').textContent = text;
  }

  $('edit').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const e = ev.target;
    const body = { title: e.title.value, description: e.description.value, author: e.author.value,
      keywords: e.keywords.value.split(',').map((k) => k.trim()).filter(Boolean), language: e.language.value.trim() };
    fetch(api, { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
      .then((r) => r.json().then((j) => {
        if (!r.ok) throw new Error(j.error || 'HTTP ' + r.status);
        adminStatus('Saved.');
        return load();
      })).catch((err) => adminStatus('Not saved: ' + (err.message || err)));
  });

  // two clicks: the first arms the button, the second deletes
  $('delete').addEventListener('click', (ev) => {
    const b = ev.target;
    if (b.dataset.armed !== '1') {
      b.dataset.armed = '1';
      b.textContent = 'Click again to delete ' + hash;
      return;
    }
    fetch(api, { method: 'DELETE' }).then((r) => r.json().then((j) => {
      if (!r.ok) throw new Error(j.error || 'HTTP ' + r.status);
      adminStatus('Deleted from the index (' + j.deletedPostings + ' postings).');
      b.disabled = true;
      $('edit').hidden = true;
      document.body.dataset.state = 'deleted';
    })).catch((err) => adminStatus('Not deleted: ' + (err.message || err)));
  });

  if (!/^[A-Za-z0-9_-]{12}$/.test(hash)) failed('not a 12-character URL hash: ' + hash);
  else { $('url-page').hidden = false; load(); }
})();
