// A challenge's page: follows the challenge while it is played (games played, each seat's
// record, every POLL_MS) and draws the page again when a match ends or the challenge does,
// so that the match list and its links are the server's. Without this script a reload
// shows the same.
"use strict";

(function () {
  const POLL_MS = 2000;
  const section = document.getElementById("challenge-progress");
  if (!section || !section.dataset.statusUrl) return;
  const url = section.dataset.statusUrl;
  const set = (element, text) => {
    if (element && element.textContent !== text) element.textContent = text;
  };
  const tick = () => {
    fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then((response) => (response.ok ? response.json() : Promise.reject(response.status)))
      .then((body) => {
        const progress = body.progress;
        set(section.querySelector(".challenge-games-played"), String(progress.games_played));
        set(section.querySelector(".challenge-matches-done"), String(progress.matches_done));
        const bar = document.getElementById("challenge-bar");
        if (bar) bar.value = progress.games_played;
        const badge = section.querySelector(".challenge-status");
        set(badge, body.status_words);
        set(section.querySelector(".waiting-place"), body.waiting ? "Waiting: " + body.waiting + "." : "");
        const rows = section.querySelectorAll("tr.challenge-seat");
        progress.seats.forEach((seat, index) => {
          const row = rows[index];
          if (!row) return;
          set(row.querySelector(".seat-games"), String(seat.games));
          set(row.querySelector(".seat-wins"), String(seat.wins));
          set(row.querySelector(".seat-score"), String(seat.score));
          set(
            row.querySelector(".seat-rank"),
            seat.mean_rank === null ? "\u2013" : seat.mean_rank.toFixed(2)
          );
        });
        if (body.finished || String(progress.matches_done) !== section.dataset.matchesDone) {
          window.location.reload();
        } else {
          window.setTimeout(tick, POLL_MS);
        }
      })
      .catch(() => window.setTimeout(tick, POLL_MS * 3));
  };
  window.setTimeout(tick, POLL_MS);
})();
