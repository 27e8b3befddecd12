#!/usr/bin/env bash
# sk-mixture's benchmark (issue 15): bench_mixture (the GPU sweep per step, the z-step's bound, the
# thread-per-point kernel, the CPU reference) and bench_mixture_torch.py (the same sweep in PyTorch) on
# the same GPU, one after the other, then PyTorch's time over samplekit's per K. The build must have
# the benchmarks (-DSAMPLEKIT_BUILD_BENCH=ON, the default) and sk-mixture's CUDA part.
# Logs and CSVs go to ${LOGS:-/tmp/sk-mixture-bench}.
#   usage: bash bench/mixture_gpu.sh [BUILD_DIR] [extra options for both, e.g. --ks 8,64,512 --runs 10]
set -uo pipefail
build=${1:-build}
shift || true
logs=${LOGS:-/tmp/sk-mixture-bench}
mkdir -p "$logs"
here=$(cd "$(dirname "$0")" && pwd)
bench=$build/bench/bench_mixture
if [ ! -x "$bench" ]; then
  echo "mixture_gpu.sh: $bench not found: configure with -DSAMPLEKIT_BUILD_BENCH=ON and build it" >&2
  exit 2
fi
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$logs/gpu.txt"
echo "commit ${SK_COMMIT:-$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)}" | tee -a "$logs/gpu.txt"
status=0
"$bench" --csv "$logs/bench_mixture.csv" "$@" 2>&1 | tee "$logs/bench_mixture.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
# PyTorch takes the shape options only (--n, --d, --ks, --runs); --cpu-points and --zstep-kernel (a row
# of sk-mixture's z-step kernel table to time instead of the table's choice) are the C program's.
torch_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --cpu-points|--zstep-kernel) shift 2 ;;
    *) torch_args+=("$1"); shift ;;
  esac
done
PYTHONUNBUFFERED=1 python3 "$here/bench_mixture_torch.py" --csv "$logs/torch_mixture.csv" \
  --samplekit-csv "$logs/bench_mixture.csv" "${torch_args[@]}" 2>&1 | tee "$logs/torch_mixture.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
exit $status
