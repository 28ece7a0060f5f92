/* The measured-usage page: refuse a file over the size limit before it is sent, and draw
   the months the server read (#usage-data). Nothing is computed here: every value plotted
   and every word shown comes from the server. */
(function () {
  "use strict";

  var upload = document.getElementById("usage-upload");
  if (upload) {
    var limit = Number(upload.getAttribute("data-limit"));
    var warning = document.getElementById("usage-too-large");
    var input = upload.querySelector("input[type=file]");
    var tooBig = function () {
      return input && input.files && input.files.length > 0 && input.files[0].size > limit;
    };
    if (input) {
      input.addEventListener("change", function () { warning.hidden = !tooBig(); });
    }
    upload.addEventListener("submit", function (event) {
      if (tooBig()) { event.preventDefault(); warning.hidden = false; }
    });
  }

  var source = document.getElementById("usage-data");
  var el = document.getElementById("chart-usage");
  if (!source || !el) { return; }

  function draw() {
    if (!window.Plotly || !window.ChartLayout) { return; }
    var data = JSON.parse(source.textContent);
    var labels = data.labels;
    var traces = [
      { type: "bar", name: labels.gpu_hours, x: data.months, y: data.gpu_hours, marker: { color: "#1f6feb" } },
      { type: "scatter", mode: "lines+markers", name: labels.observed_hours, x: data.months, y: data.observed_hours,
        yaxis: "y2", line: { color: "#5b6475", dash: "dot" } }
    ];
    var layout = ChartLayout.layout(el, {
      title: { text: labels.title },
      xaxis: { type: "category" },
      yaxis: { title: { text: labels.gpu_hours }, rangemode: "tozero" },
      yaxis2: { title: { text: labels.hours }, overlaying: "y", side: "right", rangemode: "tozero", showgrid: false }
    }, traces);  // the traces size the margins (the legend's rows) before drawing
    Plotly.newPlot(el, traces, layout, ChartLayout.config(el)).then(function () {
      el.setAttribute("data-rendered", "true");
    });
  }

  if (document.readyState === "complete") { draw(); } else { window.addEventListener("load", draw); }
})();
