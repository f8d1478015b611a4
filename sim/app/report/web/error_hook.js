// First script of the report page, before the charting libraries: records every uncaught error,
// rejected promise and console warning or error (Vega and Vega-Lite warn through the console)
// in window.reportProblems and shows them in #report-errors, so that a reader sees them and a
// headless browser's dumped DOM holds them (the browser test requires none).
(function () {
  'use strict';
  var problems = (window.reportProblems = []);
  function show() {
    var box = document.getElementById('report-errors');
    if (box && problems.length > 0) {
      box.hidden = false;
      box.textContent = problems.join('\n');
    }
  }
  window.reportShowProblems = show;
  window.addEventListener('error', function (event) {
    problems.push('error: ' + event.message + (event.filename ? ' (' + event.filename + ':' + event.lineno + ')' : ''));
    show();
  });
  window.addEventListener('unhandledrejection', function (event) {
    problems.push('unhandled rejection: ' + event.reason);
    show();
  });
  ['warn', 'error'].forEach(function (level) {
    var original = console[level];
    console[level] = function () {
      problems.push('console.' + level + ': ' + Array.prototype.join.call(arguments, ' '));
      show();
      return original.apply(console, arguments);
    };
  });
})();
