//! Precise-output expectations (Cranelift's `precise-output`): a subtest named with the
//! option `precise-output` (`test compile precise-output`) must print exactly the block of
//! `;` comment lines that follows the function (after its closing `}` for IR, after `end`
//! for IL), one output line per comment line (`; text`, or `;` for an empty line).
//!
//! Blessing: with the environment variable [`BLESS_VAR`] set to `1`, a mismatch rewrites the
//! block in the file instead of failing, so a deliberate change in the output is reviewed
//! as a diff of the test file.
//!
//! Guarantees: a failure shows the expected and actual output line by line, marking the
//! first difference.

/// The environment variable that turns mismatches into rewrites.
pub const BLESS_VAR: &str = "ILC_TEST_BLESS";

/// Whether blessing is on ([`BLESS_VAR`]` = 1`).
pub fn bless_enabled() -> bool {
    std::env::var(BLESS_VAR).is_ok_and(|v| v == "1")
}

/// The expectation block of a function: the run of `;` lines starting at the first
/// non-blank line after line index `end` (the function's last line) of `lines`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    /// Index of the block's first line (where a missing block is inserted).
    pub start: usize,
    /// Index one past its last line.
    pub end: usize,
    /// The expected output lines (comment markers removed).
    pub expected: Vec<String>,
}

/// Finds the expectation block after line index `end`. Directive comments (`; check:`...)
/// are not allowed in it: a precise test states the whole output.
pub fn find_block(lines: &[&str], end: usize) -> Block {
    let mut start = end + 1;
    while start < lines.len() && lines[start].trim().is_empty() {
        start += 1;
    }
    // An empty block is inserted right after the function.
    if start >= lines.len() || !lines[start].trim_start().starts_with(';') {
        return Block {
            start: end + 1,
            end: end + 1,
            expected: Vec::new(),
        };
    }
    let mut stop = start;
    let mut expected = Vec::new();
    while stop < lines.len() && lines[stop].trim_start().starts_with(';') {
        let l = lines[stop].trim_start();
        let body = l
            .strip_prefix("; ")
            .unwrap_or(l.strip_prefix(';').unwrap_or(l));
        expected.push(body.trim_end().to_string());
        stop += 1;
    }
    Block {
        start,
        end: stop,
        expected,
    }
}

/// The comment lines stating `output`.
pub fn render(output: &str) -> Vec<String> {
    output
        .lines()
        .map(|l| {
            let l = l.trim_end();
            if l.is_empty() {
                ";".to_string()
            } else {
                format!("; {l}")
            }
        })
        .collect()
}

/// Compares `output` with the block; `Err` shows both sides.
pub fn compare(block: &Block, output: &str) -> Result<(), String> {
    let actual: Vec<&str> = output.lines().map(str::trim_end).collect();
    if actual.len() == block.expected.len()
        && actual.iter().zip(&block.expected).all(|(a, e)| a == e)
    {
        return Ok(());
    }
    let first = actual
        .iter()
        .zip(&block.expected)
        .position(|(a, e)| a != e)
        .unwrap_or(actual.len().min(block.expected.len()));
    let mut msg = format!(
        "precise output differs at output line {} (set {BLESS_VAR}=1 to accept the new output)\n--- expected ---\n",
        first + 1
    );
    for (i, e) in block.expected.iter().enumerate() {
        msg.push_str(if i == first { "> " } else { "  " });
        msg.push_str(e);
        msg.push('\n');
    }
    msg.push_str("--- actual ---\n");
    for (i, a) in actual.iter().enumerate() {
        msg.push_str(if i == first { "> " } else { "  " });
        msg.push_str(a);
        msg.push('\n');
    }
    Err(msg)
}

/// Applies blessed blocks (line ranges of `text` and their new comment lines, in any order,
/// not overlapping) and returns the new file text.
pub fn apply(text: &str, mut edits: Vec<(Block, Vec<String>)>) -> String {
    edits.sort_by_key(|(b, _)| std::cmp::Reverse(b.start));
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    for (b, new) in edits {
        let mut new = new;
        // Keep a blank line between an inserted block and what follows.
        if b.start == b.end && b.start < lines.len() && !lines[b.start].trim().is_empty() {
            new.push(String::new());
        }
        lines.splice(b.start..b.end, new);
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_after_the_function_is_the_expectation() {
        let text = "kernel %k {\n}\n\n; A\n;\n; B\n\nkernel %j {";
        let lines: Vec<&str> = text.lines().collect();
        let b = find_block(&lines, 1);
        assert_eq!(b.expected, ["A", "", "B"]);
        assert_eq!((b.start, b.end), (3, 6));
        assert!(compare(&b, "A\n\nB\n").is_ok());
        let err = compare(&b, "A\nx\nB\n").unwrap_err();
        assert!(err.contains("output line 2"), "{err}");
        let blessed = apply(text, vec![(b, render("A\nC"))]);
        assert_eq!(blessed, "kernel %k {\n}\n\n; A\n; C\n\nkernel %j {\n");
    }

    #[test]
    fn a_missing_block_is_inserted_after_the_function() {
        let text = "kernel %k {\n}\nkernel %j {";
        let lines: Vec<&str> = text.lines().collect();
        let b = find_block(&lines, 1);
        assert!(b.expected.is_empty());
        assert!(compare(&b, "X").is_err());
        let blessed = apply(text, vec![(b, render("X"))]);
        assert_eq!(blessed, "kernel %k {\n}\n; X\n\nkernel %j {\n");
    }
}
