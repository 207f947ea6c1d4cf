//! Launch facts: folds the special registers whose values the kernel's declarations or its
//! launch assumptions fix.
//!
//! - A declared group size (`group_size x, y, z`) fixes `ntid.c` to its component, and
//!   `tid.c` to 0 along a dimension of size 1.
//! - A kernel compiled for 1-D launches ([`Function::launch_1d`]) has `ctaid.y = ctaid.z = 0`
//!   and `nctaid.y = nctaid.z = 1`; the flattened ids CAL kernels use (`vAbsTidFlat`,
//!   `vThreadGrpIdFlat`) then fold from a dozen instructions to a multiply-add.
//!
//! Requires: a verified function. Guarantees: each folded `special` becomes an `iconst` with
//! the same result value (so every use sees the constant); nothing else changes. The
//! interpreter refuses dispatches that break the assumptions, so folding preserves meaning.

use crate::ir::{Function, InstructionData, Opcode, SpecialReg, Type};

/// Runs the pass.
pub fn run(func: &mut Function) {
    let group = func.group_size;
    let grid_1d = func.launch_1d;
    let insts: Vec<_> = func
        .layout
        .blocks()
        .flat_map(|b| func.layout.block_insts(b).collect::<Vec<_>>())
        .collect();
    for inst in insts {
        crate::budget::tick();
        let InstructionData::Special { reg, .. } = func.dfg.insts[inst] else {
            continue;
        };
        let value = match reg {
            SpecialReg::GroupSize(c) => group.and_then(|g| g.get(c as usize).copied()),
            SpecialReg::Tid(c) => group
                .and_then(|g| g.get(c as usize).copied())
                .and_then(|n| (n == 1).then_some(0)),
            SpecialReg::GroupId(1 | 2) if grid_1d => Some(0),
            SpecialReg::GridSize(1 | 2) if grid_1d => Some(1),
            _ => None,
        };
        if let Some(v) = value {
            func.dfg.insts[inst] = InstructionData::UnaryImm {
                opcode: Opcode::Iconst,
                ty: Type::B32,
                imm: u64::from(v),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::parse_function_text;

    fn run(text: &str) -> String {
        let mut f = parse_function_text(text).expect("parses");
        super::run(&mut f);
        crate::verifier::verify_function(&f).expect("verifies");
        f.to_string()
    }

    const KERNEL: &str = "kernel %k {\n    group_size 64, 1, 1\n    uav0 = raw\n\nblock0:\n    \
        v0 = special tid.x\n    v1 = special tid.y\n    v2 = special ntid.x\n    \
        v3 = special ctaid.y\n    v4 = special nctaid.z\n    v5 = special ctaid.x\n    \
        v6 = iadd v0, v1\n    v7 = iadd v6, v2\n    v8 = iadd v7, v3\n    v9 = iadd v8, v4\n    \
        v10 = iadd v9, v5\n    store.b32 uav0[v10], v10\n    return\n}\n";

    #[test]
    fn declared_group_folds_and_the_grid_only_when_1d() {
        let out = run(KERNEL);
        assert!(out.contains("v0 = special tid.x"), "{out}");
        assert!(out.contains("v1 = iconst.b32 0x0\n"), "{out}");
        assert!(out.contains("v2 = iconst.b32 0x40"), "{out}");
        assert!(out.contains("v3 = special ctaid.y"), "{out}");
        assert!(out.contains("v4 = special nctaid.z"), "{out}");
        let out = run(&KERNEL.replace("uav0 = raw", "uav0 = raw\n    launch_1d"));
        assert!(out.contains("v3 = iconst.b32 0x0\n"), "{out}");
        assert!(out.contains("v4 = iconst.b32 0x1\n"), "{out}");
        assert!(out.contains("v5 = special ctaid.x"), "{out}");
        assert!(out.contains("launch_1d"), "{out}");
    }
}
