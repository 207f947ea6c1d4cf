#!/usr/bin/env bash
# The project's full test command (what CI runs through .ci/run):
#   1. installs NVIDIA's SM 5.x oracle tools (tools/install-nvidia-tools.sh; idempotent) and exports
#      ILC_NVIDIA_BIN so the tests find nvdisasm/cuobjdump/ptxas;
#   2. tests/cuda/build.sh --check, tests/cuda/timing/gen.py --check: the committed corpus
#      cubins are what their .cu files compile to
#   3. cargo fmt --all -- --check
#   4. cargo clippy --workspace --all-targets -- -D warnings
#   5. cargo build -p ilc-capi -p ilc-calrt: the C static libraries the C tests link
#   6. cargo test --workspace
# Env: ILC_NVIDIA_TOOLS (install dir, default ~/.cache/nvidia-sm5-tools), CARGO_TARGET_DIR (as usual),
# ILC_SKIP_INSTALL=1 to use the tools already at ILC_NVIDIA_BIN without running the installer.
# In CI (CI=true) the tests treat a missing NVIDIA tool as a failure, not a skip.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

step() { printf '\n==== %s\n' "$*" >&2; }

if [[ "${ILC_SKIP_INSTALL:-0}" != 1 ]]; then
  step "NVIDIA tools"
  ILC_NVIDIA_BIN="$(bash tools/install-nvidia-tools.sh "${ILC_NVIDIA_TOOLS:-$HOME/.cache/nvidia-sm5-tools}")"
  export ILC_NVIDIA_BIN
fi
# shellcheck source=tools/nvidia-env.sh
. tools/nvidia-env.sh
echo "ILC_NVIDIA_BIN=$ILC_NVIDIA_BIN" >&2

step "CUDA corpus up to date (tests/cuda/build.sh --check)"
bash tests/cuda/build.sh --check
python3 tests/cuda/timing/gen.py --check

step "cargo fmt --all -- --check"
cargo fmt --all -- --check

step "cargo clippy --workspace --all-targets -- -D warnings"
cargo clippy --workspace --all-targets -- -D warnings

step "cargo build -p ilc-capi -p ilc-calrt (libilc_capi.a, libaticalrt.a for the C tests)"
cargo build -p ilc-capi -p ilc-calrt

step "cargo test --workspace"
cargo test --workspace

step "all tests passed"
