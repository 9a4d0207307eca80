// Show a time also in the reader's own time zone, next to the UTC the page prints.
(function () {
  "use strict";
  document.querySelectorAll("time[data-local]").forEach(function (el) {
    var when = new Date(el.getAttribute("datetime"));
    if (isNaN(when)) return;
    var local = document.createElement("span");
    local.className = "muted";
    local.textContent = " (your time: " + when.toLocaleString() + ")";
    el.after(local);
  });
})();
