//! Assembly listings of emitted code: plain nvdisasm-like text and the SPA syntax with
//! scheduling hints (`&wr0`, `&rd1`, `&req={0,3}`, `?WAIT6`, `?YIELD`).
//!
//! Instructions print with isa-spa5's nvdisasm printer (the same text nvdisasm gives for the
//! cubin, `.reuse` flags and texture phases included); branch targets are absolute byte
//! addresses.

use std::fmt::Write;

use isa_spa5::{Control, Inst as MInst};

use super::inst_addr;

/// The text of one instruction at code index `idx` whose control word carries `reuse`
/// (`.reuse` flags, a texture's phase): isa-spa5's nvdisasm printer.
pub fn inst_text(i: &MInst, idx: usize, reuse: u8) -> String {
    isa_spa5::asm::print_inst(
        i,
        &isa_spa5::asm::PrintCtx {
            addr: inst_addr(idx) as u64,
            reuse,
        },
    )
}

/// The scheduling hints of one control.
pub fn hints(c: &Control) -> String {
    let mut s = String::new();
    if let Some(b) = c.wr_bar {
        let _ = write!(s, " &wr{b}");
    }
    if let Some(b) = c.rd_bar {
        let _ = write!(s, " &rd{b}");
    }
    if c.wait_mask != 0 {
        let v: Vec<String> = (0..6)
            .filter(|b| c.wait_mask & (1 << b) != 0)
            .map(|b| b.to_string())
            .collect();
        let _ = write!(s, " &req={{{}}}", v.join(","));
    }
    let _ = write!(s, " ?WAIT{}", c.stall);
    if c.yield_ {
        s.push_str(" ?YIELD");
    }
    s
}

/// The nvdisasm-syntax listing of a placed instruction list (`/*addr*/ INST ;` lines).
pub fn listing_nvdisasm(placed: &[(MInst, Control)]) -> String {
    let mut plain = String::new();
    for (idx, (i, c)) in placed.iter().enumerate() {
        let _ = writeln!(
            plain,
            "/*{:04x}*/ {} ;",
            inst_addr(idx),
            inst_text(i, idx, c.reuse)
        );
    }
    plain
}

/// The SPA-syntax listing: every instruction with its scheduling hints.
pub fn listing_spa(placed: &[(MInst, Control)]) -> String {
    let mut sched = String::new();
    for (idx, (i, c)) in placed.iter().enumerate() {
        let _ = writeln!(sched, "{}{} ;", inst_text(i, idx, c.reuse), hints(c));
    }
    sched
}
