/* Layout and configuration shared by every plotly chart: responsive, readable at 390 px,
   the mode bar never over the title. Presentation only: no chart data are made here.

   ChartLayout.layout(el, extra) -> the house layout with `extra` on top of it
   ChartLayout.config(el)        -> the plotly config for the chart in `el`
   ChartLayout.narrow(el)        -> true when `el` gets the compact (phone) layout
   ChartLayout.wrap(text, px, size) -> `text` broken with <br> into lines of at most `px` pixels
                                    (for tick labels: plotly never wraps text itself) */
(function () {
  "use strict";

  var NARROW_BELOW = 480;     // [px] chart width under which the compact (phone) layout applies
  var MODE_BAR_WIDTH = 150;   // [px] room kept free for the mode bar at the top right
  var FONT = "system-ui, -apple-system, 'Segoe UI', 'PingFang SC', 'Noto Sans CJK SC', 'Microsoft YaHei', sans-serif";

  function narrow(el) {
    return el.clientWidth < NARROW_BELOW;
  }

  // Rough width of a string in pixels: CJK characters are square, Latin ones about half.
  function textWidth(text, size) {
    var width = 0;
    for (var i = 0; i < text.length; i++) {
      width += text.charCodeAt(i) > 0x2e80 ? size : size * 0.56;
    }
    return width;
  }

  // Plotly titles do not wrap: break a long one into lines of at most `room` pixels.
  function wrap(text, room, size) {
    var lines = [""];
    var words = text.indexOf(" ") >= 0 ? text.split(" ") : text.split("");
    var joiner = text.indexOf(" ") >= 0 ? " " : "";
    words.forEach(function (word) {
      var last = lines[lines.length - 1];
      var candidate = last ? last + joiner + word : word;
      if (last && textWidth(candidate, size) > room) { lines.push(word); } else { lines[lines.length - 1] = candidate; }
    });
    return lines;
  }

  function merge(base, extra) {
    var out = {};
    Object.keys(base).forEach(function (k) { out[k] = base[k]; });
    Object.keys(extra || {}).forEach(function (k) { out[k] = extra[k]; });
    return out;
  }

  function layout(el, extra) {
    var compact = narrow(el);
    var width = el.clientWidth;
    var margin = merge(compact ? { t: 40, r: 12, b: 48, l: 56 } : { t: 48, r: 24, b: 56, l: 80 }, extra.margin);
    // Under the axis title, at the bottom of the chart; plotly makes room for it.
    var legend = merge({ orientation: "h", x: 0, xanchor: "left", xref: "container", y: 0, yanchor: "bottom", yref: "container" }, extra.legend);
    var out = merge({
      autosize: true,
      font: { family: FONT, size: compact ? 11 : 12 },
      hovermode: "x unified",
      paper_bgcolor: "#fff",
      plot_bgcolor: "#fff"
    }, extra);
    out.legend = legend;
    Object.keys(out).forEach(function (k) {
      // Axes make room for their tick labels and titles, so the legend below never covers them.
      if (/^[xy]axis[0-9]*$/.test(k)) { out[k] = merge({ automargin: true }, out[k]); }
      // A horizontal axis title longer than a phone is wide is broken into lines, not cut.
      var title = out[k] && out[k].title;
      if (compact && /^xaxis[0-9]*$/.test(k) && title && title.text) {
        out[k].title = merge(title, { text: wrap(title.text, width - 24, 12).join("<br>") });
      }
    });
    if (compact) {
      out.dragmode = false;  // a finger on the chart scrolls the page instead of zooming
    }
    if (extra.title && extra.title.text) {
      // Top left, above the plot; on a wide chart the right end stays free for the mode bar.
      var size = compact ? 14 : 16;
      var room = width - 16 - (compact ? 0 : MODE_BAR_WIDTH);
      var lines = wrap(extra.title.text, room, size);
      out.title = merge(extra.title, {
        text: lines.join("<br>"),
        font: { size: size },
        x: 0, xref: "container", xanchor: "left",
        y: 1, yref: "container", yanchor: "top",
        // plotly centres a multi-line title on its anchor: move it down by half the extra lines
        pad: { t: 8 + (lines.length - 1) * size * 0.65, l: 8 }
      });
      margin.t = Math.max(margin.t, 8 + lines.length * size * 1.3 + 22);
    }
    out.margin = margin;
    return out;
  }

  function config(el) {
    return {
      responsive: true,
      displaylogo: false,
      // plotly 4 adds "Share chart...", which uploads the chart to plotly's cloud: the
      // figures stay on this server
      showSendToCloud: false,
      // the page's language: plotly's own zh-CN strings (toolbar, dates) are loaded with a
      // Chinese page (static/vendor/plotly/plotly-locale-zh-cn.js)
      locale: /^zh/.test(document.documentElement.lang) ? "zh-CN" : "en",
      // Shown while the pointer is over the chart; never on a phone, where it would sit
      // on the title and a tap is enough to read a value.
      displayModeBar: narrow(el) ? false : "hover",
      modeBarButtonsToRemove: ["select2d", "lasso2d", "zoomIn2d", "zoomOut2d", "autoScale2d"]
    };
  }

  function wrapText(text, room, size) {
    // a unit after a number ("75.0 %", "24 GB") stays on the number's line
    return wrap(text.replace(/ (%|GB|W|h)(?=$| )/g, "\u00a0$1"), room, size).join("<br>");
  }

  window.ChartLayout = { layout: layout, config: config, narrow: narrow, wrap: wrapText };
})();

/* Printing: paper is narrower than most screens and plotly draws at a fixed pixel size,
   so before the browser prints every chart is redrawn at a width that fits the text block
   of both A4 and Letter; afterwards it follows its container again. */
(function () {
  "use strict";

  var PRINT_WIDTH = 640;   // [px] at 96 px/in: 16.9 cm, inside A4 (18 cm) and Letter (18.6 cm) with 15 mm margins
  var PRINT_HEIGHT = 320;  // [px]

  function charts() {
    return Array.prototype.slice.call(document.querySelectorAll(".js-plotly-plot"));
  }

  window.addEventListener("beforeprint", function () {
    if (!window.Plotly) { return; }
    charts().forEach(function (el) {
      window.Plotly.relayout(el, { width: PRINT_WIDTH, height: PRINT_HEIGHT });
    });
  });

  window.addEventListener("afterprint", function () {
    if (!window.Plotly) { return; }
    charts().forEach(function (el) {
      window.Plotly.relayout(el, { width: null, height: null }).then(function () {
        window.Plotly.Plots.resize(el);
      });
    });
  });
})();
