/* Draws the results page's five charts from the engine's numbers in #chart-data.
   No arithmetic on costs happens here: every value plotted comes from the server. */
(function () {
  "use strict";

  var source = document.getElementById("chart-data");
  if (!source || typeof Plotly === "undefined" || !window.ChartLayout) { return; }
  var data = JSON.parse(source.textContent);
  var L = data.labels;
  var BUILD = "#1f6feb", RENT = "#d9730d", MUTED = "#5b6475";

  // A chart's own layout; the house layout (static/js/charts.js) goes under it in draw(),
  // once the element, and so the width it has, is known.
  function layout(extra) {
    return function (el) { return ChartLayout.layout(el, extra); };
  }

  function vline(x, label, color) {
    return {
      shape: { type: "line", x0: x, x1: x, yref: "paper", y0: 0, y1: 1, line: { color: color, dash: "dot", width: 2 } },
      annotation: { x: x, yref: "paper", y: 1, text: label, showarrow: false, yanchor: "bottom", font: { color: color } }
    };
  }

  function draw(id, traces, lay) {
    var el = document.getElementById(id);
    if (!el) { return Promise.resolve(); }
    return Plotly.newPlot(el, traces, lay(el), ChartLayout.config(el)).then(function () {
      el.setAttribute("data-rendered", "true");
    });
  }

  var charts = [];

  // a. cumulative cost, break-even marked
  var cumShapes = [], cumNotes = [];
  if (data.break_even_month !== null) {
    var be = vline(data.break_even_month, L.break_even, MUTED);
    cumShapes.push(be.shape); cumNotes.push(be.annotation);
  }
  charts.push(draw("chart-cumulative", [
    { x: data.months, y: data.build.cumulative, name: L.build, mode: "lines", line: { color: BUILD, width: 3 } },
    { x: data.months, y: data.rent.cumulative, name: L.rent, mode: "lines", line: { color: RENT, width: 3 } }
  ], layout({
    title: { text: L.cumulative_title },
    xaxis: { title: { text: L.month } },
    yaxis: { title: { text: L.money_axis }, rangemode: "tozero" },
    shapes: cumShapes, annotations: cumNotes
  })));

  // b. monthly breakdown: build components (left) vs rent components (right)
  var b = data.breakdown;
  var buildColors = { energy: "#1f6feb", hosting: "#6e9ef5", maintenance: "#9cbcf8", ops: "#c8daf9" };
  var rentColors = { compute: "#d9730d", fixed: "#f2b274" };
  var breakdown = [];
  ["energy", "hosting", "maintenance", "ops"].forEach(function (k) {
    breakdown.push({ type: "bar", x: b.months, y: b.build[k], name: L.build + " · " + L[k], marker: { color: buildColors[k] }, xaxis: "x", yaxis: "y" });
  });
  ["compute", "fixed"].forEach(function (k) {
    breakdown.push({ type: "bar", x: b.months, y: b.rent[k], name: L.rent + " · " + L[k], marker: { color: rentColors[k] }, xaxis: "x2", yaxis: "y2" });
  });
  charts.push(draw("chart-breakdown", breakdown, layout({
    title: { text: L.breakdown_title },
    barmode: "stack",
    grid: { rows: 1, columns: 2, pattern: "independent" },
    xaxis: { title: { text: L.build + " — " + L.month } },
    xaxis2: { title: { text: L.rent + " — " + L.month } },
    yaxis: { title: { text: L.money_axis }, rangemode: "tozero" },
    yaxis2: { matches: "y" }
  })));

  // c. utilization sensitivity
  var u = data.utilization;
  var uShapes = [], uNotes = [];
  if (u.break_even_utilization !== null) {
    var bu = vline(u.break_even_utilization, L.break_even_utilization, MUTED);
    uShapes.push(bu.shape); uNotes.push(bu.annotation);
  }
  charts.push(draw("chart-utilization", [
    { x: u.utilization, y: u.savings, name: L.savings, mode: "lines", line: { color: BUILD, width: 3 } },
    { x: u.utilization, y: u.break_even_month, name: L.break_even_month, mode: "lines", yaxis: "y2", line: { color: MUTED, dash: "dash" }, connectgaps: false },
    { x: [u.scenario_utilization], y: [u.scenario_savings], name: L.this_scenario, mode: "markers", marker: { size: 12, color: RENT, symbol: "diamond" } }
  ], layout({
    title: { text: L.utilization_title },
    xaxis: { title: { text: L.utilization }, tickformat: ".0%", range: [0, 1] },
    yaxis: { title: { text: L.savings_axis }, zeroline: true },
    margin: { r: 72 },
    yaxis2: { title: { text: L.break_even_month }, overlaying: "y", side: "right", rangemode: "tozero", showgrid: false },
    shapes: uShapes, annotations: uNotes
  })));

  // d. tidal vs steady
  var t = data.tidal;
  var tidalTraces = [
    { x: t.active_days, y: t.tidal_savings, name: L.tidal, mode: "lines+markers", line: { color: BUILD, width: 3 } },
    { x: t.active_days, y: t.steady_savings, name: L.steady, mode: "lines", line: { color: RENT, dash: "dash", width: 2 } }
  ];
  if (t.scenario_days !== null) {
    tidalTraces.push({ x: [t.scenario_days], y: [t.scenario_savings], name: L.this_scenario, mode: "markers", marker: { size: 12, color: RENT, symbol: "diamond" } });
  }
  charts.push(draw("chart-tidal", tidalTraces, layout({
    title: { text: L.tidal_title },
    xaxis: { title: { text: L.active_days }, range: [0.5, 31.5] },
    yaxis: { title: { text: L.savings_axis }, zeroline: true }
  })));

  // e. heatmap utilization × horizon
  var g = data.grid;
  charts.push(draw("chart-grid", [{
    type: "heatmap", x: g.horizon_months, y: g.utilization, z: g.savings,
    colorscale: "RdBu", reversescale: true, zmid: 0, colorbar: { title: { text: L.savings_axis } },
    hovertemplate: L.horizon + ": %{x}<br>" + L.utilization + ": %{y:.0%}<br>" + L.savings_axis + ": %{z:,.0f}<extra></extra>"
  }], layout({
    title: { text: L.grid_title },
    hovermode: "closest",
    xaxis: { title: { text: L.horizon }, type: "category" },
    yaxis: { title: { text: L.utilization }, tickformat: ".0%" }
  })));

  Promise.all(charts).then(function () {
    document.body.setAttribute("data-charts-rendered", String(charts.length));
  });
})();
