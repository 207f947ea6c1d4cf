#!/usr/bin/env python3
"""ilc against NVIDIA's ptxas on the kernel pairs of bench/kernels: code quality, compile speed,
scaling. One command, from a fresh clone:

    python3 tools/bench_report.py [--quick] [--runs N] [--scaling 1000,10000,100000,1000000]
                                  [--profile release|dev-opt] [--no-build] [--only NAME,...]

For every pair NAME.il / NAME.cu it
  * runs the kernel (headline figures): with the launch spec bench/kernels/NAME.toml (format in
    bench/README.md) it generates the inputs deterministically, runs ptxas's cubin and both of
    ilc's cubins on the same data with `spa5-run --stats=json`, and the IL on the reference
    interpreter (il-run); the outputs must agree (floats within a tolerance; a disagreement is
    reported loudly and listed under Failures); it reports executed warp instructions and
    modeled issue cycles (sum over warps, see isa_spa5::emu::stats), per kernel and as geomeans
    over the original pairs, the ported ones (`set = "ported"`) and all;
  * compiles NAME.il with ilc (release build, -O2) twice: with the IL's out-of-range rules (the
    default) and with --assume-in-bounds (what the CUDA code assumes: no bounds checks);
  * compiles NAME.cu with NVRTC + ptxas 12.9 for sm_50 at -O3 (tools/cuda2cubin.py);
  * reads instructions, registers and stall cycles of every cubin with tools/sm5stat.py
    (nvdisasm + cuobjdump) and the local-memory (spill) bytes with cuobjdump -res-usage;
  * times whole-process compiles (ilc on the .il, ptxas on the .ptx NVRTC made: both start from
    a text IR), median of --runs runs each, in the same run, and in-process compile time with
    target/release/ilc-bench (one warm-up, median of 50);
and a scaling series of generated kernels (time and peak memory of the whole ilc process).
Writes bench/report.md (tables, ratios ilc/ptxas, geometric means) and bench/plots/*.svg.
Installs the NVIDIA tools with tools/install-nvidia-tools.sh when they are missing. Exit
status 1 if any step fails.
"""
import argparse
import json
import math
import atexit
import os
import shutil
import random
import re
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import tomllib
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = os.environ.get("ILC_NVIDIA_BIN") or os.path.expanduser("~/.cache/nvidia-sm5-tools/usr/bin")
CUOBJDUMP = os.environ.get("CUOBJDUMP", os.path.join(TOOLS, "cuobjdump"))
METRICS = ("instructions", "registers", "stall_cycles")


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def ptxas_path():
    import glob
    dest = os.environ.get("ILC_NVIDIA_TOOLS") or os.path.expanduser("~/.cache/nvidia-sm5-tools")
    hits = glob.glob(os.path.join(dest, "venv/lib/python3*/site-packages/nvidia/cuda_nvcc/bin/ptxas"))
    if not hits:
        # A fresh clone: install the NVIDIA tools the way the test script does.
        p = run(["bash", os.path.join(ROOT, "tools/install-nvidia-tools.sh"), dest])
        hits = glob.glob(os.path.join(dest, "venv/lib/python3*/site-packages/nvidia/cuda_nvcc/bin/ptxas"))
        if p.returncode or not hits:
            sys.exit("bench_report: could not install the NVIDIA tools:\n" + p.stderr[-2000:])
    return hits[0]


def stats(cubin):
    p = run([sys.executable, os.path.join(ROOT, "tools/sm5stat.py"), cubin])
    if p.returncode:
        raise RuntimeError(p.stderr.strip() or p.stdout.strip())
    rec = json.loads(p.stdout.splitlines()[0])
    res = run([CUOBJDUMP, "-res-usage", cubin]).stdout
    m = re.search(r"STACK:(\d+)", res)
    m2 = re.search(r"LOCAL:(\d+)", res)
    rec["local_bytes"] = max(int(m.group(1)) if m else 0, int(m2.group(1)) if m2 else 0)
    return rec


def process_times(cmds, runs):
    """Wall times of `runs` rounds of `cmds`, one run of each command per round (interleaved,
    so a change in machine load hits every command alike): a list per command. Each process is
    started with posix_spawn and its output sent to /dev/null: the leanest way Python can
    start a process, so the harness adds as little as possible to the times (subprocess.run
    with pipes added ~0.9 ms to each run, which hides most of a 1.5 ms compile). A failing run
    is reported with its stderr."""
    devnull = os.open(os.devnull, os.O_RDWR)
    actions = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
    ts = [[] for _ in cmds]
    try:
        for _ in range(runs):
            for cmd, t_cmd in zip(cmds, ts):
                t = time.perf_counter()
                pid = os.posix_spawn(cmd[0], cmd, os.environ, file_actions=actions)
                _, status = os.waitpid(pid, 0)
                t_cmd.append(time.perf_counter() - t)
                if status:
                    p = run(cmd)
                    raise RuntimeError(" ".join(cmd) + ": " + (p.stderr.strip() or p.stdout.strip())[:300])
    finally:
        os.close(devnull)
    return ts


def timings(cmds, runs):
    """`{"median", "min", "max"}` wall seconds of each of `cmds` over `runs` interleaved runs
    (see `process_times`)."""
    return [{"median": statistics.median(ts), "min": min(ts), "max": max(ts)}
            for ts in process_times(cmds, runs)]


PACK = {"f32": "f", "f64": "d", "i32": "i", "u32": "I", "i16": "h", "u16": "H", "i8": "b", "u8": "B",
        "i64": "q", "u64": "Q"}
DYN_METRICS = ("warp_instructions", "cycles_sum")
TEX_REASON = ("static only: spa5-run binds textures for ilc's cubins (--tex) but cannot create the "
              "texture objects a ptxas cubin takes as parameters")


def gen_buffer(kernel, b):
    """The initial bytes of a spec buffer: deterministic in the kernel and buffer names."""
    elem, n, init = b["elem"], int(b["len"]), b.get("init", "zero")
    fmt = "<" + PACK[elem]
    if init == "zero":
        vals = [0] * n
    elif init == "iota":
        vals = list(range(n))
    elif init == "values":
        vals = list(b["values"])[:n]
        vals += [0] * (n - len(vals))
    elif init == "random":
        rng = random.Random(zlib.crc32(f"{kernel}/{b['name']}".encode()))
        lo, hi = b.get("range", [0, 1])
        if elem.startswith("f"):
            vals = [rng.uniform(lo, hi) for _ in range(n)]
        else:
            vals = [rng.randrange(int(lo), int(hi)) for _ in range(n)]
    else:
        raise RuntimeError(f"buffer {b['name']}: unknown init `{init}`")
    if elem.startswith("f"):
        vals = [float(v) for v in vals]
    return b"".join(struct.pack(fmt, v) for v in vals)


def scalar_bytes(sc):
    vals = sc["value"] if isinstance(sc["value"], list) else [sc["value"]]
    f = PACK[sc["type"]]
    return b"".join(struct.pack("<" + f, float(v) if f in "fd" else int(v)) for v in vals)


def place(blob, at, data):
    if len(blob) < at + len(data):
        blob.extend(bytes(at + len(data) - len(blob)))
    blob[at:at + len(data)] = data


def cb_offset(binding):
    """`cbN[E].C` -> (N, byte offset E*16 + 4*C)."""
    m = re.fullmatch(r"cb(\d+)\[(\d+)\]\.([xyzw])", binding)
    if not m:
        raise RuntimeError(f"IL binding `{binding}` is not cbN[E].x|y|z|w")
    return int(m.group(1)), int(m.group(2)) * 16 + "xyzw".index(m.group(3)) * 4


def agree(elem, a, b):
    """Whether two output buffers agree: integers exactly, floats within a relative 2e-4 (f32;
    the MUFU-based sequences differ by a few ulp between compilers) or 1e-9 (f64). Returns
    (ok, first differing index or None, worst difference)."""
    if len(a) != len(b):
        return False, 0, float("inf")
    if not elem.startswith("f"):
        if a == b:
            return True, None, 0.0
        size = struct.calcsize(PACK[elem])
        first = next(i for i in range(0, len(a), size) if a[i:i + size] != b[i:i + size])
        return False, first // size, float("nan")
    fmt = "<%d%s" % (len(a) // struct.calcsize(PACK[elem]), PACK[elem])
    x, y = struct.unpack(fmt, a), struct.unpack(fmt, b)
    tol = 2e-4 if elem == "f32" else 1e-9
    worst, first = 0.0, None
    for i, (u, v) in enumerate(zip(x, y)):
        if u != u and v != v:
            continue
        d = abs(u - v) / max(1.0, abs(u), abs(v)) if u == u and v == v else float("inf")
        if d > tol and first is None:
            first = i
        worst = max(worst, d)
    return first is None, first, worst


def run_dynamic(name, spec, kdir, work, cubins, bins):
    """Runs one pair on its spec's data; returns {tag: stats} and the output check messages."""
    d = os.path.join(work, name + ".dyn")
    os.makedirs(d, exist_ok=True)
    grid = ",".join(str(v) for v in spec["grid"])
    block = ",".join(str(v) for v in spec["block"])
    data = {b["name"]: gen_buffer(name, b) for b in spec.get("buffer", [])}
    il_args, cu_args, cbs, params = [], [], {}, bytearray()
    for b in spec.get("buffer", []):
        path = os.path.join(d, b["name"] + ".bin")
        open(path, "wb").write(data[b["name"]])
        il = b["il"]
        if il.startswith("uav"):
            il_args += ["--uav", f"{il[3:]}={path}"]
        elif il == "g":
            il_args += ["--g", path]
        elif re.fullmatch(r"cb\d+", il):
            place(cbs.setdefault(int(il[2:]), bytearray()), 0, data[b["name"]])
        else:
            raise RuntimeError(f"buffer {b['name']}: IL binding `{il}` is not uavN, g or cbN")
        kind, _, where = b["cuda"].partition(":")
        if kind == "param":
            cu_args += ["--buf", f"{int(where, 0)}={path}"]
        elif kind == "symbol":
            cu_args += ["--symbol", f"{where}={path}"]
        else:
            raise RuntimeError(f"buffer {b['name']}: CUDA binding `{b['cuda']}`")
    for sc in spec.get("scalar", []):
        raw = scalar_bytes(sc)
        cb, off = cb_offset(sc["il"])
        place(cbs.setdefault(cb, bytearray()), off, raw)
        kind, _, where = sc["cuda"].partition(":")
        if kind == "param":
            place(params, int(where, 0), raw)
        elif kind == "symbol":
            path = os.path.join(d, sc["name"] + ".scalar.bin")
            open(path, "wb").write(raw)
            cu_args += ["--symbol", f"{where}={path}"]
        else:
            raise RuntimeError(f"scalar {sc['name']}: CUDA binding `{sc['cuda']}`")
    for cb, blob in cbs.items():
        path = os.path.join(d, f"cb{cb}.bin")
        blob.extend(bytes(-len(blob) % 16))
        open(path, "wb").write(bytes(blob))
        il_args += ["--cb", f"{cb}={path}"]
    ppath = os.path.join(d, "params.bin")
    open(ppath, "wb").write(bytes(params))
    if "domain" in spec:
        il_args += ["--domain", ",".join(str(v) for v in spec["domain"])]
    runs = {}
    outs = {}
    for tag, cubin in cubins.items():
        out = os.path.join(d, "out." + tag)
        if tag == "ptxas":
            cmd = [bins["spa5-run"], cubin, "--kernel", spec.get("kernel", name), "--block", block,
                   "--grid", grid, "--param", ppath, *cu_args]
        else:
            cmd = [bins["spa5-run"], cubin, "--grid", grid, *il_args]
        p = run(cmd + ["--stats=json", "--out", out])
        if p.returncode not in (0, 3):
            if tag == "ptxas":
                raise RuntimeError(f"spa5-run (ptxas): " + p.stderr.strip()[-400:])
            # One of ilc's cubins failing is reported; the others' figures still count.
            runs[tag] = {"error": p.stderr.strip()[-400:]}
            continue
        runs[tag] = json.loads(p.stdout.strip().splitlines()[-1])
        outs[tag] = out
    out = os.path.join(d, "out.il")
    p = run([bins["il-run"], os.path.join(kdir, name + ".il"), "--grid", grid, *il_args, "--out", out])
    if p.returncode:
        raise RuntimeError("il-run: " + p.stderr.strip()[-400:])
    outs["il-run"] = out
    problems = [f"{tag} fails to run: {r['error']}" for tag, r in runs.items() if "error" in r]
    # spa5-run exits with 3 when its hazard checker objects to a cubin's control words: a wrong
    # schedule of ilc's, or a gap in the emulator's model for ptxas's; either fails the report.
    problems += [f"{tag}: {r['hazards']} control-word hazards (spa5-run)" for tag, r in runs.items()
                 if r.get("hazards")]
    for b in spec.get("buffer", []):
        if not b.get("output"):
            continue
        got = {}
        for tag, o in outs.items():
            fname = b["name"] + ".bin" if tag == "ptxas" else b["il"] + ".bin"
            got[tag] = open(os.path.join(o, fname), "rb").read()
        for tag in got:
            if tag == "ptxas":
                continue
            ok, first, worst = agree(b["elem"], got["ptxas"], got[tag])
            if not ok:
                problems.append(f"{b['name']}: {tag} disagrees with ptxas from element {first} "
                                f"(worst relative difference {worst:.3g})")
    return runs, problems


def dynamic_table(rows):
    """The headline: executed warp instructions and modeled cycles of each kernel run."""
    dyn = [r for r in rows if "dyn" in r]
    dr = lambda r, tag, m: (r["dyn"][tag][m] / r["dyn"]["ptxas"][m]) if m in r["dyn"][tag] and r["dyn"]["ptxas"][m] else float("nan")
    md = ["## Executed code (headline)", "",
          "Each kernel runs on the SPA 5.0 emulator (`spa5-run --stats=json`) with the launch of "
          "`bench/kernels/NAME.toml`, ptxas's cubin and ilc's on the same generated data; outputs are checked "
          "against each other and the IL interpreter. *warp insts*: executed warp instructions; *cycles*: "
          "modeled issue cycles summed over warps (stall counts plus scoreboard waits at the latency model's "
          "typical latencies; no contention between warps). Ratios are ilc / ptxas (lower is better), "
          "`--assume-in-bounds` in parentheses.", "",
          "| kernel | set | ptxas warp insts / cycles | ilc warp insts / cycles | ilc aib warp insts / cycles | "
          "ratio warp insts (aib) | ratio cycles (aib) | outputs |",
          "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "dyn" not in r:
            why = r.get("error", r.get("dynamic_skip", ""))
            md.append(f"| {r['name']} | {r.get('set', '')} | {why[:140]} | | | | | |")
            continue
        f = lambda t: (f"{r['dyn'][t]['warp_instructions']} / {r['dyn'][t]['cycles_sum']}"
                       if "error" not in r["dyn"][t] else "fails")
        md.append(f"| {r['name']} | {r['set']} | {f('ptxas')} | {f('ilc')} | {f('ilc_aib')} | "
                  + " | ".join(f"{dr(r, 'ilc', m):.2f} ({dr(r, 'ilc_aib', m):.2f})" for m in DYN_METRICS)
                  + f" | {('**MISMATCH**' if any('disagrees' in p for p in r['mismatch']) else '**CHECK FAILED**') if 'mismatch' in r else 'agree'} |")
    for label, sel in (("original", lambda r: r["set"] != "ported"), ("ported", lambda r: r["set"] == "ported"),
                       ("all", lambda r: True)):
        sub = [r for r in dyn if sel(r)]
        if not sub:
            continue
        g = {(t, m): geomean([dr(r, t, m) for r in sub]) for t in ("ilc", "ilc_aib") for m in DYN_METRICS}
        md.append(f"| **geomean {label}** ({len(sub)}) | | | | | "
                  + " | ".join(f"**{g[('ilc', m)]:.2f} ({g[('ilc_aib', m)]:.2f})**" for m in DYN_METRICS) + " | |")
    md += ["", "Operand banks (in the cycles above; `isa_spa5::banks`): " + bank_summary(rows) + "."]
    return md + [""]


def bank_summary(rows):
    """Register bank conflicts and reuse cache hits per 1000 executed warp instructions, summed
    over the kernels every cubin ran, for ptxas, ilc and ilc with --assume-in-bounds."""
    tags = ("ptxas", "ilc", "ilc_aib")
    dyn = [r["dyn"] for r in rows if "dyn" in r and all("bank_conflicts" in r["dyn"][t] for t in tags)]
    per_k = lambda t, m: 1000 * sum(d[t][m] for d in dyn) / max(1, sum(d[t]["warp_instructions"] for d in dyn))
    return ", ".join(f"{t} {per_k(t, 'bank_conflicts'):.1f} conflicts / {per_k(t, 'reuse_hits'):.1f} reuse hits"
                     for t in tags) + f" per 1000 warp instructions ({len(dyn)} kernels)"


def update_readme(rows, ok, gm, speed):
    """Rewrites the headline table of README.md (between its bench-headline markers) from this
    run, so the README and bench/report.md always show the same figures."""
    path = os.path.join(ROOT, "README.md")
    text = open(path).read()
    start, end = "<!-- bench-headline:start -->", "<!-- bench-headline:end -->"
    if start not in text or end not in text:
        return
    dyn = [r for r in rows if "dyn" in r]
    sets = lambda sel: [r for r in dyn if sel(r)]
    cell = lambda sub, m: (f"{geomean([r['dyn']['ilc'][m] / r['dyn']['ptxas'][m] for r in sub if m in r['dyn']['ilc']]):.2f} "
                           f"({geomean([r['dyn']['ilc_aib'][m] / r['dyn']['ptxas'][m] for r in sub if m in r['dyn']['ilc_aib']]):.2f})")
    orig, port = sets(lambda r: r["set"] != "ported"), sets(lambda r: r["set"] == "ported")
    lines = [start, "", "| metric | all | original | ported |", "|---|---|---|---|",
             f"| kernels run on the emulator (outputs checked) | {len(dyn)} | {len(orig)} | {len(port)} |"]
    for m, label in (("warp_instructions", "executed warp instructions"), ("cycles_sum", "modeled issue cycles")):
        lines.append(f"| {label} | {cell(dyn, m)} | {cell(orig, m)} | {cell(port, m)} |")
    lines += ["", "Static code (all pairs that compile, second table of the report):", "",
              "| metric | ilc / ptxas |", "|---|---|",
              f"| SASS instructions | {gm[('ilc', 'instructions')]:.2f} ({gm[('ilc_aib', 'instructions')]:.2f}) |",
              f"| registers | {gm[('ilc', 'registers')]:.2f} ({gm[('ilc_aib', 'registers')]:.2f}) |",
              f"| stall cycles (control words) | {gm[('ilc', 'stall_cycles')]:.2f} ({gm[('ilc_aib', 'stall_cycles')]:.2f}) |",
              f"| whole-process compile time | {geomean(speed):.1f}x faster than ptxas on the same kernel's PTX |",
              "", end]
    a, b = text.index(start), text.index(end) + len(end)
    open(path, "w").write(text[:a] + "\n".join(lines) + text[b:])


def dyn_geomean(rows, tag, m):
    dyn = [r for r in rows if "dyn" in r]
    return geomean([r["dyn"][tag][m] / r["dyn"]["ptxas"][m] for r in dyn
                    if m in r["dyn"][tag] and r["dyn"]["ptxas"][m]])


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def gen_kernel(n):
    """An IL kernel of n statements (declarations and `end` included, so n = 1,000,000 is
    the largest kernel `Limits::max_instructions` admits): ALU chains over eight registers,
    a loop every 1000 instructions, loads and stores through raw UAVs."""
    lines = ["il_cs_2_0", "dcl_num_thread_per_group 64", "dcl_raw_uav_id(0)", "dcl_raw_uav_id(1)",
             "dcl_literal l0, 2, 1, 3, 0", "dcl_literal l1, 0x3f800000, 0x40000000, 7, 16",
             "ishl r0.x, vAbsTid.x, l0.x", "uav_raw_load_id(0) r1, r0.x"]
    ops = ["iadd r{d}.x, r{a}.x, r{b}.y", "imul r{d}.y, r{a}.y, l0.z", "ixor r{d}.z, r{a}.z, r{b}.x",
           "add_ieee r{d}.w, r{a}.w, r{b}.w", "mad_ieee r{d}.w, r{a}.w, l1.y, r{b}.w",
           "ishl r{d}.x, r{a}.x, l0.y", "umin r{d}.y, r{a}.y, r{b}.z", "mul_ieee r{d}.z, r{a}.w, r{b}.w"]
    # The statements around the body: seven after the version line, 17 at the end.
    body = max(n - 24, 0)
    count = 0
    k = 0
    while count < body:
        if count % 1000 == 999:
            lines += ["mov r20.x, l0.w", "whileloop", "ige r20.y, r20.x, l1.z", "break_logicalnz r20.y",
                      "iadd r1.x, r1.x, r20.x", "iadd r20.x, r20.x, l0.y", "endloop"]
            count += 7
            continue
        d, a, b = 1 + k % 8, 1 + (k * 3 + 1) % 8, 1 + (k * 5 + 2) % 8
        lines.append(ops[k % len(ops)].format(d=d, a=a, b=b))
        k += 1
        count += 1
    for r in range(1, 9):
        lines.append(f"iadd r0.y, r0.x, l1.w")
        lines.append(f"uav_raw_store_id(1) mem, r0.x, r{r}")
    lines.append("end")
    return "\n".join(lines) + "\n"


def svg_bars(path, title, kernels, series, ylabel):
    """Grouped bar chart of ratios on a log axis: series = [(label, color, [value per kernel])].
    Bars grow from 1.0 (up: ilc above ptxas, down: below); each series' geomean is a dashed
    line in its colour, named in the legend."""
    vals = [v for _, _, vs in series for v in vs if v == v and v > 0]
    lo = min(vals + [0.5]) / 1.15
    hi = max(vals + [2.0]) * 1.15
    w, h, left, bottom, top = 70 + 14 * len(series) * len(kernels) + 8 * len(kernels), 420, 60, 120, 70
    ph = h - bottom - top
    y = lambda v: top + ph - ph * (math.log(v) - math.log(lo)) / (math.log(hi) - math.log(lo))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="11">',
           f'<text x="{left}" y="18" font-size="14">{title}</text>',
           f'<text x="{left}" y="34" fill="#444">{ylabel} (log scale; dashed: geomean of each series)</text>',
           f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="#444"/>']
    # Ticks at 1-2-5 steps inside the range.
    for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        for m in (1, 2, 5):
            t = m * 10.0 ** e
            if lo <= t <= hi:
                style = 'stroke="#444"' if t == 1 else 'stroke="#ddd" stroke-width="0.5"'
                out.append(f'<line x1="{left - 4}" y1="{y(t):.1f}" x2="{w - 10}" y2="{y(t):.1f}" {style}/>')
                out.append(f'<text x="{left - 6}" y="{y(t) + 4:.1f}" text-anchor="end">{t:g}</text>')
    group = 14 * len(series) + 8
    bw = 13
    for i, k in enumerate(kernels):
        x0 = left + 6 + group * i
        for j, (label, color, vs) in enumerate(series):
            v = vs[i]
            if v != v or v <= 0:
                continue
            y1, y0 = sorted((y(v), y(1.0)))
            out.append(f'<rect x="{x0 + j * (bw + 1):.1f}" y="{y1:.1f}" width="{bw:.1f}" '
                       f'height="{max(y0 - y1, 0.5):.1f}" fill="{color}"><title>{k} {label}: {v:.2f}</title></rect>')
        out.append(f'<text transform="translate({x0 + 6},{top + ph + 10}) rotate(60)">{k}</text>')
    for j, (label, color, vs) in enumerate(series):
        g = geomean([v for v in vs if v == v and v > 0])
        if g == g:
            out.append(f'<line x1="{left}" y1="{y(g):.1f}" x2="{w - 10}" y2="{y(g):.1f}" stroke="{color}" '
                       f'stroke-dasharray="6,4"><title>{label} geomean {g:.2f}</title></line>')
        col, row = j % 3, j // 3
        out.append(f'<rect x="{left + 230 * col}" y="{44 + 14 * row}" width="10" height="10" fill="{color}"/>'
                   f'<text x="{left + 230 * col + 14}" y="{53 + 14 * row}">{label} (geomean {g:.2f})</text>')
    out.append("</svg>")
    open(path, "w").write("\n".join(out))


def svg_scaling(path, rows):
    """Log-log plot of seconds against IL instructions, with axes, every measured point and an
    n log n reference through the first one."""
    pts = [(n, t) for n, t, _ in rows if t is not None and t > 0]
    if len(pts) < 2:
        return
    w, h, m = 560, 380, 70
    lx = [math.log10(n) for n, _ in pts]
    ref = [(n, pts[0][1] * (n * math.log(n)) / (pts[0][0] * math.log(pts[0][0]))) for n, _ in pts]
    ly_all = [math.log10(t) for _, t in pts + ref]
    x0, x1 = math.floor(min(lx)), math.ceil(max(lx))
    y0, y1 = math.floor(min(ly_all)), math.ceil(max(ly_all))
    X = lambda v: m + (w - 2 * m) * (v - x0) / max(x1 - x0, 1e-9)
    Y = lambda v: h - m - (h - 2 * m) * (v - y0) / max(y1 - y0, 1e-9)
    poly = lambda ps: " ".join(f"{X(math.log10(n)):.1f},{Y(math.log10(t)):.1f}" for n, t in ps)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="11">',
           '<text x="70" y="20" font-size="14">ilc whole-process compile time vs IL instructions (log-log)</text>',
           f'<line x1="{m}" y1="{h - m}" x2="{w - m}" y2="{h - m}" stroke="#444"/>',
           f'<line x1="{m}" y1="{m}" x2="{m}" y2="{h - m}" stroke="#444"/>',
           f'<text x="{w / 2:.0f}" y="{h - 22}" text-anchor="middle">IL instructions</text>',
           f'<text transform="translate(16,{h / 2:.0f}) rotate(-90)" text-anchor="middle">seconds</text>']
    for e in range(x0, x1 + 1):
        out.append(f'<line x1="{X(e):.1f}" y1="{h - m}" x2="{X(e):.1f}" y2="{h - m + 5}" stroke="#444"/>'
                   f'<text x="{X(e):.1f}" y="{h - m + 18}" text-anchor="middle">{10 ** e:,}</text>')
    for e in range(y0, y1 + 1):
        out.append(f'<line x1="{m - 5}" y1="{Y(e):.1f}" x2="{w - m}" y2="{Y(e):.1f}" stroke="#ddd" stroke-width="0.5"/>'
                   f'<text x="{m - 8}" y="{Y(e) + 4:.1f}" text-anchor="end">{10.0 ** e:g}</text>')
    out += [f'<polyline points="{poly(pts)}" fill="none" stroke="#1f77b4" stroke-width="2"/>',
            f'<polyline points="{poly(ref)}" fill="none" stroke="#999" stroke-dasharray="5,4"/>',
            f'<text x="{m + 10}" y="{m - 20}" fill="#1f77b4">ilc -O2</text>',
            f'<text x="{m + 80}" y="{m - 20}" fill="#999">n log n (from the first point)</text>']
    for n, t in pts:
        out.append(f'<circle cx="{X(math.log10(n)):.1f}" cy="{Y(math.log10(t)):.1f}" r="3" fill="#1f77b4">'
                   f'<title>{n:,} instructions: {t:.3g} s</title></circle>')
        out.append(f'<text x="{X(math.log10(n)) + 5:.1f}" y="{Y(math.log10(t)) - 6:.1f}">{t:.3g} s</text>')
    out.append("</svg>")
    open(path, "w").write("\n".join(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="whole-process timing runs per compiler")
    ap.add_argument("--scaling", default="1000,10000,100000,1000000")
    ap.add_argument("--quick", action="store_true", help="3 timing runs, scaling up to 100k")
    ap.add_argument("--no-build", action="store_true", help="use the binaries already built")
    ap.add_argument("--profile", default="release",
                    help="cargo profile of the tools (dev-opt builds much faster during development)")
    ap.add_argument("--only", default="", help="comma-separated pair names (default: all)")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench"))
    ap.add_argument("--ilc-flags", default="", help="extra ilc flags for both ilc runs (e.g. --launch-1d), for experiments; never the committed report")
    args = ap.parse_args()
    ilc_flags = args.ilc_flags.split()
    if args.quick:
        args.runs, args.scaling = 3, "1000,10000,100000"
    if not args.no_build:
        p = run(["cargo", "build", "--profile", args.profile, "-p", "ilc-tools"], cwd=ROOT)
        if p.returncode:
            sys.exit(p.stderr)
    bindir = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), args.profile)
    ilc = os.path.join(bindir, "ilc")
    bins = {t: os.path.join(bindir, t) for t in ("spa5-run", "il-run")}
    ilc_bench = ilc + "-bench"
    ptxas = ptxas_path()
    kdir = os.path.join(ROOT, "bench/kernels")
    names = sorted(f[:-3] for f in os.listdir(kdir) if f.endswith(".il") and os.path.exists(os.path.join(kdir, f[:-3] + ".cu")))
    if args.only:
        names = [n for n in names if n in args.only.split(",")]
    work = tempfile.mkdtemp(prefix="ilc-bench-")
    # The scaling inputs alone are hundreds of megabytes: never leave them behind.
    atexit.register(shutil.rmtree, work, ignore_errors=True)
    plots = os.path.join(args.out, "plots")
    os.makedirs(plots, exist_ok=True)
    rows, failures = [], []
    started = time.perf_counter()
    print(f"bench_report: {len(names)} kernels, {args.runs} timing runs each", file=sys.stderr)
    for idx, n in enumerate(names, 1):
        k_start = time.perf_counter()
        il, cu = os.path.join(kdir, n + ".il"), os.path.join(kdir, n + ".cu")
        row = {"name": n}
        try:
            ref = os.path.join(work, n + ".ptxas.cubin")
            p = run([sys.executable, os.path.join(ROOT, "tools/cuda2cubin.py"), cu, ref])
            if p.returncode:
                raise RuntimeError("cuda2cubin: " + p.stderr.strip()[-300:])
            row["ptxas"] = stats(ref)
            for tag, extra in (("ilc", list(ilc_flags)), ("ilc_aib", ["--assume-in-bounds", *ilc_flags])):
                out = os.path.join(work, f"{n}.{tag}.cubin")
                p = run([ilc, il, "--target", "spa5", "--emit", "cubin", "--name", n, "-o", out, *extra])
                if p.returncode:
                    raise RuntimeError("ilc: " + p.stderr.strip()[:300])
                row[tag] = stats(out)
            spec_path = os.path.join(kdir, n + ".toml")
            if os.path.exists(spec_path):
                spec = tomllib.load(open(spec_path, "rb"))
                row["set"] = spec.get("set", "original")
                recorded = spec.get("ptxas_registers")
                if recorded != row["ptxas"].get("registers"):
                    failures.append(f"{n}: bench/kernels/{n}.toml records ptxas_registers = {recorded}, "
                                    f"ptxas's cubin has {row['ptxas'].get('registers')}")
                if any(b["il"].startswith("tex") for b in spec.get("buffer", [])):
                    row["dynamic_skip"] = TEX_REASON
                else:
                    cubins = {"ptxas": ref, "ilc": os.path.join(work, f"{n}.ilc.cubin"),
                              "ilc_aib": os.path.join(work, f"{n}.ilc_aib.cubin")}
                    row["dyn"], problems = run_dynamic(n, spec, kdir, work, cubins, bins)
                    for pr in problems:
                        # Output disagreements, runs that fail, control-word hazards.
                        print(f"bench_report: CHECK FAILED {n}: {pr}", file=sys.stderr)
                        failures.append(f"{n}: check failed: {pr}")
                    if problems:
                        row["mismatch"] = problems
            else:
                row["set"] = "original"
                row["dynamic_skip"] = "no launch spec bench/kernels/" + n + ".toml"
            # Each compiler writes a real file (replacing its output is part of a compile), the
            # process floor runs interleaved with both.
            row["time_ilc"], row["time_ptxas"], row["time_floor"] = timings(
                [[ilc, il, "--target", "spa5", "--emit", "cubin", "-o", os.path.join(work, "t.ilc.cubin")],
                 [ptxas, "-arch=sm_50", "-O3", ref + ".ptx", "-o", os.path.join(work, "t.cubin")],
                 [ilc, "--version"]], args.runs)
            row["t_ilc"], row["t_ptxas"] = row["time_ilc"]["median"], row["time_ptxas"]["median"]
        except Exception as e:  # a failing pair is reported, the others still run
            failures.append(f"{n}: {e}")
            row["error"] = str(e)
        rows.append(row)
        # `[3/40 12.5s]`: this kernel's position and time, the time since the start.
        n = f"[{idx}/{len(names)} {time.perf_counter() - k_start:.1f}s, {time.perf_counter() - started:.0f}s total] {n}"
        if "error" in row:
            print(f"bench_report: {n}: FAILS: {row['error'][:200]}", file=sys.stderr)
        elif "dyn" in row:
            dy = row["dyn"]
            fig = lambda t, m: dy[t].get(m, "fails")
            print(f"bench_report: {n}: warp insts ptxas {fig('ptxas', 'warp_instructions')} ilc "
                  f"{fig('ilc', 'warp_instructions')} aib {fig('ilc_aib', 'warp_instructions')}; cycles ptxas "
                  f"{fig('ptxas', 'cycles_sum')} ilc {fig('ilc', 'cycles_sum')} aib {fig('ilc_aib', 'cycles_sum')}"
                  + (" MISMATCH" if "mismatch" in row else ""), file=sys.stderr)
        else:
            print(f"bench_report: {n}: static only ({row.get('dynamic_skip')})", file=sys.stderr)
    inproc = {}
    p = run([ilc_bench, "--runs", "50", *[os.path.join(kdir, n + ".il") for n in names]])
    for line in p.stdout.splitlines():
        r = json.loads(line)
        inproc[r["name"]] = r
    scaling = []
    for size in [int(s) for s in args.scaling.split(",") if s]:
        src = os.path.join(work, f"gen{size}.il")
        open(src, "w").write(gen_kernel(size))
        # Wall time measured here (`/usr/bin/time -f %e` has 10 ms steps: a small kernel read
        # 0.00 s and fell off the plot); /usr/bin/time still gives the peak RSS.
        t0 = time.perf_counter()
        p = run(["/usr/bin/time", "-f", "%M", ilc, src, "--target", "spa5", "--emit", "cubin", "-o", os.devnull])
        secs = time.perf_counter() - t0
        if p.returncode:
            scaling.append((size, None, None))
            failures.append(f"scaling {size}: " + p.stderr.strip()[-300:])
            print(f"bench_report: scaling {size:,} IL instructions: FAILS", file=sys.stderr)
            continue
        kb = p.stderr.strip().splitlines()[-1].split()[-1]
        scaling.append((size, secs, int(kb)))
        print(f"bench_report: scaling {size:,} IL instructions: {secs:.3f} s, {int(kb) / 1024:.0f} MiB", file=sys.stderr)

    ok = [r for r in rows if "error" not in r]
    ratio = lambda r, tag, m: (r[tag][m] / r["ptxas"][m]) if r["ptxas"][m] else float("nan")
    md = ["# ilc vs ptxas: benchmark report", "",
          f"Generated by `python3 tools/bench_report.py` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}. "
          "ptxas = NVRTC + ptxas 12.9, `-arch=sm_50 -O3`, on the CUDA twin of each IL kernel; ilc = "
          f"`{args.profile}` build, -O2 (code is the same in every profile; compile times are the "
          "release build's only when the profile is release). Static figures from nvdisasm/cuobjdump (`tools/sm5stat.py`): instructions (no NOPs), "
          "registers, stall cycles (sum of the control-word stall counts: a static proxy, not a run time). "
          "*ilc* keeps AMD IL's out-of-range rules (every UAV access bounds-checked: loads read 0, stores are "
          "dropped); *ilc aib* is `--assume-in-bounds`, the contract the CUDA code has.", ""]
    md += dynamic_table(rows)
    md += ["## Static code", "",
          "| kernel | ptxas insts / regs / stalls | ilc insts / regs / stalls | ilc aib insts / regs / stalls | "
          "ratio insts (aib) | ratio regs (aib) | ratio stalls (aib) | local bytes ilc/ptxas |",
          "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            md.append(f"| {r['name']} | fails: {r['error'][:120]} | | | | | | |")
            continue
        f = lambda s: f"{s['instructions']} / {s['registers']} / {s['stall_cycles']}"
        md.append(f"| {r['name']} | {f(r['ptxas'])} | {f(r['ilc'])} | {f(r['ilc_aib'])} | "
                  + " | ".join(f"{ratio(r, 'ilc', m):.2f} ({ratio(r, 'ilc_aib', m):.2f})" for m in METRICS)
                  + f" | {r['ilc']['local_bytes']}/{r['ptxas']['local_bytes']} |")
    gm = {(tag, m): geomean([ratio(r, tag, m) for r in ok]) for tag in ("ilc", "ilc_aib") for m in METRICS}
    md.append(f"| **geomean** | | | | **{gm[('ilc', 'instructions')]:.2f} ({gm[('ilc_aib', 'instructions')]:.2f})** | "
              f"**{gm[('ilc', 'registers')]:.2f} ({gm[('ilc_aib', 'registers')]:.2f})** | "
              f"**{gm[('ilc', 'stall_cycles')]:.2f} ({gm[('ilc_aib', 'stall_cycles')]:.2f})** | |")
    md += ["", "Targets: geomean <= 1.0 in instructions and stall cycles, registers <= ptxas's.", "",
           "![ratios](plots/ratios.svg)", "", "## Compile speed", "",
           f"Whole process: median (min-max) of {args.runs} runs, external timing (posix_spawn to exit), "
           "ilc on the `.il` to a cubin file vs ptxas on the `.ptx`, with `ilc --version` (the cost "
           "of starting the process at all) run in between as the floor (same run, same machine). "
           "In-process: `ilc-bench`, warm = the median of 50 compilations after one warm-up; "
           "first = the warm-up, a new `Compiler`'s first compile of the kernel (for the first "
           "kernel, the process's first compile).", "",
           "| kernel | ilc process ms | ptxas process ms | floor ms | ilc / floor (of minima) | speedup | "
           "ilc warm us | ilc first us | IL instructions |",
           "|---|---|---|---|---|---|---|---|---|"]
    speed, over_floor = [], []
    mm = lambda t: f"{1e3 * t['median']:.2f} ({1e3 * t['min']:.2f}-{1e3 * t['max']:.2f})"
    for r in ok:
        ip = inproc.get(r["name"], {})
        s = r["t_ptxas"] / r["t_ilc"]
        speed.append(s)
        fl = r["time_floor"]["median"]
        over_floor.append(r["t_ilc"] / fl)
        md.append(f"| {r['name']} | {mm(r['time_ilc'])} | {mm(r['time_ptxas'])} | {mm(r['time_floor'])} | "
                  f"{r['t_ilc'] / fl:.2f} ({r['time_ilc']['min'] / r['time_floor']['min']:.2f}) | {s:.1f}x | {ip.get('median_us', float('nan')):.0f} | "
                  f"{ip.get('first_us', float('nan')):.0f} | {ip.get('il_instructions', '')} |")
    il_total = sum(inproc[r["name"]].get("il_instructions", 0) for r in ok if r["name"] in inproc)
    us_total = sum(inproc[r["name"]].get("median_us", 0) for r in ok if r["name"] in inproc)
    md += [f"| **geomean** | | | | **{geomean(over_floor):.2f}** | **{geomean(speed):.1f}x** | | | |", "",
           "Targets: whole process <= 1.3x the floor; warm <= 50 us for saxpy-sized and "
           "<= 100 us for ~35-instruction kernels; first compile <= 2x warm.", "",
           f"In-process throughput over the suite: {il_total / max(us_total, 1e-9) * 1e6:,.0f} IL instructions/s "
           "(small kernels: fixed costs dominate; see the scaling series).", "",
           "## Scaling", "", "Generated kernels (ALU chains, a loop per 1000 instructions), whole ilc process "
           "(`/usr/bin/time`).", "", "| IL instructions | seconds | peak RSS MiB | instructions/s |", "|---|---|---|---|"]
    for size, secs, kb in scaling:
        if secs is None:
            md.append(f"| {size:,} | fails | | |")
        else:
            md.append(f"| {size:,} | {secs:.2f} | {kb / 1024:.0f} | {size / max(secs, 1e-3):,.0f} |")
    good = [(n, t) for n, t, _ in scaling if t is not None]
    if len(good) >= 2:
        (n0, t0), (n1, t1) = good[-2], good[-1]
        exp = math.log(max(t1, 1e-3) / max(t0, 1e-3)) / math.log(n1 / n0)
        md += ["", f"Growth between the two largest sizes: time ~ n^{exp:.2f} "
               f"({'within' if exp <= 1.15 else 'above'} n log n, whose local exponent is about 1.1)."]
    md += ["", "![scaling](plots/scaling.svg)", ""]
    if failures:
        md += ["## Failures", ""] + [f"- {f}" for f in failures] + [""]
    open(os.path.join(args.out, "report.md"), "w").write("\n".join(md))
    svg_bars(os.path.join(plots, "ratios.svg"), "ilc / ptxas, default mode and --assume-in-bounds (aib)",
             [r["name"] for r in ok],
             [(f"{m} {'aib' if tag == 'ilc_aib' else 'default'}", color, [ratio(r, tag, key) for r in ok])
              for m, key, colors in (("instructions", "instructions", ("#1f77b4", "#9ec5e8")),
                                     ("registers", "registers", ("#ff7f0e", "#ffc08a")),
                                     ("stall cycles", "stall_cycles", ("#2ca02c", "#98df8a")))
              for tag, color in (("ilc", colors[0]), ("ilc_aib", colors[1]))],
             "ratio, 1.0 = ptxas")
    svg_scaling(os.path.join(plots, "scaling.svg"), scaling)
    # Only a full run into the committed report updates the README's figures (a partial run
    # or one written elsewhere would put figures in the README that no report shows).
    if not args.only and not ilc_flags and os.path.abspath(args.out) == os.path.abspath(os.path.join(ROOT, "bench")):
        update_readme(rows, ok, gm, speed)
    json.dump({"rows": rows, "scaling": scaling, "inprocess": inproc}, open(os.path.join(args.out, "results.json"), "w"), indent=1)
    print(f"bench_report: dynamic geomean ilc/ptxas warp instructions {dyn_geomean(rows, 'ilc', 'warp_instructions'):.2f} "
          f"(aib {dyn_geomean(rows, 'ilc_aib', 'warp_instructions'):.2f}), cycles {dyn_geomean(rows, 'ilc', 'cycles_sum'):.2f} "
          f"(aib {dyn_geomean(rows, 'ilc_aib', 'cycles_sum'):.2f}); {bank_summary(rows)}")
    print(f"bench_report: {len(ok)}/{len(rows)} pairs; static geomean ilc/ptxas instructions {gm[('ilc', 'instructions')]:.2f} "
          f"(aib {gm[('ilc_aib', 'instructions')]:.2f}), registers {gm[('ilc', 'registers')]:.2f} "
          f"(aib {gm[('ilc_aib', 'registers')]:.2f}), stalls {gm[('ilc', 'stall_cycles')]:.2f} "
          f"(aib {gm[('ilc_aib', 'stall_cycles')]:.2f}); compile speedup {geomean(speed):.1f}x; wrote {args.out}/report.md")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
