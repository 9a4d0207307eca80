// Build a move by clicking cards; the text goes into the move field, and the
// server's preview says what it will do. Without JavaScript, type the move.
(function () {
  "use strict";
  var input = document.getElementById("move");
  var clear = document.getElementById("clear");
  if (!input) return;
  // The card order and which market cards go together come from the server (the engine's
  // rules), so this file holds none: it only turns a selection into text.
  var cards = { order: [], together: [] };
  var cardData = document.getElementById("cards");
  if (cardData) { try { cards = JSON.parse(cardData.textContent); } catch (e) { /* unsorted */ } }
  var order = cards.order;
  var selected = [];
  // How the reader's language writes moves (pbem.i18n.notation), from the page.
  var words = { spelled: { take: "take {card}", camels: "camels",
                           exchange: "exchange {taken} for {given}", sell: "sell {count} {card}" },
                names: {}, digits: "0123456789" };
  var data = document.getElementById("notation");
  if (data) { try { words = JSON.parse(data.textContent); } catch (e) { /* keep English */ } }
  function name(card) { return words.names[card] || card; }
  function digits(n) {
    return String(n).replace(/[0-9]/g, function (d) { return words.digits.charAt(+d); });
  }
  function write(kind, slots) {
    return words.spelled[kind].replace(/\{(\w+)\}/g, function (_, key) { return slots[key]; });
  }

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
      return kinds.length === 1 ? write("sell", { count: digits(hand.length), card: name(hand[0]) }) : "";
    }
    if (market.some(function (c) { return cards.together.indexOf(c) >= 0; })) {
      return write("camels", {});
    }
    if (market.length === 1 && given.length === 0) return write("take", { card: name(market[0]) });
    if (market.length >= 1 && given.length >= 1) {
      return write("exchange", { taken: market.map(name).join(" "), given: given.map(name).join(" ") });
    }
    // several market cards and nothing given yet: the preview will ask what goes back
    return market.length ? write("take", { card: market.map(name).join(" ") }) : "";
  }
  function toggle(el) {
    var i = selected.indexOf(el);
    if (i >= 0) { selected.splice(i, 1); el.classList.remove("selected"); }
    else { selected.push(el); el.classList.add("selected"); }
    if (el.dataset.where === "market" && cards.together.indexOf(el.dataset.card) >= 0) {
      // cards taken all together (the camels): select every one of the market with it
      var on = el.classList.contains("selected");
      var same = '[data-where="market"][data-card="' + el.dataset.card + '"]';
      document.querySelectorAll(same).forEach(function (c) {
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
