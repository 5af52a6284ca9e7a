// three.js as a real client of retroanim's animated glTF: loads each GLB of JOB.json with
// GLTFLoader (in Node, from an ArrayBuffer; images are dropped first, since Node has no DOM to
// decode them and poses do not need them), plays its first animation with an AnimationMixer
// (LoopOnce, clamped) and writes the world matrix of each node (by glTF node index) at each
// time to OUT.json: [{"glb", "frames": [[16 numbers, column-major, or null]]}].
//
// Usage: node poses.mjs JOB.json OUT.json
// JOB.json: [{"glb": path, "times": [seconds], "nodes": [node index]}].
// crates/retroanim/tests/pose_clients.rs compares the matrices with the console player.

import { readFileSync, writeFileSync } from 'node:fs';
import { load, player } from './load.mjs';

const [jobPath, outPath] = process.argv.slice(2);
const job = JSON.parse(readFileSync(jobPath, 'utf8'));
const out = [];
for (const item of job) {
  const gltf = await load(item.glb);
  const byIndex = new Map();
  gltf.scene.traverse((o) => {
    const a = gltf.parser.associations.get(o);
    if (a && a.nodes !== undefined && !byIndex.has(a.nodes)) byIndex.set(a.nodes, o);
  });
  const setTime = player(gltf);
  const frames = [];
  for (const t of item.times) {
    setTime(t);
    frames.push(item.nodes.map((n) => {
      const o = byIndex.get(n);
      return o ? Array.from(o.matrixWorld.elements) : null;
    }));
  }
  out.push({ glb: item.glb, frames });
}
writeFileSync(outPath, JSON.stringify(out));
console.log(`poses.mjs: ${out.length} files`);
