#!/usr/bin/env python3
"""Writes tests/cuda/NAME.toml (launch descriptions, format in README.md) for every kernel.

    tests/cuda/gen_toml.py

The table below is the source of truth for launch shapes and buffers; the `reference` text is
copied from the leading `//` comment of NAME.cu. Checks that every NAME.cu has an entry, that the
parameter names match the kernel signature, and computes byte offsets with C alignment rules
(the Rust tests then check those offsets against the cubin's EIATTR_KPARAM_INFO).
"""
import re, os
D=os.path.dirname(os.path.abspath(__file__))
N=250
def buf(name, elem, ln, io, init=None, rng=None, step=None):
    return dict(name=name, kind='buffer', elem=elem, len=ln, io=io, init=init or ('zero' if io=='out' else 'random'), rng=rng, step=step)
def sc(name, ty, v): return dict(name=name, kind='scalar', type=ty, value=v)
n=lambda v=N: sc('n','i32',v)
E=[]  # (kernel, block, grid, params, notes)
EXTRA={}
def el(k, params, block=(128,1,1), grid=(2,1,1), note=None, extra=None):
    E.append((k,block,grid,params,note))
    if extra: EXTRA[k]=extra
el('iadd',[buf('out','i32',2*N,'out'),buf('a','i32',N,'in'),buf('b','i32',N,'in'),n()])
el('imul',[buf('out','i32',4*N,'out'),buf('a','i32',N,'in'),buf('b','i32',N,'in'),n()])
el('idiv_signed',[buf('out','i32',2*N,'out'),buf('a','i32',N,'in'),buf('b','i32',N,'in',rng=[-100,100]),n()],note='b includes 0 and -1; a should include INT_MIN')
el('idiv_unsigned',[buf('out','u32',2*N,'out'),buf('a','u32',N,'in'),buf('b','u32',N,'in',rng=[0,1000]),n()])
el('idiv_const',[buf('out','i32',4*N,'out'),buf('a','i32',N,'in'),n()])
el('shifts',[buf('out','u32',5*N,'out'),buf('a','u32',N,'in'),buf('b','u32',N,'in'),n()])
el('bitfield',[buf('out','u32',4*N,'out'),buf('a','u32',N,'in'),buf('b','u32',N,'in'),n()])
el('bitcount',[buf('out','i32',5*N,'out'),buf('a','u32',N,'in'),buf('b','u32',N,'in'),n()],note='a should include 0 (clz 32, ffs 0)')
el('iminmax',[buf('out','i32',6*N,'out'),buf('a','i32',N,'in'),buf('b','i32',N,'in'),n()])
el('int64',[buf('out','i64',6*N,'out'),buf('a','i64',N,'in'),buf('b','i64',N,'in'),n()])
el('farith',[buf('out','f32',4*N,'out'),buf('a','f32',N,'in',rng=[-100,100]),buf('b','f32',N,'in',rng=[-100,100]),buf('c','f32',N,'in',rng=[-100,100]),n()],note='bit exact')
el('fminmax',[buf('out','f32',5*N,'out'),buf('a','f32',N,'in',rng=[-100,100]),buf('b','f32',N,'in',rng=[-100,100]),n()],note='bit exact; inputs may include NaN')
el('fdiv',[buf('out','f32',2*N,'out'),buf('a','f32',N,'in',rng=[-100,100]),buf('b','f32',N,'in',rng=[-100,100]),n()],note='out[2i] bit exact; out[2i+1] within 2 ulp')
el('fsqrt',[buf('out','f32',3*N,'out'),buf('a','f32',N,'in',rng=[0,10000]),n()],note='sqrt bit exact; rsqrt within 2 ulp')
el('ftrans_fast',[buf('out','f32',5*N,'out'),buf('a','f32',N,'in',rng=[-3.14159,3.14159]),n()],note='approximate: abs error 1e-5 for sin/cos, rel 1e-5 otherwise')
el('ftrans_precise',[buf('out','f32',5*N,'out'),buf('a','f32',N,'in',rng=[-50,50]),n()],note='within 2 ulp of the exact values; uses .nv.global.init data, relocations and local memory (slow path of sinf/cosf for |a| > 105615)')
el('fround',[buf('out','f32',5*N,'out'),buf('a','f32',N,'in',rng=[-1000,1000]),n()],note='bit exact; include halves like 2.5, -0.5')
el('fcompare',[buf('out','i32',6*N,'out'),buf('a','f32',N,'in',rng=[-10,10]),buf('b','f32',N,'in',rng=[-10,10]),n()],note='include equal values, NaN and inf')
el('darith',[buf('out','f64',5*N,'out'),buf('a','f64',N,'in',rng=[-100,100]),buf('b','f64',N,'in',rng=[-100,100]),buf('c','f64',N,'in',rng=[-100,100]),n()],note='bit exact')
el('dcompare',[buf('flags','i32',N,'out'),buf('mm','f64',2*N,'out'),buf('a','f64',N,'in',rng=[-10,10]),buf('b','f64',N,'in',rng=[-10,10]),n()])
el('dconvert',[buf('f','f32',N,'out'),buf('l','i64',3*N,'out'),buf('dd','f64',2*N,'out'),buf('a','f64',N,'in',rng=[-1e10,1e10]),n()],note='bit exact; saturating conversions')
el('convert',[buf('o','i32',8*N,'out'),buf('fa','f32',N,'in',rng=[-3e9,3e9]),buf('ia','i32',N,'in'),n()],note='bit exact; saturating; NaN -> 0')
el('convert64',[buf('o','i32',2*N,'out'),buf('l','i64',2*N,'out'),buf('a','i64',N,'in'),buf('fa','f32',N,'in',rng=[-1e19,1e19]),n()])
el('select',[buf('out','i32',2*N,'out'),buf('a','i32',N,'in',rng=[-20,20]),buf('b','i32',N,'in',rng=[-20,20]),n()])
el('branch_divergent',[buf('out','i32',N,'out'),buf('a','i32',N,'in',rng=[-1000,1000]),n()])
el('branch_uniform',[buf('out','i32',N,'out'),buf('a','i32',N,'in'),sc('mode','i32',1),sc('k','i32',12345),n()],note='run with mode 0, 1 and 2')
el('loop_break',[buf('out','i32',N,'out'),buf('a','i32',N,'in'),sc('limit','i32',5000),n()])
el('loop_nested',[buf('out','i32',N,'out'),buf('a','i32',N,'in'),n()])
el('switch_case',[buf('out','i32',N,'out'),buf('a','i32',N,'in'),buf('b','i32',N,'in'),n()])
el('reduce_shared',[buf('out','i32',4,'out'),buf('a','i32',1000,'in'),n(1000)],block=(256,1,1),grid=(4,1,1),note='block size must be 256')
el('atomic_global',[buf('acc','i32',8,'inout',init='values:[0, 2147483647, -2147483648, -1, 0, 0, 0, 0]'),buf('old','i32',N,'out'),buf('slot','i32',N,'inout',init='iota'),buf('a','i32',N,'in'),n()])
el('atomic_global64',[buf('acc','u64',6,'inout',init='values:[0, -1, 0, -1, 0, 0]'),buf('old','u64',N,'out'),buf('slot','u64',N,'inout',init='iota'),buf('a','u64',N,'in'),n()],note='acc[0] wraps mod 2^64')
el('atomic_shared',[buf('out','i32',16,'out'),buf('a','i32',N,'in'),n()],note='out[8b+7] = b (exchange by thread 0 only)')
el('ldg',[buf('out','i32',N,'out'),buf('fout','f32',N,'out'),buf('a','i32',N,'in'),buf('b','i32',N,'in'),buf('f','f32',N,'in',rng=[-100,100]),n()])
el('vector_ldst',[buf('o4','i32',4*N,'out'),buf('o2','i32',2*N,'out'),buf('of','f32',4*N,'out'),buf('a4','i32',4*N,'in'),buf('b2','i32',2*N,'in'),buf('f4','f32',4*N,'in',rng=[-100,100]),n()],note='buffers must be 16-byte (int4/float4) and 8-byte (int2) aligned')
el('local_array',[buf('out','i32',N,'out'),buf('a','i32',N,'in'),n()],note='128 bytes of local memory per thread')
el('shuffle',[buf('out','i32',4*256,'out'),buf('a','i32',256,'in'),n(256)],note='n multiple of 32')
el('vote',[buf('out','u32',3*256,'out'),buf('a','i32',256,'in',rng=[-3,20]),n(256)],note='tail lanes (i >= n) vote as a = 1')
el('const_table',[buf('out','i32',N,'out'),buf('a','i32',N,'in'),n()],note='table lives in .nv.constant3 (initialised); scale is zero-initialised __constant__ data')
el('thread2d',[buf('out','i32',40*20,'out'),buf('in','i32',40*20,'in'),sc('w','i32',40),sc('h','i32',20)],block=(16,8,1),grid=(3,3,1))
el('thread3d',[buf('out','u32',20*6*5,'out'),sc('d0','i32',20),sc('d1','i32',6),sc('d2','i32',5)],block=(8,4,2),grid=(3,2,3))
el('saxpy',[buf('y','f32',N,'inout',rng=[-100,100]),buf('x','f32',N,'in',rng=[-100,100]),sc('alpha','f32',2.5),n()],note='bit exact with fmaf')
el('matmul_tiled',[buf('C','f32',64*64,'out'),buf('A','f32',64*64,'in',rng=[-1,1]),buf('B','f32',64*64,'in',rng=[-1,1]),n(64)],block=(16,16,1),grid=(4,4,1),note='bit exact with fmaf in k order')
el('stencil1d',[buf('out','i32',N,'out'),buf('in','i32',N,'in'),n()],note='block size must be 128')
el('stencil2d',[buf('out','f32',40*20,'out'),buf('in','f32',40*20,'in',rng=[-100,100]),sc('w','i32',40),sc('h','i32',20)],block=(16,8,1),grid=(3,3,1),note='bit exact')
el('histogram',[buf('hist','u32',64,'inout',init='zero'),buf('a','u32',1000,'in'),n(1000)],block=(256,1,1),grid=(2,1,1),note='grid-stride loop; hist must start zeroed')
el('scan',[buf('out','i32',600,'out'),buf('a','i32',600,'in',rng=[-1000,1000]),n(600)],block=(256,1,1),grid=(3,1,1),note='per-block inclusive scan')
el('hash',[buf('out','u32',2*N,'out'),buf('a','u32',N,'in'),sc('seed','u32',2654435769),n()])
el('dot_product',[buf('out','f32',4,'out'),buf('x','f32',1000,'in',rng=[-1,1]),buf('y','f32',1000,'in',rng=[-1,1]),n(1000)],block=(256,1,1),grid=(4,1,1),note='bit exact in the tree order')
el('transpose',[buf('out','u32',64*64,'out'),buf('in','u32',64*64,'in'),n(64)],block=(32,8,1),grid=(2,2,1))
el('device_globals',[buf('out','i32',N,'out'),buf('a','i32',N,'in'),n()],note='global memory data: .nv.global.init tables, .nv.global scratch, addresses patched into .nv.constant4 by relocations')
el('convert_half',[buf('out','u32',2*N,'out'),buf('a','f32',N,'in',rng=[-70000,70000]),n()],note='bit exact; include values that overflow f16 (|x| >= 65520), subnormal halves and NaN')
el('atomic_float',[buf('acc','f32',3,'inout',init='values:[0.0, 0.0, -inf]'),buf('a','f32',N,'in',rng=[-64,64],step=0.25),n()],note='inputs are multiples of 0.25 (step) so sums are exact in any order')
el('atomic_shared64',[buf('out','u64',8,'out'),buf('gx','u64',1,'inout',init='values:[0]'),buf('a','u64',N,'in'),n()],note='sums wrap mod 2^64')
el('dyn_shared',[buf('out','i32',N,'out'),buf('a','i32',N,'in'),n()],note='launch with dynamic_shared = blockDim.x * 4 bytes',extra={'dynamic_shared':512})
el('brev64_clz64',[buf('out','u64',4*N,'out'),buf('a','u64',N,'in'),n()],note='include 0 and values with high bits clear')
el('int64_divrem',[buf('out','i64',4*N,'out'),buf('a','i64',N,'in'),buf('b','i64',N,'in',rng=[-1000,1000]),n()],note='b should include 0 and -1, a should include INT64_MIN; large b exercise the slow path')
el('barrier_reduce',[buf('out','i32',6,'out'),buf('a','i32',N,'in',rng=[-5,100]),n()],note='block size 128')
el('fround_modes',[buf('out','f32',8*N,'out'),buf('a','f32',N,'in',rng=[-100,100]),buf('b','f32',N,'in',rng=[-100,100]),buf('c','f32',N,'in',rng=[-100,100]),n()],note='bit exact; directed rounding')
el('shuffle_width',[buf('out','i32',3*256,'out'),buf('a','i32',256,'in'),n(256)],note='n multiple of 32')
el('dround',[buf('out','f64',8*N,'out'),buf('a','f64',N,'in',rng=[-1000,1000]),buf('b','f64',N,'in',rng=[-1000,1000]),n()],note='bit exact; include halves (2.5, -0.5) for rint')
el('fpoly',[buf('out','f32',2*N,'out'),buf('a','f32',N,'in',rng=[-4,4]),n()],note='bit exact with fmaf')
el('call_indirect',[buf('out','i32',2*N,'out'),buf('a','i32',N,'in',rng=[-100000,100000]),n()],note='indirect calls (PRET + BRX, divergent) through a __device__ table of function pointers; recursion deeper than the frame')
el('minmax64_cc',[buf('out','i64',6*N,'out'),buf('a','i64',N,'in',rng=[-6000000000,6000000000]),buf('b','i64',N,'in',rng=[-6000000000,6000000000]),n()],note='IMNMX.XHI/XLO pairs and I2I .CC + CSETP; inputs within +-6e9 so high words are often equal (the XLO compare decides) and often differ in sign')

# convert_limits: edge values first, then a deterministic spread, CL elements in all.
CL=64
_f=['nan','inf','-inf',0.0,-0.0,2147483648.0,-2147483648.0,2147483520.0,-2147483904.0,4294967296.0,
    4294967040.0,-0.5,0.5,1.5,2.5,-1.5,-2.5,1e20,-1e20,9.3e18,-9.3e18,1.8e19,32767.5,32768.0,-32768.9,
    -32769.0,65535.9,65536.0,127.9,128.0,-128.9,-129.0,255.9,256.0,-1.0,1e-40,-1e-40,0.99999994,
    9.223372e18,-9.223372e18,1.8446743e19,16777217.0,-0.75,3.4e38,-3.4e38]
_d=['nan','inf','-inf',0.0,-0.0,2147483647.5,2147483648.0,-2147483648.5,-2147483649.0,4294967295.5,
    4294967296.0,9.223372036854775e18,9.3e18,-9.3e18,1.8446744073709552e19,1.9e19,-0.5,2.5,-2.5,
    3.4028235677973366e38,3.4028235e38,1e39,-1e39,1e-46,-1e-46,1.401298464324817e-45,7e-46,
    1.1754942e-38,16777217.0,0.1,-0.1,1e300,-4294967296.5]
_l=[-9223372036854775808,9223372036854775807,16777217,-16777217,9007199254740993,-9007199254740993,0,-1,
    2147483647,2147483648,4294967295,4294967296,-2147483649,33554435,-33554435,18014398509481985,
    32767,32768,-32769,65535,65536,123456789123,-987654321987,(1<<63)-1025,(1<<62)+1]
def _fill(v, k):
    out=list(v)
    x=0x9E3779B97F4A7C15
    while len(out)<CL:
        x=(x*6364136223846793005+1442695040888963407)%(1<<64)
        out.append(k(x))
    return out
def _fv(v): return v if isinstance(v,str) else repr(float(v))
_fl=_fill(_f,lambda x: float((x>>11)%4000000000-2000000000)/((x>>5)%7+1))
_dl=_fill(_d,lambda x: float((x>>11)%(1<<50)-(1<<49))*((x>>3)%13+1))
_ll=_fill(_l,lambda x: x-(1<<64) if x>=1<<63 else x)
el('convert_limits',[buf('oi','i32',12*CL,'out'),buf('ol','i64',6*CL,'out'),buf('of','u32',8*CL,'out'),buf('od','u64',4*CL,'out'),
    buf('a','f32',CL,'in',init='values:['+', '.join(_fv(v) for v in _fl)+']'),
    buf('d','f64',CL,'in',init='values:['+', '.join(_fv(v) for v in _dl)+']'),
    buf('l','i64',CL,'in',init='values:['+', '.join(str(v) for v in _ll)+']'),n(CL)],
    block=(32,1,1),grid=(3,1,1),note='bit exact; saturating float-to-integer, NaN -> 0; directed rounding; 64 edge-value inputs, the third block exercises the bounds check')
el('call_divergent',[buf('out','i32',4*N,'out'),buf('a','i32',N,'in',rng=[-3000,3000]),n()],note='calls (CAL) under divergence; predicated RET in tag()')

SZ={'i32':4,'u32':4,'f32':4,'i64':8,'u64':8,'f64':8}
def fmt(v):
    if isinstance(v,float): return repr(v)
    if isinstance(v,(list,tuple)): return '['+', '.join(fmt(x) for x in v)+']'
    if isinstance(v,str): return '"'+v+'"'
    return str(v)
names=set()
for k,block,grid,params,note in E:
    names.add(k)
    src=open(f'{D}/{k}.cu').read()
    ref=[l[3:] for l in src.splitlines() if l.startswith('// ')]
    # check param order vs source signature
    sig=re.search(r'void\s+'+k+r'\s*\(([^)]*)\)',src,re.S).group(1)
    pn=[re.split(r'[\s*]+',p.strip())[-1] for p in sig.split(',')]
    assert pn==[p['name'] for p in params],(k,pn)
    off=0
    out=[f'# Launch description of tests/cuda/{k}.cu (compiled: tests/cuda/cubins/{k}.cubin).',
         '# Format: tests/cuda/README.md.',
         f'kernel = "{k}"', f'cubin = "cubins/{k}.cubin"', f'block = {fmt(block)}', f'grid = {fmt(grid)}']
    out.append('reference = """')
    out += ref
    out.append('"""')
    if note: out.append(f'note = {fmt(note)}')
    for ek,ev in EXTRA.get(k,{}).items(): out.append(f'{ek} = {fmt(ev)}')
    for p in params:
        size = 8 if p['kind']=='buffer' else SZ[p['type']]
        off = (off + size-1)//size*size
        out += ['', '[[param]]', f'name = "{p["name"]}"', f'offset = {off}', f'size = {size}', f'kind = "{p["kind"]}"']
        if p['kind']=='buffer':
            init=p['init']
            if init.startswith('values:'):
                out += [f'elem = "{p["elem"]}"', f'len = {p["len"]}', f'io = "{p["io"]}"', 'init = "values"', 'values = '+init[7:]]
            else:
                out += [f'elem = "{p["elem"]}"', f'len = {p["len"]}', f'io = "{p["io"]}"', f'init = {fmt(init)}']
            if p['rng'] is not None:
                lo,hi=p['rng']
                if p['elem'].startswith('f'): lo,hi=float(lo),float(hi)
                out.append(f'range = {fmt([lo,hi])}')
            if p.get('step') is not None:
                out.append(f'step = {fmt(p["step"])}')
        else:
            v=p['value']
            if p['type']=='f32': v=float(v)
            out += [f'type = "{p["type"]}"', f'value = {fmt(v)}']
        off += size
    open(f'{D}/{k}.toml','w').write('\n'.join(out)+'\n')
cus={f[:-3] for f in os.listdir(D) if f.endswith('.cu')}
assert cus == names, (sorted(cus - names), sorted(names - cus))
print(f'{len(names)} launch descriptions written')
