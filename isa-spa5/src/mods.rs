//! Typed modifier values: one enum per named modifier field ([`Lop::PassB`],
//! [`Fmz::Ftz`], [`FCmp::Geu`] ...), so that code building instructions cannot misspell a
//! modifier. A value is its printed name; [`Inst::set_mod`](crate::Inst::set_mod) finds
//! that name in the instruction's own form (forms number the same name differently: `FLOOR`
//! is 1 for `F2I` and 5 for `F2F`), and fails when the form has no such value.
//!
//! Checked against the table (`tests::every_typed_value_is_in_the_table`): every variant
//! names a value of its kind in some form, and enums marked `complete` name every valid
//! value of every form field of their kind that shares a name with them.

use crate::inst::ModKind;

/// A typed modifier value.
pub trait TypedMod: Copy + core::fmt::Debug + 'static {
    /// The modifier field it sets.
    const KIND: ModKind;
    /// Every value.
    const ALL: &'static [Self];
    /// Whether the enum names every value of the fields it applies to.
    const COMPLETE: bool;
    /// The printed name (`""` for the unprinted default).
    fn name(self) -> &'static str;
}

macro_rules! typed_mods {
    ($( $(#[doc = $doc:literal])* $ty:ident : $kind:ident, $complete:literal
        { $( $(#[doc = $vdoc:literal])* $v:ident = $n:literal ),* $(,)? } )*) => { $(
        $(#[doc = $doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $ty {
            $( $(#[doc = $vdoc])* #[doc = concat!("`", $n, "`")] $v, )*
        }

        impl TypedMod for $ty {
            const KIND: ModKind = ModKind::$kind;
            const ALL: &'static [Self] = &[$($ty::$v),*];
            const COMPLETE: bool = $complete;
            fn name(self) -> &'static str {
                match self { $($ty::$v => $n),* }
            }
        }
    )* };
}

typed_mods! {
    /// `LOP`/`LOP32I` operation.
    Lop: LogicOp, true { And = "AND", Or = "OR", Xor = "XOR", PassB = "PASS_B" }
    /// Flush mode of `FMUL`/`FFMA` (`.FTZ` flushes denormals, `.FMZ` also makes `0 * x = 0`).
    Fmz: Fmz, true { None = "", Ftz = "FTZ", Fmz = "FMZ" }
    /// Integer compare.
    ICmp: ICmp, true {
        F = "F", Lt = "LT", Eq = "EQ", Le = "LE", Gt = "GT", Ne = "NE", Ge = "GE", T = "T"
    }
    /// Float compare (`U` suffix: unordered or ...).
    FCmp: FCmp, true {
        F = "F", Lt = "LT", Eq = "EQ", Le = "LE", Gt = "GT", Ne = "NE", Ge = "GE",
        Num = "NUM", Nan = "NAN", Ltu = "LTU", Equ = "EQU", Leu = "LEU", Gtu = "GTU",
        Neu = "NEU", Geu = "GEU", T = "T"
    }
    /// Boolean combination with the third (predicate) source.
    Bop: Bop, true { And = "AND", Or = "OR", Xor = "XOR" }
    /// `MUFU` function.
    Mufu: MufuOp, true {
        Cos = "COS", Sin = "SIN", Ex2 = "EX2", Lg2 = "LG2", Rcp = "RCP", Rsq = "RSQ",
        Rcp64h = "RCP64H", Rsq64h = "RSQ64H"
    }
    /// Rounding (the names of every rounding field; each form has a subset).
    Rnd: Rnd, true {
        Rn = "", Rm = "RM", Rp = "RP", Rz = "RZ", Round = "ROUND", Floor = "FLOOR",
        Ceil = "CEIL", Trunc = "TRUNC"
    }
    /// Destination type of conversions.
    DType: DType, true {
        U8 = "U8", U16 = "U16", U32 = "U32", U64 = "U64", S8 = "S8", S16 = "S16",
        S32 = "S32", S64 = "S64", F16 = "F16", F32 = "F32", F64 = "F64"
    }
    /// Source type of conversions.
    SType: SType, true {
        U8 = "U8", U16 = "U16", U32 = "U32", U64 = "U64", S8 = "S8", S16 = "S16",
        S32 = "S32", S64 = "S64", F16 = "F16", F32 = "F32", F64 = "F64"
    }
    /// `XMAD`'s third-operand mode.
    XMode: XMode, true { Plain = "", Clo = "CLO", Chi = "CHI", Csfu = "CSFU", Cbcc = "CBCC" }
    /// `IADD.PO`: plus one (both negation bits set).
    Po: Po, false { Po = "PO" }
    /// `SHFL` mode.
    Shfl: ShflOp, true { Idx = "IDX", Up = "UP", Down = "DOWN", Bfly = "BFLY" }
    /// `RRO` range reduction.
    Rro: Mode, true { SinCos = "SINCOS", Ex2 = "EX2" }
    /// Memory access size.
    Size: Size, true {
        U8 = "U8", S8 = "S8", U16 = "U16", S16 = "S16", B32 = "", B64 = "64", B128 = "128",
        /// Uniform (warp-wide) loads: `LDS.U`, `LDG.U.128`.
        UU8 = "U.U8", US8 = "U.S8", UU16 = "U.U16", US16 = "U.S16", U32 = "U.32",
        U64 = "U.64", U128 = "U.128"
    }
    /// Cache operation of loads and stores.
    Cache: Cache, true {
        Default = "", Cg = "CG", Ci = "CI", Cv = "CV", Cs = "CS", Wt = "WT", Lu = "LU"
    }
    /// Atomic and reduction operation.
    AtomOp: AtomOp, false {
        Add = "ADD", Min = "MIN", Max = "MAX", Inc = "INC", Dec = "DEC", And = "AND",
        Or = "OR", Xor = "XOR", Exch = "EXCH"
    }
    /// Atomic operand type.
    AtomType: AtomType, true {
        U32 = "", S32 = "S32", U64 = "U64", F32 = "F32.FTZ.RN", U128 = "U128", S64 = "S64"
    }
    /// `MEMBAR` scope.
    Scope: Scope, true { Cta = "CTA", Gl = "GL", Sys = "SYS" }
    /// Texture dimension.
    TexDim: TexDim, true {
        D1 = "1D", Array1D = "ARRAY_1D", D2 = "2D", Array2D = "ARRAY_2D", D3 = "3D",
        Array3D = "ARRAY_3D", Cube = "CUBE", ArrayCube = "ARRAY_CUBE"
    }
    /// Texture level of detail.
    TexLod: TexLod, true {
        Auto = "", Lz = "LZ", Lb = "LB", Ll = "LL", Lba = "LBA", Lla = "LLA"
    }
    /// `TXQ` query.
    TexQuery: TexQuery, false {
        Dimension = "TEX_HEADER_DIMENSION", TextureType = "TEX_HEADER_TEXTURE_TYPE",
        SamplerPos = "TEX_HEADER_SAMPLER_POS", Filter = "TEX_SAMPLER_FILTER",
        Lod = "TEX_SAMPLER_LOD", Wrap = "TEX_SAMPLER_WRAP",
        BorderColor = "TEX_SAMPLER_BORDER_COLOR"
    }
    /// `TEXS`/`TLDS` type: LOD mode and dimension (`LZ|2D` prints `.LZ` and `2D`).
    TexsType: TexsType, true {
        Lz1D = "LZ|1D", Ll1D = "LL|1D", D2 = "|2D", Lz2D = "LZ|2D", Ll2D = "LL|2D",
        Dc2D = "DC|2D", LlDc2D = "LL.DC|2D", LzDc2D = "LZ.DC|2D", LzAoffi2D = "LZ.AOFFI|2D",
        LlAoffi2D = "LL.AOFFI|2D", LzMs2D = "LZ.MS|2D", Array2D = "|ARRAY_2D",
        LzArray2D = "LZ|ARRAY_2D", LzDcArray2D = "LZ.DC|ARRAY_2D", D3 = "|3D",
        Lz3D = "LZ|3D", Cube = "|CUBE", LlCube = "LL|CUBE"
    }
    /// `TEXS`/`TLDS` channels written.
    TexChannels: TexChannels, true {
        R = "R", G = "G", B = "B", A = "A", Rg = "RG", Ra = "RA", Ga = "GA", Ba = "BA",
        Rgb = "RGB", Rga = "RGA", Rba = "RBA", Gba = "GBA", Rgba = "RGBA"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::FORMS;

    fn check<T: TypedMod>() {
        let fields: Vec<_> = FORMS
            .iter()
            .flat_map(|f| f.mods.iter().map(move |m| (f, m)))
            .filter(|(_, m)| m.kind == T::KIND)
            .collect();
        assert!(!fields.is_empty(), "{:?}: no form has it", T::KIND);
        for v in T::ALL {
            assert!(
                fields.iter().any(|(_, m)| m.names.contains(&v.name())),
                "{v:?} ({:?} `{}`) is in no form of the table",
                T::KIND,
                v.name()
            );
        }
        if !T::COMPLETE {
            return;
        }
        for (f, m) in fields {
            let ours = |n: &str| T::ALL.iter().any(|v| v.name() == n);
            if !m.names.iter().any(|n| !n.is_empty() && ours(n)) {
                continue;
            }
            for n in m.names {
                assert!(
                    *n == "?" || ours(n) || n.is_empty(),
                    "{}: {:?} value `{n}` has no variant",
                    f.name,
                    T::KIND
                );
            }
        }
    }

    #[test]
    fn every_typed_value_is_in_the_table() {
        check::<Lop>();
        check::<Fmz>();
        check::<ICmp>();
        check::<FCmp>();
        check::<Bop>();
        check::<Mufu>();
        check::<Rnd>();
        check::<DType>();
        check::<SType>();
        check::<XMode>();
        check::<Po>();
        check::<Shfl>();
        check::<Rro>();
        check::<Size>();
        check::<Cache>();
        check::<AtomOp>();
        check::<AtomType>();
        check::<Scope>();
        check::<TexDim>();
        check::<TexLod>();
        check::<TexQuery>();
        check::<TexsType>();
        check::<TexChannels>();
    }
}
