// The bot page: drag and drop onto the upload form, watching validations finish, and
// following running version tests (games, LLR, status and answer, every POLL_MS),
// the version test form's words that repeat its bounds, and the challenge form's opponents,
// one per other seat of the variant chosen.
// Without this script the page still works: the file input uploads, a reload shows
// the outcome.
"use strict";

(function () {
  const POLL_MS = 2000;

  function dropZone(form) {
    const input = form.querySelector('input[type="file"]');
    if (!input) return;
    const hint = form.querySelector(".drop-hint");
    if (hint) hint.hidden = false;
    ["dragenter", "dragover"].forEach((name) =>
      form.addEventListener(name, (event) => {
        event.preventDefault();
        form.classList.add("dragging");
      })
    );
    ["dragleave", "drop"].forEach((name) =>
      form.addEventListener(name, () => form.classList.remove("dragging"))
    );
    form.addEventListener("drop", (event) => {
      event.preventDefault();
      const files = event.dataTransfer && event.dataTransfer.files;
      if (!files || !files.length) return;
      input.files = files;
      input.dispatchEvent(new Event("change", { bubbles: true }));
    });
  }

  function watch(article) {
    const url = article.dataset.statusUrl;
    const badge = article.querySelector(".version-status");
    const tick = () => {
      fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then((response) => (response.ok ? response.json() : Promise.reject(response.status)))
        .then((body) => {
          if (badge && body.status !== badge.dataset.status) {
            badge.textContent = body.words;
            badge.dataset.status = body.status;
            badge.className = "badge version-status " + body.status;
          }
          const place = article.querySelector(".waiting-place");
          if (place) {
            const text = body.waiting ? "Waiting: " + body.waiting + "." : "";
            if (place.textContent !== text) place.textContent = text;
          }
          if (body.finished) {
            // The report and the stderr tail are drawn by the page itself.
            window.location.reload();
          } else {
            window.setTimeout(tick, POLL_MS);
          }
        })
        .catch(() => window.setTimeout(tick, POLL_MS * 3));
    };
    window.setTimeout(tick, POLL_MS);
  }

  function follow(row) {
    const url = row.dataset.statusUrl;
    const set = (selector, text) => {
      const cell = row.querySelector(selector);
      if (cell && cell.textContent !== text) cell.textContent = text;
    };
    const tick = () => {
      fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then((response) => (response.ok ? response.json() : Promise.reject(response.status)))
        .then((body) => {
          set(".test-games", String(body.games));
          set(".test-llr", body.llr.toFixed(2));
          set(".test-status", body.status_words);
          set(".test-outcome", body.outcome);
          set(".test-waiting", body.waiting || "");
          const badge = row.querySelector(".test-status");
          if (badge) badge.className = "badge test-status " + body.status;
          row.dataset.status = body.status;
          if (body.finished) {
            // The cancel button goes: the page draws a test that is over itself.
            window.location.reload();
          } else {
            window.setTimeout(tick, POLL_MS);
          }
        })
        .catch(() => window.setTimeout(tick, POLL_MS * 3));
    };
    window.setTimeout(tick, POLL_MS);
  }

  // The words next to the version test's bounds say the values being typed.
  function echo(words) {
    const input = document.getElementById(words.dataset.echo);
    if (input) input.addEventListener("input", () => (words.textContent = input.value || "?"));
  }

  // The challenge form names one opponent per other seat of the variant chosen: a change
  // of variant empties the opponents beyond them and gives an empty one a built-in greedy.
  function seatOpponents(form) {
    const variant = form.querySelector('select[name="variant"]');
    const seats = JSON.parse(form.dataset.seats || "{}");
    if (!variant) return;
    variant.addEventListener("change", () => {
      const others = (seats[variant.value] || 2) - 1;
      form.querySelectorAll('select[name^="opponent_"]').forEach((select, index) => {
        if (index >= others) select.value = "";
        else if (!select.value) select.value = "builtin:greedy";
      });
    });
  }

  document.querySelectorAll("form.drop-zone").forEach(dropZone);
  document.querySelectorAll("#challenge-form[data-seats]").forEach(seatOpponents);
  document.querySelectorAll("#version-test-words [data-echo]").forEach(echo);
  document.querySelectorAll("tr.version-test[data-status-url]").forEach(follow);
  document.querySelectorAll("article.version[data-status-url]").forEach(watch);
})();
