// Peerdex console: small SVG line plots drawn by the console itself (no library), as text and shapes only: the
// crawl monitor's pages/min over a crawl and the dashboard's pages/min and queries/min over the last hour.
(function () {
  'use strict';
  const { svg, fill } = window.PeerdexDom;

  // Draws pts ([[x, y], ...], x ascending from 0) into the <svg> out (viewBox 0 0 600 H). o: xMax (else the last
  // x), label (top left), xStart/xEnd (axis labels), empty (shown without points). The element's data-points,
  // data-max, data-last and data-total tell what was drawn (tests and screen readers read them).
  function draw(out, pts, o) {
    const W = 600, H = o.height || 160, L = 48, B = 22;
    out.dataset.points = String(pts.length);
    if (pts.length === 0) {
      delete out.dataset.last;
      fill(out, svg('text', { x: L, y: H / 2 }, o.empty || 'no samples yet'));
      return;
    }
    const xMax = Math.max(1, o.xMax != null ? o.xMax : pts[pts.length - 1][0]);
    const yMax = Math.max(1, ...pts.map((p) => p[1]));
    const x = (t) => L + (W - L - 8) * t / xMax;
    const y = (r) => H - B - (H - B - 8) * r / yMax;
    const line = pts.map((p, i) => (i ? 'L' : 'M') + x(p[0]).toFixed(1) + ' ' + y(p[1]).toFixed(1)).join(' ');
    out.dataset.max = String(Math.round(yMax));
    out.dataset.last = String(pts[pts.length - 1][1]);
    out.dataset.total = String(pts.reduce((s, p) => s + p[1], 0));
    fill(out,
      svg('line', { class: 'axis', x1: L, y1: H - B, x2: W - 8, y2: H - B }),
      svg('line', { class: 'axis', x1: L, y1: 8, x2: L, y2: H - B }),
      svg('text', { x: 2, y: 14 }, Math.round(yMax)),
      svg('text', { x: 2, y: H - B }, '0'),
      svg('text', { x: L, y: H - 4 }, o.xStart || '0'),
      svg('text', { x: W - 60, y: H - 4 }, o.xEnd || ''),
      svg('text', { x: L + 6, y: 18, class: 'label' }, o.label || ''),
      svg('path', { class: 'rate', d: line }));
  }

  window.PeerdexPlot = { draw };
})();
