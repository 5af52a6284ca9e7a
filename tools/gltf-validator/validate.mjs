// Runs the Khronos glTF Validator on one .gltf/.glb file and prints its report as JSON.
// Usage: node validate.mjs FILE   (exit 0 when the report was printed, 2 on failure to run)
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import validator from 'gltf-validator';

const file = process.argv[2];
if (!file) {
  console.error('usage: node validate.mjs FILE.gltf|FILE.glb');
  process.exit(2);
}
try {
  const bytes = new Uint8Array(await readFile(file));
  const report = await validator.validateBytes(bytes, {
    uri: path.basename(file),
    maxIssues: 0, // no limit
    externalResourceFunction: (uri) =>
      readFile(path.resolve(path.dirname(file), decodeURIComponent(uri))).then((b) => new Uint8Array(b)),
  });
  process.stdout.write(JSON.stringify(report, null, 2) + '\n');
} catch (e) {
  console.error(`validate.mjs: ${file}: ${e && e.message ? e.message : e}`);
  process.exit(2);
}
