//! Strength reduction: integer multiplication, division and remainder by constants become
//! shifts, masks and multiply-high sequences.
//!
//! Requires: verified SSA. Guarantees: behaviour unchanged, bit for bit, under the IR's integer
//! semantics (wrapping arithmetic, `x / 0 = ~0`, `x % 0 = ~0`, `MIN / -1 = MIN`, `MIN % -1 = 0`);
//! every rewritten instruction keeps its result value, which becomes a `copy` of the new
//! computation (copy propagation and DCE clean up after it). Rewrites, for `b32` operands with
//! a constant divisor `d` (or constant factor):
//! - `imul x, 2^k` (either operand constant, `b32` or `b64`) -> `ishl x, k`;
//! - `udiv x, 0` / `urem x, 0` -> `~0`; `udiv x, 2^k` -> `ushr x, k`; `urem x, 2^k` ->
//!   `and x, 2^k - 1`; `udiv x, d` with `d >= 2^31` -> `select (x >= d), 1, 0`; any other `d`
//!   -> `umulhi` by a magic number and shifts (Granlund & Montgomery; Hacker's Delight 10-8),
//!   with `urem x, d = x - (x / d) * d`;
//! - `idiv x, 0` / `irem x, 0` -> `~0`; `idiv x, 1` -> `x`; `idiv x, -1` -> `ineg x`;
//!   `irem x, ±1` -> `0`; `idiv x, ±2^k` -> a biased arithmetic shift (negated for negative
//!   `d`); any other `d` -> `imulhi` by a signed magic number (Hacker's Delight 10-1);
//!   `irem x, d = x - (x / d) * d`.
//!
//! On SM50 a 32-bit division by a variable is about fifteen instructions around a `MUFU.RCP`
//! (variable latency); by a constant it becomes two to five ALU instructions.

use crate::ir::{FuncCursor, Function, InstructionData, IntCC, Opcode, Type, Value};

/// Runs strength reduction on `func`.
pub fn run(func: &mut Function) {
    reduce(func);
}

/// As [`run`], returning how many instructions were rewritten.
pub fn reduce(func: &mut Function) -> usize {
    let mut count = 0;
    for inst in func.insts_in_layout() {
        let InstructionData::Binary { opcode, args } = func.dfg.insts[inst] else {
            continue;
        };
        let ty = func.dfg.value_type(args[0]);
        let konst = |v: Value| func.dfg.value_const(v);
        let q = match opcode {
            Opcode::Imul => {
                let (x, c) = match (konst(args[0]), konst(args[1])) {
                    (_, Some(c)) => (args[0], c),
                    (Some(c), None) => (args[1], c),
                    (None, None) => continue,
                };
                let c = c & ty.mask();
                // `x * 1` and `x * 0` are constant folding's business.
                if !c.is_power_of_two() || c == 1 {
                    continue;
                }
                let mut cur = FuncCursor::new(func).at_inst(inst);
                let k = cur.ins().iconst(Type::B32, c.trailing_zeros() as u64);
                cur.ins().ishl(x, k)
            }
            Opcode::Udiv | Opcode::Urem | Opcode::Idiv | Opcode::Irem if ty == Type::B32 => {
                let Some(d) = konst(args[1]) else { continue };
                // A constant dividend too is folded by const_fold.
                if konst(args[0]).is_some() {
                    continue;
                }
                let d = d as u32;
                let x = args[0];
                let mut cur = FuncCursor::new(func).at_inst(inst);
                match opcode {
                    Opcode::Udiv => udiv(&mut cur, x, d),
                    Opcode::Urem => urem(&mut cur, x, d),
                    Opcode::Idiv => idiv(&mut cur, x, d as i32),
                    _ => irem(&mut cur, x, d as i32),
                }
            }
            _ => continue,
        };
        func.dfg.replace_inst(
            inst,
            InstructionData::Unary {
                opcode: Opcode::Copy,
                args: [q],
            },
        );
        count += 1;
    }
    count
}

fn k32(cur: &mut FuncCursor, v: u32) -> Value {
    cur.ins().iconst(Type::B32, v as u64)
}

/// `x / d`, unsigned.
pub(crate) fn udiv(cur: &mut FuncCursor, x: Value, d: u32) -> Value {
    match d {
        0 => k32(cur, u32::MAX),
        1 => x,
        _ if d.is_power_of_two() => {
            let s = k32(cur, d.trailing_zeros());
            cur.ins().ushr(x, s)
        }
        _ if d >= 1 << 31 => {
            // The quotient is 0 or 1.
            let dv = k32(cur, d);
            let ge = cur.ins().icmp(IntCC::Uge, x, dv);
            let one = k32(cur, 1);
            let zero = k32(cur, 0);
            cur.ins().select(ge, one, zero)
        }
        _ => {
            let m = UnsignedMagic::new(d);
            let mv = k32(cur, m.multiplier);
            let t = cur.ins().umulhi(x, mv);
            if m.add {
                // q = (((x - t) >> 1) + t) >> (shift - 1)
                let diff = cur.ins().isub(x, t);
                let one = k32(cur, 1);
                let half = cur.ins().ushr(diff, one);
                let sum = cur.ins().iadd(half, t);
                let s = k32(cur, m.shift - 1);
                cur.ins().ushr(sum, s)
            } else if m.shift == 0 {
                t
            } else {
                let s = k32(cur, m.shift);
                cur.ins().ushr(t, s)
            }
        }
    }
}

/// `x % d`, unsigned.
fn urem(cur: &mut FuncCursor, x: Value, d: u32) -> Value {
    match d {
        0 => k32(cur, u32::MAX),
        _ if d.is_power_of_two() => {
            let m = k32(cur, d - 1);
            cur.ins().band(x, m)
        }
        _ => {
            let q = udiv(cur, x, d);
            let dv = k32(cur, d);
            let qd = cur.ins().imul(q, dv);
            cur.ins().isub(x, qd)
        }
    }
}

/// `x / d`, signed, truncating.
fn idiv(cur: &mut FuncCursor, x: Value, d: i32) -> Value {
    let abs = d.unsigned_abs();
    match d {
        0 => k32(cur, u32::MAX),
        1 => x,
        -1 => cur.ins().ineg(x),
        _ if abs.is_power_of_two() => {
            // q = (x + ((x >> 31) >>> (32 - k))) >> k: rounds toward zero for negative x.
            let k = abs.trailing_zeros();
            let s31 = k32(cur, 31);
            let sign = cur.ins().ishr(x, s31);
            let sk = k32(cur, 32 - k);
            let bias = cur.ins().ushr(sign, sk);
            let biased = cur.ins().iadd(x, bias);
            let kv = k32(cur, k);
            let q = cur.ins().ishr(biased, kv);
            if d < 0 {
                cur.ins().ineg(q)
            } else {
                q
            }
        }
        _ => {
            let m = SignedMagic::new(d);
            let mv = k32(cur, m.multiplier as u32);
            let mut q = cur.ins().imulhi(x, mv);
            if d > 0 && m.multiplier < 0 {
                q = cur.ins().iadd(q, x);
            } else if d < 0 && m.multiplier > 0 {
                q = cur.ins().isub(q, x);
            }
            if m.shift > 0 {
                let s = k32(cur, m.shift);
                q = cur.ins().ishr(q, s);
            }
            // Add one when the quotient estimate is negative (round toward zero).
            let s31 = k32(cur, 31);
            let t = cur.ins().ushr(q, s31);
            cur.ins().iadd(q, t)
        }
    }
}

/// `x % d`, signed (sign of the dividend).
fn irem(cur: &mut FuncCursor, x: Value, d: i32) -> Value {
    match d {
        0 => k32(cur, u32::MAX),
        1 | -1 => k32(cur, 0),
        _ => {
            let q = idiv(cur, x, d);
            let dv = k32(cur, d as u32);
            let qd = cur.ins().imul(q, dv);
            cur.ins().isub(x, qd)
        }
    }
}

/// Magic number for unsigned division by `d` (2 <= d < 2^31, not a power of two): `x / d ==
/// umulhi(x, multiplier) >> shift`, or with `add` the 33-bit multiplier form
/// `(((x - t) >> 1) + t) >> (shift - 1)` where `t = umulhi(x, multiplier)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnsignedMagic {
    /// Low 32 bits of the multiplier.
    pub multiplier: u32,
    /// Whether the multiplier has a 33rd bit (the add-back form).
    pub add: bool,
    /// Post-shift.
    pub shift: u32,
}

impl UnsignedMagic {
    /// The smallest-shift magic for `d` (Hacker's Delight, `magicu2`).
    pub fn new(d: u32) -> UnsignedMagic {
        debug_assert!(d >= 2);
        // Find the least p >= 32 with 2^p > nc * (d - 1 - (2^p - 1) mod d), nc the largest
        // x with x mod d = d - 1. Then m = (2^p + d - 1 - (2^p - 1) mod d) / d (up to 33 bits).
        let d64 = d as u64;
        let nc = (1u64 << 32) - 1 - ((1u64 << 32) - d64) % d64;
        let mut p = 32u32;
        loop {
            let two_p = 1u128 << p;
            let rem = (two_p - 1) % d64 as u128;
            if two_p > nc as u128 * (d64 as u128 - 1 - rem) {
                let m = (two_p + d64 as u128 - 1 - rem) / d64 as u128;
                return UnsignedMagic {
                    multiplier: m as u32,
                    add: m >> 32 != 0,
                    shift: p - 32,
                };
            }
            p += 1;
        }
    }
}

/// Magic number for signed division by `d` (|d| >= 2, not a power of two): `q = imulhi(x, M)`,
/// corrected by `± x` when the signs of `M` and `d` differ, shifted right arithmetically by
/// `shift`, plus one if negative.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignedMagic {
    /// The multiplier `M`.
    pub multiplier: i32,
    /// Post-shift.
    pub shift: u32,
}

impl SignedMagic {
    /// Hacker's Delight figure 10-1 (`magic`).
    pub fn new(d: i32) -> SignedMagic {
        const TWO31: u32 = 0x8000_0000;
        let ad = d.unsigned_abs();
        let t = TWO31 + ((d as u32) >> 31);
        let anc = t - 1 - t % ad;
        let mut p = 31u32;
        let mut q1 = TWO31 / anc;
        let mut r1 = TWO31 - q1 * anc;
        let mut q2 = TWO31 / ad;
        let mut r2 = TWO31 - q2 * ad;
        loop {
            p += 1;
            q1 = q1.wrapping_mul(2);
            r1 = r1.wrapping_mul(2);
            if r1 >= anc {
                q1 = q1.wrapping_add(1);
                r1 = r1.wrapping_sub(anc);
            }
            q2 = q2.wrapping_mul(2);
            r2 = r2.wrapping_mul(2);
            if r2 >= ad {
                q2 = q2.wrapping_add(1);
                r2 = r2.wrapping_sub(ad);
            }
            let delta = ad - r2;
            if !(q1 < delta || (q1 == delta && r1 == 0)) {
                break;
            }
        }
        let m = q2.wrapping_add(1) as i32;
        SignedMagic {
            multiplier: if d < 0 { m.wrapping_neg() } else { m },
            shift: p - 32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::eval_pure;
    use crate::interp::{run_dispatch, Dispatch, InterpOptions, Memory};
    use crate::ir::{MemArg, MemSize, MemSpace, UavKind};

    /// Deterministic pseudo-random words with the edge cases mixed in.
    fn samples() -> Vec<u32> {
        let mut v = vec![
            0,
            1,
            2,
            3,
            7,
            0x7fff_ffff,
            0x8000_0000,
            0x8000_0001,
            0xffff_fffe,
            0xffff_ffff,
            1000,
            0xffff_fc18,
        ];
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..400 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            v.push((s >> 11) as u32);
            v.push((s >> 40) as u32 & 0xffff);
        }
        v
    }

    fn divisors() -> Vec<u32> {
        let mut d: Vec<u32> = (0..=70).collect();
        d.extend((1..=70).map(|x: u32| x.wrapping_neg()));
        d.extend([
            100,
            641,
            1000,
            6700417,
            0x7fff_ffff,
            0x8000_0000,
            0x8000_0001,
            0xc000_0000,
            0xffff_fffe,
            0xffff_ffff,
            1 << 16,
            3 << 20,
            0x1234_5679,
        ]);
        d
    }

    /// The reduced sequence, run by the IR interpreter, equals the original opcode's
    /// semantics ([`eval_pure`]) for every divisor and sample.
    #[test]
    fn reduced_division_matches_semantics() {
        let xs = samples();
        for op in [
            Opcode::Udiv,
            Opcode::Urem,
            Opcode::Idiv,
            Opcode::Irem,
            Opcode::Imul,
        ] {
            for d in divisors() {
                // One kernel per (op, d): out[i] = in[i] op d.
                let mut func = Function::new("k");
                func.group_size = Some([xs.len() as u32, 1, 1]);
                func.uavs.insert(0, UavKind::Raw);
                func.uavs.insert(1, UavKind::Raw);
                let mut cur = FuncCursor::new(&mut func);
                let b = cur.create_block();
                cur.goto_end(b);
                let tid = cur.ins().special(crate::ir::SpecialReg::Tid(0));
                let two = cur.ins().iconst(Type::B32, 2);
                let addr = cur.ins().ishl(tid, two);
                let mem = |space| MemArg {
                    space,
                    offset: 0,
                    size: MemSize::Words(1),
                    align: 4,
                    inbounds: false,
                };
                let x = cur.ins().load(mem(MemSpace::Uav(0)), Some(addr))[0];
                let dv = cur.ins().iconst(Type::B32, d as u64);
                let r = cur.ins().binary(op, x, dv);
                cur.ins().store(mem(MemSpace::Uav(1)), Some(addr), &[r]);
                cur.ins().return_();
                let rewritten = reduce(&mut func);
                let expect_rewrite = match op {
                    Opcode::Imul => d.is_power_of_two() && d != 1,
                    _ => true,
                };
                assert_eq!(rewritten == 1, expect_rewrite, "{op:?} {d}");
                crate::verifier::verify_function(&func).unwrap_or_else(|e| panic!("{e:?}"));
                let mut mem = Memory::default();
                mem.uavs
                    .insert(0, xs.iter().flat_map(|v| v.to_le_bytes()).collect());
                mem.uavs.insert(1, vec![0; xs.len() * 4]);
                let grid = Dispatch {
                    grid: [1, 1, 1],
                    group_size: None,
                };
                run_dispatch(&func, &grid, &mut mem, &InterpOptions::default())
                    .unwrap_or_else(|e| panic!("{op:?} {d}: {e:?}"));
                let out = &mem.uavs[&1];
                let data = InstructionData::Binary {
                    opcode: op,
                    args: [x, dv],
                };
                for (i, &xv) in xs.iter().enumerate() {
                    let got = u32::from_le_bytes(out[i * 4..i * 4 + 4].try_into().unwrap());
                    let want =
                        eval_pure(&data, Type::B32, &[xv as u64, d as u64]).unwrap()[0] as u32;
                    assert_eq!(got, want, "{op:?} {xv:#x} by {d:#x}");
                }
            }
        }
    }

    #[test]
    fn known_magics() {
        // Hacker's Delight table 10-2.
        assert_eq!(
            UnsignedMagic::new(7),
            UnsignedMagic {
                multiplier: 0x2492_4925,
                add: true,
                shift: 3
            }
        );
        assert_eq!(
            SignedMagic::new(7),
            SignedMagic {
                multiplier: 0x9249_2493_u32 as i32,
                shift: 2
            }
        );
        assert_eq!(
            SignedMagic::new(3),
            SignedMagic {
                multiplier: 0x5555_5556,
                shift: 0
            }
        );
    }
}
