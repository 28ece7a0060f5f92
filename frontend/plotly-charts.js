/* plotly.js with the trace types this site's pages draw, and no others (make install bundles
   it with esbuild into static/vendor/plotly/plotly-charts.min.js, the way plotly documents
   custom bundles: its core, which holds the scatter trace, and registered trace modules).

   The results page draws scatter, bar, heatmap and contour traces; the compare page scatter;
   the usage page bar and scatter. plotly's official partial bundles are larger: "basic"
   lacks heatmap and contour, "cartesian" adds box, violin, histograms, image, pie and more,
   and its evaluation cost the browser about 0.29 s of its main thread on the development
   machine against about 0.1 s for this one (benchmarks/browser.py, docs/production.md).
   A page that needs another trace type adds its module here. */
var Plotly = require("plotly.js/lib/core");

Plotly.register([
  require("plotly.js/lib/bar"),
  require("plotly.js/lib/heatmap"),
  require("plotly.js/lib/contour")
]);

module.exports = Plotly;
