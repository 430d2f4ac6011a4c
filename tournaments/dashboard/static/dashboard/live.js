// Cardroom dashboard: the live competition page.
// The competition page starts from the server-rendered snapshot, then follows the
// event stream of ws/competitions/<id>/ (tournaments.events), reconnecting with backoff.
"use strict";

(function () {
  const script = document.currentScript;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    for (const child of children) node.append(child);
    return node;
  }

  function fixed(value, digits) {
    return typeof value === "number" ? value.toFixed(digits) : "";
  }

  function points(value) {
    return Number.isInteger(value) ? String(value) : fixed(value, 2);
  }

  // --- the live competition page ---

  function liveCompetition(competitionId, replayBase) {
    const state = { standings: [], matches: { running: [], recent: [] } };

    function renderStandings(rows) {
      const before = new Map(state.standings.map((r) => [r.entry, r.games]));
      const body = document.querySelector("#standings tbody");
      body.replaceChildren(
        ...rows.map((row) => {
          const tr = el(
            "tr",
            { "data-entry": row.entry },
            el("td", { class: "num" }, String(row.rank)),
            el("td", {}, row.name + (row.withdrawn ? " (withdrawn)" : "")),
            el("td", { class: "num" }, fixed(row.rating, 2)),
            el("td", { class: "num" }, fixed(row.sigma, 2)),
            el("td", { class: "num" }, String(row.games)),
            el("td", { class: "num" }, points(row.points)),
          );
          if (before.size && before.get(row.entry) !== row.games) tr.classList.add("flash");
          return tr;
        }),
      );
      state.standings = rows;
    }

    function renderProgress(p) {
      if (!p) return;
      document.getElementById("progress").textContent =
        `${p.done} / ${p.total} matches done, ${p.running} running, ${p.games} games`;
      const status = document.getElementById("status");
      status.textContent = p.competition;
      status.className = "badge " + p.competition;
    }

    function matchItem(match, withRanks) {
      const names = match.seats
        .map((s) => (withRanks && s.rank != null ? `${s.rank}. ${s.name}` : s.name))
        .join(" · ");
      const li = el("li", {}, `#${match.id} ${names} `);
      if (withRanks && match.games && match.games.length) {
        li.append(el("a", { href: replayBase.replace(/0\/$/, match.games[0] + "/") }, "replay"));
      }
      return li;
    }

    function renderList(id, items, render) {
      const list = document.getElementById(id);
      if (!list) return;
      list.replaceChildren(...(items.length ? items.map(render) : [el("li", { class: "muted" }, "none")]));
    }

    function renderMatches() {
      renderList("running", state.matches.running, (m) => matchItem(m, false));
      renderList("recent", state.matches.recent, (m) => matchItem(m, true));
    }

    function renderProblems(rows) {
      renderList("problems", rows, (row) =>
        el("li", {}, `${row.name}: ` + Object.entries(row.statuses).map(([s, n]) => `${s} × ${n}`).join(", ")),
      );
    }

    const handlers = {
      snapshot(event) {
        state.standings = [];
        renderStandings(event.standings);
        renderProgress(event.progress);
        state.matches = event.matches;
        renderMatches();
        renderProblems(event.problems);
      },
      "standings.updated"(event) {
        renderStandings(event.standings);
        renderProgress(event.progress);
      },
      "match.started"(event) {
        state.matches.running = state.matches.running.filter((m) => m.id !== event.match.id);
        state.matches.running.push(event.match);
        renderMatches();
      },
      "match.finished"(event) {
        state.matches.running = state.matches.running.filter((m) => m.id !== event.match.id);
        state.matches.recent = [event.match, ...state.matches.recent.filter((m) => m.id !== event.match.id)].slice(0, 10);
        renderMatches();
      },
      "competition.finished"(event) {
        renderStandings(event.standings);
        const status = document.getElementById("status");
        status.textContent = event.status;
        status.className = "badge " + event.status;
      },
    };

    let delay = 500;
    function connect() {
      const scheme = location.protocol === "https:" ? "wss" : "ws";
      const socket = new WebSocket(`${scheme}://${location.host}/ws/competitions/${competitionId}/`);
      const live = document.getElementById("live");
      socket.onopen = () => {
        delay = 500;
        live.textContent = "live";
        live.className = "badge live-on";
      };
      socket.onmessage = (message) => {
        const event = JSON.parse(message.data);
        const handle = handlers[event.type];
        if (handle) handle(event);
        document.body.dataset.lastEvent = event.type;
      };
      socket.onclose = (close) => {
        live.textContent = "offline";
        live.className = "badge live-off";
        if (close.code === 4403) return; // not allowed: retrying will not help
        setTimeout(connect, delay + Math.random() * delay * 0.3);
        delay = Math.min(delay * 2, 30000);
      };
    }

    state.standings = JSON.parse(document.getElementById("snapshot").textContent).standings;
    state.matches = JSON.parse(document.getElementById("snapshot").textContent).matches;
    connect();
  }

  if (script.dataset.competition) liveCompetition(script.dataset.competition, script.dataset.replay);
})();
