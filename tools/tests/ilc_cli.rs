//! The `ilc` driver's exit statuses (documented in `ilc --help`).

use std::process::Command;

fn ilc(args: &[&str], kernel: &str) -> i32 {
    let dir = std::env::temp_dir().join(format!("ilc-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("k.il");
    std::fs::write(&path, kernel).expect("write kernel");
    let out = Command::new(env!("CARGO_BIN_EXE_ilc"))
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

/// Stores at byte address `tid`: neighbours overwrite parts of each other's words, so the
/// result depends on the interleaving and `--verify` skips every dispatch.
const RACY: &str = "il_cs_2_0\ndcl_num_thread_per_group 64\ndcl_raw_uav_id(0)\n\
                    uav_raw_store_id(0) mem.x, vAbsTidFlat.x, vAbsTidFlat.x\nend\n";

#[test]
fn exit_statuses() {
    assert_eq!(ilc(&[], KERNEL), 0);
    assert_eq!(ilc(&["--verify=1"], KERNEL), 0);
    // Nothing compared is not a pass.
    assert_eq!(ilc(&["--verify=2"], RACY), 3);
    assert_eq!(ilc(&["--verify=0"], KERNEL), 3);
    // Invalid input, and an empty file.
    assert_eq!(ilc(&[], "il_cs_2_0\nmov r0\nend\n"), 1);
    assert_eq!(ilc(&[], ""), 1);
    assert_eq!(ilc(&["-O9"], KERNEL), 2);
}
