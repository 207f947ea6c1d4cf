//! Line-oriented expectation matching for filetests (a small FileCheck).
//!
//! Directives, in order of appearance: `check: P` finds the first line at or after the
//! current position containing `P`; `nextln: P` requires the line right after the last
//! match to contain `P`; `sameln: P` requires the last matched line to contain `P` (after
//! the previous match on it); `not: P` forbids `P` on every line between the previous match
//! and the next positive match (or the end). Patterns match as substrings after collapsing
//! runs of whitespace to one space, on both sides.
//!
//! Guarantees: every failure names the directive, its source line, and shows the output.

/// One expectation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Directive {
    /// `check:`
    Check(String),
    /// `nextln:`
    Nextln(String),
    /// `sameln:`
    Sameln(String),
    /// `not:`
    Not(String),
}

/// A directive with the source line it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    /// The directive.
    pub directive: Directive,
    /// 1-based line in the test file.
    pub line: usize,
}

fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Extracts the check directives from comment text of a test file (`; check: ...`).
pub fn parse_directives(text: &str, first_line: usize) -> Vec<Located> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some(pos) = line.find(';') else { continue };
        let c = line[pos + 1..].trim_start();
        let d = if let Some(p) = c.strip_prefix("check:") {
            Directive::Check(norm(p))
        } else if let Some(p) = c.strip_prefix("nextln:") {
            Directive::Nextln(norm(p))
        } else if let Some(p) = c.strip_prefix("sameln:") {
            Directive::Sameln(norm(p))
        } else if let Some(p) = c.strip_prefix("not:") {
            Directive::Not(norm(p))
        } else {
            continue;
        };
        out.push(Located {
            directive: d,
            line: first_line + i,
        });
    }
    out
}

/// Matches `directives` against `output`.
pub fn run_checks(directives: &[Located], output: &str) -> Result<(), String> {
    let lines: Vec<String> = output.lines().map(norm).collect();
    let fail = |d: &Located, what: &str| -> Result<(), String> {
        Err(format!(
            "line {}: {what}: {:?}\n--- output ---\n{output}--------------",
            d.line, d.directive
        ))
    };
    // `cur`: index of the next line to search; `last`: last matched line and column.
    let mut cur = 0usize;
    let mut last: Option<(usize, usize)> = None;
    let mut pending_not: Vec<&Located> = Vec::new();
    let check_nots = |pending: &mut Vec<&Located>, from: usize, to: usize| -> Result<(), String> {
        for d in pending.drain(..) {
            let Directive::Not(p) = &d.directive else {
                continue;
            };
            for (k, l) in lines.iter().enumerate().take(to).skip(from) {
                if l.contains(p.as_str()) {
                    return Err(format!(
                        "line {}: `not: {p}` matched output line {}: {l}\n--- output ---\n{output}--------------",
                        d.line,
                        k + 1
                    ));
                }
            }
        }
        Ok(())
    };
    for d in directives {
        match &d.directive {
            Directive::Not(_) => pending_not.push(d),
            Directive::Check(p) => {
                let found = (cur..lines.len()).find(|&k| lines[k].contains(p.as_str()));
                let Some(k) = found else {
                    return fail(d, "no match");
                };
                check_nots(&mut pending_not, cur, k)?;
                let col = lines[k].find(p.as_str()).unwrap_or(0) + p.len();
                last = Some((k, col));
                cur = k + 1;
            }
            Directive::Nextln(p) => {
                let k = last.map_or(0, |(k, _)| k + 1);
                if k >= lines.len() || !lines[k].contains(p.as_str()) {
                    return fail(d, &format!("next line is {:?}", lines.get(k)));
                }
                check_nots(&mut pending_not, cur, k)?;
                let col = lines[k].find(p.as_str()).unwrap_or(0) + p.len();
                last = Some((k, col));
                cur = k + 1;
            }
            Directive::Sameln(p) => {
                let Some((k, col)) = last else {
                    return fail(d, "sameln without a previous match");
                };
                let rest = lines[k].get(col..).unwrap_or("");
                match rest.find(p.as_str()) {
                    Some(off) => last = Some((k, col + off + p.len())),
                    None => return fail(d, &format!("line is {:?}", lines[k])),
                }
            }
        }
    }
    check_nots(&mut pending_not, cur, lines.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn go(dirs: &str, out: &str) -> Result<(), String> {
        run_checks(&parse_directives(dirs, 1), out)
    }

    #[test]
    fn matching() {
        let out = "a = iadd b, c\nx = fmul  y, z\nreturn\n";
        assert!(go("; check: iadd\n; nextln: fmul y\n; sameln: z", out).is_ok());
        assert!(go("; check: fmul\n; nextln: iadd", out).is_err());
        assert!(go("; check: iadd\n; not: fmul\n; check: return", out).is_err());
        assert!(go("; check: iadd\n; not: isub\n; check: return", out).is_ok());
        assert!(go("; not: imul", out).is_ok());
        assert!(go("; check: return\n; not: iadd", out).is_ok());
        assert!(go("; check: nothing", out).is_err());
        assert!(go("; sameln: x", out).is_err());
    }
}
