// Hostile bot: on `act` writes a file in its scratch /tmp a MiB at a time, without end,
// and does not catch the error: node ignores SIGXFSZ and dies on EFBIG.
const fs = require("fs");
const input = require("readline").createInterface({ input: process.stdin });
input.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.type === "hello") {
    console.log(JSON.stringify({ ready: true, name: "big-file-js" }));
  } else if (message.type === "act") {
    const fd = fs.openSync("/tmp/big", "w");
    const block = Buffer.alloc(1024 * 1024, 120);
    for (;;) fs.writeSync(fd, block);
  }
});
