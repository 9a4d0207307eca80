// While the other player (a person, or the computer) is to move: ask how many moves the
// game's log holds (GET /g/<id>/n: public, no seat link, nothing written) until it holds
// more than this page shows, or (a page waiting for the other player to accept, marked
// data-dealt="false") until the cards are dealt, then ask for this seat's page again
// and put it in place (static/swap.js). The server logs that the page showed the move, so the "your turn"
// mail of a move seen here is not sent. Only while the page is in sight: a hidden tab asks
// nothing, and shows the move when it is looked at again. Nothing here knows a rule.
(function () {
  "use strict";
  var follow = document.getElementById("follow");
  if (!follow || !window.fetch || !window.DOMParser || !window.pbemSwap) return;
  var first = Number(follow.dataset.every) || 2000, n = Number(follow.dataset.n);
  var dealt = follow.dataset.dealt !== "false";
  var STEADY = 20000, LONGEST = 15000; // the first interval for 20 s, then longer, up to 15 s
  var wait = first, waited = 0, timer = null, asking = false;

  function here() { return document.body.contains(follow); } // not replaced meanwhile
  function later() {
    window.clearTimeout(timer);
    if (!here() || document.hidden) return;
    waited += wait;
    if (waited > STEADY) wait = Math.min(wait * 1.25, LONGEST);
    timer = window.setTimeout(ask, wait);
  }
  function ask() {
    if (!here() || document.hidden || asking) return;
    asking = true;
    fetch(follow.dataset.url, { headers: { Accept: "application/json" }, cache: "no-store" })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (log) {
        if (log && (log.n !== n || log.dealt !== dealt)) { show(); return; }
        asking = false;
        later();
      }, function () { asking = false; later(); });
  }
  function show() {
    var url = follow.dataset.page;
    fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" }, cache: "no-store" })
      .then(function (r) {
        return r.text().then(function (html) {
          return { ok: r.ok, doc: new DOMParser().parseFromString(html, "text/html") };
        });
      })
      .then(function (got) {
        asking = false;
        if (!here()) return;
        if (!got.ok) { window.location.assign(url); return; }
        window.pbemSwap(got.doc, url);
      }, function () { asking = false; later(); });
  }
  document.addEventListener("visibilitychange", function () {
    if (document.hidden || !here()) return;
    wait = first;
    waited = 0;
    ask();
  });
  timer = window.setTimeout(ask, first);
})();
