// The operator dashboard (issue 16): reads GET /v1/analytics (and, for an admin key, the bulk
// ingestion jobs and GET /v1/analytics/pipeline) with the key typed in the page
// (kept in sessionStorage, so in this tab only) and refreshes every 5 s. No build step: plain
// script, uPlot served by the gateway; the page's Content-Security-Policy allows only scripts,
// styles and fetches of its own origin.
'use strict';
(function () {
  var REFRESH_MS = 5000;
  var $ = function (id) { return document.getElementById(id); };
  var charts = {};
  var timer = null;
  /** the range of the refresh under way: its four queries share it, so their steps line up */
  var range = {};
  /** the bulk ingestion job shown (kept across refreshes; null: the latest) */
  var job = null;
  /** bumped when a key is entered: answers to an earlier key's queries are dropped */
  var generation = 0;
  var ZXX = 'zxx_Zxxx';

  function fmt(n) { return n === null || n === undefined ? '–' : Number(n).toLocaleString('en-US'); }
  function pct(a, b) { return b > 0 ? (100 * a / b).toFixed(1) + ' %' : '–'; }
  function row(cells) {
    var tr = document.createElement('tr');
    cells.forEach(function (c) { var td = document.createElement('td'); td.textContent = c; tr.appendChild(td); });
    return tr;
  }
  function fill(id, rows) {
    var body = $(id).querySelector('tbody');
    body.replaceChildren.apply(body, rows.map(row));
  }
  function authorized(url) {
    return fetch(url, { headers: { authorization: 'Bearer ' + sessionStorage.getItem('lmstream-key') } });
  }
  function query(params) {
    var q = new URLSearchParams(Object.assign({}, range, params));
    return authorized('/v1/analytics?' + q.toString()).then(answer);
  }
  /** the JSON body of an answer; an error answer throws, with its status */
  function answer(r) {
    return r.json().then(function (body) {
      if (r.ok) return body;
      var err = new Error(body.error || ('HTTP ' + r.status));
      err.status = r.status;
      throw err;
    });
  }
  /** y axis wide enough for its longest label ("10,000" was clipped to "0,000") */
  function axisSize(self, values) {
    var longest = (values || []).reduce(function (n, v) { return Math.max(n, String(v).length); }, 0);
    return Math.max(50, 18 + 8 * longest);
  }
  function plot(id, title, series, data) {
    var el = $(id);
    var width = Math.max(280, el.clientWidth);
    if (charts[id]) { charts[id].setData(data); charts[id].setSize({ width: width, height: 220 }); return; }
    charts[id] = new uPlot({ width: width, height: 220, series: [{}].concat(series.map(function (s) { return Object.assign({ spanGaps: false, points: { size: 4 } }, s); })), axes: [{}, { size: axisSize }], title: title }, data, el);
  }

  function render(all, byStatus, byModel, byLabel) {
    var t = all.totals;
    $('c-events').textContent = fmt(t.events);
    $('c-items').textContent = fmt(t.items);
    $('c-errors').textContent = fmt(t.errors) + ' (' + pct(t.errors, t.events) + ')';
    $('c-billable').textContent = fmt(t.billable);
    $('c-latency').textContent = [t.p50_ms, t.p95_ms, t.p99_ms].map(fmt).join(' / ');
    // every step of the range, empty ones included (the API leaves them out)
    var byT = {};
    ((all.series[0] && all.series[0].points) || []).forEach(function (p) { byT[Date.parse(p.t)] = p; });
    var xs = [], points = [];
    for (var ts = Date.parse(all.from); ts < Date.parse(all.to); ts += all.step_ms) { xs.push(ts / 1000); points.push(byT[ts] || { events: 0, items: 0, p50_ms: null, p95_ms: null, p99_ms: null }); }
    var step = all.step_ms / 1000;
    plot('chart-rate', '', [{ label: 'requests/s', stroke: '#2b6cb0' }, { label: 'items/s', stroke: '#2f855a' }],
      [xs, points.map(function (p) { return p.events / step; }), points.map(function (p) { return p.items / step; })]);
    plot('chart-latency', '', [{ label: 'p50', stroke: '#2b6cb0' }, { label: 'p95', stroke: '#b7791f' }, { label: 'p99', stroke: '#c53030' }],
      [xs, points.map(function (p) { return p.p50_ms; }), points.map(function (p) { return p.p95_ms; }), points.map(function (p) { return p.p99_ms; })]);
    fill('t-errors', byStatus.series.filter(function (s) { return s.group.status !== 200; })
      .map(function (s) { return [String(s.group.status), s.group.code || '', fmt(s.totals.events), pct(s.totals.events, t.events)]; }));
    fill('t-usage', byModel.series.map(function (s) {
      return [s.group.capability, s.group.model || '(refused)', fmt(s.totals.events), fmt(s.totals.items), fmt(s.totals.billable), fmt(s.totals.p95_ms)];
    }));
    fill('t-languages', labelRows(byLabel.series.filter(function (s) { return s.group.label; })));
  }

  /** texts per label with their share and the share at confidence >= 0.9 */
  function labelRows(series) {
    var texts = series.reduce(function (n, s) { return n + s.totals.items; }, 0);
    return series.map(function (s) { return [s.group.label, fmt(s.totals.items), pct(s.totals.items, texts), pct(s.totals.confidence[9], s.totals.items)]; });
  }

  // a corpus builder's view of each bulk ingestion (keys bulk:<job>): texts per label, the
  // confidence distribution and the share of texts in no language. Jobs are listed latest
  // first (by their last step with texts; by name within one step), and the latest is shown
  // until another is chosen
  function renderBulk(byKeyLabel) {
    var jobs = {}, last = {};
    byKeyLabel.series.forEach(function (s) {
      if (!s.group.label || String(s.group.key).indexOf('bulk:') !== 0) return;
      var name = String(s.group.key).slice(5);
      (jobs[name] = jobs[name] || []).push(s);
      s.points.forEach(function (p) { last[name] = Math.max(last[name] || 0, Date.parse(p.t)); });
    });
    var names = Object.keys(jobs).sort(function (a, b) { return (last[b] - last[a]) || (a < b ? -1 : a > b ? 1 : 0); });
    $('bulk-none').hidden = names.length > 0;
    $('bulk-job').hidden = names.length === 0;
    if (names.length === 0) return;
    if (names.indexOf(job) < 0) job = names[0];
    var select = $('bulk-select');
    if (Array.prototype.map.call(select.options, function (o) { return o.value; }).join('\n') !== names.join('\n')) {
      select.replaceChildren.apply(select, names.map(function (n) { var o = document.createElement('option'); o.value = n; o.textContent = n; return o; }));
    }
    select.value = job;
    var series = jobs[job].sort(function (a, b) { return b.totals.items - a.totals.items; });
    var texts = 0, confidence = new Array(10).fill(0), zxx = 0;
    series.forEach(function (s) {
      texts += s.totals.items;
      s.totals.confidence.forEach(function (n, i) { confidence[i] += n; });
      if (s.group.label === ZXX) zxx += s.totals.items;
    });
    $('b-texts').textContent = fmt(texts);
    $('b-labels').textContent = fmt(series.length);
    $('b-zxx').textContent = pct(zxx, texts);
    $('b-confident').textContent = pct(confidence[9], texts);
    fill('t-bulk-labels', labelRows(series));
    var most = Math.max.apply(null, confidence.concat([1]));
    var body = $('t-bulk-confidence').querySelector('tbody');
    body.replaceChildren.apply(body, confidence.map(function (n, i) {
      var tr = row([(i / 10).toFixed(1) + '–' + ((i + 1) / 10).toFixed(1), fmt(n), pct(n, texts)]);
      var td = document.createElement('td'), bar = document.createElement('span');
      bar.className = 'bar';
      bar.style.width = (100 * n / most).toFixed(1) + '%';
      td.appendChild(bar);
      tr.appendChild(td);
      return tr;
    }).reverse());
  }

  function renderPipeline(p) {
    $('pipeline-note').hidden = p !== null;
    $('pipeline-body').hidden = p === null;
    if (p === null) return;
    fill('t-lag', p.consumer_groups.map(function (g) { return [g.group, g.topic, fmt(g.lag)]; }));
    fill('t-workers', p.workers.map(function (w) {
      var loaded = w.models.filter(function (m) { return m.loaded; });
      return [w.capability, w.instance_id.slice(0, 8), loaded.map(function (m) { return m.name; }).join(', ') || '(none)',
        fmt(loaded.reduce(function (n, m) { return n + m.queue_depth; }, 0)), (w.last_heartbeat_ms / 1000).toFixed(1) + ' s ago'];
    }));
  }

  /** the pipeline view; null for a key that is not an admin key (its analytics' scope is the key, not every key) */
  function pipeline(scope) {
    if (scope !== 'all keys') return Promise.resolve(null);
    return authorized('/v1/analytics/pipeline').then(answer);
  }

  function refresh() {
    var gen = generation;
    var to = Date.now();
    range = { from: String(to - Number($('range').value)), to: String(to) };
    Promise.all([query({}), query({ group_by: 'status,code' }), query({ group_by: 'capability,model' }),
      query({ group_by: 'label', capability: 'language-id', status: '200', source: 'gateway' }),
      query({ group_by: 'key,label', capability: 'language-id', status: '200', source: 'bulk' })])
      .then(function (r) { return pipeline(r[0].scope).then(function (p) { return r.concat([p]); }); })
      .then(function (r) {
        if (gen !== generation) return;
        $('status').textContent = 'updated ' + new Date().toLocaleTimeString() + ' · ' + r[0].scope;
        $('main').hidden = false;
        render(r[0], r[1], r[2], r[3]);
        renderBulk(r[4]);
        renderPipeline(r[5]);
      })
      .catch(function (err) {
        if (gen !== generation) return;
        $('status').textContent = err.message;
        // a key refused: nothing of what an earlier key saw stays on the page
        if (err.status === 401 || err.status === 403) $('main').hidden = true;
      });
  }

  $('bulk-select').addEventListener('change', function () { job = $('bulk-select').value; refresh(); });
  $('key-form').addEventListener('submit', function (e) {
    e.preventDefault();
    if ($('key').value) sessionStorage.setItem('lmstream-key', $('key').value);
    $('key').value = '';
    // a new key starts from nothing: the earlier key's figures leave the page at once
    generation++;
    job = null;
    $('main').hidden = true;
    $('status').textContent = 'loading…';
    if (timer) clearInterval(timer);
    refresh();
    timer = setInterval(refresh, REFRESH_MS);
  });
  if (sessionStorage.getItem('lmstream-key')) { refresh(); timer = setInterval(refresh, REFRESH_MS); }
})();
