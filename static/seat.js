// Build a move by clicking cards; the text goes into the move field, and the
// server's preview says what it will do. Without JavaScript, type the move.
(function () {
  "use strict";
  var input = document.getElementById("move");
  var clear = document.getElementById("clear");
  if (!input) return;
  var order = ["diamond", "gold", "silver", "cloth", "spice", "leather", "camel"];
  var selected = [];

  function byOrder(a, b) { return order.indexOf(a) - order.indexOf(b); }
  function cardsOf(where) {
    return selected.filter(function (el) { return el.dataset.where === where; })
                   .map(function (el) { return el.dataset.card; }).sort(byOrder);
  }
  function notation() {
    var market = cardsOf("market"), hand = cardsOf("hand"), herd = cardsOf("herd");
    var given = hand.concat(herd).sort(byOrder);
    if (market.length === 0 && herd.length === 0 && hand.length > 0) {
      var kinds = hand.filter(function (c, i) { return hand.indexOf(c) === i; });
      return kinds.length === 1 ? "sell " + hand.length + " " + hand[0] : "";
    }
    if (market.indexOf("camel") >= 0) return "camels";
    if (market.length === 1 && given.length === 0) return "take " + market[0];
    if (market.length >= 1 && given.length >= 1) {
      return "exchange " + market.join(" ") + " for " + given.join(" ");
    }
    return market.length ? "take " + market.join(" ") : "";
  }
  function toggle(el) {
    var i = selected.indexOf(el);
    if (i >= 0) { selected.splice(i, 1); el.classList.remove("selected"); }
    else { selected.push(el); el.classList.add("selected"); }
    if (el.dataset.where === "market" && el.dataset.card === "camel") {
      // camels are taken all together: select every camel of the market with it
      var on = el.classList.contains("selected");
      document.querySelectorAll('[data-where="market"][data-card="camel"]').forEach(function (c) {
        var j = selected.indexOf(c);
        if (on && j < 0) { selected.push(c); c.classList.add("selected"); }
        if (!on && j >= 0) { selected.splice(j, 1); c.classList.remove("selected"); }
      });
    }
    input.value = notation();
    if (clear) clear.hidden = selected.length === 0;
  }
  document.querySelectorAll(".card[data-card]").forEach(function (el) {
    el.addEventListener("click", function () { toggle(el); });
    el.addEventListener("keydown", function (e) {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); toggle(el); }
    });
  });
  if (clear) clear.addEventListener("click", function () {
    selected.slice().forEach(function (el) { el.classList.remove("selected"); });
    selected = [];
    input.value = "";
    clear.hidden = true;
  });
})();
