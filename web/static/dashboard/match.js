// Cardroom dashboard: a match page while the match is played (match_detail.html). Its
// finished games come over ws/matches/<id>/ (live.games) and are listed as they finish,
// with the game in progress linked; once the match is over the page loads again.
"use strict";

(function () {
  const box = document.getElementById("live-games");
  if (!box) return;
  const gameUrl = (number) => box.dataset.gameUrl.replace(/\/1\/$/, `/${number}/`);

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    for (const child of children) node.append(child);
    return node;
  }

  function row(game) {
    const seats = el("ul", { class: "plain" }, ...game.seats.map((seat, i) => {
      const li = el("li", {}, el("span", { class: "muted" }, `seat ${i + 1}`),
        ` · place ${seat.rank} · ${seat.name} · score ${seat.score}`);
      if (seat.fault) {
        li.append(" · ", el("span", { class: "badge fault" }, seat.status));
        if (seat.reason) li.append(" ", el("span", { class: "muted" }, `(${seat.reason})`));
      }
      return li;
    }));
    const number = el("td", { class: "num" }, String(game.number));
    if (game.playoff) number.append(" ", el("span", { class: "badge" }, "play-off"));
    return el("tr", { "data-number": String(game.number) }, number, el("td", {}, seats),
      el("td", {}, el("a", { href: gameUrl(game.number) }, `replay game ${game.number}`)));
  }

  function onGames(event) {
    // The games finished since the first ``from``: appended, those already listed skipped.
    const body = document.querySelector("#games tbody");
    if (event.from > body.children.length) { location.reload(); return; }  // missed some
    event.games.forEach((game, i) => { if (event.from + i >= body.children.length) body.append(row(game)); });
    const line = document.getElementById("current-game-line");
    line.replaceChildren(event.current ? el("a", { href: gameUrl(event.current), id: "current-game" },
      `Watch game ${event.current}, being played now`) : "");
  }

  let ended = false;
  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${location.host}${box.dataset.socket}`);
    socket.onmessage = (message) => {
      const data = JSON.parse(message.data);
      for (const event of Array.isArray(data) ? data : [data]) {
        if (event.type === "live.games") onGames(event);
        if (event.type === "live.over") {
          ended = true;
          socket.close(1000);
          location.reload();
          return;
        }
      }
    };
    socket.onclose = (e) => { if (!ended && e.code !== 4403) setTimeout(connect, 2000); };
  }
  connect();
})();
