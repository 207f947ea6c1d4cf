//! Typed UAV declarations (`dcl_uav_id(n)_type(t)_fmtx(f)`, guide L8184, and the binary-era
//! `dcl_typed_uav`): the one place that says which forms ilc implements exactly.
//!
//! The interpreter and the compiler's lowering address a typed UAV as a 1-D array of 32-bit
//! elements (`src0.x` in elements; a load returns `(v, 0, 0, 1)`, a store writes `src1.x`).
//! That is exact for `_type(buffer)` and `_type(1d)` with one 32-bit `uint`, `sint` or `float`
//! component per element. Every other declared form (2-D/3-D and array types, whose `src0.y`
//! and `src0.z` address rows, slices or array elements; `_fmty`..`_fmtw`; normalized, sRGB,
//! mixed or unknown formats, which convert on access) would be computed with the wrong
//! addresses or values, so [`typed_uav_decl`] rejects it and every consumer (validator,
//! interpreter, lowering) reports the error instead of guessing.
//!
//! The number of components per element of a CAL resource bound to the UAV (`UINT_2`,
//! `FLOAT_4`, ...) is not in the IL; the embedder binding the memory must make sure it is one
//! 32-bit component (see the runtime's launch plan).

use crate::ast::{Control, ElementFormat, Instruction};

/// A typed UAV declaration ilc implements: a 1-D array of one-component 32-bit elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypedUav {
    /// The element format (`uint`, `sint` or `float`).
    pub format: ElementFormat,
}

impl TypedUav {
    /// True for a float element (a load's `.w` is 1.0 rather than 1).
    pub fn is_float(self) -> bool {
        self.format == ElementFormat::Float
    }
}

/// The declaration `st` (a `dcl_uav` or `dcl_typed_uav`) as a [`TypedUav`]; the error says
/// which part is not implemented (a sentence without position: callers add the statement's).
pub fn typed_uav_decl(st: &Instruction) -> Result<TypedUav, String> {
    let mut ty: Option<&str> = None;
    let mut format: Option<ElementFormat> = None;
    for c in &st.controls {
        match c {
            Control::Generic { name, value, .. } if name == "type" => {
                ty = Some(value.as_deref().unwrap_or("").trim());
            }
            Control::Fmt(0, f) => format = Some(*f),
            Control::Fmt(c, f) => {
                let comp = ['x', 'y', 'z', 'w'][(*c as usize).min(3)];
                return Err(format!(
                    "typed UAV with `_fmt{comp}({})`: elements of more than one component are \
                     not supported (ilc implements one 32-bit component per element)",
                    f.name()
                ));
            }
            _ => {}
        }
    }
    match ty {
        None => return Err("typed UAV declaration without `_type(..)`".into()),
        Some(t) if t.eq_ignore_ascii_case("buffer") || t.eq_ignore_ascii_case("1d") => {}
        Some(t) => {
            return Err(format!(
                "typed UAV of type `{t}` is not supported (ilc implements `buffer` and `1d`, \
                 addressed by `src0.x` alone; other types also address with `src0.y`/`src0.z`)"
            ))
        }
    }
    match format {
        None => Err("typed UAV declaration without `_fmtx(..)`".into()),
        Some(f @ (ElementFormat::Uint | ElementFormat::Sint | ElementFormat::Float)) => {
            Ok(TypedUav { format: f })
        }
        Some(f) => Err(format!(
            "typed UAV of format `{}` is not supported (ilc implements `uint`, `sint` and \
             `float`: 32-bit components stored unconverted)",
            f.name()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decl(line: &str) -> Result<TypedUav, String> {
        let src = format!("il_cs_2_0\n{line}\nend\n");
        let (p, d) = crate::parse(&src);
        assert!(d.iter().all(|d| !d.is_error()), "{d:?}");
        typed_uav_decl(&p.expect("parses").statements[0])
    }

    #[test]
    fn one_dimensional_32_bit_forms_are_accepted() {
        for (line, f) in [
            ("dcl_uav_id(0)_type(buffer)_fmtx(uint)", ElementFormat::Uint),
            ("dcl_uav_id(1)_type(1d)_fmtx(float)", ElementFormat::Float),
            (
                "dcl_typed_uav_id(2)_type(buffer)_fmtx(sint)",
                ElementFormat::Sint,
            ),
        ] {
            assert_eq!(decl(line), Ok(TypedUav { format: f }), "{line}");
        }
    }

    #[test]
    fn other_forms_are_rejected_naming_the_part() {
        for (line, what) in [
            ("dcl_uav_id(0)_type(2d)_fmtx(uint)", "type `2d`"),
            ("dcl_uav_id(0)_type(3d)_fmtx(float)", "type `3d`"),
            ("dcl_uav_id(0)_type(1darray)_fmtx(float)", "type `1darray`"),
            (
                "dcl_uav_id(0)_type(buffer)_fmtx(uint)_fmty(uint)",
                "`_fmty(uint)`",
            ),
            ("dcl_uav_id(0)_type(buffer)_fmtx(unorm)", "format `unorm`"),
            (
                "dcl_uav_id(0)_type(buffer)_fmtx(unknown)",
                "format `unknown`",
            ),
            ("dcl_uav_id(0)_fmtx(uint)", "without `_type"),
            ("dcl_uav_id(0)_type(buffer)", "without `_fmtx"),
        ] {
            let e = decl(line).expect_err(line);
            assert!(e.contains(what), "{line}: {e}");
        }
    }
}
