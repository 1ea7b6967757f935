// Peerdex UI: DOM built from data as text only. Values that come from the network or from crawled pages (titles,
// URLs, snippets, peer ids) are never parsed as HTML: no innerHTML, and only http(s) or same-origin links.
(function () {
  'use strict';
  const SVG = 'http://www.w3.org/2000/svg';
  const PROPS = { checked: 1, selected: 1, hidden: 1, disabled: 1, value: 1 };

  // An http(s) URL (or a path of this peer) as it may go into href; anything else (javascript:, data:) becomes '#'.
  function safeHref(url) {
    if (url == null) return '#';
    try {
      const u = new URL(String(url), location.href);
      return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : '#';
    } catch (e) {
      return '#';
    }
  }

  function append(el, children) {
    for (const c of children) {
      if (c == null || c === false) continue;
      if (Array.isArray(c)) append(el, c);
      else if (c instanceof Node) el.appendChild(c);
      else el.appendChild(document.createTextNode(String(c)));
    }
    return el;
  }

  function set(el, attrs) {
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v == null || v === false && !PROPS[k]) continue;
      if (/^on/i.test(k)) throw new Error('event handlers are added with addEventListener, not as attributes');
      if (k === 'class') el.setAttribute('class', String(v));
      else if (k === 'dataset') Object.assign(el.dataset, v);
      else if (k === 'style') Object.assign(el.style, v);
      else if (k === 'href' || k === 'src' || k === 'action') el.setAttribute(k, safeHref(v));
      else if (PROPS[k] && !(el instanceof SVGElement)) el[k] = v;
      else el.setAttribute(k, String(v));
    }
    return el;
  }

  // h('a', {href: r.url, class: 'title'}, r.title): an element whose text children are text, never markup
  function h(tag, attrs, ...children) {
    return append(set(document.createElement(tag), attrs), children);
  }

  function svg(tag, attrs, ...children) {
    return append(set(document.createElementNS(SVG, tag), attrs), children);
  }

  // replaces an element's children with the given ones
  function fill(el, ...children) {
    el.replaceChildren();
    return append(el, children);
  }

  window.PeerdexDom = { h, svg, fill, safeHref };
})();
