#!/usr/bin/env bash
# Regenerates tests/cuda/cubins/NAME.cubin from every tests/cuda/NAME.cu with NVRTC + ptxas 12.9
# (sm_50, -O3) through tools/cuda2cubin.py. The cubins are committed test data: rerun this only when
# a kernel changes, and commit the result.
#   tests/cuda/build.sh [--check] [NAME...]      default: every .cu file
# --check compiles into a temporary directory instead and fails if any committed cubin differs
# from what its .cu compiles to (ptxas is deterministic), i.e. if a kernel was edited without
# rebuilding; tools/test.sh runs it.
# Env: ILC_NVIDIA_TOOLS = install dir of tools/install-nvidia-tools.sh (default ~/.cache/nvidia-sm5-tools).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
tools="${ILC_NVIDIA_TOOLS:-$HOME/.cache/nvidia-sm5-tools}"
py="$tools/venv/bin/python"
[[ -x "$py" ]] || { echo "build.sh: $py missing; run tools/install-nvidia-tools.sh" >&2; exit 1; }
check=0
if [[ "${1:-}" == --check ]]; then check=1; shift; fi
outdir="$here/cubins"
if [[ $check == 1 ]]; then
  outdir="$(mktemp -d)"
  trap 'rm -rf "$outdir"' EXIT
fi
mkdir -p "$outdir"
if [[ $# -gt 0 ]]; then names=("$@"); else
  names=(); for f in "$here"/*.cu; do names+=("$(basename "$f" .cu)"); done
fi
# A few kernels also for sm_52 and sm_53 (cubins-arch/NAME.sm_5x.cubin), for the e_flags and
# the code ptxas schedules differently there.
arch_names=(iadd reduce_shared int64_divrem dround)
stale=()
for name in "${names[@]}"; do
  for arch in sm_52 sm_53; do
    [[ " ${arch_names[*]} " == *" $name "* ]] || continue
    if [[ $check == 1 ]]; then
      mkdir -p "$outdir/arch"
      aout="$outdir/arch/$name.$arch.cubin"
    else
      mkdir -p "$here/cubins-arch"
      aout="$here/cubins-arch/$name.$arch.cubin"
    fi
    ILC_NVIDIA_TOOLS="$tools" "$py" "$root/tools/cuda2cubin.py" "$here/$name.cu" "$aout" -O3 "-arch=$arch" >/dev/null 2>&1 ||
      { echo "build.sh: $name.cu does not compile for $arch" >&2; exit 1; }
    rm -f "$aout.ptx"
    if [[ $check == 1 ]]; then
      cmp -s "$aout" "$here/cubins-arch/$name.$arch.cubin" || stale+=("$name($arch)")
    fi
  done
  out="$outdir/$name.cubin"
  if [[ $check == 1 ]]; then
    ILC_NVIDIA_TOOLS="$tools" "$py" "$root/tools/cuda2cubin.py" "$here/$name.cu" "$out" -O3 >/dev/null 2>&1 ||
      { echo "build.sh: $name.cu does not compile" >&2; exit 1; }
    cmp -s "$out" "$here/cubins/$name.cubin" || stale+=("$name")
  else
    echo "== $name" >&2
    ILC_NVIDIA_TOOLS="$tools" "$py" "$root/tools/cuda2cubin.py" "$here/$name.cu" "$out" -O3 >&2
  fi
  rm -f "$out.ptx"
done
# Multi-kernel modules: multi/NAME.cu -> cubins-multi/NAME.cubin (all of them, every run).
for src in "$here"/multi/*.cu; do
  name="$(basename "$src" .cu)"
  if [[ $check == 1 ]]; then
    mkdir -p "$outdir/multi"
    mout="$outdir/multi/$name.cubin"
  else
    mkdir -p "$here/cubins-multi"
    mout="$here/cubins-multi/$name.cubin"
  fi
  ILC_NVIDIA_TOOLS="$tools" "$py" "$root/tools/cuda2cubin.py" "$src" "$mout" -O3 >/dev/null 2>&1 ||
    { echo "build.sh: multi/$name.cu does not compile" >&2; exit 1; }
  rm -f "$mout.ptx"
  if [[ $check == 1 ]]; then
    cmp -s "$mout" "$here/cubins-multi/$name.cubin" || stale+=("multi/$name")
  fi
done
if [[ ${#stale[@]} -gt 0 ]]; then
  echo "build.sh: committed cubins differ from their sources: ${stale[*]} (run tests/cuda/build.sh ${stale[*]})" >&2
  exit 1
fi
if [[ $check == 1 ]]; then echo "build.sh: all ${#names[@]} cubins match their sources" >&2; fi
