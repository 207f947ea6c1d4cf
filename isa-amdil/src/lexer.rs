//! Low-level scanning of AMD IL text: a byte cursor with line/column tracking, comment and
//! blank-line skipping, and scanners for words, numbers and parenthesized control values.
//!
//! AMD IL is line oriented (one instruction per line), and what a character sequence means
//! depends on where it is (`.0000` is a swizzle after a register, `1.0` a float after
//! `dcl_literal`), so the parser drives the scanner with context-specific calls instead of
//! consuming a context-free token stream.
//!
//! Line ends: `\n`, `\r\n` and a lone `\r` (classic Mac OS editors) all end a line, in any
//! mix; [`normalize_line_ends`] maps a lone `\r` to `\n` (same length, so spans stay valid
//! for the original text) before the parser sees it.
//!
//! Accepted trivia: spaces, tabs, `\r`, form feeds; `;` and `//` comments to end of line;
//! `/* */` block comments (possibly spanning lines); `;DEBUGSTART` .. `;DEBUGEND` blocks of raw
//! assembler directives (skipped entirely); `;ARGSTART` .. `;ARGEND` metadata (returned to the
//! parser as comment lines).
//!
//! Guarantees: every method terminates and advances or reports no progress; no method panics
//! on any input (all slicing is at ASCII boundaries found by the scanner itself).

#![cfg_attr(
    not(test),
    warn(
        clippy::panic,
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::print_stderr,
        clippy::todo
    )
)]

use crate::ast::Span;

/// `src` with every lone `\r` (one not followed by `\n`) replaced by `\n`; borrowed when
/// there is none. Byte offsets (and so spans) are the same in both texts.
pub fn normalize_line_ends(src: &str) -> std::borrow::Cow<'_, str> {
    let bytes = src.as_bytes();
    let lone = |i: usize| bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n');
    // Text without any `\r` (the usual case) is found by `memchr`, not a byte loop over
    // the whole input.
    if !bytes.contains(&b'\r') || !(0..bytes.len()).any(lone) {
        return std::borrow::Cow::Borrowed(src);
    }
    let out: Vec<u8> = (0..bytes.len())
        .map(|i| if lone(i) { b'\n' } else { bytes[i] })
        .collect();
    // Replacing one ASCII byte by another keeps the text valid UTF-8.
    std::borrow::Cow::Owned(String::from_utf8(out).unwrap_or_else(|_| src.to_owned()))
}

/// A cursor over IL source text.
pub struct Cursor<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    line: u32,
    line_start: usize,
}

/// Result of scanning a number.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    /// An integer literal (decimal or hex), with its sign applied, as written.
    Int(i64),
    /// A float literal (has a `.`, an exponent or an `f` suffix), as f32.
    Float(f32),
}

impl Number {
    /// The 32-bit pattern: integers in two's complement, floats as IEEE bits. `None` when an
    /// integer does not fit in 32 bits (signed or unsigned).
    pub fn bits(self) -> Option<u32> {
        match self {
            Number::Int(v) if (-(1i64 << 31)..(1i64 << 32)).contains(&v) => Some(v as u32),
            Number::Int(_) => None,
            Number::Float(f) => Some(f.to_bits()),
        }
    }
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `src`.
    pub fn new(src: &'a str) -> Cursor<'a> {
        // A UTF-8 byte-order mark (Windows editors write one) is not part of the program.
        let start = if src.starts_with('\u{feff}') { 3 } else { 0 };
        Cursor {
            src,
            bytes: src.as_bytes(),
            pos: start,
            line: 1,
            line_start: start,
        }
    }
    /// Source text.
    pub fn source(&self) -> &'a str {
        self.src
    }

    /// Current byte offset.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Current 1-based line.
    pub fn line(&self) -> u32 {
        self.line
    }

    /// Current 1-based column.
    pub fn col(&self) -> u32 {
        (self.pos - self.line_start + 1) as u32
    }

    /// True at end of input.
    pub fn eof(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    /// The next byte, if any.
    #[inline]
    pub fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// The byte after the next one.
    #[inline]
    pub fn peek2(&self) -> Option<u8> {
        self.bytes.get(self.pos + 1).copied()
    }

    /// Consumes one byte (tracking lines).
    #[inline]
    pub fn bump(&mut self) {
        if let Some(&b) = self.bytes.get(self.pos) {
            self.pos += 1;
            if b == b'\n' {
                self.line += 1;
                self.line_start = self.pos;
            }
        }
    }

    /// A span from `start` (offset, line, col captured by [`Cursor::mark`]) to here.
    pub fn span_from(&self, mark: (usize, u32, u32)) -> Span {
        Span {
            start: mark.0 as u32,
            end: self.pos as u32,
            line: mark.1,
            col: mark.2,
        }
    }

    /// Captures the current position for [`Cursor::span_from`].
    pub fn mark(&self) -> (usize, u32, u32) {
        (self.pos, self.line, self.col())
    }

    /// A span covering `len` bytes from here.
    pub fn span_here(&self, len: usize) -> Span {
        let end = (self.pos + len).min(self.bytes.len());
        Span {
            start: self.pos as u32,
            end: end as u32,
            line: self.line,
            col: self.col(),
        }
    }

    /// Resets the cursor to an earlier mark on the same line.
    pub fn reset(&mut self, mark: (usize, u32, u32)) {
        if mark.1 == self.line {
            self.pos = mark.0;
        }
    }

    /// Skips spaces, tabs, `\r` and block comments that stay on this line. A block comment
    /// spanning lines is consumed and counts as a line end (returns true then).
    pub fn skip_blank(&mut self) -> Result<bool, Span> {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\r' | 0x0c | 0x0b) => self.pos += 1,
                Some(b'/') if self.peek2() == Some(b'*') => {
                    let start = self.span_here(2);
                    let line = self.line;
                    self.pos += 2;
                    loop {
                        match self.peek() {
                            None => return Err(start),
                            Some(b'*') if self.peek2() == Some(b'/') => {
                                self.pos += 2;
                                break;
                            }
                            _ => self.bump(),
                        }
                    }
                    if self.line != line {
                        return Ok(true);
                    }
                }
                _ => return Ok(false),
            }
        }
    }

    /// True when only a comment or the line end follows (after [`Cursor::skip_blank`]).
    pub fn at_line_end(&self) -> bool {
        match self.peek() {
            None | Some(b'\n' | b';') => true,
            Some(b'/') => self.peek2() == Some(b'/'),
            _ => false,
        }
    }

    /// Skips the rest of the line including the newline.
    pub fn skip_line(&mut self) {
        while let Some(b) = self.peek() {
            self.bump();
            if b == b'\n' {
                break;
            }
        }
    }

    /// The rest of the current line (without the newline), not consumed.
    pub fn rest_of_line(&self) -> &'a str {
        let end = self.bytes[self.pos..]
            .iter()
            .position(|&b| b == b'\n')
            .map(|i| self.pos + i);
        let end = end.unwrap_or(self.bytes.len());
        self.src.get(self.pos..end).unwrap_or("")
    }

    /// Consumes `[A-Za-z0-9_]*` and returns it.
    pub fn word(&mut self) -> &'a str {
        let start = self.pos;
        while let Some(b) = self.peek() {
            if b.is_ascii_alphanumeric() || b == b'_' {
                self.pos += 1;
            } else {
                break;
            }
        }
        &self.src[start..self.pos]
    }

    /// Consumes `[A-Za-z0-9]*` and returns it.
    pub fn alnum(&mut self) -> &'a str {
        let start = self.pos;
        while let Some(b) = self.peek() {
            if b.is_ascii_alphanumeric() {
                self.pos += 1;
            } else {
                break;
            }
        }
        &self.src[start..self.pos]
    }

    /// Consumes a mnemonic with its control specifiers: runs of `[A-Za-z0-9_]` joined by
    /// parenthesized groups that follow without space (`uav_raw_load_id(11)_cached`).
    /// Errors with the span of an unclosed `(`.
    pub fn mnemonic(&mut self) -> Result<&'a str, Span> {
        let start = self.pos;
        loop {
            self.word();
            if self.peek() == Some(b'(') {
                let open = self.span_here(1);
                self.pos += 1;
                loop {
                    match self.peek() {
                        Some(b')') => {
                            self.pos += 1;
                            break;
                        }
                        None | Some(b'\n' | b';') => return Err(open),
                        _ => self.pos += 1,
                    }
                }
            } else {
                break;
            }
        }
        Ok(&self.src[start..self.pos])
    }

    /// Consumes a parenthesized group `( ... )` on this line and returns its inside.
    pub fn parens(&mut self) -> Result<&'a str, Span> {
        let open = self.span_here(1);
        if self.peek() != Some(b'(') {
            return Err(open);
        }
        self.pos += 1;
        let start = self.pos;
        loop {
            match self.peek() {
                Some(b')') => {
                    let inside = &self.src[start..self.pos];
                    self.pos += 1;
                    return Ok(inside);
                }
                None | Some(b'\n' | b';') => return Err(open),
                _ => self.pos += 1,
            }
        }
    }

    /// Scans a number: optional sign, then hex `0x..`, decimal, or a float with `.`,
    /// exponent and optional `f` suffix. Returns `None` (consuming nothing) when no number
    /// starts here, `Some(Err(span))` for a malformed one.
    pub fn number(&mut self) -> Option<Result<Number, Span>> {
        let mark = self.mark();
        let mut i = self.pos;
        let b = self.bytes;
        let neg = match b.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let digits_start = i;
        let first = b.get(i).copied();
        let starts = matches!(first, Some(b'0'..=b'9'))
            || (first == Some(b'.') && matches!(b.get(i + 1), Some(b'0'..=b'9')));
        if !starts {
            return None;
        }
        // Hex.
        if first == Some(b'0') && matches!(b.get(i + 1), Some(b'x' | b'X')) {
            i += 2;
            let hs = i;
            while matches!(b.get(i), Some(c) if c.is_ascii_hexdigit()) {
                i += 1;
            }
            let end_ok = !matches!(b.get(i), Some(c) if c.is_ascii_alphanumeric() || *c == b'_' || *c == b'.');
            self.pos = i;
            if hs == i || i - hs > 16 || !end_ok {
                self.skip_word_tail();
                return Some(Err(self.span_from(mark)));
            }
            let v = u64::from_str_radix(&self.src[hs..i], 16).unwrap_or(u64::MAX);
            if v > u32::MAX as u64 {
                return Some(Err(self.span_from(mark)));
            }
            let v = v as i64;
            return Some(Ok(Number::Int(if neg { -v } else { v })));
        }
        let mut is_float = false;
        while matches!(b.get(i), Some(b'0'..=b'9')) {
            i += 1;
        }
        if b.get(i) == Some(&b'.')
            && !matches!(b.get(i + 1), Some(c) if c.is_ascii_alphabetic() && *c != b'f' && *c != b'e' && *c != b'E')
        {
            is_float = true;
            i += 1;
            while matches!(b.get(i), Some(b'0'..=b'9')) {
                i += 1;
            }
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            let mut j = i + 1;
            if matches!(b.get(j), Some(b'+' | b'-')) {
                j += 1;
            }
            if matches!(b.get(j), Some(b'0'..=b'9')) {
                is_float = true;
                i = j;
                while matches!(b.get(i), Some(b'0'..=b'9')) {
                    i += 1;
                }
            }
        }
        let text_end = i;
        if matches!(b.get(i), Some(b'f' | b'F')) {
            is_float = true;
            i += 1;
        }
        self.pos = i;
        if matches!(b.get(i), Some(c) if c.is_ascii_alphanumeric() || *c == b'_' || *c == b'.') {
            self.skip_word_tail();
            return Some(Err(self.span_from(mark)));
        }
        let text = &self.src[digits_start..text_end];
        if is_float {
            match text.parse::<f32>() {
                Ok(f) => Some(Ok(Number::Float(if neg { -f } else { f }))),
                Err(_) => Some(Err(self.span_from(mark))),
            }
        } else {
            match text.parse::<u64>() {
                Ok(v) if v <= u32::MAX as u64 => {
                    let v = v as i64;
                    Some(Ok(Number::Int(if neg { -v } else { v })))
                }
                _ => Some(Err(self.span_from(mark))),
            }
        }
    }

    fn skip_word_tail(&mut self) {
        while matches!(self.peek(), Some(c) if c.is_ascii_alphanumeric() || c == b'_' || c == b'.')
        {
            self.pos += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(s: &str) -> Option<Result<Number, Span>> {
        Cursor::new(s).number()
    }

    #[test]
    fn lone_carriage_returns_end_lines() {
        assert!(matches!(
            normalize_line_ends("a\r\nb\n"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(normalize_line_ends("a\rb\r\nc\r"), "a\nb\r\nc\n");
        let (p, d) = crate::parse("il_cs_2_0\rmov r0, r1\r\nmov r2, r3\rend\r");
        assert!(d.is_empty(), "{d:?}");
        let lines: Vec<u32> = p
            .expect("parses")
            .statements
            .iter()
            .map(|s| s.span.line)
            .collect();
        assert_eq!(lines, [2, 3, 4]);
    }

    #[test]
    fn numbers() {
        assert_eq!(
            num("0x3f800000").unwrap().unwrap().bits(),
            Some(0x3f80_0000)
        );
        assert_eq!(num("1.0").unwrap().unwrap().bits(), Some(0x3f80_0000));
        assert_eq!(num("4.0f").unwrap().unwrap().bits(), Some(4.0f32.to_bits()));
        assert_eq!(num("-1").unwrap().unwrap().bits(), Some(0xFFFF_FFFF));
        assert_eq!(
            num("4294967295").unwrap().unwrap().bits(),
            Some(0xFFFF_FFFF)
        );
        assert_eq!(
            num("3000000000").unwrap().unwrap().bits(),
            Some(3_000_000_000)
        );
        assert_eq!(num("1e-3").unwrap().unwrap(), Number::Float(1e-3));
        assert_eq!(num("-0.5").unwrap().unwrap(), Number::Float(-0.5));
        assert_eq!(num(".5").unwrap().unwrap(), Number::Float(0.5));
        assert_eq!(num("2f").unwrap().unwrap(), Number::Float(2.0));
        assert!(num("0x").unwrap().is_err());
        assert!(num("12abc").unwrap().is_err());
        assert!(num("99999999999").unwrap().is_err());
        assert!(num("r0").is_none());
        assert!(num("-").is_none());
    }

    #[test]
    fn mnemonic_with_parens() {
        let mut c = Cursor::new("dcl_resource_id(0)_type(2d,unnorm)_fmtx(float) r0");
        assert_eq!(
            c.mnemonic().unwrap(),
            "dcl_resource_id(0)_type(2d,unnorm)_fmtx(float)"
        );
        let mut c = Cursor::new("uav_load_id(1\nmov");
        assert!(c.mnemonic().is_err());
    }

    #[test]
    fn byte_order_mark_is_skipped() {
        let mut c = Cursor::new("\u{feff}mov");
        assert_eq!((c.col(), c.word()), (1, "mov"));
    }

    #[test]
    fn blanks_and_block_comments() {
        let mut c = Cursor::new(" \t/* a */ x");
        assert_eq!(c.skip_blank(), Ok(false));
        assert_eq!(c.peek(), Some(b'x'));
        let mut c = Cursor::new("/* a\n b */x");
        assert_eq!(c.skip_blank(), Ok(true));
        assert_eq!(c.line(), 2);
        let mut c = Cursor::new("/* never closed");
        assert!(c.skip_blank().is_err());
    }
}
