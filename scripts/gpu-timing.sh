#!/usr/bin/env bash
# The GPU timing of docs/gpu.md ("Timed on an H200"), run on the GPU machine from the repository root after
# `bash scripts/gpu-check.sh prepare` here: the webgpu check, the passes of scripts/gpu-step.ts on WebGPU beside
# wasm, and three updates of hopqa's larger RL run on each backend. Writes its files to $OUT (default
# /tmp/gpu-timing). On the device tool: carry [".device/gpu/pkg", ".gl"] (docs/gpu.md, "How to run it", says what
# .gl holds), then `bash scripts/gpu-timing.sh`; the main job is `bash scripts/gpu-check.sh cli start`.
set -u
OUT=${OUT:-/tmp/gpu-timing}
mkdir -p "$OUT"
if [ -d .gl ]; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
  export VK_DRIVER_FILES=${VK_DRIVER_FILES:-/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json}
fi
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
echo "cores $(nproc); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
bash scripts/gpu-check.sh cli --version   # unpacks Node and Dawn once, before the parallel runs
t0=$(date +%s)
echo "== check (webgpu vs wasm, same seed)"
timeout 60 bash scripts/gpu-check.sh check 2>&1 | grep -v "^Warning\|CheckVkSuccess\|^$" | tee "$OUT/check.jsonl"
echo "== step passes: webgpu (both models) beside wasm (hopqa's), $(($(date +%s)-t0)) s"
(GPU_STEP_REPEATS=5 timeout 150 bash scripts/gpu-check.sh run webgpu >"$OUT/step-webgpu.jsonl" 2>&1; echo "webgpu rc $?") &
(GPU_STEP_MODELS=hopqa GPU_STEP_REPEATS=3 timeout 150 bash scripts/gpu-check.sh run wasm >"$OUT/step-wasm.jsonl" 2>&1; echo "wasm rc $?") &
wait
grep -v "^Warning\|CheckVkSuccess\|^$" "$OUT/step-webgpu.jsonl" "$OUT/step-wasm.jsonl"
echo "== train (the larger RL run's flags, 3 updates): webgpu beside wasm, $(($(date +%s)-t0)) s"
train() {
  local backend=$1
  local started=$(date +%s)
  timeout 170 bash scripts/gpu-check.sh cli train --env hopqa \
    --init docs/checkpoints/hopqa-copy-warm-start --constrained --algo grpo --steps 3 --tasks 16 --group-size 8 \
    --temperature 2 --minibatches 4 --lr 3e-4 --kl 0.05 --seed 3 --eval-episodes 0 --backend "$backend" \
    --out "/tmp/gpu-timing-run-$backend-$$" >"$OUT/train-$backend.log" 2>&1
  echo "$backend rc $?, wall $(($(date +%s)-started)) s"
  cp "/tmp/gpu-timing-run-$backend-$$/metrics.jsonl" "$OUT/train-$backend-metrics.jsonl" 2>/dev/null
}
train webgpu & train wasm & wait
grep -v "^Warning\|CheckVkSuccess\|^$" "$OUT/train-webgpu.log" "$OUT/train-wasm.log" | tail -30
echo "== done, $(($(date +%s)-t0)) s"
