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
  if (status) status.textContent = "Your browser made your 32 random bytes: " +
    field.value.slice(0, 16) + "… (you may add words of your own too; the bytes are used).";
})();
