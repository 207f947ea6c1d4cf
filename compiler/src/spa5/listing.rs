//! Assembly listings of emitted code: plain nvdisasm-like text and the SPA syntax with
//! scheduling hints (`&wr0`, `&rd1`, `&req={0,3}`, `?WAIT6`, `?YIELD`).
//!
//! Instructions print with isa-spa5's nvdisasm printer (the same text nvdisasm gives for the
//! cubin, `.reuse` flags and texture phases included) and the hints with its SPA printer;
//! branch targets are absolute byte addresses.

use std::fmt::Write;

use isa_spa5::asm::{print_inst, print_spa, PrintCtx};
use isa_spa5::program::inst_addr;
use isa_spa5::{Control, Inst as MInst};

/// The nvdisasm-syntax listing of a placed instruction list (`/*addr*/ INST ;` lines).
pub fn listing_nvdisasm(placed: &[(MInst, Control)]) -> String {
    let mut plain = String::new();
    for (idx, (i, c)) in placed.iter().enumerate() {
        let addr = inst_addr(idx);
        let text = print_inst(
            i,
            &PrintCtx {
                addr,
                reuse: c.reuse,
            },
        );
        let _ = writeln!(plain, "/*{addr:04x}*/ {text} ;");
    }
    plain
}

/// The SPA-syntax listing: every instruction with its scheduling hints.
pub fn listing_spa(placed: &[(MInst, Control)]) -> String {
    let mut sched = String::new();
    for (idx, (i, c)) in placed.iter().enumerate() {
        let _ = writeln!(sched, "{}", print_spa(i, c, inst_addr(idx)));
    }
    sched
}
