// Example bot in Node.js with no library: it speaks the JSON-lines protocol
// directly (bots/protocol/PROTOCOL.md) and plays a random legal action.
//
//   python manage.py match manni-basic bots/examples/node builtin:random builtin:random
"use strict";

const readline = require("readline");

const crypto = require("crypto");

function random(n) {
  // The platform sends no seed (nothing a bot receives lets it derive a deal):
  // a bot draws its own randomness.
  return crypto.randomInt(n);
}

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

const input = readline.createInterface({ input: process.stdin });
input.on("line", (line) => {
  if (!line.trim()) return;
  const message = JSON.parse(line);
  if (message.type === "hello") {
    send({ ready: true, name: "node-random" });
  } else if (message.type === "act") {
    send({ action: message.legal[random(message.legal.length)] });
  } else if (message.type === "bye") {
    process.exit(0);
  }
});
