//! Every compute opcode the IL interpreter runs also compiles, and every one it refuses is
//! refused by ilc with a diagnostic naming it: for each ALU opcode of the table (compute
//! usage, one destination, operand form), a kernel applies it to as many distinct register
//! sources as it takes, with the controls some opcodes require. Memory, LDS, GDS and append
//! opcodes need declarations and have their own tests (lower_ops, the kernel corpora).

use ilc::{Compiler, Options};
use isa_amdil::opcodes::{Form, Usage, OPCODES};

/// The opcode's statement, with a control it cannot do without.
fn statement(mnemonic: &str, srcs: usize) -> String {
    let name = match mnemonic {
        "cmp" | "set" => format!("{mnemonic}_relop(ge)"),
        "ffb" => "ffb_hi".to_string(),
        m => m.to_string(),
    };
    let args: Vec<String> = (1..=srcs).map(|k| format!("r{k}")).collect();
    if args.is_empty() {
        format!("{name} r10")
    } else {
        format!("{name} r10, {}", args.join(", "))
    }
}

fn kernel(stmt: &str) -> String {
    format!(
        "il_cs_2_0
dcl_num_thread_per_group 64
dcl_raw_uav_id(0)
dcl_literal l0, 3, 4, 5, 6
mov r1, vAbsTid0.xxxx
itof r2, r1
iadd r3, r1, l0
mov r4, r2
{stmt}
uav_raw_store_id(0) mem.xyzw, r1.x, r10
end
"
    )
}

#[test]
fn every_opcode_the_interpreter_runs_compiles() {
    let compiler = Compiler::new(Options::default());
    let mut mismatches = Vec::new();
    let (mut both, mut neither) = (0, 0);
    for info in OPCODES {
        let m = info.mnemonics[0];
        if info.usage != Usage::Cs
            || info.form != Form::Operands
            || info.dsts != 1
            || ["lds_", "gds_", "uav_", "srv_", "append_"]
                .iter()
                .any(|p| m.starts_with(p))
        {
            continue;
        }
        let src = kernel(&statement(m, info.srcs_max as usize));
        let interp = isa_amdil::interp::prepare_source(&src);
        let compiled = compiler.compile(src.as_bytes());
        match (interp.is_ok(), &compiled) {
            (true, Ok(_)) => both += 1,
            (false, Err(d)) => {
                neither += 1;
                let named = d.0.iter().any(|d| d.is_error() && d.message.contains(m));
                if !named {
                    mismatches.push(format!("`{m}`: refused without naming it: {:?}", d.0));
                }
            }
            (true, Err(d)) => mismatches.push(format!(
                "`{m}`: the interpreter runs it, ilc refuses it: {}",
                d.0.iter()
                    .map(|d| d.message.clone())
                    .collect::<Vec<_>>()
                    .join("; ")
            )),
            (false, Ok(_)) => mismatches.push(format!(
                "`{m}`: ilc compiles it, the interpreter refuses it: {:?}",
                interp.err()
            )),
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    // 188 compile; the 17 refused are the Appendix B opcodes without a definition (see
    // compiler/src/lower/mod.rs). Fewer compiling, or more refused, is a regression.
    assert!(both >= 188, "only {both} opcodes compile");
    assert!(neither <= 17, "{neither} opcodes are refused");
}
