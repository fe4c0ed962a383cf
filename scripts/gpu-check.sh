#!/usr/bin/env bash
# The GPU check: one training step of a larger GPT on WebGPU, and the same step on wasm (scripts/gpu-step.ts).
#
#   bash scripts/gpu-check.sh prepare   # here (npm and Debian registries): builds .device/gpu/pkg (ignored, < 64 MiB)
#   bash scripts/gpu-check.sh run       # on the GPU machine (no Node, no network), from the repository root,
#                                       # with .device/gpu/pkg carried: the device tool's carry [".device/gpu/pkg"]
#   bash scripts/gpu-check.sh cli train --env hopqa ... --backend webgpu   # the whole CLI, bundled the same way
#   bash scripts/gpu-check.sh check     # `npm run check:webgpu` bundled the same way: WebGPU against wasm, same seed
#
# pkg holds: node (xz -9 of this machine's binary; unpacked beside pkg on first use), gpu-step.mjs, agent-r1.mjs and webgpu-check.mjs (scripts/gpu-step.ts,
# the CLI and scripts/webgpu-check.ts bundled with esbuild, together with @tensorflow/tfjs-backend-webgpu and one copy of tfjs-core), the `webgpu` package (Dawn) with its
# linux-x64 binary only (xz -9 too, unpacked beside pkg on first use), tfjs-backend-wasm's .wasm files, and the Vulkan loader (Debian's libvulkan1); the
# GPU driver provides the rest. Prints one JSON line per backend: backend, parameters, stepMs, tokensPerSecond
# (or error). docs/gpu.md records what it printed.
set -euo pipefail
ROOT=.device/gpu
PKG=$ROOT/pkg

# One ESM file: the entry, the project and its dependencies (one tfjs-core: the project's), Dawn left out.
bundle() {
  local entry=$1 out=$2
  shift 2
  NODE_PATH="$ROOT/build/node_modules" node_modules/.bin/esbuild "$entry" --bundle --platform=node \
    --format=esm --outfile="$out" --external:webgpu --log-level=warning "$@" \
    --alias:@tensorflow/tfjs-core=./node_modules/@tensorflow/tfjs-core \
    --banner:js="import { createRequire as __cr } from 'node:module'; import { fileURLToPath as __fu } from 'node:url'; import { dirname as __dn } from 'node:path'; const require = __cr(import.meta.url); const __filename = __fu(import.meta.url); const __dirname = __dn(__filename);"
}

prepare() {
  mkdir -p "$ROOT/build" "$PKG/lib" "$PKG/wasm" "$PKG/node_modules/webgpu/dist"
  (
    cd "$ROOT/build"
    [ -f package.json ] || echo '{ "name": "gpu-build", "private": true }' >package.json
    npm install --no-audit --no-fund --ignore-scripts --save-exact @tensorflow/tfjs-backend-webgpu@4.22.0 webgpu@0.6.2
  )
  # Both entries first register the webgpu backend on the project's own tfjs-core (bundled: the project
  # imports it by a computed name, which esbuild does not follow). The backend registers itself only if
  # navigator.gpu exists when it is imported: Dawn's globals come first.
  cat >"$ROOT/dawn.ts" <<'ENTRY'
import * as dawn from "webgpu";
Object.assign(globalThis, dawn.globals);
Object.defineProperty(globalThis, "navigator", { value: { gpu: dawn.create([]) }, configurable: true, writable: true });
await import("@tensorflow/tfjs-backend-webgpu");
ENTRY
  printf 'import "./dawn.ts";\nawait import("../../scripts/gpu-step.ts");\n' >"$ROOT/entry.ts"
  printf 'import "./dawn.ts";\nawait import("../../scripts/webgpu-check.ts");\n' >"$ROOT/entry-check.ts"
  printf 'import "./dawn.ts";\nconst { main } = await import("../../src/cli/main.ts");\nprocess.exitCode = await main(process.argv.slice(2));\n' >"$ROOT/entry-cli.ts"
  bundle "$ROOT/entry.ts" "$PKG/gpu-step.mjs" --minify
  bundle "$ROOT/entry-cli.ts" "$PKG/agent-r1.mjs" --minify
  bundle "$ROOT/entry-check.ts" "$PKG/webgpu-check.mjs" --minify
  local dawn="$ROOT/build/node_modules/webgpu"
  cp "$dawn/package.json" "$dawn/index.js" "$PKG/node_modules/webgpu/"
  # Dawn's binary packed like Node's (21 MB -> about 6): pkg and the working tree must fit the carry's 64 MiB.
  rm -rf "$PKG/node_modules/webgpu/dist/linux-x64"
  mkdir -p "$PKG/node_modules/webgpu/dist/linux-x64"
  xz -9 -c "$dawn/dist/linux-x64/dawn.node" >"$PKG/node_modules/webgpu/dist/linux-x64/dawn.node.xz"
  cp node_modules/@tensorflow/tfjs-backend-wasm/dist/*.wasm "$PKG/wasm/"
  # Node without its debug symbols where strip exists (99 -> 86 MB; packed 24 -> 22 MB).
  if [ ! -f "$PKG/node.xz" ]; then
    if command -v strip >/dev/null; then
      strip -o "$ROOT/build/node" "$(command -v node)" && xz -9 -c "$ROOT/build/node" >"$PKG/node.xz"
    else
      xz -9 -c "$(command -v node)" >"$PKG/node.xz"
    fi
  fi
  if [ ! -e "$PKG/lib/libvulkan.so.1" ]; then
    (cd "$ROOT/build" && rm -f libvulkan1_*.deb && apt-get download libvulkan1 && rm -rf vk && dpkg-deb -x libvulkan1_*.deb vk)
    cp -L "$ROOT"/build/vk/usr/lib/x86_64-linux-gnu/libvulkan.so.1 "$PKG/lib/"
  fi
  du -sh "$PKG"
}

# Runs one of pkg's bundles from .device/rt, where Dawn is unpacked on first use (not in pkg: it stays small
# enough to carry). The bundle is copied there so that `import "webgpu"` finds rt's copy, and two folders down
# from the root, as src/cli/main.ts is, so that the CLI finds the project's package.json (its --version).
node_run() {
  local bundle=$1 rt=.device/rt
  shift
  local dawn=$rt/node_modules/webgpu/dist/linux-x64
  [ -x "$ROOT/node" ] || { xz -dc "$PKG/node.xz" >"$ROOT/node" && chmod +x "$ROOT/node"; }
  mkdir -p "$dawn"
  cp "$PKG/node_modules/webgpu/package.json" "$PKG/node_modules/webgpu/index.js" "$rt/node_modules/webgpu/"
  [ -f "$dawn/dawn.node" ] || xz -dc "$PKG/node_modules/webgpu/dist/linux-x64/dawn.node.xz" >"$dawn/dawn.node"
  cp "$PKG/$bundle" "$rt/"
  LD_LIBRARY_PATH="$PWD/$PKG/lib:${LD_LIBRARY_PATH:-}" TFJS_WASM_PATH="$PWD/$PKG/wasm/" "$ROOT/node" "$rt/$bundle" "$@"
}

run() {
  [ -x "$ROOT/node" ] || { xz -dc "$PKG/node.xz" >"$ROOT/node" && chmod +x "$ROOT/node"; }
  echo "node $("$ROOT/node" --version); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo 'nvidia-smi not found')"
  node_run gpu-step.mjs "$@"
}

case "${1:-}" in
  prepare) prepare ;;
  run) shift; run "$@" ;;
  cli) shift; node_run agent-r1.mjs "$@" ;;
  check) node_run webgpu-check.mjs ;;
  *) echo "usage: bash scripts/gpu-check.sh prepare | run [backend ...] | cli <agent-r1 arguments> | check" >&2; exit 2 ;;
esac
