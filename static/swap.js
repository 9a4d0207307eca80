// Put a page the server answered (a parsed document) in place of this one's main part, as
// following a link to it would, without a page load: the title, the address, and the
// scripts of the main part (marked data-main), run again for the new one. Used by
// static/seat.js (a move recorded) and static/follow.js (the other player moved).
(function () {
  "use strict";
  window.pbemSwap = function (doc, url) {
    var main = document.querySelector("main"), fresh = doc.querySelector("main");
    if (!main || !fresh) { window.location.assign(url); return false; }
    // the <details> the reader opened stay open, as they are in the same order
    var opened = Array.prototype.map.call(main.querySelectorAll("details"), function (d) { return d.open; });
    var shown = document.importNode(fresh, true);
    shown.querySelectorAll("details").forEach(function (d, i) { if (opened[i]) d.open = true; });
    main.replaceWith(shown);
    document.title = doc.title;
    if (window.history && history.replaceState) history.replaceState(null, "", url);
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
