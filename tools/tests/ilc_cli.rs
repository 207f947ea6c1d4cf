//! The `ilc` driver's exit statuses (documented in `ilc --help`).

use ilc_test_support::assert_success;
use std::process::Command;

fn ilc(args: &[&str], kernel: &str) -> i32 {
    // One directory per call: the tests run in parallel.
    static CALLS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("ilc-cli-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("k.il");
    std::fs::write(&path, kernel).expect("write kernel");
    let out = Command::new(env!("CARGO_BIN_EXE_ilc"))
        .env_remove("ILC_LOG")
        .env_remove("RUST_LOG")
        .arg(&path)
        .args(args)
        .arg("-o")
        .arg(dir.join("k.cubin"))
        .output()
        .expect("runs ilc");
    out.status.code().expect("exit status")
}

const KERNEL: &str = "il_cs_2_0\ndcl_num_thread_per_group 64\ndcl_raw_uav_id(0)\n\
                      dcl_literal l0, 2, 2, 2, 2\nishl r0.x, vAbsTidFlat.x, l0.x\n\
                      uav_raw_store_id(0) mem.x, r0.x, vAbsTidFlat.x\nend\n";

/// Stores at byte address `tid`: four work-items store one dword in one instruction, which
/// no schedule decides; `--verify` compares the rest and names those bytes.
const RACY: &str = "il_cs_2_0\ndcl_num_thread_per_group 64\ndcl_raw_uav_id(0)\n\
                    uav_raw_store_id(0) mem.x, vAbsTidFlat.x, vAbsTidFlat.x\nend\n";

#[test]
fn exit_statuses() {
    assert_eq!(ilc(&[], KERNEL), 0);
    assert_eq!(ilc(&["--verify=1"], KERNEL), 0);
    assert_eq!(ilc(&["--verify=2"], RACY), 0);
    // Nothing compared is not a pass: no dispatch, or none finishing within the fuel.
    assert_eq!(ilc(&["--verify=0"], KERNEL), 3);
    assert_eq!(ilc(&["--verify=1", "--verify-fuel", "10"], KERNEL), 3);
    assert_eq!(ilc(&["--verify=1", "--verify-fuel", "100000"], KERNEL), 0);
    // --verify-fuel and --verify-inputs need --verify; an unreadable input directory fails.
    assert_eq!(ilc(&["--verify-fuel", "100"], KERNEL), 2);
    assert_eq!(
        ilc(
            &["--verify=1", "--verify-inputs", "/nonexistent/ilc-inputs"],
            KERNEL
        ),
        1
    );
    // Invalid input, and an empty file.
    assert_eq!(ilc(&[], "il_cs_2_0\nmov r0\nend\n"), 1);
    assert_eq!(ilc(&[], ""), 1);
    assert_eq!(ilc(&["-O9"], KERNEL), 2);
}

/// `--launch-1d`: the flattened id folds (no SR_CTAID.Y/Z read), the code is right on a 1-D
/// grid, the launch layout records the assumption so spa5-run refuses a 2-D grid, and a pixel
/// shader (whose domain is a 2-D grid of tiles) is refused.
#[test]
fn launch_1d() {
    let dir = std::env::temp_dir().join(format!("ilc-cli-1d-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let il = dir.join("k.il");
    std::fs::write(&il, KERNEL).expect("write kernel");
    let run =
        |bin: &str, args: &[&std::ffi::OsStr]| Command::new(bin).args(args).output().expect("runs");
    let cubin = dir.join("k.cubin");
    let asm = run(
        env!("CARGO_BIN_EXE_ilc"),
        &[
            il.as_os_str(),
            "--launch-1d".as_ref(),
            "--emit".as_ref(),
            "asm".as_ref(),
        ],
    );
    let text = String::from_utf8_lossy(&asm.stdout);
    assert_success(&asm);
    assert!(
        text.contains("SR_CTAID.X") && !text.contains("SR_CTAID.Y"),
        "{text}"
    );
    assert_eq!(ilc(&["--launch-1d", "--verify=2"], KERNEL), 0);
    let out = run(
        env!("CARGO_BIN_EXE_ilc"),
        &[
            il.as_os_str(),
            "--launch-1d".as_ref(),
            "-o".as_ref(),
            cubin.as_os_str(),
        ],
    );
    assert!(out.status.success());
    let spa5 = env!("CARGO_BIN_EXE_spa5-run");
    let out_dir = dir.join("out");
    let ok = run(
        spa5,
        &[
            cubin.as_os_str(),
            "--grid".as_ref(),
            "4".as_ref(),
            "--zero".as_ref(),
            "0=1024".as_ref(),
            "--out".as_ref(),
            out_dir.as_os_str(),
        ],
    );
    assert_success(&ok);
    let refused = run(
        spa5,
        &[
            cubin.as_os_str(),
            "--grid".as_ref(),
            "2,2".as_ref(),
            "--zero".as_ref(),
            "0=1024".as_ref(),
        ],
    );
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        !refused.status.success() && err.contains("1-D launches"),
        "{err}"
    );
    let ps = "il_ps_2_0\ndcl_input_position_interp(linear_noperspective) vWinCoord0.xy__\n\
              dcl_output_generic o0\nmov o0, vWinCoord0.xyxy\nend\n";
    assert_eq!(ilc(&["--launch-1d"], ps), 1);
    assert_eq!(ilc(&[], ps), 0);
}

/// `-v` prints ptxas's resource lines; `--warn-on-spills` warns only when something spilled.
#[test]
fn resource_usage_and_spill_warning() {
    let kernel = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench/kernels/nbody.il");
    let dir = std::env::temp_dir().join(format!("ilc-cli-v-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let run = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_ilc"))
            .arg(&kernel)
            .args(["-v", "--warn-on-spills", "-o"])
            .arg(dir.join("k.cubin"))
            .args(extra)
            .output()
            .expect("runs ilc");
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let err = run(&[]);
    assert!(
        err.contains("ilc info    : Compiling entry function 'nbody' for 'sm_50'"),
        "{err}"
    );
    assert!(
        err.contains("0 bytes spill stores, 0 bytes spill loads"),
        "{err}"
    );
    assert!(
        err.contains("bytes cmem[0]") && err.contains("ilc info    : Used "),
        "{err}"
    );
    assert!(!err.contains("warning : Registers are spilled"), "{err}");
    let err = run(&["--max-regs", "8"]);
    assert!(err.contains("ilc info    : Used 8 registers"), "{err}");
    assert!(
        err.contains("ilc warning : Registers are spilled to local memory in function 'nbody'"),
        "{err}"
    );
    assert!(!err.contains(" 0 bytes spill stores"), "{err}");
}

/// Usage errors (exit 2) for values ilc would otherwise have misread or silently changed,
/// `-` as standard input, and ilc-bench's exit status.
#[test]
fn cli_details() {
    use std::io::Write;
    use std::process::Stdio;
    let dir = std::env::temp_dir().join(format!("ilc-cli-details-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let il = dir.join("k.il");
    std::fs::write(&il, KERNEL).expect("write kernel");
    let il = il.to_str().unwrap();
    let cubin = dir.join("k.cubin");
    let cubin = cubin.to_str().unwrap();
    let run = |args: &[&str], stdin: &str| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ilc"))
            .env_remove("ILC_LOG")
            .env_remove("RUST_LOG")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("runs ilc");
        // ilc exits without reading on a usage error: the pipe may be closed.
        let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
        child.wait_with_output().expect("runs ilc")
    };
    let status = |args: &[&str]| run(args, "").status.code().expect("exit status");
    // `--verify FILE` is the default count and the input, not N = FILE.
    assert_eq!(status(&["--verify", il, "-o", cubin]), 0);
    // Misspelt or stray pass options.
    assert_eq!(status(&[il, "--dump-after=foo", "-o", cubin]), 2);
    assert_eq!(status(&[il, "--dump-dot", "-o", cubin]), 2);
    assert_eq!(status(&[il, "--dump-dir", cubin, "-o", cubin]), 2);
    // Values that used to be changed silently.
    for args in [
        &["--max-regs", "300"][..],
        &["--max-regs", "0"],
        &["--name", "bad name;x"],
        &["--name", "1k"],
        &["-O", "4"],
        &["--arch", "sm_61"],
    ] {
        let mut all = vec![il, "-o", cubin];
        all.extend_from_slice(args);
        let out = run(&all, "");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty());
    }
    assert_eq!(
        status(&[
            il,
            "--max-regs",
            "254",
            "--name",
            "_k2",
            "--arch",
            "52",
            "-O3",
            "-o",
            cubin
        ]),
        0
    );
    // Standard input: the kernel is `main` unless named; a cubin needs -o.
    let out = run(&["-", "--emit", "asm", "-v"], KERNEL);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("'main'"));
    assert_eq!(run(&["-"], KERNEL).status.code(), Some(2));
    assert_eq!(run(&["-", "-o", cubin], KERNEL).status.code(), Some(0));
    let empty = run(&["-", "-o", cubin], "");
    assert_eq!(empty.status.code(), Some(1));
    let text = String::from_utf8_lossy(&empty.stderr);
    assert!(text.contains("error[E0017]: empty program") && text.contains("--> <stdin>:1:1"));

    // ilc-bench: a kernel that fails makes the exit status 1, after every line.
    let bad = dir.join("bad.il");
    std::fs::write(&bad, "il_cs_2_0\nmov r0\nend\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ilc-bench"))
        .args(["--runs", "1", bad.to_str().unwrap(), il])
        .output()
        .expect("runs ilc-bench");
    assert_eq!(out.status.code(), Some(1));
    let lines = String::from_utf8_lossy(&out.stdout);
    assert!(
        lines.contains("\"ok\": false") && lines.contains("\"ok\": true"),
        "{lines}"
    );
    let ok = Command::new(env!("CARGO_BIN_EXE_ilc-bench"))
        .args(["--runs", "1", il])
        .output()
        .expect("runs ilc-bench");
    assert!(ok.status.success());
}

/// Logging: ILC_LOG (else RUST_LOG) selects events, with the kernel, pass and stage spans;
/// -q silences them and the warnings; nothing is logged by default.
#[test]
fn logging() {
    let dir = std::env::temp_dir().join(format!("ilc-cli-log-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let il = dir.join("k.il");
    std::fs::write(&il, KERNEL).expect("write kernel");
    let cubin = dir.join("k.cubin");
    let run = |env: &[(&str, &str)], extra: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ilc"));
        cmd.env_remove("ILC_LOG").env_remove("RUST_LOG");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd
            .arg(&il)
            .arg("-o")
            .arg(&cubin)
            .args(extra)
            .output()
            .expect("runs ilc");
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert_eq!(run(&[], &[]), "");
    let debug = run(&[("ILC_LOG", "debug"), ("NO_COLOR", "1")], &[]);
    for needle in [
        "kernel{name=\"k\"}:pass{name=\"gvn\" n=",
        "stage{name=\"regalloc\"}: ilc::spa5: allocated gprs=",
        "stage{name=\"schedule\"}: ilc::spa5: scheduled",
        "ilc::lower: lowered blocks=",
        "INFO kernel{name=\"k\"}: ilc: compiled",
    ] {
        assert!(debug.contains(needle), "{needle}\n{debug}");
    }
    assert!(!debug.contains('\x1b'), "colour without a terminal");
    let info = run(&[("RUST_LOG", "info")], &[]);
    assert!(
        info.contains("compiled") && !info.contains("DEBUG"),
        "{info}"
    );
    // ILC_LOG wins over RUST_LOG.
    let off = run(&[("ILC_LOG", "error"), ("RUST_LOG", "debug")], &[]);
    assert_eq!(off, "");
    assert_eq!(run(&[("ILC_LOG", "debug")], &["-q"]), "");
}

/// Diagnostics: rustc's layout with help and labels, a summary line, colour only when forced
/// (stderr is a pipe here), `--message-format=json`, and `TOOL: error:` for the tool's own.
#[test]
fn diagnostics_forms() {
    use std::process::Stdio;
    let dir = std::env::temp_dir().join(format!("ilc-cli-diag-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let il = dir.join("bad.il");
    std::fs::write(
        &il,
        "il_cs_2_0\ndcl_cb cb0[2]\ndcl_cb cb0[4]\nmad_ieeee r0, r1, r2, r3\nend\n",
    )
    .unwrap();
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_ilc"));
        c.env_remove("ILC_LOG")
            .env_remove("RUST_LOG")
            .env_remove("NO_COLOR")
            .env_remove("CLICOLOR_FORCE")
            .arg(&il)
            .args(args)
            .args(["-o", dir.join("k.cubin").to_str().unwrap()])
            .stderr(Stdio::piped());
        for (k, v) in env {
            c.env(k, v);
        }
        let out = c.output().expect("runs ilc");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, text) = run(&[], &[]);
    assert_eq!(code, Some(1));
    assert!(!text.contains('\x1b'), "{text}");
    assert!(
        text.contains("error[E0031]: constant buffer cb0 declared twice"),
        "{text}"
    );
    assert!(text.contains("first declared here"), "{text}");
    assert!(
        text.contains("error[E0014]: unknown control `_ieeee` on `mad`"),
        "{text}"
    );
    assert!(text.contains("= help: did you mean `mad_ieee`?"), "{text}");
    assert!(
        text.ends_with("error: aborting due to 2 previous errors\n"),
        "{text}"
    );
    let (_, forced) = run(&[], &[("CLICOLOR_FORCE", "1")]);
    assert!(forced.contains('\x1b'), "{forced}");
    let (_, no_color) = run(&[], &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]);
    assert!(!no_color.contains('\x1b'), "{no_color}");
    let (code, json) = run(&["--message-format=json"], &[("CLICOLOR_FORCE", "1")]);
    assert_eq!(code, Some(1));
    let lines: Vec<&str> = json.lines().collect();
    assert_eq!(lines.len(), 2, "{json}");
    for l in &lines {
        assert!(l.starts_with("{\"code\":\"E00") && l.ends_with('}'), "{l}");
        assert!(l.contains("\"file\":") && l.contains("\"spans\":[{"), "{l}");
    }
    assert!(
        lines[0].contains("\"label\":\"first declared here\""),
        "{json}"
    );
    assert!(
        lines[1].contains("\"help\":[\"did you mean `mad_ieee`?\"]"),
        "{json}"
    );
    let (code, text) = run(&["--message-format=yaml"], &[]);
    assert_eq!(code, Some(2), "{text}");
    let missing = Command::new(env!("CARGO_BIN_EXE_ilc"))
        .arg(dir.join("missing.il"))
        .output()
        .expect("runs ilc");
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).starts_with("ilc: error: cannot read "));
    // Under --message-format=json the tool's own errors are JSON lines too: I/O, usage
    // errors found by clap (before the flag itself is parsed) and by ilc.
    let json_run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_ilc"))
            .env_remove("ILC_LOG")
            .env_remove("RUST_LOG")
            .env("CLICOLOR_FORCE", "1")
            .args(args)
            .output()
            .expect("runs ilc");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let missing = dir.join("missing.il");
    let il = il.to_str().unwrap();
    for (args, code, message) in [
        (
            vec![missing.to_str().unwrap(), "--message-format=json"],
            1,
            "\"message\":\"cannot read ",
        ),
        (
            vec!["--message-format", "json", "--bogus", il],
            2,
            "\"message\":\"unexpected argument '--bogus' found\"",
        ),
        (
            vec![il, "--max-regs", "300", "--message-format=json"],
            2,
            "\"message\":\"invalid value '300' for '--max-regs <N>'",
        ),
        (
            vec![il, "--dump-after=nopass", "--message-format=json"],
            2,
            "\"message\":\"unknown pass or stage `nopass`",
        ),
    ] {
        let (got, text) = json_run(&args);
        assert_eq!(got, Some(code), "{args:?}: {text}");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1, "{args:?}: {text}");
        assert!(
            lines[0].starts_with("{\"code\":null,\"severity\":\"error\",")
                && lines[0].contains(message)
                && lines[0].ends_with(",\"tool\":\"ilc\"}"),
            "{args:?}: {text}"
        );
    }
    // Help still prints as help.
    let (code, help) = json_run(&["--message-format=json", "--help"]);
    assert_eq!(code, Some(0));
    assert!(help.is_empty(), "{help}");
    std::fs::remove_dir_all(&dir).unwrap();
}
