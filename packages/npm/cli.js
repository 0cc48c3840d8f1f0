#!/usr/bin/env node
'use strict';
// The `simreel-compare` command: runs the binary for this platform with the same arguments, the
// same terminal, and its exit code.

const { spawn } = require('child_process');
const { binaryPath } = require('./index.js');

let bin;
try {
  bin = binaryPath();
} catch (e) {
  process.stderr.write(`error: ${e.message}\n`);
  process.exit(1);
}

const child = spawn(bin, process.argv.slice(2), { stdio: 'inherit', windowsHide: false });
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => child.kill(signal));
}
child.on('error', (e) => {
  process.stderr.write(`error: cannot run ${bin}: ${e.message}\n`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  if (signal) {
    // die of the same signal, as a shell would report it
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code === null ? 1 : code);
});
