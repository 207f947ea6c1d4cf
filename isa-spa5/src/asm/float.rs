//! Floating-point immediates as nvdisasm prints them.
//!
//! Learned by disassembling immediates with nvdisasm 11.8: NaNs print as `+QNAN`/`-QNAN`
//! (whatever the payload), infinities as `+INF`/`-INF`, negative zero as `-0.0`; values with
//! magnitude below 1e9 print like C's `%.20g` (20 significant digits, trailing zeros dropped,
//! exponent form below 1e-4); larger values print like `%.20e` (trailing zeros kept). f32
//! immediates are printed through their exact f64 value.

/// Format an f64 the nvdisasm way.
pub fn format_f64(v: f64) -> String {
    if v.is_nan() {
        return if v.is_sign_negative() {
            "-QNAN".into()
        } else {
            "+QNAN".into()
        };
    }
    if v.is_infinite() {
        return if v < 0.0 {
            "-INF".into()
        } else {
            "+INF".into()
        };
    }
    if v == 0.0 {
        return if v.is_sign_negative() {
            "-0.0".into()
        } else {
            "0".into()
        };
    }
    if v.abs() >= 1e9 {
        return c_exp(&format!("{:.20e}", v));
    }
    // %.20g: 20 significant digits.
    let e = format!("{:.19e}", v);
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..20).contains(&exp) {
        let mant = strip_zeros(mant);
        return c_exp(&format!("{mant}e{exp}"));
    }
    let neg = mant.starts_with('-');
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let s = if exp >= 0 {
        let int_len = exp as usize + 1;
        format!("{}.{}", &digits[..int_len], &digits[int_len..])
    } else {
        format!("0.{}{}", "0".repeat((-exp - 1) as usize), digits)
    };
    let s = strip_zeros(&s);
    if neg {
        format!("-{s}")
    } else {
        s.to_string()
    }
}

/// Format an f32 (by its bits) the nvdisasm way.
pub fn format_f32(bits: u32) -> String {
    format_f64(f32::from_bits(bits) as f64)
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// Rust's `1.5e9` / `1.5e-9` to C's `1.5e+09` / `1.5e-09`.
fn c_exp(s: &str) -> String {
    match s.split_once('e') {
        Some((m, e)) => {
            let (sign, digits) = match e.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', e),
            };
            format!("{m}e{sign}{digits:0>2}")
        }
        None => s.to_string(),
    }
}

/// Parse a float immediate in nvdisasm's spelling (also plain decimal, `0f3f800000` raw
/// hex bits, `+QNAN` with the canonical payload) into f64.
pub fn parse_f64(s: &str) -> Option<f64> {
    match s {
        "+INF" | "INF" => return Some(f64::INFINITY),
        "-INF" => return Some(f64::NEG_INFINITY),
        "+QNAN" | "QNAN" => return Some(f64::NAN),
        "-QNAN" => return Some(-f64::NAN),
        _ => {}
    }
    if !s
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        return None;
    }
    s.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_nvdisasm_samples() {
        let f = |v: f32| format_f32(v.to_bits());
        assert_eq!(f(0.5), "0.5");
        assert_eq!(f(16777216.0), "16777216");
        assert_eq!(f(-126.0), "-126");
        assert_eq!(f(2f32.powi(64)), "1.84467440737095516160e+19");
        assert_eq!(f(2f32.powi(-32)), "2.3283064365386962891e-10");
        assert_eq!(f(0.1), "0.10000000149011611938");
        assert_eq!(f(1e-4), "9.9999997473787516356e-05");
        assert_eq!(f(0.001), "0.0010000000474974513054");
        assert_eq!(f(1e9), "1.00000000000000000000e+09");
        assert_eq!(f(999999936.0), "999999936");
        assert_eq!(format_f32(1), "1.4012984643248170709e-45");
        assert_eq!(f(-0.0), "-0.0");
        assert_eq!(f(0.0), "0");
        assert_eq!(format_f32(0xffc00000), "-QNAN");
        assert_eq!(format_f32(0x7f800001), "+QNAN");
        assert_eq!(f(f32::INFINITY), "+INF");
        assert_eq!(format_f64(2f64.powi(1023)), "8.98846567431157953865e+307");
        assert_eq!(format_f64(0.099853515625), "0.099853515625");
    }
}
