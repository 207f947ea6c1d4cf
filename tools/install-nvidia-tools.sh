#!/usr/bin/env bash
# Installs NVIDIA's own SM 5.x tools, which the tests use as oracles (nothing else of CUDA):
#   * nvdisasm, cuobjdump, ptxas from CUDA 11.8, taken out of Debian's non-free package
#     nvidia-cuda-toolkit (the .deb is downloaded with apt and unpacked with dpkg -x, not
#     installed; CUDA 13 tools no longer read SM50 code, 11.8 is the newest Debian ships);
#   * NVRTC and ptxas 12.9 (CUDA C -> PTX -> sm_50 cubin, used by tools/cuda2cubin.py) from PyPI,
#     into a venv at DEST/venv.
#
#   tools/install-nvidia-tools.sh [DEST]
#     DEST defaults to $ILC_NVIDIA_TOOLS, else $HOME/.cache/nvidia-sm5-tools.
#
# Prints the bin directory (DEST/usr/bin, the value for ILC_NVIDIA_BIN) on stdout; everything
# else goes to stderr. Idempotent: a complete install is detected and left alone, a partial one is
# completed. Needs root only when apt must be configured (non-free component, apt-get update,
# python3-venv); run it as root on a fresh Debian (CI does).
set -euo pipefail

dest="${1:-${ILC_NVIDIA_TOOLS:-${HOME}/.cache/nvidia-sm5-tools}}"
bin="$dest/usr/bin"
venv="$dest/venv"
cuda_deb_pkg=nvidia-cuda-toolkit
pip_pkgs=(nvidia-cuda-nvrtc-cu12==12.9.86 nvidia-cuda-nvcc-cu12==12.9.86)

log() { echo "install-nvidia-tools: $*" >&2; }
die() { log "error: $*"; exit 1; }
is_root() { [[ "$(id -u)" == 0 ]]; }

have_debian_tools() {
  [[ -x "$bin/nvdisasm" && -x "$bin/cuobjdump" && -x "$bin/ptxas" ]]
}
have_venv_tools() {
  [[ -x "$venv/bin/python" ]] &&
    compgen -G "$venv/lib/python3*/site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so*" >/dev/null &&
    compgen -G "$venv/lib/python3*/site-packages/nvidia/cuda_nvcc/bin/ptxas" >/dev/null
}

# Makes sure apt knows a candidate for $1, enabling Debian's non-free component if needed.
apt_candidate() {
  apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: \([0-9].*\)$/\1/p'
}
ensure_apt_candidate() {
  local pkg="$1"
  [[ -n "$(apt_candidate "$pkg")" ]] && return 0
  is_root || die "apt has no candidate for $pkg; rerun as root so the non-free component can be enabled"
  local f
  # deb822 sources (bookworm and later): add contrib/non-free to Debian's own entries.
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -f "$f" ]] || continue
    # (non-free-firmware, in bookworm's default sources, is not non-free.)
    if grep -q 'debian' "$f" && ! grep -qE '^Components:.*[[:space:]]non-free([[:space:]]|$)' "$f"; then
      log "enabling non-free in $f"
      sed -i -E 's/^(Components:.*\bmain\b)(.*)$/\1\2 contrib non-free/' "$f"
    fi
  done
  # one-line sources (older images).
  if [[ -f /etc/apt/sources.list ]] && grep -qE '^deb .*debian.* main' /etc/apt/sources.list &&
    ! grep -qE '^deb .*debian.* non-free( |$)' /etc/apt/sources.list; then
    log "enabling non-free in /etc/apt/sources.list"
    sed -i -E '/^deb .*debian/ s/ main( |$)/ main contrib non-free\1/' /etc/apt/sources.list
  fi
  log "apt-get update"
  apt-get update -qq >&2
  [[ -n "$(apt_candidate "$pkg")" ]] || die "apt still has no candidate for $pkg (is this Debian with non-free available?)"
}

install_debian_tools() {
  command -v apt-get >/dev/null || die "apt-get not found: the 11.8 tools come from Debian's $cuda_deb_pkg"
  ensure_apt_candidate "$cuda_deb_pkg"
  local version tmp
  version="$(apt_candidate "$cuda_deb_pkg")"
  [[ "$version" == 11.8* ]] || log "warning: $cuda_deb_pkg candidate is $version, not 11.8"
  tmp="$(mktemp -d)"
  # apt-get download drops to the _apt user, which must be able to write here.
  chmod 755 "$tmp"
  if is_root && id _apt >/dev/null 2>&1; then chown _apt "$tmp"; fi
  # shellcheck disable=SC2064 # expand now: the trap must remove this very directory.
  trap "rm -rf '$tmp'" EXIT
  log "downloading $cuda_deb_pkg $version"
  (cd "$tmp" && apt-get download -qq "$cuda_deb_pkg" >&2)
  dpkg -x "$tmp"/"$cuda_deb_pkg"_*.deb "$tmp/x"
  mkdir -p "$bin"
  local t
  for t in nvdisasm cuobjdump ptxas; do
    [[ -f "$tmp/x/usr/bin/$t" ]] || die "$t missing from $cuda_deb_pkg $version"
    # copy then rename, so an interrupted run never leaves a truncated executable behind.
    cp "$tmp/x/usr/bin/$t" "$bin/.$t.tmp"
    chmod 755 "$bin/.$t.tmp"
    mv -f "$bin/.$t.tmp" "$bin/$t"
  done
  rm -rf "$tmp"
  trap - EXIT
}

install_venv_tools() {
  if ! command -v python3 >/dev/null; then
    # Minimal Debian images (CI containers) ship without Python.
    is_root || die "python3 not found (install python3 and python3-venv, or rerun as root)"
    log "installing python3 and python3-venv"
    ensure_apt_candidate python3-venv
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv >&2
  fi
  if [[ ! -x "$venv/bin/python" ]]; then
    if ! python3 -m venv "$venv" >&2 2>/dev/null; then
      rm -rf "$venv"
      is_root || die "python3 -m venv failed; install python3-venv (needs root)"
      log "installing python3-venv"
      ensure_apt_candidate python3-venv
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >&2
      python3 -m venv "$venv" >&2
    fi
  fi
  log "pip install ${pip_pkgs[*]}"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "${pip_pkgs[@]}" >&2
}

mkdir -p "$dest"
have_debian_tools || install_debian_tools
have_venv_tools || install_venv_tools
have_debian_tools || die "nvdisasm/cuobjdump/ptxas not found in $bin after installing"
have_venv_tools || die "NVRTC/ptxas 12.9 not found in $venv after installing"
"$bin/nvdisasm" --version | tail -n 2 >&2
echo "$bin"
