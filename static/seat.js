// Build a move by clicking cards, see the server's preview of it and confirm it, all in
// place: no page load, and the preview with its Confirm button stays in sight at the foot
// of the screen. Without JavaScript the cards are only shown, and the form below the board
// does the same by page loads.
//
// This file knows no rule of the game. The cards picked are sent as they are (where each
// lies, its card word), and the server reads them as the move they make, in its canonical
// notation whatever the page's language (pbem/engine/views.py `meant`): its preview says
// what the move does, or the rules' reason why those cards make no move. The page lists
// each legal move by its cards ("choices") only to write it in the move field, in the
// reader's words, as it is clicked.
(function () {
  "use strict";
  var form = document.querySelector(".move-form");
  var input = document.getElementById("move");
  var tray = document.getElementById("tray");
  var answer = document.getElementById("tray-answer");
  var clear = document.getElementById("clear");
  var data = document.getElementById("choices");
  if (!form || !input || !tray || !answer || !data || !window.fetch) return;
  var choices = { together: [], moves: {} };
  try { choices = JSON.parse(data.textContent); } catch (e) { return; }
  var PLACES = ["market", "hand", "herd"];
  var asked = 0; // the latest request: an answer to an older one is dropped
  var last = null; // the card pressed last: Tab goes from it to Confirm

  // The cards are drawn as cards to look at; here they become buttons to press.
  var help = document.getElementById("click-help"), typeHelp = document.getElementById("type-help");
  if (help) help.hidden = false;
  if (typeHelp) typeHelp.hidden = true;
  var cards = Array.prototype.map.call(
    document.querySelectorAll(".board span.card[data-card]"),
    function (span) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = span.className;
      button.dataset.card = span.dataset.card;
      button.dataset.where = span.dataset.where;
      button.setAttribute("aria-pressed", "false");
      button.setAttribute("aria-label", span.dataset.label);
      while (span.firstChild) button.appendChild(span.firstChild);
      span.replaceWith(button);
      return button;
    });

  function isOn(el) { return el.getAttribute("aria-pressed") === "true"; }
  function press(el, on) { el.setAttribute("aria-pressed", on ? "true" : "false"); }
  function selection() { return cards.filter(isOn); }

  // The selection written as the server reads it (pbem/web/seat.py `selection_key`).
  function key() {
    var on = selection();
    return PLACES.map(function (place) {
      var words = on.filter(function (el) { return el.dataset.where === place; })
                    .map(function (el) { return el.dataset.card; }).sort();
      return place + ":" + words.join(",");
    }).join(";");
  }

  function confirmButton() { return answer.querySelector(".preview button[type=submit]"); }

  // A selection by place, each place's card words sorted: {market: [...], hand: [...], ...}.
  function parts(k) {
    var out = {};
    k.split(";").forEach(function (part) {
      var i = part.indexOf(":"), words = part.slice(i + 1);
      out[part.slice(0, i)] = words ? words.split(",") : [];
    });
    return out;
  }
  function within(few, many) { // every word of ``few`` in ``many``, as many times
    var left = many.slice();
    return few.every(function (w) { var i = left.indexOf(w); if (i < 0) return false; left.splice(i, 1); return true; });
  }
  // The places whose cards a legal move that grows out of the selection also takes: the
  // cards the player may press next (from "choices": no rule here).
  function growing(k) {
    var now = parts(k), places = {};
    Object.keys(choices.moves).forEach(function (other) {
      if (other === k) return;
      var then = parts(other);
      if (!PLACES.every(function (p) { return within(now[p] || [], then[p] || []); })) return;
      PLACES.forEach(function (p) { if ((then[p] || []).length > (now[p] || []).length) places[p] = true; });
    });
    return places;
  }

  // The cards a move may still need stay in sight above the tray (the cards pressed, and
  // those of every place a legal move growing out of them takes): if the tray covers some,
  // the page scrolls them up, as far as it can without hiding the highest of them.
  function keepInSight() {
    if (!cards.length || tray.hidden) return;
    var places = growing(key());
    var needed = cards.filter(function (el) { return isOn(el) || places[el.dataset.where]; });
    if (!needed.length) return;
    var top = Infinity, bottom = -Infinity;
    needed.forEach(function (el) {
      var box = el.getBoundingClientRect();
      top = Math.min(top, box.top);
      bottom = Math.max(bottom, box.bottom);
    });
    var limit = tray.getBoundingClientRect().top - 6;
    top -= 12; // a pressed card is lifted, with its check mark
    if (bottom <= limit || top <= 0) return;
    window.scrollBy(0, Math.min(bottom - limit, top));
  }

  function show(nodes) {
    answer.textContent = "";
    nodes.forEach(function (n) { answer.appendChild(n); });
    // Clear beside Confirm, or beside the words: the tray stays one short block
    if (clear) (answer.querySelector(".preview form") || answer).appendChild(clear);
    tray.hidden = false;
    keepInSight();
  }
  function note(text, cls) {
    var p = document.createElement("p");
    p.className = cls || "muted";
    p.textContent = text;
    return p;
  }
  function problem(text, status) {
    var p = note(text, "alert");
    p.setAttribute("role", "alert");
    var nodes = [p];
    if (status === 409) { // the game moved on: the board shown here is out of date
      var a = document.createElement("a");
      a.href = tray.dataset.current;
      a.textContent = tray.dataset.reload;
      nodes.push(a);
    }
    return nodes;
  }

  function post(target, body) {
    return fetch(target.getAttribute("action"), {
      method: "POST", body: body, credentials: "same-origin", headers: { Accept: "text/html" }
    }).then(function (response) {
      return response.text().then(function (html) {
        return { response: response, doc: new DOMParser().parseFromString(html, "text/html") };
      });
    });
  }
  // The refusal the server's page shows (a stale move number, an illegal move, an expired form).
  function refusal(doc, status) {
    var alert = doc.querySelector("main .alert");
    return problem(alert ? alert.textContent : tray.dataset.failed, status);
  }

  // The server's preview of a move typed (``text``) or of the cards picked (``picked``).
  function preview(text, picked) {
    var mine = ++asked;
    show([note("…")]);
    var body = new FormData(form);
    if (picked) { body.delete("move"); body.set("cards", picked); } else { body.set("move", text); }
    post(form, body).then(function (got) {
      if (mine !== asked) return;
      var found = got.response.ok && got.doc.querySelector(".play .preview");
      if (!found) { show(refusal(got.doc, got.response.status)); return; }
      var shown = document.importNode(found, true);
      var change = shown.querySelector("a.change");
      if (change) change.remove(); // the tray's Clear does it without a page load
      var confirm = shown.querySelector("form");
      if (confirm) confirm.addEventListener("submit", function (e) { e.preventDefault(); submit(confirm); });
      show([shown]);
    }, function () { if (mine === asked) show(problem(tray.dataset.failed)); });
  }

  // While the move is on its way, Confirm does nothing more but keeps the keyboard's focus:
  // a disabled button would drop it to <body> until the new page is in place.
  function busy(button, on) {
    if (!button) return;
    if (on) button.setAttribute("aria-disabled", "true"); else button.removeAttribute("aria-disabled");
  }
  function submit(confirm) {
    var button = confirm.querySelector("button[type=submit]");
    if (button && button.getAttribute("aria-disabled") === "true") return; // sent already
    var mine = ++asked;
    var message = confirm.querySelector("input[name=message]");
    var typed = document.getElementById("message");
    if (message && typed) message.value = typed.value; // the note as it reads now
    busy(button, true);
    post(confirm, new FormData(confirm)).then(function (got) {
      var recorded = got.response.ok && got.response.redirected; // a move done answers "see the page"
      if (recorded) { done(got.doc, got.response.url); return; } // whatever was clicked since
      if (mine !== asked) return;
      busy(button, false);
      confirm.parentNode.querySelectorAll(".alert, .alert + a").forEach(function (n) { n.remove(); });
      refusal(got.doc, got.response.status).reverse().forEach(function (n) {
        confirm.parentNode.insertBefore(n, confirm);
      });
    }, function () {
      if (mine !== asked) return;
      busy(button, false);
      confirm.parentNode.insertBefore(problem(tray.dataset.failed)[0], confirm);
    });
  }

  // The move is recorded: show the page the server answered with (the new position, "your
  // move is recorded") in place of this one, as the form's page load would (static/swap.js,
  // which puts the focus on that notice).
  function done(doc, url) {
    if (!window.pbemSwap) { window.location.assign(url); return; }
    window.pbemSwap(doc, url); // without a main part to swap, it loads the page
  }

  function changed() {
    if (!selection().length) { reset(); return; }
    var picked = key();
    input.value = choices.moves[picked] || ""; // a move's words, as the reader writes it
    preview(null, picked);
  }
  function reset() {
    asked++;
    cards.forEach(function (el) { press(el, false); });
    input.value = "";
    answer.textContent = "";
    tray.hidden = true;
  }

  // The keyboard: Tab from the card pressed last goes to Confirm (Shift+Tab comes back);
  // the arrow keys, Home and End move from card to card.
  var rtl = document.documentElement.dir === "rtl";
  function step(el, by) {
    var i = cards.indexOf(el) + by;
    return cards[Math.max(0, Math.min(cards.length - 1, i))];
  }
  function onKey(e) {
    var el = e.currentTarget, to = null;
    if (e.key === "Tab" && !e.shiftKey && el === last && confirmButton()) to = confirmButton();
    else if (e.key === "ArrowRight") to = step(el, rtl ? -1 : 1);
    else if (e.key === "ArrowLeft") to = step(el, rtl ? 1 : -1);
    else if (e.key === "ArrowDown") to = step(el, 1);
    else if (e.key === "ArrowUp") to = step(el, -1);
    else if (e.key === "Home") to = cards[0];
    else if (e.key === "End") to = cards[cards.length - 1];
    if (!to || e.altKey || e.ctrlKey || e.metaKey) return;
    e.preventDefault();
    to.focus();
  }
  answer.addEventListener("keydown", function (e) {
    if (e.key === "Tab" && e.shiftKey && e.target === confirmButton() && last && document.body.contains(last)) {
      e.preventDefault();
      last.focus();
    }
  });

  cards.forEach(function (el) {
    el.addEventListener("keydown", onKey);
    el.addEventListener("click", function () {
      var on = !isOn(el);
      last = el;
      press(el, on);
      if (el.dataset.where === "market" && choices.together.indexOf(el.dataset.card) >= 0) {
        // cards taken all together (the camels): the market's others of the kind go with it
        cards.forEach(function (c) {
          if (c.dataset.where === "market" && c.dataset.card === el.dataset.card) press(c, on);
        });
      }
      changed();
    });
  });
  if (clear) clear.addEventListener("click", function () { reset(); });
  // A move typed by hand: the cards clicked, and their preview, no longer say it.
  input.addEventListener("input", function () {
    asked++;
    cards.forEach(function (el) { press(el, false); });
    answer.textContent = "";
    tray.hidden = true;
  });
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    preview(input.value);
  });
})();
