// three.js as a real client of retroanim's skinned and morphed glTF: loads each GLB of JOB.json
// (load.mjs), plays its first animation with an AnimationMixer (LoopOnce, clamped) and writes,
// at each time, the world position of every vertex of every skinned or morphed mesh, as three.js
// draws it: `Mesh.getVertexPosition` (morph targets at the current influences, and for a
// SkinnedMesh its bones, `applyBoneTransform`) times the mesh's world matrix.
//
// Usage: node vertices.mjs JOB.json OUT.json
// JOB.json: [{"glb": path, "times": [seconds]}].
// OUT.json: [{"glb", "frames": [[[x, y, z], ...]]}]: per time, the vertices of the meshes in
// scene order (the same order at every time).
// crates/retroanim/tests/pose_vertices.rs compares them with the console player.

import { readFileSync, writeFileSync } from 'node:fs';
import * as THREE from 'three';
import { load, player } from './load.mjs';

const [jobPath, outPath] = process.argv.slice(2);
const job = JSON.parse(readFileSync(jobPath, 'utf8'));
const out = [];
for (const item of job) {
  const gltf = await load(item.glb);
  const meshes = [];
  gltf.scene.traverse((o) => {
    if (o.isMesh && (o.isSkinnedMesh || (o.morphTargetInfluences ?? []).length > 0)) meshes.push(o);
  });
  const setTime = player(gltf);
  const frames = [];
  const v = new THREE.Vector3();
  for (const t of item.times) {
    setTime(t);
    const points = [];
    for (const m of meshes) {
      if (m.isSkinnedMesh) m.skeleton.update();
      const n = m.geometry.attributes.position.count;
      for (let i = 0; i < n; i++) {
        m.getVertexPosition(i, v);
        v.applyMatrix4(m.matrixWorld);
        points.push([v.x, v.y, v.z]);
      }
    }
    frames.push(points);
  }
  out.push({ glb: item.glb, frames });
}
writeFileSync(outPath, JSON.stringify(out));
console.log(`vertices.mjs: ${out.length} files`);
