// three.js in headless Chromium (WebGL through SwiftShader) as an independent renderer of
// retroanim's GLB exports: draws each GLB of JOB.json with the camera given by numbers, every
// mesh in plain white on black (no textures, no lights; a material's doubleSided kept, so back
// faces are culled as glTF says), and writes the coverage mask.
//
// Usage: node silhouette.mjs JOB.json OUT.json
// JOB.json: [{"glb": path, "width": W, "height": H, "view": [16], "projection": [16],
//             "png": path (optional)}]: `view` maps glTF world coordinates to three.js camera
//             space (x right, y up, looking down -z) and `projection` camera space to clip space,
//             both column-major 4 × 4 (three.js's Matrix4.fromArray order).
// OUT.json: [{"glb", "meshes", "triangles" (drawn), "covered": count, "mask": "0101…"}]: the mask row by row from the top,
//           "1" where a mesh covers the pixel centre. With "png", the mask is also written there.
// Chromium is the system's (/usr/bin/chromium, or $CHROMIUM); playwright-core brings no browser.
// crates/retroanim/tests/render_silhouette.rs compares the masks with retroanim's renderer.

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { withoutImages } from './load.mjs';

const [jobPath, outPath] = process.argv.slice(2);
if (!jobPath || !outPath) {
  console.error('usage: node silhouette.mjs JOB.json OUT.json');
  process.exit(2);
}
const job = JSON.parse(readFileSync(jobPath, 'utf8'));
const here = dirname(fileURLToPath(import.meta.url));
const origin = 'http://threejs-check.invalid';

const page_html = `<!doctype html><html><body style="margin:0">
<script type="importmap">{"imports": {"three": "/three/build/three.module.js",
  "three/addons/": "/three/examples/jsm/"}}</script>
<script type="module">
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
window.draw = async (url, w, h, view, projection) => {
  const data = await (await fetch(url)).arrayBuffer();
  const gltf = await new Promise((ok, no) => new GLTFLoader().parse(data, '', ok, no));
  const canvas = document.createElement('canvas');
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: false, preserveDrawingBuffer: true });
  renderer.setPixelRatio(1);
  renderer.setSize(w, h, false);
  renderer.setClearColor(0x000000, 1);
  gltf.scene.traverse((o) => {
    if (o.isMesh) {
      o.material = new THREE.MeshBasicMaterial({ color: 0xffffff, side: o.material.side });
      o.frustumCulled = false;
    }
  });
  // The view matrix is put on the scene (a camera at the origin looking down -z): a camera's
  // world matrix may not keep the scale that the renderer's fixed-point view carries.
  const world = new THREE.Group();
  world.matrixAutoUpdate = false;
  world.matrix.fromArray(view);
  world.matrixWorldNeedsUpdate = true;
  world.add(gltf.scene);
  const camera = new THREE.Camera();
  camera.projectionMatrix.fromArray(projection);
  camera.projectionMatrixInverse.copy(camera.projectionMatrix).invert();
  let meshes = 0;
  gltf.scene.traverse((o) => { meshes += o.isMesh ? 1 : 0; });
  renderer.render(world, camera);
  const triangles = renderer.info.render.triangles;
  const gl = renderer.getContext();
  const px = new Uint8Array(w * h * 4);
  gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
  let mask = '';
  let covered = 0;
  for (let y = h - 1; y >= 0; y--) {
    for (let x = 0; x < w; x++) {
      const on = px[(y * w + x) * 4] > 127;
      covered += on;
      mask += on ? '1' : '0';
    }
  }
  const png = canvas.toDataURL('image/png');
  renderer.dispose();
  return { covered, mask, png, meshes, triangles, webgl: gl.getParameter(gl.VERSION) };
};
window.ready = true;
</script></body></html>`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
    '--ignore-gpu-blocklist', '--disable-background-networking', '--no-first-run'],
});
const out = [];
try {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  // Every request is answered here: the page, three.js from node_modules, the GLBs.
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.origin !== origin) return route.abort();
    if (url.pathname === '/') return route.fulfill({ contentType: 'text/html', body: page_html });
    if (url.pathname.startsWith('/three/')) {
      const file = join(here, 'node_modules', url.pathname.slice(1));
      return route.fulfill({ contentType: 'text/javascript', body: readFileSync(file) });
    }
    const m = url.pathname.match(/^\/glb\/(\d+)$/);
    if (m) {
      const glb = withoutImages(new Uint8Array(readFileSync(job[Number(m[1])].glb)));
      return route.fulfill({ contentType: 'model/gltf-binary', body: Buffer.from(glb) });
    }
    return route.fulfill({ status: 404, body: '' });
  });
  await page.goto(origin + '/');
  await page.waitForFunction(() => window.ready === true);
  for (const [i, c] of job.entries()) {
    const r = await page.evaluate(
      ([url, w, h, view, proj]) => window.draw(url, w, h, view, proj),
      [`/glb/${i}`, c.width, c.height, c.view, c.projection]);
    if (c.png) writeFileSync(c.png, Buffer.from(r.png.split(',')[1], 'base64'));
    out.push({ glb: c.glb, meshes: r.meshes, triangles: r.triangles, covered: r.covered, mask: r.mask });
  }
  if (errors.length) {
    console.error(`silhouette.mjs: page errors:\n${errors.join('\n')}`);
    process.exit(1);
  }
} finally {
  await browser.close();
}
writeFileSync(outPath, JSON.stringify(out));
console.log(`silhouette.mjs: ${out.length} pictures drawn`);
