// storebench report page: draws the model in #sb-data with Chart.js (inlined
// above from Debian's libjs-chart.js). Everything is synchronous (animations
// off), so when the last chart is built the page marks itself ready: a div
// #sb-ready whose data-charts, data-empty and data-errors attributes say how
// many charts were drawn, which had no data, and how many errors were caught
// (data-ms: milliseconds from navigation start to the last chart drawn;
// data-lines: each chart's caption and the labels of its lines).
(function () {
  'use strict';
  var model = JSON.parse(document.getElementById('sb-data').textContent);
  var main = document.getElementById('sb-main');
  var charts = [];
  var palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf',
                 '#7f7f7f', '#bcbd22'];
  var shades = ['#1f77b4', '#ff7f0e', '#d62728', '#444444'];

  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === 'text') e.textContent = attrs[k]; else e.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) e.appendChild(c); });
    return e;
  }

  // v scaled by the largest step it reaches: [[1e9, ' s'], [1e6, ' ms'], …].
  function scaled(v, steps, last) {
    if (v === null || v === undefined || !isFinite(v)) return '';
    for (var i = 0; i < steps.length; i++)
      if (Math.abs(v) >= steps[i][0]) return +(v / steps[i][0]).toPrecision(3) + steps[i][1];
    return +v.toPrecision(4) + last;
  }
  function fmtNs(ns) { return scaled(ns, [[1e9, ' s'], [1e6, ' ms'], [1e3, ' µs']], ' ns'); }
  function fmtNum(v) { return scaled(v, [[1e9, ' G'], [1e6, ' M'], [1e3, ' k']], ''); }
  function pctLabel(x) {
    // x = 1/(1-p): 2 -> 50%, 10 -> 90%, 1000 -> 99.9%
    if (x <= 1) return '';
    var p = 100 * (1 - 1 / x);
    var digits = Math.max(0, Math.round(Math.log10(x)) - 2);
    return p.toFixed(digits) + '%';
  }
  function points(xs, ys, positiveOnly) {
    var out = [];
    for (var i = 0; i < xs.length && i < ys.length; i++) {
      var y = ys[i];
      if (y === null || y === undefined || !isFinite(y)) continue;
      if (positiveOnly && y <= 0) continue;
      out.push({x: xs[i], y: y});
    }
    return out;
  }

  // Shades [from, to] on the x axis (the warm-up, before measurement began).
  var shadePlugin = {
    id: 'sbShade',
    beforeDatasetsDraw: function (chart, args, opts) {
      if (!opts || opts.from === undefined || opts.to === undefined) return;
      var x = chart.scales.x, area = chart.chartArea, ctx = chart.ctx;
      var a = Math.max(x.getPixelForValue(opts.from), area.left), b = Math.min(x.getPixelForValue(opts.to), area.right);
      if (!(b > a)) return;
      ctx.save();
      ctx.fillStyle = 'rgba(128,128,128,0.18)';
      ctx.fillRect(a, area.top, b - a, area.bottom - area.top);
      ctx.fillStyle = '#555';
      ctx.font = '11px sans-serif';
      ctx.fillText(opts.label || 'warm-up', a + 4, area.top + 12);
      ctx.restore();
    }
  };
  Chart.register(shadePlugin);

  function chartBox(parent, id, title, note) {
    var canvas = el('canvas', {id: id, 'data-title': title});
    var box = el('figure', {class: 'chart'}, [el('figcaption', {text: title}), el('div', {class: 'canvas'}, [canvas])]);
    if (note) box.appendChild(el('p', {class: 'note', text: note}));
    parent.appendChild(box);
    return canvas;
  }

  // A time unit for values up to `maxNs`: [divisor, name].
  function timeUnit(maxNs) {
    if (maxNs >= 1e9) return [1e9, 's'];
    if (maxNs >= 1e6) return [1e6, 'ms'];
    if (maxNs >= 1e3) return [1e3, 'µs'];
    return [1, 'ns'];
  }
  function columnMax(cols) {
    var m = 0;
    cols.forEach(function (c) { c.forEach(function (v) { if (v !== null && isFinite(v)) m = Math.max(m, v); }); });
    return m;
  }

  // Interval figures the driver adds, in words: [title, unit] where unit 'ns'
  // is shown in the time unit that fits the values. Others get their key.
  var figureNames = {
    max_backlog: ['Largest backlog per interval', 'ops'],
    max_lag_ns: ['Worst lag behind schedule per interval', 'ns'],
    runqueue_wait_ns: ['Time the workers waited for a CPU per interval', 'ns'],
    hiccup_p99_ns: ['Platform hiccups per interval, p99', 'ns'],
    hiccup_max_ns: ['Worst hiccup per interval', 'ns'],
    client_added_p99_ns: ["Client's share of the p99 per interval (observed minus ideal client)", 'ns'],
    backend: ['Backend figures per interval', '']
  };
  function words(key) { return key.replace(/_ns$/, '').replace(/[._]/g, ' '); }

  function timeAxis(warmup) {
    var ax = {type: 'linear', title: {display: true, text: 'time since measurement began, s'}};
    if (warmup > 0) ax.min = -warmup;
    return ax;
  }
  function latencyAxis(title) {
    return {type: 'logarithmic', title: {display: true, text: title},
            ticks: {callback: function (v) { return fmtNs(v); }, maxTicksLimit: 8}};
  }
  function makeChart(canvas, datasets, scales, extra) {
    datasets.forEach(function (d) {
      if (d.pointRadius === undefined) d.pointRadius = d.data.length > 60 ? 0 : 2;
      if (d.borderWidth === undefined) d.borderWidth = 1.5;
      d.backgroundColor = d.backgroundColor || d.borderColor;
      d.fill = false;
    });
    var options = {
      animation: false, responsive: true, maintainAspectRatio: false, parsing: false, normalized: true,
      interaction: {mode: 'nearest', intersect: false},
      scales: scales,
      plugins: {
        legend: {display: true, position: 'bottom', labels: {boxWidth: 14,
          filter: function (item, data) { return !data.datasets[item.datasetIndex].sbHideLegend; }}},
        decimation: {enabled: true, algorithm: 'min-max'},
        sbShade: (extra && extra.shade) || {}
      }
    };
    var c = new Chart(canvas.getContext('2d'), {type: 'line', data: {datasets: datasets}, options: options});
    c.sbId = canvas.id;
    c.sbTitle = canvas.getAttribute('data-title') || '';
    charts.push(c);
    return c;
  }

  var chartSeq = 0;
  function nextId(what) { chartSeq += 1; return 'chart-' + chartSeq + '-' + what; }

  // ---- single run: every chart of each phase -------------------------------------------
  function phaseCharts(parent, phase, shadeLabel) {
    var sec = el('section', {class: 'phase'}, [el('h2', {text: phase.label})]);
    parent.appendChild(sec);
    var grid = el('div', {class: 'grid'});
    sec.appendChild(grid);
    var t = phase.t, warm = phase.warmup_s || 0;
    var shade = warm > 0 ? {from: -warm, to: 0, label: shadeLabel || 'warm-up (not measured)'} : undefined;

    var tput = [];
    Object.keys(phase.throughput).forEach(function (name, i) {
      tput.push({label: name === 'all' ? 'achieved, all ops' : name, data: points(t, phase.throughput[name]),
                 borderColor: palette[i % palette.length]});
    });
    if (phase.offered)
      tput.push({label: 'offered rate (target)', data: points(t, phase.offered), borderColor: '#444444',
                 borderDash: [6, 4], pointRadius: 0, stepped: 'before'});
    var notes = [];
    if (warm > 0) notes.push('The shaded span is the warm-up: run but not measured.');
    if (phase.short_intervals_left_out > 0)
      notes.push('A last interval shorter than half the others is left out of the timelines.');
    if (phase.offered)
      notes.push('The dashed line is the rate the schedule offered; below it the run fell behind.');
    makeChart(chartBox(grid, nextId('throughput'), 'Throughput per interval, ops/s', notes.join(' ') || null),
              tput, {x: timeAxis(warm), y: {title: {display: true, text: 'ops/s'}, beginAtZero: true,
                                            ticks: {callback: fmtNum}}}, {shade: shade});

    ['response', 'service'].forEach(function (which) {
      var lat = phase.latency[which];
      if (!lat || !lat.p50) return;
      var ds = ['p50', 'p99', 'p999', 'max'].map(function (k, i) {
        return {label: k === 'p999' ? 'p99.9' : k, data: points(t, lat[k], true), borderColor: shades[i]};
      });
      var note = which === 'response' ? 'Response time counts from the intended start (open loop), so queueing is included.' :
                                        'Service time counts from the actual start.';
      if (which === 'response' && phase.latency.ideal) {
        ds.splice(2, 0, {label: 'p99 of an ideal client', data: points(t, phase.latency.ideal.p99, true),
                         borderColor: shades[1], borderDash: [5, 4]});
        note += ' The ideal client (dashed) has the same arrivals and service times and no overhead of its own:' +
                ' the gap between the two p99 lines is the client\'s and the platform\'s share.';
      }
      makeChart(chartBox(grid, nextId(which), (which === 'response' ? 'Response time' : 'Service time') +
                         ' per interval, percentiles', note),
                ds, {x: timeAxis(warm), y: latencyAxis((which === 'response' ? 'response' : 'service') +
                                                       ' time, log scale')}, {shade: shade});
    });

    if (phase.platform) {
      makeChart(chartBox(grid, nextId('platform-speed'), 'Platform speed per interval (1.0 = as fast as at start-up)',
                         'The platform meter times a fixed unit of work every 20 ms on each of the workers\' CPUs: ' +
                         'the mean speed per interval, and its slowest unit. Below 0.8 the platform, not the engine, ' +
                         'slowed the run down (a throttled, paused or busy host).'),
                [{label: 'mean speed', data: points(t, phase.platform.speed), borderColor: palette[0]},
                 {label: 'slowest unit', data: points(t, phase.platform.speed_min), borderColor: palette[1],
                  borderDash: [5, 4]}],
                {x: timeAxis(warm), y: {title: {display: true, text: 'speed'}, min: 0, suggestedMax: 1.05}},
                {shade: shade});
    }

    spectrumChart(grid, phase.spectrum.map(function (c, i) {
      // Service drawn dashed: in a closed loop it is the response curve itself.
      return {label: c.label, points: c.points, color: palette[i % palette.length], dashed: c.label === 'service'};
    }), 'Percentile spectrum (HdrHistogram style)');

    if (phase.schedule) {
      var lagMs = phase.schedule.lag_ns.map(function (v) { return v / 1e6; });
      makeChart(chartBox(grid, nextId('schedule'), 'Backlog (ops) and lag behind schedule (ms) at the end of each interval',
                         phase.schedule.open_loop ? null : 'Closed loop: there is no schedule, so both stay at zero.'),
                [{label: 'backlog: due ops not started', data: points(t, phase.schedule.backlog), borderColor: palette[0],
                  yAxisID: 'y'},
                 {label: 'lag behind schedule, ms', data: points(t, lagMs), borderColor: palette[1], yAxisID: 'y2'}],
                {x: timeAxis(warm), y: {title: {display: true, text: 'backlog, ops'}, beginAtZero: true},
                 y2: {position: 'right', title: {display: true, text: 'lag, ms'}, beginAtZero: true,
                      grid: {drawOnChartArea: false}}}, {shade: shade});
    }

    if (phase.cpu_held) {
      var holders = [['workers_ns', 'the workers'], ['engine_ns', "the engine's threads"],
                     ['client_ns', "the client's own threads"], ['others_ns', 'other processes (on the workers\' CPUs)'],
                     ['steal_ns', "the hypervisor's steal"]];
      var cpuUnit = timeUnit(columnMax(holders.map(function (h) { return phase.cpu_held[h[0]] || []; })));
      makeChart(chartBox(grid, nextId('cpu-held'), 'Who held the CPU per interval, CPU time in ' + cpuUnit[1],
                         'The engine\'s threads are every thread of the process that is neither a worker nor the ' +
                         'client\'s own (reporter, hiccup meter); other processes are counted on the workers\' CPUs ' +
                         'from /proc/stat, less this process.'),
                holders.filter(function (h) { return phase.cpu_held[h[0]]; }).map(function (h, i) {
                  return {label: h[1], data: points(t, phase.cpu_held[h[0]].map(function (v) {
                    return v === null ? null : v / cpuUnit[0]; })), borderColor: palette[i % palette.length]};
                }),
                {x: timeAxis(warm), y: {title: {display: true, text: 'CPU time, ' + cpuUnit[1]}, beginAtZero: true,
                                        ticks: {callback: function (v) { return +v.toPrecision(4); }}}}, {shade: shade});
    }
    if (phase.causes) {
      var causeNames = [['queueing', 'queueing behind the engine'], ['engine', "the engine's threads holding the CPU"],
                        ['client', "the client's own threads"], ['platform', 'the platform']];
      makeChart(chartBox(grid, nextId('causes'), 'Causes of the response p99 per interval, % of it',
                         'Queueing is what an ideal client with the same arrivals and service times also waits; the ' +
                         'rest is split by the CPU time each held (an estimate: the JSON\'s causes.definition).'),
                causeNames.map(function (c, i) {
                  return {label: c[1], data: points(t, phase.causes[c[0]].map(function (v) {
                    return v === null ? null : 100 * v; })), borderColor: palette[i % palette.length]};
                }),
                {x: timeAxis(warm), y: {title: {display: true, text: '% of the p99'}, min: 0, max: 100}}, {shade: shade});
    }

    Object.keys(phase.extra || {}).forEach(function (key) {
      var cols = phase.extra[key];
      var leaves = Object.keys(cols);
      var named = figureNames[key];
      var isTime = /_ns$/.test(key) || leaves.every(function (l) { return /_ns$/.test(l); });
      // Times are drawn in the unit their largest value reads in, and the axis says which.
      var unit = isTime ? timeUnit(columnMax(leaves.map(function (l) { return cols[l]; }))) : [1, named ? named[1] : ''];
      var ds = leaves.map(function (leaf, i) {
        var ys = cols[leaf].map(function (v) { return v === null ? null : v / unit[0]; });
        var label = leaves.length === 1 && named ? named[0].toLowerCase() : words(leaf.indexOf(key + '.') === 0 ?
                                                                                 leaf.slice(key.length + 1) : leaf);
        return {label: label, data: points(t, ys), borderColor: palette[i % palette.length]};
      });
      var title = (named ? named[0] : 'Interval figure: ' + words(key)) + (unit[1] ? ', ' + unit[1] : '');
      makeChart(chartBox(grid, nextId('extra-' + key.replace(/[^a-z0-9]/gi, '_')), title),
                ds, {x: timeAxis(warm), y: {title: {display: true, text: unit[1] || 'value'}, beginAtZero: true,
                                            ticks: {callback: isTime ? function (v) { return +v.toPrecision(4); } : fmtNum}}},
                {shade: shade});
    });
  }

  function spectrumChart(parent, curves, title) {
    var maxX = 2;
    var ds = curves.map(function (c) {
      var data = c.points.map(function (p) { maxX = Math.max(maxX, p[0]); return {x: p[0], y: Math.max(p[1], 1)}; });
      return {label: c.label, data: data, borderColor: c.color, stepped: 'before', pointRadius: 0,
              borderDash: c.dashed ? [6, 3] : undefined};
    });
    var ticks = [];
    for (var x = 1; x <= maxX * 10; x *= 10) { ticks.push(x); if (x === 1) ticks.push(2); }
    makeChart(chartBox(parent, nextId('spectrum'), title,
                       'x: percentile on a 1/(1−p) scale (50%, 90%, 99%, 99.9%, …); from the lossless histograms.'),
              ds, {
                x: {type: 'logarithmic', min: 1, max: ticks[ticks.length - 1],
                    title: {display: true, text: 'percentile'},
                    afterBuildTicks: function (axis) { axis.ticks = ticks.map(function (v) { return {value: v}; }); },
                    ticks: {callback: function (v) { return pctLabel(v); }}},
                y: latencyAxis('latency, log scale')});
  }

  // ---- several runs / a matrix: overlaid --------------------------------------------------
  function lastPhase(run) { return run.phases[run.phases.length - 1]; }

  function overlayCharts(parent) {
    var sec = el('section', {class: 'phase'}, [el('h2', {text: 'Runs overlaid (one colour per ' +
      (model.mode === 'matrix' ? 'variant' : 'input') + ')'})]);
    parent.appendChild(sec);
    var grid = el('div', {class: 'grid'});
    sec.appendChild(grid);
    function perRun(fn) {
      var ds = [];
      model.series.forEach(function (s, si) {
        s.runs.forEach(function (run, ri) {
          var d = fn(lastPhase(run));
          if (!d) return;
          ds.push({label: s.name, data: d, borderColor: palette[si % palette.length], sbHideLegend: ri > 0});
        });
      });
      return ds;
    }
    makeChart(chartBox(grid, nextId('throughput'), 'Throughput per interval, ops/s, every run'),
              perRun(function (p) { return points(p.t, p.throughput.all); }),
              {x: timeAxis(0), y: {title: {display: true, text: 'ops/s'}, beginAtZero: true,
                                   ticks: {callback: fmtNum}}});
    makeChart(chartBox(grid, nextId('p99'), 'Response time p99 per interval, every run'),
              perRun(function (p) { return p.latency.response.p99 ? points(p.t, p.latency.response.p99, true) : null; }),
              {x: timeAxis(0), y: latencyAxis('response time p99, log scale')});
    ['response', 'service'].forEach(function (which) {
      var curves = [];
      model.series.forEach(function (s, si) {
        (s.spectrum || []).forEach(function (c) {
          if (c.label === which) curves.push({label: s.name, points: c.points, color: palette[si % palette.length]});
        });
      });
      if (curves.length) spectrumChart(grid, curves, 'Percentile spectrum, ' + which + ' (each ' +
        (model.mode === 'matrix' ? "variant's runs merged" : 'input') + ')');
    });
    var backlog = perRun(function (p) { return p.schedule ? points(p.t, p.schedule.backlog) : null; });
    if (backlog.length)  // .hlog inputs have no schedule
      makeChart(chartBox(grid, nextId('backlog'), 'Backlog at the end of each interval, ops, every run'), backlog,
                {x: timeAxis(0), y: {title: {display: true, text: 'backlog, ops'}, beginAtZero: true}});
  }

  // ---- tables ---------------------------------------------------------------------------
  function table(headers, rows, cls) {
    var thead = el('thead', {}, [el('tr', {}, headers.map(function (h) { return el('th', {text: h}); }))]);
    var tbody = el('tbody', {}, rows.map(function (r) {
      return el('tr', {}, r.map(function (c) { return el('td', {text: c === undefined || c === null ? '' : String(c)}); }));
    }));
    return el('table', {class: cls || ''}, [thead, tbody]);
  }

  function compareSection(parent) {
    if (!model.compare) return;
    var sec = el('section', {class: 'compare'}, [el('h2', {text: 'Comparison'})]);
    var j = model.compare.json;
    if (j && j.comparisons) {
      var rows = j.comparisons.map(function (c) {
        var t = c.throughput || {}, l = c.latency || {};
        function ci(x) { return x && x.ci ? '[' + (100 * x.ci[0]).toFixed(1) + '%, ' + (100 * x.ci[1]).toFixed(1) + '%]' : ''; }
        return [c.name + ' vs ' + c.baseline, t.verdict || '', ci(t),
                (l.p50 || {}).verdict || '', (l.p99 || {}).verdict || '', ci(l.p99), (l['p99.9'] || {}).verdict || ''];
      });
      sec.appendChild(table(['variant', 'throughput', 'throughput CI', 'p50', 'p99', 'p99 CI', 'p99.9'], rows, 'verdicts'));
    }
    sec.appendChild(el('pre', {class: 'compare-text', text: model.compare.text}));
    parent.appendChild(sec);
  }

  function runsTable(parent) {
    var sec = el('section', {}, [el('h2', {text: model.mode === 'matrix' ? "Each variant's runs" : 'Inputs'})]);
    model.series.forEach(function (s, si) {
      var rows = s.runs.map(function (run) {
        var p = lastPhase(run);
        return [run.name, fmtNum(p.ops_per_sec) + ' ops/s', run.summary, run.command_line];
      });
      var h = el('h3', {text: s.name});
      h.style.borderLeft = '6px solid ' + palette[si % palette.length];
      sec.appendChild(h);
      sec.appendChild(table(['run', 'throughput', 'summary', 'command'], rows, 'runs'));
    });
    parent.appendChild(sec);
  }

  function detailsSection(parent, run) {
    var res = run.resources || {};
    var rows = [];
    Object.keys(res).forEach(function (sec) {
      res[sec].forEach(function (r) {
        rows.push([sec, r.name, r.text !== undefined ? r.text : fmtNum(r.value),
                   r.per_op !== undefined ? (+r.per_op.toPrecision(4)) : '']);
      });
    });
    if (rows.length) {
      parent.appendChild(el('section', {}, [el('h2', {text: 'Resources'}),
        table(['source', 'figure', 'value', 'per op'], rows, 'resources')]));
    }
    var env = run.environment || {};
    var envRows = Object.keys(env).map(function (k) {
      var v = env[k];
      return [k, typeof v === 'object' ? JSON.stringify(v) : v];
    });
    if (envRows.length)
      parent.appendChild(el('section', {}, [el('h2', {text: 'Environment'}), table(['fact', 'value'], envRows, 'env')]));
    if (run.command_line || (run.config && Object.keys(run.config).length)) {
      var job = el('section', {}, [el('h2', {text: 'The job'})]);
      if (run.command_line) {
        var pre = el('pre', {class: 'command', id: 'sb-command', text: run.command_line});
        var btn = el('button', {type: 'button', text: 'copy'});
        btn.addEventListener('click', function () {
          if (navigator.clipboard) navigator.clipboard.writeText(run.command_line);
        });
        job.appendChild(el('div', {class: 'cmd'}, [pre, btn]));
      }
      job.appendChild(el('h3', {text: 'config'}));
      job.appendChild(el('pre', {class: 'config', text: JSON.stringify(run.config, null, 2)}));
      parent.appendChild(job);
    }
  }

  function markReady() {
    var empty = charts.filter(function (c) {
      var any = c.data.datasets.some(function (d) {
        return d.data.some(function (p) { return p && isFinite(p.y); });
      });
      return !any || !(c.chartArea && c.chartArea.right > c.chartArea.left);
    }).map(function (c) { return c.sbId; });
    var ready = el('div', {id: 'sb-ready', hidden: 'hidden'});
    ready.setAttribute('data-charts', String(charts.length));
    ready.setAttribute('data-empty', empty.join(' '));
    ready.setAttribute('data-errors', String(window.sbErrors ? window.sbErrors.length : 0));
    ready.setAttribute('data-ms', String(Math.round(performance.now())));
    // Each chart's caption and line labels, for tests: "caption: label|label" per chart, ";"-separated.
    ready.setAttribute('data-lines', charts.map(function (c) {
      return c.sbTitle + ': ' + c.data.datasets.map(function (d) { return d.label; }).join('|');
    }).join('; '));
    document.body.appendChild(ready);
    document.body.dataset.chartsDrawn = String(charts.length);
  }

  if (model.mode === 'single') {
    var run = model.series[0].runs[0];
    run.phases.forEach(function (p, i) {
      phaseCharts(main, p, run.phases.length > 1 && i === 0 ? 'warm-up' : undefined);
    });
    detailsSection(main, run);
  } else {
    compareSection(main);
    overlayCharts(main);
    runsTable(main);
  }
  markReady();
})();
