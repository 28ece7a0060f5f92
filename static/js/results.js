/* The results page's charts and "how sure" sentence, from the page's analysis JSON.

   The page itself shows the verdict and the figures; this script fetches the analyses
   (#analysis-source data-url: /r/<code>/analysis.json or /saved/<id>/analysis.json), puts
   the Monte Carlo's sentence into the verdict and draws the charts. No arithmetic on costs
   happens here: every value plotted, and every word shown, comes from the server.

   The page's head preloads the analysis, and this script comes before plotly.js (all of them
   deferred), so the analysis is on its way while the browser evaluates plotly (about 0.3 s
   of its main thread on a small machine). The "how sure" sentence comes with the page (the
   server decides the verdict with the same Monte Carlo); when it does not, it goes in once
   the analysis has come and the main thread is free. The charts are drawn once every
   deferred script has run (DOMContentLoaded), those on the screen first (see `later`).

   Each chart's drawing is timed with the User Timing API (a performance measure named
   after the chart's element, "chart-cumulative", ...; a mark "verdict-confidence"), which
   benchmarks/browser.py reads. */
(function () {
  "use strict";

  var source = document.getElementById("analysis-source");
  if (!source) { return; }
  var BUILD = "#1f6feb", RENT = "#d9730d", MUTED = "#5b6475", GOOD = "#116329";
  var TONES = ["good", "warn", "bad", "neutral"];

  var confidence = document.getElementById("verdict-confidence");
  if (confidence) { confidence.hidden = false; }
  // The page usually comes with its "how sure" sentence (the server decided the verdict
  // with the same Monte Carlo); then it stays as it is, whatever becomes of the analysis.
  var badgeInPage = document.getElementById("confidence-badge");
  var sureInPage = !!(badgeInPage && badgeInPage.getAttribute("data-code"));

  function showStatus(text) {
    var status = document.getElementById("charts-status");
    if (status) { status.textContent = text; status.hidden = false; }
  }

  // The verdict with the Monte Carlo's answer, worded by the server: it may turn out too
  // uncertain to call, and it says the median of the draws beside the point figure.
  function setVerdict(v) {
    var box = document.getElementById("verdict");
    if (!box || !v) { return; }
    box.setAttribute("data-verdict", v.code);
    TONES.forEach(function (tone) { box.classList.remove("verdict-" + tone); });
    box.classList.add("verdict-" + v.tone);
    document.getElementById("headline-sentence").textContent = v.headline;
    var median = document.getElementById("verdict-median");
    if (median && v.median) { median.textContent = v.median; median.hidden = false; }
  }

  function setConfidence(part) {
    if (sureInPage) { return; }
    var badge = document.getElementById("confidence-badge");
    var text = document.getElementById("confidence-text");
    if (!badge || !text) { return; }
    if (!part || part.error || !part.confidence) {
      if (confidence) { confidence.hidden = true; }
      return;
    }
    TONES.forEach(function (tone) { badge.classList.remove("badge-" + tone); });
    badge.classList.add("badge-" + part.confidence.tone);
    badge.textContent = part.confidence.label;
    badge.setAttribute("data-code", part.confidence.code);
    badge.setAttribute("data-confidence", part.confidence.code);
    text.textContent = part.confidence.sentence;
  }

  function timing(name, start) {
    if (!window.performance || !performance.measure) { return; }
    try {
      if (start === undefined) { performance.mark(name); } else { performance.measure(name, { start: start, end: performance.now() }); }
    } catch (e) { /* an older browser without measure options: no timing, the page is the same */ }
  }

  // When the charts are drawn. plotly draws a chart in one stretch of script (50–200 ms on a
  // small machine); seven in a row kept the page from painting or answering for a second
  // after the data came. So the charts on the screen are drawn first, one after the other;
  // then the browser paints; the others follow one per task, in background priority, so
  // that the browser answers the visitor between them; a chart scrolled into view is drawn
  // at once (IntersectionObserver), and all of them before the page is printed. Every chart
  // is drawn whether or not it is ever scrolled to.
  var queue = [];

  function onScreen(el) {
    var box = el.getBoundingClientRect();
    return box.bottom > 0 && box.top < (window.innerHeight || document.documentElement.clientHeight);
  }

  // Draws a queued chart; the promise settles when it is drawn (or has failed) and never rejects.
  function run(job) {
    var at = queue.indexOf(job);
    if (at < 0) { return Promise.resolve(); }
    queue.splice(at, 1);
    try {
      return job.draw().then(job.resolve, job.reject);
    } catch (error) {
      job.reject(error);
      return Promise.resolve();
    }
  }

  var seen = "IntersectionObserver" in window ? new IntersectionObserver(function (entries) {
    entries.forEach(function (entry) {
      var job = queue.filter(function (j) { return j.el === entry.target; })[0];
      if (entry.isIntersecting && job) { run(job); }
      if (entry.isIntersecting || !job) { seen.unobserve(entry.target); }
    });
  }) : null;

  // a task of its own, behind anything the visitor does (the Prioritized Task Scheduling API
  // where there is one)
  function background(next) {
    if (window.scheduler && window.scheduler.postTask) {
      window.scheduler.postTask(next, { priority: "background" });
    } else {
      setTimeout(next, 0);
    }
  }

  // after the next paint: a task queued from the frame's animation callback
  function afterPaint(next) {
    window.requestAnimationFrame(function () { setTimeout(next, 0); });
  }

  // The charts on the screen now, one after the other; then, after a paint, the others one
  // per task.
  function pump() {
    var shown = queue.filter(function (job) { return onScreen(job.el); });
    var now = shown.length ? shown : queue.slice(0, 1);
    now.reduce(function (done, job) {
      return done.then(function () { return run(job); });
    }, Promise.resolve()).then(function () {
      if (!queue.length) { return; }
      if (shown.length) { afterPaint(function () { background(pump); }); } else { background(pump); }
    });
  }

  window.addEventListener("beforeprint", function () {
    while (queue.length) { run(queue[0]); }
  });

  function later(el, draw) {
    return new Promise(function (resolve, reject) {
      queue.push({ el: el, draw: draw, resolve: resolve, reject: reject });
      if (seen) { seen.observe(el); }
    });
  }

  // A chart's own layout; the house layout (static/js/charts.js) goes under it once the
  // element, and so the width it has, is known: when it is drawn.
  function draw(id, traces, extra) {
    var el = document.getElementById(id);
    if (!el) { return null; }
    return later(el, function () {
      var start = performance.now();
      var lay = typeof extra === "function" ? extra(el) : extra;
      return Plotly.newPlot(el, traces, ChartLayout.layout(el, lay, traces), ChartLayout.config(el)).then(function () {
        el.setAttribute("data-rendered", "true");
        timing(id, start);
      });
    });
  }

  function failed(id, message) {
    var el = document.getElementById(id);
    if (!el) { return; }
    var note = document.createElement("p");
    note.className = "chart-error";
    note.textContent = message;
    el.parentNode.insertBefore(note, el);
    el.hidden = true;
  }

  function vline(x, label, color) {
    return {
      shape: { type: "line", x0: x, x1: x, yref: "paper", y0: 0, y1: 1, line: { color: color, dash: "dot", width: 2 } },
      annotation: { x: x, yref: "paper", y: 1, text: label, showarrow: false, yanchor: "bottom", font: { color: color } }
    };
  }

  // charts.js runs after this script (see above): looked up when a chart is drawn
  function moneyAxis(title, extra) { return ChartLayout.moneyAxis(title, extra); }

  // a. cumulative cost, the resale value curve, break-even and the end net of resale
  function cumulative(data, L) {
    var c = data.cumulative;
    var shapes = [], notes = [];
    if (c.break_even_month !== null) {
      var be = vline(c.break_even_month, L.break_even, MUTED);
      shapes.push(be.shape); notes.push(be.annotation);
    }
    if (c.limit_months !== null && c.limit_months <= data.horizon_months) {
      var limit = vline(c.limit_months, c.limit_label, "#7d4e00");
      limit.annotation.yanchor = "top";
      limit.annotation.xanchor = "left";
      shapes.push(limit.shape); notes.push(limit.annotation);
    }
    return draw("chart-cumulative", [
      { x: c.months, y: c.build, name: L.build_cash, mode: "lines", line: { color: BUILD, width: 3 } },
      { x: c.months, y: c.rent, name: L.rent_cash, mode: "lines", line: { color: RENT, width: 3 } },
      { x: c.months, y: c.value_if_sold, name: L.value_if_sold, mode: "lines", line: { color: MUTED, dash: "dot", width: 2 } },
      { x: [data.horizon_months], y: [c.build_total_net], name: L.build_total_net, mode: "markers", marker: { color: BUILD, size: 12, symbol: "diamond" } }
    ], {
      title: { text: L.cumulative_title },
      xaxis: { title: { text: L.month } },
      yaxis: moneyAxis(L.cumulative_axis, { rangemode: "tozero" }),
      shapes: shapes, annotations: notes
    });
  }

  // b. the uncertainty fan: P10–P90 of rent minus build so far, and its median. The band
  // ends where the title's share is counted: at the horizon with the box sold, the engine's
  // percentiles of the savings (resale credited) after its running sum up to the horizon.
  function fan(data, L) {
    var u = data.uncertainty;
    if (u.error) { failed("chart-fan", u.error); return null; }
    var b = u.bands, end = u.savings, H = data.horizon_months;
    function sold(series, value) { return series.concat([value]); }
    var months = sold(b.months, H);
    return draw("chart-fan", [
      { x: months, y: sold(b.p90, end.p90), name: L.fan_p90, mode: "lines", line: { color: BUILD, width: 0 }, showlegend: false, hoverinfo: "skip" },
      { x: months, y: sold(b.p10, end.p10), name: L.fan_band, mode: "lines", line: { color: BUILD, width: 0 }, fill: "tonexty", fillcolor: "rgba(31,111,235,0.22)" },
      { x: months, y: sold(b.p50, end.p50), name: L.fan_p50, mode: "lines", line: { color: BUILD, width: 3 } },
      { x: [H, H, H], y: [end.p10, end.p50, end.p90], name: L.fan_sold, mode: "markers", marker: { color: BUILD, size: 10, symbol: "diamond" } }
    ], {
      title: { text: u.title },
      xaxis: { title: { text: L.month } },
      yaxis: moneyAxis(L.fan_axis, { zerolinecolor: "#1d2330", zerolinewidth: 2 })
    });
  }

  // c. tornado: each driver's savings at its low and high value, largest swing on top
  function tornadoChart(data, L) {
    var t = data.tornado;
    if (t.error) { failed("chart-tornado", t.error); return null; }
    var labels = t.rows.map(function (row) { return row.label; });
    var spanX = [], spanY = [];
    t.rows.forEach(function (row) {
      spanX.push(row.savings_low, row.savings_high, null);
      spanY.push(row.label, row.label, null);
    });
    return draw("chart-tornado", [
      { x: spanX, y: spanY, mode: "lines", line: { color: "#9cbcf8", width: 14 }, showlegend: false, hoverinfo: "skip", name: "" },
      { x: t.rows.map(function (row) { return row.savings_low; }), y: labels, name: L.tornado_low, mode: "markers", marker: { color: RENT, size: 11, symbol: "circle" } },
      { x: t.rows.map(function (row) { return row.savings_high; }), y: labels, name: L.tornado_high, mode: "markers", marker: { color: BUILD, size: 11, symbol: "square" } }
    ], function (el) {
      var base = vline(t.base_savings, L.tornado_base, MUTED);
      var phone = ChartLayout.narrow(el);
      var yaxis = { type: "category", autorange: "reversed", categoryorder: "array", categoryarray: labels };
      var annotations = [base.annotation];
      if (phone) {
        // No room for labels beside the bars: each row's label goes above its bar, full width.
        yaxis.showticklabels = false;
        labels.forEach(function (label) {
          annotations.push({ xref: "paper", x: 0, xanchor: "left", yref: "y", y: label, yanchor: "bottom",
                             yshift: 9, align: "left", showarrow: false, font: { size: 11 },
                             text: ChartLayout.wrap(label, el.clientWidth - 40, 11) });
        });
      } else {
        yaxis.tickmode = "array";
        yaxis.tickvals = labels;
        yaxis.ticktext = labels.map(function (text) { return ChartLayout.wrap(text, 220, 11); });
      }
      return {
        title: { text: L.tornado_title },
        hovermode: "closest",
        margin: phone ? { l: 12 } : {},
        xaxis: moneyAxis(L.tornado_axis),
        yaxis: yaxis,
        shapes: [base.shape], annotations: annotations
      };
    });
  }

  // d. fleet: present value of owning k boxes and renting the rest, renting all as a line
  function fleetChart(data, L) {
    var f = data.fleet;
    if (!f) { return null; }
    if (f.error) { failed("chart-fleet", f.error); return null; }
    var boxes = f.rows.map(function (row) { return row.boxes; });
    var traces = [
      { type: "bar", x: boxes, y: f.rows.map(function (row) { return row.build_present_value; }), name: L.fleet_build,
        marker: { color: f.rows.map(function (row) { return row.boxes === f.best_boxes ? GOOD : "#9cbcf8"; }) } },
      { x: [boxes[0], boxes[boxes.length - 1]], y: [f.rent_present_value, f.rent_present_value], name: L.fleet_rent, mode: "lines",
        line: { color: RENT, width: f.best_boxes === 0 ? 4 : 2, dash: f.best_boxes === 0 ? "solid" : "dash" } }
    ];
    if (f.best_present_value !== null) {
      traces.push({ x: [f.best_boxes], y: [f.best_present_value], name: L.fleet_best, mode: "markers", marker: { color: GOOD, size: 14, symbol: "star" } });
    }
    var note = document.getElementById("fleet-note");
    if (note && f.note) { note.textContent = f.note + " " + note.textContent; }
    return draw("chart-fleet", traces, {
      title: { text: L.fleet_title },
      hovermode: "closest",
      xaxis: { title: { text: L.fleet_boxes }, dtick: 1 },
      yaxis: moneyAxis(L.fleet_axis, { rangemode: "tozero" })
    });
  }

  // e. heatmap utilization × horizon, the zero-savings contour, this scenario marked
  function grid(data, L) {
    var g = data.grid;
    return draw("chart-grid", [
      { type: "heatmap", x: g.horizon_months, y: g.utilization, z: g.savings, name: L.savings_axis,
        colorscale: "RdBu", reversescale: true, zmid: 0, colorbar: { title: { text: L.savings_axis, side: "right" } },
        hovertemplate: L.horizon + ": %{x}<br>" + L.utilization + ": %{y:.0%}<br>" + L.savings_axis + ": %{z:,.0f}<extra></extra>" },
      { type: "contour", x: g.horizon_months, y: g.utilization, z: g.savings, name: L.zero_boundary, showlegend: true, showscale: false,
        autocontour: false, contours: { start: 0, end: 0, size: 1, coloring: "none" }, line: { color: "#1d2330", width: 3 }, hoverinfo: "skip" },
      { x: [g.scenario_horizon], y: [g.scenario_utilization], name: L.this_scenario, mode: "markers",
        marker: { size: 13, color: "#fff", symbol: "diamond", line: { color: "#1d2330", width: 2 } } }
    ], {
      title: { text: L.grid_title },
      hovermode: "closest",
      xaxis: { title: { text: L.horizon } },
      yaxis: { title: { text: L.utilization }, tickformat: ".0%" }
    });
  }

  // each cost line's chart colour by key: the page carries them (costmodel.lines, json_script)
  function lineColours() {
    var el = document.getElementById("cost-line-colours");
    return el ? JSON.parse(el.textContent) : {};
  }

  // f. monthly breakdown: every component that is not zero, build beside rent
  function breakdown(data, L) {
    var b = data.breakdown;
    var colors = lineColours();
    var traces = b.series.map(function (s) {
      return { type: "bar", x: b.months, y: s.values, name: s.name, marker: { color: colors[s.key] },
               xaxis: s.side === "build" ? "x" : "x2", yaxis: s.side === "build" ? "y" : "y2" };
    });
    return draw("chart-breakdown", traces, function (el) {
      if (!ChartLayout.narrow(el)) {
        return {
          title: { text: L.breakdown_title },
          barmode: "stack",
          legend: { traceorder: "normal" },
          grid: { rows: 1, columns: 2, pattern: "independent" },
          xaxis: { title: { text: L.build + " — " + L.month } },
          xaxis2: { title: { text: L.rent + " — " + L.month } },
          yaxis: moneyAxis(L.breakdown_axis, { rangemode: "tozero" }),
          yaxis2: moneyAxis("", { matches: "y" })
        };
      }
      // A phone: build above rent, each panel headed by its side and the unit (a vertical
      // axis title does not fit a short panel), one month axis title at the bottom.
      function heading(side, top) {
        return { xref: "paper", x: 0, xanchor: "left", yref: "paper", y: top, yanchor: "bottom",
                 align: "left", showarrow: false, font: { size: 12 },
                 text: ChartLayout.wrap(side + " — " + L.breakdown_axis, el.clientWidth - 24, 12) };
      }
      return {
        title: { text: L.breakdown_title },
        barmode: "stack",
        legend: { traceorder: "normal" },
        margin: { t: 64 },
        xaxis: { anchor: "y", domain: [0, 1], matches: "x2", showticklabels: true },
        xaxis2: { anchor: "y2", domain: [0, 1], title: { text: L.month } },
        yaxis: moneyAxis("", { rangemode: "tozero", domain: [0.6, 1] }),
        yaxis2: moneyAxis("", { matches: "y", domain: [0, 0.4] }),
        annotations: [heading(L.build, 1.0), heading(L.rent, 0.4)]
      };
    });
  }

  // g. steady utilization: savings above, break-even month below, one round-ticked x axis
  function utilization(data, L) {
    var u = data.utilization;
    var shapes = [], notes = [];
    if (u.break_even_utilization !== null) {
      var bu = vline(u.break_even_utilization, L.break_even_utilization, MUTED);
      shapes.push(bu.shape); notes.push(bu.annotation);
    }
    return draw("chart-utilization", [
      { x: u.utilization, y: u.savings, name: L.savings, mode: "lines", line: { color: BUILD, width: 3 }, xaxis: "x", yaxis: "y" },
      { x: [u.scenario_utilization], y: [u.scenario_savings], name: L.this_scenario, mode: "markers", marker: { size: 12, color: RENT, symbol: "diamond" }, xaxis: "x", yaxis: "y" },
      { x: u.utilization, y: u.break_even_month, name: L.break_even_month, mode: "lines", line: { color: MUTED, width: 2 }, connectgaps: false, xaxis: "x", yaxis: "y2" }
    ], function (el) {
      return {
        title: { text: L.utilization_title },
        xaxis: { title: { text: L.utilization }, tickformat: ".0%", dtick: ChartLayout.narrow(el) ? 0.2 : 0.1, range: [0, 1], anchor: "y2" },
        yaxis: moneyAxis(L.savings_axis, { domain: [0.45, 1] }),
        yaxis2: { title: { text: L.break_even_month_axis }, domain: [0, 0.3], rangemode: "tozero" },
        shapes: shapes, annotations: notes
      };
    });
  }

  function drawAll(data) {
    if (typeof Plotly === "undefined" || !window.ChartLayout) { return null; }
    var L = data.labels;
    var charts = [cumulative, fan, tornadoChart, fleetChart, grid, breakdown, utilization]
      .map(function (chart) { return chart(data, L); })
      .filter(function (promise) { return promise !== null; });
    pump();
    return Promise.all(charts).then(function () {
      document.body.setAttribute("data-charts-rendered", String(charts.length));
    });
  }

  // Every deferred script listed after this one (plotly, the locale, charts.js) has run
  // when DOMContentLoaded fires.
  var scriptsRun = new Promise(function (resolve) {
    document.addEventListener("DOMContentLoaded", resolve);
  });

  var analysis = fetch(source.getAttribute("data-url"), { credentials: "same-origin", headers: { Accept: "application/json" } })
    .then(function (response) {
      return response.json().then(function (body) {
        if (!response.ok) { throw { fromServer: body.error }; }
        return body;
      });
    });

  // The verdict and "how sure" as soon as the analysis is here (when the page did not bring
  // them), without waiting for plotly.
  if (sureInPage) { timing("verdict-confidence"); }
  var told = analysis.then(function (data) {
    setVerdict(data.verdict);
    if (!sureInPage) {
      setConfidence(data.uncertainty);
      timing("verdict-confidence");
    }
    return data;
  });

  Promise.all([told, scriptsRun])
    .then(function (both) {
      return drawAll(both[0]);
    })
    .catch(function (error) {
      setConfidence(null);
      // the server's message is translated; a network or parse error is not: say ours
      showStatus(error && error.fromServer ? error.fromServer : source.getAttribute("data-failed"));
      document.body.setAttribute("data-charts-rendered", "0");
    });
})();
