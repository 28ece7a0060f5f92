/* Layout and configuration shared by every plotly chart: responsive, readable at 390 px,
   the mode bar never over the title. Presentation only: no chart data are made here.

   ChartLayout.layout(el, extra, traces) -> the house layout with `extra` on top of it (the
                                    traces, when given, size the margins: see `fit`)
   ChartLayout.config(el)        -> the plotly config for the chart in `el`
   ChartLayout.narrow(el)        -> true when `el` gets the compact (phone) layout
   ChartLayout.moneyAxis(title, extra) -> an axis of amounts: thousands separated, no "k"/"M"
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

  // Plotly titles do not wrap: break a long one into lines of at most `room` pixels (as
  // `width` measures them: by default a rough estimate).
  function wrap(text, room, size, width) {
    width = width || textWidth;
    var lines = [""];
    var words = text.indexOf(" ") >= 0 ? text.split(" ") : text.split("");
    var joiner = text.indexOf(" ") >= 0 ? " " : "";
    words.forEach(function (word) {
      var last = lines[lines.length - 1];
      var candidate = last ? last + joiner + word : word;
      if (last && width(candidate, size) > room) { lines.push(word); } else { lines[lines.length - 1] = candidate; }
    });
    return lines;
  }

  // Margins that hold the labels from the start. Axes keep `automargin`, so plotly grows a
  // margin that is too small and no label is ever cut; but it finds out only once the chart
  // is drawn, and then draws the whole chart again (a third of the drawing time measured).
  // So the margins are worked out before, from the labels' widths as this browser sets them
  // in the charts' font (a canvas), the legend's rows and the axis titles' lines. The
  // figures below are plotly's own measures of its text (legend rows of 19 px, a symbol of
  // 40 px, 5 px between entries, 10 px around the legend; an axis with one title line 42 px
  // high at 12 px, 40 px at 11 px, 21 px more for each further title line).
  var ruler = null;
  function measured(text, size) {
    if (!ruler) { ruler = document.createElement("canvas").getContext("2d"); }
    ruler.font = size + "px " + FONT;
    return String(text).split("<br>").reduce(function (widest, line) {
      return Math.max(widest, ruler.measureText(line).width);
    }, 0);
  }

  function inLegend(trace) {
    if (trace.showlegend === false) { return false; }
    // heatmaps and contours have a colour bar instead, unless asked for
    return trace.showlegend === true || ["heatmap", "contour"].indexOf(trace.type) < 0;
  }

  // plotly's horizontal legend: one row if every entry fits in the plot's width, else a grid
  // of columns as wide as the widest entry
  function legendHeight(traces, width, size) {
    var entries = traces.filter(inLegend);
    if (entries.length < 2 && !entries.some(function (t) { return t.showlegend === true; })) { return 0; }
    var widths = entries.map(function (t) { return measured(t.name || "", size) + 40; });
    var total = widths.reduce(function (sum, w) { return sum + w + 5; }, -5);
    var rows = 1;
    if (total >= width) {
      var widest = Math.max.apply(null, widths), columns = 1;
      while ((columns + 1) * (widest + 5) - 5 < width) { columns++; }
      rows = Math.ceil(widths.length / columns);
    }
    return 10 + 19 * rows;
  }

  // the widest tick label of a money axis (thousands separated, no exponent): as many digits
  // as the largest value, a tenth above it, has (digits are equally wide in these fonts)
  function moneyTickWidth(values, size) {
    var largest = 0, negative = false;
    values.forEach(function (v) {
      if (typeof v === "number" && isFinite(v)) { largest = Math.max(largest, Math.abs(v)); negative = negative || v < 0; }
    });
    var digits = String(Math.round(largest * 1.1)).replace(/(\d)(?=(\d{3})+$)/g, "$1,").replace(/\d/g, "8");
    return measured((negative ? "\u2212" : "") + digits, size);
  }

  // the share of the plot's width or height an axis spans
  function span(axis, columns) {
    return axis.domain ? axis.domain[1] - axis.domain[0] : 1 / columns;
  }

  // An axis title longer than its axis is broken into lines (measured in the titles' font,
  // plotly's 1.2 × the text size), not cut at the chart's edge; returns its lines.
  function fold(axis, length, size) {
    var title = axis && axis.title && axis.title.text;
    if (!title) { return 0; }
    var big = Math.round(size * 1.2);
    if (title.indexOf("<br>") < 0 && measured(title, big) > length - 8) {
      axis.title = merge(axis.title, { text: wrap(title, length - 8, big, measured).join("<br>") });
    }
    return axis.title.text.split("<br>").length;
  }

  function fit(out, traces, width, height, size, compact) {
    var margin = out.margin;
    var heatmap = traces.some(function (t) { return t.type === "heatmap"; });
    // right: half the label at the end of an x axis with a fixed range ("100%")
    var x = out.xaxis || {};
    if (x.range) {
      var end = x.tickformat === ".0%" ? Math.round(x.range[1] * 100) + "%" : String(x.range[1]);
      margin.r = Math.max(margin.r, Math.ceil(measured(end, size) / 2) + 12);
    }
    // left: the labels of a category axis (their own text), or a money axis's numbers (stacked
    // bars: the stack's total), or percentages
    var y = out.yaxis || {};
    var left = 0, titled = y.title && y.title.text ? size * 1.3 + 11 : 10;
    if (y.showticklabels === false) {
      left = 0;
    } else if (y.ticktext) {
      left = Math.max.apply(null, y.ticktext.map(function (t) { return measured(t, size); })) + 14;
    } else if (y.separatethousands) {
      // the axis's traces, and those of the axes that share its range (`matches`)
      var shared = { y: true };
      Object.keys(out).forEach(function (k) {
        if (/^yaxis[0-9]+$/.test(k) && out[k] && out[k].matches === "y") { shared["y" + k.slice(5)] = true; }
      });
      var values = [], stacks = {};
      traces.forEach(function (t) {
        var on = t.yaxis || "y";
        if (!shared[on]) { return; }
        if (out.barmode === "stack" && t.type === "bar") {
          stacks[on] = stacks[on] || [];
          (t.y || []).forEach(function (v, i) { stacks[on][i] = (stacks[on][i] || 0) + (v > 0 ? v : 0); });
        } else {
          values = values.concat(t.y || []);
        }
      });
      Object.keys(stacks).forEach(function (on) { values = values.concat(stacks[on]); });
      left = moneyTickWidth(values, size) + titled;
    } else if (y.tickformat === ".0%") {
      left = measured("100%", size) + titled;
    }
    if (heatmap) { left += 8; }  // its axes' tick marks
    margin.l = Math.max(margin.l, Math.ceil(left) + 2);
    // right: a y axis on that side, from its traces' numbers (a bound on plotly's own "1.5k";
    // a small range's ticks have up to three decimals, "0.406") and its title
    Object.keys(out).forEach(function (k) {
      var axis = out[k];
      if (!/^yaxis[0-9]+$/.test(k) || !axis || axis.side !== "right" || axis.showticklabels === false) { return; }
      var values = [];
      traces.forEach(function (t) { if (t.yaxis === "y" + k.slice(5)) { values = values.concat(t.y || []); } });
      var ticks = Math.max(moneyTickWidth(values, size), measured("0.000", size));
      var room = ticks + (axis.title && axis.title.text ? size * 1.3 + 11 : 10);
      margin.r = Math.max(margin.r, Math.ceil(room) + 2);
    });
    var columns = out.grid ? out.grid.columns : 1;
    var bottom = margin.b;
    var xaxes = Object.keys(out).filter(function (k) { return /^xaxis[0-9]*$/.test(k) && out[k]; });
    var xtitles = xaxes.map(function (k) { return out[k].title; });
    // below: the x axis (ticks and title) and the legend under it, in the plot's width (less
    // a heatmap's colour bar); the titles are folded from their text as given each time
    function below() {
      var plotWidth = width - margin.l - margin.r - (heatmap ? 105 : 0);
      var lines = 1;
      xaxes.forEach(function (k, i) {
        out[k].title = xtitles[i];
        lines = Math.max(lines, fold(out[k], plotWidth * span(out[k], columns) * 0.95, size));
      });
      var axis = (compact ? 40 : 42) + 21 * (lines - 1) + (heatmap ? 8 : 0);
      margin.b = Math.max(bottom, axis + legendHeight(traces, plotWidth, size) + 2);
    }
    below();
    // left: a y axis title longer than the plot is high gets a second line, and the room;
    // the narrower plot may then need another row of legend below
    var plotHeight = height - margin.t - margin.b;
    var ylines = fold(out.yaxis, plotHeight * span(out.yaxis || {}, 1), size);
    if (ylines > 1) {
      margin.l += Math.ceil((ylines - 1) * Math.round(size * 1.2) * 1.45);
      below();
    }
  }

  function merge(base, extra) {
    var out = {};
    Object.keys(base).forEach(function (k) { out[k] = base[k]; });
    Object.keys(extra || {}).forEach(function (k) { out[k] = extra[k]; });
    return out;
  }

  function layout(el, extra, traces) {
    var compact = narrow(el);
    var width = el.clientWidth;
    var margin = merge(compact ? { t: 40, r: 18, b: 48, l: 56 } : { t: 48, r: 24, b: 56, l: 80 }, extra.margin);
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
    if (traces) { fit(out, traces, width, el.clientHeight, compact ? 11 : 12, compact); }
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

  // An axis of amounts, as every page draws them: "1,250,000", never "1.25M". An axis without
  // a title gets none (plotly keeps room for an empty one).
  function moneyAxis(title, extra) {
    var axis = { zeroline: true, separatethousands: true, exponentformat: "none" };
    if (title) { axis.title = { text: title }; }
    return merge(axis, extra);
  }

  function wrapText(text, room, size) {
    // a unit after a number ("75.0 %", "24 GB") stays on the number's line
    return wrap(text.replace(/ (%|GB|W|h)(?=$| )/g, "\u00a0$1"), room, size).join("<br>");
  }

  window.ChartLayout = { layout: layout, config: config, narrow: narrow, wrap: wrapText, moneyAxis: moneyAxis };
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
