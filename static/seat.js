// Build a move by clicking cards, see the server's preview of it and confirm it, all in
// place: no page load, and the preview with its Confirm button stays in sight at the foot
// of the screen. Without JavaScript the form below the board does the same by page loads.
//
// This file knows no rule of the game. The page lists every legal move by the cards
// picked to make it ("choices", from the server); a selection either is one of them or
// makes no move. What a move does, and whether it may still be played, only the server's
// preview and move routes say (the same routes the form posts to).
(function () {
  "use strict";
  var form = document.querySelector(".move-form");
  var input = document.getElementById("move");
  var tray = document.getElementById("tray");
  var answer = document.getElementById("tray-answer");
  var clear = document.getElementById("clear");
  var data = document.getElementById("choices");
  if (!form || !input || !tray || !answer || !data) return;
  var choices = { together: [], moves: {} };
  try { choices = JSON.parse(data.textContent); } catch (e) { return; }
  var cards = Array.prototype.slice.call(document.querySelectorAll("button.card[data-card]"));
  var PLACES = ["market", "hand", "herd"];
  var asked = 0; // the latest request: an answer to an older one is dropped

  function isOn(el) { return el.getAttribute("aria-pressed") === "true"; }
  function press(el, on) { el.setAttribute("aria-pressed", on ? "true" : "false"); }
  function selection() { return cards.filter(isOn); }

  // The selection written as the server writes the keys of "choices" (pbem/web/seat.py).
  function key() {
    var on = selection();
    return PLACES.map(function (place) {
      var words = on.filter(function (el) { return el.dataset.where === place; })
                    .map(function (el) { return el.dataset.card; }).sort();
      return place + ":" + words.join(",");
    }).join(";");
  }

  function show(nodes) {
    answer.textContent = "";
    nodes.forEach(function (n) { answer.appendChild(n); });
    // Clear beside Confirm, or beside the words: the tray stays one short block
    if (clear) (answer.querySelector(".preview form") || answer).appendChild(clear);
    tray.hidden = false;
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

  function preview(text) {
    var mine = ++asked;
    input.value = text;
    show([note("…")]);
    post(form, new FormData(form)).then(function (got) {
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

  function submit(confirm) {
    var mine = ++asked;
    var button = confirm.querySelector("button[type=submit]");
    var message = confirm.querySelector("input[name=message]");
    var typed = document.getElementById("message");
    if (message && typed) message.value = typed.value; // the note as it reads now
    if (button) button.disabled = true;
    post(confirm, new FormData(confirm)).then(function (got) {
      var recorded = got.response.ok && got.response.redirected; // a move done answers "see the page"
      if (recorded) { done(got.doc, got.response.url); return; } // whatever was clicked since
      if (mine !== asked) return;
      if (button) button.disabled = false;
      confirm.parentNode.querySelectorAll(".alert, .alert + a").forEach(function (n) { n.remove(); });
      refusal(got.doc, got.response.status).reverse().forEach(function (n) {
        confirm.parentNode.insertBefore(n, confirm);
      });
    }, function () {
      if (mine !== asked) return;
      if (button) button.disabled = false;
      confirm.parentNode.insertBefore(problem(tray.dataset.failed)[0], confirm);
    });
  }

  // The move is recorded: show the page the server answered with (the new position, "your
  // move is recorded") in place of this one, as the form's page load would (static/swap.js).
  function done(doc, url) {
    if (!window.pbemSwap) { window.location.assign(url); return; }
    if (!window.pbemSwap(doc, url)) return; // no main part to swap: it loads the page
    var told = document.querySelector("main .status .notice");
    if (told) { told.tabIndex = -1; told.focus(); }
  }

  function changed() {
    var on = selection();
    if (!on.length) { reset(); return; }
    var text = choices.moves[key()];
    if (text) { preview(text); return; }
    asked++;
    input.value = "";
    show([note(tray.dataset.none)]);
  }
  function reset() {
    asked++;
    cards.forEach(function (el) { press(el, false); });
    input.value = "";
    answer.textContent = "";
    tray.hidden = true;
  }

  cards.forEach(function (el) {
    el.addEventListener("click", function () {
      var on = !isOn(el);
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
