// Loading a retroanim GLB into three.js in Node (shared by poses.mjs and vertices.mjs).

import { readFileSync } from 'node:fs';
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';

/** The GLB with its images, textures and samplers removed (materials keep their factors). */
export function withoutImages(buf) {
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

export function load(path) {
  const data = withoutImages(new Uint8Array(readFileSync(path)));
  return new Promise((resolve, reject) => new GLTFLoader().parse(data, '', resolve, reject));
}

/**
 * A function that poses the scene at time t (seconds) with the first animation, played once
 * and clamped by an AnimationMixer, from the start each time (a LoopOnce action that reached
 * its end stays paused), and updates the world matrices.
 */
export function player(gltf) {
  const mixer = new THREE.AnimationMixer(gltf.scene);
  let action = null;
  if (gltf.animations.length > 0) {
    action = mixer.clipAction(gltf.animations[0]);
    action.setLoop(THREE.LoopOnce, 1);
    action.clampWhenFinished = true;
    action.play();
  }
  return (t) => {
    if (action) action.reset();
    mixer.setTime(t);
    gltf.scene.updateMatrixWorld(true);
  };
}
