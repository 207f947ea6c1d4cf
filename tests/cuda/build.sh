#!/usr/bin/env bash
# Regenerates tests/cuda/cubins/NAME.cubin from every tests/cuda/NAME.cu with NVRTC + ptxas 12.9
# (sm_50, -O3) through tools/cuda2cubin.py. The cubins are committed test data: rerun this only when
# a kernel changes, and commit the result.
#   tests/cuda/build.sh [NAME...]      default: every .cu file
# Env: ILC_NVIDIA_TOOLS = install dir of tools/install-nvidia-tools.sh (default ~/.cache/nvidia-sm5-tools).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
tools="${ILC_NVIDIA_TOOLS:-$HOME/.cache/nvidia-sm5-tools}"
py="$tools/venv/bin/python"
[[ -x "$py" ]] || { echo "build.sh: $py missing; run tools/install-nvidia-tools.sh" >&2; exit 1; }
mkdir -p "$here/cubins"
if [[ $# -gt 0 ]]; then names=("$@"); else
  names=(); for f in "$here"/*.cu; do names+=("$(basename "$f" .cu)"); done
fi
for name in "${names[@]}"; do
  out="$here/cubins/$name.cubin"
  echo "== $name" >&2
  ILC_NVIDIA_TOOLS="$tools" "$py" "$root/tools/cuda2cubin.py" "$here/$name.cu" "$out" -O3 >&2
  rm -f "$out.ptx"
done
