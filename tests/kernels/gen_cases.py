#!/usr/bin/env python3
"""Generates the test case folders of the IL kernel corpus (DESIGN.md section 4).

For every kernel NAME.il beside this script, writes NAME/ with uavN.bin (inputs), cbN.bin,
g.bin, grid.txt ("x,y,z" groups), expect_uavN.bin (expect_g.bin) and, where results are
not bit-exact, tolerance.txt ("uavN u32|f32|f64 exact|ulp N|abs E").

The expected outputs are computed here from the math each kernel implements, in plain
Python (float32 rounding through struct), following the AMD IL guide's semantics and the
project's conventions table (isa-amdil/src/interp/mod.rs). They are never produced by
running an interpreter. Deterministic: fixed seeds. Run: python3 tests/kernels/gen_cases.py
"""

import math
import os
import random
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
M32 = 0xFFFFFFFF
NAN = 0x7FFFFFFF  # canonical NaN of arithmetic results (conventions table)
FLT_MAX = 0x7F7FFFFF
ONE = 0x3F800000


# ---------------------------------------------------------------- float32 helpers

def bits(x):
    """float (double) -> float32 bits, rounded to nearest even; overflow -> inf; NaN canonical."""
    if math.isnan(x):
        return NAN
    try:
        return struct.unpack('<I', struct.pack('<f', x))[0]
    except OverflowError:
        return 0xFF800000 if x < 0 else 0x7F800000


def val(b):
    return struct.unpack('<f', struct.pack('<I', b & M32))[0]


def ftz_bits(b):
    """flush a float32 denormal to a zero of the same sign."""
    if (b & 0x7F800000) == 0:
        return b & 0x80000000
    return b


def fv(b):
    """flushed float value of bits."""
    return val(ftz_bits(b))


def fres(x):
    """float result: round to f32, flush, canonical NaN."""
    return ftz_bits(bits(x))


def s32(u):
    u &= M32
    return u - (1 << 32) if u & 0x80000000 else u


def u64_of(lo, hi):
    return (hi << 32) | lo


def dbits(x):
    if math.isnan(x):
        return 0x7FFFFFFFFFFFFFFF
    return struct.unpack('<Q', struct.pack('<d', x))[0]


def dval(b):
    return struct.unpack('<d', struct.pack('<Q', b))[0]


# ---------------------------------------------------------------- case writing

def double_pair_words(pairs):
    """Little-endian words of (a, b) double pairs, a's low word first."""
    words = []
    for a, b in pairs:
        ab, bb = dbits(a), dbits(b)
        words += [ab & M32, ab >> 32, bb & M32, bb >> 32]
    return words


def pack_u32(words):
    return struct.pack('<%dI' % len(words), *[w & M32 for w in words])


class Case:
    def __init__(self, name, grid):
        self.name = name
        self.grid = grid
        self.files = {}
        self.tol = []

    def uav(self, i, words):
        self.files['uav%d.bin' % i] = pack_u32(words)

    def expect(self, i, words):
        self.files['expect_uav%d.bin' % i] = pack_u32(words)

    def cb(self, i, words):
        self.files['cb%d.bin' % i] = pack_u32(words)

    def g(self, words):
        self.files['g.bin'] = pack_u32(words)

    def expect_g(self, words):
        self.files['expect_g.bin'] = pack_u32(words)

    def tolerance(self, line):
        self.tol.append(line)

    def write(self):
        d = os.path.join(HERE, self.name)
        os.makedirs(d, exist_ok=True)
        for f in os.listdir(d):
            os.remove(os.path.join(d, f))
        with open(os.path.join(d, 'grid.txt'), 'w') as fh:
            fh.write('%d,%d,%d\n' % tuple(self.grid))
        for name, data in self.files.items():
            with open(os.path.join(d, name), 'wb') as fh:
                fh.write(data)
        if self.tol:
            with open(os.path.join(d, 'tolerance.txt'), 'w') as fh:
                fh.write('\n'.join(self.tol) + '\n')


CASES = []


def case(fn):
    CASES.append(fn)
    return fn


def rnd(seed):
    return random.Random(seed)


SPECIAL_U32 = [0, 1, 2, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFFFE, 0x12345678,
               0x00FFFFFF, 0x00800000, 0xFF800000, 31, 32, 33, 63, 64]


def ints(r, n, special=SPECIAL_U32):
    out = list(special)
    while len(out) < n:
        k = r.randrange(4)
        if k == 0:
            out.append(r.randrange(1 << 32))
        elif k == 1:
            out.append(r.randrange(-1000, 1000) & M32)
        elif k == 2:
            out.append(r.randrange(1 << 24))
        else:
            out.append((1 << r.randrange(32)) + r.randrange(-2, 3) & M32)
    return out[:n]


def rows(c, vals, arity, width, row):
    """uav0 holds `vals`; uav1 is expected to hold `row(*vals[arity * i:arity * (i + 1)])`
    (`width` words) for every row i in order."""
    c.uav(0, vals)
    out = []
    for i in range(len(vals) // arity):
        words = row(*vals[arity * i:arity * (i + 1)])
        assert len(words) == width, (c, i)
        out += words
    c.uav(1, [0] * width * (len(vals) // arity))
    c.expect(1, out)
    return c


# ---------------------------------------------------------------- integer kernels

@case
def int_arith():
    c = Case('int_arith', (2, 1, 1))
    r = rnd(1)
    n = 128
    vals = ints(r, 3 * n)
    def row(a, b, cc):
        return [(a + b) & M32, (a - b) & M32, (a * b) & M32, (a * b + cc) & M32]
    return rows(c, vals, 3, 4, row)


@case
def int_mulhi():
    c = Case('int_mulhi', (2, 1, 1))
    r = rnd(2)
    n = 64
    vals = ints(r, 2 * n)
    def row(a, b):
        def sx24(x):
            x &= 0xFFFFFF
            return x - (1 << 24) if x & 0x800000 else x
        return [((s32(a) * s32(b)) >> 32) & M32,
               ((a * b) >> 32) & M32,
               ((a & 0xFFFFFF) * (b & 0xFFFFFF)) & M32,
               (sx24(a) * sx24(b) + a) & M32]
    return rows(c, vals, 2, 4, row)


@case
def int_minmax():
    c = Case('int_minmax', (2, 1, 1))
    r = rnd(3)
    n = 128
    vals = ints(r, 2 * n)
    def row(a, b):
        return [min(s32(a), s32(b)) & M32, max(s32(a), s32(b)) & M32, min(a, b), max(a, b)]
    return rows(c, vals, 2, 4, row)


@case
def int_compare():
    c = Case('int_compare', (2, 1, 1))
    r = rnd(4)
    n = 128
    vals = ints(r, 2 * n)
    for i in range(0, 2 * n, 8):  # plenty of equal pairs
        vals[i + 1] = vals[i]
    T = M32
    def row(a, b):
        return [T if a == b else 0, T if a != b else 0, T if s32(a) >= s32(b) else 0,
               T if s32(a) < s32(b) else 0, T if a >= b else 0, T if a < b else 0]
    return rows(c, vals, 2, 6, row)


@case
def int_shift():
    c = Case('int_shift', (2, 1, 1))
    r = rnd(5)
    n = 128
    vals = []
    for i in range(n):
        vals += [r.choice([0x80000001, 0xDEADBEEF, 1, 0x7FFFFFFF, r.randrange(1 << 32)]), i % 70]
    def row(x, s):
        k = s & 31
        shl = (x << k) & M32
        return [shl, (s32(x) >> k) & M32, x >> k, shl | (x >> ((32 - s) & 31))]
    return rows(c, vals, 2, 4, row)


@case
def udiv_umod():
    c = Case('udiv_umod', (2, 1, 1))
    r = rnd(6)
    n = 128
    vals = []
    for i in range(n):
        b = r.choice([0, 1, 2, 3, 7, 10, 0xFFFFFFFF, 0x10000, r.randrange(1, 1 << 32),
                      r.randrange(1, 1000)])
        vals += [r.choice([0, 1, 0xFFFFFFFF, r.randrange(1 << 32), r.randrange(10000)]), b]
    def row(a, b):
        return [a // b if b else M32, a % b if b else M32]
    return rows(c, vals, 2, 2, row)


@case
def bitops():
    c = Case('bitops', (2, 1, 1))
    r = rnd(7)
    n = 128
    vals = ints(r, 2 * n)
    def row(a, b):
        return [a & b, a | b, a ^ b, (~a) & M32]
    return rows(c, vals, 2, 4, row)


@case
def bitfield():
    c = Case('bitfield', (2, 1, 1))
    r = rnd(8)
    n = 128
    vals = []
    for i in range(n):
        vals += [r.choice([0, 1, 8, 16, 31, 32, 33, r.randrange(64)]),
                 r.choice([0, 4, 16, 31, 40, r.randrange(64)]),
                 r.randrange(1 << 32), r.randrange(1 << 32)]
    def row(w, o, src, ins):
        w &= 31
        o &= 31
        if w == 0:
            ue = ie = 0
        elif w + o < 32:
            ue = (src >> o) & ((1 << w) - 1)
            ie = ue - (1 << w) if ue & (1 << (w - 1)) else ue
            ie &= M32
        else:
            ue = src >> o
            ie = (s32(src) >> o) & M32
        if w == 0:
            bi = src
        else:
            mask = (((1 << w) - 1) << o) & M32
            bi = ((ins << o) & mask) | (src & ~mask & M32)
        return [ue, ie, bi, 0]
    return rows(c, vals, 4, 4, row)


@case
def bitcount():
    c = Case('bitcount', (2, 1, 1))
    r = rnd(9)
    n = 128
    vals = ints(r, n)
    def row(x):
        lo = (x & -x).bit_length() - 1 if x else M32
        hi = 32 - x.bit_length() if x else M32
        rev = int('{:032b}'.format(x)[::-1], 2)
        return [bin(x).count('1'), lo, hi, rev]
    return rows(c, vals, 1, 4, row)


def add64_case(name, seed, second):
    """uav0 holds rows of two u64 `a`, `b` (lo, hi words); uav1 is expected to hold
    `s = a + b` and `second(a, b, s)` (mod 2^64, lo, hi words)."""
    c = Case(name, (2, 1, 1))
    r = rnd(seed)
    n = 128
    vals = []
    for i in range(n):
        vals += [r.choice([0xFFFFFFFF, 0, 1, r.randrange(1 << 32)]) for _ in range(4)]
    def row(alo, ahi, blo, bhi):
        a, b = u64_of(alo, ahi), u64_of(blo, bhi)
        s = (a + b) & ((1 << 64) - 1)
        t = second(a, b, s) & ((1 << 64) - 1)
        return [s & M32, s >> 32, t & M32, t >> 32]
    return rows(c, vals, 4, 4, row)


@case
def carry_add64():
    return add64_case('carry_add64', 10, lambda a, b, s: a - b)


@case
def macro_add64():
    return add64_case('macro_add64', 11, lambda a, b, s: s + a)


@case
def bitalign():
    c = Case('bitalign', (2, 1, 1))
    r = rnd(11)
    n = 128
    vals = []
    for i in range(n):
        vals += [r.randrange(1 << 32), r.randrange(1 << 32), i % 40]
    def row(hi, lo, s):
        v = (hi << 32) | lo
        return [(v >> (s & 31)) & M32, (v >> (8 * (s & 3))) & M32]
    return rows(c, vals, 3, 2, row)


@case
def int64_ops():
    c = Case('int64_ops', (2, 1, 1))
    r = rnd(12)
    n = 64
    vals = []
    for i in range(n):
        vals += [r.randrange(1 << 32), r.choice([0, 0xFFFFFFFF, 0x80000000, r.randrange(1 << 32)]),
                 i, r.choice([0, 1, 0xFFFFFFFF, r.randrange(1 << 32)])]
    M64 = (1 << 64) - 1
    def s64(x):
        return x - (1 << 64) if x >> 63 else x
    def row(alo, ahi, blo, bhi):
        a, b = u64_of(alo, ahi), u64_of(blo, bhi)
        k = blo & 63
        s = (a + b) & M64
        sh = (a << k) & M64
        ur = a >> k
        return [s & M32, s >> 32, sh & M32, sh >> 32, ur & M32, ur >> 32,
               M32 if s64(a) < s64(b) else 0, M32 if a < b else 0]
    return rows(c, vals, 4, 8, row)


@case
def int64_arith():
    c = Case('int64_arith', (2, 1, 1))
    r = rnd(57)
    n = 64
    halves = [0, 1, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF]
    vals = []
    for i in range(n):
        vals += [r.choice(halves + [r.randrange(1 << 32)] * 3) for _ in range(4)]
    M64 = (1 << 64) - 1

    def s64(x):
        return x - (1 << 64) if x >> 63 else x

    def row(alo, ahi, blo, bhi):
        a, b = u64_of(alo, ahi), u64_of(blo, bhi)
        out = [(a - b) & M64, -a & M64, (a * b) & M64,
               max(a, b, key=s64), min(a, b, key=s64), max(a, b), min(a, b), (a * 0x70000000b) & M64]
        return [w for x in out for w in (x & M32, x >> 32)]
    return rows(c, vals, 4, 16, row)


@case
def int64_shifts():
    c = Case('int64_shifts', (2, 1, 1))
    r = rnd(56)
    n = 64
    vals = []
    for i in range(n):
        hi = r.choice([0, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF, r.randrange(1 << 32)])
        vals += [r.randrange(1 << 32), hi, r.choice([i, r.randrange(1 << 32)]), 0]
    c.uav(0, vals)
    M64 = (1 << 64) - 1

    def sar(a, k):
        x = a - (1 << 64) if a >> 63 else a
        return (x >> (k & 63)) & M64

    def shl(a, k):
        return (a << (k & 63)) & M64

    def shr(a, k):
        return a >> (k & 63)

    def align(hi, lo, k):
        return (((hi << 32) | lo) >> (k & 31)) & M32

    out = []
    for i in range(n):
        lo, hi, s = vals[4 * i], vals[4 * i + 1], vals[4 * i + 2]
        a = u64_of(lo, hi)
        res = [sar(a, s), shl(a, 13), shr(a, 45), sar(a, 7), sar(a, 40), shl(a, 32),
               shr(a, 32), sar(a, 63), shl(a, 67), shr(a, 1)]
        for v in res:
            out += [v & M32, v >> 32]
        out += [align(hi, lo, 13), align(hi, lo, 8 * (2 & 3)), align(lo, lo, 27),
                align(hi, lo, s)]
    c.uav(1, [0] * 24 * n)
    c.expect(1, out)
    return c


# ---------------------------------------------------------------- float kernels

def fvals(r, n, special=True):
    sp = [0.0, -0.0, 1.0, -1.0, 0.5, 3.0, -2.5, 1e30, -1e-30, 123456.789, 1e-3, 7.25]
    out = [bits(x) for x in sp] if special else []
    while len(out) < n:
        out.append(bits(r.uniform(-100, 100) * 2.0 ** r.randrange(-10, 10)))
    return out[:n]


@case
def float_arith():
    c = Case('float_arith', (2, 1, 1))
    r = rnd(20)
    n = 128
    vals = fvals(r, 3 * n)
    def row(*abc):
        a, b, cc = (fv(x) for x in abc)
        return [fres(a + b), fres(a - b), fres(a * b), fres(a * b + cc)]
    rows(c, vals, 3, 4, row)
    # the fused mad is computed in double here (exact product, one rounding of the sum,
    # then to float): allow one ulp for the rare double-rounding case.
    c.tolerance('uav1 f32 ulp 1')
    return c


def ieee_div(a, b):
    if b == 0.0:
        if a == 0.0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


@case
def float_div():
    c = Case('float_div', (2, 1, 1))
    r = rnd(21)
    n = 128
    vals = []
    for i in range(n):
        b = r.choice([0.0, -0.0, 2.0, -3.0, 0.1, 1e-20, r.uniform(-50, 50)])
        vals += [bits(r.choice([1.0, -7.5, 0.0, r.uniform(-1000, 1000)])), bits(b)]
    def row(ab, bb):
        a, b = fv(ab), fv(bb)
        if b == 0.0:
            # guide L6635: zeroop result with the sign of src0 only (negative iff a < 0)
            d1 = bits(-val(FLT_MAX)) if a < 0 else FLT_MAX
            d2 = 0xFF800000 if a < 0 else 0x7F800000
            rc = FLT_MAX  # L7265: rcp(+-0) = +FLT_MAX
        else:
            d1 = d2 = fres(a / b)
            rc = fres(1.0 / b)
        return [d1, d2, rc, 0]
    rows(c, vals, 2, 4, row)
    # `div` has no stated precision (the guide gives none; AMD hardware multiplies by the
    # reciprocal): the backend's a * rcp(b) is within 2 ulp.
    c.tolerance('uav1 f32 ulp 2')
    return c


@case
def float_div_const():
    c = Case('float_div_const', (2, 1, 1))
    r = rnd(121)
    n = 128
    edge = [0.0, -0.0, 2.0, -3.0, 0.1, 1e-30, -1e-30, 2.0 ** 126, -(2.0 ** 126),
            1.5 * 2.0 ** 126, 2.0 ** 127, -3e38, FLT_MAX, math.inf, -math.inf, math.nan]
    bs = [bits(x) if isinstance(x, float) else x for x in edge]
    bs[12] = FLT_MAX
    bs += [bits(r.uniform(-50, 50)) for _ in range(n - len(bs))]
    c.uav(0, bs)
    out = []
    for bb in bs:
        b = fv(bb)
        for a in (1.0, -0.5, 3.0):
            if b == 0.0:
                out.append(bits(-val(FLT_MAX)) if a < 0 else FLT_MAX)
            else:
                out.append(fres(a / b) if not math.isnan(b) else NAN)
        out.append(0x7F800000 if b == 0.0 else (fres(1.0 / b) if not math.isnan(b) else NAN))
    c.uav(1, [0] * 4 * n)
    c.expect(1, out)
    c.tolerance('uav1 f32 ulp 2')
    return c

@case
def float_minmax():
    c = Case('float_minmax', (2, 1, 1))
    r = rnd(22)
    n = 128
    vals = fvals(r, 2 * n)
    vals[0], vals[1] = NAN, bits(2.0)
    vals[2], vals[3] = bits(-3.0), NAN
    vals[4], vals[5] = 0x80000000, 0
    vals[6], vals[7] = 0, 0x80000000
    lo, hi = -10.0, 10.0
    c.cb(0, [bits(lo), bits(hi), 0, 0])
    def row(ab, bb):
        a, b = fv(ab), fv(bb)
        # L7065/L7078: NaN loses; min(-0,+0) = -0, max = +0
        if math.isnan(a):
            mn = mx = b
        elif math.isnan(b):
            mn = mx = a
        elif a == b == 0.0:
            neg = math.copysign(1, a) < 0 or math.copysign(1, b) < 0
            pos = math.copysign(1, a) > 0 or math.copysign(1, b) > 0
            mn = -0.0 if neg else 0.0
            mx = 0.0 if pos else -0.0
        else:
            mn, mx = min(a, b), max(a, b)
        cl = a
        if math.isnan(cl):
            cl = lo  # max(NaN, lo) = lo (NaN loses), then min with hi
        cl = min(max(cl, lo), hi)
        return [fres(mn), fres(mx), fres(cl), ab & 0x7FFFFFFF]
    return rows(c, vals, 2, 4, row)


@case
def float_round():
    c = Case('float_round', (2, 1, 1))
    r = rnd(23)
    n = 128
    sp = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 3.0, -3.0, 1e10, -1e10, 0.0, -0.0,
          -1.25, 1.75, 8388607.5]
    vals = [bits(x) for x in sp]
    while len(vals) < n:
        vals.append(bits(r.uniform(-100, 100)))
    def row(x):
        v = fv(x)
        fl = float(math.floor(v))
        if fl == 0.0:
            fl = math.copysign(0.0, v)  # floor(-0.0) = -0.0
        # x - floor(x) in float32 arithmetic (one rounding)
        frc = fres(v - fl)
        rne = round(v)  # Python rounds half to even
        return [fres(math.copysign(fl, v) if fl == 0 else fl), frc,
               fres(math.copysign(rne, v) if rne == 0 else rne),
               fres(math.copysign(math.trunc(v), v)),
               fres(math.copysign(math.ceil(v), v) if math.ceil(v) == 0 else math.ceil(v)),
               fres(math.floor(val(fres(v + 0.5))))]
    return rows(c, vals, 1, 6, row)


@case
def float_compare():
    c = Case('float_compare', (2, 1, 1))
    r = rnd(24)
    n = 128
    vals = fvals(r, 2 * n)
    for i in range(0, 2 * n, 6):
        vals[i + 1] = vals[i]
    vals[0], vals[1] = NAN, bits(1.0)
    vals[2], vals[3] = 0x80000000, 0
    vals[4], vals[5] = 1, 0  # denormal flushed: equal to zero
    T = M32
    def row(ab, bb):
        a, b = fv(ab), fv(bb)
        return [T if a == b else 0, T if not (a == b) else 0, T if a >= b else 0,
               T if a < b else 0]
    return rows(c, vals, 2, 4, row)


@case
def float_sqrt():
    c = Case('float_sqrt', (2, 1, 1))
    r = rnd(25)
    n = 128
    vals = [bits(x) for x in [4.0, 2.0, 0.25, 1e-30, 1e30, 0.0, -0.0, 9.0, -4.0]]
    while len(vals) < n:
        vals.append(bits(r.uniform(0, 1000)))
    def row(x):
        v = fv(x)
        if v < 0:
            sq = rs = NAN
            rsv = NAN
        elif v == 0:
            sq = fres(math.copysign(0.0, v))
            rs = FLT_MAX  # rsq zeroop default (L7358)
            rsv = 0xFF800000 if math.copysign(1.0, v) < 0 else 0x7F800000
        else:
            sq = fres(math.sqrt(v))
            rs = fres(1.0 / math.sqrt(v))
            rsv = rs
        return [sq, rs, sq, rsv]
    rows(c, vals, 1, 4, row)
    c.tolerance('uav1 f32 ulp 1')
    return c


@case
def float_exp_log():
    c = Case('float_exp_log', (2, 1, 1))
    r = rnd(26)
    n = 128
    vals = [bits(x) for x in [0.0, 1.0, 2.0, -1.0, 0.5, 10.0, -10.0, 0.125, 100.0]]
    while len(vals) < n:
        vals.append(bits(r.uniform(0.001, 20)))
    def row(x):
        v = fv(x)
        e = fres(2.0 ** v)
        if v == 0:
            lv, lg = 0xFF800000, bits(-val(FLT_MAX))
        elif v < 0:
            lv = lg = NAN
        else:
            lv = lg = fres(math.log2(v))
        return [e, lv, lg, e]
    rows(c, vals, 1, 4, row)
    # the guide asks for >= 21 bits (L6825, L6986); we compare within 4 ulp of the exact
    # value.
    c.tolerance('uav1 f32 ulp 4')
    return c


@case
def legacy_mul():
    c = Case('legacy_mul', (1, 1, 1))
    pairs = [(0.0, math.inf), (math.inf, 0.0), (0.0, math.nan), (-0.0, 5.0), (2.0, 3.0),
             (math.inf, 2.0), (1e-40, math.inf), (-1.5, 4.0), (0.0, -math.inf),
             (math.nan, 1.0), (3.0, -0.0), (1e20, 1e20), (-2.0, -2.0), (0.5, 0.5),
             (7.0, 0.0), (1.0, 1.0)]
    vals = []
    for a, b in pairs:
        vals += [bits(a) if a != 1e-40 else 0x00011BD9, bits(b)]
    c.uav(0, vals)
    out = []
    for i in range(16):
        a, b = fv(vals[2 * i]), fv(vals[2 * i + 1])
        legacy = 0.0 if (a == 0.0 or b == 0.0) else a * b
        ieee = a * b
        out += [fres(legacy), fres(ieee), fres(legacy + 1.0), fres(ieee + 1.0)]
    c.uav(1, [0] * 4 * 16)
    c.expect(1, out)
    return c


def round_f32_exact(q):
    """exact rational -> float32 bits: round to nearest even once, flush, overflow -> inf."""
    from fractions import Fraction
    if q == 0:
        return 0
    sign = 0x80000000 if q < 0 else 0
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while a >= Fraction(2) ** (e + 1):
        e += 1
    while a < Fraction(2) ** e:
        e -= 1
    if e < -126:
        return sign  # below the normal range: flushed (rounding cannot reach 2^-126 here)
    scale = Fraction(2) ** (e - 23)
    m = a / scale
    n = m.numerator // m.denominator
    rem = m - n
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n % 2 == 1):
        n += 1
    v = n * scale
    if v >= Fraction(2) ** 128:
        return sign | 0x7F800000
    return sign | bits(float(v))


def legacy_mad(a, b, c):
    """IL legacy mad on flushed values: a zero factor gives +0 + c, else fused a*b + c."""
    from fractions import Fraction
    if a == 0.0 or b == 0.0:
        return fres(0.0 + c)
    if not all(math.isfinite(x) for x in (a, b, c)):
        return fres(a * b + c)
    return ftz_bits(round_f32_exact(Fraction(a) * Fraction(b) + Fraction(c)))


@case
def legacy_edge():
    c = Case('legacy_edge', (1, 1, 1))
    vals = legacy_edge_inputs()
    c.uav(0, vals)
    out = []
    for t in range(16):
        x = [fv(w) for w in vals[8 * t:8 * t + 4]]
        y = [fv(w) for w in vals[8 * t + 4:8 * t + 8]]

        def mul(a, b):
            return 0 if (a == 0.0 or b == 0.0) else fres(a * b)

        def dot(n):
            acc = mul(x[0], y[0])
            for k in range(1, n):
                acc = legacy_mad(x[k], y[k], fv(acc))
            return acc

        out += [legacy_mad(x[0], y[0], x[1]), mul(x[0], y[0]), dot(2), dot(3),
                dot(4), fres(fv(dot(2)) + x[2]), legacy_mad(x[2], y[2], y[3]), mul(x[3], y[3])]
    c.uav(1, [0] * 8 * 16)
    c.expect(1, out)
    return c


def legacy_edge_inputs():
    """16 rows of 8 floats: zeros of both signs, infinities, NaN, denormals, products that
    underflow or overflow, a fused product whose single rounding differs."""
    r = rnd(55)
    inf, nan = math.inf, math.nan
    den, nden = 0x00011BD9, 0x80011BD9
    e = 1.0 + 2.0 ** -20
    rows = [
        [0.0, inf, 1.0, 2.0, inf, 0.0, -0.0, 3.0],
        [-0.0, nan, -1.0, -0.0, 5.0, -0.0, 0.0, nan],
        [0.0, -0.0, -0.0, -inf, 3.0, -0.0, 2.0, 0.0],
        [den, 2.0, nden, nan, inf, -inf, 7.0, 0.0],
        [1e-30, -0.0, -1e-30, 1e-30, -1e-30, 1e-30, 1e-30, -1e-30],
        [1e30, -1e30, 1e30, 1e-30, 1e30, 1e30, 1e30, 0.0],
        [e, -1.0, e, e, e, e, e, -1.0],
        [-0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0],
        [-0.0, -0.0, -0.0, -0.0, 1.0, 1.0, 1.0, 1.0],
    ]
    pool = [0.0, -0.0, inf, -inf, nan, 1.0, -2.5, 3.0, 1e30, -1e30, 1e-30, 0.75, 2.0 ** -100,
            den, nden]
    while len(rows) < 16:
        rows.append([r.choice(pool) for _ in range(8)])
    vals = []
    for row in rows:
        vals += [x if isinstance(x, int) else bits(x) for x in row]
    return vals


def ieee_fma(a, b, c):
    """IL mad_ieee on flushed values: one rounding of a*b + c, the sign of an exact zero by
    IEEE's rules, flushed."""
    from fractions import Fraction
    if a == 0.0 or b == 0.0 or not all(math.isfinite(x) for x in (a, b, c)):
        return fres(a * b + c)  # a zero product is exact: float arithmetic signs it right
    q = Fraction(a) * Fraction(b) + Fraction(c)
    return ftz_bits(round_f32_exact(q))


@case
def negated_operands():
    """mad/mad_ieee with _neg sources (the backend folds them into FFMA's operand
    negation where exact) on legacy_edge's special values."""
    vals = legacy_edge_inputs()
    c = Case('negated_operands', (1, 1, 1))
    c.uav(0, vals)
    out = []
    for t in range(16):
        x = [fv(w) for w in vals[8 * t:8 * t + 4]]
        y = [fv(w) for w in vals[8 * t + 4:8 * t + 8]]
        out += [legacy_mad(x[0], y[0], -x[1]), legacy_mad(x[0], -y[0], x[1]),
                ieee_fma(x[2], -y[2], y[3]), ieee_fma(-x[2], y[2], -y[3]),
                ieee_fma(-x[3], -y[1], x[0]), legacy_mad(x[3], y[3], -y[1]),
                ieee_fma(x[1], y[0], -x[0]), legacy_mad(x[2], -y[3], -y[0])]
    c.uav(1, [0] * 8 * 16)
    c.expect(1, out)
    return c


@case
def dot_products():
    c = Case('dot_products', (2, 1, 1))
    r = rnd(27)
    n = 128
    vals = []
    for i in range(n):
        vals += [bits(r.randrange(-64, 64) / 4.0) for _ in range(8)]
    def row(*ab):
        a = [fv(x) for x in ab[:4]]
        b = [fv(x) for x in ab[4:]]
        # small quarter-integers: every partial sum is exact in float32
        return [fres(a[0] * b[0] + a[1] * b[1]),
               fres(a[0] * b[0] + a[1] * b[1] + a[2] * b[2]),
               fres(sum(a[k] * b[k] for k in range(4))), 0]
    return rows(c, vals, 8, 4, row)


@case
def conversions():
    c = Case('conversions', (2, 1, 1))
    r = rnd(28)
    n = 128
    fl = [math.nan, math.inf, -math.inf, 3e9, -3e9, 5e9, -1.0, -0.5, 2.9, -2.9,
          2147483520.0, -2147483648.0, 4294967040.0, 0.0, 16777217.0, 1e-40]
    vals = []
    for i in range(n):
        x = fl[i] if i < len(fl) else r.uniform(-1e6, 1e6)
        xb = 0x00011BD9 if x == 1e-40 else bits(x)
        y = r.choice([0, 1, 0xFFFFFFFF, 0x80000000, 16777217, 0x7FFFFFFF, r.randrange(1 << 32)])
        vals += [xb, y]
    def row(xb, y):
        x = fv(xb)
        # conventions table: truncate, saturate, NaN -> 0
        if math.isnan(x):
            fi = fu = 0
        else:
            t = math.trunc(x) if math.isfinite(x) else x
            fi = int(max(-2 ** 31, min(2 ** 31 - 1, t))) & M32
            fu = int(max(0, min(2 ** 32 - 1, t)))
        return [fi, fu, bits(float(s32(y))), bits(float(y))]
    return rows(c, vals, 2, 4, row)


def f32_to_half(x):
    """float value -> half bits, round to nearest even, overflow -> inf, NaN -> 0x7FFF."""
    if math.isnan(x):
        return 0x7FFF
    sign = 0x8000 if math.copysign(1.0, x) < 0 else 0
    a = abs(x)
    if a >= 65520.0:
        return sign | 0x7C00
    if a < 2.0 ** -14:
        return sign | int(round(a * 2.0 ** 24))  # round() is half-even
    e = math.floor(math.log2(a))
    if 2.0 ** e > a:
        e -= 1
    if 2.0 ** (e + 1) <= a:
        e += 1
    m = a / 2.0 ** e * 1024  # in [1024, 2048)
    mi = int(round(m))
    h = ((e + 15) << 10) + (mi - 1024)
    return sign | h


def half_to_f32(h):
    s = -1.0 if h & 0x8000 else 1.0
    e = (h >> 10) & 31
    m = h & 1023
    if e == 0:
        return bits(s * m * 2.0 ** -24)
    if e == 31:
        return NAN if m else bits(s * math.inf)
    return bits(s * (1 + m / 1024) * 2.0 ** (e - 15))


@case
def half_convert():
    c = Case('half_convert', (2, 1, 1))
    r = rnd(29)
    n = 128
    sp = [1.0, -2.0, 65504.0, 65519.0, 65520.0, 1e6, 5.9604645e-08, 2.0 ** -25, 3e-5,
          1.0 + 1 / 2048, 1.0 + 3 / 2048, math.inf, -math.inf, math.nan, 0.0, -0.0]
    vals = [bits(x) for x in sp]
    while len(vals) < n:
        vals.append(bits(r.uniform(-70000, 70000) * 2.0 ** r.randrange(-20, 1)))
    def row(x):
        h = f32_to_half(fv(x))
        return [h, half_to_f32(h)]
    return rows(c, vals, 1, 2, row)


@case
def modifiers():
    c = Case('modifiers', (2, 1, 1))
    r = rnd(30)
    n = 128
    sp = [math.nan, -0.5, 0.25, 1.5, -3.0, 0.0, -0.0, 2.0]
    vals = [bits(x) for x in sp]
    while len(vals) < n:
        vals.append(bits(r.uniform(-4, 4)))
    def row(xb):
        x = fv(xb)
        sat = 0.0 if (math.isnan(x) or x <= 0.0) else min(x, 1.0)
        x2 = fres((x + -x) * 2.0) if not math.isnan(x) else NAN
        ax = abs(x)
        d2 = fres(ax * 1.0 * 0.5)
        nabs = fres(-ax + 0.0)
        return [fres(sat), x2, d2, nabs, 0, 0, ONE, 0]
    return rows(c, vals, 1, 8, row)


@case
def select_cmov():
    c = Case('select_cmov', (2, 1, 1))
    r = rnd(31)
    n = 128
    vals = fvals(r, 2 * n)
    vals[0] = 0x80000000
    vals[2] = 0
    def row(ab, bb):
        a, b = fv(ab), fv(bb)
        return [ONE if ab != 0 else bits(-1.0), ab if a < b else bb,
               ab if s32(ab) < s32(bb) else bb, ab]
    return rows(c, vals, 2, 4, row)


@case
def double_arith():
    c = Case('double_arith', (2, 1, 1))
    r = rnd(32)
    n = 64
    pairs = []
    for i in range(n):
        a = r.choice([1.0, -2.5, 1e300, 1e-300, 0.1, r.uniform(-1e6, 1e6)])
        b = r.choice([3.0, 0.0, -0.7, 1e10, r.uniform(-1e3, 1e3)])
        pairs.append((a, b))
    c.uav(0, double_pair_words(pairs))
    out = []
    for a, b in pairs:
        res = [a + b, a * b, ieee_div(a, b)]
        try:
            fma = math.fma(a, b, a)  # Python >= 3.13
        except AttributeError:
            from fractions import Fraction
            fma = float(Fraction(a) * Fraction(b) + Fraction(a)) if math.isfinite(a * b) else a * b + a
        res.append(fma)
        for x in res:
            d = dbits(x)
            out += [d & M32, d >> 32]
    c.uav(1, [0] * 8 * n)
    c.expect(1, out)
    return c


@case
def double_div():
    c = Case('double_div', (4, 1, 1))
    r = rnd(62)
    n = 256
    lo, hi = 2.0 ** -500, 2.0 ** 500
    special = [0.0, -0.0, 5e-324, -1e-310, 2.2250738585072014e-308, 1e-300, 1e300,
               1.7976931348623157e308, math.inf, -math.inf, math.nan, 1.0, 3.0, -0.7,
               lo, -lo, math.nextafter(lo, 0.0), math.nextafter(lo, 1.0),
               hi, -hi, math.nextafter(hi, 0.0), math.nextafter(hi, math.inf)]

    def pick():
        k = r.random()
        if k < 0.45:
            return r.choice(special)
        if k < 0.75:
            return r.uniform(-1e6, 1e6)
        return math.copysign(2.0 ** r.uniform(-1074, 1023), r.choice([1.0, -1.0]))
    pairs = [(pick(), pick()) for _ in range(n)]
    c.uav(0, double_pair_words(pairs))
    out = []
    for a, b in pairs:
        q1, q2 = ieee_div(a, b), ieee_div(b, a)
        r = 1.7976931348623157e308 if a == 0.0 else ieee_div(1.0, a)
        for x in (q1, q2, q1 + q2, r):
            d = dbits(x)
            out += [d & M32, d >> 32]
    c.uav(1, [0] * 8 * n)
    c.expect(1, out)
    c.tolerance('uav1 f64 exact')
    return c


@case
def double_convert():
    c = Case('double_convert', (2, 1, 1))
    r = rnd(33)
    n = 64
    vals = []
    for i in range(n):
        vals += [bits(r.choice([1.5, -2.0, 1e30, 3e-20, r.uniform(-100, 100)])),
                 bits(r.choice([1.5, 0.0, -1e30, r.uniform(-100, 100)]))]
    vals[0] = 0x00011BD9  # float denormal -> 0.0 double (L6328)
    def row(ab, bb):
        a, b = fv(ab), fv(bb)
        mx = max(a, b) if not (a == b == 0.0) else (0.0 if (math.copysign(1, a) > 0 or math.copysign(1, b) > 0) else -0.0)
        mn = min(a, b) if not (a == b == 0.0) else (-0.0 if (math.copysign(1, a) < 0 or math.copysign(1, b) < 0) else 0.0)
        sq = a * a  # exact in double
        words = [M32 if a < b else 0, M32 if a >= b else 0, fres(sq), fres(mx)]
        for x in (mx, mn):
            d = dbits(x)
            words += [d & M32, d >> 32]
        return words
    return rows(c, vals, 2, 8, row)


# ---------------------------------------------------------------- control flow

@case
def loop_sum():
    c = Case('loop_sum', (2, 1, 1))
    r = rnd(40)
    n = 128
    vals = [r.randrange(0, 300) for _ in range(n)]
    vals[0] = 0
    c.uav(0, vals)
    c.uav(1, [0] * n)
    c.expect(1, [sum(k * k for k in range(x)) & M32 for x in vals])
    return c


@case
def nested_loops():
    c = Case('nested_loops', (2, 1, 1))
    r = rnd(41)
    n = 64
    vals = [r.randrange(0, 40) for _ in range(n)]
    def row(m):
        cnt = 0
        for a in range(m):
            for b in range(m):
                if a < b:
                    break
                if (a + b) & 1:
                    continue
                cnt += 1
        return [cnt]
    return rows(c, vals, 1, 1, row)


@case
def switch_fallthrough():
    c = Case('switch_fallthrough', (2, 1, 1))
    vals = [i % 8 for i in range(32)]
    vals[7] = 0xFFFFFFFF
    def row(v):
        acc = 0
        if v == 0:
            acc = 1 + 10
        elif v == 1:
            acc = 10
        elif v == 2:
            acc = 100
        elif v == 5:
            acc = 1000 + 10000
        else:
            acc = 10000
        return [acc]
    return rows(c, vals, 1, 1, row)


@case
def switch_in_loop():
    c = Case('switch_in_loop', (2, 1, 1))
    vals = [i * 3 % 23 for i in range(32)]
    def row(m):
        acc = 0
        for k in range(m):
            s = k & 3
            if s == 0:
                acc += 1
            elif s == 1:
                acc += 10
                continue
            elif s == 2:
                acc += 100 + 1000
            else:
                acc += 1000
            acc += 1
        return [acc]
    return rows(c, vals, 1, 1, row)


@case
def call_func():
    c = Case('call_func', (2, 1, 1))
    r = rnd(43)
    n = 64
    vals = [0, 1, 2, 3] + [r.randrange(1 << 32) for _ in range(n - 4)]
    def row(x):
        sq = (x * x) & M32
        p4 = (sq * sq) & M32 if x != 0 else 0
        # func 2 left r10 = x*x, so the conditional call squares that again
        z = p4 if (x & 2) else 7
        return [sq, p4, z, x]
    return rows(c, vals, 1, 4, row)


@case
def ifc_branch():
    c = Case('ifc_branch', (2, 1, 1))
    r = rnd(44)
    n = 128
    vals = [NAN, 0x80000000, 0, bits(1.0), bits(0.999), bits(-1e-3), 0x00000001, 0x80000001]
    while len(vals) < n:
        vals.append(bits(r.uniform(-2, 3)))
    c.uav(0, vals)
    out = []
    for xb in vals:
        x = fv(xb)
        if x < 0:
            out.append(1)
        elif x >= 0:
            out.append(2 if x < 1.0 else 3)
        else:
            out.append(4)
    c.uav(1, [0] * n)
    c.expect(1, out)
    return c


@case
def collatz():
    c = Case('collatz', (2, 1, 1))
    vals = [0, 1, 2, 3, 27, 97, 871] + list(range(7, 128))
    vals = vals[:128]
    def row(x):
        steps = 0
        while x > 1:
            x = (3 * x + 1) & M32 if x & 1 else x >> 1
            steps += 1
        return [steps]
    return rows(c, vals, 1, 1, row)


@case
def breakc_continuec():
    c = Case('breakc_continuec', (2, 1, 1))
    r = rnd(45)
    n = 64
    vals = [bits(r.choice([0.25, 1.0, 3.0, 150.0, r.uniform(0.1, 50)])) for _ in range(n)]
    def row(xb):
        x = fv(xb)
        s, cnt = 0.0, 0
        while not (x >= 100.0):
            t = x
            x = val(fres(x * 1.5))
            if t < 2.0:
                continue
            s = val(fres(s + t))
            cnt += 1
        return [fres(s), cnt]
    return rows(c, vals, 1, 2, row)


# ---------------------------------------------------------------- LDS, barriers, atomics

@case
def lds_reduce():
    c = Case('lds_reduce', (3, 1, 1))
    r = rnd(50)
    n = 3 * 128
    vals = [r.randrange(1 << 32) for _ in range(n)]
    c.uav(0, vals)
    c.uav(1, [0] * 3)
    c.expect(1, [sum(vals[g * 128:(g + 1) * 128]) & M32 for g in range(3)])
    return c


@case
def lds_reverse():
    c = Case('lds_reverse', (2, 1, 1))
    vals = [i * 7 + 1 for i in range(128)]
    c.uav(0, vals)
    out = []
    for g in range(2):
        out += list(reversed(vals[g * 64:(g + 1) * 64]))
    c.uav(1, [0] * 128)
    c.expect(1, out)
    return c


@case
def lds_prefix_sum():
    c = Case('lds_prefix_sum', (2, 1, 1))
    r = rnd(51)
    vals = [r.randrange(1000) for _ in range(128)]
    c.uav(0, vals)
    out = []
    for g in range(2):
        acc = 0
        for v in vals[g * 64:(g + 1) * 64]:
            acc += v
            out.append(acc)
    c.uav(1, [0] * 128)
    c.expect(1, out)
    return c


@case
def atomic_histogram():
    c = Case('atomic_histogram', (4, 1, 1))
    r = rnd(52)
    n = 256
    vals = [r.randrange(1 << 32) for _ in range(n)]
    c.uav(0, vals)
    bins = [0] * 16
    mx = [0] * 16
    for v in vals:
        bins[v & 15] += 1
        mx[v & 15] = max(mx[v & 15], v)
    c.uav(1, [0] * 32)
    c.expect(1, bins + mx)
    return c


@case
def atomic_alloc():
    c = Case('atomic_alloc', (3, 1, 1))
    c.uav(1, [0])
    c.uav(2, [0] * 200)  # 192 items: the last 8 flags stay 0
    c.expect(1, [192])
    c.expect(2, [1] * 192 + [0] * 8)
    return c


@case
def atomic_ops():
    c = Case('atomic_ops', (2, 1, 1))
    r = rnd(53)
    n = 128
    vals = [r.randrange(1 << 32) for _ in range(n)]
    init = [5, 1000, 7, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0, 0xFFFFFFFF, 0, 0x0F0F0F0F, 990, 3]
    c.uav(0, vals)
    c.uav(1, init)
    w = list(init)
    for v in vals:
        w[0] = (w[0] + v) & M32
        w[1] = (w[1] - v) & M32
        w[2] = (1000 - w[2]) & M32  # constant operand: order independent
        w[3] = min(s32(w[3]), s32(v)) & M32
        w[4] = max(s32(w[4]), s32(v)) & M32
        w[5] = min(w[5], v)
        w[6] = max(w[6], v)
        w[7] &= v
        w[8] |= v
        w[9] ^= v
        w[10] = 0 if w[10] >= 1000 else w[10] + 1
        w[11] = 1000 if (w[11] == 0 or w[11] > 1000) else w[11] - 1
    c.expect(1, w)
    return c


@case
def atomic_cas():
    c = Case('atomic_cas', (2, 1, 1))
    c.uav(1, [1, 100])
    c.expect(1, [pow(3, 64, 1 << 32), 100 + sum(range(64))])
    return c


@case
def lds_atomics():
    c = Case('lds_atomics', (3, 1, 1))
    r = rnd(54)
    vals = [r.randrange(1 << 32) for _ in range(192)]
    c.uav(0, vals)
    out = []
    for g in range(3):
        b = [0] * 8
        for v in vals[g * 64:(g + 1) * 64]:
            b[v & 7] += 1
        out += b
    c.uav(1, [0] * 24)
    c.expect(1, out)
    return c


# ---------------------------------------------------------------- memory forms

@case
def cb_indexed():
    c = Case('cb_indexed', (2, 1, 1))
    n = 128
    vals = [i % 20 for i in range(n)]  # indices 16..19 are past cb1's size (read 0)
    c.uav(0, vals)
    table = []
    for e in range(16):
        table += [e * 11 + 1, e * 13 + 2, e * 17 + 3, e * 19 + 4]
    c.cb(1, table)
    c.cb(0, [3, 1000, 0xABCD, 0])

    def elem(k):
        return table[4 * k:4 * k + 4] if 0 <= k < 16 else [0, 0, 0, 0]
    out = []
    for v in vals:
        e3 = elem(v)
        e4 = elem(v + 2)
        out += [(e3[1] * 3 + 1000) & M32, (e3[0] + e4[3]) & M32, e4[2], 0xABCD]
    c.uav(1, [0] * 4 * n)
    c.expect(1, out)
    return c


@case
def itemp_array():
    c = Case('itemp_array', (2, 1, 1))
    r = rnd(60)
    n = 32
    vals = [r.choice([0, 0xFFFFFFFF, r.randrange(100), r.randrange(1 << 32)]) for _ in range(8 * n)]
    c.uav(0, vals)
    out = []
    for i in range(n):
        out += sorted(vals[8 * i:8 * i + 8])
    c.uav(1, [0] * 8 * n)
    c.expect(1, out)
    return c


@case
def global_g():
    c = Case('global_g', (1, 1, 1))
    r = rnd(61)
    g = [bits(r.randrange(-100, 100) / 8.0) for _ in range(48 * 4)]
    c.g(g)
    out = list(g)
    bias = fv(g[3])
    for i in range(16):
        src = [fv(x) for x in g[4 * (i + 1):4 * (i + 2)]]
        res = [fres(x * 2.0 + i) for x in src]
        res[3] = fres(val(res[3]) + bias)
        out[4 * (32 + i):4 * (33 + i)] = res
    c.expect_g(out)
    return c


@case
def raw_vec_access():
    c = Case('raw_vec_access', (1, 1, 1))
    vals = [0x1000 + i for i in range(128)]
    c.uav(0, vals)
    out = [0xEEEEEEEE] * 512
    for i in range(32):
        rec = vals[4 * i:4 * i + 4]
        out[4 * i:4 * i + 4] = rec
        out[128 + 4 * i:128 + 4 * i + 4] = rec
        out[256 + 4 * i:256 + 4 * i + 4] = rec
        out[384 + 4 * i] = rec[0]
        out[384 + 4 * i + 2] = rec[2]
    c.uav(1, [0xEEEEEEEE] * 512)
    c.expect(1, out)
    return c


@case
def oob_edges():
    """Per-dword bounds without wrap-around on odd-sized buffers (see oob_edges.il)."""
    c = Case('oob_edges', (1, 1, 1))
    loads = [0, 4, 8, 12, 16, 0xFFFFFFFC, 0xFFFFFFF8, 0xFFFFFFF0,
             0x7FFFFFFC, 0x80000000, 0xFFFFFFF4, 20, 24, 0xFFFFFFE0, 4, 0]
    stores = [0, 16, 0xFFFFFFFC, 0xFFFFFFF0, 20, 0xFFFFFFF8, 0x80000000, 0xFFFFFFF4,
              24, 28, 0x40000000, 0xFFFFFFE8, 32, 36, 40, 44]
    index = [0, 1, 2, 3, 0x20000000, 0x20000001, 0x1FFFFFFF, 0xFFFFFFFF,
             0x40000000, 0x80000000, 5, 6, 0xE0000000, 0x10000000, 7, 8]
    c.uav(0, [w for i in range(16) for w in (loads[i], stores[i], index[i], 0)])
    src = bytes(range(0x41, 0x41 + 13))
    c.files['uav1.bin'] = src

    def dword(buf, a):
        # in range iff a + 4 <= len(buf), exactly
        if a + 4 <= len(buf):
            return struct.unpack('<I', buf[a:a + 4])[0]
        return 0
    out = [0xEEEEEEEE] * (16 * 16)
    for i in range(16):
        out[16 * i:16 * i + 4] = [dword(src, loads[i] + 4 * k) for k in range(4)]
    st = bytearray(range(0xA0, 0xA0 + 21))
    c.files['uav3.bin'] = bytes(st)
    s4 = bytes(range(0x61, 0x61 + 24))
    c.files['uav4.bin'] = s4
    s5 = bytearray([0x55] * 24)
    c.files['uav5.bin'] = bytes(s5)
    for i in range(16):
        data = [(stores[i] + 4 * k) & M32 for k in range(4)]
        for k in range(4):
            a = stores[i] + 4 * k
            if a + 4 <= len(st):
                st[a:a + 4] = struct.pack('<I', data[k])
        # struct load of .xy at (index, 4): bytes index*8 + 4 + 4k
        base = index[i] * 8 + 4
        out[16 * i + 4:16 * i + 6] = [dword(s4, base + 4 * k) for k in range(2)]
        for k in range(2):
            a = base + 4 * k
            if a + 4 <= len(s5):
                s5[a:a + 4] = struct.pack('<I', (index[i] * 8 + 4 + 4 * k) & M32)
    c.uav(2, [0xEEEEEEEE] * (16 * 16))
    c.expect(2, out)
    c.files['expect_uav3.bin'] = bytes(st)
    c.files['expect_uav5.bin'] = bytes(s5)
    return c


@case
def struct_uav():
    c = Case('struct_uav', (2, 1, 1))
    r = rnd(62)
    n = 128
    vals = [r.randrange(1 << 32) for _ in range(3 * n)]
    def row(a, b, cc):
        return [cc, (a + b) & M32, (a * cc) & M32]
    return rows(c, vals, 3, 3, row)


@case
def oob_access():
    c = Case('oob_access', (1, 1, 1))
    vals = [100 + i for i in range(40)]
    c.uav(0, vals)
    out = [(vals[i + 8] if i + 8 < 40 else 0) for i in range(40)]
    c.uav(1, [0] * 40)
    c.expect(1, out)
    return c


@case
def sysvals_2d():
    c = Case('sysvals_2d', (3, 2, 1))
    gx, gy, bx, by = 3, 2, 8, 4
    total = gx * gy * bx * by
    out = [0] * (16 * total)
    for gyi in range(gy):
        for gxi in range(gx):
            gflat = gyi * gx + gxi
            for ty in range(by):
                for tx in range(bx):
                    tflat = ty * bx + tx
                    aflat = gflat * bx * by + tflat  # group-major (L1433)
                    rec = [tx, ty, gxi, gyi,
                           gxi * bx + tx, gyi * by + ty, aflat, tflat,
                           gflat, aflat, tflat, gflat,
                           0, 0, 0, 0]
                    out[16 * aflat:16 * aflat + 16] = rec
    c.uav(1, [0] * (16 * total))
    c.expect(1, out)
    return c


@case
def lds_vec_struct():
    c = Case('lds_vec_struct', (2, 1, 1))
    r = rnd(63)
    vals = [r.randrange(1 << 32) for _ in range(4 * 128)]
    for k in range(0, len(vals), 12):
        vals[k] = (vals[k] & 0xFFFF0000) | 0x80F0  # negative byte and short
    c.uav(0, vals)
    out = []
    for i in range(128):
        g, t = divmod(i, 64)
        j = g * 64 + (t + 1) % 64
        rec = vals[4 * j:4 * j + 4]
        w = rec[0]
        b, h = w & 0xFF, w & 0xFFFF
        out += rec + [(b - 256 if b & 0x80 else b) & M32, b,
                      (h - 65536 if h & 0x8000 else h) & M32, h]
    c.uav(1, [0] * 8 * 128)
    c.expect(1, out)
    return c


@case
def oob_lds_vectors():
    c = Case('oob_lds_vectors', (1, 1, 1))
    # Load indices: inside both windows, the last record, the 100-byte window's partial
    # record (6: bytes 96..111), just past the end, wrapping addresses.
    idx = [0, 1, 5, 6, 7, 31, 32, 33, 0x0FFFFFFF, 0x10000000, 0x10000001, 0x80000001,
           24, 25, 2, 3, 4, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 30]
    # Store words d: the address ((31 - t) + (d << 5)) << 4 is slot 31 - t for d = 0 (and
    # for d = 2^27, which wraps back), outside the window otherwise.
    idx2 = [0 if t % 3 else [1, 0x7FFFFFF, 0x8000000, 0xFFFFFFFF][t % 12 // 3]
            for t in range(32)]
    c.uav(0, idx + idx2)
    lds0 = [t + d for t in range(32) for d in (0, 100, 200, 300)]
    lds1 = [w + 5000 for w in range(25)]

    def load(mem, size, a):
        return [mem[(a + 4 * j) // 4] if a + 4 * j + 4 <= size else 0 for j in range(4)]

    out = []
    for t in range(32):
        out += load(lds0, 512, (idx[t] << 4) & M32)
    for t in range(32):
        out += load(lds1, 100, (idx[t] << 4) & M32)
    for t in range(32):
        a = (((31 - t) + (idx2[t] << 5)) << 4) & M32
        for j in range(4):
            if a + 4 * j + 4 <= 512:
                lds0[(a + 4 * j) // 4] = t + 1000 * (j + 1)
    for t in range(32):
        out += lds0[4 * t:4 * t + 4]
    c.uav(1, [0] * len(out))
    c.expect(1, out)
    return c

# ---------------------------------------------------------------- producer styles

@case
def ocl_vecadd_llvm():
    c = Case('ocl_vecadd_llvm', (3, 1, 1))
    r = rnd(70)
    n = 150
    a = [bits(r.uniform(-100, 100)) for _ in range(n)]
    b = [bits(r.uniform(-100, 100)) for _ in range(n)]
    sentinel = [0xCAFEF00D] * n
    c.uav(11, a + b + sentinel)
    abi = [0] * 60
    abi[4] = 64  # cb0[1].x: local size
    c.cb(0, abi)
    c.cb(1, [0, 0, 0, 0, 4 * n, 0, 0, 0, 8 * n, 0, 0, 0, n, 0, 0, 0])
    out = [fres(fv(x) + fv(y)) for x, y in zip(a, b)]
    c.expect(11, a + b + out)
    return c


@case
def ocl_reduce_llvm():
    c = Case('ocl_reduce_llvm', (2, 1, 1))
    r = rnd(71)
    vals = [bits(r.uniform(-10, 10)) for _ in range(128)]
    c.uav(11, vals + [0, 0])
    c.cb(0, [0] * 60)
    c.cb(1, [0, 0, 0, 0, 512, 0, 0, 0])
    sums = []
    for g in range(2):
        lds = [fv(x) for x in vals[g * 64:(g + 1) * 64]]
        s = 32
        while s:
            for t in range(s):
                lds[t] = val(fres(lds[t] + lds[t + s]))
            s >>= 1
        sums.append(fres(lds[0]))
    c.expect(11, vals + sums)
    return c


@case
def cal_matmul():
    c = Case('cal_matmul', (2, 2, 1))
    r = rnd(72)
    n = 16
    A = [[r.randrange(-16, 16) / 4.0 for _ in range(n)] for _ in range(n)]
    B = [[r.randrange(-16, 16) / 4.0 for _ in range(n)] for _ in range(n)]
    c.uav(0, [bits(x) for row in A for x in row])
    c.uav(1, [bits(x) for row in B for x in row])
    c.uav(2, [0] * (n * n))
    c.cb(0, [n, 0, 0, 0])
    C = []
    for i in range(n):
        for j in range(n):
            acc = 0.0
            for k in range(n):
                acc = val(fres(A[i][k] * B[k][j] + acc))  # small quarters: exact
            C.append(fres(acc))
    c.expect(2, C)
    return c


@case
def loop_const_trips():
    c = Case('loop_const_trips', (2, 1, 1))
    r = rnd(131)
    vals = [r.randrange(1 << 32) for _ in range(128)]
    vals[:4] = [0, M32, 0x55, 0xAA]
    def row(x):
        acc, s = x, 128
        while s != 0:
            acc = (acc * 3 + s) & M32 if x & s else (acc + 1) & M32
            s >>= 1
        acc2, t = 0, 1
        while t < 200:
            acc2 = (acc2 + t * x) & M32
            t *= 3
        return [acc, acc2, t, s]
    return rows(c, vals, 1, 4, row)


@case
def loop_exit_offset():
    c = Case('loop_exit_offset', (2, 1, 1))
    r = rnd(132)
    vals = [r.randrange(1 << 32) for _ in range(128)]
    vals[:8] = [0, 1, 2, M32, 19, 20, 21, 0x80000000]
    for k in range(8, 48):
        vals[k] = r.randrange(25)
    def row(n):
        i, acc = 0, 0
        while True:
            acc = (acc * 3 + i + 1) & M32
            if i == (n - 1) & M32 or i + 1 >= 20:
                break
            i += 1
        return [i, acc]
    return rows(c, vals, 1, 2, row)


def main():
    names = []
    for fn in CASES:
        cs = fn()
        il = os.path.join(HERE, cs.name + '.il')
        if not os.path.exists(il):
            sys.exit('no kernel %s' % il)
        cs.write()
        names.append(cs.name)
    print('wrote %d cases' % len(names))


if __name__ == '__main__':
    main()
