//! ptxas's texture code (TEXS on texture-object handles) on the emulator: the matrix multiply
//! of `bench/kernels/texmatmul.cu` (cubin in `tests/textures/`), with texture objects from
//! `ilc::verify::TextureObjects`, must give exactly the CPU reference, and so must ilc's code
//! for `bench/kernels/texmatmul.il` (TEX through its own handle parameters) on the same
//! textures.

use std::path::Path;

use ilc::spa5::abi::ParamKind;
use ilc::verify::{texture_decl, TextureObjects};
use ilc::{Compiler, Options};
use ilc_passes::ir::TexShape;
use ilc_test_support::Rng;
use isa_amdil::interp::texture::{SamplerState, TexelFormat, Texture};
use isa_spa5::emu::{Device, LaunchConfig};

const N: u32 = 32;

fn texture(seed: u64) -> (Texture, Vec<f32>) {
    let mut rng = Rng::new(seed);
    let vals: Vec<f32> = (0..N * N)
        .map(|_| rng.below(2001) as f32 / 1000.0 - 1.0)
        .collect();
    let tex = Texture {
        width: N,
        height: N,
        depth: 1,
        channels: 1,
        format: TexelFormat::F32,
        data: vals.iter().flat_map(|v| v.to_le_bytes()).collect(),
    };
    (tex, vals)
}

fn objects(a: &Texture, b: &Texture) -> (TextureObjects, u64, u64) {
    let mut t = TextureObjects::default();
    let decl = texture_decl(TexShape::D2, true, 0xf);
    let ha = t.bind(Some(a.clone()), decl, SamplerState::default());
    let hb = t.bind(Some(b.clone()), decl, SamplerState::default());
    (t, ha, hb)
}

fn read_c(dev: &Device, at: u64) -> Vec<u32> {
    dev.read(at, u64::from(N * N * 4))
        .unwrap()
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn ptxas_texture_code_matches_the_reference_and_ilc() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (a, av) = texture(0x1234_5678);
    let (b, bv) = texture(0x0bad_cafe);
    // CPU reference: the CUDA source's fmaf chain.
    let mut want = vec![0u32; (N * N) as usize];
    for row in 0..N as usize {
        for col in 0..N as usize {
            let mut acc = 0.0f32;
            for k in 0..N as usize {
                acc = av[row * N as usize + k].mul_add(bv[k * N as usize + col], acc);
            }
            want[row * N as usize + col] = acc.to_bits();
        }
    }

    // ptxas: (A, B, C, n) = handle, handle, pointer, int.
    let cubin = std::fs::read(root.join("textures/texmatmul.ptxas.cubin")).unwrap();
    let (objs, ha, hb) = objects(&a, &b);
    let mut dev = Device::new();
    dev.set_texture_unit(std::sync::Arc::new(objs));
    let c = dev.alloc(u64::from(N * N * 4));
    let mut params = Vec::new();
    params.extend_from_slice(&ha.to_le_bytes());
    params.extend_from_slice(&hb.to_le_bytes());
    params.extend_from_slice(&c.to_le_bytes());
    params.extend_from_slice(&N.to_le_bytes());
    let cfg = LaunchConfig {
        grid: [N / 16, N / 16, 1],
        block: [16, 16, 1],
        params,
        ..LaunchConfig::default()
    };
    let report = dev.launch(&cubin, "texmatmul", &cfg).unwrap();
    assert!(report.hazards.is_empty(), "{:?}", report.hazards);
    assert_eq!(read_c(&dev, c), want, "ptxas's code on the emulator");

    // ilc: the IL version through its own launch layout.
    let src = std::fs::read(root.join("../bench/kernels/texmatmul.il")).unwrap();
    let k = Compiler::new(Options {
        kernel_name: Some("texmatmul".into()),
        ..Options::default()
    })
    .compile(&src)
    .unwrap();
    let (objs, ha, hb) = objects(&a, &b);
    let mut dev = Device::new();
    dev.set_texture_unit(std::sync::Arc::new(objs));
    let c = dev.alloc(u64::from(N * N * 4));
    let cb = {
        let mut v = N.to_le_bytes().to_vec();
        v.resize(16, 0);
        v
    };
    let mut params = vec![0u8; k.layout.param_bytes() as usize];
    for p in &k.layout.params {
        let bytes: Vec<u8> = match p.kind {
            ParamKind::UavPtr(0) => c.to_le_bytes().to_vec(),
            ParamKind::UavSize(0) => u64::from(N * N * 4).to_le_bytes().to_vec(),
            ParamKind::Texture { resource: 0, .. } => ha.to_le_bytes().to_vec(),
            ParamKind::Texture { resource: 1, .. } => hb.to_le_bytes().to_vec(),
            ParamKind::CbData(0) => cb.clone(),
            other => panic!("unexpected parameter {other:?}"),
        };
        let at = p.offset as usize;
        params[at..at + bytes.len().min(p.size as usize)]
            .copy_from_slice(&bytes[..bytes.len().min(p.size as usize)]);
    }
    let cfg = LaunchConfig {
        grid: [N / 16, N / 16, 1],
        block: [16, 16, 1],
        params,
        ..LaunchConfig::default()
    };
    let report = dev.launch(&k.cubin, &k.name, &cfg).unwrap();
    assert!(report.hazards.is_empty(), "{:?}", report.hazards);
    assert_eq!(read_c(&dev, c), want, "ilc's code on the emulator");
}
