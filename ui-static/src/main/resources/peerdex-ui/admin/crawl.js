// Peerdex console, #crawl: start crawls (with the phpBB preset, or from a sitemap), the crawl table (start URL,
// state and why a crawl failed, duration, ETA) and one crawl's monitor: the requests on the wire, the host queues,
// the skipped / error / not-followed breakdowns and a pages/min plot drawn here from the API's samples. Everything
// from the API (URLs, hosts, reasons) goes into the page as text through dom.js; crawled markup is never rendered.
(function () {
  'use strict';
  const { h, svg, fill } = window.PeerdexDom;
  const $ = (id) => document.getElementById(id);
  const td = (cls, ...c) => h('td', { class: cls }, ...c);
  let selected = null;

  function api(method, path, body) {
    const opts = { method, headers: { 'X-Peerdex-Console': '1' } };
    if (body !== undefined) { opts.headers['Content-Type'] = 'application/json'; opts.body = JSON.stringify(body); }
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

  // 284000 → "4 min 44 s"
  function duration(ms) {
    if (ms == null || ms < 0) return '–';
    const s = Math.round(ms / 1000);
    if (s < 60) return s + ' s';
    if (s < 3600) return Math.floor(s / 60) + ' min ' + (s % 60) + ' s';
    return Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' min';
  }

  // indexed, skipped and errors as parts of everything the crawl has admitted (done + queued)
  function bar(c) {
    const total = Math.max(1, c.indexed + c.skipped + c.errors + c.queued);
    const part = (cls, n) => h('span', { class: cls, title: n + ' ' + cls, style: { width: (100 * n / total) + '%' } });
    return h('div', { class: 'bar' }, part('indexed', c.indexed), part('skipped', c.skipped), part('errors', c.errors));
  }

  function row(c) {
    const state = h('td', { class: 'state ' + c.state },
      c.state + (c.paused ? ' (paused: ' + c.error + ')' : ''),
      c.message ? h('div', { class: 'why' }, c.message) : null);
    return h('tr', { class: 'crawl' + (c.id === selected ? ' selected' : ''), dataset: { id: c.id, state: c.state } },
      td('id', c.id), td('start', c.url), state, td('progress', bar(c)), td('queued', c.queued), td('fetched', c.fetched),
      td('indexed', c.indexed), td('skipped', c.skipped), td('errors', c.errors),
      td('rate', Number(c.pagesPerMinute || 0).toFixed(1)), td('duration', duration(c.durationMs)),
      td('eta', c.state === 'running' ? duration(c.etaMs) : ''),
      td('actions', h('button', { type: 'button', dataset: { open: c.id } }, 'monitor'),
        c.state === 'running' ? h('button', { type: 'button', dataset: { stop: c.id } }, 'stop') : null));
  }

  // pages/min between consecutive samples, plotted over the crawl's time (plot.js draws it)
  function plot(history) {
    const pts = [];
    for (let i = 1; i < (history || []).length; i++) {
      const dt = history[i].at - history[i - 1].at;
      if (dt > 0) pts.push([history[i].at - history[0].at, (history[i].fetched - history[i - 1].fetched) * 60000 / dt]);
    }
    const tMax = pts.length ? Math.max(1000, pts[pts.length - 1][0]) : 1000;
    window.PeerdexPlot.draw($('crawl-plot'), pts, { xMax: tMax, label: 'pages/min', xEnd: duration(tMax) });
  }

  function counts(tbody, map) {
    const entries = Object.entries(map || {}).sort((a, b) => b[1] - a[1]);
    fill($(tbody), entries.length ? entries.map(([k, v]) => h('tr', { dataset: { reason: k } }, td('reason', k), td('count', v)))
      : h('tr', null, td('muted', 'none'), td('count', '')));
  }

  function monitor(c) {
    const panel = $('crawl-monitor');
    if (!c) { panel.hidden = true; return; }
    panel.hidden = false;
    panel.dataset.id = c.id;
    panel.dataset.state = c.state;
    fill($('monitor-title'), 'Crawl ' + c.id + ' · ', h('span', { class: 'start' }, c.url));
    fill($('monitor-line'), h('b', { class: 'state ' + c.state }, c.state), c.message ? ': ' + c.message : '',
      ' · ' + duration(c.durationMs) + (c.state === 'running' && c.etaMs >= 0 ? ' · ETA ' + duration(c.etaMs) : '') +
      ' · ' + Number(c.pagesPerMinute || 0).toFixed(1) + ' pages/min' +
      (c.hostQueues ? ' · ' + c.hostQueues + ' host queues' : ''));
    plot(c.history);
    const now = Date.now();
    fill($('monitor-fetching'), (c.fetching || []).length ? c.fetching.map((f) => h('li', { class: 'fetching' },
      h('span', { class: 'url' }, f.url), ' ', h('span', { class: 'muted' }, duration(Math.max(0, now - f.since)))))
      : h('li', { class: 'muted' }, c.state === 'running' ? 'nothing on the wire this instant' : 'the crawl is over'));
    fill($('monitor-hosts'), (c.hosts || []).length ? c.hosts.map((x) => h('tr', { class: 'host', dataset: { site: x.site } },
      td('site', x.site), td('pending', x.pending), td('delay', x.delayMs < 0 ? '–' : x.delayMs + ' ms'), td('robots', x.robots)))
      : h('tr', null, td('muted', 'no host has URLs waiting'), td(), td(), td()));
    counts('monitor-skipped', c.skippedBy);
    counts('monitor-errors', c.errorsBy);
    counts('monitor-rejected', c.linksRejected);
  }

  function load() {
    return api('GET', '/api/crawl').then((j) => {
      const crawls = j.crawls || [];
      fill(document.querySelector('#crawl-table tbody'), crawls.map(row));
      monitor(crawls.find((c) => c.id === selected));
    }).catch(fail);
  }

  // the console calls this when #crawl is shown; addTimer registers the poll so that leaving the page stops it
  function show(addTimer, id) {
    if (id) selected = id; // #crawl/ID opens that crawl's monitor (the dashboard links there)
    // /admin/?crawl=ID#crawl (an import's crawl, linked from the import page) opens that crawl's monitor
    const asked = new URLSearchParams(location.search).get('crawl');
    if (asked && selected === null) selected = asked;
    api('GET', '/api/settings').then((st) => {
      const f = $('crawl-start');
      f.depth.placeholder = st.crawl.depth;
      f.maxPages.placeholder = st.crawl.maxPages;
      f.minDelayMs.placeholder = st.crawl.minDelayMs;
      f.contentTypes.placeholder = st.contentTypes.join(', ');
    }).catch(() => {});
    load();
    addTimer(setInterval(load, 2000));
  }

  const form = $('crawl-start');
  form.preset.addEventListener('change', () => {
    const name = form.preset.value;
    if (!name) {
      form.mustMatch.value = '';
      form.mustNotMatch.value = '';
      delete form.dataset.preset;
      return;
    }
    api('GET', '/api/import/profile/' + encodeURIComponent(name)).then((p) => {
      form.mustMatch.value = p.mustMatch || '';
      form.mustNotMatch.value = p.mustNotMatch || '';
      if (p.range) form.range.value = p.range;
      form.followQuery.checked = !!p.followQuery;
      form.dataset.preset = name;
    }).catch(fail);
  });
  form.startFrom.addEventListener('change', () => {
    form.url.placeholder = form.startFrom.value === 'sitemap' ? 'https://example.org/sitemap.xml' : 'https://example.org/';
  });

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const f = ev.target;
    const body = { url: f.url.value, range: f.range.value, followQuery: f.followQuery.checked };
    if (f.startFrom.value !== 'pages') body.startFrom = f.startFrom.value;
    // an empty field is left out: the peer's crawl defaults (Settings) fill it
    for (const k of ['depth', 'maxPages', 'maxPagesPerHost', 'minDelayMs']) if (f[k].value !== '') body[k] = Number(f[k].value);
    // the preset's URL rules (session ids stripped, one URL per forum page) go with its filters
    if (f.dataset.preset) body.preset = f.dataset.preset;
    if (f.mustMatch.value) body.mustMatch = f.mustMatch.value;
    if (f.mustNotMatch.value) body.mustNotMatch = f.mustNotMatch.value;
    if (f.recrawlAfter.value) body.recrawlAfter = f.recrawlAfter.value;
    if (f.contentTypes.value) body.contentTypes = f.contentTypes.value.split(',').map((s) => s.trim()).filter(Boolean);
    api('POST', '/api/crawl', body).then((j) => {
      f.reset(); // the next crawl starts from an empty form (the placeholders still show the defaults)
      delete f.dataset.preset;
      f.url.placeholder = 'https://example.org/';
      selected = j.id;
      flash('Crawl ' + j.id + ' started.');
      load();
    }).catch(fail);
  });

  $('crawl-table').addEventListener('click', (ev) => {
    const d = ev.target.dataset;
    if (d.stop) api('DELETE', '/api/crawl/' + encodeURIComponent(d.stop)).then(() => { flash('Crawl ' + d.stop + ' stopped.'); load(); }).catch(fail);
    else if (d.open) { selected = d.open; load(); }
  });

  window.PeerdexCrawl = { show };
})();
