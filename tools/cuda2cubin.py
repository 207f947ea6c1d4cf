#!/usr/bin/env python3
"""Compile CUDA C to an sm_50 cubin with NVIDIA's compilers (the ptxas baseline).

    cuda2cubin.py KERNEL.cu OUT.cubin [-O3] [-arch=sm_52]

CUDA C -> PTX with NVRTC 12.9 (compute_50), PTX -> cubin with ptxas 12.9 (sm_50 unless an
-arch=sm_5x option says otherwise).
Kernels should be `extern "C" __global__` so their names stay plain.
Uses the venv that tools/install-nvidia-tools.sh makes under $ILC_NVIDIA_TOOLS
(default ~/.cache/nvidia-sm5-tools); prints ptxas's own compile time and
resource line on stderr. Writes OUT.cubin.ptx beside the cubin.
"""
import ctypes, glob, os, subprocess, sys

DEST = os.environ.get("ILC_NVIDIA_TOOLS") or os.path.expanduser("~/.cache/nvidia-sm5-tools")
_sites = glob.glob(os.path.join(DEST, "venv/lib/python3*/site-packages/nvidia"))
if not _sites:
    sys.exit(f"cuda2cubin: no NVRTC venv under {DEST}; run tools/install-nvidia-tools.sh")
SITE = _sites[0]


def to_ptx(src):
    nv = ctypes.CDLL(glob.glob(os.path.join(SITE, "cuda_nvrtc/lib/libnvrtc.so*"))[0])
    prog = ctypes.c_void_p()
    if nv.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), b"kernel.cu", 0, None, None):
        sys.exit("nvrtcCreateProgram failed")
    opts = [b"--gpu-architecture=compute_50", b"-default-device"]
    rc = nv.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
    n = ctypes.c_size_t()
    nv.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
    log = ctypes.create_string_buffer(n.value)
    nv.nvrtcGetProgramLog(prog, log)
    if rc:
        sys.exit(log.value.decode())
    nv.nvrtcGetPTXSize(prog, ctypes.byref(n))
    ptx = ctypes.create_string_buffer(n.value)
    nv.nvrtcGetPTX(prog, ptx)
    return ptx.value.decode()


def main():
    src, out = sys.argv[1], sys.argv[2]
    opt = [a for a in sys.argv[3:] if a.startswith("-O")] or ["-O3"]
    arch = ([a for a in sys.argv[3:] if a.startswith("-arch=")] or ["-arch=sm_50"])[-1]
    ptx_path = out + ".ptx"
    with open(ptx_path, "w") as f:
        f.write(to_ptx(open(src).read()))
    ptxas = os.path.join(SITE, "cuda_nvcc/bin/ptxas")
    subprocess.run([ptxas, arch, *opt, "-v", ptx_path, "-o", out], check=True)


if __name__ == "__main__":
    main()
