//! Disassembly and assembly of SPA 5.0 code for `spa5-dis` and `spa5-as`.
//!
//! Disassembly prints one instruction per line with its `/*addr*/` as nvdisasm does, in
//! nvdisasm syntax or in the SPA syntax with scheduling hints. Assembly accepts either a whole
//! `nvdisasm -hex` listing (its control words are taken from the standalone `/* 0x... */`
//! lines, so it reassembles to identical words) or SPA-syntax source, one instruction per
//! line (`LDG.E R4, [R2] &wr0 ?WAIT1 ;`), with `;`/`//` comments and `.kernel NAME` lines.

use std::fmt::Write;

use isa_spa5::asm::{parse_listing, parse_spa, print_inst, print_spa, PrintCtx};
use isa_spa5::control::unpack_control_word;
use isa_spa5::{decode, encode_program, Control, Inst, Loc};

/// Which assembly syntax to print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// nvdisasm's own syntax.
    Nvdisasm,
    /// nvdisasm's text plus the scheduling hints.
    Spa,
}

/// Byte address of the `k`th instruction (control words skipped: one per three).
pub fn inst_addr(k: usize) -> u64 {
    (k / 3) as u64 * 32 + 8 + (k % 3) as u64 * 8
}

/// Disassembles code words (control words included), one line per instruction. Words that
/// do not decode are printed as `.word` lines with the reason, never dropped.
pub fn disassemble(words: &[u64], syntax: Syntax) -> String {
    let mut out = String::new();
    let mut k = 0usize;
    for group in words.chunks(4) {
        let controls = unpack_control_word(group[0]).ok();
        for (slot, &word) in group[1..].iter().enumerate() {
            let addr = inst_addr(k);
            k += 1;
            let control = controls.map(|c| c[slot]);
            let text = match (decode(word), control) {
                (Ok(inst), Some(c)) => match syntax {
                    Syntax::Nvdisasm => format!(
                        "{} ;",
                        print_inst(
                            &inst,
                            &PrintCtx {
                                addr,
                                reuse: c.reuse
                            }
                        )
                    ),
                    Syntax::Spa => print_spa(&inst, &c, addr),
                },
                (Ok(inst), None) => format!(
                    "{} ; // control word 0x{:016x} is malformed",
                    print_inst(&inst, &PrintCtx { addr, reuse: 0 }),
                    group[0]
                ),
                (Err(e), _) => format!(".word 0x{word:016x} ; // {e}"),
            };
            let _ = writeln!(out, "        /*{addr:04x}*/                   {text}");
        }
    }
    out
}

/// One assembled kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assembled {
    /// Kernel name.
    pub name: String,
    /// Code words, control words included.
    pub words: Vec<u64>,
}

/// Assembles an nvdisasm listing or SPA-syntax source. Errors name the line.
pub fn assemble(text: &str) -> Result<Vec<Assembled>, String> {
    if text.contains("/* 0x") && text.contains("/*0") {
        let listing = parse_listing(text);
        if listing.functions.is_empty() {
            return Err("the listing has no code section".into());
        }
        return listing
            .functions
            .iter()
            .map(|f| {
                f.assemble()
                    .map(|words| Assembled {
                        name: f.name.clone(),
                        words,
                    })
                    .map_err(|e| format!("{}: {e}", f.name))
            })
            .collect();
    }
    let mut kernels: Vec<(String, Vec<(Inst, Control)>)> = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.split("//").next().unwrap_or("").trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(name) = line.strip_prefix(".kernel") {
            kernels.push((name.trim().to_owned(), Vec::new()));
            continue;
        }
        // `/*0008*/` address prefixes of our own disassembly are accepted and ignored.
        let line = match line.strip_prefix("/*") {
            Some(rest) => rest.split_once("*/").map(|(_, r)| r.trim()).unwrap_or(rest),
            None => line,
        };
        if kernels.is_empty() {
            kernels.push(("kernel".to_owned(), Vec::new()));
        }
        let prog = &mut kernels.last_mut().expect("pushed above").1;
        let addr = inst_addr(prog.len());
        let parsed = parse_spa(line, addr).map_err(|e| format!("line {}: {e}", n + 1))?;
        prog.push(parsed);
    }
    kernels
        .into_iter()
        .map(|(name, prog)| {
            encode_program(&prog)
                .map(|words| Assembled {
                    name: name.clone(),
                    words,
                })
                .map_err(|e| format!("{name}: {e}"))
        })
        .collect()
}

/// Registers a kernel uses: one more than the highest GPR named (at least 1), as the
/// cubin's register count.
pub fn register_count(words: &[u64]) -> u32 {
    let mut max = 0u32;
    for group in words.chunks(4) {
        for &w in &group[1..] {
            if let Ok(inst) = decode(w) {
                for loc in inst.defs().iter().chain(inst.uses().iter()) {
                    if let Loc::Gpr { reg, count } = loc {
                        max = max.max(u32::from(reg.0) + u32::from(count));
                    }
                }
            }
        }
    }
    max.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spa_source_round_trips_through_words() {
        let src = ".kernel k\nMOV R1, c[0x0][0x20] ?WAIT6 ;\nS2R R0, SR_TID.X &wr0 ?WAIT1 ;\nIADD R0, R0, 0x1 &req={0} ?WAIT6 ;\nEXIT ?WAIT15 ;\n";
        let a = assemble(src).expect("assembles");
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].name, "k");
        let text = disassemble(&a[0].words, Syntax::Spa);
        let again = assemble(&format!(".kernel k\n{text}")).expect("reassembles");
        assert_eq!(again[0].words, a[0].words);
        assert!(register_count(&a[0].words) >= 2);
    }

    #[test]
    fn bad_line_is_an_error_with_its_number() {
        let err = assemble("MOV R1, R2 ;\nFROB R1 ;\n").unwrap_err();
        assert!(err.starts_with("line 2"), "{err}");
    }
}
