// Peerdex embeddable search widget (/search.html): results as text, links only to http(s) URLs.
(function () {
  'use strict';
  var dom = window.PeerdexDom;
  var params = new URLSearchParams(location.search);
  var count = Math.min(50, Math.max(1, Number(params.get('count')) || 10));
  var site = params.get('site');
  var q = document.getElementById('w-q'), list = document.getElementById('w-results'), st = document.getElementById('w-status');
  function run(text) {
    st.textContent = 'Searching…';
    dom.fill(list);
    var query = text + (site ? ' site:' + site : '');
    fetch('/api/search?nav=none&count=' + count + '&q=' + encodeURIComponent(query)).then(function (r) { return r.json(); }).then(function (d) {
      if (d.error) { st.textContent = d.error; return; }
      st.textContent = d.total + ' results';
      d.results.forEach(function (r) {
        list.appendChild(dom.h('li', { class: 'w-result' },
          dom.h('a', { target: '_top', rel: 'noopener noreferrer', href: r.url }, r.title || r.url),
          dom.h('div', { class: 'u' }, r.url),
          dom.h('p', null, r.snippet)));
      });
    }).catch(function () { st.textContent = 'The search did not answer.'; });
  }
  document.getElementById('w-form').addEventListener('submit', function (ev) { ev.preventDefault(); if (q.value.trim()) run(q.value.trim()); });
  if (params.get('q')) { q.value = params.get('q'); run(q.value); }
})();
