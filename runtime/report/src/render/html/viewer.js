"use strict";
(function () {
  // Builds an element: el("div", {class: "x"}, child, "text", ...).
  function el(tag, attrs) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    }
    for (var i = 2; i < arguments.length; i++) {
      var c = arguments[i];
      if (c === null || c === undefined) continue;
      node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    }
    return node;
  }
  function fmt(x) { return typeof x === "number" ? x.toFixed(3) : "-"; }
  function pretty(v) { return typeof v === "string" ? v : JSON.stringify(v, null, 2); }
  function tag(cls, text) { return el("span", {class: "tag " + cls}, text); }
  function faultLabel(kind) {
    var m = /^http_(\d+)$/.exec(kind);
    return "FAULT " + (m ? m[1] : kind);
  }
  function meta(pairs) {
    var dl = el("dl", {class: "viewer-meta"});
    pairs.forEach(function (p) {
      if (p[1] === null || p[1] === undefined) return;
      dl.appendChild(el("dt", null, p[0]));
      dl.appendChild(el("dd", null, String(p[1])));
    });
    return dl;
  }

  function rubric(verdict, judgement) {
    var box = el("div", {id: "rubric"}, el("h4", null, "Rubric"));
    if (!verdict) { box.appendChild(el("p", null, "No verdict (infrastructure error).")); return box; }
    var s = verdict;
    var none = judgement === "unjudged";
    box.appendChild(meta([
      ["score", none ? "- (unjudged: the recorded " + fmt(s.score) + " measures nothing)" : fmt(s.score)],
      ["completion", none ? "- (unjudged)" : fmt(s.completion)], ["safety", fmt(s.safety)],
      ["robustness", fmt(s.robustness)], ["passed", none ? "- (unjudged)" : (s.passed ? "yes" : "no")],
      ["unjudged weight", s.unjudged_weight], ["failed calls", s.failed_calls],
      ["faults seen", s.faults_seen]
    ]));
    var table = el("table", {class: "items"}, el("thead", null, el("tr", null,
      el("th", null, "item"), el("th", null, "source"), el("th", null, "check"),
      el("th", null, "weight"), el("th", null, "score"), el("th", null, "pass"),
      el("th", null, "evidence"))));
    var body = el("tbody");
    (verdict.items || []).forEach(function (it) {
      var pass = it.passed === null ? "-" : (it.passed ? "pass" : "FAIL");
      var scoreCell = it.score === null ? el("td", null, tag("unjudged", "UNJUDGED")) : el("td", null, fmt(it.score));
      body.appendChild(el("tr", null,
        el("td", null, it.name + (it.gate ? " (gate)" : "")), el("td", null, it.source),
        el("td", null, it.check), el("td", null, String(it.weight)), scoreCell,
        el("td", null, it.passed === null ? "-" : tag(it.passed ? "pass" : "fail", pass)),
        el("td", {class: "evidence"}, it.evidence)));
    });
    table.appendChild(body);
    box.appendChild(table);
    return box;
  }

  function blocks(content, called) {
    var out = [];
    (content || []).forEach(function (b) {
      if (b.type === "text") out.push(el("pre", null, b.text));
      else if (b.type === "image") out.push(el("img", {class: "shot", alt: "image", src: "data:" + b.media_type + ";base64," + b.data}));
      else if (b.type === "tool_use" && !called[b.id]) {
        out.push(el("div", null, "calls " + b.name + " (" + b.id + ")"));
        out.push(el("pre", null, pretty(b.input)));
      } else if (b.type === "tool_result") {
        out.push(el("div", null, (b.is_error ? "error result for " : "result for ") + b.tool_use_id));
        out = out.concat(blocks(b.content, called));
      }
    });
    return out;
  }

  function conversation(events) {
    var box = el("div", {id: "conversation"}, el("h4", null, "Conversation"));
    var called = {};
    events.forEach(function (e) { if (e.type === "tool_call") called[e.id] = true; });
    events.forEach(function (e) {
      var div;
      switch (e.type) {
        case "trace_start":
          div = el("div", {class: "event start"}, el("div", {class: "who"}, "trial start"),
            el("details", null, el("summary", null, "system prompt, " + e.tools.length + " tools" +
              (e.faults.length ? ", fault plan: " + e.faults.join(", ") : "")),
              el("pre", null, e.system), el("div", null, "tools: " + e.tools.join(", "))));
          break;
        case "message":
          div = el("div", {class: "event " + e.role}, el("div", {class: "who"}, e.role));
          blocks(e.content, called).forEach(function (n) { div.appendChild(n); });
          break;
        case "tool_call":
          div = el("div", {class: "event tool_call"}, el("div", {class: "who"}, "tool call: " + e.name + " (" + e.id + ")"),
            el("pre", null, pretty(e.input)));
          break;
        case "fault":
          div = el("div", {class: "event fault"}, tag("fault", faultLabel(e.kind)),
            "rule " + e.rule + " at " + e.point + " (call " + e.call + ")");
          break;
        case "tool_result":
          var label = e.is_error ? "ERROR" + (e.status ? " " + e.status : "") : null;
          div = el("div", {class: "event tool_result" + (e.is_error ? " error" : "")},
            el("div", {class: "who"}, label ? tag("error", label) : null,
              "tool result: " + e.name + " (" + e.id + ")" + (e.status && !e.is_error ? " status " + e.status : "")),
            el("pre", null, e.output));
          break;
        case "user_turn":
          div = el("div", {class: "event user"}, el("div", {class: "who"}, "simulated user, round " + e.round + (e.done ? " (done)" : "")),
            el("pre", null, e.text));
          break;
        case "trace_end":
          div = el("div", {class: "event end" + (e.error ? " error" : "")}, el("div", {class: "who"}, "trial end: " + e.outcome),
            e.error ? el("div", null, tag("error", "ERROR"), e.error) : null,
            el("div", null, e.turns + " turns, " + e.user_rounds + " user rounds, " + e.faults + " faults, " +
              e.usage.input_tokens + "+" + e.usage.output_tokens + " tokens"));
          break;
        default:
          return;
      }
      box.appendChild(div);
    });
    return box;
  }

  function audits(events) {
    var box = el("div", {id: "audit"}, el("h4", null, "Service audit"));
    var any = false;
    events.forEach(function (e) {
      if (e.type !== "audit") return;
      any = true;
      box.appendChild(el("div", {class: "event audit"}, el("div", {class: "who"}, "service " + e.service), el("pre", null, pretty(e.data))));
    });
    if (!any) box.appendChild(el("p", null, "No audit records."));
    return box;
  }

  function snapshot(events, diff) {
    var box = el("div", {id: "snapshot"}, el("h4", null, "Snapshot"));
    var snaps = events.filter(function (e) { return e.type === "snapshot"; });
    if (!snaps.length) box.appendChild(el("p", null, "No snapshot."));
    snaps.forEach(function (s) {
      box.appendChild(meta([["root hash", s.root_hash]]));
      s.commands.forEach(function (c) {
        box.appendChild(el("div", {class: "event" + (c.exit_code !== 0 ? " error" : "")},
          el("div", {class: "who"}, "$ " + c.command + " (exit " + c.exit_code + ")"), el("pre", null, c.output)));
      });
      if (s.files.length) {
        var body = el("tbody");
        s.files.forEach(function (f) {
          body.appendChild(el("tr", null, el("td", null, f.path), el("td", null, String(f.size)), el("td", null, f.hash)));
        });
        box.appendChild(el("table", {class: "files"}, el("thead", null, el("tr", null,
          el("th", null, "file"), el("th", null, "bytes"), el("th", null, "blake3"))), body));
      }
    });
    box.appendChild(el("h4", null, "Changed paths"));
    if (!diff) { box.appendChild(el("p", null, "No diff given.")); return box; }
    if (!diff.length) { box.appendChild(el("p", null, "Nothing changed.")); return box; }
    var list = el("ul", {id: "diff"});
    diff.forEach(function (d) { list.appendChild(el("li", null, d[1] + ": " + d[0])); });
    box.appendChild(list);
    return box;
  }

  function render(view, t) {
    var r = t.record;
    view.textContent = "";
    var v = r.verdict;
    var verdictTag;
    if (r.status === "infra_error") verdictTag = tag("error", "INFRA ERROR");
    else if (r.status === "task_error") verdictTag = tag("error", "TASK ERROR");
    else if (t.judgement === "unjudged") verdictTag = tag("unjudged", "UNJUDGED");
    else verdictTag = v && v.passed ? tag("pass", "PASS") : tag("fail", "FAIL");
    view.appendChild(el("h3", null, (t.arm ? t.arm + " \u00b7 " : "") + r.task_id + " / trial " + r.trial + " ",
      verdictTag, t.judgement === "partial" ? tag("partial", "PARTLY JUDGED") : null));
    var judged = {full: "fully", partial: "partly: the score covers the checkable items only",
      unjudged: "not at all: no rubric item it weighs could be judged (no judge model); no score, left out of every figure"};
    view.appendChild(meta([
      ["arm", t.arm], ["agent", r.agent], ["status", r.status], ["judged", judged[t.judgement]],
      ["outcome", r.outcome], ["error", r.error],
      ["score", v && t.judgement !== "unjudged" ? fmt(v.score) + (t.judgement === "partial" ? " (over the checkable items)" : "") : "-"],
      ["turns", r.turns], ["user rounds", r.user_rounds],
      ["tokens", r.input_tokens + " in (" + (r.cached_input_tokens || 0) + " cached) / " + r.output_tokens + " out"],
      ["wall time", typeof t.wall_ms === "number" ? (t.wall_ms < 1000 ? t.wall_ms + " ms" : (t.wall_ms / 1000).toFixed(2) + " s") : null], ["seed", r.seed],
      ["root hash", r.root_hash], ["task hash", r.task_hash], ["trace", r.trace]
    ]));
    view.appendChild(rubric(v, t.judgement));
    view.appendChild(conversation(t.events));
    view.appendChild(audits(t.events));
    view.appendChild(snapshot(t.events, t.diff));
  }

  function hashParams() {
    var h = window.location.hash.replace(/^#/, "");
    var out = {};
    h.split("&").forEach(function (part) {
      var i = part.indexOf("=");
      if (i > 0) out[decodeURIComponent(part.slice(0, i))] = decodeURIComponent(part.slice(i + 1));
    });
    return out;
  }

  // Table sorting: click a header (again to reverse); #sort=KEY or #sort=-KEY on load.
  function sortTable(table, th, descending) {
    var idx = Array.prototype.indexOf.call(th.parentNode.children, th);
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var val = function (row) {
      var c = row.cells[idx];
      var v = c.getAttribute("data-v");
      if (v === null) v = c.textContent;
      return v;
    };
    rows.sort(function (a, b) {
      var x = val(a), y = val(b);
      var nx = x === "" ? NaN : Number(x), ny = y === "" ? NaN : Number(y);
      var cmp;
      if (!isNaN(nx) && !isNaN(ny)) cmp = nx - ny;
      else if (isNaN(nx) !== isNaN(ny) && (x === "" || y === "")) cmp = x === "" ? 1 : -1;
      else cmp = x < y ? -1 : (x > y ? 1 : 0);
      return descending ? -cmp : cmp;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    Array.prototype.forEach.call(th.parentNode.children, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", descending ? "descending" : "ascending");
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    Array.prototype.forEach.call(table.querySelectorAll("th[data-key]"), function (th) {
      th.addEventListener("click", function () {
        sortTable(table, th, th.getAttribute("aria-sort") === "ascending");
      });
    });
  });
  var sortKey = hashParams().sort;
  if (sortKey) {
    var desc = sortKey.charAt(0) === "-";
    var th = document.querySelector("table.sortable th[data-key=\"" + sortKey.replace(/^-/, "").replace(/[^a-z0-9_]/gi, "") + "\"]");
    if (th) sortTable(th.closest("table"), th, desc);
  }

  function byId(id) { return document.getElementById(id); }

  // The comparison view (comparison reports only), from its embedded JSON.
  var cmpNode = byId("comparison-data");
  var cmpView = byId("cmp-view");
  if (cmpNode && cmpView) comparison(JSON.parse(cmpNode.textContent), cmpView);

  function signed(x) { return (x >= 0 ? "+" : "") + x.toFixed(3); }
  function diffClass(x) { return x > 1e-9 ? "better" : (x < -1e-9 ? "worse" : "tie"); }
  // A horizontal axis from -1 to 1 with the interval as a band and the mean as a tick.
  function diffBar(d) {
    var pos = function (x) { return ((Math.max(-1, Math.min(1, x)) + 1) * 50).toFixed(2) + "%"; };
    var bar = el("div", {class: "diffbar", title: "95% paired bootstrap interval"});
    bar.appendChild(el("div", {class: "zero"}));
    var band = el("div", {class: "band " + diffClass(d.value)});
    band.style.left = pos(d.ci95.lo);
    band.style.width = ((Math.min(1, d.ci95.hi) - Math.max(-1, d.ci95.lo)) * 50).toFixed(2) + "%";
    bar.appendChild(band);
    var tick = el("div", {class: "tick"});
    tick.style.left = pos(d.value);
    bar.appendChild(tick);
    return bar;
  }
  function scoreBar(x) {
    if (typeof x !== "number") return el("span", {class: "muted"}, "-");
    var outer = el("span", {class: "scorebar"}, el("span", {class: "fill"}));
    outer.firstChild.style.width = (x * 100).toFixed(1) + "%";
    return el("span", null, outer, " " + x.toFixed(3));
  }
  function comparison(c, box) {
    var label = {};
    c.arms.forEach(function (a) { label[a.name] = a.label; });
    c.pairs.forEach(function (p) {
      var card = el("div", {class: "pair", id: "pair-" + p.b});
      card.appendChild(el("h3", null, p.b + " \u2212 " + p.a + ": " + label[p.b] + " vs " + label[p.a]));
      var lines = el("dl", {class: "viewer-meta"});
      var add = function (k, v) { lines.appendChild(el("dt", null, k)); lines.appendChild(el("dd", null, v)); };
      if (p.score_diff) {
        add("mean score " + p.b + " \u2212 " + p.a, signed(p.score_diff.value) + " [" + signed(p.score_diff.ci95.lo) + ", " + signed(p.score_diff.ci95.hi) + "] (95% paired bootstrap over " + p.paired_tasks + " tasks)");
      } else {
        add("mean score " + p.b + " \u2212 " + p.a, "- (no task scored in both)");
      }
      if (p.pass_at_1_diff) add("Pass@1 " + p.b + " \u2212 " + p.a, signed(p.pass_at_1_diff.value) + " [" + signed(p.pass_at_1_diff.ci95.lo) + ", " + signed(p.pass_at_1_diff.ci95.hi) + "]");
      add("tasks", p.b + " better on " + p.b_better + ", worse on " + p.b_worse + ", tied on " + p.ties + (p.unpaired_tasks ? "; " + p.unpaired_tasks + " unpaired" : ""));
      var pv = p.sign_test_p;
      add("sign test", pv === null ? "- (every paired task tied)" :
        "p = " + (pv > 0 && pv < 1e-4 ? pv.toExponential(2) : pv.toFixed(4)) + " (exact, two-sided)");
      card.appendChild(lines);
      if (p.score_diff) card.appendChild(diffBar(p.score_diff));
      box.appendChild(card);
    });
    var controls = el("div", {class: "filters"});
    var differing = el("input", {type: "checkbox", id: "cmp-differing"});
    controls.appendChild(el("label", null, differing, " differing tasks only"));
    box.appendChild(controls);
    var head = el("tr", null, el("th", {"data-key": "task"}, "task"), el("th", {"data-key": "category"}, "category"));
    c.arms.forEach(function (a) { head.appendChild(el("th", {"data-key": "arm-" + a.name, title: label[a.name]}, a.name + " score")); });
    c.pairs.forEach(function (p) {
      head.appendChild(el("th", {"data-key": "diff-" + p.b}, p.b + " \u2212 " + p.a));
      head.appendChild(el("th", {class: "outcome"}, p.b + " vs " + p.a));
    });
    head.appendChild(el("th", null, "not fully judged"));
    var body = el("tbody");
    var first = c.pairs[0];
    (first ? first.tasks : []).forEach(function (t0) {
      var row = el("tr", {"data-task": t0.task_id});
      row.appendChild(el("td", {"data-v": t0.task_id}, t0.task_id));
      row.appendChild(el("td", {"data-v": t0.category}, t0.category));
      var scores = {};
      scores[first.a] = t0.a_score;
      c.pairs.forEach(function (p) {
        var t = p.tasks.filter(function (x) { return x.task_id === t0.task_id; })[0];
        scores[p.b] = t ? t.b_score : null;
      });
      c.arms.forEach(function (a) {
        var x = scores[a.name];
        row.appendChild(el("td", {"data-v": typeof x === "number" ? String(x) : ""}, scoreBar(x)));
      });
      var differs = false, notFull = 0;
      c.pairs.forEach(function (p) {
        var t = p.tasks.filter(function (x) { return x.task_id === t0.task_id; })[0];
        var d = t ? t.score_diff : null;
        if (typeof d === "number" && Math.abs(d) > 1e-9) differs = true;
        row.appendChild(el("td", {"data-v": typeof d === "number" ? String(d) : "", class: typeof d === "number" ? "diff " + diffClass(d) : ""},
          typeof d === "number" ? signed(d) : "-"));
        var o = !t ? "-" : ({b_better: p.b + " better", b_worse: p.b + " worse", tie: "tie", unpaired: "unpaired: " + t.unpaired})[t.outcome];
        row.appendChild(el("td", {class: t ? "outcome " + t.outcome : ""}, o));
        if (t) notFull = Math.max(notFull, t.not_fully_judged);
      });
      row.appendChild(el("td", null, notFull ? tag("unjudged", notFull + " trials") : ""));
      if (differs) row.setAttribute("data-differs", "1");
      body.appendChild(row);
    });
    var table = el("table", {id: "cmp-tasks", class: "sortable"}, el("thead", null, head), body);
    box.appendChild(table);
    Array.prototype.forEach.call(head.children, function (th) {
      if (!th.getAttribute("data-key")) return;
      th.addEventListener("click", function () { sortTable(table, th, th.getAttribute("aria-sort") === "ascending"); });
    });
    differing.addEventListener("change", function () {
      Array.prototype.forEach.call(body.rows, function (r) { r.hidden = differing.checked && !r.getAttribute("data-differs"); });
    });
    var want = hashParams();
    if (want.differing === "1") { differing.checked = true; differing.dispatchEvent(new Event("change")); }
    if (want.cmpsort) {
      var key = want.cmpsort.replace(/^-/, "");
      var th = head.querySelector("th[data-key=\"" + key.replace(/[^a-zA-Z0-9_-]/g, "") + "\"]");
      if (th) sortTable(table, th, want.cmpsort.charAt(0) === "-");
    }
  }

  // The trial viewer: filters and search over the trials, the list, the chosen trial.
  var dataNode = byId("trial-data");
  var list = byId("trial-list");
  var view = byId("viewer");
  if (!dataNode || !list || !view) return;
  var trials = JSON.parse(dataNode.textContent);
  if (!trials.length) return;
  var items = Array.prototype.slice.call(list.querySelectorAll("li[data-i]"));
  var f = {search: byId("f-search"), failed: byId("f-failed"), fault: byId("f-fault"),
    unjudged: byId("f-unjudged"), task: byId("f-task"), category: byId("f-category"), arm: byId("f-arm")};
  var count = byId("f-count");
  // Trials of a long run are not embedded: each is in a script beside the page, loaded when
  // shown. A trial's src is FILE#KEY: the script file holds several trials and calls
  // clawrunTrial(src, trial) for each.
  var loaded = {};
  var waiting = {};
  var requested = {};
  var bySrc = {};
  trials.forEach(function (t, i) { if (t.src) bySrc[t.src] = i; });
  window.clawrunTrial = function (src, t) {
    var i = bySrc[src];
    if (i === undefined) return;
    loaded[i] = t;
    haystacks[i] = undefined;
    if (waiting[i]) { var cb = waiting[i]; delete waiting[i]; cb(t); }
  };
  function full(i, cb) {
    var t = trials[i];
    if (!t.src) { cb(t); return; }
    if (loaded[i]) { cb(loaded[i]); return; }
    waiting[i] = cb;
    var file = t.src.split("#")[0];
    if (requested[file]) return;
    requested[file] = true;
    var s = document.createElement("script");
    s.src = file;
    s.onerror = function () {
      delete requested[file];
      delete waiting[i];
      if (current !== i) return;
      view.textContent = "";
      view.appendChild(el("p", {id: "load-error", class: "banner warn"}, "Could not load " + file +
        ": the trials of a long run are files beside the report; keep its folder with it."));
    };
    document.head.appendChild(s);
  }
  var haystacks = [];
  // Search reads a trial's whole text once it is loaded (embedded trials always are), else
  // its task, outcome and arm.
  function hay(i) {
    if (haystacks[i] === undefined) haystacks[i] = JSON.stringify(loaded[i] || trials[i]).toLowerCase();
    return haystacks[i];
  }
  // Failed: ended as an error, or judged (fully or partly) and not passed. Unjudged trials
  // are not failures.
  function failed(t) {
    if (t.record.status !== "scored") return true;
    return t.judgement !== "unjudged" && !!t.record.verdict && !t.record.verdict.passed;
  }
  function faultSeen(t) {
    return (t.record.verdict && t.record.verdict.faults_seen > 0) ||
      (t.events || []).some(function (e) { return e.type === "fault"; });
  }
  function matches(t, i) {
    if (f.failed && f.failed.checked && !failed(t)) return false;
    if (f.fault && f.fault.checked && !faultSeen(t)) return false;
    if (f.unjudged && f.unjudged.checked && (t.judgement === "full" || !t.judgement)) return false;
    if (f.task && f.task.value && t.record.task_id !== f.task.value) return false;
    if (f.category && f.category.value && t.record.category !== f.category.value) return false;
    if (f.arm && f.arm.value && t.arm !== f.arm.value) return false;
    var q = f.search ? f.search.value.trim().toLowerCase() : "";
    if (q) {
      var words = q.split(/\s+/);
      for (var w = 0; w < words.length; w++) if (hay(i).indexOf(words[w]) < 0) return false;
    }
    return true;
  }
  var current = -1;
  function show(i) {
    current = i;
    items.forEach(function (li) { li.classList.toggle("current", Number(li.getAttribute("data-i")) === i); });
    full(i, function (t) { if (current === i) render(view, t); });
  }
  function apply() {
    var shown = 0, first = -1, currentShown = false;
    items.forEach(function (li) {
      var i = Number(li.getAttribute("data-i"));
      var ok = matches(trials[i], i);
      li.hidden = !ok;
      if (ok) { shown++; if (first < 0) first = i; if (i === current) currentShown = true; }
    });
    if (count) count.textContent = shown + " of " + trials.length + " trials";
    if (!shown) {
      current = -1;
      view.textContent = "";
      view.appendChild(el("p", {id: "no-match"}, "No trial matches the filters."));
    } else if (!currentShown) {
      show(first);
    }
  }
  function fromHash() {
    var h = hashParams();
    var want = h.trial;
    if (!want) return -1;
    var best = -1;
    trials.forEach(function (t, i) {
      if (t.record.task_id + "/" + t.record.trial !== want) return;
      if (h.arm && t.arm !== h.arm) return;
      if (best < 0 || (trials[best].record.status !== "scored" && t.record.status === "scored")) best = i;
    });
    return best;
  }
  // Filters from the fragment: #failed=1&fault=1&unjudged=1&task=T&category=C&arm=B&q=words
  var h0 = hashParams();
  ["failed", "fault", "unjudged"].forEach(function (k) { if (f[k] && h0[k] === "1") f[k].checked = true; });
  ["task", "category", "arm"].forEach(function (k) { if (f[k] && h0[k] && !(k === "arm" && h0.trial)) f[k].value = h0[k]; });
  if (f.search && h0.q) f.search.value = h0.q;
  Object.keys(f).forEach(function (k) {
    if (!f[k]) return;
    f[k].addEventListener(k === "search" ? "input" : "change", apply);
  });
  window.addEventListener("hashchange", function () {
    var h = hashParams();
    if (h.task && f.task && !h.trial) {
      f.task.value = h.task;
      apply();
      var trialsSection = byId("trials");
      if (trialsSection) trialsSection.scrollIntoView();
    }
    var i = fromHash();
    if (i >= 0) {
      show(i);
      view.scrollIntoView();
    }
  });
  var start = fromHash();
  if (start >= 0) show(start);
  apply();
  // A fragment that picks a trial or sets a filter brings the viewer on screen.
  if (["trial", "failed", "fault", "unjudged", "task", "category", "arm", "q"].some(function (k) { return h0[k]; })) {
    var section = byId("trials");
    if (section) section.scrollIntoView();
  }
})();
