// Put a page the server answered (a parsed document) in place of this one's main part, as
// following a link to it would, without a page load: the title, the address, and the
// scripts of the main part (marked data-main), run again for the new one. Used by
// static/seat.js (a move recorded) and static/follow.js (the other player moved).
// The keyboard's focus, when it was in the part replaced (gone with it), lands on what the
// new part says first: its notice ("your move is recorded"), else its status line ("your
// turn"), else its heading; a screen reader reads it as it gets the focus, and the page does
// not scroll to it. A <noscript> of the new part is left out: parsed here, where scripts
// do not run, its content is live markup (the thinking page's refresh, which would load
// the page again three seconds later and drop the focus to <body>).
(function () {
  "use strict";
  window.pbemSwap = function (doc, url) {
    var main = document.querySelector("main"), fresh = doc.querySelector("main");
    if (!main || !fresh) { window.location.assign(url); return false; }
    // the <details> the reader opened stay open, as they are in the same order
    var opened = Array.prototype.map.call(main.querySelectorAll("details"), function (d) { return d.open; });
    var had = document.activeElement;
    var lost = !had || had === document.body || main.contains(had);
    fresh.querySelectorAll("noscript").forEach(function (n) { n.remove(); });
    var shown = document.importNode(fresh, true);
    shown.querySelectorAll("details").forEach(function (d, i) { if (opened[i]) d.open = true; });
    main.replaceWith(shown);
    document.title = doc.title;
    if (window.history && history.replaceState) history.replaceState(null, "", url);
    if (lost) {
      var to = shown.querySelector(".status .notice, .status .alert") ||
        shown.querySelector(".status .big") || shown.querySelector("h1");
      if (to) {
        if (!to.hasAttribute("tabindex")) to.tabIndex = -1;
        to.focus({ preventScroll: true });
      }
    }
    document.querySelectorAll("body > script[data-main]").forEach(function (s) { s.remove(); });
    doc.querySelectorAll("body > script[src]").forEach(function (s) {
      var src = s.getAttribute("src");
      var again = s.hasAttribute("data-main");
      if (!again && document.querySelector('script[src="' + src + '"]')) return;
      var run = document.createElement("script");
      run.src = src;
      if (again) run.setAttribute("data-main", "");
      document.body.appendChild(run);
    });
    return true;
  };
})();
