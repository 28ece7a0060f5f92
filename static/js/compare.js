/* Overlaid cumulative cost of two to four saved scenarios, from #compare-data. Drawing only. */
(function () {
  "use strict";
  var source = document.getElementById("compare-data");
  var el = document.getElementById("chart-compare");
  if (!source || !el || typeof Plotly === "undefined" || !window.ChartLayout) { return; }
  var data = JSON.parse(source.textContent);
  var L = data.labels;
  // Plotly reads tags (<a href>, <b>, <br>) and entities in legend and title text;
  // a scenario's name is the user's text, so it is drawn as written.
  function plain(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }
  var colors = ["#1f6feb", "#d9730d", "#1a7f37", "#8250df"];
  var traces = [];
  data.series.forEach(function (s, i) {
    var c = colors[i % colors.length];
    traces.push({ x: s.months, y: s.build.cumulative, name: plain(s.name) + " · " + L.build + " (" + s.currency + ")", mode: "lines", line: { color: c, width: 3 } });
    traces.push({ x: s.months, y: s.rent.cumulative, name: plain(s.name) + " · " + L.rent + " (" + s.currency + ")", mode: "lines", line: { color: c, width: 2, dash: "dash" } });
  });
  Plotly.newPlot(el, traces, ChartLayout.layout(el, {
    title: { text: L.title },
    hovermode: "closest",
    xaxis: { title: { text: L.month } },
    yaxis: { title: { text: L.amount }, rangemode: "tozero" }
  }), ChartLayout.config(el)).then(function () {
    el.setAttribute("data-rendered", "true");
  });
})();
