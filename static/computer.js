// A game against the computer, while it is the computer's turn: ask GET /api/seat (with
// the seat's token, as any client of the API) until the computer has moved, then show the
// page again. The scheduler plays the move within seconds; nothing here knows a rule.
// Without JavaScript the page's <noscript> refresh does the same.
(function () {
  "use strict";
  var thinking = document.getElementById("thinking");
  if (!thinking || !window.fetch || thinking.dataset.polling) return;
  thinking.dataset.polling = "yes";
  var wait = 800, waited = 0;
  function ask() {
    if (!document.body.contains(thinking)) return; // the page was replaced meanwhile
    fetch(thinking.dataset.api, {
      headers: { "Authorization": "Bearer " + thinking.dataset.token, "Accept": "application/json" },
      credentials: "same-origin",
      cache: "no-store"
    }).then(function (r) { return r.ok ? r.json() : null; }).then(function (seat) {
      if (seat && seat.computer && !seat.computer.thinking) { window.location.reload(); return; }
      later();
    }, later);
  }
  function later() {
    waited += wait;
    if (waited > 15 * 60 * 1000) return; // a long outage: the reader reloads by hand
    wait = Math.min(wait * 1.5, 10000);
    window.setTimeout(ask, wait);
  }
  window.setTimeout(ask, wait);
})();
