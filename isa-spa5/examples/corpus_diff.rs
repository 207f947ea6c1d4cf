//! Development aid: compare our disassembly with nvdisasm listings given on the command line
//! (`nvdisasm -hex K.cubin > K.sass`), printing every disagreement.

use isa_spa5::asm::{parse_listing, print_inst, PrintCtx};
use isa_spa5::decode;
use isa_spa5::program::control_of;

fn norm(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace(" ,", ",")
}

fn main() {
    let (mut total, mut ok_text, mut ok_asm) = (0, 0, 0);
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).expect("read listing");
        let l = parse_listing(&text);
        for f in &l.functions {
            let parsed = f.parse_all();
            for ((addr, t), (_, p)) in f.insts.iter().zip(parsed) {
                total += 1;
                let idx = (*addr / 8) as usize;
                let w = f.words[idx];
                let ctrl = control_of(&f.words, idx).expect("control word");
                match decode(w) {
                    Ok(i) => {
                        let ours = print_inst(
                            &i,
                            &PrintCtx {
                                addr: *addr,
                                reuse: ctrl.reuse,
                            },
                        );
                        let theirs = norm(t);
                        // Labels: compare only up to the backquote.
                        let theirs_cut = theirs.split(" `(").next().unwrap().to_string();
                        let ours_cut = if theirs.contains("`(") {
                            ours.split(" 0x").next().unwrap().to_string()
                        } else {
                            ours.clone()
                        };
                        if norm(&ours_cut) == theirs_cut {
                            ok_text += 1;
                        } else {
                            println!("TEXT {w:#018x}: ours `{ours}` nvdisasm `{theirs}`");
                        }
                    }
                    Err(e) => println!("DECODE {w:#018x} `{t}`: {e}"),
                }
                match p {
                    Ok(p) => match isa_spa5::encode(&p.inst) {
                        Ok(x) if x == w => ok_asm += 1,
                        Ok(x) => println!("ASM {w:#018x} `{t}` -> {x:#018x} {:?}", p.inst),
                        Err(e) => println!("ASM {w:#018x} `{t}`: {e}"),
                    },
                    Err(e) => println!("PARSE {w:#018x}: {e}"),
                }
            }
        }
    }
    println!("total {total} text-ok {ok_text} asm-ok {ok_asm}");
}
