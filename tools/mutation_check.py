#!/usr/bin/env python3
"""Mutation check: does some test notice when one pass, or one selection rule, is gone?

Two modes. Passes (the default) drops pipeline entries; `--rules` drops instruction
selection rules (see "Rules" below).

For each entry of the pass lists in compiler/src/pipeline.rs (`passes_for`: the -O1 list and
the -O2/-O3 list, every occurrence of a pass separately), runs a test command with that one
entry removed and reports the removals no test notices (the command still passes).

How: the script patches `passes_for` in the working tree to drop the entry that the
environment variable ILC_MUTATION_DROP names (`O1:3` = the -O1 list's entry 3, `O2:7` = the
-O2/-O3 list's entry 7), builds the test command once, runs it once unmutated (it must pass)
and once per mutant, and restores the file at the end (also on Ctrl-C or an error). The patch
is never committed; do not commit, or edit sources the tests build from, while the script
runs (cargo rebuilds the tests for the next mutant, and an edit can fail them: a false
"noticed").

Rules (`--rules`): a selection rule is a match arm on IR opcodes (`Opcode::X [if G] =>`) or
a plain `if COND {` (special cases such as "a constant operand is LOP32I's immediate", and
the choices between forms) in compiler/src/spa5/isel/*.rs outside test modules. Every rule
gets a number K and is patched to be skipped when K is the number in ILC_MUTANT (the arm
gets the guard `!mutant(K)`, the `if` the condition `!mutant(K) && (COND)`), so that the
instruction falls to the next rule. Arms of matches that must stay exhaustive are listed in
RULE_SKIP. The tests are built once with the patch, the sources restored at once, and the
test binaries run directly per mutant (sources may be edited meanwhile). A mutant the first
test binary does not notice runs the next (RULE_TESTS: the compile filetests, the backend's
pattern tests, its unit tests, then the differential cases).

Usage:
  python3 tools/mutation_check.py [--only NAME[,NAME]] [--list O1|O2|all]
                                  [--tests "cargo test ARGS"] [--timeout SECONDS]
  python3 tools/mutation_check.py --rules [--only FILE[:LINE][,...]] [--timeout SECONDS]

--only restricts to entries of those pass names; --tests replaces the default test command
(see DEFAULT_TESTS). Exit status: 0 when every mutant was noticed, 1 when some were not,
2 on a usage or setup error. Takes (entries x test time): run a subset with --only.
"""

import argparse
import os
import re
import shlex
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PIPELINE = os.path.join(ROOT, "compiler", "src", "pipeline.rs")

# Tests that compile kernels through the default pipeline and check the result: precise
# backend output, executed results against the IL interpreter, the kernel corpora.
DEFAULT_TESTS = (
    "cargo test -p ilc-tests --test filetests_compile --test differential "
    "--test cal_kernels --test bench_kernels"
)

HOOK = '''
/// Mutation-check hook (tools/mutation_check.py; never committed): drops the entry named by
/// ILC_MUTATION_DROP.
pub fn passes_for(level: OptLevel) -> Vec<&'static str> {
    let mut v = passes_for_unmutated(level);
    if let Ok(m) = std::env::var("ILC_MUTATION_DROP") {
        let list = if level == OptLevel::O1 { "O1" } else { "O2" };
        if let Some((l, i)) = m.split_once(':') {
            if let (true, Ok(i)) = (l == list, i.parse::<usize>()) {
                if i < v.len() {
                    v.remove(i);
                }
            }
        }
    }
    v
}
'''


def pass_lists(src):
    """The -O1 and -O2/-O3 lists of `passes_for`, as lists of names."""
    body = src[src.index("pub fn passes_for(level: OptLevel)"):]
    body = body[: body.index("\n}\n")]
    lists = {}
    for key, arm in (("O1", "OptLevel::O1 => vec!["), ("O2", "OptLevel::O2 | OptLevel::O3 => vec![")):
        start = body.index(arm) + len(arm)
        end = body.index("]", start)
        text = re.sub(r"//[^\n]*", "", body[start:end])
        lists[key] = re.findall(r'"([a-z_0-9]+)"', text)
    return lists


def run(cmd, env=None, timeout=None):
    t = time.time()
    try:
        r = subprocess.run(
            cmd, shell=True, cwd=ROOT, env=env, timeout=timeout,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        return r.returncode, r.stdout, time.time() - t
    except subprocess.TimeoutExpired as e:
        return -1, (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or ""), time.time() - t


ISEL = os.path.join(ROOT, "compiler", "src", "spa5", "isel")

# Test binaries run per selection-rule mutant, cheapest first: (package, test target, filter).
RULE_TESTS = [
    ("ilc-tests", "filetests_compile", ""),
    ("ilc", "spa5_isel", ""),
    # The backend's unit tests (`CRATE/lib`: the library's tests, filtered by module path).
    ("ilc", "ilc/lib", "spa5::isel::"),
    ("ilc-tests", "differential", "case_outputs_match_on_the_emulator_at_every_level"),
]

# Arms that cannot take a guard (their match must stay exhaustive): "file:line" text.
RULE_SKIP = set()

RULE_HOOK = '''
/// Mutation-check hook (tools/mutation_check.py --rules; never committed): true for the
/// rule numbered by ILC_MUTANT.
pub(crate) fn mutant(k: u32) -> bool {
    static M: std::sync::OnceLock<Option<u32>> = std::sync::OnceLock::new();
    *M.get_or_init(|| std::env::var("ILC_MUTANT").ok().and_then(|v| v.parse().ok())) == Some(k)
}
'''

ARM = re.compile(r"^(\s+)((?:Opcode::\w+)(?:\s*\|\s*Opcode::\w+)*)(?:\s+if\s+(.*?))?\s*=>(.*)$")
IF = re.compile(r"^(\s+)((?:\} else )?)if (?!let )(.*) \{$")


def rule_sites():
    """Every selection rule: (file, line index, original line, patched line with `@K@`)."""
    sites = []
    for name in sorted(os.listdir(ISEL)):
        if not name.endswith(".rs"):
            continue
        path = os.path.join(ISEL, name)
        lines = open(path).read().split("\n")
        for i, line in enumerate(lines):
            if re.match(r"(mod tests\b|#\[cfg\(test\)\])", line.strip()):
                break
            if f"{name}:{i + 1}" in RULE_SKIP:
                continue
            hook = "!crate::spa5::isel::mutant(@K@)"
            m = ARM.match(line)
            if m:
                guard = hook + (f" && ({m.group(3)})" if m.group(3) else "")
                sites.append((path, i, line, f"{m.group(1)}{m.group(2)} if {guard} =>{m.group(4)}"))
                continue
            m = IF.match(line)
            if m and "=>" not in line:
                sites.append((path, i, line, f"{m.group(1)}{m.group(2)}if {hook} && ({m.group(3)}) " + "{"))
    return sites


def test_binaries(timeout):
    """Builds the rule tests: {target: executable}, or None with the build's output."""
    import json
    packages = " ".join(sorted({f"-p {p}" for p, _, _ in RULE_TESTS}))
    targets = " ".join("--lib" if t.endswith("/lib") else f"--test {t}" for _, t, _ in RULE_TESTS)
    code, out, _ = run(f"cargo test {packages} {targets} --no-run --message-format=json", timeout=timeout)
    if code != 0:
        errors = [json.loads(l).get("message", {}).get("rendered", "") for l in out.splitlines()
                  if l.startswith("{") and '"compiler-message"' in l]
        print("".join(e for e in errors if e.startswith("error"))[-6000:])
        return None
    exes = {}
    for line in out.splitlines():
        if line.startswith("{") and '"executable"' in line:
            msg = json.loads(line)
            target = msg.get("target", {})
            name = target.get("name")
            if "lib" in target.get("kind", []):
                name += "/lib"
            if msg.get("executable") and name in {t for _, t, _ in RULE_TESTS}:
                exes[name] = msg["executable"]
    return exes


def check_rules(args):
    sites = rule_sites()
    only = [o for o in args.only.split(",") if o]
    numbered = list(enumerate(sites))
    if only:
        def chosen(path, i):
            rel = os.path.relpath(path, ISEL)
            return any(o == rel or o == f"{rel}:{i + 1}" for o in only)
        numbered = [(k, s) for k, s in numbered if chosen(s[0], s[1])]
    originals = {}
    for name in os.listdir(ISEL):
        if name.endswith(".rs"):
            path = os.path.join(ISEL, name)
            originals[path] = open(path).read()
    if any("ILC_MUTANT" in text for text in originals.values()):
        print("mutation_check: error: isel already carries the hook: restore it with git checkout first",
              file=sys.stderr)
        return 2
    try:
        patched = {p: t.split("\n") for p, t in originals.items()}
        for k, (path, i, _line, new) in enumerate(sites):
            patched[path][i] = new.replace("@K@", str(k))
        for path, lines in patched.items():
            text = "\n".join(lines)
            if path.endswith("mod.rs"):
                text += RULE_HOOK
            with open(path, "w") as f:
                f.write(text)
        exes = test_binaries(args.timeout)
    finally:
        for path, text in originals.items():
            with open(path, "w") as f:
                f.write(text)
    if not exes or len(exes) != len(RULE_TESTS):
        print("mutation_check: error: the rule tests do not build", file=sys.stderr)
        return 2
    tests_dir = os.path.join(ROOT, "tests")

    def run_tests(env):
        """The first rule test that fails, or None."""
        for package, target, filt in RULE_TESTS:
            exact = "" if target.endswith("/lib") else " --exact"
            cmd = shlex.quote(exes[target]) + (f" {shlex.quote(filt)}{exact}" if filt else "")
            cwd = tests_dir if package == "ilc-tests" else os.path.join(ROOT, "compiler")
            try:
                r = subprocess.run(cmd, shell=True, cwd=cwd, env=env, timeout=args.timeout,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            except subprocess.TimeoutExpired:
                return f"{target} (timeout)"
            if r.returncode != 0:
                return target
        return None

    env = dict(os.environ)
    env.pop("ILC_MUTANT", None)
    if run_tests(env) is not None:
        print("mutation_check: error: the rule tests fail without a mutation", file=sys.stderr)
        return 2
    print(f"unmutated: pass; {len(numbered)} rules", flush=True)
    unnoticed = []
    for k, (path, i, line, _new) in numbered:
        env["ILC_MUTANT"] = str(k)
        t = time.time()
        by = run_tests(env)
        where = f"{os.path.relpath(path, ROOT)}:{i + 1}"
        if by is None:
            unnoticed.append((where, line.strip()))
        verdict = f"noticed by {by}" if by else "NOT NOTICED"
        print(f"#{k} {where}: {line.strip()[:70]}: {verdict} ({time.time() - t:.0f} s)", flush=True)
    print()
    if unnoticed:
        print(f"{len(unnoticed)} of {len(numbered)} rule removals no test notices:")
        for where, line in unnoticed:
            print(f"  {where}: {line}")
        return 1
    print(f"every one of {len(numbered)} rule removals is noticed")
    return 0


def failing_tests(output):
    return sorted(set(re.findall(r"^test (\S+) \.\.\. FAILED", output, re.M)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="", help="pass names (with --rules: isel FILE or FILE:LINE) to mutate, comma-separated")
    ap.add_argument("--rules", action="store_true", help="drop selection rules instead of passes")
    ap.add_argument("--list", default="all", choices=["O1", "O2", "all"])
    ap.add_argument("--tests", default=DEFAULT_TESTS, help="the test command")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds per test run")
    args = ap.parse_args()
    if args.rules:
        return check_rules(args)

    src = open(PIPELINE).read()
    if "ILC_MUTATION_DROP" in src:
        print("mutation_check: error: pipeline.rs already carries the hook (an earlier run was killed?): "
              "restore it with git checkout first", file=sys.stderr)
        return 2
    lists = pass_lists(src)
    only = {n for n in args.only.split(",") if n}
    mutants = [
        (key, i, name)
        for key in ("O1", "O2")
        if args.list in (key, "all")
        for i, name in enumerate(lists[key])
        if not only or name in only
    ]
    if not mutants:
        print("mutation_check: error: no entry matches", file=sys.stderr)
        return 2
    patched = src.replace("pub fn passes_for(level: OptLevel)", "fn passes_for_unmutated(level: OptLevel)", 1) + HOOK
    unnoticed = []
    try:
        with open(PIPELINE, "w") as f:
            f.write(patched)
        code, out, secs = run(args.tests + " --no-run", timeout=args.timeout)
        if code != 0:
            print(out[-4000:])
            print("mutation_check: error: the tests do not build", file=sys.stderr)
            return 2
        env = dict(os.environ)
        env.pop("ILC_MUTATION_DROP", None)
        code, out, secs = run(args.tests, env=env, timeout=args.timeout)
        if code != 0:
            print(out[-4000:])
            print("mutation_check: error: the tests fail without a mutation", file=sys.stderr)
            return 2
        print(f"unmutated: pass ({secs:.0f} s); {len(mutants)} mutants", flush=True)
        for key, i, name in mutants:
            env["ILC_MUTATION_DROP"] = f"{key}:{i}"
            code, out, secs = run(args.tests, env=env, timeout=args.timeout)
            if code == 0:
                unnoticed.append((key, i, name))
                verdict = "NOT NOTICED"
            elif code == -1:
                verdict = "noticed (timeout)"
            else:
                fails = failing_tests(out)
                verdict = "noticed by " + (", ".join(fails[:4]) + (" ..." if len(fails) > 4 else "") if fails else "a build or harness failure")
            print(f"{key}[{i}] {name}: {verdict} ({secs:.0f} s)", flush=True)
    finally:
        with open(PIPELINE, "w") as f:
            f.write(src)
    print()
    if unnoticed:
        print("removals no test notices:")
        for key, i, name in unnoticed:
            print(f"  {key}[{i}] {name}")
        return 1
    print("every removal is noticed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
