// Tell the server this browser's time zone, so times are shown in it: a cookie for
// pages before a seat is known, and the time-zone fields of forms (game creation,
// accepting an invitation) when they are still empty. Without JavaScript: UTC, and
// a seat can pick its zone on its page.
(function () {
  "use strict";
  var zone;
  try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone; } catch (e) { return; }
  if (!zone) return;
  if (document.cookie.indexOf("pbem_tz=") < 0) {
    // Secure over https, like every cookie the server sets outside development
    var secure = window.location.protocol === "https:" ? "; secure" : "";
    document.cookie = "pbem_tz=" + encodeURIComponent(zone) + "; path=/; max-age=31536000; samesite=lax" + secure;
  }
  document.querySelectorAll("[data-browser-timezone]").forEach(function (el) {
    if (el.tagName === "SELECT") {
      if (!el.dataset.chosen) {
        for (var i = 0; i < el.options.length; i++) {
          if (el.options[i].value === zone) { el.selectedIndex = i; break; }
        }
      }
    } else if (!el.value) {
      el.value = zone;
    }
  });
})();
