#!/usr/bin/env python3
"""Mutation check of the optimization pipeline: does some test notice when one pass is gone?

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

Usage:
  python3 tools/mutation_check.py [--only NAME[,NAME]] [--list O1|O2|all]
                                  [--tests "cargo test ARGS"] [--timeout SECONDS]

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


def failing_tests(output):
    return sorted(set(re.findall(r"^test (\S+) \.\.\. FAILED", output, re.M)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="", help="pass names to mutate (comma-separated)")
    ap.add_argument("--list", default="all", choices=["O1", "O2", "all"])
    ap.add_argument("--tests", default=DEFAULT_TESTS, help="the test command")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds per test run")
    args = ap.parse_args()

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
