/* Cumulative cost of two to four saved scenarios, from #compare-data: one chart per currency
   (one chart when every amount is shown in the page's currency). Drawing only: the amounts
   are the server's, already converted where the page says so. */
(function () {
  "use strict";
  var source = document.getElementById("compare-data");
  if (!source || typeof Plotly === "undefined" || !window.ChartLayout) { return; }
  var data = JSON.parse(source.textContent);
  var L = data.labels;
  // Plotly reads tags (<a href>, <b>, <br>) and entities in legend and title text;
  // a scenario's name is the user's text, so it is drawn as written.
  function plain(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }
  var colors = ["#1f6feb", "#d9730d", "#1a7f37", "#8250df"];
  var index = 0;
  data.charts.forEach(function (chart) {
    var el = document.getElementById(chart.id);
    if (!el) { return; }
    var traces = [];
    chart.series.forEach(function (s) {
      var c = colors[index % colors.length];
      index += 1;
      var unit = s.converted_from ? s.converted_from + " → " + s.currency : s.currency;
      traces.push({ x: s.months, y: s.build.cumulative, name: plain(s.name) + " · " + L.build + " (" + unit + ")", mode: "lines", line: { color: c, width: 3 } });
      traces.push({ x: s.months, y: s.rent.cumulative, name: plain(s.name) + " · " + L.rent + " (" + unit + ")", mode: "lines", line: { color: c, width: 2, dash: "dash" } });
    });
    // the traces size the margins (the legend's rows, the amounts' labels) before drawing
    Plotly.newPlot(el, traces, ChartLayout.layout(el, {
      title: { text: L.title },
      hovermode: "closest",
      xaxis: { title: { text: L.month } },
      yaxis: ChartLayout.moneyAxis(chart.axis, { rangemode: "tozero" })
    }, traces), ChartLayout.config(el)).then(function () {
      el.setAttribute("data-rendered", "true");
    });
  });
})();
