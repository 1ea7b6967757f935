// Peerdex import page: starts imports (admin) and lists them; every value is shown as text.
(function () {
  'use strict';
  const hints = {
    'rss': 'Options: "fetchLinked": true (index the linked pages), "every": "PT1H" (re-read until stopped), "force": true.',
    'oai-pmh': 'The repository\'s base URL. Options: "from": "2026-01-01", "set": "physics". Later harvests ask only for what changed.',
    'mediawiki': 'pages-articles.xml, .bz2 or .gz, by URL or path on this peer. Options: "baseUrl", "allNamespaces": true.',
    'sitemap': 'A sitemap or sitemap index. Options: "maxPages": 1000.',
    'phpbb': 'The board\'s index URL. Options: "maxPages": 1000. Session, sort, print and reply links are skipped.',
    'document': 'A URL, or a path (file or folder) with "baseUrl" in the options.',
    'proxy': 'No URL: set your browser\'s HTTP proxy to 127.0.0.1 and the port shown. Options: "port": 8091, "allowQuery": true.',
    'scan': 'No URL. Options: {"ranges": ["192.168.1.0/24"], "ports": [80, 8080], "index": true}.'
  };
  const $ = id => document.getElementById(id);
  const kind = $('kind');
  function showHint() { $('hint').textContent = hints[kind.value] || ''; }
  kind.addEventListener('change', showHint);
  showHint();

  $('import-form').addEventListener('submit', async ev => {
    ev.preventDefault();
    let body = {};
    const extra = $('extra').value.trim();
    if (extra) {
      try { body = JSON.parse(extra); } catch (e) { $('message').textContent = 'Options must be JSON: ' + e.message; return; }
    }
    const where = $('where').value.trim();
    if (where) body[/^https?:\/\//i.test(where) ? 'url' : 'path'] = where;
    const r = await fetch('/api/import/' + kind.value, {method: 'POST', headers: {'Content-Type': 'application/json'},
      body: JSON.stringify(body)});
    const j = await r.json().catch(() => ({}));
    $('message').textContent = r.ok ? 'started ' + j.id + (j.port ? ' (proxy on 127.0.0.1:' + j.port + ')' : '')
      : (j.error || ('HTTP ' + r.status));
    refresh();
  });

  function cell(text, cls) {
    const td = document.createElement('td');
    td.textContent = text;
    if (cls) td.className = cls;
    return td;
  }

  async function stop(id) {
    await fetch('/api/import/' + encodeURIComponent(id), {method: 'DELETE'});
    refresh();
  }

  async function refresh() {
    const r = await fetch('/api/import');
    const rows = $('rows');
    if (!r.ok) {
      const j = await r.json().catch(() => ({}));
      rows.replaceChildren();
      const tr = document.createElement('tr');
      const td = cell(j.error || ('HTTP ' + r.status), 'err');
      td.colSpan = 9;
      tr.append(td);
      rows.append(tr);
      return;
    }
    const {imports} = await r.json();
    rows.replaceChildren();
    for (const i of imports.slice(0, 100)) {
      const tr = document.createElement('tr');
      const src = cell(i.source);
      if (i.error) {
        const e = document.createElement('div');
        e.className = 'err';
        e.textContent = i.error;
        src.append(e);
      }
      if (i.details && i.details.crawl) {
        // the pages of sitemap, forum and scan imports are fetched by a crawl: its monitor is in the console
        const d = document.createElement('div');
        const a = PeerdexDom.h('a', {href: '/admin/?crawl=' + encodeURIComponent(i.details.crawl) + '#crawl'},
          'crawl ' + i.details.crawl + (i.details.crawlState ? ' (' + i.details.crawlState + ')' : ''));
        d.append(a);
        src.append(d);
      }
      if (i.details && i.details.starts) {
        for (const s of i.details.starts) {
          const d = document.createElement('div');
          d.textContent = s.url + (s.title ? ' — ' + s.title : '');
          src.append(d);
        }
      }
      tr.append(cell(i.id), cell(i.kind), src, cell(i.state, 'state-' + i.state), cell(i.imported), cell(i.skipped),
        cell(i.errors), cell(i.docsPerSecond));
      const act = document.createElement('td');
      if (i.state === 'running') {
        const b = document.createElement('button');
        b.textContent = 'stop';
        b.addEventListener('click', () => stop(i.id));
        act.append(b);
      }
      tr.append(act);
      rows.append(tr);
    }
  }
  refresh();
  setInterval(refresh, 2000);
})();
