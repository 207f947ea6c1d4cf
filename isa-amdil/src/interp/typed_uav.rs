//! Typed UAVs (`dcl_uav_id(n)_type(t)_fmtx(f)`, guide L8184, and the binary-era
//! `dcl_typed_uav`): the one place that says which forms ilc implements and how a typed
//! access finds its element.
//!
//! The IL declares only the dimension type and the element format (`uint`, `sint`, `float`);
//! the number of components per element and the surface's width, height and depth belong
//! to the resource bound at launch (`uav_load`: "based on the format of UAV(n), up to four
//! components are read", L8771). The launcher describes them in a [`UavView`], a launch
//! constant of four words (ilc's launch layout: `uav_view`), and every consumer (this
//! interpreter, the compiler's lowering) addresses the UAV through it:
//!
//! - the address has [`TypedUav::coords`] components: `src0.x` for `buffer` and `1d`,
//!   `src0.xy` for `1darray` (x, array index) and `2d`, `src0.xyz` for `2darray` and `3d`;
//! - an element is in range when every used coordinate is below the view's width, height,
//!   depth (unsigned); its byte offset is `(x + width * (y + height * z)) * components * 4`,
//!   elements stored row-major with no padding (CAL's linear layout, pitch = width);
//! - a load reads components `0..components` (0 where the element is out of range) and
//!   gives the format defaults for the others: `(_, 0, 0, 1)`, `1.0` for `float`;
//! - a store writes components `0..components` of `src1` and nothing out of range;
//! - atomics address the element's first component.
//!
//! A view of one component, `width` = the buffer's 4-byte words, height and depth 1 is the
//! default ([`UavView::linear`]) where the launcher gives none: a 1-D array of 32-bit
//! elements.
//!
//! Components are 32-bit and stored unconverted: normalized, sRGB, mixed or unknown formats
//! (which convert on access) are rejected, and so are `_fmty`..`_fmtw` (the guide's
//! declaration has `_fmtx` only) and other types (`cube`, MSAA).

use crate::ast::{Control, ElementFormat, Instruction};

/// A typed UAV declaration ilc implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypedUav {
    /// The element format (`uint`, `sint` or `float`).
    pub format: ElementFormat,
    /// Address components the type uses: 1 (`buffer`, `1d`), 2 (`1darray`, `2d`) or 3
    /// (`2darray`, `3d`).
    pub coords: u8,
}

impl TypedUav {
    /// A typed UAV used without a declaration: a 1-D array of `uint` elements.
    pub const UNDECLARED: TypedUav = TypedUav {
        format: ElementFormat::Uint,
        coords: 1,
    };

    /// True for a float element (a load's `.w` default is 1.0 rather than 1).
    pub fn is_float(self) -> bool {
        self.format == ElementFormat::Float
    }

    /// The default of component `c` (1..4) that the element does not have.
    pub fn default_component(self, c: usize) -> u32 {
        match (c, self.is_float()) {
            (3, true) => 0x3f80_0000,
            (3, false) => 1,
            _ => 0,
        }
    }
}

/// The resource behind a typed UAV at launch: components per element (1..4 32-bit words)
/// and the size in elements along each axis (width, height, depth or array size).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UavView {
    /// 32-bit components per element (1..4).
    pub components: u32,
    /// Width, height and depth (or layers) in elements.
    pub dims: [u32; 3],
}

impl UavView {
    /// The default view of a buffer of `bytes`: one component, `bytes / 4` wide.
    pub fn linear(bytes: usize) -> UavView {
        UavView {
            components: 1,
            dims: [u32::try_from(bytes / 4).unwrap_or(u32::MAX), 1, 1],
        }
    }

    /// The four launch-constant words: components, width, height, depth.
    pub fn words(self) -> [u32; 4] {
        [self.components, self.dims[0], self.dims[1], self.dims[2]]
    }

    /// The byte offset of the element at `coord` (the used components of the address) for
    /// `uav`, or `None` when it is out of range.
    pub fn offset(self, uav: TypedUav, coord: [u32; 4]) -> Option<u64> {
        let n = usize::from(uav.coords.clamp(1, 3));
        if (0..n).any(|i| coord[i] >= self.dims[i]) {
            return None;
        }
        let c = |i: usize| if i < n { u64::from(coord[i]) } else { 0 };
        let [w, h, _] = self.dims.map(u64::from);
        Some((c(0) + w * (c(1) + h * c(2))) * u64::from(self.components) * 4)
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
                    "typed UAV with `_fmt{comp}({})`: a typed UAV declares its format with \
                     `_fmtx` alone (the number of components comes from the bound resource)",
                    f.name()
                ));
            }
            _ => {}
        }
    }
    let coords = match ty.map(str::to_ascii_lowercase).as_deref() {
        None => return Err("typed UAV declaration without `_type(..)`".into()),
        Some("buffer" | "1d") => 1,
        Some("1darray" | "2d") => 2,
        Some("2darray" | "3d") => 3,
        Some(t) => {
            return Err(format!(
                "typed UAV of type `{t}` is not supported (ilc implements `buffer`, `1d`, \
                 `1darray`, `2d`, `2darray` and `3d`)"
            ))
        }
    };
    match format {
        None => Err("typed UAV declaration without `_fmtx(..)`".into()),
        Some(f @ (ElementFormat::Uint | ElementFormat::Sint | ElementFormat::Float)) => {
            Ok(TypedUav { format: f, coords })
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
    fn the_32_bit_forms_are_accepted_with_their_address_components() {
        for (line, format, coords) in [
            (
                "dcl_uav_id(0)_type(buffer)_fmtx(uint)",
                ElementFormat::Uint,
                1,
            ),
            (
                "dcl_uav_id(1)_type(1d)_fmtx(float)",
                ElementFormat::Float,
                1,
            ),
            (
                "dcl_typed_uav_id(2)_type(buffer)_fmtx(sint)",
                ElementFormat::Sint,
                1,
            ),
            ("dcl_uav_id(0)_type(2d)_fmtx(uint)", ElementFormat::Uint, 2),
            (
                "dcl_uav_id(0)_type(1darray)_fmtx(float)",
                ElementFormat::Float,
                2,
            ),
            (
                "dcl_uav_id(0)_type(2darray)_fmtx(sint)",
                ElementFormat::Sint,
                3,
            ),
            (
                "dcl_uav_id(0)_type(3d)_fmtx(float)",
                ElementFormat::Float,
                3,
            ),
        ] {
            assert_eq!(decl(line), Ok(TypedUav { format, coords }), "{line}");
        }
    }

    #[test]
    fn views_address_row_major_elements_and_check_every_used_coordinate() {
        let d2 = TypedUav {
            format: ElementFormat::Uint,
            coords: 2,
        };
        let v = UavView {
            components: 2,
            dims: [128, 8, 1],
        };
        assert_eq!(v.offset(d2, [3, 2, 99, 99]), Some((2 * 128 + 3) * 8));
        assert_eq!(v.offset(d2, [128, 0, 0, 0]), None);
        assert_eq!(v.offset(d2, [0, 8, 0, 0]), None);
        let d1 = TypedUav { coords: 1, ..d2 };
        assert_eq!(
            v.offset(d1, [5, 7, 0, 0]),
            Some(5 * 8),
            "y is ignored in 1-D"
        );
        let d3 = TypedUav { coords: 3, ..d2 };
        let v3 = UavView {
            components: 4,
            dims: [4, 3, 2],
        };
        assert_eq!(v3.offset(d3, [1, 2, 1, 0]), Some((1 + 4 * (2 + 3)) * 16));
        assert_eq!(v3.offset(d3, [1, 2, 2, 0]), None);
        assert_eq!(UavView::linear(40).words(), [1, 10, 1, 1]);
    }

    #[test]
    fn other_forms_are_rejected_naming_the_part() {
        for (line, what) in [
            ("dcl_uav_id(0)_type(cube)_fmtx(uint)", "type `cube`"),
            ("dcl_uav_id(0)_type(2dmsaa)_fmtx(float)", "type `2dmsaa`"),
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
