// Runs the Khronos glTF Validator on each file named on the command line and prints one
// JSON line per file: {"file", "errors", "warnings", "infos", "messages"} where messages
// lists the errors and warnings. Exits 1 when any file has an error, 2 on bad usage.
// tests/export.rs calls this; `npm ci` in this folder installs the validator.
import { readFile } from "node:fs/promises";
import path from "node:path";
import validator from "gltf-validator";

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node validate.mjs FILE.glb|FILE.gltf ...");
  process.exit(2);
}
let failed = false;
for (const file of files) {
  const bytes = new Uint8Array(await readFile(file));
  const report = await validator.validateBytes(bytes, {
    uri: path.basename(file),
    maxIssues: 0,
    externalResourceFunction: (uri) =>
      readFile(path.join(path.dirname(file), decodeURIComponent(uri))).then(
        (b) => new Uint8Array(b),
      ),
  });
  const issues = report.issues;
  const messages = issues.messages
    .filter((m) => m.severity <= 1)
    .map((m) => ({
      code: m.code,
      severity: m.severity === 0 ? "error" : "warning",
      message: m.message,
      pointer: m.pointer,
    }));
  console.log(
    JSON.stringify({
      file,
      errors: issues.numErrors,
      warnings: issues.numWarnings,
      infos: issues.numInfos,
      messages,
    }),
  );
  if (issues.numErrors > 0) failed = true;
}
process.exit(failed ? 1 : 0);
