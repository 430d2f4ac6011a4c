// Cardroom dashboard: the replay viewer of one game (game_replay.html), finished or, on
// live_game.html, being played (its new steps come over a WebSocket: see follow()).
// The server shapes every step (tournaments/watching/replay.py): a card table of seats,
// the cards in the middle, facts, bids and scores, whose texts are "parts". This script
// only draws them, and steps through them with the buttons, the arrow keys and the move list.
"use strict";

(function () {
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    for (const child of children) node.append(child);
    return node;
  }

  const meta = JSON.parse(document.getElementById("replay-meta").textContent);
  const steps = JSON.parse(document.getElementById("steps").textContent);
  const names = meta.names;
  // Decision traces (bots/referee/traces.py), already filtered by the server for this reader.
  const traced = JSON.parse(document.getElementById("replay-traces").textContent);
  const traceAt = new Map(traced.traces.map((t) => [t.ply + 1, t])); // step index -> trace

  // --- cards: the French pack (Manni, Money) and the Latin pack (Maniglia) ---

  const PACKS = {
    french: {
      ranks: { T: "10" },
      suits: { S: ["♠", "spades"], H: ["♥", "hearts"], D: ["♦", "diamonds"], C: ["♣", "clubs"] },
      rankNames: { A: "ace", K: "king", Q: "queen", J: "jack", T: "10" },
    },
    latin: {
      ranks: {},
      suits: { D: ["◉", "coins"], C: ["Ʊ", "cups"], S: ["†", "swords"], B: ["ǂ", "batons"] },
      rankNames: { A: "ace", K: "king", N: "knight", J: "jack" },
    },
  };
  const pack = PACKS[meta.pack];

  function card(label) {
    if (/^X[12]$/.test(label)) {
      return el("span", { class: "playing-card joker", "data-card": label, title: "joker" },
        el("span", { class: "rank" }, "★"), el("span", { class: "suit" }, "joker"));
    }
    const rank = label.slice(0, -1);
    const suit = label.slice(-1);
    const [sign, suitName] = pack.suits[suit] || ["?", suit];
    const title = `${pack.rankNames[rank] || rank} of ${suitName}`;
    return el("span", { class: `playing-card ${meta.pack} suit-${suit}`, "data-card": label, title },
      el("span", { class: "rank" }, pack.ranks[rank] || rank), el("span", { class: "suit" }, sign));
  }

  function backs(count) {
    if (!count) return el("span", { class: "muted" }, "none");
    return el("span", { class: `playing-card back${count > 1 ? " stacked" : ""}`,
      title: `${count} card${count === 1 ? "" : "s"} face down` }, el("span", { class: "count" }, String(count)));
  }

  function money(letter, value) {
    return el("span", { class: "playing-card money", "data-money": letter, title: `money ${letter}, worth ${value}` },
      el("span", { class: "rank" }, letter), el("span", { class: "value" }, String(value)));
  }

  function suitSign(suit) {
    const [sign, suitName] = pack.suits[suit] || [suit, suit];
    return el("span", { class: `suit-sign ${meta.pack} suit-${suit}`, title: suitName }, `${sign} ${suitName}`);
  }

  // Seats are numbered from 1 for people; the protocol, the API and the data count from 0.
  function seatLabel(seat) {
    return `seat ${seat + 1}`;
  }

  function seatName(seat) {
    return el("span", { class: "seat-name" }, seat == null ? "—" : names[seat] ?? seatLabel(seat));
  }

  // An action label with its card labels drawn as small coloured cards (the move list).
  function labelled(text) {
    const node = el("span", {});
    text.split(" ").forEach((word, i) => {
      if (i) node.append(" ");
      const suit = word.slice(-1);
      if (word.length >= 2 && word.length <= 3 && pack.suits[suit] && /^([2-9TJQKANX]|10)$/.test(word.slice(0, -1))) {
        const rank = word.slice(0, -1);
        node.append(el("span", { class: `mini ${meta.pack} suit-${suit}` }, `${pack.ranks[rank] || rank}${pack.suits[suit][0]}`));
      } else {
        node.append(word);
      }
    });
    return node;
  }

  // --- parts: the texts of a table (see replay.py) ---

  function parts(x) {
    if (x === null || x === undefined) return document.createTextNode("—");
    if (Array.isArray(x)) return el("span", {}, ...x.map(parts));
    if (typeof x !== "object") return document.createTextNode(String(x));
    if ("seat" in x) return seatName(x.seat);
    if ("cards" in x) {
      return x.cards.length ? el("span", { class: "cards" }, ...x.cards.map(card)) : el("span", { class: "muted" }, "none");
    }
    if ("backs" in x) return backs(x.backs);
    if ("money" in x) return el("span", { class: "cards" }, ...x.money.map(([l, v]) => money(l, v)));
    if ("suit" in x) return suitSign(x.suit);
    if ("items" in x) {
      const node = el("span", { class: "items" }, "[");
      x.items.forEach((item, i) => node.append(...(i ? [", "] : []), parts(item)));
      node.append("]");
      return node;
    }
    if ("fields" in x) {
      const node = el("span", { class: "fields" });
      x.fields.forEach(([k, v], i) => node.append(...(i ? ["; "] : []), el("em", {}, k), ": ", parts(v)));
      return node;
    }
    return document.createTextNode(JSON.stringify(x));
  }

  // --- the card table ---

  // Seats clockwise from the bottom of the table (both families number their seats that way).
  const PLACES = {
    2: ["bottom", "top"],
    3: ["bottom", "top-left", "top-right"],
    4: ["bottom", "left", "top", "right"],
    5: ["bottom", "left", "top-left", "top-right", "right"],
  };

  function seatBox(step, box, seat) {
    const classes = ["table-seat", `place-${(PLACES[names.length] || [])[seat] || "bottom"}`];
    if (step.table.turn === seat) classes.push("turn");
    if (step.actor === seat) classes.push("actor");
    const head = el("div", { class: "seat-head" }, el("strong", {}, names[seat] ?? seatLabel(seat)),
      el("span", { class: "muted" }, ` ${seatLabel(seat)}`));
    if (step.table.turn === seat) head.append(el("span", { class: "tag turn-tag" }, "to play"));
    for (const badge of box.badges) head.append(el("span", { class: "tag" }, badge));
    const facts = el("div", { class: "facts" });
    box.facts.forEach(([k, v], i) => facts.append(...(i ? [" · "] : []), `${k} `, el("b", {}, parts(v))));
    const node = el("div", { class: classes.join(" "), "data-seat": seat }, head, facts);
    for (const area of box.areas) {
      node.append(el("div", { class: `area area-${area.label.replace(/\W+/g, "-")}` },
        el("span", { class: "area-label" }, area.label), parts(area.parts)));
    }
    return node;
  }

  function centreArea(area) {
    const node = el("div", { class: "centre-area" }, el("div", { class: "area-label" }, area.label));
    if (!area.plays) {
      node.append(parts(area.parts));
      return node;
    }
    const row = el("div", { class: "trick" });
    for (const [seat, label] of area.plays) {
      const won = area.winner === seat;
      row.append(el("div", { class: `play${won ? " winner" : ""}` }, card(label),
        el("div", { class: "play-seat", title: names[seat] ?? "" }, names[seat] ?? seatLabel(seat)),
        el("div", { class: "play-note" }, won ? (area.complete ? "takes it" : "winning") : "")));
    }
    node.append(row);
    return node;
  }

  function rows(target, pairs) {
    target.replaceChildren(...pairs.map(([k, v]) => el("tr", {}, el("th", {}, k), el("td", {}, parts(v)))));
  }

  // One row per seat, one column per score line (score, totals, team points...).
  function scoreTable(step) {
    const lines = step.table.scores;
    const head = el("tr", {}, el("th", {}, "bot"), ...lines.map(([label]) => el("th", { class: "num" }, label)));
    const body = names.map((name, seat) => el("tr", {}, el("td", {}, name),
      ...lines.map(([, values]) => el("td", { class: "num" }, String((values || [])[seat] ?? "—")))));
    document.getElementById("scores").replaceChildren(head, ...body);
  }

  function result(step) {
    const box = document.getElementById("result");
    const res = step.table.result;
    if (!res) {
      box.replaceChildren();
      box.hidden = true;
      return;
    }
    const order = res.ranking.map((rank, seat) => [rank, seat]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    box.hidden = false;
    box.replaceChildren(el("h2", {}, "Final result"), el("table", {},
      el("tr", {}, el("th", { class: "num" }, "rank"), el("th", {}, "bot"), el("th", { class: "num" }, "score")),
      ...order.map(([rank, seat]) => el("tr", {}, el("td", { class: "num" }, String(rank)),
        el("td", {}, names[seat] ?? seatLabel(seat)), el("td", { class: "num" }, String(res.scores[seat]))))));
  }

  function draw(step) {
    const table = step.table;
    const felt = el("div", { class: `felt players-${names.length}` },
      ...table.seats.map((box, seat) => seatBox(step, box, seat)),
      el("div", { class: "centre" }, ...table.centre.map(centreArea)));
    document.getElementById("step").replaceChildren(felt);
    document.getElementById("said").replaceChildren(parts(table.said));
    rows(document.getElementById("info"), table.info);
    document.getElementById("bids-box").hidden = !table.bids.length;
    document.getElementById("bids").replaceChildren(
      ...table.bids.map(([who, what]) => el("li", {}, parts(who), " ", labelled(String(what)))));
    scoreTable(step);
    document.getElementById("extra-box").hidden = !table.extra.length;
    rows(document.getElementById("extra"), table.extra);
    result(step);
  }

  // --- stepping ---

  const moves = document.getElementById("moves");
  function moveItem(step) {
    const trace = traceAt.get(step.index);
    const marks = trace ? [trace.over ? "over" : "", trace.fault ? "faulted" : ""].join(" ").trim() : "";
    return el("li", marks ? { class: marks } : {},
      el("a", { href: `#step-${step.index}`, "data-step": String(step.index) },
        el("span", { class: "move-seat" }, names[step.actor] ?? seatLabel(step.actor)), " ", labelled(step.table.move)));
  }
  moves.replaceChildren(...steps.slice(1).map(moveItem));

  // --- the decision trace beside the move ---

  const traceBox = document.getElementById("trace-box");
  const follow = document.getElementById("follow-seat");
  const nextMine = document.getElementById("next-mine");
  const ms = (n) => `${n.toLocaleString("en")} ms`;
  function drawTrace(step) {
    const trace = traceAt.get(step.index);
    const box = document.getElementById("trace");
    if (!trace) {
      box.replaceChildren(el("p", { class: "muted" }, step.index ? "No decision: a forced move, or a move no trace was kept of." : "Before the first move."));
      return;
    }
    const pairs = [["seat", names[trace.seat] ?? seatLabel(trace.seat)], ["charged", ms(trace.charged_ms)],
      ["wall clock", ms(trace.wall_ms)], ["CPU", trace.cpu_ms == null ? "not counted" : ms(trace.cpu_ms)],
      ["bank left", ms(trace.bank_ms)]];
    const parts = [el("dl", {}, ...pairs.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]))];
    if (trace.over) parts.push(el("p", { class: "over-mark" }, `used more than ${Math.round(traced.over_share * 100)} % of the time it could`));
    if (trace.fault) parts.push(el("p", { class: "fault-mark" }, `fault: ${trace.fault}`));
    if (trace.note != null) parts.push(el("p", { class: "note" }, trace.note));
    if (trace.note_mark) parts.push(el("p", { class: "muted" }, `note ${trace.note_mark}`));
    if (trace.stderr != null || trace.stderr_cut) {
      parts.push(el("p", { class: "muted" }, "stderr during this decision" + (trace.stderr_cut ? " (cut)" : "")));
      parts.push(el("pre", {}, trace.stderr || ""));
    }
    box.replaceChildren(...parts);
  }
  if (traced.traces.length) {
    traceBox.hidden = false;
    const seats = [...new Set(traced.traces.map((t) => t.seat))].sort((a, b) => a - b);
    follow.replaceChildren(...seats.map((s) => el("option", { value: String(s) }, names[s] ?? seatLabel(s))));
    if (traced.mine.length) follow.value = String(traced.mine[0]);
    nextMine.textContent = traced.mine.length ? "my next decision ›" : "next decision of ›";
    nextMine.hidden = false;
    follow.hidden = traced.mine.length === 1;
    nextMine.onclick = () => {
      const seat = Number(follow.value);
      const next = traced.traces.find((t) => t.seat === seat && t.ply + 1 > at);
      if (next) go(next.ply + 1);
    };
  }

  let at = 0;
  function show() {
    const step = steps[at];
    if (!step) {  // a live game before its first published move
      document.getElementById("position").textContent = "waiting for the first move";
      return;
    }
    document.getElementById("position").textContent =
      `step ${step.index} / ${steps.length - 1}` + (step.action == null ? "" : ` · ${names[step.actor] ?? step.actor}: ${step.action}`);
    draw(step);
    if (traced.traces.length) drawTrace(step);
    moves.querySelectorAll("li.current").forEach((li) => li.classList.remove("current"));
    const li = at ? moves.children[at - 1] : null;
    if (li) {
      li.classList.add("current");
      const top = li.offsetTop;
      if (top < moves.scrollTop || top + li.offsetHeight > moves.scrollTop + moves.clientHeight) {
        moves.scrollTop = top - moves.clientHeight / 2;
      }
    }
  }
  function go(i) {
    at = Math.max(0, Math.min(steps.length - 1, i));
    history.replaceState(null, "", `#step-${at}`);
    show();
  }
  document.getElementById("first").onclick = () => go(0);
  document.getElementById("prev").onclick = () => go(at - 1);
  document.getElementById("next").onclick = () => go(at + 1);
  document.getElementById("last").onclick = () => go(steps.length - 1);
  moves.addEventListener("click", (e) => {
    const link = e.target.closest("a[data-step]");
    if (!link) return;
    e.preventDefault();
    go(Number(link.dataset.step));
  });
  document.addEventListener("keydown", (e) => {
    if (e.target.closest && e.target.closest("input, textarea, select")) return;
    if (e.key === "ArrowRight") go(at + 1);
    if (e.key === "ArrowLeft") go(at - 1);
    if (e.key === "Home") go(0);
    if (e.key === "End") go(steps.length - 1);
    if (e.key === "n" && !nextMine.hidden) nextMine.click();
  });
  const linked = /^#step-(\d+)$/.exec(location.hash);
  const liveNode = document.getElementById("replay-live");
  const live = liveNode ? JSON.parse(liveNode.textContent) : null;
  at = linked ? Math.min(steps.length - 1, Number(linked[1])) : (live ? Math.max(0, steps.length - 1) : 0);
  show();
  if (live) followLive(live);

  // --- a game of a match being played: new steps arrive over ws/matches/<id>/games/<n>/ ---

  function followLive(live) {
    const status = document.getElementById("live-status");
    let over = live.over;
    function say(...parts) { status.replaceChildren(...parts); }
    function onSteps(event) {
      if (event.from > steps.length) { location.reload(); return; }  // missed some: start again
      const following = at >= steps.length - 1;
      for (const step of event.steps) {
        if (step.index !== steps.length) continue;  // already shown
        steps.push(step);
        if (step.index > 0) moves.append(moveItem(step));
      }
      if (following && steps.length) go(steps.length - 1);
      if (event.over && !over) {
        over = true;
        const badge = document.getElementById("live-badge");
        if (badge) badge.textContent = "finished";
      }
    }
    function onGames(event) {
      const text = over ? `Game ${live.number} is finished` : `Following game ${live.number} move by move`;
      const parts = [text];
      if (event.current && event.current !== live.number) {
        parts.push(" · ", el("a", { href: `${live.game_url}${event.current}/`, id: "current-game" },
          `game ${event.current} is being played`));
      }
      say(...parts);
    }
    function onOver(event) {
      say("The match is over: ", el("a", { href: live.match_url }, "see its games"));
      if (event.status === "done") setTimeout(() => location.reload(), 500);  // the stored replay
      ended = true;
      socket.close(1000);
    }
    let socket;
    let ended = false;
    function connect() {
      const scheme = location.protocol === "https:" ? "wss" : "ws";
      socket = new WebSocket(`${scheme}://${location.host}${live.socket}`);
      socket.onmessage = (message) => {
        const data = JSON.parse(message.data);
        for (const event of Array.isArray(data) ? data : [data]) {
          if (event.type === "live.steps") onSteps(event);
          else if (event.type === "live.games") onGames(event);
          else if (event.type === "live.over") { onOver(event); return; }
        }
      };
      socket.onclose = (e) => { if (!ended && e.code !== 4403) setTimeout(connect, 2000); };
    }
    connect();
  }
})();
