// The dashboard page: static HTML and one script, no build step. The token is never in the page: the
// user brings it (in the address's #token= fragment, which browsers do not send, or typed in), and it is
// kept in sessionStorage. Everything from the daemon is written with textContent (a strategy name or a
// denial sentence cannot inject HTML), and numbers are formatted from their decimal strings with the
// locale's separators, never through a JS number.

/** The page's Content-Security-Policy: its own scripts only, no inline script, no other site. */
export const DASHBOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export const DASHBOARD_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tradebot dashboard</title>
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 0; background: #f6f7f9; color: #1d232b; }
  header { display: flex; flex-wrap: wrap; gap: 16px; align-items: center; padding: 10px 16px; background: #1d232b; color: #fff; }
  header h1 { font-size: 18px; margin: 0; }
  header .mode { padding: 2px 8px; border-radius: 4px; background: #445; }
  main { padding: 12px 16px; }
  #notice { min-height: 1.4em; margin: 4px 0; }
  #notice.error { color: #b00020; }
  section.bot { background: #fff; border: 1px solid #d9dde3; border-radius: 6px; padding: 10px 14px; margin-bottom: 14px; }
  section.bot h2 { font-size: 16px; margin: 0 8px 0 0; display: inline-block; }
  .badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; margin-right: 6px; background: #e3e7ec; }
  .badge.ACTIVE { background: #d6f5dd; } .badge.REDUCING { background: #fff1c2; } .badge.HALTED { background: #ffd6d6; }
  .badge.paused, .badge.state.PAUSED { background: #ffe2b8; } .badge.degraded { background: #ffb3b3; font-weight: 600; }
  .degraded-why { color: #b00020; margin: 4px 0; } .drift-alarm { background: #ffb3b3; font-weight: 600; }
  [hidden] { display: none !important; }
  /* Nothing is wider than the screen: long words (a strategy's parameters, a sentence) wrap anywhere. */
  section.bot, #notice, #log, table.data td, .strategy { overflow-wrap: anywhere; }
  .summary { display: flex; flex-wrap: wrap; column-gap: 14px; }
  .summary span { white-space: nowrap; }
  .controls { margin: 8px 0; display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
  .controls input { width: 22em; max-width: 100%; box-sizing: border-box; }
  .chart { height: 180px; margin: 6px 0; }
  /* table.data: the page's own tables; the chart library lays its plot and axes out in a table of its own. */
  table.data { border-collapse: collapse; margin: 4px 0 10px; font-size: 13px; }
  table.data th, table.data td { border-bottom: 1px solid #e6e9ee; padding: 2px 8px; text-align: left; }
  table.data td.num { text-align: right; font-variant-numeric: tabular-nums; }
  table.data td.empty { color: #888; font-style: italic; }
  h3 { font-size: 13px; margin: 8px 0 2px; color: #556; }
  .cols { display: flex; flex-wrap: wrap; gap: 18px; }
  .cols > div { min-width: 0; max-width: 100%; }
  #log { background: #11161c; color: #cfd8e3; font: 12px/1.4 ui-monospace, monospace; padding: 8px; max-height: 260px; overflow-y: auto; overflow-x: hidden; white-space: pre-wrap; }
  /* A phone: each table row is a card of "column: value" lines (a row of eight columns does not fit 390 px). */
  @media (max-width: 640px) {
    main { padding: 8px; }
    section.bot { padding: 8px; }
    table.data, table.data thead, table.data tbody, table.data tfoot, table.data tr, table.data th, table.data td { display: block; }
    table.data { width: 100%; }
    table.data thead { display: none; }
    table.data tbody tr { border-bottom: 1px solid #d9dde3; padding: 4px 0; }
    table.data td { display: flex; justify-content: space-between; gap: 12px; border: 0; padding: 1px 4px; }
    table.data td.num { text-align: right; }
    table.data td::before { content: attr(data-label); color: #667; flex: none; }
  }
  #log .warn { color: #ffcf70; }
  .stale { color: #b00020; }
</style>
</head>
<body>
<header>
  <h1>tradebot</h1>
  <span>venue clock <strong id="clock">-</strong></span>
  <span>session <strong id="session">-</strong></span>
  <span id="venue"></span>
  <span class="mode" id="mode">connecting</span>
  <form id="token-form" hidden>
    <label>token <input id="token" type="password" autocomplete="off" size="24"></label>
    <button type="submit">connect</button>
  </form>
</header>
<main>
  <div id="notice"></div>
  <div id="bots"></div>
  <h3>log</h3>
  <div id="log"></div>
</main>
<script src="/assets/lightweight-charts.js"></script>
<script src="/assets/dashboard.js"></script>
</body>
</html>
`;

export const DASHBOARD_SCRIPT = String.raw`'use strict';
(function () {
  var KEY = 'tradebot-dashboard-token';
  var token = sessionStorage.getItem(KEY) || '';
  var m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (m) {
    token = decodeURIComponent(m[1]);
    sessionStorage.setItem(KEY, token);
    history.replaceState(null, '', location.pathname + location.search);
  }
  var state = null;
  var charts = {};
  var readOnly = false;
  var logLines = [];

  // The page's locale, as Intl accepts it: under LANG=C.UTF-8 Chromium answers "en-US@posix", which Intl
  // (and the chart library, which formats with navigator.language) refuses; its base tag is kept.
  var LOCALE = (function () {
    var tags = [navigator.language, String(navigator.language).split('@')[0], 'en-US'];
    for (var i = 0; i < tags.length; i++) {
      try { new Intl.NumberFormat(tags[i]); return tags[i]; } catch (e) { /* next */ }
    }
    return 'en-US';
  })();
  // Separators of the page's locale; the digits come from the decimal string itself.
  var parts = new Intl.NumberFormat(LOCALE).formatToParts(1234567.5);
  var GROUP = ',', POINT = '.';
  parts.forEach(function (p) { if (p.type === 'group') GROUP = p.value; if (p.type === 'decimal') POINT = p.value; });

  /** Decimal places of a decimal string ("151.9" -> 1). */
  function decimals(s) {
    var t = String(s), i = t.indexOf('.');
    return i < 0 ? 0 : t.length - i - 1;
  }

  /**
   * Formats a decimal string with dp decimals, grouped, without going through a JS number. Rounds half to
   * even, as every other display of money does (formatAmount on the server): 0.125 shows 0.12, 0.135 0.14.
   */
  function fmt(s, dp) {
    if (s === undefined || s === null || s === '') return '-';
    var t = String(s).trim();
    var neg = t.charAt(0) === '-';
    if (neg || t.charAt(0) === '+') t = t.slice(1);
    if (!/^\d+(\.\d+)?$/.test(t)) return String(s);
    var ip = t.split('.')[0], fp = t.split('.')[1] || '';
    if (dp === undefined) dp = fp.length;
    if (fp.length > dp) {
      var first = fp.charCodeAt(dp) - 48;
      var tail = /[1-9]/.test(fp.slice(dp + 1));
      var kept = dp > 0 ? fp.charCodeAt(dp - 1) - 48 : ip.charCodeAt(ip.length - 1) - 48;
      var roundUp = first > 5 || (first === 5 && (tail || kept % 2 === 1));
      fp = fp.slice(0, dp);
      if (roundUp) {
        var digits = (ip + fp).split('');
        var i = digits.length - 1;
        while (i >= 0) {
          if (digits[i] === '9') { digits[i] = '0'; i--; } else { digits[i] = String(Number(digits[i]) + 1); break; }
        }
        if (i < 0) digits.unshift('1');
        var all = digits.join('');
        ip = all.slice(0, all.length - dp);
        fp = all.slice(all.length - dp);
      }
    } else {
      while (fp.length < dp) fp += '0';
    }
    ip = ip.replace(/^0+(?=\d)/, '');
    var grouped = ip.replace(/\B(?=(\d{3})+(?!\d))/g, GROUP);
    var out = grouped + (dp > 0 ? POINT + fp : '');
    var zero = /^[0]*$/.test(ip + fp);
    return (neg && !zero ? '-' : '') + out;
  }
  function etTime(ms) {
    if (ms === undefined || ms === null) return '-';
    var d = new Date(ms);
    return new Intl.DateTimeFormat(LOCALE, { timeZone: 'America/New_York', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false }).format(d) + ' ET';
  }
  function shortTime(ms) {
    return new Intl.DateTimeFormat(LOCALE, { timeZone: 'America/New_York', hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false }).format(new Date(ms));
  }
  /** A row's time: the venue's clock, with its zone. */
  function rowTime(ms) {
    return ms === undefined || ms === null ? '-' : shortTime(ms) + ' ET';
  }
  function hourMinute(ms) {
    return new Intl.DateTimeFormat(LOCALE, { timeZone: 'America/New_York', hour: '2-digit', minute: '2-digit', hour12: false }).format(new Date(ms));
  }
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function notice(text, isError) {
    var n = document.getElementById('notice');
    n.textContent = text;
    n.className = isError ? 'error' : '';
  }
  function headers(json) {
    var h = {};
    if (token) h.Authorization = 'Bearer ' + token;
    if (json) h['Content-Type'] = 'application/json';
    return h;
  }

  function table(cls, head, rows) {
    var t = el('table');
    t.className = 'data ' + cls;
    var tr = el('tr');
    head.forEach(function (h) { tr.appendChild(el('th', h)); });
    var th = el('thead'); th.appendChild(tr); t.appendChild(th);
    var tb = el('tbody');
    rows.forEach(function (r) {
      // Each cell knows its column, for the phone layout's "column: value" lines.
      for (var i = 0; i < r.cells.length; i++) r.cells[i].dataset.label = head[i] || '';
      tb.appendChild(r);
    });
    t.appendChild(tb);
    if (rows.length === 0) {
      // An empty table says so (below the body: the body holds data rows only).
      var none = el('td', 'none', 'empty');
      none.colSpan = head.length;
      var ft = el('tfoot'); var fr = el('tr'); fr.appendChild(none); ft.appendChild(fr); t.appendChild(ft);
    }
    return t;
  }
  function row(cells, attrs) {
    var tr = el('tr');
    cells.forEach(function (c) {
      if (c instanceof Node) { var td = el('td'); td.appendChild(c); tr.appendChild(td); }
      else if (c && typeof c === 'object') tr.appendChild(el('td', c.num, 'num'));
      else tr.appendChild(el('td', c));
    });
    if (attrs) Object.keys(attrs).forEach(function (k) { tr.dataset[k] = attrs[k]; });
    return tr;
  }

  /** What Flatten and Halt do, asked before they are sent: a click by mistake must not sell or stop a bot. */
  var CONFIRM = {
    flatten: function (bot, symbol) { return 'Flatten ' + bot + (symbol ? ' ' + symbol : ': every position') + '? It sells at market and pauses new entries until you resume the bot.'; },
    halt: function (bot) { return 'Halt ' + bot + '? Nothing is placed, not even a flatten, until it is re-armed.'; },
  };

  function control(bot, action, symbol) {
    if (CONFIRM[action] && !window.confirm(CONFIRM[action](bot, symbol))) {
      notice(action + ' ' + bot + (symbol ? ' ' + symbol : '') + ': cancelled, nothing sent');
      return;
    }
    var input = document.querySelector('section.bot[data-bot="' + bot + '"] input.reason');
    var reason = (input && input.value.trim()) || 'from the dashboard';
    var body = { reason: reason };
    if (symbol) body.symbol = symbol;
    notice(action + ' ' + bot + (symbol ? ' ' + symbol : '') + ' ...');
    fetch('/api/bots/' + encodeURIComponent(bot) + '/' + action, { method: 'POST', headers: headers(true), body: JSON.stringify(body) })
      .then(function (r) { return r.json().then(function (j) { return { ok: r.ok, status: r.status, j: j }; }); })
      .then(function (x) {
        if (x.ok) notice(x.j.done || action + ' ' + bot + (symbol ? ' ' + symbol : '') + ': done');
        else notice(action + ' ' + bot + ' refused (' + x.status + '): ' + x.j.error, true);
      })
      .catch(function (e) { notice(action + ' failed: ' + e, true); });
  }

  function botSection(b) {
    var s = document.querySelector('section.bot[data-bot="' + b.name + '"]');
    if (s) return s;
    s = el('section', null, 'bot');
    s.dataset.bot = b.name;
    s.id = 'bot-' + b.name;
    var h = el('div', null, 'title');
    h.appendChild(el('h2', b.name));
    h.appendChild(el('span', '', 'badge state'));
    h.appendChild(el('span', '', 'badge paused'));
    h.appendChild(el('span', '', 'badge degraded'));
    h.appendChild(el('span', '', 'strategy'));
    s.appendChild(h);
    s.appendChild(el('div', '', 'degraded-why'));
    s.appendChild(el('div', '', 'summary'));
    var c = el('div', null, 'controls');
    var reason = el('input', null, 'reason');
    reason.placeholder = 'reason (journaled)';
    c.appendChild(reason);
    [['pause', 'Pause'], ['resume', 'Resume'], ['flatten', 'Flatten all'], ['halt', 'Halt'], ['rearm', 'Re-arm']].forEach(function (a) {
      var btn = el('button', a[1]);
      btn.type = 'button';
      btn.dataset.action = a[0];
      btn.addEventListener('click', function () { control(b.name, a[0]); });
      c.appendChild(btn);
    });
    s.appendChild(c);
    var chart = el('div', null, 'chart');
    chart.id = 'chart-' + b.name;
    s.appendChild(chart);
    s.appendChild(el('div', null, 'tables'));
    document.getElementById('bots').appendChild(s);
    if (window.LightweightCharts) {
      var ch = LightweightCharts.createChart(chart, {
        // As wide as its box, whatever the screen (a fixed width would push a phone's page sideways).
        autoSize: true,
        // Times on the venue's clock in Eastern Time, like the tables (the library would show UTC).
        localization: { locale: LOCALE, timeFormatter: function (t) { return shortTime(t * 1000); } },
        layout: { attributionLogo: false },
        timeScale: { timeVisible: true, secondsVisible: false, tickMarkFormatter: function (t) { return hourMinute(t * 1000); } },
      });
      var series = ch.addSeries(LightweightCharts.LineSeries, { lineWidth: 2, color: '#2962ff' });
      charts[b.name] = { chart: ch, series: series, last: 0, box: chart };
    }
    return s;
  }

  function equityPoint(bot, p) {
    var c = charts[bot];
    if (!c || p.time < c.last) return;
    c.series.update({ time: p.time, value: Number(p.value) });
    c.last = p.time;
    wholeRun(c);
  }
  /** The whole run in view (the library would show the last hundred points or so), its span on the box. */
  function wholeRun(c) {
    c.chart.timeScale().fitContent();
    var data = c.series.data();
    if (data.length) { c.box.dataset.from = String(data[0].time); c.box.dataset.to = String(data[data.length - 1].time); }
    // What the chart shows, once it has drawn the fit (the span in view lags a frame behind).
    requestAnimationFrame(function () {
      var shown = c.chart.timeScale().getVisibleRange();
      if (shown) { c.box.dataset.shownFrom = String(shown.from); c.box.dataset.shownTo = String(shown.to); }
    });
  }

  function renderBot(b) {
    var s = botSection(b);
    s.dataset.state = b.tradingState;
    s.dataset.paused = String(b.paused);
    var st = s.querySelector('.badge.state');
    st.textContent = b.tradingState;
    st.className = 'badge state ' + b.tradingState;
    var pb = s.querySelector('.badge.paused');
    // A pause the state does not show (under a halt): its own badge; PAUSED is the state otherwise.
    var pausedUnder = b.paused && b.tradingState !== 'PAUSED';
    pb.textContent = pausedUnder ? 'PAUSED' : '';
    pb.hidden = !pausedUnder;
    // A starving feed: DEGRADED, and why, in the bot's own words (the same sentences as /readyz and the log).
    var degraded = b.health !== undefined && b.health.state === 'DEGRADED';
    s.dataset.health = b.health === undefined ? 'unknown' : b.health.state;
    var db = s.querySelector('.badge.degraded');
    db.textContent = degraded ? 'DEGRADED' : '';
    db.hidden = !degraded;
    var why = s.querySelector('.degraded-why');
    why.textContent = degraded ? b.health.problems.join('; ') : '';
    why.hidden = !degraded;
    s.querySelector('.strategy').textContent = b.strategy + (b.params ? ' ' + JSON.stringify(b.params) : '') + ' on ' + b.symbols.join(', ') + ' ' + b.interval;
    var sum = s.querySelector('.summary');
    sum.textContent = '';
    [['equity', b.equity], ['cash', b.cash], ['realised PnL', b.realisedPnl], ['unrealised PnL', b.unrealisedPnl], ['fees', b.fees]].forEach(function (x) {
      var sp = el('span', x[0] + ' ' + fmt(x[1], 2) + ' ' + b.quoteCoin);
      sp.dataset.k = x[0];
      sum.appendChild(sp);
    });
    sum.appendChild(el('span', 'intents ' + b.counts.intents + ', denials ' + b.counts.denials + ', orders ' + b.counts.orders + ', fills ' + b.counts.fills));
    if (b.exitBlocked) {
      // An exit the bot's own resting limit sells hold back (EXIT_BLOCKED): the venue has no cancel.
      var xb = el('span', 'exits blocked ' + b.exitBlocked.count + ': first ' + b.exitBlocked.first.tag + ' on ' + b.exitBlocked.first.symbol + (b.exitBlocked.first.blockedBy ? ', blocked by order ' + b.exitBlocked.first.blockedBy : '') + ' (a resting limit sell holds the position)', 'exit-blocked');
      xb.dataset.k = 'exits blocked';
      sum.appendChild(xb);
    }
    s.querySelectorAll('.controls button').forEach(function (btn) { btn.disabled = readOnly; });
    s.querySelector('.controls input').disabled = readOnly;

    var t = s.querySelector('.tables');
    t.textContent = '';
    var left = el('div'), right = el('div');
    var cols = el('div', null, 'cols'); cols.appendChild(left); cols.appendChild(right);
    left.appendChild(el('h3', 'positions'));
    left.appendChild(table('positions', ['symbol', 'size', 'avg price', 'mark', 'unrealised', 'realised', 'fees', 'flatten'], b.positions.map(function (p) {
      var btn = el('button', 'Flatten');
      btn.type = 'button';
      btn.dataset.action = 'flatten';
      btn.dataset.symbol = p.symbol;
      btn.disabled = readOnly;
      btn.addEventListener('click', function () { control(b.name, 'flatten', p.symbol); });
      return row([p.symbol, { num: fmt(p.quantity) + ' ' + p.baseCoin }, { num: fmt(p.avgPrice, 4) }, { num: fmt(p.mark, 4) }, { num: fmt(p.unrealisedPnl, 2) }, { num: fmt(p.realisedPnl, 2) }, { num: fmt(p.fees, 2) }, btn], { symbol: p.symbol, qty: p.quantity });
    })));
    if (b.dust && b.dust.length > 0) {
      // Below the venue's minimum order quantity: no trade, no order can sell it alone (shown apart).
      left.appendChild(el('h3', 'dust'));
      left.appendChild(table('dust', ['symbol', 'size'], b.dust.map(function (d) {
        return row([d.symbol, { num: fmt(d.quantity) + ' ' + d.baseCoin }], { symbol: d.symbol });
      })));
    }
    if (b.margin) {
      // A MARGIN bot's own account of its loans, as tradebot status shows it (docs/margin.md).
      var m = b.margin;
      left.appendChild(el('h3', 'margin: risk ratio ' + fmt(m.riskRatio, 4) + ' (' + m.state + ', warning at ' + m.warningRiskRatio + '), interest ' + fmt(m.interest) + ' owed, ' + fmt(m.interestPaid) + ' paid ' + b.quoteCoin));
      left.appendChild(table('loans', ['coin', 'borrowed', 'basis', 'interest'], m.loans.map(function (l) {
        return row([l.coin, { num: fmt(l.borrowed) }, { num: fmt(l.basis) + ' ' + b.quoteCoin }, { num: fmt(l.interest) + ' ' + b.quoteCoin }], { coin: l.coin });
      })));
    }
    left.appendChild(el('h3', 'feeds'));
    left.appendChild(table('feeds', ['symbol', 'last', 'bid', 'ask', 'age'], b.feeds.map(function (f) {
      var age = f.ageMs === undefined || f.ageMs === null ? 'no data' : (f.ageMs / 1000).toFixed(0) + ' s' + (f.stale ? ' (stale)' : '');
      var r = row([f.symbol, { num: fmt(f.last) }, { num: fmt(f.bid) }, { num: fmt(f.ask) }, age], { symbol: f.symbol });
      if (f.stale) r.className = 'stale';
      return r;
    })));
    left.appendChild(el('h3', 'open orders'));
    left.appendChild(table('open-orders', ['symbol', 'side', 'type', 'qty', 'price', 'filled'], b.openOrders.map(function (o) {
      return row([o.symbol, o.side, o.type, { num: fmt(o.qty) }, { num: fmt(o.price) }, { num: fmt(o.filled) }]);
    })));
    left.appendChild(el('h3', 'exits and protections'));
    left.appendChild(table('rules', ['kind', 'rule', 'value'], b.rules.map(function (r) {
      return row([r.kind, r.name, r.value], { rule: r.name });
    }).concat(b.locks.map(function (l) {
      return row(['lock', l.protection + (l.symbol ? ' ' + l.symbol : ''), 'until ' + l.until + ': ' + l.reason], { rule: 'lock' });
    }))));
    left.appendChild(el('h3', 'control actions'));
    // Not "controls": that is the button row's class, whose flex layout laid this table out sideways.
    left.appendChild(table('control-actions', ['time', 'action', 'who', 'reason'], b.controls.slice().reverse().map(function (c) {
      return row([rowTime(c.ts), c.action + (c.symbol ? ' ' + c.symbol : ''), c.who || '', c.reason], { action: c.action });
    })));
    // The newest drift check: live against the replay of the venue's candles; unexplained is an alarm.
    left.appendChild(el('h3', 'drift'));
    var dr = b.drift ? [row([b.drift.from + ' to ' + b.drift.to, { num: String(b.drift.differences) }, { num: String(b.drift.unexplained) }, b.drift.alarms.join('; ') || 'none'], { unexplained: String(b.drift.unexplained) })] : [];
    if (b.drift && b.drift.unexplained > 0) dr[0].className = 'drift-alarm';
    left.appendChild(table('drift', ['span', 'differences', 'unexplained', 'alarm'], dr));
    right.appendChild(el('h3', 'fills'));
    // A symbol's sizes and prices with the decimals of its longest one, so the points line up. An estimated
    // buy's price (its quote amount over its size, to 12 places) does not set them: shown rounded, marked.
    var dp = {};
    b.fills.forEach(function (f) {
      var d = dp[f.symbol] || (dp[f.symbol] = { size: 0, price: -1 });
      d.size = Math.max(d.size, decimals(f.size));
      if (!(f.estimated && f.side === 'buy')) d.price = Math.max(d.price, decimals(f.price));
    });
    right.appendChild(table('fills', ['time', 'symbol', 'side', 'size', 'price', 'fee'], b.fills.slice().reverse().map(function (f) {
      var d = dp[f.symbol];
      var price = fmt(f.price, d.price < 0 ? 4 : d.price);
      return row([rowTime(f.ts), f.symbol, f.liquidation ? f.side + ' LIQUIDATED' : f.side, { num: fmt(f.size, d.size) + ' ' + f.baseCoin }, { num: f.estimated ? '\u2248' + price : price }, { num: fmt(f.fee, 4) }], { side: f.side, symbol: f.symbol, estimated: f.estimated ? 'yes' : '', liquidation: f.liquidation ? 'yes' : '' });
    })));
    if (b.fills.some(function (f) { return f.estimated; }))
      right.appendChild(el('p', '\u2248 estimated (fills: estimated): booked from the order\u2019s acknowledgement at the touch, not read from the venue'));
    right.appendChild(el('h3', 'orders'));
    // Each order with its size's coin, and its fills: the size filled (base coin) at the average price.
    right.appendChild(table('orders', ['time', 'symbol', 'side', 'type', 'size', 'filled', 'avg price', 'status', 'why'], b.orders.slice().reverse().map(function (o) {
      return row([rowTime(o.ts), o.symbol, o.side, o.type, { num: fmt(o.qty) + ' ' + o.unit }, { num: fmt(o.filled) + ' ' + o.baseCoin }, { num: o.avgPrice === undefined ? '-' : fmt(o.avgPrice, 4) }, o.status, o.tag + (o.reason ? ': ' + o.reason : '') + (o.message ? ' (' + o.message + ')' : '')], { status: o.status, tag: o.tag });
    })));
    right.appendChild(el('h3', 'denials'));
    right.appendChild(table('denials', ['time', 'symbol', 'side', 'code', 'sentence'], b.denials.slice().reverse().map(function (d) {
      return row([rowTime(d.ts), d.symbol, d.side, d.code, d.message], { code: d.code });
    })));
    t.appendChild(cols);
  }

  function render(st) {
    state = st;
    readOnly = st.readOnly;
    document.getElementById('clock').textContent = etTime(st.now);
    var ses = st.session;
    document.getElementById('session').textContent = ses ? ses.session + (ses.closure ? ' (' + ses.closure + ')' : '') + ', next change ' + etTime(ses.nextChange) : '-';
    document.getElementById('venue').textContent = st.venue ? (st.venue.kind === 'paper' ? 'PAPER' : st.venue.kind) + (st.venue.speed !== 1 ? ' at ' + st.venue.speed + 'x' : '') : '';
    st.bots.forEach(renderBot);
    document.body.dataset.rendered = '1';
  }

  function addLog(line) {
    logLines.push(line);
    if (logLines.length > 200) logLines.shift();
    var box = document.getElementById('log');
    var d = el('div', shortTime(line.ts) + ' ' + line.bot + ' ' + line.text, line.level);
    box.appendChild(d);
    while (box.childNodes.length > 200) box.removeChild(box.firstChild);
    box.scrollTop = box.scrollHeight;
  }

  function setMode(text) { document.getElementById('mode').textContent = text; document.body.dataset.mode = text; }

  function handle(event, data) {
    var j = JSON.parse(data);
    if (event === 'state') render(j);
    else if (event === 'log') addLog(j);
    else if (event === 'equity') equityPoint(j.bot, j);
    else if (event === 'hello') {
      document.getElementById('log').textContent = '';
      j.log.forEach(addLog);
      Object.keys(j.equity).forEach(function (bot) {
        pending[bot] = j.equity[bot];
      });
    }
  }
  var pending = {};
  function flushPending() {
    Object.keys(pending).forEach(function (bot) {
      var c = charts[bot];
      if (!c) return;
      var pts = pending[bot].map(function (p) { return { time: p.time, value: Number(p.value) }; });
      c.series.setData(pts);
      c.last = pts.length ? pts[pts.length - 1].time : 0;
      wholeRun(c);
      delete pending[bot];
    });
  }

  function stream() {
    fetch('/api/events', { headers: headers(false) }).then(function (r) {
      if (r.status === 401) { askToken('the token was refused: enter the dashboard token'); return; }
      if (!r.ok || !r.body) throw new Error('stream answered ' + r.status);
      setMode('streaming');
      var reader = r.body.getReader();
      var dec = new TextDecoder();
      var buf = '';
      function pump() {
        return reader.read().then(function (x) {
          if (x.done) throw new Error('stream ended');
          buf += dec.decode(x.value, { stream: true });
          var i;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            var block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            var ev = 'message', data = '';
            block.split('\n').forEach(function (l) {
              if (l.indexOf('event: ') === 0) ev = l.slice(7);
              else if (l.indexOf('data: ') === 0) data += l.slice(6);
            });
            if (data) { handle(ev, data); flushPending(); }
          }
          return pump();
        });
      }
      return pump();
    }).catch(function (e) {
      setMode('reconnecting');
      notice('live stream lost (' + e.message + '); reconnecting', true);
      setTimeout(stream, 2000);
    });
  }

  // Without the stream (read-only) the equity curves come by polling: the whole curve first, then the
  // points from the last one drawn (a second's last point is updated in place, so it comes again).
  function pollEquity() {
    var since = Infinity;
    Object.keys(charts).forEach(function (bot) { since = Math.min(since, charts[bot].last); });
    fetch('/api/equity?since=' + (since === Infinity ? 0 : since), { headers: headers(false) }).then(function (r) {
      return r.ok ? r.json() : null;
    }).then(function (j) {
      if (!j) return;
      Object.keys(j.equity).forEach(function (bot) {
        var c = charts[bot];
        if (!c) return;
        if (c.last === 0) pending[bot] = j.equity[bot];
        else j.equity[bot].forEach(function (p) { equityPoint(bot, p); });
      });
      flushPending();
    }).catch(function () { /* the next poll tries again */ });
  }

  function poll() {
    fetch('/api/bots', { headers: headers(false) }).then(function (r) {
      if (r.status === 401) { askToken(token ? 'the token was refused: enter the dashboard token' : 'this dashboard needs its token: enter it, or open the address with #token=<token>'); return null; }
      return r.json();
    }).then(function (st) {
      if (!st) return;
      render(st);
      if (st.readOnly) {
        setMode('read-only');
        notice('read-only: no token is configured on the daemon, control is disabled');
        document.getElementById('log').textContent = 'the log tail comes with the live stream: set dashboard.token to see it here';
        pollEquity();
        setTimeout(poll, 2000);
      } else stream();
    }).catch(function (e) { notice('cannot reach the daemon: ' + e.message, true); setTimeout(poll, 2000); });
  }

  function askToken(why) {
    setMode('token needed');
    notice(why, true);
    document.body.dataset.rendered = '1';
    var f = document.getElementById('token-form');
    f.hidden = false;
  }
  document.getElementById('token-form').addEventListener('submit', function (e) {
    e.preventDefault();
    token = document.getElementById('token').value.trim();
    sessionStorage.setItem(KEY, token);
    document.getElementById('token').value = '';
    document.getElementById('token-form').hidden = true;
    poll();
  });
  poll();
})();
`;
