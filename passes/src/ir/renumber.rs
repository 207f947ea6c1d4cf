//! Dense renumbering: rebuilds a function so that blocks, instructions and values are
//! numbered 0, 1, 2, ... in layout order, dropping everything not in the layout (removed
//! instructions, detached values, unlinked blocks).
//!
//! Requires: nothing beyond a consistent DFG/layout (values used but never defined are
//! mapped to fresh detached values, so the verifier still reports them). Guarantees: the
//! result prints like the input up to entity names, behaves identically, and every
//! `PrimaryMap` is exactly as large as the live IR, which keeps per-entity tables of later
//! passes small after many rewrites.

use cranelift_entity::SecondaryMap;

use super::entities::{Block, Value};
use super::function::Function;
use super::instructions::InstructionData;

/// Returns a densely renumbered copy of `func`.
pub fn renumber(func: &Function) -> Function {
    let mut out = Function {
        name: func.name.clone(),
        group_size: func.group_size,
        uavs: func.uavs.clone(),
        srvs: func.srvs.clone(),
        lds: func.lds.clone(),
        cbs: func.cbs.clone(),
        uses_global: func.uses_global,
        launch_1d: func.launch_1d,
        outputs: func.outputs.clone(),
        stack_slots: func.stack_slots.clone(),
        ..Default::default()
    };
    let mut bmap: SecondaryMap<Block, Option<Block>> = SecondaryMap::new();
    bmap.resize(func.dfg.num_blocks());
    let mut vmap: SecondaryMap<Value, Option<Value>> = SecondaryMap::new();
    vmap.resize(func.dfg.num_values());
    // Blocks and their parameters first, so branch targets and parameters exist.
    for b in func.layout.blocks() {
        let nb = out.append_new_block();
        bmap[b] = Some(nb);
        for &p in func.dfg.block_params(b) {
            vmap[p] = Some(out.dfg.append_block_param(nb, func.dfg.value_type(p)));
        }
    }
    // Results in layout order.
    for b in func.layout.blocks() {
        for i in func.layout.block_insts(b) {
            for &r in func.dfg.inst_results(i) {
                vmap[r] = Some(out.dfg.make_detached_value(func.dfg.value_type(r)));
            }
        }
    }
    let map_value =
        |v: Value, vmap: &mut SecondaryMap<Value, Option<Value>>, out: &mut Function| {
            if let Some(n) = vmap[v] {
                return n;
            }
            let ty = if func.dfg.value_is_valid(v) {
                func.dfg.value_type(v)
            } else {
                super::Type::B32
            };
            let n = out.dfg.make_detached_value(ty);
            vmap[v] = Some(n);
            n
        };
    for b in func.layout.blocks() {
        let nb = bmap[b].expect("every layout block was mapped above");
        for i in func.layout.block_insts(b) {
            let mut data: InstructionData = func.dfg.insts[i].clone();
            for d in data.branch_destinations_mut() {
                d.block = match bmap[d.block] {
                    Some(x) => x,
                    None => {
                        // A branch to a block outside the layout: keep it dangling (the
                        // verifier reports it) with a fresh block outside the layout.
                        let x = out.dfg.make_block();
                        bmap[d.block] = Some(x);
                        x
                    }
                };
            }
            let mut vals: smallvec::SmallVec<[Value; 8]> = data.all_values().collect();
            for v in vals.iter_mut() {
                *v = map_value(*v, &mut vmap, &mut out);
            }
            // `all_values` and `map_values` visit the same slots in the same order
            // (operands, then block arguments), so `vals[k]` is slot k's new value.
            let mut k = 0;
            data.map_values(|_| {
                k += 1;
                vals[k - 1]
            });
            let ni = out.dfg.make_inst(data);
            out.srclocs[ni] = func.srclocs[i];
            for &r in func.dfg.inst_results(i) {
                let nv = vmap[r].expect("results were mapped above");
                out.dfg.attach_result(ni, nv, func.dfg.value_type(r));
            }
            out.layout.append_inst(ni, nb);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::reader::parse_function_text;

    #[test]
    fn dense_numbers_same_text_shape() {
        let text = "kernel %k {\n launch_1d\n uav0 = raw\n out0 = output\nblock7:\n v30 = special tid.x\n v31 = iconst.b32 0x2\n \
                    v40 = ishl v30, v31\n jump block3(v40)\nblock3(v12: b32):\n store.b32 uav0[v12], v30\n \
                    return\n}";
        let f = parse_function_text(text).unwrap();
        let g = renumber(&f);
        let printed = g.to_string();
        assert!(
            printed.contains("launch_1d") && printed.contains("out0 = output"),
            "{printed}"
        );
        assert!(printed.contains("block0:\n    v1 = special tid.x\n    v2 = iconst.b32 0x2\n    v3 = ishl v1, v2\n    jump block1(v3)"), "{printed}");
        assert!(
            printed.contains("block1(v0: b32):\n    store.b32 uav0[v0], v1"),
            "{printed}"
        );
        assert_eq!(g.dfg.num_values(), 4);
        assert_eq!(g.dfg.num_blocks(), 2);
        crate::verifier::verify_function(&g).unwrap();
    }

    #[test]
    fn undefined_uses_stay_errors() {
        let f = parse_function_text("kernel %k {\nblock0:\n v1 = iadd v9, v9\n return\n}").unwrap();
        let g = renumber(&f);
        assert!(crate::verifier::verify_function(&g).is_err());
    }
}
