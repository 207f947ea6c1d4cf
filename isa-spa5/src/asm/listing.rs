//! Reading a whole `nvdisasm -hex` listing of a cubin.
//!
//! nvdisasm prints each code section as instruction lines (`/*0028*/ @P0 EXIT ; /* 0x.. */`),
//! control words as standalone `/* 0x.. */` lines, labels (`.L_x_3:`), directives, and
//! dual-issue pairs in braces whose second hex comment may come after the next control word
//! or label. The hex comments of a section, read in order, are exactly its code words; the
//! instruction texts are matched to words by their `/*addr*/`. [`ListingFunction::assemble`]
//! parses every text back (labels resolved), packs the `.reuse` flags it finds into the
//! control words taken from the listing, and so reproduces the section's words. The padding
//! `NOP`s nvdisasm omits after the last instruction are put back.

use std::collections::HashMap;

use super::parse::{parse_inst_with, ParseError, Parsed};
use crate::control::{pack_control_word, unpack_control_word, Control};
use crate::encode::encode;
use crate::program::control_slot;

/// One code section of a listing.
#[derive(Clone, Debug, Default)]
pub struct ListingFunction {
    /// Section name without `.text.`.
    pub name: String,
    /// All code words from the hex comments, control words included.
    pub words: Vec<u64>,
    /// Instruction texts by byte address (braces, annotations and `;` removed).
    pub insts: Vec<(u64, String)>,
    /// Label name -> byte address.
    pub labels: HashMap<String, u64>,
}

/// A parsed listing: its code sections.
#[derive(Clone, Debug, Default)]
pub struct Listing {
    /// Code sections in order.
    pub functions: Vec<ListingFunction>,
}

fn hex_comment(s: &str) -> Option<u64> {
    let i = s.rfind("/* 0x")?;
    let rest = &s[i + 5..];
    let end = rest.find(" */")?;
    u64::from_str_radix(&rest[..end], 16).ok()
}

/// Clean the instruction text: drop `{`/`}`, `(*...*)` annotations and the trailing `;`.
fn clean(text: &str) -> String {
    let mut t = text.to_string();
    while let (Some(a), Some(b)) = (t.find("(*"), t.find("*)")) {
        if b < a {
            break;
        }
        t.replace_range(a..b + 2, "");
    }
    let mut t = t.trim();
    if let Some(r) = t.strip_prefix('{') {
        t = r.trim_start();
    }
    if let Some(r) = t.strip_suffix('}') {
        if r.ends_with(char::is_whitespace) {
            t = r.trim_end();
        }
    }
    t.trim_end_matches(';').trim().to_string()
}

/// Parse an `nvdisasm -hex` listing. Non-code sections are skipped.
pub fn parse_listing(text: &str) -> Listing {
    let mut out = Listing::default();
    let mut cur: Option<ListingFunction> = None;
    let mut pending_labels: Vec<String> = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some(rest) = t
            .strip_prefix(".section")
            .filter(|r| r.starts_with(char::is_whitespace))
        {
            if let Some(f) = cur.take() {
                out.functions.push(close(f));
            }
            let name = rest.trim().split(',').next().unwrap_or("").trim();
            if let Some(n) = name.strip_prefix(".text.") {
                cur = Some(ListingFunction {
                    name: n.to_string(),
                    ..Default::default()
                });
            }
            pending_labels.clear();
            continue;
        }
        let Some(f) = cur.as_mut() else { continue };
        if let Some(label) = t.strip_suffix(':') {
            if !label.contains(char::is_whitespace) {
                pending_labels.push(label.to_string());
            }
            continue;
        }
        if let Some(rest) = t.strip_prefix("/*") {
            // Instruction line: /*0028*/ text ; /* 0x... */  or standalone hex comment.
            if let Some((addr, body)) = rest.split_once("*/") {
                if let Ok(a) = u64::from_str_radix(addr.trim(), 16) {
                    if !addr.trim().starts_with("0x") {
                        // nvdisasm prints a label naming a group's control word just before the
                        // group's first instruction.
                        let at = if (a / 8) % 4 == 1 { a - 8 } else { a };
                        for l in pending_labels.drain(..) {
                            f.labels.insert(l, at);
                        }
                        let body = match body.rfind("/* 0x") {
                            Some(i) => &body[..i],
                            None => body,
                        };
                        f.insts.push((a, clean(body)));
                    }
                }
            }
            if let Some(w) = hex_comment(t) {
                // A label seen just before a control word names the control word's address.
                if f.words.len() % 4 == 0 && t.starts_with("0x") {
                    let a = f.words.len() as u64 * 8;
                    for l in pending_labels.drain(..) {
                        f.labels.insert(l, a);
                    }
                }
                f.words.push(w);
            }
        }
    }
    if let Some(mut f) = cur.take() {
        let end = f.words.len() as u64 * 8;
        for l in pending_labels.drain(..) {
            f.labels.insert(l, end);
        }
        out.functions.push(close(f));
    }
    out
}

/// Completes the last group of a section: nvdisasm leaves out the `NOP`s that pad the code
/// to whole groups after the final `EXIT` (the group's control word is printed), so missing
/// instruction words are `NOP`s, as every compiler pads.
fn close(mut f: ListingFunction) -> ListingFunction {
    if !f.words.len().is_multiple_of(4) {
        let nop = parse_inst_with("NOP", 0, None)
            .ok()
            .and_then(|p| encode(&p.inst).ok());
        if let Some(nop) = nop {
            while !f.words.len().is_multiple_of(4) {
                f.words.push(nop);
            }
        }
    }
    f
}

impl ListingFunction {
    /// Parse every instruction text of the section.
    pub fn parse_all(&self) -> Vec<(u64, Result<Parsed, ParseError>)> {
        let end = self.words.len() as u64 * 8;
        let resolve = |name: &str| -> Option<u64> {
            self.labels.get(name).copied().or_else(|| {
                // Function names and section-end labels resolve to the start or the end.
                (name == self.name)
                    .then_some(0)
                    .or(if name.starts_with(".L_x_") {
                        Some(end)
                    } else {
                        None
                    })
            })
        };
        self.insts
            .iter()
            .map(|(a, t)| (*a, parse_inst_with(t, *a, Some(&resolve))))
            .collect()
    }

    /// Assemble the section from its texts and the listing's control words (with reuse flags
    /// replaced by the ones found in the text). Words of unparsable texts are errors.
    pub fn assemble(&self) -> Result<Vec<u64>, ParseError> {
        let mut out = self.words.clone();
        let mut ctrl: HashMap<usize, [Control; 3]> = HashMap::new();
        for (addr, r) in self.parse_all() {
            let mut p = r?;
            let idx = (addr / 8) as usize;
            // A label printed before a group's first instruction names either the group's
            // control word (ptxas's branch targets) or the instruction (ilc's): when the
            // first reading does not give the listing's word, try the other.
            if let Some(&orig) = self.words.get(idx) {
                if encode(&p.inst).ok() != Some(orig) {
                    if let Some((_, text)) = self.insts.iter().find(|(a, _)| *a == addr) {
                        let alt = |name: &str| {
                            self.labels
                                .get(name)
                                .map(|&a| if (a / 8) % 4 == 0 { a + 8 } else { a })
                        };
                        if let Ok(q) = parse_inst_with(text, addr, Some(&alt)) {
                            if encode(&q.inst).ok() == Some(orig) {
                                p = q;
                            }
                        }
                    }
                }
            }
            let (g, slot) = match control_slot(idx) {
                Some(at) if idx < out.len() => at,
                _ => {
                    return Err(ParseError {
                        text: format!("{addr:#x}"),
                        message: "address outside the code".into(),
                    })
                }
            };
            out[idx] = encode(&p.inst).map_err(|e| ParseError {
                text: format!("{addr:#x}"),
                message: e.to_string(),
            })?;
            let slots = match ctrl.get(&g) {
                Some(s) => *s,
                None => unpack_control_word(self.words[g]).map_err(|e| ParseError {
                    text: format!("{:#x}", g * 8),
                    message: e.to_string(),
                })?,
            };
            let mut slots = slots;
            slots[slot].reuse = p.reuse;
            ctrl.insert(g, slots);
        }
        for (g, s) in ctrl {
            out[g] = pack_control_word(s).map_err(|e| ParseError {
                text: format!("{:#x}", g * 8),
                message: e.to_string(),
            })?;
        }
        Ok(out)
    }
}
