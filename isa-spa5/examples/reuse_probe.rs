//! Development aid: for every form reading Rb but not Rc, print a word with reuse flag B
//! (bit 1) and C (bit 2) so nvdisasm can show which slot its B operand uses.
use isa_spa5::inst::{Inst, Operand};
use isa_spa5::regs::Reg;
use isa_spa5::table::{all_ops, OpKind};
fn main() {
    for op in all_ops() {
        let f = op.form();
        let has_b = f.operands.iter().any(|o| o.kind == OpKind::Gpr(20));
        let has_c = f.operands.iter().any(|o| o.kind == OpKind::Gpr(39));
        let has_a = f.operands.iter().any(|o| o.kind == OpKind::Gpr(8));
        let _ = (has_b, has_c, has_a);
        let mut i = Inst::new(op);
        for (m, v) in f.mods.iter().zip(i.mods.iter_mut()) {
            if m.kind == isa_spa5::ModKind::DType || m.kind == isa_spa5::ModKind::SType {
                if let Some(x) = m.names.iter().position(|n| *n == "F32" || *n == "S32") {
                    *v = x as u8;
                }
            }
        }
        for (k, o) in f.operands.iter().enumerate() {
            if let OpKind::Gpr(lo) = o.kind {
                i.operands[k] = Operand::Reg(Reg(lo / 4 + 1));
            }
        }
        if let Ok(w) = isa_spa5::encode(&i) {
            println!(
                "{} {:#018x} {} {} {}",
                op.name(),
                w,
                has_a as u8,
                has_b as u8,
                has_c as u8
            );
        }
    }
}
