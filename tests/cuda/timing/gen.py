#!/usr/bin/env python3
"""Generates the timing corpus: families of small CUDA kernels over the features ptxas
schedules differently (fp64, MUFU, conversions, shared and global memory, atomics, shuffles,
predicates, calls, integer units, long unrolled loops), each in several sizes and dependency
shapes, so that the control words ptxas writes cover every producer/consumer pair of the
timing model (isa-spa5/src/latency.rs). The emulator runs them all with its hazard checker
on (`tests/tests/emu_timing.rs`): NVIDIA's schedules run on real hardware, so any hazard it
reports is a fault of our timing model.

    tests/cuda/timing/gen.py                 # writes NAME.toml (the launch descriptions)
    tests/cuda/timing/gen.py --sources DIR   # also writes the CUDA sources, DIR/NAME.cu
    tests/cuda/timing/gen.py --build         # also compiles cubins/NAME.cubin (ptxas 12.9, sm_50, -O3)
    tests/cuda/timing/gen.py --check         # compiles into a temporary directory, fails on a stale cubin

The CUDA sources are not committed: this file is their only copy, and `--build`/`--check`
write them to a temporary directory before compiling.

Every kernel has the same signature and launch (2 blocks of 128 threads, n = 250); the
launch descriptions have the format of tests/cuda/README.md. Outputs are not compared with
a reference (the main corpus does that); the test checks launches succeed hazard-free.
"""
import os, subprocess, sys, tempfile, filecmp

D = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(D, '..', '..', '..'))
N = 250
SIG = ('float *fo, int *io, double *dout, const float *fa, const int *ia, const double *da, int n')
HEAD = '    int i = blockIdx.x * blockDim.x + threadIdx.x;\n'
K = {}  # name -> (comment, body, prelude)


def kern(name, comment, body, prelude=''):
    assert name not in K, name
    K[name] = (comment, body, prelude)


GUARD = HEAD + '    if (i >= n) return;\n    float x = fa[i]; int a = ia[i]; double d = da[i];\n'

# fp64: dependent chains and parallel chains of DADD/DMUL/DFMA/DMNMX/DSETP.
for k in (1, 2, 3, 5, 8):
    for par in (1, 2, 4):
        b = GUARD
        for p in range(par):
            b += f'    double c{p} = d + {p}.5;\n'
        for j in range(k):
            for p in range(par):
                op = [f'c{p} = c{p} * d + {j}.25', f'c{p} = c{p} + d * c{p}', f'c{p} = fmin(c{p}, d) * 1.5',
                      f'c{p} = (c{p} > d ? c{p} : -c{p}) + 0.5'][(j + p) % 4]
                b += f'    {op};\n'
        for p in range(par):
            b += f'    dout[8 * i + {p}] = c{p};\n'
        kern(f'dchain_{k}_{par}', f'fp64 chains: {par} parallel, {k} steps', b)

# MUFU: fast transcendentals in chains, mixed with ALU consumers.
FN = ['__sinf', '__cosf', '__expf', '__log2f', 'rsqrtf', '__fdividef(1.0f, {})', 'sqrtf', '__exp10f']
for k in (1, 2, 4):
    for f0 in range(len(FN)):
        b = GUARD + '    float y = x;\n'
        for j in range(k):
            f = FN[(f0 + j) % len(FN)]
            call = f.format('y') if '{}' in f else f'{f}(y)'
            b += f'    y = {call} + {j + 1}.0f;\n'
        b += '    fo[8 * i] = y; io[8 * i] = __float_as_int(y) ^ a;\n'
        kern(f'mufu_{k}_{f0}', f'MUFU chain of {k} starting at {FN[f0]}', b)

# Conversions: F2I/I2F/F2F/I2I of every width feeding each other and the ALU.
CONV = [
    'a = (int)y; y = (float)a * 0.5f;',
    'd2 = (double)y; y = (float)(d2 * 3.0);',
    'a = __float2int_rn(y) + a; y = __int2float_rz(a);',
    'l = (long long)(y * 1e6f); y = (float)l;',
    'u = (unsigned)fabsf(y); y = (float)(u >> 1);',
    'a = (short)a + (signed char)(a >> 8); y += (float)a;',
    'l = __double2ll_rn(d2 + y); d2 = (double)l * 0.25;',
    'y = __half2float_via(y);',
]
HALF = ('__device__ float __half2float_via(float f) { unsigned short h; '
        'asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); float r; '
        'asm("cvt.f32.f16 %0, %1;" : "=f"(r) : "h"(h)); return r; }\n')
for k in (1, 2, 3, 6):
    for c0 in range(len(CONV)):
        b = GUARD + '    float y = x; double d2 = d; long long l = a; unsigned u = a;\n'
        for j in range(k):
            b += '    ' + CONV[(c0 + j) % len(CONV)] + '\n'
        b += '    fo[8 * i] = y; io[8 * i] = a ^ (int)u ^ (int)l; dout[8 * i] = d2;\n'
        kern(f'conv_{k}_{c0}', f'conversion chain of {k} starting at {c0}', b, HALF)

# Shared memory: stores, barriers, loads at strides, dependent arithmetic, 64-bit and vectors.
for k in (1, 2, 4, 8):
    for kind in ('int', 'float', 'double', 'int2'):
        b = HEAD + f'    __shared__ {kind} s[256];\n    int t = threadIdx.x; int j = i < n ? i : n - 1;\n'
        init = {'int': 'ia[j]', 'float': 'fa[j]', 'double': 'da[j]', 'int2': 'make_int2(ia[j], ia[j] + 1)'}[kind]
        b += f'    s[t] = {init}; s[t + 128] = s[t];\n    __syncthreads();\n'
        acc = {'int': 'int', 'float': 'float', 'double': 'double', 'int2': 'int'}[kind]
        b += f'    {acc} r = 0;\n'
        for q in range(k):
            el = f's[(t + {q * 7 + 1}) & 255]'
            if kind == 'int2':
                el = f'(s[(t + {q * 7 + 1}) & 255].x + s[(t * {q + 1}) & 255].y)'
            b += f'    r = r * 3 + {el};\n'
            if q % 3 == 2:
                b += f'    __syncthreads();\n    s[t] = s[t] + {init.replace("make_int2(ia[j], ia[j] + 1)", "make_int2(1, 2)") if kind != "int2" else "make_int2(r, 1)"};\n    __syncthreads();\n'.replace('s[t] + make_int2(r, 1)', 'make_int2(r, 1)')
        out = {'int': 'io', 'float': 'fo', 'double': 'dout', 'int2': 'io'}[kind]
        b += f'    if (i < n) {out}[8 * i] = r;\n'
        kern(f'smem_{kind}_{k}', f'shared memory ({kind}), {k} dependent loads', b)

# Global memory: dependent and independent loads, __ldg, vector loads, stores between.
for k in (1, 2, 4, 8, 12):
    for style in ('dep', 'par', 'ldg', 'vec'):
        b = GUARD + '    int r = a; float f = x;\n'
        for q in range(k):
            if style == 'dep':
                b += f'    r = ia[(r & 127) + {q}] + r;\n'
            elif style == 'par':
                b += f'    r += ia[(i + {q * 5}) % n] * {q + 1}; f += fa[(i + {q * 3}) % n];\n'
            elif style == 'ldg':
                b += f'    r ^= __ldg(&ia[(i * {q + 1}) % n]); f = f * __ldg(&fa[(r & 127)]);\n'
            else:
                b += (f'    {{ float4 v = reinterpret_cast<const float4 *>(fa)[(i + {q}) % 62]; '
                      f'f += v.x * v.y - v.z + v.w; io[8 * i + {q % 7 + 1}] = __float_as_int(v.z); }}\n')
        b += '    io[8 * i] = r; fo[8 * i] = f;\n'
        kern(f'gmem_{style}_{k}', f'global loads ({style}), {k}', b)

# Atomics: global and shared, 32/64-bit, results used and unused.
ATOM = [
    'r += atomicAdd(&io[(a & 63) * 8 + 1], 1);',
    'atomicMax(&io[(a & 15) * 8 + 2], a);',
    'r ^= atomicCAS(&io[8 * i + 3], 0, a);',
    'r += atomicExch(&io[8 * i + 4], r);',
    'atomicAdd(&fo[(a & 31) * 8 + 1], x);',
    'r += (int)atomicAdd((unsigned long long *)&dout[(a & 7) * 8 + 2], 3ull);',
    'r += atomicAdd(&sh[t & 31], a);',
    'r |= atomicOr(&sh[(t + 5) & 31], r);',
    'r += atomicMin(&sh[32 + (t & 7)], a); r += sh[t & 63];',
]
for k in (1, 2, 3, 5):
    for a0 in range(len(ATOM)):
        b = HEAD + '    __shared__ int sh[64];\n    int t = threadIdx.x;\n    if (t < 64) sh[t] = t;\n    __syncthreads();\n'
        b += '    if (i >= n) return;\n    float x = fa[i]; int a = ia[i]; int r = 0;\n'
        for j in range(k):
            b += '    ' + ATOM[(a0 + j) % len(ATOM)] + '\n'
        b += '    io[8 * i + 5] = r;\n'
        kern(f'atomic_{k}_{a0}', f'atomics: {k} starting at {a0}', b)

# Shuffles: xor/up/down/idx on int, float and double, with dependent arithmetic.
SH = ['r += __shfl_xor_sync(0xffffffffu, r, {m});', 'f += __shfl_down_sync(0xffffffffu, f, {m});',
      'r ^= __shfl_up_sync(0xffffffffu, r * 3, {m});', 'f = f * __shfl_sync(0xffffffffu, f, (t + {m}) & 31);',
      'g += __shfl_xor_sync(0xffffffffu, g, {m});', 'r = __shfl_sync(0xffffffffu, r, r & 31, 16) + {m};']
for k in (1, 2, 4, 6):
    for s0 in range(len(SH)):
        b = HEAD + '    int t = threadIdx.x; int j = i < n ? i : n - 1;\n'
        b += '    int r = ia[j]; float f = fa[j]; double g = da[j];\n'
        for q in range(k):
            b += '    ' + SH[(s0 + q) % len(SH)].format(m=1 << (q % 5)) + '\n'
        b += '    if (i < n) { io[8 * i] = r; fo[8 * i] = f; dout[8 * i] = g; }\n'
        kern(f'shfl_{k}_{s0}', f'shuffles: {k} starting at {s0}', b)

# Predicates: comparisons feeding selects, branches, predicated ops, PSETP, votes.
for k in (1, 2, 3, 5, 8):
    for style in range(4):
        b = GUARD + '    int r = a; float f = x;\n'
        for q in range(k):
            b += ['    if (r > %d) r -= f > 0.5f ? 3 : 7; else r += 11;\n' % (q * 13 - 20),
                  '    r = (r & 1) && (f < %d.0f) ? r * 2 : r ^ %d;\n' % (q, q + 5),
                  '    f = (f > x || r < 0) ? f * 0.5f : f + 1.0f; r += __popc(__ballot_sync(0xffffffffu, f > 1.0f));\n',
                  '    r = max(r, a - %d) + (d > %d.5 ? 1 : 0);\n' % (q, q)][(style + q) % 4]
        b += '    io[8 * i] = r; fo[8 * i] = f;\n'
        kern(f'pred_{k}_{style}', f'predicates: {k}, style {style}', b)

# Calls: non-inlined device functions, nested, under divergence.
CALLS = ('__device__ __noinline__ int fa1(int v, int k) { return v > k ? v * 3 - k : v + k * 7; }\n'
         '__device__ __noinline__ float fb1(float v) { return v * v > 2.0f ? __sinf(v) : v * 0.5f + 1.0f; }\n'
         '__device__ __noinline__ double fc1(double v, int k) { for (int j = 0; j < k; j++) { if (v > 100.0) return v; v = v * 1.5 + j; } return v; }\n'
         '__device__ __noinline__ int fd1(int v) { if (v < 0) return fa1(-v, 3); return fa1(v, 5) + 1; }\n')
for k in (1, 2, 3, 4):
    for style in range(4):
        b = GUARD + '    int r = a; float f = x; double g = d;\n'
        for q in range(k):
            b += ['    if (r & 1) r = fa1(r, %d);\n' % q, '    f = fb1(f + %d.0f);\n' % q,
                  '    if (a > %d) g = fc1(g, %d);\n' % (q * 100 - 500, q + 2), '    r += fd1(r - %d);\n' % q][(style + q) % 4]
        b += '    io[8 * i] = r; fo[8 * i] = f; dout[8 * i] = g;\n'
        kern(f'call_{k}_{style}', f'calls: {k}, style {style}', b, CALLS)

# Integer units: XMAD multiplies, 64-bit, POPC/FLO/BREV, division, funnel shifts, BFE/BFI.
INT = ['r = r * (a | 1) + %d;', 'r = __popc(r) + __clz(r ^ %d);', 'r = __brev(r) >> %d;',
       'r = r / ((a & 15) + %d);', 'l = l * (long long)r + %d; r = (int)(l >> 17);',
       'r = __funnelshift_l(r, a, %d) + __mulhi(r, a);', 'r = (r >> %d & 0xff) | (a << 8);', 'r = __ffs(r + %d) + __sad(r, a, 0);']
for k in (1, 2, 4, 8):
    for s0 in range(len(INT)):
        b = GUARD + '    int r = a; long long l = a;\n'
        for q in range(k):
            b += '    ' + INT[(s0 + q) % len(INT)] % (q + 1) + '\n'
        b += '    io[8 * i] = r ^ (int)l;\n'
        kern(f'int_{k}_{s0}', f'integer units: {k} starting at {s0}', b)

# Long unrolled loops mixing all of the above.
for k in (4, 8, 16, 32):
    for style in range(3):
        b = GUARD + '    float f = x; int r = a; double g = d;\n'
        b += f'    #pragma unroll\n    for (int q = 0; q < {k}; q++) {{\n'
        b += ['        f = fmaf(f, fa[(i + q) % n], 0.25f); r += ia[(r & 63) + q] ^ q;\n',
              '        g = g * da[(i + q) % n] + (double)q; f = __sinf(f) + (float)g;\n',
              '        r = r * 3 + (int)(f * 8.0f); f = f * 0.75f + (float)(r & 7); if (r & 256) g += f;\n'][style]
        b += '    }\n    io[8 * i] = r; fo[8 * i] = f; dout[8 * i] = g;\n'
        kern(f'unroll_{k}_{style}', f'unrolled loop of {k}, style {style}', b)


def source(name):
    comment, body, prelude = K[name]
    src = f'// Timing corpus (generated by gen.py; do not edit): {comment}.\n{prelude}'
    return src + f'extern "C" __global__ void {name}({SIG}) {{\n{body}}}\n'


def write_sources(outdir):
    os.makedirs(outdir, exist_ok=True)
    for name in K:
        open(os.path.join(outdir, f'{name}.cu'), 'w').write(source(name))


def write():
    old = {f for f in os.listdir(D) if f.endswith(('.cu', '.toml'))}
    for name, (comment, body, prelude) in K.items():
        params = [('fo', 'f32', 8 * 256, 'out', None), ('io', 'i32', 8 * 256, 'out', None),
                  ('dout', 'f64', 8 * 256, 'out', None), ('fa', 'f32', 256, 'in', [-4.0, 4.0]),
                  ('ia', 'i32', 256, 'in', [-1000, 1000]), ('da', 'f64', 256, 'in', [-4.0, 4.0])]
        t = [f'# Launch description of timing kernel {name} (generated by gen.py, which also has its source).',
             f'kernel = "{name}"', f'cubin = "cubins/{name}.cubin"', 'block = [128, 1, 1]', 'grid = [2, 1, 1]',
             f'reference = """\nTiming corpus: {comment} (checked for hazards only).\n"""']
        for k, (pn, elem, ln, io, rng) in enumerate(params):
            t += ['', '[[param]]', f'name = "{pn}"', f'offset = {8 * k}', 'size = 8', 'kind = "buffer"',
                  f'elem = "{elem}"', f'len = {ln}', f'io = "{io}"', f'init = "{"zero" if io == "out" else "random"}"']
            if rng:
                t.append(f'range = [{rng[0]}, {rng[1]}]')
        t += ['', '[[param]]', 'name = "n"', 'offset = 48', 'size = 4', 'kind = "scalar"', 'type = "i32"', f'value = {N}']
        open(f'{D}/{name}.toml', 'w').write('\n'.join(t) + '\n')
        old.discard(f'{name}.toml')
    for f in old:
        os.remove(os.path.join(D, f))


def build(outdir):
    tools = os.environ.get('ILC_NVIDIA_TOOLS') or os.path.expanduser('~/.cache/nvidia-sm5-tools')
    py = os.path.join(tools, 'venv/bin/python')
    os.makedirs(outdir, exist_ok=True)
    with tempfile.TemporaryDirectory() as srcdir:
        write_sources(srcdir)
        for name in K:
            out = os.path.join(outdir, f'{name}.cubin')
            r = subprocess.run([py, os.path.join(ROOT, 'tools/cuda2cubin.py'), f'{srcdir}/{name}.cu', out, '-O3'],
                               capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f'gen.py: {name}.cu does not compile:\n{r.stdout}{r.stderr}')
            if os.path.exists(out + '.ptx'):
                os.remove(out + '.ptx')


if __name__ == '__main__':
    write()
    if '--sources' in sys.argv:
        i = sys.argv.index('--sources')
        if i + 1 >= len(sys.argv):
            sys.exit('gen.py: --sources needs a directory')
        write_sources(sys.argv[i + 1])
    if '--build' in sys.argv:
        build(os.path.join(D, 'cubins'))
        keep = {f'{n}.cubin' for n in K}
        for f in os.listdir(os.path.join(D, 'cubins')):
            if f not in keep:
                os.remove(os.path.join(D, 'cubins', f))
    if '--check' in sys.argv:
        with tempfile.TemporaryDirectory() as tmp:
            build(tmp)
            stale = [n for n in K if not filecmp.cmp(f'{tmp}/{n}.cubin', f'{D}/cubins/{n}.cubin', shallow=False)]
        if stale:
            sys.exit(f'gen.py: stale timing cubins: {" ".join(stale)} (run gen.py --build)')
    print(f'{len(K)} timing kernels', file=sys.stderr)
