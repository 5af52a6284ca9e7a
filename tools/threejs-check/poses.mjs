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
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';

/** The GLB with its images, textures and samplers removed (materials keep their factors). */
function withoutImages(buf) {
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const jsonLen = dv.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(buf.subarray(20, 20 + jsonLen)));
  const rest = buf.subarray(20 + jsonLen);
  delete json.images;
  delete json.textures;
  delete json.samplers;
  for (const m of json.materials ?? []) {
    if (m.pbrMetallicRoughness) delete m.pbrMetallicRoughness.baseColorTexture;
    delete m.normalTexture;
    delete m.emissiveTexture;
    delete m.occlusionTexture;
  }
  let text = new TextEncoder().encode(JSON.stringify(json));
  const padded = new Uint8Array((text.length + 3) & ~3).fill(0x20);
  padded.set(text);
  const out = new Uint8Array(12 + 8 + padded.length + rest.length);
  const ov = new DataView(out.buffer);
  ov.setUint32(0, 0x46546c67, true);
  ov.setUint32(4, 2, true);
  ov.setUint32(8, out.length, true);
  ov.setUint32(12, padded.length, true);
  ov.setUint32(16, 0x4e4f534a, true);
  out.set(padded, 20);
  out.set(rest, 20 + padded.length);
  return out.buffer;
}

function load(path) {
  const data = withoutImages(new Uint8Array(readFileSync(path)));
  return new Promise((resolve, reject) => new GLTFLoader().parse(data, '', resolve, reject));
}

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
  const mixer = new THREE.AnimationMixer(gltf.scene);
  let action = null;
  if (gltf.animations.length > 0) {
    action = mixer.clipAction(gltf.animations[0]);
    action.setLoop(THREE.LoopOnce, 1);
    action.clampWhenFinished = true;
    action.play();
  }
  const frames = [];
  for (const t of item.times) {
    // From the start each time: a LoopOnce action that reached its end stays paused.
    if (action) action.reset();
    mixer.setTime(t);
    gltf.scene.updateMatrixWorld(true);
    frames.push(item.nodes.map((n) => {
      const o = byIndex.get(n);
      return o ? Array.from(o.matrixWorld.elements) : null;
    }));
  }
  out.push({ glb: item.glb, frames });
}
writeFileSync(outPath, JSON.stringify(out));
console.log(`poses.mjs: ${out.length} files`);
