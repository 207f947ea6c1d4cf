//! Assembly text in two syntaxes.
//!
//! * nvdisasm syntax ([`print::print_inst`]): exactly what `nvdisasm -b SM50` prints for one
//!   instruction, modulo spacing, including `.reuse` flags taken from the control bits.
//! * SPA syntax ([`print::print_spa`]): the same text followed by the scheduling hints of the
//!   seed pages (`&wr0 &rd1 &req={0,3} ?WAIT6 ?YIELD ;`), so scheduled code round-trips.
//!
//! [`parse::parse_inst`] and [`parse::parse_spa`] read both back; [`listing::parse_listing`]
//! reads a whole `nvdisasm -hex` listing of a cubin (directives, labels, addresses, hex
//! comments, dual-issue braces) into instructions and control words.

pub mod directives;
pub mod float;
pub mod listing;
pub mod nvtext;
pub mod parse;
pub mod print;

pub use listing::{parse_listing, Listing, ListingFunction};
pub use nvtext::{nvdisasm_section, nvdisasm_sections};
pub use parse::{parse_inst, parse_inst_with, parse_spa, parse_spa_with, ParseError, Parsed};
pub use print::{print_inst, print_inst_named, print_spa, PrintCtx};
