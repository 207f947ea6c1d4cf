//! ORACLE test: encode every table row with random fields, disassemble the raw words with
//! NVIDIA's `nvdisasm -b SM50`, and compare line by line with our nvdisasm-syntax printer.
//!
//! Control words carry random `.reuse` flags on the slots our printer shows for the row.
//! Each row is checked in its own nvdisasm run (nvdisasm rejects a whole file when one word
//! is invalid, so a bad row cannot hide others). Set `SPA5_ORACLE_VERBOSE=1` to print every
//! disagreement. The agreement figure and the disagreeing rows are printed; the test requires
//! [`MIN_AGREEMENT`] percent.

mod common;

use std::process::Command;

use common::{norm, random_inst, Rng};
use ilc_test_support::nvidia_tool;
use isa_spa5::asm::{print_inst, PrintCtx};
use isa_spa5::control::{pack_control_word, Control};
use isa_spa5::inst::Inst;
use isa_spa5::program::inst_addr;
use isa_spa5::table::all_ops;
use isa_spa5::{encode, Op};

const PER_FORM: usize = 24;
/// Required agreement, in percent, over all random instructions.
const MIN_AGREEMENT: f64 = 100.0;

/// Disassemble `insts` (laid out in groups with neutral control words) and return nvdisasm's
/// instruction texts by index, or its error output.
fn nvdisasm(
    tool: &std::path::Path,
    insts: &[Inst],
    reuse: &[u8],
    tag: &str,
) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    for (g, chunk) in insts.chunks(3).enumerate() {
        let mut ctrl = [Control::stall(1); 3];
        for (s, c) in ctrl.iter_mut().enumerate() {
            c.reuse = reuse.get(g * 3 + s).copied().unwrap_or(0);
        }
        words.push(pack_control_word(ctrl).expect("valid control"));
        for k in 0..3 {
            words.push(match chunk.get(k) {
                Some(i) => encode(i).map_err(|e| e.to_string())?,
                None => encode(&Inst::nop()).expect("NOP encodes"),
            });
        }
    }
    let dir = std::env::temp_dir().join(format!("isa-spa5-oracle-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let path = dir.join(format!("{tag}.bin"));
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&path, bytes).map_err(|e| e.to_string())?;
    let out = Command::new(tool)
        .args(["-b", "SM50"])
        .arg(&path)
        .output()
        .map_err(|e| e.to_string())?;
    let _ = std::fs::remove_file(&path);
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = Vec::new();
    for l in text.lines() {
        let t = l.trim();
        if let Some(rest) = t.strip_prefix("/*") {
            if let Some((_, body)) = rest.split_once("*/") {
                lines.push(body.trim().trim_end_matches(';').trim().to_string());
            }
        }
    }
    Ok(lines)
}

#[test]
fn every_form_matches_nvdisasm() {
    let Some(tool) = nvidia_tool("nvdisasm") else {
        return;
    };
    let verbose = std::env::var_os("SPA5_ORACLE_VERBOSE").is_some();
    let mut rng = Rng::new(0x005e_ed0f_5a5a);
    let (mut total, mut agree) = (0usize, 0usize);
    let mut bad_forms = Vec::new();
    for op in all_ops() {
        let insts: Vec<Inst> = (0..PER_FORM).map(|_| random_inst(op, &mut rng)).collect();
        // Random `.reuse` flags on the operand slots nvdisasm shows for this form.
        let slots = (0..op.form().operands.len())
            .filter_map(|k| isa_spa5::asm::print::reuse_slot(op.form(), k))
            .fold(0u8, |m, s| m | 1 << s)
            // A texture instruction's reuse field is its phase (`.T`, `.P`).
            | if op.form().has(isa_spa5::table::flags::TEX) { 3 } else { 0 };
        let reuse: Vec<u8> = insts.iter().map(|_| rng.bits(4) as u8 & slots).collect();
        let lines = match nvdisasm(&tool, &insts, &reuse, op.name()) {
            Ok(l) => l,
            Err(e) => {
                total += insts.len();
                bad_forms.push(format!("{}: nvdisasm rejected: {e}", op.name()));
                continue;
            }
        };
        let mut form_ok = true;
        for (k, i) in insts.iter().enumerate() {
            total += 1;
            // nvdisasm lays code out with control words; instruction k sits at inst_addr(k).
            let ours = print_inst(
                i,
                &PrintCtx {
                    addr: inst_addr(k),
                    reuse: reuse[k],
                },
            );
            let theirs = lines.get(k).map(String::as_str).unwrap_or("<missing>");
            if norm(&ours) == norm(theirs) {
                agree += 1;
            } else {
                form_ok = false;
                if verbose {
                    println!(
                        "{}: {:#018x}\n  ours:     {ours}\n  nvdisasm: {theirs}",
                        op.name(),
                        encode(i).unwrap_or(0)
                    );
                }
            }
        }
        if !form_ok {
            bad_forms.push(op.name().to_string());
        }
    }
    let pct = 100.0 * agree as f64 / total.max(1) as f64;
    println!(
        "oracle: {agree}/{total} instructions agree with nvdisasm ({pct:.2}%), {} forms",
        all_ops().count()
    );
    println!("forms with disagreements: {bad_forms:#?}");
    assert!(
        pct >= MIN_AGREEMENT,
        "only {pct:.2}% agree with nvdisasm; disagreeing forms: {bad_forms:#?}"
    );
    let _ = Op::NOP;
}
