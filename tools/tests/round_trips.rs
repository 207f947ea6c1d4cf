//! Assembly round trips over every kernel of `tests/kernels`, `tests/kernels_cal` and
//! `bench/kernels`, through the real binaries:
//!
//! - `ilc --emit asm | spa5-as` gives ilc's cubin byte for byte (the SPA directives carry the
//!   kernel name, parameters, block size, shared memory and constant banks);
//! - `spa5-dis --syntax spa CUBIN | spa5-as` gives the same cubin back;
//! - `nvdisasm -hex CUBIN | spa5-as -o X.bin` gives the cubin's code words (nvdisasm leaves
//!   out the closing `NOP`s), and `ilc --emit asm --syntax nvdisasm` is exactly nvdisasm's
//!   text of the code section (skipped without nvdisasm, an error under CI=true).

use std::path::PathBuf;
use std::process::{Command, Stdio};

fn kernels() -> Vec<PathBuf> {
    let mut v = ilc_test_support::corpus("tests/kernels", "il", 40);
    v.extend(ilc_test_support::corpus("tests/kernels_cal", "il", 15));
    v.extend(ilc_test_support::corpus("bench/kernels", "il", 40));
    v.sort();
    v
}

fn run(bin: &str, args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(bin)
        .env_remove("ILC_LOG")
        .env_remove("RUST_LOG")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{bin}: {e}"))
}

/// The code words of the first kernel of a cubin.
fn code_words(cubin: &[u8]) -> Vec<u8> {
    let c = isa_spa5::cubin::read_cubin(cubin).expect("cubin reads");
    c.kernels[0]
        .code
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect()
}

#[test]
fn assembly_listings_reassemble_to_the_same_cubin() {
    let dir = std::env::temp_dir().join(format!("ilc-round-trips-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let nv = ilc_test_support::nvidia_tool("nvdisasm");
    let (ilc, as_, dis) = (
        env!("CARGO_BIN_EXE_ilc"),
        env!("CARGO_BIN_EXE_spa5-as"),
        env!("CARGO_BIN_EXE_spa5-dis"),
    );
    let mut failures = Vec::new();
    let mut compared = 0;
    for k in kernels() {
        let stem = k.file_stem().unwrap().to_string_lossy().into_owned();
        let p = |ext: &str| dir.join(format!("{stem}.{ext}"));
        let (cubin, asm, from_asm, dis_txt, from_dis) = (
            p("cubin"),
            p("s"),
            p("as.cubin"),
            p("dis.s"),
            p("dis.cubin"),
        );
        let out = run(ilc, &[k.as_os_str(), "-o".as_ref(), cubin.as_os_str()]);
        if !out.status.success() {
            // Kernels ilc rejects (error tests) have nothing to round-trip.
            continue;
        }
        let want = std::fs::read(&cubin).unwrap();
        compared += 1;
        // ilc --emit asm | spa5-as
        let out = run(
            ilc,
            &[
                k.as_os_str(),
                "--emit".as_ref(),
                "asm".as_ref(),
                "-o".as_ref(),
                asm.as_os_str(),
            ],
        );
        assert!(out.status.success(), "{stem}: --emit asm failed");
        let out = run(as_, &[asm.as_os_str(), "-o".as_ref(), from_asm.as_os_str()]);
        if !out.status.success() || std::fs::read(&from_asm).ok().as_ref() != Some(&want) {
            failures.push(format!(
                "{stem}: ilc --emit asm | spa5-as differs: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        // spa5-dis --syntax spa | spa5-as
        let out = run(
            dis,
            &["--syntax".as_ref(), "spa".as_ref(), cubin.as_os_str()],
        );
        assert!(out.status.success(), "{stem}: spa5-dis failed");
        std::fs::write(&dis_txt, &out.stdout).unwrap();
        let out = run(
            as_,
            &[dis_txt.as_os_str(), "-o".as_ref(), from_dis.as_os_str()],
        );
        if !out.status.success() || std::fs::read(&from_dis).ok().as_ref() != Some(&want) {
            failures.push(format!(
                "{stem}: spa5-dis --syntax spa | spa5-as differs: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        // nvdisasm -hex | spa5-as (code words)
        if let Some(nv) = &nv {
            let (listing, words) = (p("sass"), p("hex.bin"));
            let out = run(nv.to_str().unwrap(), &["-hex".as_ref(), cubin.as_os_str()]);
            assert!(out.status.success(), "{stem}: nvdisasm rejects ilc's cubin");
            std::fs::write(&listing, &out.stdout).unwrap();
            // ilc --syntax nvdisasm is nvdisasm's text of the code section.
            let plain = run(nv.to_str().unwrap(), &[cubin.as_os_str()]);
            let section: String = String::from_utf8_lossy(&plain.stdout)
                .lines()
                .skip_while(|l| !l.starts_with(".text."))
                .skip(1)
                .take_while(|l| !l.is_empty())
                .map(|l| format!("{l}\n"))
                .collect();
            let ours = run(
                ilc,
                &[
                    k.as_os_str(),
                    "--emit".as_ref(),
                    "asm".as_ref(),
                    "--syntax".as_ref(),
                    "nvdisasm".as_ref(),
                ],
            );
            if String::from_utf8_lossy(&ours.stdout) != section {
                failures.push(format!(
                    "{stem}: ilc --syntax nvdisasm differs from nvdisasm:\n{}\n--- ours ---\n{}",
                    section,
                    String::from_utf8_lossy(&ours.stdout)
                ));
            }
            let out = run(
                as_,
                &[listing.as_os_str(), "-o".as_ref(), words.as_os_str()],
            );
            if !out.status.success() || std::fs::read(&words).ok() != Some(code_words(&want)) {
                failures.push(format!(
                    "{stem}: nvdisasm -hex | spa5-as differs: {}",
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(compared >= 50, "only {compared} kernels compiled");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The code-section lines of a disassembly: from the first `.text.` section on, section
/// names, labels and instructions (not nvdisasm's `.global`/`.type`/`.size` directives, its
/// data lines, which hold tabs, or blank lines).
fn section_lines(text: &str) -> Vec<&str> {
    text.lines()
        .skip_while(|l| !l.starts_with(".text."))
        .filter(|l| {
            !l.contains('\t')
                && (l.starts_with(".text.")
                    || l.starts_with(".L_x_")
                    || l.starts_with("        /*"))
        })
        .collect()
}

#[test]
fn spa5_dis_numbers_labels_across_kernels_as_nvdisasm() {
    // ptxas's three-kernel cubin: nvdisasm numbers every section's branch targets first,
    // then the end labels (.L_x_0 .. .L_x_2, then .L_x_3 .. .L_x_5).
    let cubin = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/cuda/cubins-multi/three_kernels.cubin");
    let ours = run(env!("CARGO_BIN_EXE_spa5-dis"), &[cubin.as_os_str()]);
    assert!(ours.status.success());
    let ours = String::from_utf8_lossy(&ours.stdout).into_owned();
    assert_eq!(ours.matches(".text.").count(), 3, "{ours}");
    for label in [".L_x_2:", ".L_x_5:"] {
        assert!(ours.contains(label), "{label} missing:\n{ours}");
    }
    let Some(nv) = ilc_test_support::nvidia_tool("nvdisasm") else {
        return;
    };
    let theirs = run(nv.to_str().unwrap(), &[cubin.as_os_str()]);
    assert!(theirs.status.success());
    let theirs = String::from_utf8_lossy(&theirs.stdout).into_owned();
    assert_eq!(section_lines(&ours), section_lines(&theirs));
}
