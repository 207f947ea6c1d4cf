//! Memory access combining: neighbouring 32-bit loads (or stores) of one UAV, SRV, `g[]` or LDS,
//! or indexed reads of one constant buffer, through the same address value become one 64- or
//! 128-bit access when the address is known to be aligned for it (constant buffers: 64-bit at
//! most, SM50's `LDC` has no wider form; reads at a constant address stay operands).
//!
//! Requires: verified SSA. Guarantees: behaviour unchanged. The IR checks a wide access word
//! by word (each word's address is `addr + offset + 4k` computed exactly, out-of-range words
//! read 0 and are not written; [`MemArg`]), exactly as the separate accesses did, so only ordering
//! matters:
//! - loads `load.b32 S[a+o]`, `load.b32 S[a+o+4]`, ... in one block combine at the first one
//!   (the later ones move up) when nothing between them may write `S` (a store or atomic to
//!   `S`, a barrier or fence); the old results become `copy`s of the new load's;
//! - stores combine at the last one (the earlier ones move down) when nothing between them
//!   may read or write `S` (a load, store or atomic of `S`, a barrier or fence);
//! - a run of consecutive words is cut into `b128`/`b64` pieces where the effective address is
//!   provably 16/8-byte aligned ([`known_align`]: shifts, multiplies by constants, sums, selects,
//!   masks; or the first word's access records that alignment); the new access records it.
//!
//! What it buys: with accesses promised in bounds, `LDG.E.128`/`STG.E.64`/`LDS.128`/`LDC.64`
//! instead of four or two instructions (a constant buffer's size is a multiple of 16 bytes, so
//! the backend's one check of an aligned `LDC.64` equals the two words' checks), and no
//! register moves to assemble a double from two words (other bounds-checked accesses are
//! still split per word by the backend, so they neither gain nor lose).

use crate::ir::{
    Block, FuncCursor, Function, Inst, InstructionData, MemArg, MemSize, MemSpace, Opcode, Value,
};

/// Runs access combining on `func`.
pub fn run(func: &mut Function) {
    combine(func);
}

/// As [`run`], returning how many wide accesses were made.
pub fn combine(func: &mut Function) -> usize {
    let mut made = 0;
    let blocks: Vec<Block> = func.layout.blocks().collect();
    for b in blocks {
        made += combine_block(func, b, true);
        made += combine_block(func, b, false);
    }
    made
}

/// One candidate access: instruction, byte offset, and (stores) the stored value.
#[derive(Clone, Copy)]
struct Access {
    inst: Inst,
    offset: i32,
    data: Option<Value>,
    /// The alignment the access itself records for its effective address.
    align: u32,
}

/// The space and address of a plain 32-bit UAV/SRV access (load if `loads`, else store).
fn candidate(func: &Function, inst: Inst, loads: bool) -> Option<(MemSpace, Value, Access)> {
    let data = &func.dfg.insts[inst];
    let (mem, args) = match (data, loads) {
        (InstructionData::Load { mem, args, .. }, true) => (mem, args),
        (InstructionData::Store { mem, args, .. }, false) => (mem, args),
        _ => return None,
    };
    if mem.size != MemSize::Words(1)
        || !matches!(
            mem.space,
            MemSpace::Uav(_)
                | MemSpace::Srv(_)
                | MemSpace::Global
                | MemSpace::Lds(_)
                | MemSpace::Cb(_)
        )
    {
        return None;
    }
    let addr = data.mem_addr()?;
    Some((
        mem.space,
        addr,
        Access {
            inst,
            offset: mem.offset,
            data: if loads { None } else { args.get(1).copied() },
            align: mem.align,
        },
    ))
}

/// Whether `inst` may conflict with moving accesses of `space` across it: for loads, writes
/// of `space`; for stores, any access of `space`. Barriers and fences always conflict.
fn conflicts(func: &Function, inst: Inst, space: MemSpace, loads: bool) -> bool {
    match &func.dfg.insts[inst] {
        InstructionData::Store { mem, .. } | InstructionData::Atomic { mem, .. } => {
            mem.space == space
        }
        InstructionData::Load { mem, .. } => !loads && mem.space == space,
        InstructionData::Barrier { .. } => true,
        _ => false,
    }
}

fn combine_block(func: &mut Function, b: Block, loads: bool) -> usize {
    let insts: Vec<Inst> = func.layout.block_insts(b).collect();
    // Open groups: (space, address, accesses in program order).
    let mut groups: Vec<(MemSpace, Value, Vec<Access>)> = Vec::new();
    let mut done: Vec<(MemSpace, Value, Vec<Access>)> = Vec::new();
    for &inst in &insts {
        if let Some((space, addr, acc)) = candidate(func, inst, loads) {
            // A conflicting access of the same space closes the other groups of that space
            // (an aliasing store, or for stores any access): checked before joining.
            let mut i = 0;
            while i < groups.len() {
                let g = &groups[i];
                let other_addr = g.0 == space && g.1 != addr;
                if other_addr && !loads {
                    done.push(groups.remove(i));
                } else {
                    i += 1;
                }
            }
            match groups.iter_mut().find(|g| g.0 == space && g.1 == addr) {
                Some(g) => {
                    // A store to a word already in the group would reorder two stores to it.
                    if !loads && g.2.iter().any(|a| a.offset == acc.offset) {
                        let old = std::mem::replace(&mut g.2, vec![acc]);
                        done.push((space, addr, old));
                    } else {
                        g.2.push(acc);
                    }
                }
                None => groups.push((space, addr, vec![acc])),
            }
            continue;
        }
        let mut i = 0;
        while i < groups.len() {
            if conflicts(func, inst, groups[i].0, loads) {
                done.push(groups.remove(i));
            } else {
                i += 1;
            }
        }
    }
    done.extend(groups);
    let mut made = 0;
    for (space, addr, accs) in done {
        if accs.len() < 2 {
            continue;
        }
        made += combine_group(func, space, addr, accs, loads);
    }
    made
}

/// Cuts a group into aligned runs of consecutive words and rewrites them.
fn combine_group(
    func: &mut Function,
    space: MemSpace,
    addr: Value,
    mut accs: Vec<Access>,
    loads: bool,
) -> usize {
    // Program order is kept in `accs`; work on a copy sorted by offset.
    let mut by_off = accs.clone();
    by_off.sort_by_key(|a| a.offset);
    by_off.dedup_by_key(|a| a.offset);
    let base_align = known_align(func, addr, 4);
    let mut made = 0;
    let mut i = 0;
    while i < by_off.len() {
        let off = by_off[i].offset;
        // What the address shows, or what the access records (an address that is an
        // induction variable shows nothing; loop_reduce records the alignment it replaced).
        let align_here = base_align.min(offset_align(off)).max(by_off[i].align);
        let run_len = |n: usize| {
            i + n <= by_off.len() && (0..n).all(|k| by_off[i + k].offset == off + 4 * k as i32)
        };
        // SM50's LDC reads at most 64 bits.
        let quads = !matches!(space, MemSpace::Cb(_));
        let n = if quads && align_here >= 16 && run_len(4) {
            4
        } else if align_here >= 8 && run_len(2) {
            2
        } else {
            1
        };
        if n > 1 {
            let piece: Vec<Access> = by_off[i..i + n].to_vec();
            // Program order of the piece's members.
            let order: Vec<Access> = accs
                .iter()
                .copied()
                .filter(|a| piece.iter().any(|p| p.inst == a.inst))
                .collect();
            let mem = MemArg {
                space,
                offset: off,
                size: MemSize::Words(n as u8),
                align: align_here.min(16),
                // Proven in range only if every merged access was.
                inbounds: piece.iter().all(|p| {
                    matches!(&func.dfg.insts[p.inst],
                        InstructionData::Load { mem, .. } | InstructionData::Store { mem, .. }
                            if mem.inbounds)
                }),
            };
            if loads {
                let first = order[0].inst;
                let mut cur = FuncCursor::new(func).at_inst(first);
                let vals = cur.ins().load(mem, Some(addr));
                for (k, p) in piece.iter().enumerate() {
                    func.dfg.replace_inst(
                        p.inst,
                        InstructionData::Unary {
                            opcode: Opcode::Copy,
                            args: [vals[k]],
                        },
                    );
                }
            } else {
                let last = order[order.len() - 1].inst;
                // Invariant: every store access carries its data value (candidate()).
                let data: Vec<Value> = piece.iter().filter_map(|p| p.data).collect();
                let mut cur = FuncCursor::new(func).at_inst(last);
                cur.ins().store(mem, Some(addr), &data);
                for p in &piece {
                    func.layout.remove_inst(p.inst);
                }
            }
            accs.retain(|a| !piece.iter().any(|p| p.inst == a.inst));
            made += 1;
        }
        i += n;
    }
    made
}

pub(crate) fn offset_align(off: i32) -> u32 {
    if off == 0 {
        16
    } else {
        (1u32 << off.trailing_zeros().min(4)).min(16)
    }
}

/// A power of two (at most 16) that provably divides `v`, looking through constants,
/// shifts and multiplies by constants, sums, differences, negations, `imad` and masks.
pub fn known_align(func: &Function, v: Value, depth: u32) -> u32 {
    let Some(inst) = func.dfg.value_inst(v) else {
        return 1;
    };
    if depth == 0 {
        return 1;
    }
    let k = |x: Value| func.dfg.value_const(x);
    let pow = |c: u64| -> u32 {
        if c as u32 == 0 {
            16
        } else {
            1 << (c as u32).trailing_zeros().min(4)
        }
    };
    let rec = |x: Value| known_align(func, x, depth - 1);
    let cap = |x: u64| x.min(16) as u32;
    match &func.dfg.insts[inst] {
        InstructionData::UnaryImm {
            opcode: Opcode::Iconst,
            imm,
            ..
        } => pow(*imm),
        InstructionData::Binary { opcode, args } => {
            let [a, b] = *args;
            match opcode {
                Opcode::Ishl => match k(b) {
                    Some(s) => cap(u64::from(rec(a)) << (s & 31).min(4)),
                    None => 1,
                },
                Opcode::Imul => {
                    let fa = k(a).map_or_else(|| rec(a), pow);
                    let fb = k(b).map_or_else(|| rec(b), pow);
                    cap(u64::from(fa) * u64::from(fb))
                }
                Opcode::Iadd | Opcode::Isub => rec(a).min(rec(b)),
                Opcode::Band => {
                    let fa = k(a).map_or_else(|| rec(a), pow);
                    let fb = k(b).map_or_else(|| rec(b), pow);
                    fa.max(fb)
                }
                _ => 1,
            }
        }
        InstructionData::Unary {
            opcode: Opcode::Ineg | Opcode::Copy,
            args,
        } => rec(args[0]),
        InstructionData::Ternary {
            opcode: Opcode::Imad,
            args,
        } => {
            let [a, b, c] = *args;
            let fa = k(a).map_or_else(|| rec(a), pow);
            let fb = k(b).map_or_else(|| rec(b), pow);
            cap(u64::from(fa) * u64::from(fb)).min(rec(c))
        }
        // Either choice (a clamped index: `g[]` addresses past the window).
        InstructionData::Ternary {
            opcode: Opcode::Select,
            args,
        } if func.dfg.value_type(v) == crate::ir::Type::B32 => {
            let [_, b, c] = *args;
            let fb = k(b).map_or_else(|| rec(b), pow);
            let fc = k(c).map_or_else(|| rec(c), pow);
            fb.min(fc)
        }
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::reader::parse_function_text;

    fn run_text(text: &str) -> (usize, String) {
        let mut f = parse_function_text(text).expect("parses");
        let n = combine(&mut f);
        crate::verifier::verify_function(&f).unwrap_or_else(|e| panic!("{}", e.display_with(&f)));
        (n, f.to_string())
    }

    #[test]
    fn aligned_pairs_and_quads_combine() {
        let (n, text) = run_text(
            "kernel %k {
    uav0 = raw
    uav1 = raw
block0:
    v0 = special tid.x
    v1 = iconst.b32 0x4
    v2 = ishl v0, v1
    v3 = load.b32 uav0[v2]
    v4 = load.b32 uav0[v2+4]
    v5 = load.b32 uav0[v2+8]
    v6 = load.b32 uav0[v2+12]
    store.b32 uav1[v2], v3
    store.b32 uav1[v2+4], v4
    store.b32 uav1[v2+8], v5
    store.b32 uav1[v2+12], v6
    return
}",
        );
        assert_eq!(n, 2, "{text}");
        assert!(text.contains("load.b128 align 16 uav0[v2]"), "{text}");
        assert!(text.contains("store.b128 align 16 uav1[v2]"), "{text}");
    }

    #[test]
    fn unknown_alignment_or_an_aliasing_store_keeps_words_apart() {
        // v0 itself has no known alignment; and a store to uav0 between two loads of uav0.
        let (n, text) = run_text(
            "kernel %k {
    uav0 = raw
block0:
    v0 = special tid.x
    v1 = load.b32 uav0[v0]
    v2 = load.b32 uav0[v0+4]
    v3 = iconst.b32 0x3
    v4 = ishl v0, v3
    v5 = load.b32 uav0[v4]
    store.b32 uav0[v0], v1
    v6 = load.b32 uav0[v4+4]
    store.b32 uav0[v0+8], v6
    return
}",
        );
        assert_eq!(n, 0, "{text}");
    }

    #[test]
    fn global_vectors_through_a_clamped_index_combine() {
        // `g[]` as the lowering forms it: the byte address of a vec4 element or a clamp
        // constant past the window; both choices are 16-byte aligned. A select with an odd
        // constant is not.
        let (n, text) = run_text(
            "kernel %k {
    global
block0:
    v0 = special tid.x
    v1 = iconst.b32 0x4
    v2 = ishl v0, v1
    v3 = icmp ugt v0, v1
    v4 = iconst.b32 0xfffffff0
    v5 = select v3, v4, v2
    v6 = load.b32 global[v5]
    v7 = load.b32 global[v5+4]
    v8 = load.b32 global[v5+8]
    v9 = load.b32 global[v5+12]
    v10 = iconst.b32 0x3
    v11 = select v3, v10, v2
    v12 = load.b32 global[v11]
    v13 = load.b32 global[v11+4]
    store.b32 global[v2], v6
    store.b32 global[v2+4], v7
    store.b32 global[v2+8], v12
    store.b32 global[v2+12], v13
    return
}",
        );
        assert_eq!(n, 2, "{text}");
        assert!(text.contains("load.b128 align 16 global[v5]"), "{text}");
        assert!(text.contains("store.b128 align 16 global[v2]"), "{text}");
        assert!(text.contains("v12 = load.b32 global[v11]"), "{text}");
    }
}
