// Example bot in Node.js with no library: it speaks the JSON-lines protocol
// directly (bots/protocol/PROTOCOL.md) and plays a random legal action.
//
//   python manage.py match manni-basic bots/examples/node builtin:random builtin:random
"use strict";

const readline = require("readline");

let state = 12345;
function random(n) {
  // A tiny 32-bit linear congruential generator: reproducible, no dependencies.
  state = (Math.imul(state, 1103515245) + 12345) >>> 0;
  return (state >>> 16) % n;
}

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

const input = readline.createInterface({ input: process.stdin });
input.on("line", (line) => {
  if (!line.trim()) return;
  const message = JSON.parse(line);
  if (message.type === "hello") {
    state = ((message.match && message.match.seed) || state) >>> 0;
    send({ ready: true, name: "node-random" });
  } else if (message.type === "act") {
    send({ action: message.legal[random(message.legal.length)] });
  } else if (message.type === "bye") {
    process.exit(0);
  }
});
