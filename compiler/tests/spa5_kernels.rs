//! Every test kernel (tests/kernels/*.il, tests/kernels_cal/*.il, tests/examples/saxpy.il) lowers and compiles
//! through the SPA 5.0 backend; NVIDIA's nvdisasm and cuobjdump accept the cubins and report
//! the registers and parameters we intended.
//!
//! Tool lookup: [`ilc_test_support::nvidia_tool`] (a missing tool prints "SKIPPED" unless
//! `CI=true`, where it fails).

use std::path::{Path, PathBuf};
use std::process::Command;

use ilc::spa5::{compile, Spa5Options, Spa5Output};
use ilc_test_support::nvidia_tool;

/// Kernels the backend is known not to compile (each with the reason); the test fails when
/// one of them starts compiling, so that the entry is removed and the kernel checked.
const EXPECTED_FAILURES: &[(&str, &str)] = &[];

fn kernels() -> Vec<PathBuf> {
    let mut v = ilc_test_support::corpus("tests/kernels", "il", 40);
    v.extend(ilc_test_support::corpus("tests/kernels_cal", "il", 15));
    v.push(ilc_test_support::workspace_root().join("tests/examples/saxpy.il"));
    v.sort();
    v
}

/// Lowers and compiles one kernel file.
fn build(path: &Path, opts: &Spa5Options) -> Result<Spa5Output, String> {
    let src = std::fs::read(path).map_err(|e| e.to_string())?;
    let fe = ilc::Compiler::default()
        .front(&src)
        .map_err(|d| format!("frontend: {d:?}"))?;
    let func = ilc::lower::lower(&fe.program).map_err(|e| format!("lower: {e}"))?;
    compile(&func, opts).map_err(|e| format!("backend: {e}"))
}

#[test]
fn every_kernel_compiles() {
    let mut failures = Vec::new();
    let mut now_passing = Vec::new();
    let mut ok = 0;
    for k in kernels() {
        let stem = ilc_test_support::stem(&k);
        let expected = EXPECTED_FAILURES.iter().find(|(name, _)| *name == stem);
        match (build(&k, &Spa5Options::default()), expected) {
            (Ok(out), None) => {
                ok += 1;
                assert_eq!(out.code.len() % 4, 0);
                assert!(out.num_regs >= 1 && out.num_regs <= 255);
            }
            (Ok(_), Some((_, why))) => now_passing.push(format!("{stem} (listed: {why})")),
            (Err(e), None) => failures.push(format!("{}: {e}", k.display())),
            (Err(_), Some(_)) => {}
        }
    }
    eprintln!("compiled {ok} kernels");
    assert!(
        failures.is_empty(),
        "kernels fail to compile:\n{}",
        failures.join("\n")
    );
    assert!(
        now_passing.is_empty(),
        "kernels in EXPECTED_FAILURES compile now (remove them from the list):\n{}",
        now_passing.join("\n")
    );
}

#[test]
fn nvidia_tools_accept_cubins() {
    let (Some(dis), Some(objdump)) = (nvidia_tool("nvdisasm"), nvidia_tool("cuobjdump")) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("ilc-spa5-kernels-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for k in kernels() {
        let Ok(out) = build(&k, &Spa5Options::default()) else {
            continue;
        };
        let stem = k.file_stem().unwrap().to_string_lossy().to_string();
        let cubin = dir.join(format!("{stem}.cubin"));
        std::fs::write(&cubin, &out.cubin).unwrap();
        let raw = dir.join(format!("{stem}.bin"));
        let bytes: Vec<u8> = out.code.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&raw, bytes).unwrap();
        let r = Command::new(&dis)
            .args(["-b", "SM50"])
            .arg(&raw)
            .output()
            .unwrap();
        assert!(
            r.status.success(),
            "{stem}: nvdisasm -b SM50 failed: {}",
            String::from_utf8_lossy(&r.stderr)
        );
        let r = Command::new(&dis).arg(&cubin).output().unwrap();
        assert!(
            r.status.success(),
            "{stem}: nvdisasm cubin failed: {}",
            String::from_utf8_lossy(&r.stderr)
        );
        let r = Command::new(&objdump)
            .arg("-res-usage")
            .arg(&cubin)
            .output()
            .unwrap();
        assert!(r.status.success(), "{stem}: cuobjdump -res-usage failed");
        let text = String::from_utf8_lossy(&r.stdout);
        assert!(
            text.contains(&format!("REG:{}", out.num_regs)),
            "{stem}: register count {} not in {text}",
            out.num_regs
        );
        for flag in ["-elf", "-sass"] {
            let r = Command::new(&objdump)
                .arg(flag)
                .arg(&cubin)
                .output()
                .unwrap();
            assert!(r.status.success(), "{stem}: cuobjdump {flag} failed");
        }
        let elf = String::from_utf8_lossy(
            &Command::new(&objdump)
                .arg("-elf")
                .arg(&cubin)
                .output()
                .unwrap()
                .stdout,
        )
        .to_string();
        for p in &out.layout.params {
            let needle = format!("Offset  : {}", p.offset);
            assert!(
                elf.contains(&needle) || elf.contains(&format!("{:#x}", p.offset)),
                "{stem}: parameter at {} missing in cuobjdump -elf",
                p.offset
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
