//! Both runners refuse oversized or malformed dispatches with an error (exit status 1 or 2)
//! before allocating anything, stop endless loops by their default fuel within seconds, and
//! never panic on any argument: the cases of the runner audit, and a seeded random walk over
//! argument vectors built from flags and edge values. `spa5-run --profile` charges every modeled
//! cycle to one instruction.

use ilc_test_support::{assert_success, Rng};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("runner-limits-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn run(bin: &str, args: &[&str]) -> Output {
    Command::new(bin)
        .args(args)
        .output()
        .expect("runner starts")
}

/// Exit status 1 or 2 with an error message naming `needle`, and no panic.
fn refused(out: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        matches!(out.status.code(), Some(1 | 2)),
        "status {:?}: {err}",
        out.status
    );
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains(needle), "expected `{needle}` in: {err}");
}

const IL_RUN: &str = env!("CARGO_BIN_EXE_il-run");
const SPA5_RUN: &str = env!("CARGO_BIN_EXE_spa5-run");
const ILC: &str = env!("CARGO_BIN_EXE_ilc");

/// Compiles `il` with ilc into `dir/NAME.cubin`.
fn compile(dir: &Path, name: &str, il: &str) -> (String, String) {
    let src = dir.join(format!("{name}.il"));
    std::fs::write(&src, il).expect("write il");
    let cubin = dir.join(format!("{name}.cubin"));
    let out = Command::new(ILC)
        .args([src.to_str().unwrap(), "-o", cubin.to_str().unwrap()])
        .output()
        .expect("ilc starts");
    assert_success(&out);
    (
        src.to_str().unwrap().to_string(),
        cubin.to_str().unwrap().to_string(),
    )
}

const COPY: &str = "il_cs_2_0\ndcl_num_thread_per_group 64\ndcl_raw_uav_id(0)\n\
ishl r0.x, vAbsTid.x, l0.x\nuav_raw_store_id(0) mem.x, r0.x, r0.x\nend\n";

fn copy_kernel(dir: &Path) -> (String, String) {
    compile(
        dir,
        "copy",
        &COPY.replace("il_cs_2_0\n", "il_cs_2_0\ndcl_literal l0, 2, 0, 0, 0\n"),
    )
}

#[test]
fn oversized_zero_buffers_are_refused() {
    let dir = temp("zero");
    let (il, cubin) = copy_kernel(&dir);
    for size in ["18446744073709551615", "1099511627776", "4294967296"] {
        let z = format!("0={size}");
        refused(&run(IL_RUN, &[&il, "--zero", &z]), "memory budget");
        refused(&run(SPA5_RUN, &[&cubin, "--zero", &z]), "memory budget");
    }
}

#[test]
fn oversized_grids_and_domains_are_refused_at_once() {
    let dir = temp("grid");
    let (il, cubin) = copy_kernel(&dir);
    let t = Instant::now();
    for bin in [IL_RUN, SPA5_RUN] {
        let file = if bin == IL_RUN { &il } else { &cubin };
        refused(
            &run(bin, &[file, "--zero", "0=64", "--grid", "65535,65535,64"]),
            "work-items",
        );
        refused(
            &run(bin, &[file, "--zero", "0=64", "--domain", "65535,65535"]),
            "work-items",
        );
    }
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
}

#[test]
fn an_endless_loop_runs_out_of_default_fuel_in_seconds() {
    let dir = temp("loop");
    let (il, cubin) = compile(
        &dir,
        "spin",
        "il_cs_2_0\ndcl_num_thread_per_group 32\ndcl_raw_uav_id(0)\ndcl_literal l0, 1, 0, 0, 0\n\
         mov r0.x, l0.y\nwhileloop\niadd r0.x, r0.x, l0.x\nendloop\n\
         uav_raw_store_id(0) mem.x, r0.y, r0.x\nend\n",
    );
    // The budget spent is the tool's default (the message names it); the wall-clock bound
    // only guards against a runner that ignores its fuel, with room for a slow debug build.
    for (bin, file, fuel) in [
        (IL_RUN, &il, ilc_tools::dispatch::DEFAULT_FUEL),
        (SPA5_RUN, &cubin, ilc_tools::dispatch::DEFAULT_WARP_FUEL),
    ] {
        let t = Instant::now();
        refused(
            &run(bin, &[file, "--zero", "0=64"]),
            &format!("out of fuel after {fuel} "),
        );
        assert!(
            t.elapsed() < Duration::from_secs(120),
            "{bin}: {:?}",
            t.elapsed()
        );
    }
}

#[test]
fn foreign_parameter_offsets_beyond_the_parameter_space_are_refused() {
    let dir = temp("buf");
    let cubin = root().join("tests/cuda/cubins/const_table.cubin");
    let cubin = cubin.to_str().unwrap();
    let data = dir.join("data.bin");
    std::fs::write(&data, [0u8; 64]).expect("write");
    for off in ["4294967288", "4000000000", "65209"] {
        let b = format!("{off}={}", data.display());
        refused(
            &run(SPA5_RUN, &[cubin, "--block", "64,1,1", "--buf", &b]),
            "parameter space",
        );
    }
}

#[test]
fn flags_of_the_other_cubin_kind_are_refused() {
    let dir = temp("kind");
    let (_, ours) = copy_kernel(&dir);
    let data = dir.join("d.bin");
    std::fs::write(&data, [0u8; 64]).expect("write");
    let d = data.to_str().unwrap();
    let foreign = root().join("tests/cuda/cubins/const_table.cubin");
    let foreign = foreign.to_str().unwrap();
    let b = format!("0={d}");
    let s = format!("scale={d}");
    for (flag, val) in [
        ("--buf", b.as_str()),
        ("--param", d),
        ("--dynamic-shared", "16"),
        ("--symbol", s.as_str()),
    ] {
        refused(&run(SPA5_RUN, &[&ours, "--zero", "0=256", flag, val]), flag);
    }
    for (flag, val) in [
        ("--uav", b.as_str()),
        ("--zero", "0=16"),
        ("--g", d),
        ("--cb", b.as_str()),
    ] {
        refused(
            &run(SPA5_RUN, &[foreign, "--block", "64,1,1", flag, val]),
            flag,
        );
    }
}

#[test]
fn symbols_of_a_ptxas_cubin_are_filled_before_the_launch() {
    // const_table: out[i] = table[a[i] & 63] + table[i & 63] * 2 + scale[0].
    let dir = temp("symbol");
    let cubin = root().join("tests/cuda/cubins/const_table.cubin");
    let n = 128usize;
    let a: Vec<u8> = (0..n as i32).flat_map(|v| (v * 5).to_le_bytes()).collect();
    let (a_path, out_path, scale) = (dir.join("a.bin"), dir.join("out.bin"), dir.join("s.bin"));
    std::fs::write(&a_path, &a).unwrap();
    std::fs::write(&out_path, vec![0u8; 4 * n]).unwrap();
    std::fs::write(&scale, 1000i32.to_le_bytes()).unwrap();
    let mut params = vec![0u8; 16];
    params.extend((n as i32).to_le_bytes());
    let p = dir.join("p.bin");
    std::fs::write(&p, params).unwrap();
    let o = dir.join("o");
    let out = run(
        SPA5_RUN,
        &[
            cubin.to_str().unwrap(),
            "--block",
            "64,1,1",
            "--grid",
            "2",
            "--param",
            p.to_str().unwrap(),
            "--buf",
            &format!("0={}", out_path.display()),
            "--buf",
            &format!("8={}", a_path.display()),
            "--symbol",
            &format!("scale={}", scale.display()),
            "--stats=json",
            "--out",
            o.to_str().unwrap(),
        ],
    );
    assert_success(&out);
    let table = |k: i32| k * k * 3 + 1;
    let got = std::fs::read(o.join("out.bin")).unwrap();
    for i in 0..n {
        let v = i32::from_le_bytes(got[4 * i..4 * i + 4].try_into().unwrap());
        let want = table((i as i32 * 5) & 63) + table(i as i32 & 63) * 2 + 1000;
        assert_eq!(v, want, "out[{i}]");
    }
    let stats = String::from_utf8_lossy(&out.stdout);
    for key in [
        "\"warp_instructions\": ",
        "\"thread_instructions\": ",
        "\"cycles_critical_warp\": ",
        "\"cycles_sum\": ",
        "\"bank_conflicts\": ",
        "\"reuse_hits\": ",
        "\"by_class\": {",
        "\"global\": ",
    ] {
        assert!(stats.contains(key), "{key} missing in {stats}");
    }
    // A symbol that does not exist, and data longer than the symbol.
    let big = dir.join("big.bin");
    std::fs::write(&big, vec![0u8; 4096]).unwrap();
    for (sym, want) in [
        (format!("nope={}", scale.display()), "no data symbol"),
        (format!("table={}", big.display()), "do not fit"),
    ] {
        refused(
            &run(
                SPA5_RUN,
                &[
                    cubin.to_str().unwrap(),
                    "--block",
                    "64,1,1",
                    "--symbol",
                    &sym,
                ],
            ),
            want,
        );
    }
}

/// `--stats` splits the modeled cycles into stall counts, scoreboard waits and barrier waits,
/// and `--profile`'s rows (one per executed instruction) add up to the launch's cycles, the
/// load's consumer showing its wait on the load's scoreboard.
#[test]
fn the_profile_charges_every_cycle_to_an_instruction() {
    let dir = temp("profile");
    let (_, cubin) = compile(
        &dir,
        "inc",
        "il_cs_2_0\ndcl_num_thread_per_group 64\ndcl_raw_uav_id(0)\ndcl_literal l0, 2, 7, 0, 0\n\
         ishl r0.x, vAbsTid.x, l0.x\nuav_raw_load_id(0) r1.x, r0.x\nimul r1.x, r1.x, r1.x\n\
         iadd r1.x, r1.x, l0.y\nuav_raw_store_id(0) mem.x, r0.x, r1.x\nend\n",
    );
    let buf = dir.join("a.bin");
    std::fs::write(
        &buf,
        (0..128u32).flat_map(u32::to_le_bytes).collect::<Vec<u8>>(),
    )
    .unwrap();
    let o = dir.join("o");
    let uav = format!("0={}", buf.display());
    let args = [
        &cubin,
        "--grid",
        "2",
        "--uav",
        &uav,
        "--out",
        o.to_str().unwrap(),
    ];
    let out = run(
        SPA5_RUN,
        &[&args[..], &["--stats=json", "--profile"]].concat(),
    );
    assert_success(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    let json = lines.next().unwrap();
    let field = |k: &str| -> u64 {
        let at = json
            .find(&format!("\"{k}\": "))
            .unwrap_or_else(|| panic!("{k} in {json}"));
        let rest = &json[at + k.len() + 4..];
        rest[..rest.find(|c: char| !c.is_ascii_digit()).unwrap()]
            .parse()
            .unwrap()
    };
    let sum = field("cycles_sum");
    let parts = [
        "cycles_stall",
        "cycles_scoreboard_wait",
        "cycles_barrier_wait",
        "bank_conflicts",
    ];
    assert_eq!(parts.iter().map(|k| field(k)).sum::<u64>(), sum, "{json}");
    assert!(lines.next().unwrap().contains("wait by scoreboard"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split_whitespace().collect()).collect();
    // Columns: addr, count, cycles, stall, conflicts, wait, barrier, then the text.
    let col = |r: &Vec<&str>, i: usize| r[i].parse::<u64>().unwrap();
    assert_eq!(rows.iter().map(|r| col(r, 2)).sum::<u64>(), sum);
    assert_eq!(
        rows.iter().map(|r| col(r, 5)).sum::<u64>(),
        field("cycles_scoreboard_wait")
    );
    let load = rows
        .iter()
        .position(|r| r.iter().any(|w| w.starts_with("LDG")))
        .unwrap();
    let user = &rows[load + 1..]
        .iter()
        .find(|r| col(r, 5) > 0)
        .unwrap_or_else(|| panic!("nothing waits for the load: {text}"));
    assert!(user[7].starts_with("sb"), "{user:?}");
    assert!(
        rows.iter().all(|r| col(r, 1) == 4),
        "every instruction ran once per warp: {text}"
    );
    // Without --profile, only the statistics.
    let out = run(SPA5_RUN, &[&args[..], &["--stats=json"]].concat());
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1);
}

/// A seeded random walk over argument vectors: flags with edge values, in any order, given to
/// both runners with real kernels: every run ends with status 0, 1, 2 or 3, never a panic.
#[test]
fn random_arguments_never_panic() {
    let dir = temp("random");
    let (il, cubin) = copy_kernel(&dir);
    let data = dir.join("d.bin");
    std::fs::write(&data, [0u8; 256]).unwrap();
    let d = data.display().to_string();
    let foreign = root().join("tests/cuda/cubins/const_table.cubin");
    let values = [
        "0",
        "1",
        "64",
        "65535",
        "4294967295",
        "4294967296",
        "18446744073709551615",
        "-1",
        "",
        "=",
        "0=",
        "=0",
        "1,2",
        "1,2,3",
        "1,2,3,4",
        "0,0",
        "65535,65535,64",
        "x",
        "0x10",
        "scale",
        "json",
        "text",
    ];
    let flags = [
        "--grid",
        "--uav",
        "--cb",
        "--srv",
        "--g",
        "--zero",
        "--domain",
        "--fuel",
        "--block",
        "--param",
        "--buf",
        "--dynamic-shared",
        "--symbol",
        "--kernel",
        "--tex",
        "--sampler",
        "--stats",
        "--shuffle",
    ];
    let mut rng = Rng::new(0x2545_f491_4f6c_dd1d);
    let mut next = |n: usize| rng.index(n);
    for case in 0..120 {
        let (bin, file) = match case % 3 {
            0 => (IL_RUN, il.clone()),
            1 => (SPA5_RUN, cubin.clone()),
            _ => (SPA5_RUN, foreign.display().to_string()),
        };
        let mut args = vec![file];
        for _ in 0..1 + next(4) {
            let flag = flags[next(flags.len())];
            let v = match next(3) {
                0 => values[next(values.len())].to_string(),
                1 => format!("{}={}", values[next(4)], d),
                _ => format!(
                    "{}={}",
                    values[next(values.len())],
                    values[next(values.len())]
                ),
            };
            args.push(flag.to_string());
            args.push(v);
        }
        args.push("--out".into());
        args.push(dir.join("o").display().to_string());
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run(bin, &refs);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            matches!(out.status.code(), Some(0..=3)) && !err.contains("panicked"),
            "{bin} {args:?}: {:?} {err}",
            out.status
        );
    }
}
