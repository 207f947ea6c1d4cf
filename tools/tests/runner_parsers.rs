//! Property tests of the runners' argument parsers (`tools/src/dispatch.rs`, shared by
//! `il-run` and `spa5-run`): any text gives a value or an error, never a panic; well-formed
//! arguments parse to exactly what they say; the limits are applied by the parsers.

use ilc_tools::dispatch::{
    parse_domain, parse_grid, parse_id_file, parse_id_size, parse_sampler, parse_texture,
    parse_texture_format, MEMORY_BUDGET,
};
use proptest::prelude::*;

/// Text built from the pieces the parsers look for, so random inputs get past the first
/// check and exercise the later ones.
fn argument_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("=".to_string()),
        Just(",".to_string()),
        Just(":".to_string()),
        Just("x".to_string()),
        Just("f32".to_string()),
        Just("unorm8".to_string()),
        Just("linear".to_string()),
        Just("wrap".to_string()),
        Just("-".to_string()),
        Just(" ".to_string()),
        (0u64..=u64::MAX).prop_map(|n| n.to_string()),
        Just("4294967296".to_string()),
        Just("18446744073709551616".to_string()),
        "[a-z0-9./]{0,6}",
        any::<char>().prop_map(|c| c.to_string()),
    ];
    prop::collection::vec(piece, 0..8).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn any_text_is_a_value_or_an_error(s in argument_text()) {
        let _ = parse_grid(&s);
        let _ = parse_domain(&s);
        let _ = parse_id_file(&s);
        let _ = parse_id_size(&s);
        let _ = parse_texture(&s);
        let _ = parse_sampler(&s);
        let _ = parse_texture_format(&s);
    }

    #[test]
    fn arbitrary_unicode_is_a_value_or_an_error(s in any::<String>()) {
        let _ = parse_grid(&s);
        let _ = parse_id_size(&s);
        let _ = parse_texture(&s);
        let _ = parse_texture_format(&s);
    }

    #[test]
    fn grids_parse_exactly(x in 0u32.., y in 0u32.., z in 0u32.., n in 1usize..=4) {
        let dims = [x, y, z];
        let text: Vec<String> = dims[..n.min(3)].iter().map(u32::to_string).collect();
        let mut text = text.join(",");
        if n == 4 {
            text.push_str(",1");
        }
        let got = parse_grid(&text);
        let used = &dims[..n.min(3)];
        if n == 4 || used.contains(&0) {
            prop_assert!(got.is_err(), "{text}: {got:?}");
        } else {
            let mut want = [1u32; 3];
            want[..used.len()].copy_from_slice(used);
            prop_assert_eq!(got, Ok(want));
        }
        // A domain is exactly two non-zero numbers.
        let d = parse_domain(&text);
        prop_assert_eq!(d.is_ok(), n == 2 && x != 0 && y != 0, "{}: {:?}", text, d);
    }

    #[test]
    fn sizes_are_checked_against_the_budget(id in 0u32.., n in 0u64..=u64::MAX) {
        let got = parse_id_size(&format!("{id}={n}"));
        if n <= MEMORY_BUDGET {
            prop_assert_eq!(got, Ok((id, n as usize)));
        } else {
            prop_assert!(got.is_err());
        }
    }

    #[test]
    fn textures_parse_exactly(
        id in 0u32..,
        w in 0u32..5000,
        h in 0u32..5000,
        fmt in prop::sample::select(vec!["f32", "u32", "s32", "unorm8", "u8", "unorm16", "u16", "f16"]),
        ch in 0u8..6,
    ) {
        let got = parse_texture(&format!("{id}=dir/t.bin:{w}x{h}:{fmt}x{ch}"));
        let ok = w > 0 && h > 0 && fmt != "f16" && (1..=4).contains(&ch);
        prop_assert_eq!(got.is_ok(), ok, "{:?}", got);
        if let Ok((gid, spec)) = got {
            prop_assert_eq!(gid, id);
            prop_assert_eq!(spec.dims, [w, h, 1]);
            prop_assert_eq!(spec.channels, ch);
            prop_assert_eq!(spec.file, std::path::PathBuf::from("dir/t.bin"));
        }
    }
}
