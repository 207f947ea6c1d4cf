//! Block-parameter resolution and clean-up after coloring.
//!
//! For every `jump` with arguments, the values must move from the argument registers to the
//! parameter registers "in parallel". The moves are sequentialized: a move whose
//! destination overlaps no pending source is emitted; when only cycles remain, one source
//! is first copied to a free register of its footprint (not holding any value live across
//! the jump, nor any argument or parameter register), or, when none is free, stored to an
//! emergency slot of the spill area and reloaded after the other moves. Every emitted move
//! defines a new value that replaces the jump argument, so afterwards each argument is in its
//! parameter's register. Then moves whose source and destination registers coincide are
//! deleted (their result is replaced by their source), and the register counts are
//! computed.
//!
//! Requires: `color` has assigned every value; blocks with parameters are
//! entered by `jump`s only (from `prepare`).

use cranelift_entity::SecondaryMap;

use super::liveness::Liveness;
use super::spill::SpillInfo;
use super::{insert_inst, Allocation, EditKind, Failure, InsertAt, RegAllocError};
use crate::ir::{Analyses, Function, Inst, Opcode, PerRegFile, RegFile, Type, Value};
use crate::target::{PReg, TargetIsa};

/// A pending move: argument index, current source value, destination.
struct Pending {
    arg: usize,
    src: Value,
    dst: PReg,
    ty: Type,
}

fn range(target: &dyn TargetIsa, ty: Type, r: PReg) -> (RegFile, u32, u32) {
    let w = u32::from(target.footprint(ty).width);
    (r.file, u32::from(r.index), u32::from(r.index) + w)
}

fn overlaps(a: (RegFile, u32, u32), b: (RegFile, u32, u32)) -> bool {
    a.0 == b.0 && a.1 < b.2 && b.1 < a.2
}

/// Inserts the parallel moves, removes identity moves, fills the counters.
pub fn run(
    func: &mut Function,
    target: &dyn TargetIsa,
    limits: PerRegFile<u32>,
    spill: SpillInfo,
    alloc: &mut Allocation,
    analyses: &mut Analyses,
) -> Result<(), Failure> {
    let cfg = analyses.cfg(func);
    let lv = Liveness::compute(func, cfg);
    let mut area = spill.area_bytes;
    let mut emergency: SecondaryMap<Value, u32> = SecondaryMap::new();
    let _ = &mut emergency;
    let blocks: Vec<_> = func.layout.blocks().collect();
    for b in blocks {
        let Some(term) = func.terminator(b) else {
            continue;
        };
        if func.dfg.opcode(term) != Opcode::Jump {
            continue;
        }
        let call = func.dfg.insts[term].branch_destinations()[0].clone();
        let s = call.block;
        let params = func.dfg.block_params(s).to_vec();
        let reg = |v: Value| -> Result<PReg, Failure> {
            alloc.regs[v].ok_or_else(|| {
                Failure::Error(RegAllocError::Checker {
                    at: v.into(),
                    message: "value without register after coloring".into(),
                })
            })
        };
        let mut pending = Vec::new();
        for (i, (&a, &p)) in call.args.iter().zip(&params).enumerate() {
            let (ra, rp) = (reg(a)?, reg(p)?);
            if ra != rp {
                pending.push(Pending {
                    arg: i,
                    src: a,
                    dst: rp,
                    ty: func.dfg.value_type(a),
                });
            }
        }
        if pending.is_empty() {
            continue;
        }
        // Registers that scratch copies must avoid.
        let mut busy: Vec<(RegFile, u32, u32)> = Vec::new();
        for &v in lv.live_in[s].iter().chain(call.args.iter()).chain(&params) {
            busy.push(range(target, func.dfg.value_type(v), reg(v)?));
        }
        let mut late_reloads: Vec<(usize, u32, PReg, Type)> = Vec::new();
        let mut new_args = call.args.clone();
        while !pending.is_empty() {
            let ready = (0..pending.len()).find(|&i| {
                let d = range(target, pending[i].ty, pending[i].dst);
                pending.iter().enumerate().all(|(j, m)| {
                    j == i
                        || !overlaps(
                            d,
                            range(target, m.ty, alloc.regs[m.src].unwrap_or(d_reg(d))),
                        )
                })
            });
            if let Some(i) = ready {
                let m = pending.remove(i);
                let nv = emit_move(func, target, m.src, m.ty, term, m.dst, alloc)?;
                new_args[m.arg] = nv;
                continue;
            }
            // Only cycles remain: move one source out of the way.
            let m = pending.remove(0);
            let fp = target.footprint(m.ty);
            let scratch = find_scratch(&busy, &pending, target, alloc, limits[fp.file], fp);
            match scratch {
                Some(sr) => {
                    let t = emit_move(func, target, m.src, m.ty, term, sr, alloc)?;
                    busy.push(range(target, m.ty, sr));
                    pending.push(Pending { src: t, ..m });
                }
                None => {
                    let size = target.spill_size(m.ty).max(1);
                    let align = size.next_power_of_two().min(16);
                    let off = area.div_ceil(align) * align;
                    area = off + size;
                    let data = target.make_spill(m.ty, m.src, off);
                    let si = insert_inst(
                        func,
                        data,
                        InsertAt::Before(term),
                        EditKind::Spill { offset: off },
                        alloc,
                    );
                    super::check_made(func, si, &[m.src], None, "spill")?;
                    alloc.num_spills += 1;
                    late_reloads.push((m.arg, off, m.dst, m.ty));
                }
            }
        }
        for (arg, off, dst, ty) in late_reloads {
            let data = target.make_reload(ty, off);
            let ri = insert_inst(
                func,
                data,
                InsertAt::Before(term),
                EditKind::Reload { offset: off },
                alloc,
            );
            super::check_made(func, ri, &[], Some(ty), "reload")?;
            let nv = func.dfg.inst_results(ri)[0];
            alloc.regs[nv] = Some(dst);
            alloc.num_reloads += 1;
            new_args[arg] = nv;
        }
        func.dfg.insts[term].branch_destinations_mut()[0].args = new_args;
    }
    remove_identity_moves(func, alloc);
    count(func, target, area, alloc);
    Ok(())
}

fn d_reg(d: (RegFile, u32, u32)) -> PReg {
    PReg {
        file: d.0,
        index: d.1 as u16,
    }
}

fn emit_move(
    func: &mut Function,
    target: &dyn TargetIsa,
    src: Value,
    ty: Type,
    before: Inst,
    dst: PReg,
    alloc: &mut Allocation,
) -> Result<Value, Failure> {
    let data = target.make_move(ty, src);
    let mi = insert_inst(func, data, InsertAt::Before(before), EditKind::Move, alloc);
    super::check_made(func, mi, &[src], Some(ty), "move")?;
    let nv = func.dfg.inst_results(mi)[0];
    alloc.regs[nv] = Some(dst);
    Ok(nv)
}

fn find_scratch(
    busy: &[(RegFile, u32, u32)],
    pending: &[Pending],
    target: &dyn TargetIsa,
    alloc: &Allocation,
    limit: u32,
    fp: crate::target::Footprint,
) -> Option<PReg> {
    let (w, a) = (u32::from(fp.width), u32::from(fp.align).max(1));
    let mut i = 0;
    while i + w <= limit {
        let cand = (fp.file, i, i + w);
        let clash = busy.iter().any(|&b| overlaps(b, cand))
            || pending.iter().any(|m| {
                overlaps(range(target, m.ty, m.dst), cand)
                    || alloc.regs[m.src].is_some_and(|r| overlaps(range(target, m.ty, r), cand))
            });
        if !clash {
            return Some(PReg {
                file: fp.file,
                index: i as u16,
            });
        }
        i += a;
    }
    None
}

/// Deletes inserted moves whose result sits in the source's register.
fn remove_identity_moves(func: &mut Function, alloc: &mut Allocation) {
    let mut subst: SecondaryMap<Value, Option<Value>> =
        crate::ir::entities::sized_map(func.dfg.num_values());
    let mut any = false;
    for inst in func.insts_in_layout() {
        if alloc.edits[inst] != EditKind::Move {
            continue;
        }
        let src = func.dfg.inst_args(inst)[0];
        let dst = func.dfg.inst_results(inst)[0];
        let src = subst[src].unwrap_or(src);
        if alloc.regs[src] == alloc.regs[dst] {
            subst[dst] = Some(src);
            func.layout.remove_inst(inst);
            any = true;
        }
    }
    if any {
        func.rewrite_uses(|v| subst[v].unwrap_or(v));
    }
}

fn count(func: &Function, target: &dyn TargetIsa, area: u32, alloc: &mut Allocation) {
    let mut used = PerRegFile::<u32>::default();
    let mut moves = 0;
    for b in func.layout.blocks() {
        for &p in func.dfg.block_params(b) {
            if let Some(r) = alloc.regs[p] {
                let w = u32::from(target.footprint(func.dfg.value_type(p)).width);
                used[r.file] = used[r.file].max(u32::from(r.index) + w);
            }
        }
        for inst in func.layout.block_insts(b) {
            if alloc.edits[inst] == EditKind::Move {
                moves += 1;
            }
            for &v in func.dfg.inst_results(inst) {
                if let Some(r) = alloc.regs[v] {
                    let w = u32::from(target.footprint(func.dfg.value_type(v)).width);
                    used[r.file] = used[r.file].max(u32::from(r.index) + w);
                }
            }
        }
    }
    alloc.regs_used = used;
    alloc.spill_bytes = area;
    alloc.num_moves = moves;
}
