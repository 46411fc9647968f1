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

  function rubric(verdict) {
    var box = el("div", {id: "rubric"}, el("h4", null, "Rubric"));
    if (!verdict) { box.appendChild(el("p", null, "No verdict (infrastructure error).")); return box; }
    var s = verdict;
    box.appendChild(meta([
      ["score", fmt(s.score)], ["completion", fmt(s.completion)], ["safety", fmt(s.safety)],
      ["robustness", fmt(s.robustness)], ["passed", s.passed ? "yes" : "no"],
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
    view.appendChild(el("h3", null, r.task_id + " / trial " + r.trial + " ",
      r.status === "infra_error" ? tag("error", "INFRA ERROR") : (v && v.passed ? tag("pass", "PASS") : tag("fail", "FAIL"))));
    view.appendChild(meta([
      ["agent", r.agent], ["status", r.status], ["outcome", r.outcome], ["error", r.error],
      ["score", v ? fmt(v.score) : "-"], ["turns", r.turns], ["user rounds", r.user_rounds],
      ["tokens", r.input_tokens + " in / " + r.output_tokens + " out"], ["seed", r.seed],
      ["root hash", r.root_hash], ["task hash", r.task_hash], ["trace", r.trace]
    ]));
    view.appendChild(rubric(v));
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

  // The trial viewer.
  var dataNode = document.getElementById("trial-data");
  var pick = document.getElementById("trial-pick");
  var view = document.getElementById("viewer");
  if (!dataNode || !pick || !view) return;
  var trials = JSON.parse(dataNode.textContent);
  if (!trials.length) return;
  function fromHash() {
    var want = hashParams().trial;
    if (!want) return 0;
    var best = -1;
    trials.forEach(function (t, i) {
      if (t.record.task_id + "/" + t.record.trial !== want) return;
      if (best < 0 || (trials[best].record.status !== "scored" && t.record.status === "scored")) best = i;
    });
    return best < 0 ? 0 : best;
  }
  function show(i) {
    pick.value = String(i);
    render(view, trials[i]);
  }
  pick.addEventListener("change", function () { show(Number(pick.value)); });
  window.addEventListener("hashchange", function () {
    if (hashParams().trial) {
      show(fromHash());
      view.scrollIntoView();
    }
  });
  show(fromHash());
})();
