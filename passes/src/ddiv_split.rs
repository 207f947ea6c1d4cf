//! f64 division split into a fast path and a general one: `ddiv a, b` becomes
//! `ddiv_normal a, b` (and `drcp b` becomes `ddiv_normal 1.0, b`), which a target may implement without the operand scaling and the
//! special-case fix-ups that a correctly rounded division needs at the ends of the exponent
//! range, and the general `ddiv` runs, in a cold block, only when an operand lies outside
//! that range.
//!
//! ```text
//! b:  ...                           b:  ...
//!     q = ddiv a, b         ==>         q1 = ddiv_normal a, b
//!     rest                              out = (|a| or |b| outside [2^-500, 2^500))
//!                                       brif out, slow, join(q1)
//!                                   slow (cold):
//!                                       q2 = ddiv a, b
//!                                       jump join(q2)
//!                                   join(q):
//!                                       rest
//! ```
//!
//! The range test reads only the operands' high words: `|x|` lies in `[2^-500, 2^500)` exactly
//! when `(hi(x) & 0x7fffffff) - hi(2^-500) < hi(2^500) - hi(2^-500)` unsigned (the bounds'
//! low words are zero; zeros, subnormals, infinities and NaNs all fall outside). Inside it,
//! `1 / b` and the quotient are normal and finite, which is the contract of `ddiv_normal`.
//! This is how ptxas compiles a double division too (a short Newton sequence and a call to a
//! full routine when a range test fails).
//!
//! Runs last in the pipeline, after every pass that could reason about the new opcode or
//! the new blocks: nothing would gain from seeing them, and `if_convert` must not turn the
//! cold path into a select that always runs it.
//!
//! Requires: a verified SSA function. Guarantees: the same behaviour (where the test passes,
//! `ddiv_normal` is IEEE division by its contract; elsewhere the general `ddiv` gives the
//! result); a verifier-clean function; each `ddiv` of the input is in a cold block of its own
//! whose only predecessor is the block of the range test.

use crate::ir::{FuncCursor, Function, Inst, InstructionData, IntCC, Opcode, Type, Value};

/// High word of 2^-500 (biased exponent 523).
const LOW_HI: u64 = 523 << 20;
/// High word of 2^500 (biased exponent 1523).
const HIGH_HI: u64 = 1523 << 20;

/// Runs the pass; returns how many divisions were split.
pub fn run(func: &mut Function) -> usize {
    let divs: Vec<Inst> = func
        .insts_in_layout()
        .into_iter()
        .filter(|&i| matches!(func.dfg.opcode(i), Opcode::Ddiv | Opcode::Drcp))
        .collect();
    for &i in &divs {
        split(func, i);
    }
    divs.len()
}

/// Splits the block of the division `i` at `i` (module doc).
fn split(func: &mut Function, i: Inst) {
    crate::budget::tick();
    let Some(b) = func.layout.inst_block(i) else {
        return;
    };
    let (a, d) = match func.dfg.insts[i] {
        InstructionData::Binary {
            opcode: Opcode::Ddiv,
            args,
        } => (Some(args[0]), args[1]),
        InstructionData::Unary {
            opcode: Opcode::Drcp,
            args: [x],
        } => (None, x),
        _ => return,
    };
    let join = func.dfg.make_block();
    let slow = func.dfg.make_block();
    func.layout.insert_block_after(slow, b);
    func.layout.insert_block_after(join, slow);
    func.dfg.set_cold(slow, true);
    // Everything after the division moves to `join`, in order.
    let mut next = func.layout.next_inst(i);
    while let Some(k) = next {
        next = func.layout.next_inst(k);
        func.layout.remove_inst(k);
        func.layout.append_inst(k, join);
    }
    // The quotient's value becomes `join`'s parameter, so its uses stay as they are.
    let q = func.dfg.inst_results(i)[0];
    func.dfg.clear_results(i);
    func.dfg.attach_block_param(join, q, Type::B64);
    // A reciprocal divides 1.0, which is in range: only the divisor is tested.
    let one = match a {
        Some(_) => None,
        None => {
            let mut cur = FuncCursor::new(func).at_inst(i);
            Some(cur.ins().f64const(1.0))
        }
    };
    func.dfg.replace_inst(
        i,
        InstructionData::Binary {
            opcode: Opcode::DdivNormal,
            args: [a.or(one).unwrap_or(d), d],
        },
    );
    let fast = func.dfg.inst_results(i)[0];
    let mut cur = FuncCursor::new(func).at_end(b);
    let mut out = outside(&mut cur, d);
    if let Some(a) = a {
        let out_a = outside(&mut cur, a);
        out = cur.ins().por(out_a, out);
    }
    cur.ins().brif(out, slow, &[], join, &[fast]);
    cur.goto_end(slow);
    let general = match a {
        Some(a) => cur.ins().ddiv(a, d),
        None => cur.ins().drcp(d),
    };
    cur.ins().jump(join, &[general]);
}

/// Whether `|x|` lies outside `[2^-500, 2^500)` (module doc).
fn outside(cur: &mut FuncCursor, x: Value) -> Value {
    let h = cur.ins().hi(x);
    let mask = cur.ins().iconst(Type::B32, 0x7fff_ffff);
    let m = cur.ins().band(h, mask);
    let minus_low = cur
        .ins()
        .iconst(Type::B32, LOW_HI.wrapping_neg() & 0xffff_ffff);
    let t = cur.ins().iadd(m, minus_low);
    let width = cur.ins().iconst(Type::B32, HIGH_HI - LOW_HI);
    cur.ins().icmp(IntCC::Uge, t, width)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The test on a high word, as the pass builds it.
    fn outside_word(hi: u32) -> bool {
        (hi & 0x7fff_ffff).wrapping_sub(LOW_HI as u32) >= (HIGH_HI - LOW_HI) as u32
    }

    #[test]
    fn the_range_test_is_the_magnitude_range() {
        let lo = 2f64.powi(-500);
        let hi = 2f64.powi(500);
        let vals = [
            0.0,
            -0.0,
            f64::MIN_POSITIVE,
            5e-324,
            lo,
            lo * (1.0 - f64::EPSILON / 2.0),
            hi,
            hi * (1.0 - f64::EPSILON),
            1.0,
            -3.5,
            1e-151,
            1e-150,
            1e150,
            1e151,
            f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        for x in vals {
            let inside = x.abs() >= lo && x.abs() < hi;
            assert_eq!(
                outside_word((x.to_bits() >> 32) as u32),
                !inside,
                "{x:e} ({:#x})",
                x.to_bits()
            );
        }
    }
}
