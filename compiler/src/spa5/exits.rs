//! Early exits: a `jump` to a block that only returns returns itself.
//!
//! A kernel guarded by `if (tid < n) { ... } end` joins both sides of the `if` in a block that
//! just returns. Joined there, the `if` needs a reconvergence point (`SSY` before it, `SYNC` on
//! each side) although nothing runs after it. With the `jump` replaced by `return`, the two
//! sides never meet, emission pushes no `SSY`, and a branch straight into the returning block
//! becomes a predicated `EXIT` ([`super::emit`]), as ptxas writes such guards. `EXIT` is legal
//! in divergent code on SM50; a thread that exits counts as arrived at later barriers.
//!
//! Requires: a verified function. Guarantees: the same behaviour; only `jump`s change, and a
//! returning block no branch enters any more leaves the layout.

use ilc_passes::ir::{Function, InstructionData, Opcode};

/// Replaces every `jump` to a parameterless block consisting of a single `return` by that
/// `return`; returns how many changed.
pub fn run(f: &mut Function) -> usize {
    let returning: ilc_passes::FastHashSet<_> = f
        .layout
        .blocks()
        .filter(|&b| f.dfg.block_params(b).is_empty() && f.only_returns(b))
        .collect();
    let mut changed = 0;
    let blocks: Vec<_> = f.layout.blocks().collect();
    for b in blocks {
        let Some(t) = f.terminator(b) else { continue };
        let InstructionData::Jump { dests, .. } = &f.dfg.insts[t] else {
            continue;
        };
        if returning.contains(&dests[0].block) {
            f.dfg.insts[t] = InstructionData::Nullary {
                opcode: Opcode::Return,
            };
            changed += 1;
        }
    }
    // A returning block no branch enters any more is dropped (the entry block stays).
    let mut entered: ilc_passes::FastHashSet<_> = Default::default();
    for b in f.layout.blocks() {
        if let Some(t) = f.terminator(b) {
            entered.extend(f.dfg.insts[t].branch_destinations().iter().map(|d| d.block));
        }
    }
    for b in returning {
        if !entered.contains(&b) && Some(b) != f.entry_block() {
            let inst = f.terminator(b).expect("a returning block ends in return");
            f.layout.remove_inst(inst);
            f.layout.remove_block(b);
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use ilc_passes::ir::parse_function_text;

    #[test]
    fn jumps_to_a_returning_block_return() {
        let mut f = parse_function_text(
            "kernel %k {
    uav0 = raw

block0:
    v0 = special tid.x
    v1 = iconst.b32 0x10
    v2 = icmp ult v0, v1
    brif v2, block1, block2

block1:
    store.b32 uav0[v0], v1
    jump block2

block2:
    return
}
",
        )
        .expect("parses");
        assert_eq!(super::run(&mut f), 1);
        ilc_passes::verifier::verify_function(&f).expect("verifies");
        let text = f.to_string();
        assert!(!text.contains("jump"), "{text}");
        // The branch still enters the returning block: it stays.
        assert!(text.contains("block2:\n    return"), "{text}");
    }
}
