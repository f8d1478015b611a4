// Last script of the report page: draws every chart (a figure of class "chart" whose data-spec
// indexes the Vega-Lite specs in #chart-specs) with vega-embed and the SVG renderer, then records
// how many it drew in the body's data-charts-rendered. A chart that fails says so in its place and in
// #report-errors.
(function () {
  'use strict';
  var specs = JSON.parse(document.getElementById('chart-specs').textContent);
  var figures = Array.prototype.slice.call(document.querySelectorAll('figure.chart'));
  var rendered = 0;
  var drawing = figures.map(function (figure) {
    var view = figure.querySelector('.view');
    var options = {mode: 'vega-lite', renderer: 'svg', actions: false};
    return vegaEmbed(view, specs[Number(figure.dataset.spec)], options)
      .then(function () {
        rendered += 1;
      })
      .catch(function (error) {
        window.reportProblems.push('chart ' + figure.id + ': ' + error);
        view.textContent = 'This chart could not be drawn: ' + error;
      });
  });
  Promise.all(drawing).then(function () {
    document.body.dataset.chartsRendered = String(rendered);
    window.reportShowProblems();
  });
})();
