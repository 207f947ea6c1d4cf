//! Text listing of an allocated function and the `test regalloc` filetest subtest.
//!
//! The listing is the function in IR syntax with the registers on each line:
//! `v7 = iadd v3, v5 ; r2 <- r0, r1`, inserted instructions tagged (`[move]`, `[spill]`,
//! `[reload]`, `[remat]`, `[edge]`), block parameters listed after their header
//! (`; params r0, r2`), and a summary line first (`; regalloc: gprs 4, preds 1, spill 8
//! bytes, 1 spills, 2 reloads, 1 moves`). Filetest `; check:` lines match against it.

use core::fmt::Write;

use super::{Allocation, EditKind, RegAllocOptions};
use crate::filetest::{Context, SubTest};
use crate::ir::write::inst_to_string;
use crate::ir::{Function, RegFile, Value};
use crate::target::{TargetIsa, ToyTarget};

fn regs_of(alloc: &Allocation, vals: &[Value]) -> String {
    vals.iter()
        .map(|&v| alloc.regs[v].map_or_else(|| "-".to_string(), |r| r.to_string()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Renders `func` (after allocation) with the registers of `alloc`.
pub fn listing(func: &Function, alloc: &Allocation) -> String {
    let mut s = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(
        s,
        "; regalloc: gprs {}, preds {}, spill {} bytes, {} spills, {} reloads, {} moves",
        alloc.regs_used[RegFile::Gpr],
        alloc.regs_used[RegFile::Pred],
        alloc.spill_bytes,
        alloc.num_spills,
        alloc.num_reloads,
        alloc.num_moves
    );
    let _ = writeln!(s, "kernel %{} {{", func.name);
    for b in func.layout.blocks() {
        let mut header = String::new();
        let _ = crate::ir::write::write_block_header(&mut header, func, b);
        s.push_str(&header);
        let params = func.dfg.block_params(b);
        if !params.is_empty() {
            let _ = writeln!(s, "    ; params {}", regs_of(alloc, params));
        }
        for inst in func.layout.block_insts(b) {
            let tag = match alloc.edits[inst] {
                EditKind::Original => "",
                EditKind::Move => " [move]",
                EditKind::Spill { .. } => " [spill]",
                EditKind::Reload { .. } => " [reload]",
                EditKind::Remat(_) => " [remat]",
                EditKind::EdgeJump => " [edge]",
            };
            let data = &func.dfg.insts[inst];
            let args: Vec<Value> = data.all_values().collect();
            let results = func.dfg.inst_results(inst);
            let regs = match (results.is_empty(), args.is_empty()) {
                (true, true) => String::new(),
                (false, true) => format!(" ; {}", regs_of(alloc, results)),
                (true, false) => format!(" ; <- {}", regs_of(alloc, &args)),
                (false, false) => {
                    format!(
                        " ; {} <- {}",
                        regs_of(alloc, results),
                        regs_of(alloc, &args)
                    )
                }
            };
            let _ = writeln!(s, "    {}{regs}{tag}", inst_to_string(func, inst));
        }
    }
    s.push_str("}\n");
    s
}

/// `test regalloc [gprs=N] [preds=N]`: allocates for the [`ToyTarget`] (default 255 GPRs,
/// 7 predicates) with the checker on, and outputs the [`listing`].
pub struct RegAllocTest;

/// Parses `key=N` options into a toy target.
pub(crate) fn toy_from_options(options: &[String]) -> Result<ToyTarget, String> {
    let mut t = ToyTarget::default();
    for o in options {
        let (k, v) = o
            .split_once('=')
            .ok_or_else(|| format!("option '{o}' is not key=value"))?;
        let n: u32 = v
            .parse()
            .map_err(|_| format!("option '{o}': not a number"))?;
        match k {
            "gprs" => t.gprs = n,
            "preds" => t.preds = n,
            "budget" => {}
            _ => return Err(format!("unknown option '{k}'")),
        }
    }
    Ok(t)
}

impl SubTest for RegAllocTest {
    fn name(&self) -> &'static str {
        "regalloc"
    }
    fn is_mutating(&self) -> bool {
        true
    }
    fn run(&self, func: &mut Function, ctx: &Context<'_>) -> Result<String, String> {
        let target = toy_from_options(ctx.options)?;
        let opts = RegAllocOptions {
            check: true,
            ..Default::default()
        };
        let alloc = super::run(func, &target, &opts).map_err(|e| e.to_string())?;
        debug_assert!(alloc.num_gprs_used() <= target.num_regs(RegFile::Gpr));
        Ok(listing(func, &alloc))
    }
}
