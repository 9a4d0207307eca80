// Accepting a game: 32 random bytes from this browser become the player's contribution.
(function () {
  "use strict";
  var field = document.getElementById("entropy");
  if (!field || !window.crypto || !window.crypto.getRandomValues) return;
  var bytes = new Uint8Array(32);
  window.crypto.getRandomValues(bytes);
  field.value = Array.prototype.map.call(bytes, function (b) {
    return ("0" + b.toString(16)).slice(-2);
  }).join("");
  var status = document.getElementById("entropy-status");
  // The sentence comes from the page, in the reader's language, with {start} to fill in.
  if (status && status.dataset.made) {
    status.textContent = status.dataset.made.replace("{start}", field.value.slice(0, 16));
  }
})();
