# Source this file (bash) to point the tests and tools at NVIDIA's SM 5.x tools:
#   . tools/nvidia-env.sh            (after tools/install-nvidia-tools.sh has run)
# Exports ILC_NVIDIA_TOOLS (install dir), ILC_NVIDIA_BIN (nvdisasm/cuobjdump/ptxas 11.8, the variable
# the Rust tests read), and NVDISASM/CUOBJDUMP for tools/sm5stat.py. Installs nothing and never exits
# the calling shell; warns on stderr when the tools are missing.
export ILC_NVIDIA_TOOLS="${ILC_NVIDIA_TOOLS:-$HOME/.cache/nvidia-sm5-tools}"
export ILC_NVIDIA_BIN="${ILC_NVIDIA_BIN:-$ILC_NVIDIA_TOOLS/usr/bin}"
export NVDISASM="$ILC_NVIDIA_BIN/nvdisasm"
export CUOBJDUMP="$ILC_NVIDIA_BIN/cuobjdump"
if [[ ! -x "$NVDISASM" || ! -x "$CUOBJDUMP" ]]; then
  echo "nvidia-env.sh: NVIDIA tools not found in $ILC_NVIDIA_BIN; run tools/install-nvidia-tools.sh" >&2
fi
