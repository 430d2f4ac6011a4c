// Cardroom dashboard: the live competition page.
// Every live panel of the page is drawn here and only here: the first paint from the
// snapshot embedded in the page (json_script "snapshot"), then from the event stream of
// ws/competitions/<id>/ (tournaments.live.events), reconnecting with backoff. The words for
// statuses come from the page too (json_script "words", web.dashboard.pages.page_words).
// A message is one event or a JSON array of events, handled in order. Events only
// change the page's state; the page is redrawn at most once per animation frame,
// whatever the number of events that arrived in between.
"use strict";

(function () {
  const script = document.currentScript;
  const SVG = "http://www.w3.org/2000/svg";

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    for (const child of children) node.append(child);
    return node;
  }

  function svg(tag, attrs, ...children) {
    const node = document.createElementNS(SVG, tag);
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

  // A page URL of the site for an id: the script's data-* URL is that page's URL for id 0.
  function pageUrl(base, id) {
    return base ? base.replace(/0\/$/, `${id}/`) : null;
  }

  function link(href, text) {
    return href ? el("a", { href }, text) : document.createTextNode(text);
  }

  const WORDS = (() => {
    const node = document.getElementById("words");
    return node ? JSON.parse(node.textContent) : {};
  })();

  function words(kind, value) {
    return (WORDS[kind] && WORDS[kind][value]) || value;
  }

  // The trend cell: the change of the rating over the last rated matches (selectors.TREND_MATCHES).
  function trendCell(trend) {
    if (typeof trend !== "number") return el("td", { class: "num trend" }, "–");
    if (trend >= 0.005) return el("td", { class: "num trend up" }, `▲ ${trend.toFixed(2)}`);
    if (trend <= -0.005) return el("td", { class: "num trend down" }, `▼ ${(-trend).toFixed(2)}`);
    return el("td", { class: "num trend" }, "= 0.00");
  }

  // The 95 % interval of mu and P(stronger than the next row), as the template draws them.
  function intervalCell(row) {
    return el("td", { class: "num interval" }, `${fixed(row.rating_low, 1)}–${fixed(row.rating_high, 1)}`);
  }

  function pNextCell(p) {
    let text = "–";
    if (typeof p === "number") {
      text = p > 0.99 ? ">99 %" : p < 0.01 ? "<1 %" : `${Math.round(p * 100)} %`;
    }
    return el("td", { class: "num p-next" }, text);
  }

  // --- the rating chart: scaled into its SVG box from the series the page carries ---

  const CHART = { width: 640, height: 240, pad: 32, maxPoints: 2000 };

  function chartLayout(series) {
    const xs = series.flatMap((s) => s.points.map((p) => p[0]));
    const ys = series.flatMap((s) => s.points.map((p) => p[1]));
    const xMin = Math.min(...xs), xMax = Math.max(...xs);
    let yMin = Math.min(...ys), yMax = Math.max(...ys);
    if (yMax - yMin < 1e-9) { yMin -= 1; yMax += 1; }
    const { width, height, pad } = CHART;
    const spanX = Math.max(xMax - xMin, 1);
    const sx = (x) => Math.round((pad + ((x - xMin) * (width - 2 * pad)) / spanX) * 10) / 10;
    const sy = (y) => Math.round((height - pad - ((y - yMin) * (height - 2 * pad)) / (yMax - yMin)) * 10) / 10;
    return { xMin, xMax, yMin, yMax, sx, sy };
  }

  function drawChart(series) {
    const box = document.getElementById("chart");
    if (!box) return;
    if (!series.length) {
      box.replaceChildren(el("p", { class: "muted" }, "no rated matches yet"));
      return;
    }
    const { width, height, pad } = CHART;
    const { xMin, xMax, yMin, yMax, sx, sy } = chartLayout(series);
    const left = pad, right = width - pad, top = pad, bottom = height - pad;
    const label = { "font-size": "10", fill: "#6b7480" };
    const chart = svg(
      "svg",
      {
        id: "rating-chart",
        viewBox: `0 0 ${width} ${height}`,
        width: "100%",
        role: "img",
        "aria-label": `Rating (μ−3σ) of the top ${series.length} entries after each rated match`,
        style: `background: #fff; max-width: ${width}px`,
      },
      svg("line", { x1: left, y1: bottom, x2: right, y2: bottom, stroke: "#9aa3ad" }),
      svg("line", { x1: left, y1: top, x2: left, y2: bottom, stroke: "#9aa3ad" }),
      svg("text", { x: left, y: top, dx: "-4", dy: "4", "text-anchor": "end", ...label }, yMax.toFixed(1)),
      svg("text", { x: left, y: bottom, dx: "-4", dy: "4", "text-anchor": "end", ...label }, yMin.toFixed(1)),
      svg("text", { x: left, y: bottom, dy: "14", ...label }, String(xMin)),
      svg("text", { x: right, y: bottom, dy: "14", "text-anchor": "end", ...label }, `rated match ${xMax}`),
      ...series.map((s) =>
        svg(
          "polyline",
          {
            "data-entry": s.entry,
            fill: "none",
            stroke: s.colour,
            "stroke-width": "2",
            points: s.points.map(([x, y]) => `${sx(x)},${sy(y)}`).join(" "),
          },
          svg("title", {}, `${s.name}: ${s.points[s.points.length - 1][1].toFixed(2)}`),
        ),
      ),
    );
    const legend = el(
      "ul",
      { class: "muted", id: "rating-legend" },
      ...series.map((s) => el("li", {}, el("span", { style: `color: ${s.colour}` }, "■"), ` ${s.name}`)),
    );
    box.replaceChildren(chart, legend);
  }

  // --- the live competition page ---

  function liveCompetition(competitionId, urls) {
    const initial = JSON.parse(document.getElementById("snapshot").textContent);
    const state = {};
    const rendered = { games: new Map() }; // games per entry as last drawn (rows that changed flash)
    const history = new Map(); // entry -> [[sequence, rating], ...]: every series seen
    let chartTop = 10;
    let colours = [];
    let doneSeen = new Set(); // finished matches already counted in their round
    // The newest match.started or match.finished of each match since the snapshot: the
    // matches lane sends them at once, while the rounds panel is read and sent on a slower
    // lane, so a rounds event read before a match started can arrive after its
    // match.started (see roundEvent).
    let matchNews = new Map();

    function load(snapshot) {
      state.standings = snapshot.standings || [];
      state.progress = snapshot.progress;
      state.format = snapshot.format;
      state.chain = snapshot.chain || state.chain || [];
      state.status = snapshot.status || (snapshot.progress && snapshot.progress.competition);
      state.closedEarly = Boolean(snapshot.closed_early);
      state.counts = null;
      takeCounts(snapshot.queue);
      takeCounts(snapshot.progress);
      state.matches = snapshot.matches || { running: [], recent: [] };
      state.problems = snapshot.problems || [];
      // A socket's snapshot leaves the table out: the page's had it, its lane keeps it.
      state.headToHead = snapshot.head_to_head || state.headToHead || { rows: [], more: 0 };
      state.failed = snapshot.failed || [];
      state.rounds = snapshot.rounds || null;
      state.crosstable = snapshot.crosstable || null;
      state.queue = snapshot.queue || null;
      history.clear();
      if (snapshot.chart) {
        chartTop = snapshot.chart.top || chartTop;
        colours = snapshot.chart.colours || colours;
        for (const s of snapshot.chart.series) history.set(s.entry, s.points.slice());
      }
      doneSeen = new Set(viewMatches().filter((m) => m.status === "done").map((m) => m.id));
      matchNews = new Map();
      takeBots(state.standings);
    }

    // entry -> bot id, from the standings rows (the bot pages are per bot).
    const bots = new Map();
    function takeBots(rows) {
      for (const row of rows || []) if (row.bot != null) bots.set(row.entry, row.bot);
    }
    function botName(entry, name) {
      const bot = bots.get(entry);
      return link(bot != null ? pageUrl(urls.bot, bot) : null, name);
    }

    // --- rendering, at most once per frame ---

    const dirty = new Set();
    let frame = 0;
    function invalidate(...parts) {
      for (const part of parts) dirty.add(part);
      if (!frame) frame = requestAnimationFrame(flush);
    }
    function flush() {
      frame = 0;
      const parts = [...dirty];
      dirty.clear();
      for (const part of parts) renderers[part]();
    }

    // The standings columns; the sort key (the chain's first step: points, or a ladder's
    // rating) comes right after the bot, so that a phone shows it without scrolling.
    const STANDINGS_COLUMNS = {
      rating: (row) => el("td", { class: "num" }, fixed(row.rating, 2)),
      sigma: (row) => el("td", { class: "num" }, fixed(row.sigma, 2)),
      games: (row) => el("td", { class: "num" }, String(row.games)),
      points: (row) => el("td", { class: "num" }, points(row.points)),
      trend: (row) => trendCell(row.trend),
      interval: intervalCell,
      pNext: (row) => pNextCell(row.p_above_next),
    };

    // A column heading and what it means (web.dashboard.pages.STANDINGS_HEADINGS, the
    // page's legend): the heading as an <abbr> whose title explains it.
    function heading(key, attrs) {
      const [label, meaning] = (WORDS.columns && WORDS.columns[key]) || [key, ""];
      return el("th", { ...attrs, "data-column": key }, el("abbr", { title: meaning }, label));
    }

    function standingsColumns() {
      const key = (state.chain || [])[0] === "rating" ? "rating" : "points";
      const rest = ["rating", "points", "games", "sigma", "trend", "interval", "pNext"].filter((c) => c !== key);
      return [key, ...rest];
    }

    // "2=" for a shared rank; the tie-break that put a row below the one above, when it was
    // not the first step of the chain ("on head-to-head").
    function rankCell(row) {
      return el("td", { class: "num rank" }, `${row.rank}${row.shared ? "=" : ""}`);
    }
    function tiebreakNote(row) {
      const step = row.separated_by;
      if (!step || step === (state.chain || [])[0]) return null;
      const first = words("tiebreak", (state.chain || [])[0]);
      return el(
        "span",
        { class: "tiebreak-note", title: `Level with the row above on ${first}; placed below it on ${words("tiebreak", step)}` },
        `on ${words("tiebreak", step)}`,
      );
    }

    function renderStandings() {
      const table = document.getElementById("standings");
      const before = rendered.games;
      const columns = standingsColumns();
      const head = el(
        "tr",
        {},
        heading("rank", { class: "num" }),
        heading("name", {}),
        ...columns.map((key, i) => {
          const attrs = { class: i === 0 ? "num sort-key" : "num" };
          if (i === 0) attrs["aria-sort"] = "descending";
          return heading(key, attrs);
        }),
      );
      // League seasons: a heading row before each division, and who goes up or down.
      const divided = state.standings.some((row) => row.division != null && row.division > 0);
      const finished = state.status === "finished";
      const rows = [];
      state.standings.forEach((row, i) => {
        if (divided && (i === 0 || state.standings[i - 1].division !== row.division)) {
          rows.push(
            el(
              "tr",
              { class: "division-head", "data-division": row.division },
              el("th", { colspan: "9", scope: "rowgroup" }, `Division ${row.division + 1}`),
            ),
          );
        }
        const name = el("td", { class: "name" }, botName(row.entry, row.name));
        if (row.disqualified) name.append(" ", el("span", { class: "muted" }, "(disqualified)"));
        else if (row.withdrawn) name.append(" ", el("span", { class: "muted" }, "(withdrawn)"));
        if (row.move) {
          const said = words("move", finished ? `${row.move}-final` : row.move);
          name.append(" ", el("span", { class: `badge move-${row.move}` }, said));
        }
        const note = tiebreakNote(row);
        if (note) name.append(note);
        const tr = el(
          "tr",
          { "data-entry": row.entry, "data-division": row.division ?? "", "data-move": row.move || "" },
          rankCell(row),
          name,
          ...columns.map((key) => STANDINGS_COLUMNS[key](row)),
        );
        if (before.size && before.get(row.entry) !== row.games) tr.classList.add("flash");
        rows.push(tr);
      });
      if (!rows.length) rows.push(el("tr", {}, el("td", { colspan: "9", class: "muted" }, "No entries yet.")));
      table.replaceChildren(el("thead", {}, head), el("tbody", {}, ...rows));
      rendered.games = new Map(state.standings.map((r) => [r.entry, r.games]));
    }

    // The match counts the header and the queue panel both show: whichever reading is
    // the most advanced (more matches, more finished, more started), from either event.
    function countsKey(c) {
      return [c.total, c.done + c.failed, c.running + c.done + c.failed];
    }
    function takeCounts(c) {
      if (!c || typeof c.done !== "number") return false;
      const counts = { pending: c.pending, queued: c.queued, running: c.running, done: c.done, failed: c.failed, total: c.total };
      if (state.counts) {
        const [a, b] = [countsKey(counts), countsKey(state.counts)];
        const i = a.findIndex((v, k) => v !== b[k]);
        if (i >= 0 && a[i] < b[i]) return false; // an older reading
      }
      state.counts = counts;
      return true;
    }

    function renderProgress() {
      const p = state.progress, c = state.counts;
      if (p && c) {
        const games = p.games != null ? p.games : "";
        // The whole schedule where the format fixes it (p.schedule), never fewer than
        // the matches created so far; a ladder's has no end ("of at least").
        const s = p.schedule || { total: c.total, total_known: true };
        const total = Math.max(s.total, c.total);
        document.getElementById("progress").textContent =
          state.format === "ladder"
            ? `${c.done} matches played, ${c.running} running, ${games} games`
            : s.total_known
              ? `${c.done} / ${total} matches done, ${c.running} running, ${games} games`
              : `${c.done} of at least ${total} matches done, ${c.running} running, ${games} games`;
      }
      if (state.status) setStatus(state.status);
    }

    function setStatus(value) {
      const status = document.getElementById("status");
      // A competition its organisers closed before its schedule ended: "closed early".
      const shown = value === "finished" && state.closedEarly ? "closed-early" : value;
      status.textContent = words("competition", shown);
      status.className = "badge " + shown;
      // An ended competition has nothing more to say live: no "live" badge beside it.
      document.getElementById("live").hidden = value === "finished" || value === "cancelled";
    }

    function seatNames(match, withRanks) {
      const parts = [];
      // With places, in the order of the places (ties in seat order); else in seat order.
      const seats = withRanks
        ? [...match.seats].sort((a, b) => (a.rank ?? Infinity) - (b.rank ?? Infinity))
        : match.seats;
      seats.forEach((s, i) => {
        if (i) parts.push(" · ");
        if (withRanks && s.rank != null) parts.push(`${s.rank}. `);
        parts.push(botName(s.entry, s.name));
      });
      return parts;
    }

    function matchItem(match, finished) {
      const li = el("li", { "data-match": match.id }, link(pageUrl(urls.match, match.id), `Match ${match.id}`), ": ");
      li.append(...seatNames(match, finished));
      if (!finished && match.status !== "running") li.append(" ", el("span", { class: "muted" }, `(${words("match", match.status)})`));
      if (finished && match.games && match.games.length) {
        li.append(" · ", el("a", { href: pageUrl(urls.replay, match.games[0]) }, "replay game 1"));
      }
      return li;
    }

    function renderList(id, items, render, empty) {
      const list = document.getElementById(id);
      if (!list) return;
      list.replaceChildren(...(items.length ? items.map(render) : [el("li", { class: "muted" }, empty || "none")]));
    }

    function renderMatches() {
      renderList("running", state.matches.running, (m) => matchItem(m, false), "none at the moment");
      renderList("recent", state.matches.recent, (m) => matchItem(m, true), "no results yet");
    }

    function renderProblems() {
      renderList(
        "problems",
        state.problems,
        (row) =>
          el(
            "li",
            {},
            `${row.name}: ` +
              Object.entries(row.statuses).map(([s, n]) => `${words("game", s)} × ${n}`).join(", "),
          ),
        "none: every game was played to the end",
      );
      renderList("failed", state.failed, (m) =>
        el("li", {}, link(pageUrl(urls.match, m.id), `Match ${m.id}`), `: ${m.error}`),
      );
    }

    const H2H_COLUMNS = [
      ["Bot", null],
      ["Opponent", null],
      ["Matches", "Matches the two played at the same table"],
      ["Ahead–level–behind", "Matches the first bot finished ahead, level, behind"],
      ["Games score", "Game score between the two over the games they played together (1 a game won, ½ a game level)"],
      ["p", "Sign test over the paired deals: how likely a score this lopsided is between equal bots; small is a real difference"],
    ];

    function renderHeadToHead() {
      const view = document.getElementById("head-to-head-view");
      if (!view) return;
      const { rows, more } = state.headToHead;
      if (!rows.length) {
        view.replaceChildren(el("p", { class: "muted" }, "No two bots have met yet."));
        return;
      }
      const head = el("tr", {}, ...H2H_COLUMNS.map(([name, title], i) =>
        el("th", { ...(i > 1 ? { class: "num" } : {}), ...(title ? { title } : {}) }, name)));
      const score = (value) => (Number.isInteger(value) ? String(value) : fixed(value, 1));
      const body = rows.map((r) =>
        el(
          "tr",
          {},
          el("td", {}, r.name),
          el("td", {}, r.opponent_name),
          el("td", { class: "num" }, String(r.matches)),
          el("td", { class: "num" }, `${r.ahead}–${r.level}–${r.behind}`),
          el("td", { class: "num" }, `${score(r.score)}–${score(r.opponent_score)}`),
          el("td", { class: "num" }, r.p_value == null ? "–" : fixed(r.p_value, 3)),
        ));
      const table = el("table", { id: "head-to-head" }, el("thead", {}, head), el("tbody", {}, ...body));
      const parts = [el("div", { class: "scroll" }, table)];
      if (more) parts.push(el("p", { class: "muted" }, `and ${more} more pairs (the API has them all)`));
      view.replaceChildren(...parts);
    }

    function renderChart() {
      // The top of the standings, as rating_series: those with a history, in standings order.
      const names = new Map(state.standings.map((r) => [r.entry, r.name]));
      const charted = state.standings.slice(0, chartTop).filter((r) => history.has(r.entry));
      drawChart(
        charted.map((row, i) => ({
          entry: row.entry,
          name: names.get(row.entry),
          colour: colours[i % colours.length] || "#1f77b4",
          points: history.get(row.entry),
        })),
      );
    }

    function renderQueue() {
      const q = state.queue;
      const box = document.getElementById("queue");
      if (!q || !box) return;
      const b = (value) => el("b", {}, String(value));
      const backlog = q.backlog == null ? "unknown" : String(q.backlog);
      const c = state.counts || q; // the same counts as the header line
      document.getElementById("queue-counts").replaceChildren(
        b(c.queued + c.pending), " waiting · ", b(c.running), " running · ", b(c.done), " done · ",
        b(c.failed), " failed", el("br"),
        el("span", { class: "muted" }, `${q.results_per_minute} result${q.results_per_minute === 1 ? "" : "s"} in the last minute · `,
          el("span", { title: "Matches of every competition waiting for a worker" }, `Celery backlog ${backlog}`)),
      );
      const rows = (c.running ? q.workers : []).map((w) =>
        el(
          "tr",
          {},
          el("td", {}, w.worker),
          el("td", { class: "num" }, link(pageUrl(urls.match, w.match), `#${w.match}`)),
          el("td", { title: w.since || "" }, w.since ? new Date(w.since).toLocaleTimeString() : ""),
        ),
      );
      document.querySelector("#workers tbody").replaceChildren(
        ...(rows.length ? rows : [el("tr", {}, el("td", { colspan: "3", class: "muted" }, "no worker holds a match"))]),
      );
    }

    function seatText(seat, status) {
      if (seat.name) return seat.name;
      return status === "bye" ? "bye" : "?";
    }

    // Game points as the server writes them (match_result.points_text): 2, 1½, ½.
    function pointsText(value) {
      if (typeof value !== "number") return null;
      const halves = Math.round(value * 2);
      const whole = Math.floor(halves / 2);
      if (halves % 2 === 0) return String(whole);
      if (whole === 0) return "½";
      if (whole === -1) return "-½";
      return `${whole + (whole < 0 ? 1 : 0)}½`;
    }

    function scoreLine(seats) {
      if (seats.some((s) => typeof s.points !== "number")) return null;
      return seats.map((s) => pointsText(s.points)).join("-");
    }

    // A bracket box; a box with a match is a link to the match's page.
    function bracketNode(box) {
      const attrs = { class: `node ${box.status}`, "data-node": box.node };
      if (box.match) {
        attrs["data-match"] = box.match;
        attrs.href = pageUrl(urls.match, box.match);
        attrs.title = `Match ${box.match}: every game and its replay`;
      }
      if (box.from && box.from.length) attrs["data-from"] = box.from.join(" ");
      const node = el(
        box.match && urls.match ? "a" : "div",
        attrs,
        el("div", { class: "node-head" }, el("span", {}, box.node), el("span", {}, box.score_line || words("match", box.status))),
        ...box.seats.map((seat) => {
          const div = el("div", { class: seat.winner ? "seat winner" : "seat" }, seatText(seat, box.status));
          if (seat.points_text) {
            const title = `place ${seat.rank} · game points ${seat.points_text} · total score ${points(seat.score)}`;
            div.append(el("span", { class: "points", title }, seat.points_text));
          }
          return div;
        }),
      );
      if (box.tiebreak) node.append(el("div", { class: "tiebreak" }, box.tiebreak));
      return node;
    }

    // Connector lines from each box to the boxes it takes its winners from (same section).
    function drawConnectors() {
      for (const part of document.querySelectorAll("#bracket .bracket")) {
        part.querySelector("svg.connectors")?.remove();
        const box = part.getBoundingClientRect();
        const at = (node, side) => {
          const r = node.getBoundingClientRect();
          return {
            x: (side === "right" ? r.right : r.left) - box.left + part.scrollLeft,
            y: r.top + r.height / 2 - box.top + part.scrollTop,
          };
        };
        const lines = [];
        for (const node of part.querySelectorAll(".node[data-from]")) {
          const to = at(node, "left");
          for (const id of node.dataset.from.split(" ")) {
            const source = part.querySelector(`.node[data-node="${id}"]`);
            if (!source) continue;
            const from = at(source, "right");
            const mid = (from.x + to.x) / 2;
            lines.push(svg("polyline", { points: `${from.x},${from.y} ${mid},${from.y} ${mid},${to.y} ${to.x},${to.y}` }));
          }
        }
        const layer = svg(
          "svg",
          { class: "connectors", width: part.scrollWidth, height: part.scrollHeight, "aria-hidden": "true" },
          ...lines,
        );
        part.prepend(layer);
      }
    }

    // A round robin's crosstable: rows and columns in standings order; the cell of row A,
    // column B is A's result against B (every meeting's pairwise points, and their sum).
    // A league season in divisions gets one table per division, of its entries only.
    function crosstableTable(table, members, id) {
      const entries = table.entries.filter((e) => members.has(e.entry));
      const position = new Map(entries.map((e, i) => [e.entry, i + 1]));
      const names = new Map(entries.map((e) => [e.entry, e.name]));
      const head = el(
        "tr",
        {},
        el("th", { class: "num" }, el("abbr", { title: "The place in the standings" }, "#")),
        el("th", {}, "Bot"),
        ...entries.map((e, i) => el("th", { class: "num", "data-column": e.entry }, el("abbr", { title: e.name }, String(i + 1)))),
        el("th", { class: "num sort-key" }, el("abbr", { title: "League points: the row's results summed" }, "Points")),
      );
      const rows = table.rows
        .map((row, i) => [row, table.entries[i]])
        .filter(([row]) => members.has(row.entry))
        .map(([row, entry]) => {
          const cells = row.cells.filter((cell) => members.has(cell.opponent)).map((cell) => {
            if (cell.opponent === row.entry) return el("td", { class: "num self", "aria-label": "itself" }, "×");
            const attrs = { class: "num", "data-entry": row.entry, "data-opponent": cell.opponent };
            if (cell.score == null) return el("td", attrs, "");
            const each = cell.results.map((r) => pointsText(r)).join(", ");
            attrs.title = `${names.get(row.entry)} against ${names.get(cell.opponent)} (#${position.get(cell.opponent)}): ${each}`;
            return el("td", attrs, pointsText(cell.score));
          });
          return el(
            "tr",
            { "data-entry": row.entry },
            el("td", { class: "num" }, `${entry.rank}${entry.shared ? "=" : ""}`),
            el("td", { class: "name" }, botName(row.entry, entry.name)),
            ...cells,
            el("td", { class: "num" }, points(entry.points)),
          );
        });
      return el("div", { class: "scroll" }, el("table", { id, class: "crosstable" }, el("thead", {}, head), el("tbody", {}, ...rows)));
    }

    function renderCrosstable() {
      const section = document.getElementById("crosstable-view");
      const table = state.crosstable;
      if (!section) return;
      if (!table) {
        section.replaceChildren();
        return;
      }
      const divisions = new Map();
      for (const e of table.entries) {
        const number = e.division_number ?? null;
        if (!divisions.has(number)) divisions.set(number, new Set());
        divisions.get(number).add(e.entry);
      }
      const parts = [
        el("h2", {}, "Crosstable"),
        el("p", { class: "muted" }, "Each row's result against each column: 1 finished ahead, ½ level, 0 behind (summed over their meetings). The columns are numbered as the rows: 1 is the first row's bot."),
      ];
      if (divisions.size > 1) {
        for (const [number, members] of divisions) {
          parts.push(
            el("h3", { "data-division": number }, `Division ${number}`),
            crosstableTable(table, members, `crosstable-division-${number}`),
          );
        }
      } else {
        parts.push(crosstableTable(table, new Set(table.entries.map((e) => e.entry)), "crosstable"));
      }
      section.replaceChildren(...parts);
    }

    // Seats in the order of their places (ties, and seats without a place yet, in seat order).
    function inPlaceOrder(seats) {
      return [...seats].sort((a, b) => (a.rank ?? Infinity) - (b.rank ?? Infinity));
    }

    // Every round's tables with their places and game points, both in the order of the
    // places (the page's record of results).
    function roundResults(view) {
      if (!view.results || !view.results.length) return null;
      const rounds = view.results.map((r) => {
        const rows = r.matches.map((m) =>
          el(
            "tr",
            { "data-match": m.match },
            el("td", { class: "num" }, link(pageUrl(urls.match, m.match), String(m.table + 1))),
            el("td", {}, ...seatNames({ seats: m.seats }, true)),
            el("td", { class: "num" }, scoreLine(inPlaceOrder(m.seats)) || ""),
            el("td", {}, el("span", { class: `badge ${m.status}` }, words("match", m.status))),
          ),
        );
        const part = el(
          "div",
          { class: "round-results", "data-round": r.number },
          el("h3", {}, `Round ${r.number}`),
          el(
            "div",
            { class: "scroll" },
            el(
              "table",
              { class: "results" },
              el("thead", {}, el("tr", {}, el("th", { class: "num" }, "Table"), el("th", {}, "Places"), el("th", { class: "num", title: "Game points, in the order of the places" }, "Game points"), el("th", {}, "Status"))),
              el("tbody", {}, ...rows),
            ),
          ),
        );
        if (r.byes.length) part.append(el("p", { class: "muted" }, `byes: ${r.byes.map((b) => b.name).join(", ")}`));
        return part;
      });
      return el("details", { id: "round-results", open: "" }, el("summary", {}, "Results by round"), ...rounds);
    }

    function renderRounds() {
      const view = state.rounds;
      const section = document.getElementById("rounds-view");
      if (!view || !section) return;
      const list = el("ol", { id: "rounds", class: "rounds" });
      if (view.earlier) list.append(el("li", { class: "muted" }, `… ${view.earlier} earlier`));
      for (const r of view.rounds) {
        list.append(
          el(
            "li",
            { class: `round ${r.status}`, "data-round": r.number },
            el("b", {}, `Round ${r.number}`), " ",
            el("span", { class: `badge ${r.status}` }, words("round", r.status)), " ",
            el("span", { class: "muted" }, `${r.done} / ${r.matches} done`),
          ),
        );
      }
      if (!view.rounds.length) list.append(el("li", { class: "muted" }, "no rounds yet"));
      const parts = [el("h2", {}, "Rounds"), list];
      if (view.bracket) {
        const bracket = el("div", { id: "bracket" });
        if (view.bracket.champion) {
          bracket.append(el("p", { class: "champion" }, "Champion: ", el("b", {}, view.bracket.champion)));
        }
        for (const part of view.bracket.sections) {
          bracket.append(
            el("h3", {}, part.name),
            el(
              "div",
              { class: "bracket" },
              ...part.columns.map((column) =>
                el(
                  "div",
                  { class: "bracket-column" },
                  el("div", { class: "bracket-label" }, column.label),
                  el("div", { class: "bracket-nodes" }, ...column.nodes.map(bracketNode)),
                ),
              ),
            ),
          );
        }
        parts.push(bracket);
      } else if (view.current) {
        const c = view.current;
        const rows = c.tables.map((m) =>
          el(
            "tr",
            { "data-match": m.id },
            el("td", { class: "num" }, link(pageUrl(urls.match, m.id), String(m.table + 1))),
            el("td", {}, ...seatNames(m, true)),
            el("td", {}, el("span", { class: `badge ${m.status}` }, words("match", m.status))),
          ),
        );
        const current = el(
          "div",
          { id: "current-round" },
          el("h3", {}, `Round ${c.number} pairings`),
          el(
            "div",
            { class: "scroll" },
            el(
              "table",
              { class: "pairings" },
              el("thead", {}, el("tr", {}, el("th", { class: "num" }, "Table"), el("th", {}, "Seats"), el("th", {}, "Status"))),
              el("tbody", {}, ...rows),
            ),
          ),
        );
        if (c.more) current.append(el("p", { class: "muted" }, `and ${c.more} more tables`));
        if (c.byes && c.byes.length) current.append(el("p", { class: "muted" }, `byes: ${c.byes.join(", ")}`));
        parts.push(current);
      }
      const results = roundResults(view);
      if (results) parts.push(results);
      section.replaceChildren(...parts);
      drawConnectors();
    }

    const renderers = {
      standings: renderStandings,
      progress: renderProgress,
      matches: renderMatches,
      problems: renderProblems,
      headToHead: renderHeadToHead,
      chart: renderChart,
      queue: renderQueue,
      rounds: renderRounds,
      crosstable: renderCrosstable,
    };
    const ALL = Object.keys(renderers);

    // --- the state, changed by events ---

    // The matches the rounds view shows: the current round's tables and the bracket's boxes.
    function viewMatches() {
      const view = state.rounds;
      if (!view) return [];
      if (view.bracket) {
        return view.bracket.sections.flatMap((s) => s.columns.flatMap((c) => c.nodes))
          .filter((box) => box.match)
          .map((box) => ({ id: box.match, status: box.status }));
      }
      return view.current ? view.current.tables : [];
    }

    // A started or finished match changes its row or box and its round's count.
    function updateRoundsWith(match) {
      const view = state.rounds;
      if (!view) return;
      const done = match.status === "done";
      if (done && !doneSeen.has(match.id)) {
        doneSeen.add(match.id);
        const round = view.rounds.find((r) => r.number === match.round);
        if (round && round.done < round.matches) round.done += 1;
      }
      const results = (view.results || []).find((r) => r.number === match.round);
      const row = results && results.matches.find((m) => m.match === match.id);
      if (row) Object.assign(row, { status: match.status, seats: match.seats });
      if (view.bracket && match.node) {
        for (const part of view.bracket.sections) {
          for (const column of part.columns) {
            const box = column.nodes.find((b) => b.node === match.node);
            if (!box) continue;
            box.match = match.id;
            box.status = match.status;
            box.seats = match.seats.map((s) => ({
              entry: s.entry,
              name: s.name,
              rank: s.rank,
              score: s.score,
              points: s.points,
              points_text: pointsText(s.points),
              winner: done && s.rank === 1, // a knockout match has one winning side
            }));
            box.score_line = scoreLine(match.seats);
            box.tiebreak = match.tiebreak || null;
          }
        }
      } else if (view.current) {
        const row = view.current.tables.find((m) => m.id === match.id);
        if (row) Object.assign(row, { status: match.status, seats: match.seats });
      }
    }

    function appendRatings(ratings) {
      for (const r of ratings || []) {
        let line = history.get(r.entry);
        if (!line) history.set(r.entry, (line = [[r.sequence - 1, r.before]]));
        if (line[line.length - 1][0] >= r.sequence) continue; // already drawn (a repeated event)
        line.push([r.sequence, r.after]);
        if (line.length > CHART.maxPoints) line.splice(0, line.length - CHART.maxPoints);
      }
    }

    // How far a match has gone: a status never goes back but when a lost match is queued
    // again, which its next match.started shows.
    const MATCH_STAGE = { pending: 0, queued: 0, running: 1, done: 2, failed: 2 };

    function rememberMatch(match) {
      matchNews.delete(match.id);
      matchNews.set(match.id, match);
      // A rounds event is at most a few seconds older than the match events: the last
      // thousand matches are plenty (a Map iterates oldest first).
      if (matchNews.size > 1000) matchNews.delete(matchNews.keys().next().value);
    }

    function roundEvent(event) {
      if (event.rounds && event.rounds.rounds) {
        const before = state.rounds;
        state.rounds = event.rounds;
        // A round event's results hold only the rounds it is about (results_of): keep
        // the other rounds' results the page has, in round order.
        if (Array.isArray(event.rounds.results_of) && before && Array.isArray(before.results)) {
          const sent = new Set(event.rounds.results_of);
          state.rounds.results = [...before.results.filter((r) => !sent.has(r.number)), ...(event.rounds.results || [])]
            .sort((a, b) => a.number - b.number);
        }
        // The matches the panel was read with: its tables or bracket, and the results of
        // the rounds it sent (the rounds kept from before were brought up to date here).
        const read = new Map(viewMatches().map((m) => [m.id, m.status]));
        const sent = event.rounds.results_of ? new Set(event.rounds.results_of) : null;
        for (const r of event.rounds.results || []) {
          if (sent && !sent.has(r.number)) continue;
          for (const m of r.matches) if (!read.has(m.match)) read.set(m.match, m.status);
        }
        doneSeen = new Set([...read].filter(([, status]) => status === "done").map(([id]) => id));
        // A rounds panel read before a match event that reached us first: the match's
        // own event is newer (the panel would show a started match as waiting).
        for (const [id, status] of read) {
          const news = matchNews.get(id);
          if (news && (MATCH_STAGE[news.status] ?? 0) > (MATCH_STAGE[status] ?? 0)) updateRoundsWith(news);
        }
      } else if (state.rounds && event.round) {
        const round = state.rounds.rounds.find((r) => r.number === event.round.number);
        if (round) Object.assign(round, event.round);
        else state.rounds.rounds.push({ done: 0, ...event.round });
      }
      invalidate("rounds");
    }

    // The problem bots panel: the whole list, from problems.updated (or any event with
    // ``problems``), as the snapshot has it.
    function takeProblems(event) {
      if (!Array.isArray(event.problems)) return;
      state.problems = event.problems;
      invalidate("problems");
    }

    const handlers = {
      snapshot(event) {
        load(event);
        invalidate(...ALL);
      },
      "standings.updated"(event) {
        if ("crosstable" in event) {
          state.crosstable = event.crosstable;
          invalidate("crosstable");
        }
        state.standings = event.standings;
        takeBots(event.standings);
        state.progress = event.progress;
        if (event.progress && event.progress.competition) state.status = event.progress.competition;
        if (takeCounts(event.progress)) invalidate("queue");
        takeProblems(event);
        invalidate("standings", "progress", "chart");
      },
      "match.started"(event) {
        rememberMatch(event.match);
        state.matches.running = state.matches.running.filter((m) => m.id !== event.match.id);
        state.matches.running.push(event.match);
        updateRoundsWith(event.match);
        invalidate("matches", "rounds");
      },
      "match.finished"(event) {
        rememberMatch(event.match);
        state.matches.running = state.matches.running.filter((m) => m.id !== event.match.id);
        state.matches.recent = [event.match, ...state.matches.recent.filter((m) => m.id !== event.match.id)].slice(0, 10);
        updateRoundsWith(event.match);
        appendRatings(event.ratings);
        invalidate("matches", "rounds", "chart");
      },
      "problems.updated": takeProblems,
      // A round robin's crosstable, on the head-to-head's slower lane (a standings.updated
      // with a crosstable, as the server once sent, is still taken above).
      "crosstable.updated"(event) {
        if (!event.crosstable || !Array.isArray(event.crosstable.rows)) return;
        state.crosstable = event.crosstable;
        invalidate("crosstable");
      },
      "head_to_head.updated"(event) {
        if (!event.head_to_head || !Array.isArray(event.head_to_head.rows)) return;
        state.headToHead = event.head_to_head;
        invalidate("headToHead");
      },
      "round.started": roundEvent,
      "round.finished": roundEvent,
      "queue.status"(event) {
        // Statuses come from several workers: keep the one read last.
        if (state.queue && state.queue.at && event.queue.at && Date.parse(event.queue.at) < Date.parse(state.queue.at)) return;
        state.queue = event.queue;
        if (takeCounts(event.queue)) invalidate("progress");
        invalidate("queue");
      },
      "competition.finished"(event) {
        state.standings = event.standings;
        takeBots(event.standings);
        state.status = event.status;
        state.closedEarly = Boolean(event.closed_early);
        if (state.progress) state.progress = { ...state.progress, competition: event.status };
        invalidate("standings", "chart", "progress");
      },
    };

    function receive(data) {
      let events;
      try {
        const parsed = JSON.parse(data);
        events = Array.isArray(parsed) ? parsed : [parsed];
      } catch (error) {
        console.warn("dashboard: not JSON", error);
        return;
      }
      for (const event of events) {
        if (!event || typeof event !== "object") continue;
        const handle = handlers[event.type];
        if (handle) handle(event);
        document.body.dataset.lastEvent = event.type;
      }
    }

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
      socket.onmessage = (message) => receive(message.data);
      socket.onclose = (close) => {
        live.textContent = "offline";
        live.className = "badge live-off";
        if (close.code === 4403) return; // not allowed: retrying will not help
        setTimeout(connect, delay + Math.random() * delay * 0.3);
        delay = Math.min(delay * 2, 30000);
      };
    }

    // The first paint: every panel from the embedded snapshot, at once.
    load(initial);
    for (const part of ALL) dirty.add(part);
    flush();
    document.body.dataset.painted = "1";
    window.addEventListener("resize", drawConnectors);
    connect();
  }

  if (script.dataset.competition) {
    const { competition, replay, match, bot } = script.dataset;
    liveCompetition(competition, { replay, match, bot });
  }
})();
