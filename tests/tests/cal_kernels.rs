//! CAL-era resource model end to end (tests/kernels_cal): textures (`sample`, `sample_l`,
//! `load`, `resinfo`), pixel-shader compute (`il_ps`, `vWinCoord0`, `o#`) and `g[]`.
//!
//! Each kernel is compiled at -O0 and -O2 under several texture/sampler assumptions
//! (the storage format and sampler state CAL binds at launch), with textures read through
//! the texture unit (`TEX`/`TLD`/`TXQ` on texture objects created with those formats and
//! sampler states) and by loads with the assumptions compiled in, and checked with
//! `ilc::verify`: random textures, buffers and an odd-sized pixel domain, the IL reference
//! interpreter against the compiled code on the SPA 5.0 emulator with the hazard checker.
//! Every word must match and no hazard may be reported. The IR after lowering is also
//! checked against the interpreter (translation validation) for the default assumptions.

use std::path::PathBuf;

use ilc::lower::TexConfig;
use ilc::verify::{verify, VerifyOptions};
use ilc::{Compiler, OptLevel, Options};
use ilc_test_support::Rng;
use isa_amdil::interp::texture::{AddressMode, Filter, SamplerState, TexelFormat};

fn kernels() -> Vec<PathBuf> {
    ilc_test_support::corpus("tests/kernels_cal", "il", 15)
}

fn sampler(filter: Filter, mode: AddressMode) -> SamplerState {
    SamplerState {
        filter,
        address: [mode; 3],
    }
}

/// The assumption sets: defaults, then each filter/addressing combination with a
/// non-default storage for resource 1.
fn configs() -> Vec<(&'static str, TexConfig)> {
    let mut v = vec![("default", TexConfig::default())];
    let sets = [
        (
            "linear-wrap-unorm8x3",
            Filter::Linear,
            AddressMode::Wrap,
            (TexelFormat::Unorm8, 3),
        ),
        (
            "point-mirror-u16x2",
            Filter::Point,
            AddressMode::Mirror,
            (TexelFormat::U16, 2),
        ),
        (
            "linear-border-f32x1",
            Filter::Linear,
            AddressMode::Border,
            (TexelFormat::F32, 1),
        ),
        (
            "linear-clamp-unorm16x4",
            Filter::Linear,
            AddressMode::Clamp,
            (TexelFormat::Unorm16, 4),
        ),
    ];
    for (name, f, m, storage) in sets {
        let mut c = TexConfig::default();
        c.samplers.insert(0, sampler(f, m));
        c.samplers
            .insert(1, sampler(Filter::Point, AddressMode::Wrap));
        c.textures.insert(1, storage);
        v.push((name, c));
    }
    // The same assumptions with textures read by loads and filtering arithmetic instead of
    // the texture unit (the texture objects carry the format and sampler state there).
    let loads: Vec<_> = v
        .iter()
        .map(|(n, c)| {
            let mut c = c.clone();
            c.use_loads = true;
            (*n, c)
        })
        .collect();
    v.extend(loads);
    v
}

#[test]
fn cal_kernels_match_the_interpreter_on_the_emulator() {
    let mut failures = Vec::new();
    let mut runs = 0;
    for k in kernels() {
        let name = k.file_stem().unwrap().to_string_lossy().to_string();
        let src = std::fs::read(&k).unwrap();
        for (cname, cfg) in configs() {
            for opt in [OptLevel::O0, OptLevel::O2] {
                let compiler = Compiler::new(Options {
                    opt_level: opt,
                    kernel_name: Some(name.clone()),
                    textures: cfg.clone(),
                    ..Options::default()
                });
                let opts = VerifyOptions {
                    dispatches: 3,
                    ..VerifyOptions::default()
                };
                match verify(&compiler, &src, &opts) {
                    Ok(r) => {
                        runs += 1;
                        if r.compared == 0 || r.mismatch_count > 0 || !r.hazards.is_empty() {
                            failures.push(format!("{name} {cname} {opt:?}: {r}"));
                        }
                    }
                    Err(e) => failures.push(format!("{name} {cname} {opt:?}: {e}")),
                }
            }
        }
    }
    assert!(runs >= 12 * 10 * 2, "only {runs} runs");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn cal_kernels_lower_like_the_interpreter() {
    use ilc::lower::validate::{check_equivalent, Buffers, Tolerance};
    use isa_amdil::interp::texture::Texture;
    for k in kernels() {
        let name = k.display().to_string();
        let text = std::fs::read_to_string(&k).unwrap();
        let (prog, _) = isa_amdil::parse(&text);
        let prog = prog.unwrap_or_else(|| panic!("{name} parses"));
        let func = ilc::lower::lower(&prog).unwrap_or_else(|e| panic!("{name}: {e}"));
        let exec = isa_amdil::interp::prepare(&prog).unwrap();
        let mut b = Buffers::default();
        let mut rng = Rng::new(0x1234_5678);
        let mut word = || {
            // Small integers and floats in [-8, 8): indices and coordinates stay in range.
            if rng.chance(2) {
                rng.below(32) as u32
            } else {
                (rng.below(4096) as f32 / 256.0 - 8.0).to_bits()
            }
        };
        for &id in &exec.uavs {
            b.uavs
                .insert(id, (0..1024).flat_map(|_| word().to_le_bytes()).collect());
        }
        for (&id, &n) in &exec.cbs {
            b.cbs.insert(
                id,
                (0..n.max(1) * 4)
                    .flat_map(|_| word().to_le_bytes())
                    .collect(),
            );
        }
        if exec.uses_global {
            b.global = Some((0..2048).flat_map(|_| word().to_le_bytes()).collect());
        }
        for &id in exec.resources.keys() {
            let (w, h, d) = (5, 4, 3);
            let data = (0..w * h * d * 4)
                .flat_map(|_| word().to_le_bytes())
                .collect();
            let fmt = match exec.resources[&id].fmt[0] {
                isa_amdil::ast::ElementFormat::Uint => TexelFormat::U32,
                isa_amdil::ast::ElementFormat::Sint => TexelFormat::S32,
                _ => TexelFormat::F32,
            };
            b.textures.insert(
                id,
                Texture {
                    width: w,
                    height: h,
                    depth: d,
                    channels: 4,
                    format: fmt,
                    data,
                },
            );
        }
        for &id in func.srvs.keys() {
            let id = u32::from(id);
            if !exec.resources.contains_key(&id) {
                b.srvs
                    .insert(id, (0..1024).flat_map(|_| word().to_le_bytes()).collect());
            }
        }
        if exec.pixel_shader {
            b.domain = Some([19, 10]);
            // cb0[0] = (loop count / scale, bias, row pitch of g[] = the domain width, 0):
            // every pixel then writes its own g[] element, so the result is order-free.
            let cb0: Vec<u8> = [4.0f32, 0.25, 19.0, 0.0]
                .iter()
                .flat_map(|f| f.to_le_bytes())
                .collect();
            b.cbs.insert(0, cb0);
        }
        // Approximate operations (the IR's transcendentals are not libm's; pow = exp2(w log2 y)
        // magnifies their error): 32 ulp on outputs.
        let approx = prog.statements.iter().any(|s| {
            let m = s.opcode.mnemonic();
            ["tan", "asin", "acos", "atan", "lit"].contains(&m)
        });
        let tol: std::collections::BTreeMap<u32, Tolerance> = if approx {
            exec.uavs
                .iter()
                .map(|&id| (id, Tolerance::F32Ulp(32)))
                .collect()
        } else {
            Default::default()
        };
        check_equivalent(&prog, &func, [2, 1, 1], &b, &tol)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}
