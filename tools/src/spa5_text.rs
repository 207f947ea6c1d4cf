//! Disassembly and assembly of SPA 5.0 code for `spa5-dis` and `spa5-as`.
//!
//! Disassembly prints one instruction per line with its `/*addr*/` as nvdisasm does: in
//! nvdisasm syntax exactly nvdisasm's section text (labels, `SYNC` targets, dual-issue braces;
//! see [`isa_spa5::asm::nvtext`]), or in the SPA syntax with scheduling hints. Assembly accepts either a whole
//! `nvdisasm -hex` listing (its control words are taken from the standalone `/* 0x... */`
//! lines, so it reassembles to identical words) or SPA-syntax source, one instruction per
//! line (`LDG.E R4, [R2] &wr0 ?WAIT1 ;`), with `;`/`//` comments and `.kernel NAME` lines.

use std::fmt::Write;

use std::collections::HashMap;

use isa_spa5::asm::directives::{print_module, Directives, KernelDirectives, Module};
use isa_spa5::asm::{
    nvdisasm_section, nvdisasm_sections, parse_listing, parse_spa_with, print_inst, print_spa,
    PrintCtx,
};
use isa_spa5::control::unpack_control_word;
use isa_spa5::cubin::{Cubin, CubinWriter, Kernel, Sm};
use isa_spa5::program::inst_addr;
use isa_spa5::{decode, encode_program, Loc};

/// Which assembly syntax to print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// nvdisasm's own syntax.
    Nvdisasm,
    /// nvdisasm's text plus the scheduling hints.
    Spa,
}

/// Disassembles code words (control words included), one line per instruction. Words that
/// do not decode are printed as `.word` lines with the reason, never dropped.
pub fn disassemble(words: &[u64], syntax: Syntax) -> String {
    if syntax == Syntax::Nvdisasm {
        // Whole sections as nvdisasm lays them out (labels, SYNC targets, dual-issue
        // braces), when every word decodes.
        if let Ok(insts) = decode_section(words) {
            return nvdisasm_section(&insts);
        }
    }
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

/// Disassembles the code sections of a module in nvdisasm's syntax, one text per section:
/// as [`disassemble`], but with labels numbered across the module as nvdisasm numbers them
/// (see [`isa_spa5::asm::nvdisasm_sections`]) when every section decodes.
pub fn disassemble_sections(sections: &[&[u64]]) -> Vec<String> {
    let decoded: Result<Vec<_>, ()> = sections.iter().map(|w| decode_section(w)).collect();
    match decoded {
        Ok(insts) => {
            let refs: Vec<&[(isa_spa5::Inst, isa_spa5::Control)]> =
                insts.iter().map(Vec::as_slice).collect();
            nvdisasm_sections(&refs)
        }
        Err(()) => sections
            .iter()
            .map(|w| disassemble(w, Syntax::Nvdisasm))
            .collect(),
    }
}

/// The instructions and controls of a section's words (an error at the first word that
/// does not decode).
fn decode_section(words: &[u64]) -> Result<Vec<(isa_spa5::Inst, isa_spa5::Control)>, ()> {
    if !words.len().is_multiple_of(4) {
        return Err(());
    }
    let mut out = Vec::with_capacity(words.len() / 4 * 3);
    for group in words.chunks(4) {
        let controls = unpack_control_word(group[0]).map_err(|_| ())?;
        for (slot, &w) in group[1..].iter().enumerate() {
            out.push((decode(w).map_err(|_| ())?, controls[slot]));
        }
    }
    Ok(out)
}

/// An assembled file: the module settings its directives gave and complete kernels.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Assembly {
    /// `.target`, `.virtual`, `.toolkit`.
    pub module: Module,
    /// The kernels, code and every directive field filled (see
    /// [`isa_spa5::asm::directives`]; what no directive gave is derived from the code).
    pub kernels: Vec<Kernel>,
}

impl Assembly {
    /// The cubin: for `arch` (default: the `.target`, else sm_50; both given and different
    /// is an error), with the `.virtual`/`.toolkit` settings and every kernel.
    pub fn to_cubin(&self, arch: Option<Sm>) -> Result<Vec<u8>, String> {
        let sm = match (arch, self.module.sm) {
            (Some(a), Some(t)) if a != t => {
                return Err(format!("--arch {a} contradicts the file's `.target {t}`"))
            }
            (a, t) => a.or(t).unwrap_or(Sm::Sm50),
        };
        let mut w = CubinWriter::new(sm);
        if let Some(v) = self.module.virtual_arch {
            w = w.virtual_arch(v);
        }
        if let Some(v) = self.module.toolkit_version {
            w = w.toolkit_version(v);
        }
        for k in &self.kernels {
            w = w.kernel(k.clone());
        }
        w.write().map_err(|e| format!("cubin: {e}"))
    }
}

/// Assembles an nvdisasm listing or SPA-syntax source. Errors name the line.
///
/// SPA source: one instruction per line (an `/*addr*/` prefix is ignored), `//` comments,
/// kernel directives (`.kernel NAME`, `.regs N`, `.param ...`, see
/// [`isa_spa5::asm::directives`]), `.text.NAME:` lines as spa5-dis prints them (a kernel
/// start), and labels (`.L_x_3:`) for `` `(.L_x_3) `` branch targets.
pub fn assemble(text: &str) -> Result<Assembly, String> {
    if text.contains("/* 0x") && text.contains("/*0") {
        let listing = parse_listing(text);
        if listing.functions.is_empty() {
            return Err("the listing has no code section".into());
        }
        let kernels = listing
            .functions
            .iter()
            .map(|f| {
                let words = f.assemble().map_err(|e| format!("{}: {e}", f.name))?;
                let kd = KernelDirectives {
                    kernel: Kernel {
                        name: f.name.clone(),
                        ..Kernel::default()
                    },
                    ..KernelDirectives::default()
                };
                Ok(kd.finish(words, register_count))
            })
            .collect::<Result<Vec<_>, String>>()?;
        return Ok(Assembly {
            module: Module::default(),
            kernels,
        });
    }
    // First pass: directives, labels, and each kernel's instruction lines.
    struct Body<'t> {
        lines: Vec<(usize, &'t str)>,
        labels: HashMap<String, u64>,
    }
    let mut d = Directives::default();
    let mut bodies: Vec<Body> = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.split("//").next().unwrap_or("").trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |e: String| format!("line {}: {e}", n + 1);
        if let Some(label) = line
            .strip_suffix(':')
            .filter(|l| !l.contains(char::is_whitespace))
        {
            if let Some(name) = label.strip_prefix(".text.") {
                // spa5-dis's section line starts a kernel, unless `.kernel NAME` just did.
                let started = d.kernels.last().is_some_and(|k| k.kernel.name == name)
                    && bodies.last().is_some_and(|b| b.lines.is_empty());
                if !started {
                    d.start(name);
                }
            } else {
                if d.kernels.is_empty() {
                    d.start("kernel");
                }
                bodies.resize_with(d.kernels.len(), || Body {
                    lines: Vec::new(),
                    labels: HashMap::new(),
                });
                let body = bodies.last_mut().expect("resized to the kernels");
                // The next instruction's address (ilc's branch targets; ptxas's name a group's
                // control word, which only an `nvdisasm -hex` listing tells apart).
                let addr = inst_addr(body.lines.len());
                if body.labels.insert(label.to_owned(), addr).is_some() {
                    return Err(at(format!("label `{label}` defined twice")));
                }
            }
        } else if d.line(line).map_err(at)? {
            // A directive.
        } else {
            // `/*0008*/` address prefixes of our own disassembly are accepted and ignored.
            let inst = match line.strip_prefix("/*") {
                Some(rest) => rest.split_once("*/").map(|(_, r)| r.trim()).unwrap_or(rest),
                None => line,
            };
            if d.kernels.is_empty() {
                d.start("kernel");
            }
            bodies.resize_with(d.kernels.len(), || Body {
                lines: Vec::new(),
                labels: HashMap::new(),
            });
            bodies
                .last_mut()
                .expect("resized to the kernels")
                .lines
                .push((n, inst));
        }
        bodies.resize_with(d.kernels.len(), || Body {
            lines: Vec::new(),
            labels: HashMap::new(),
        });
    }
    // Second pass: instructions, with every label known.
    let mut kernels = Vec::with_capacity(d.kernels.len());
    for (kd, body) in d.kernels.into_iter().zip(bodies) {
        let name = kd.kernel.name.clone();
        let resolve = |l: &str| body.labels.get(l).copied();
        let prog = body
            .lines
            .iter()
            .enumerate()
            .map(|(k, (n, t))| {
                parse_spa_with(t, inst_addr(k), Some(&resolve))
                    .map_err(|e| format!("line {}: {e}", n + 1))
            })
            .collect::<Result<Vec<_>, String>>()?;
        if prog.is_empty() {
            return Err(format!("kernel `{name}` has no instructions"));
        }
        let words = encode_program(&prog).map_err(|e| format!("{name}: {e}"))?;
        kernels.push(kd.finish(words, register_count));
    }
    if kernels.is_empty() {
        return Err("no instructions".into());
    }
    Ok(Assembly {
        module: d.module,
        kernels,
    })
}

/// The module directives of a cubin (`.target`, ...), for the head of an SPA-syntax listing;
/// module data no directive expresses (module-scope symbols, global data) is named in a
/// comment. Each kernel's own come from [`kernel_directives`].
pub fn module_directives(cubin: &Cubin) -> String {
    let mut s = print_module(cubin.arch, cubin.virtual_arch, cubin.toolkit_version);
    let g = &cubin.globals;
    if !g.symbols.is_empty() || !g.const_banks.is_empty() || g.global_size != 0 {
        s.push_str(
            "// note: module-scope data (global symbols, module constant banks) has no directive\n",
        );
    }
    s
}

pub use isa_spa5::asm::directives::print_kernel as kernel_directives;

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
        let a = assemble(src).expect("assembles").kernels;
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].name, "k");
        let text = disassemble(&a[0].code, Syntax::Spa);
        let again = assemble(&format!(".kernel k\n{text}")).expect("reassembles");
        assert_eq!(again.kernels[0].code, a[0].code);
        assert!(a[0].num_regs >= 2);
        // spa5-dis's section line names the kernel; labels resolve.
        let a = assemble(
            "\t.text.saxpy:\n.L_x_0:\nNOP ?WAIT1 ;\nBRA `(.L_x_0) ?WAIT1 ;\nEXIT ?WAIT1 ;\n",
        )
        .expect("assembles")
        .kernels;
        assert_eq!(a[0].name, "saxpy");
        let text = disassemble(&a[0].code, Syntax::Nvdisasm);
        assert!(text.starts_with(".L_x_0:\n"), "{text}");
        assert!(text.contains("BRA `(.L_x_0) ;"), "{text}");
        // nvdisasm's text (labels) reassembles to the same instruction words.
        let again = assemble(&format!("\t.text.saxpy:\n{text}"))
            .expect("reassembles")
            .kernels;
        let insts = |w: &[u64]| -> Vec<u64> { w.chunks(4).flat_map(|g| g[1..].to_vec()).collect() };
        assert_eq!(insts(&again[0].code), insts(&a[0].code));
    }

    #[test]
    fn directives_set_the_kernel() {
        let a = assemble(
            ".target sm_52\n.kernel k\n.regs 10\n.block 64 1 1\n.param 0x0 8\nEXIT ?WAIT1 ;\n",
        )
        .expect("assembles");
        assert_eq!(a.module.sm, Some(isa_spa5::cubin::Sm::Sm52));
        let k = &a.kernels[0];
        assert_eq!((k.num_regs, k.block_size), (10, Some([64, 1, 1])));
        assert_eq!(k.params.len(), 1);
        assert_eq!(k.exit_offsets, vec![8]);
        let err = assemble(".kernel k\n.frob 1\nEXIT ;\n").unwrap_err();
        assert!(err.starts_with("line 2: unknown directive"), "{err}");
        let err = assemble("L:\nL:\nEXIT ;\n").unwrap_err();
        assert!(err.contains("defined twice"), "{err}");
    }

    #[test]
    fn bad_line_is_an_error_with_its_number() {
        let err = assemble("MOV R1, R2 ;\nFROB R1 ;\n").unwrap_err();
        assert!(err.starts_with("line 2"), "{err}");
    }
}
