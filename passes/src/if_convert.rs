//! If-conversion: a short, side-effect-free `if` arm (or both arms of an `if/else`) runs
//! unconditionally in the branching block, and the join block's parameters take `select`s of
//! the two paths' values. The branch, and on SM50 its `SSY`/`SYNC` reconvergence, disappear.
//!
//! Requires: verified SSA. Guarantees: behaviour unchanged. Shapes, for a block `A` ending in
//! `brif c, T(..), E(..)`:
//! - triangle: `T` has `A` as its only predecessor, holds at most [`MAX_ARM`] pure
//!   instructions and ends in `jump E(..)` (or the same with `T` and `E` swapped);
//! - diamond: `T` and `E` both qualify as arms and jump to the same block `M`;
//! - no arms: `brif c, M(..), M(..)`, both edges entering one block (what CFG simplification
//!   leaves of an `if` whose arms only pass values on).
//!
//! The arms' instructions move, in order, before `A`'s branch (their block parameters replaced
//! by `A`'s branch arguments), `A` ends in `jump M(..)` with `select c, then, else` for every
//! parameter whose incoming values differ, and the arm blocks are removed. Pure IR operations
//! are total (integer division by zero is defined, floats do not trap), so executing an arm
//! whose condition is false changes no result. An arm may also read memory: at most
//! [`MAX_ARM_LOADS`] checked loads of buffers or `g[]` ([`speculable_load`]); run where the
//! condition is false, such a load reads a value the `select` discards and never faults.
//! Rounds repeat
//! (at most [`MAX_ROUNDS`]) so that an `if` nested in an arm converts before its parent.

use crate::gvn::is_pure;
use crate::ir::{
    Block, BlockCall, ControlFlowGraph, FuncCursor, Function, Inst, InstructionData, MemSpace,
    Opcode, Value,
};
use cranelift_entity::SecondaryMap;

/// Most instructions an arm may have to be executed unconditionally.
pub const MAX_ARM: usize = 6;
/// Most loads an arm may have to be executed unconditionally ([`speculable_load`]).
pub const MAX_ARM_LOADS: usize = 2;
/// Most rounds over the function (nesting depth converted).
pub const MAX_ROUNDS: usize = 4;

/// Runs if-conversion on `func`.
pub fn run(func: &mut Function) {
    convert(func);
}

/// As [`run`], returning how many branches were removed.
pub fn convert(func: &mut Function) -> usize {
    let mut total = 0;
    for _ in 0..MAX_ROUNDS {
        let n = round(func);
        if n == 0 {
            break;
        }
        total += n;
    }
    total
}

/// Whether `data` is a load that may run where the program would not: a read of a buffer, a
/// shared resource or `g[]` not marked `inbounds`. The backend checks such an access (a word
/// outside its buffer reads 0; under `--assume-in-bounds` lowering marks every one of them
/// `inbounds`, so none is speculated there), so it never faults, and where the arm's condition
/// holds it reads what the arm read: no write lies between the two positions, and none is in
/// the arm. LDS reads are left in their arms (the backend drops LDS checks under
/// `--assume-in-bounds` whatever the mark says).
fn speculable_load(data: &InstructionData) -> bool {
    matches!(
        data,
        InstructionData::Load { mem, .. }
            if !mem.inbounds
                && matches!(mem.space, MemSpace::Uav(_) | MemSpace::Srv(_) | MemSpace::Global)
    )
}

/// An arm: its block, its parameters' incoming values (from `A`'s branch), its instructions
/// and where it jumps.
struct Arm {
    block: Block,
    insts: Vec<Inst>,
    join: BlockCall,
}

fn arm(func: &Function, cfg: &ControlFlowGraph, a: Block, call: &BlockCall) -> Option<Arm> {
    let b = call.block;
    if b == a || cfg.preds(b) != [a] || Some(b) == func.entry_block() {
        return None;
    }
    let term = func.terminator(b)?;
    let InstructionData::Jump { dests, .. } = &func.dfg.insts[term] else {
        return None;
    };
    let insts: Vec<Inst> = func.layout.block_insts(b).filter(|&i| i != term).collect();
    if insts.len() > MAX_ARM {
        return None;
    }
    let mut loads = 0;
    for &i in &insts {
        let data = &func.dfg.insts[i];
        if speculable_load(data) {
            loads += 1;
        } else if !is_pure(data) {
            return None;
        }
    }
    if loads > MAX_ARM_LOADS {
        return None;
    }
    if dests[0].block == b || dests[0].block == a {
        return None;
    }
    Some(Arm {
        block: b,
        insts,
        join: dests[0].clone(),
    })
}

/// A conversion: the arms (with the branch call that enters each), the join block, and the
/// values the join's parameters receive along the then and the else side.
type Shape<'a> = (Vec<(Arm, &'a BlockCall)>, Block, Vec<Value>, Vec<Value>);

fn round(func: &mut Function) -> usize {
    let cfg = ControlFlowGraph::with_function(func);
    let mut subst: SecondaryMap<Value, Option<Value>> = SecondaryMap::new();
    let mut count = 0;
    for a in func.layout.blocks().collect::<Vec<_>>() {
        let Some(term) = func.terminator(a) else {
            continue;
        };
        let InstructionData::Brif { arg, dests, .. } = func.dfg.insts[term].clone() else {
            continue;
        };
        let [then_call, else_call] = *dests;
        let c = arg[0];
        let one_block = then_call.block == else_call.block;
        let (t, e) = if one_block {
            (None, None)
        } else {
            (
                arm(func, &cfg, a, &then_call),
                arm(func, &cfg, a, &else_call),
            )
        };
        // (then arm, else arm, join block, incoming values from each side)
        let (arms, join, from_then, from_else): Shape<'_> = match (t, e) {
            // Both edges enter one block (empty arms, removed by CFG simplification): only
            // the arguments differ.
            _ if one_block => (
                Vec::new(),
                then_call.block,
                then_call.args.to_vec(),
                else_call.args.to_vec(),
            ),
            (Some(t), Some(e)) if t.join.block == e.join.block => {
                let j = t.join.block;
                let (ft, fe) = (t.join.args.to_vec(), e.join.args.to_vec());
                (vec![(t, &then_call), (e, &else_call)], j, ft, fe)
            }
            (Some(t), _) if t.join.block == else_call.block => {
                let j = t.join.block;
                let ft = t.join.args.to_vec();
                (vec![(t, &then_call)], j, ft, else_call.args.to_vec())
            }
            (_, Some(e)) if e.join.block == then_call.block => {
                let j = e.join.block;
                let fe = e.join.args.to_vec();
                (vec![(e, &else_call)], j, then_call.args.to_vec(), fe)
            }
            _ => continue,
        };
        // The arms' parameters are the branch's arguments.
        for (x, call) in &arms {
            for (&p, &v) in func.dfg.block_params(x.block).iter().zip(&call.args) {
                subst[p] = Some(v);
            }
        }
        let resolve = |s: &SecondaryMap<Value, Option<Value>>, mut v: Value| {
            while let Some(n) = s[v] {
                v = n;
            }
            v
        };
        // Move the arms' instructions before the branch.
        for (x, _) in &arms {
            for &i in &x.insts {
                func.layout.remove_inst(i);
                func.layout.insert_inst(i, term);
                func.dfg.insts[i].map_values(|v| resolve(&subst, v));
            }
        }
        let mut cur = FuncCursor::new(func).at_inst(term);
        let mut args = Vec::with_capacity(from_then.len());
        for (&tv, &ev) in from_then.iter().zip(&from_else) {
            let (tv, ev) = (resolve(&subst, tv), resolve(&subst, ev));
            args.push(if tv == ev {
                tv
            } else {
                cur.ins().select(c, tv, ev)
            });
        }
        func.dfg.replace_inst(
            term,
            InstructionData::Jump {
                opcode: Opcode::Jump,
                dests: [BlockCall {
                    block: join,
                    args: args.into_iter().collect(),
                }],
            },
        );
        for (x, _) in &arms {
            func.layout.remove_block(x.block);
            for idx in (0..func.dfg.block_params(x.block).len()).rev() {
                func.dfg.remove_block_param(x.block, idx);
            }
        }
        count += 1;
        // Blocks touched here are not re-examined with the stale CFG: a converted `A` now
        // ends in a jump, and its arms are gone.
    }
    if count > 0 {
        func.rewrite_uses(|v| {
            let mut v = v;
            while let Some(n) = subst[v] {
                v = n;
            }
            v
        });
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::reader::parse_function_text;

    #[test]
    fn triangle_and_diamond_become_selects() {
        let mut f = parse_function_text(
            "kernel %k {
    uav0 = raw
block0:
    v0 = special tid.x
    v1 = iconst.b32 0x2
    v2 = icmp ult v0, v1
    brif v2, block1(v0), block2(v1)
block1(v3: b32):
    v4 = iadd v3, v3
    jump block2(v4)
block2(v5: b32):
    v6 = icmp eq v5, v1
    brif v6, block3, block4
block3:
    v7 = imul v5, v5
    jump block5(v7)
block4:
    v8 = isub v5, v1
    jump block5(v8)
block5(v9: b32):
    store.b32 uav0[v0], v9
    return
}",
        )
        .expect("parses");
        assert_eq!(convert(&mut f), 2);
        crate::verifier::verify_function(&f).unwrap_or_else(|e| panic!("{}", e.display_with(&f)));
        let text = f.to_string();
        assert_eq!(text.matches("select").count(), 2, "{text}");
        assert!(!text.contains("brif"), "{text}");
        assert!(text.contains("v4 = iadd v0, v0"), "{text}");
    }

    #[test]
    fn arms_with_memory_or_too_long_stay() {
        // An arm that reads memory where the program would, then writes it back.
        let kernel = |arm: &str| {
            format!(
                "kernel %k {{
    uav0 = raw
block0:
    v0 = special tid.x
    v1 = iconst.b32 0x2
    v2 = icmp ult v0, v1
    brif v2, block1, block2(v1)
block1:
{arm}
    jump block2(v3)
block2(v4: b32):
    store.b32 uav0[v0], v4
    return
}}"
            )
        };
        for (arm, why) in [
            (
                "    v3 = load.b32 inbounds uav0[v0]",
                "a load promised in range only where it runs",
            ),
            (
                "    store.b32 uav0[v0], v1\n    v3 = iadd v1, v1",
                "a store",
            ),
        ] {
            let mut f = parse_function_text(&kernel(arm)).expect("parses");
            assert_eq!(convert(&mut f), 0, "{why}");
        }
    }
}
