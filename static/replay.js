// The replay viewer, faster: keys and clicks fetch the same step pages the links
// point to and swap them in, keeping the URL of every step. Without JavaScript the
// links work on their own.
(function () {
  "use strict";
  var timer = null;

  function root() { return document.getElementById("replay"); }

  function go(url, push) {
    if (!url) return;
    fetch(url, { headers: { "Accept": "text/html" }, credentials: "same-origin" })
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.text(); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.getElementById("replay");
        if (!fresh) { window.location = url; return; }
        var playing = timer !== null;
        root().replaceWith(fresh);
        document.title = doc.title;
        if (push) history.pushState({ url: url }, "", url);
        wire(playing);
        var current = document.querySelector(".step-list .current");
        if (current && current.scrollIntoView) current.scrollIntoView({ block: "nearest" });
      })
      .catch(function () { window.location = url; });
  }

  function stop() {
    if (timer !== null) { clearInterval(timer); timer = null; }
    var b = document.getElementById("play");
    if (b) b.textContent = "▶ " + (b.dataset.play || "Play");
  }

  function play() {
    var speed = document.getElementById("speed");
    stop();
    timer = setInterval(function () {
      var r = root();
      if (Number(r.dataset.n) >= Number(r.dataset.last)) { stop(); return; }
      go(r.dataset.next, true);
    }, Number(speed ? speed.value : 1000));
    var b = document.getElementById("play");
    if (b) b.textContent = "⏸ " + (b.dataset.pause || "Pause");
  }

  function toggleHelp(show) {
    var help = document.getElementById("help");
    if (help) help.hidden = show === undefined ? !help.hidden : !show;
  }

  function wire(playing) {
    var r = root();
    ["play", "speed", "help-button"].forEach(function (id) {
      var el = document.getElementById(id);
      if (el) el.hidden = false;
    });
    document.getElementById("play").onclick = function () { timer === null ? play() : stop(); };
    document.getElementById("speed").onchange = function () { if (timer !== null) play(); };
    document.getElementById("help-button").onclick = function () { toggleHelp(); };
    document.getElementById("help-close").onclick = function () { toggleHelp(false); };
    r.querySelectorAll("nav.controls a, .step-list a, .perspectives a").forEach(function (a) {
      a.addEventListener("click", function (e) {
        if (e.ctrlKey || e.metaKey || e.shiftKey) return;
        e.preventDefault();
        go(a.getAttribute("href"), true);
      });
    });
    if (playing) { timer = null; play(); }
  }

  document.addEventListener("keydown", function (e) {
    if (e.target && /INPUT|TEXTAREA|SELECT/.test(e.target.tagName)) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    var r = root();
    if (!r) return;
    var key = e.key, target = null;
    // The arrow keys follow the buttons: on a right-to-left page "back" is on the right.
    var rtl = document.documentElement.dir === "rtl";
    var back = rtl ? "ArrowRight" : "ArrowLeft", on = rtl ? "ArrowLeft" : "ArrowRight";
    if (key === back || key === "k") target = r.dataset.prev;
    else if (key === on || key === "j") target = r.dataset.next;
    else if (key === "Home") target = r.dataset.first;
    else if (key === "End") target = r.dataset.end;
    else if (key === "ArrowUp") target = r.dataset.prevRound;
    else if (key === "ArrowDown") target = r.dataset.nextRound;
    else if (key === "f") target = r.dataset["switch"];
    else if (key === "?") { toggleHelp(); e.preventDefault(); return; }
    else if (key === "Escape") { toggleHelp(false); return; }
    else if (key === " ") { timer === null ? play() : stop(); e.preventDefault(); return; }
    else return;
    e.preventDefault();
    if (key !== " ") stop();
    go(target, true);
  });

  window.addEventListener("popstate", function (e) {
    go((e.state && e.state.url) || window.location.href, false);
  });
  history.replaceState({ url: window.location.href }, "", window.location.href);
  wire(false);
})();
