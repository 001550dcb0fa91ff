// The case list of a harness HTML report: drawn in chunks, each case's details built when
// it is opened. Every text from the report goes into the page through textContent only.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var cases = data.cases;
  var list = document.getElementById("cases");
  var more = document.getElementById("more");
  var earlier = document.getElementById("earlier");
  var search = document.getElementById("search");
  var shown = document.getElementById("shown");
  var boxes = Array.prototype.slice.call(document.querySelectorAll("input[name=status]"));
  var CHUNK = 200;
  var MARKS = { passed: "\u2713", failed: "\u2717", errored: "!", skipped: "\u2013" };
  var byName = new Map();
  var texts = new Array(cases.length);
  var matching = [];
  var first = 0;
  var drawn = 0;
  var timer = 0;
  cases.forEach(function (c, i) { if (!byName.has(c.n)) { byName.set(c.n, i); } });

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  function strings(value, out) {
    if (typeof value === "string") { out.push(value); }
    else if (Array.isArray(value)) { value.forEach(function (v) { strings(v, out); }); }
    else if (value && typeof value === "object") {
      Object.keys(value).forEach(function (k) { strings(value[k], out); });
    }
    return out;
  }

  function haystack(i) {
    if (texts[i] === undefined) {
      var c = cases[i];
      texts[i] = strings([c.n, c.f, c.src, c.x], []).join("\n").toLowerCase();
    }
    return texts[i];
  }

  function seconds(value) {
    return value < 1 ? (value * 1000).toFixed(0) + " ms" : value.toFixed(2) + " s";
  }

  // A call's timing, to the microsecond the JSON report keeps: milliseconds under a second.
  function exact(value) {
    return value < 1 ? (value * 1000).toFixed(3) + " ms" : value.toFixed(6) + " s";
  }

  function timing(item) {
    var start = item.at === null || item.at === undefined ? "unknown" : "+" + exact(item.at);
    var took = item.dur === null || item.dur === undefined ? "unknown" : exact(item.dur);
    var what = item.obs === "wire" ? "round trip " : "duration ";
    return "start " + start + " \u00b7 " + what + took;
  }

  function apply() {
    var allowed = {};
    boxes.forEach(function (box) { allowed[box.value] = box.checked; });
    var query = search.value.trim().toLowerCase();
    matching = [];
    for (var i = 0; i < cases.length; i++) {
      if (allowed[cases[i].st] && (!query || haystack(i).indexOf(query) >= 0)) { matching.push(i); }
    }
    drawFrom(0);
  }

  // The list shows one window of the matching cases, [first, drawn), grown a chunk at a time
  // at either end: a link to a case far down draws the cases around it, not all before it.
  function drawFrom(start) {
    list.textContent = "";
    first = drawn = start;
    drawMore();
  }

  function drawMore() {
    var end = Math.min(drawn + CHUNK, matching.length);
    var fragment = document.createDocumentFragment();
    for (; drawn < end; drawn++) { fragment.appendChild(row(matching[drawn])); }
    list.appendChild(fragment);
    counted();
  }

  function drawEarlier() {
    var start = Math.max(0, first - CHUNK);
    var fragment = document.createDocumentFragment();
    for (var i = start; i < first; i++) { fragment.appendChild(row(matching[i])); }
    list.insertBefore(fragment, list.firstChild);
    first = start;
    counted();
  }

  function counted() {
    more.hidden = drawn >= matching.length;
    earlier.hidden = first === 0;
    var range = first === 0 ? String(drawn) : (first + 1) + "\u2013" + drawn;
    shown.textContent = "Showing " + range + " of " + matching.length + " matching case" +
      (matching.length === 1 ? "" : "s") + " (" + cases.length + " listed).";
  }

  function row(i) {
    var c = cases[i];
    var item = el("li", "case " + c.st);
    var details = el("details");
    details.id = "case-" + c.n;
    var summary = el("summary");
    summary.appendChild(el("span", "mark", MARKS[c.st])).setAttribute("aria-hidden", "true");
    summary.appendChild(el("span", "word", c.st));
    summary.appendChild(el("span", "name", c.n));
    summary.appendChild(el("span", "time", seconds(c.d)));
    if (c.b) { summary.appendChild(el("span", "flip", "baseline: " + c.b)); }
    if (c.f) { summary.appendChild(el("span", "why", c.f)); }
    details.appendChild(summary);
    details.addEventListener("toggle", function () {
      if (details.open && !details.dataset.built) {
        details.dataset.built = "1";
        details.appendChild(body(c));
      }
    });
    item.appendChild(details);
    return item;
  }

  function fact(list, name, value) {
    if (value === undefined || value === null || value === "") { return; }
    list.appendChild(el("dt", "", name));
    list.appendChild(el("dd", "", value));
  }

  function block(parent, text, cls) { parent.appendChild(el("pre", cls || "", text)); }

  function collapsed(parent, title, fill) {
    var box = el("details", "more");
    box.appendChild(el("summary", "", title));
    var built = false;
    box.addEventListener("toggle", function () {
      if (box.open && !built) { built = true; fill(box); }
    });
    parent.appendChild(box);
  }

  function body(c) {
    var root = el("div", "body");
    var facts = el("dl", "facts");
    fact(facts, "fixture", c.src);
    var x = c.x;
    if (x) {
      fact(facts, "id", x.id);
      fact(facts, "duration", seconds(c.d));
      fact(facts, "tokens", x.tok ? x.tok[0] + " in, " + x.tok[1] + " out" : "");
      fact(facts, "model calls", x.llm);
      fact(facts, "checks", x.score);
    }
    root.appendChild(facts);
    var link = el("a", "", "Link to this case");
    link.href = "#" + encodeURIComponent("case-" + c.n);
    root.appendChild(link);
    if (!x) {
      root.appendChild(el("p", "note", data.left_out));
      return root;
    }
    if (x.skip) { root.appendChild(el("p", "note", "Skipped: " + x.skip)); }
    if (x.err) {
      root.appendChild(el("h3", "", "Error"));
      block(root, x.err, "error");
    }
    timeline(root, x.tl);
    checks(root, x.ch);
    if (x.chm) { root.appendChild(el("p", "note", x.chm + " more checks left out: see the JSON report")); }
    if (x.rq && x.rq.length) {
      var sent = x.rq.length + (x.rqm || 0);
      collapsed(root, "Requests sent over the wire (" + sent + ")", function (box) {
        x.rq.forEach(function (text, n) {
          box.appendChild(el("h3", "", "Request " + (n + 1)));
          block(box, text);
        });
        if (x.rqm) { box.appendChild(el("p", "note", x.rqm + " more requests left out: see the JSON report")); }
      });
    }
    [["out", "Captured stdout"], ["errout", "Captured stderr"], ["tb", "Traceback"]].forEach(
      function (part) {
        if (x[part[0]]) { collapsed(root, part[1], function (box) { block(box, x[part[0]]); }); }
      });
    return root;
  }

  function timeline(root, items) {
    root.appendChild(el("h3", "", "Timeline"));
    var steps = el("ol", "timeline");
    (items || []).forEach(function (item) {
      var li = el("li", "step " + item.k);
      var who = {
        user: "user", model: "model reply", ask: "model asks for tools", call: "tool call",
        final: "final response", note: "note"
      }[item.k] || item.k;
      li.appendChild(el("div", "who", who));
      if (item.k === "ask") {
        item.calls.forEach(function (call) { block(li, call.name + "(" + call.a + ")"); });
      } else if (item.k === "call") {
        var ok = item.r === null ? "no result" : (item.ok ? "\u2713 succeeded" : "\u2717 failed");
        li.appendChild(el("div", "mono", item.name + " \u2014 " + ok + (item.obs ? " (seen at " + item.obs + ")" : "")));
        li.appendChild(el("div", "timing mono", timing(item)));
        block(li, "arguments: " + item.a);
        if (item.r !== null) { block(li, "result: " + item.r); }
      } else {
        block(li, item.t || "(empty)");
      }
      steps.appendChild(li);
    });
    root.appendChild(steps);
  }

  function checks(root, items) {
    root.appendChild(el("h3", "", "Checks (" + (items || []).length + ")"));
    var listing = el("ul", "checks");
    (items || []).forEach(function (check) {
      var state = check.ok ? "passed" : "failed";
      var li = el("li", state);
      li.appendChild(el("span", "mark", MARKS[state])).setAttribute("aria-hidden", "true");
      li.appendChild(el("span", "word", " " + state + " "));
      li.appendChild(el("code", "", check.c));
      if (check.at) { li.appendChild(el("span", "where", " at " + check.at)); }
      block(li, check.d);
      listing.appendChild(li);
    });
    root.appendChild(listing);
  }

  function follow() {
    var target = location.hash.slice(1);
    try { target = decodeURIComponent(target); } catch (e) { return; }
    if (target.indexOf("case-") !== 0 || !byName.has(target.slice(5))) { return; }
    var index = byName.get(target.slice(5));
    var position = matching.indexOf(index);
    if (position < 0) {
      boxes.forEach(function (box) { box.checked = true; });
      search.value = "";
      apply();
      position = matching.indexOf(index);
    }
    if (position < first || position >= drawn) { drawFrom(position - (position % CHUNK)); }
    var details = document.getElementById(target);
    details.open = true;
    details.scrollIntoView();
    details.querySelector("summary").focus();
  }

  boxes.forEach(function (box) { box.addEventListener("change", apply); });
  search.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(apply, 150);
  });
  more.addEventListener("click", drawMore);
  earlier.addEventListener("click", drawEarlier);
  if ("IntersectionObserver" in window) {
    new IntersectionObserver(function (seen) {
      if (seen[0].isIntersecting && !more.hidden) { drawMore(); }
    }).observe(more);
  }
  window.addEventListener("hashchange", follow);
  apply();
  // Followed once the page has loaded: focus given earlier is taken back by the load.
  window.addEventListener("load", follow);
}());
