//! Immediate operands carried by instructions: condition codes, memory spaces and access
//! descriptors, atomic operations, barrier flags and special registers.
//!
//! Every type here has a text form (`Display`) and a parser (`from_name` / `parse`) that
//! are exact inverses; the printer and reader rely on that.

use core::fmt;

use super::entities::StackSlot;

/// Integer comparison condition (`icmp`). Signed conditions read operands as two's complement.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum IntCC {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// signed `<`
    Slt,
    /// signed `<=`
    Sle,
    /// signed `>`
    Sgt,
    /// signed `>=`
    Sge,
    /// unsigned `<`
    Ult,
    /// unsigned `<=`
    Ule,
    /// unsigned `>`
    Ugt,
    /// unsigned `>=`
    Uge,
}

impl IntCC {
    /// All conditions.
    pub const ALL: [IntCC; 10] = [
        IntCC::Eq,
        IntCC::Ne,
        IntCC::Slt,
        IntCC::Sle,
        IntCC::Sgt,
        IntCC::Sge,
        IntCC::Ult,
        IntCC::Ule,
        IntCC::Ugt,
        IntCC::Uge,
    ];
    /// Text name.
    pub fn name(self) -> &'static str {
        match self {
            IntCC::Eq => "eq",
            IntCC::Ne => "ne",
            IntCC::Slt => "slt",
            IntCC::Sle => "sle",
            IntCC::Sgt => "sgt",
            IntCC::Sge => "sge",
            IntCC::Ult => "ult",
            IntCC::Ule => "ule",
            IntCC::Ugt => "ugt",
            IntCC::Uge => "uge",
        }
    }
    /// Parses a text name.
    pub fn from_name(s: &str) -> Option<IntCC> {
        IntCC::ALL.into_iter().find(|c| c.name() == s)
    }
    /// The condition with operands swapped (`a cc b == b cc.swap() a`).
    pub fn swap_args(self) -> IntCC {
        match self {
            IntCC::Slt => IntCC::Sgt,
            IntCC::Sgt => IntCC::Slt,
            IntCC::Sle => IntCC::Sge,
            IntCC::Sge => IntCC::Sle,
            IntCC::Ult => IntCC::Ugt,
            IntCC::Ugt => IntCC::Ult,
            IntCC::Ule => IntCC::Uge,
            IntCC::Uge => IntCC::Ule,
            c => c,
        }
    }
    /// The negated condition (`!(a cc b) == a cc.inverse() b`).
    pub fn inverse(self) -> IntCC {
        match self {
            IntCC::Eq => IntCC::Ne,
            IntCC::Ne => IntCC::Eq,
            IntCC::Slt => IntCC::Sge,
            IntCC::Sge => IntCC::Slt,
            IntCC::Sle => IntCC::Sgt,
            IntCC::Sgt => IntCC::Sle,
            IntCC::Ult => IntCC::Uge,
            IntCC::Uge => IntCC::Ult,
            IntCC::Ule => IntCC::Ugt,
            IntCC::Ugt => IntCC::Ule,
        }
    }
}

impl fmt::Display for IntCC {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Float comparison condition (`fcmp`, `dcmp`). Ordered conditions are false when either
/// operand is NaN, unordered ones are true. `+0 == -0`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum FloatCC {
    /// ordered and `==`
    Oeq,
    /// ordered and `!=`
    One,
    /// ordered and `<`
    Olt,
    /// ordered and `<=`
    Ole,
    /// ordered and `>`
    Ogt,
    /// ordered and `>=`
    Oge,
    /// unordered or `==`
    Ueq,
    /// unordered or `!=` (AMD IL `ne`)
    Une,
    /// unordered or `<`
    Ult,
    /// unordered or `<=`
    Ule,
    /// unordered or `>`
    Ugt,
    /// unordered or `>=`
    Uge,
    /// neither is NaN
    Ord,
    /// either is NaN
    Uno,
}

impl FloatCC {
    /// All conditions.
    pub const ALL: [FloatCC; 14] = [
        FloatCC::Oeq,
        FloatCC::One,
        FloatCC::Olt,
        FloatCC::Ole,
        FloatCC::Ogt,
        FloatCC::Oge,
        FloatCC::Ueq,
        FloatCC::Une,
        FloatCC::Ult,
        FloatCC::Ule,
        FloatCC::Ugt,
        FloatCC::Uge,
        FloatCC::Ord,
        FloatCC::Uno,
    ];
    /// The condition with operands swapped (`a cc b == b cc.swap_args() a`).
    pub fn swap_args(self) -> FloatCC {
        match self {
            FloatCC::Olt => FloatCC::Ogt,
            FloatCC::Ogt => FloatCC::Olt,
            FloatCC::Ole => FloatCC::Oge,
            FloatCC::Oge => FloatCC::Ole,
            FloatCC::Ult => FloatCC::Ugt,
            FloatCC::Ugt => FloatCC::Ult,
            FloatCC::Ule => FloatCC::Uge,
            FloatCC::Uge => FloatCC::Ule,
            c => c,
        }
    }
    /// Text name.
    pub fn name(self) -> &'static str {
        match self {
            FloatCC::Oeq => "oeq",
            FloatCC::One => "one",
            FloatCC::Olt => "olt",
            FloatCC::Ole => "ole",
            FloatCC::Ogt => "ogt",
            FloatCC::Oge => "oge",
            FloatCC::Ueq => "ueq",
            FloatCC::Une => "une",
            FloatCC::Ult => "ult",
            FloatCC::Ule => "ule",
            FloatCC::Ugt => "ugt",
            FloatCC::Uge => "uge",
            FloatCC::Ord => "ord",
            FloatCC::Uno => "uno",
        }
    }
    /// Parses a text name.
    pub fn from_name(s: &str) -> Option<FloatCC> {
        FloatCC::ALL.into_iter().find(|c| c.name() == s)
    }
    /// Evaluates the condition given the IEEE ordering of the operands (`None` = unordered).
    pub fn eval(self, ord: Option<core::cmp::Ordering>) -> bool {
        use core::cmp::Ordering::*;
        match ord {
            None => matches!(
                self,
                FloatCC::Ueq
                    | FloatCC::Une
                    | FloatCC::Ult
                    | FloatCC::Ule
                    | FloatCC::Ugt
                    | FloatCC::Uge
                    | FloatCC::Uno
            ),
            Some(o) => match self {
                FloatCC::Oeq | FloatCC::Ueq => o == Equal,
                FloatCC::One | FloatCC::Une => o != Equal,
                FloatCC::Olt | FloatCC::Ult => o == Less,
                FloatCC::Ole | FloatCC::Ule => o != Greater,
                FloatCC::Ogt | FloatCC::Ugt => o == Greater,
                FloatCC::Oge | FloatCC::Uge => o != Less,
                FloatCC::Ord => true,
                FloatCC::Uno => false,
            },
        }
    }
}

impl fmt::Display for FloatCC {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A memory space. Addresses are byte offsets (`b32`) into the space, except `Global`,
/// whose address is also a byte offset into the `g[]` buffer.
///
/// Out-of-range accesses (beyond the bound buffer / declared size) read 0 and drop stores,
/// as AMD IL promises, checked per 4-byte word of a multi-word access (so narrowing a
/// vector access to its used words never changes results); a backend may skip the check
/// under `--assume-in-bounds`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum MemSpace {
    /// Raw (byte-addressed) UAV `id` (structured UAVs are lowered to byte addresses
    /// `index * stride + offset` by the front end).
    Uav(u8),
    /// Local data share (group shared memory) `id`.
    Lds(u8),
    /// Constant buffer `id` (read only).
    Cb(u8),
    /// Read-only raw shader resource `id` (AMD IL `dcl_raw_srv`/`dcl_struct_srv`, byte
    /// addressed like UAVs; structured ones are lowered to byte addresses).
    Srv(u8),
    /// Per work-item private array (AMD IL indexed temp), declared as a stack slot.
    Private(StackSlot),
    /// The legacy global buffer `g[]`.
    Global,
    /// Pixel-shader output `o#` (`il_ps` compute): one 16-byte vec4 per pixel, row-major
    /// over the domain (byte address `(y * width + x) * 16 + 4 * component`).
    Output(u8),
    /// The hidden append/consume counter of UAV `id` (one 32-bit word at address 0, set by
    /// the runtime before the dispatch).
    Counter(u8),
}

impl MemSpace {
    /// True if stores to the space are allowed.
    pub fn is_writable(self) -> bool {
        !matches!(self, MemSpace::Cb(_) | MemSpace::Srv(_))
    }
    /// True if the space is shared by the work-items of a group or the grid (needs
    /// barriers/fences to be observed by other work-items).
    pub fn is_shared(self) -> bool {
        !matches!(
            self,
            MemSpace::Private(_) | MemSpace::Cb(_) | MemSpace::Srv(_)
        )
    }
}

impl fmt::Display for MemSpace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MemSpace::Uav(i) => write!(f, "uav{i}"),
            MemSpace::Lds(i) => write!(f, "lds{i}"),
            MemSpace::Cb(i) => write!(f, "cb{i}"),
            MemSpace::Srv(i) => write!(f, "srv{i}"),
            MemSpace::Private(ss) => write!(f, "{ss}"),
            MemSpace::Global => f.write_str("global"),
            MemSpace::Output(i) => write!(f, "out{i}"),
            MemSpace::Counter(i) => write!(f, "counter{i}"),
        }
    }
}

/// Access size and extension of a memory operation.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum MemSize {
    /// One byte, zero-extended on load.
    U8,
    /// One byte, sign-extended on load.
    S8,
    /// Two bytes, zero-extended on load.
    U16,
    /// Two bytes, sign-extended on load.
    S16,
    /// 4, 8, 12 or 16 bytes: that many `b32` words (1..=4).
    Words(u8),
}

impl MemSize {
    /// Access size in bytes.
    pub fn bytes(self) -> u32 {
        match self {
            MemSize::U8 | MemSize::S8 => 1,
            MemSize::U16 | MemSize::S16 => 2,
            MemSize::Words(n) => 4 * n as u32,
        }
    }
    /// Number of `b32` values a load produces / a store consumes.
    pub fn words(self) -> usize {
        match self {
            MemSize::Words(n) => n as usize,
            _ => 1,
        }
    }
    /// True for the sign-extending sub-word forms.
    pub fn is_signed(self) -> bool {
        matches!(self, MemSize::S8 | MemSize::S16)
    }
    /// The natural (default) alignment in bytes: the size, capped at 4.
    pub fn natural_align(self) -> u32 {
        self.bytes().min(4)
    }
    /// Text suffix (`u8 s8 u16 s16 b32 b64 b96 b128`).
    pub fn name(self) -> &'static str {
        match self {
            MemSize::U8 => "u8",
            MemSize::S8 => "s8",
            MemSize::U16 => "u16",
            MemSize::S16 => "s16",
            MemSize::Words(1) => "b32",
            MemSize::Words(2) => "b64",
            MemSize::Words(3) => "b96",
            MemSize::Words(_) => "b128",
        }
    }
    /// Parses a text suffix.
    pub fn from_name(s: &str) -> Option<MemSize> {
        Some(match s {
            "u8" => MemSize::U8,
            "s8" => MemSize::S8,
            "u16" => MemSize::U16,
            "s16" => MemSize::S16,
            "b32" => MemSize::Words(1),
            "b64" => MemSize::Words(2),
            "b96" => MemSize::Words(3),
            "b128" => MemSize::Words(4),
            _ => return None,
        })
    }
    /// True if the representation is valid (`Words(1..=4)`).
    pub fn is_valid(self) -> bool {
        !matches!(self, MemSize::Words(n) if !(1..=4).contains(&n))
    }
}

/// The memory operand of a load, store or atomic: space, constant byte offset, size,
/// and known alignment of the final address. The dynamic address operand (if any) is the
/// instruction's first argument; the effective address `E` is `arg0 + offset` (`arg0` an
/// unsigned 32-bit value, `offset` signed) computed exactly, without wrap-around, or just
/// `offset` when the instruction has no address argument. The access covers bytes
/// `[E, E + size)`, checked word by word: a 4-byte word (or a smaller access as a whole) is in
/// range iff it lies wholly inside `[0, len)` of its buffer; words out of range read 0 and are
/// not written. So `E + 4k` never wraps back into a buffer, and a word that straddles the end
/// of an odd-sized buffer is out of range.
///
/// An access marked `inbounds` (text: `load.b32 inbounds uav0[v1]`) is known to lie wholly in
/// range (a pass proved it, e.g. by versioning a loop on a range check); the backend omits its
/// check, and reaching it out of range is undefined behaviour (the IR interpreter traps).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct MemArg {
    /// Memory space.
    pub space: MemSpace,
    /// Constant byte offset added to the address.
    pub offset: i32,
    /// Access size.
    pub size: MemSize,
    /// Guaranteed alignment of the effective address in bytes (power of two).
    pub align: u32,
    /// The access is known to be in range (see the type's documentation).
    pub inbounds: bool,
}

/// Atomic read-modify-write operation (32-bit). `old` is the memory word, `x` the operand;
/// the new memory value is:
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    /// `old + x`
    Add,
    /// `old - x`
    Sub,
    /// `x - old`
    Rsub,
    /// signed min
    Smin,
    /// signed max
    Smax,
    /// unsigned min
    Umin,
    /// unsigned max
    Umax,
    /// `old & x`
    And,
    /// `old | x`
    Or,
    /// `old ^ x`
    Xor,
    /// `x`
    Xchg,
    /// `old >= x ? 0 : old + 1` (unsigned)
    Inc,
    /// `old == 0 || old > x ? x : old - 1` (unsigned)
    Dec,
    /// `old == cmp ? x : old`; takes two operands `cmp, x` (compare first).
    CmpXchg,
}

impl AtomicOp {
    /// All operations.
    pub const ALL: [AtomicOp; 14] = [
        AtomicOp::Add,
        AtomicOp::Sub,
        AtomicOp::Rsub,
        AtomicOp::Smin,
        AtomicOp::Smax,
        AtomicOp::Umin,
        AtomicOp::Umax,
        AtomicOp::And,
        AtomicOp::Or,
        AtomicOp::Xor,
        AtomicOp::Xchg,
        AtomicOp::Inc,
        AtomicOp::Dec,
        AtomicOp::CmpXchg,
    ];
    /// Text name.
    pub fn name(self) -> &'static str {
        match self {
            AtomicOp::Add => "add",
            AtomicOp::Sub => "sub",
            AtomicOp::Rsub => "rsub",
            AtomicOp::Smin => "smin",
            AtomicOp::Smax => "smax",
            AtomicOp::Umin => "umin",
            AtomicOp::Umax => "umax",
            AtomicOp::And => "and",
            AtomicOp::Or => "or",
            AtomicOp::Xor => "xor",
            AtomicOp::Xchg => "xchg",
            AtomicOp::Inc => "inc",
            AtomicOp::Dec => "dec",
            AtomicOp::CmpXchg => "cmpxchg",
        }
    }
    /// Parses a text name.
    pub fn from_name(s: &str) -> Option<AtomicOp> {
        AtomicOp::ALL.into_iter().find(|c| c.name() == s)
    }
    /// Number of data operands (after the address): 2 for `cmpxchg`, else 1.
    pub fn data_operands(self) -> usize {
        if self == AtomicOp::CmpXchg {
            2
        } else {
            1
        }
    }
    /// Applies the operation: returns the new memory word. `data` holds the data operands.
    pub fn apply(self, old: u32, data: &[u32]) -> u32 {
        let x = data.last().copied().unwrap_or(0);
        match self {
            AtomicOp::Add => old.wrapping_add(x),
            AtomicOp::Sub => old.wrapping_sub(x),
            AtomicOp::Rsub => x.wrapping_sub(old),
            AtomicOp::Smin => (old as i32).min(x as i32) as u32,
            AtomicOp::Smax => (old as i32).max(x as i32) as u32,
            AtomicOp::Umin => old.min(x),
            AtomicOp::Umax => old.max(x),
            AtomicOp::And => old & x,
            AtomicOp::Or => old | x,
            AtomicOp::Xor => old ^ x,
            AtomicOp::Xchg => x,
            AtomicOp::Inc => {
                if old >= x {
                    0
                } else {
                    old + 1
                }
            }
            AtomicOp::Dec => {
                if old == 0 || old > x {
                    x
                } else {
                    old - 1
                }
            }
            AtomicOp::CmpXchg => {
                if old == data.first().copied().unwrap_or(0) {
                    x
                } else {
                    old
                }
            }
        }
    }
}

impl fmt::Display for AtomicOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Flags of a `barrier` instruction (AMD IL `fence_threads_lds_memory_gds`...).
///
/// `threads` makes every work-item of the group wait for the others (Maxwell `BAR.SYNC`);
/// the other flags order memory accesses of the named spaces (`MEMBAR`). A barrier without
/// `threads` is a pure fence.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct BarrierFlags {
    /// Execution barrier across the group.
    pub threads: bool,
    /// Order LDS accesses.
    pub lds: bool,
    /// Order UAV / global memory accesses.
    pub memory: bool,
    /// Order GDS accesses.
    pub gds: bool,
}

impl fmt::Display for BarrierFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if self.threads {
            parts.push("threads");
        }
        if self.lds {
            parts.push("lds");
        }
        if self.memory {
            parts.push("memory");
        }
        if self.gds {
            parts.push("gds");
        }
        if parts.is_empty() {
            f.write_str("none")
        } else {
            f.write_str(&parts.join("|"))
        }
    }
}

impl BarrierFlags {
    /// Parses the text form (`threads|lds`, or `none`).
    pub fn parse(s: &str) -> Option<BarrierFlags> {
        let mut b = BarrierFlags::default();
        if s == "none" {
            return Some(b);
        }
        for p in s.split('|') {
            match p {
                "threads" => b.threads = true,
                "lds" => b.lds = true,
                "memory" => b.memory = true,
                "gds" => b.gds = true,
                _ => return None,
            }
        }
        Some(b)
    }
}

/// Special read-only registers (`special` instruction), all `b32`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SpecialReg {
    /// Work-item id within its group, component 0..3 (`tid.x`).
    Tid(u8),
    /// Group id within the grid (`ctaid.x`).
    GroupId(u8),
    /// Group size (`ntid.x`).
    GroupSize(u8),
    /// Grid size in groups (`nctaid.x`).
    GridSize(u8),
    /// Lane within the 32-wide warp (`laneid`).
    LaneId,
    /// Low 32 bits of a cycle counter (`clock`). The interpreter returns the number of
    /// instructions the work-item has executed so far.
    Clock,
    /// Pixel-shader domain size in pixels, component 0 (width) or 1 (height): a launch
    /// constant (`domain.x`).
    Domain(u8),
    /// Pixel-shader domain origin, component 0 (x) or 1 (y): a launch constant added to the
    /// pixel position `vWinCoord0` reads (`origin.x`).
    DomainOrigin(u8),
    /// Size in texels of texture resource `id` along axis 0..2 (width, height, depth or
    /// layers): a launch constant (`resdim3.y`).
    ResDim(u8, u8),
    /// Length in bytes of the buffer behind a UAV, SRV or `g[]` memory space: a launch
    /// constant below 2^31 (`buflen.uav2`, `buflen.srv0`, `buflen.global`). Only those spaces.
    BufLen(MemSpace),
    /// The view of typed UAV `id`, word 0..3: 32-bit components per element, then width,
    /// height and depth in elements (`uavview2.x` .. `uavview2.w`): a launch constant the
    /// front end addresses typed elements with (`isa_amdil::interp::typed_uav`).
    UavView(u8, u8),
}

impl SpecialReg {
    /// All special registers.
    pub fn all() -> Vec<SpecialReg> {
        let mut v = Vec::new();
        for c in 0..3 {
            v.extend([
                SpecialReg::Tid(c),
                SpecialReg::GroupId(c),
                SpecialReg::GroupSize(c),
                SpecialReg::GridSize(c),
            ]);
        }
        v.extend([
            SpecialReg::LaneId,
            SpecialReg::Clock,
            SpecialReg::Domain(0),
            SpecialReg::Domain(1),
            SpecialReg::DomainOrigin(0),
            SpecialReg::DomainOrigin(1),
        ]);
        v
    }
    /// True for launch constants (the same value in every work-item of a dispatch).
    pub fn is_launch_constant(self) -> bool {
        matches!(
            self,
            SpecialReg::GroupSize(_)
                | SpecialReg::GridSize(_)
                | SpecialReg::Domain(_)
                | SpecialReg::DomainOrigin(_)
                | SpecialReg::ResDim(..)
                | SpecialReg::BufLen(_)
                | SpecialReg::UavView(..)
        )
    }
    /// Parses the text form.
    pub fn parse(s: &str) -> Option<SpecialReg> {
        if let Some(rest) = s.strip_prefix("uavview") {
            let (id, word) = rest.split_once('.')?;
            let word = ["x", "y", "z", "w"].iter().position(|&c| c == word)?;
            return Some(SpecialReg::UavView(id.parse().ok()?, word as u8));
        }
        if let Some(rest) = s.strip_prefix("resdim") {
            let (id, axis) = rest.split_once('.')?;
            let axis = match axis {
                "x" => 0,
                "y" => 1,
                "z" => 2,
                _ => return None,
            };
            return Some(SpecialReg::ResDim(id.parse().ok()?, axis));
        }
        if let Some(rest) = s.strip_prefix("buflen.") {
            let space = if rest == "global" {
                MemSpace::Global
            } else if let Some(id) = rest.strip_prefix("uav") {
                MemSpace::Uav(id.parse().ok()?)
            } else {
                MemSpace::Srv(rest.strip_prefix("srv")?.parse().ok()?)
            };
            return Some(SpecialReg::BufLen(space));
        }
        SpecialReg::all().into_iter().find(|r| r.to_string() == s)
    }
}

impl fmt::Display for SpecialReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const C: [&str; 4] = ["x", "y", "z", "?"];
        let c = |i: &u8| C[(*i as usize).min(3)];
        match self {
            SpecialReg::Tid(i) => write!(f, "tid.{}", c(i)),
            SpecialReg::GroupId(i) => write!(f, "ctaid.{}", c(i)),
            SpecialReg::GroupSize(i) => write!(f, "ntid.{}", c(i)),
            SpecialReg::GridSize(i) => write!(f, "nctaid.{}", c(i)),
            SpecialReg::LaneId => f.write_str("laneid"),
            SpecialReg::Clock => f.write_str("clock"),
            SpecialReg::Domain(i) => write!(f, "domain.{}", c(i)),
            SpecialReg::DomainOrigin(i) => write!(f, "origin.{}", c(i)),
            SpecialReg::ResDim(id, i) => write!(f, "resdim{id}.{}", c(i)),
            SpecialReg::BufLen(space) => write!(f, "buflen.{space}"),
            SpecialReg::UavView(id, i) => {
                write!(
                    f,
                    "uavview{id}.{}",
                    ["x", "y", "z", "w"][(*i as usize).min(3)]
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for c in IntCC::ALL {
            assert_eq!(IntCC::from_name(c.name()), Some(c));
            assert_eq!(c.inverse().inverse(), c);
            assert_eq!(c.swap_args().swap_args(), c);
        }
        for c in FloatCC::ALL {
            assert_eq!(FloatCC::from_name(c.name()), Some(c));
        }
        for a in AtomicOp::ALL {
            assert_eq!(AtomicOp::from_name(a.name()), Some(a));
        }
        for r in SpecialReg::all() {
            assert_eq!(SpecialReg::parse(&r.to_string()), Some(r));
        }
        let v = SpecialReg::UavView(3, 3);
        assert_eq!(SpecialReg::parse(&v.to_string()), Some(v));
        let r = SpecialReg::ResDim(7, 2);
        assert_eq!(SpecialReg::parse(&r.to_string()), Some(r));
        assert_eq!(SpecialReg::parse("resdim7.w"), None);
        for space in [MemSpace::Uav(3), MemSpace::Srv(0), MemSpace::Global] {
            let r = SpecialReg::BufLen(space);
            assert_eq!(SpecialReg::parse(&r.to_string()), Some(r));
        }
        assert_eq!(SpecialReg::parse("buflen.lds0"), None);
        for s in ["u8", "s8", "u16", "s16", "b32", "b64", "b96", "b128"] {
            assert_eq!(MemSize::from_name(s).map(|m| m.name()), Some(s));
        }
        let b = BarrierFlags {
            threads: true,
            lds: true,
            memory: false,
            gds: true,
        };
        assert_eq!(b.to_string(), "threads|lds|gds");
        assert_eq!(BarrierFlags::parse("threads|lds|gds"), Some(b));
        assert_eq!(BarrierFlags::parse("none"), Some(BarrierFlags::default()));
        assert_eq!(BarrierFlags::parse("thread"), None);
    }

    #[test]
    fn atomic_semantics() {
        assert_eq!(AtomicOp::Inc.apply(5, &[5]), 0);
        assert_eq!(AtomicOp::Inc.apply(4, &[5]), 5);
        assert_eq!(AtomicOp::Dec.apply(0, &[7]), 7);
        assert_eq!(AtomicOp::Dec.apply(9, &[7]), 7);
        assert_eq!(AtomicOp::Dec.apply(3, &[7]), 2);
        assert_eq!(AtomicOp::CmpXchg.apply(3, &[3, 9]), 9);
        assert_eq!(AtomicOp::CmpXchg.apply(4, &[3, 9]), 4);
        assert_eq!(AtomicOp::Smin.apply(u32::MAX, &[1]), u32::MAX);
        assert_eq!(AtomicOp::Umin.apply(u32::MAX, &[1]), 1);
        assert_eq!(AtomicOp::Rsub.apply(3, &[10]), 7);
    }

    #[test]
    fn float_cc_nan() {
        assert!(!FloatCC::Oeq.eval(None));
        assert!(FloatCC::Une.eval(None));
        assert!(FloatCC::Ole.eval(Some(core::cmp::Ordering::Equal)));
        assert!(!FloatCC::One.eval(Some(core::cmp::Ordering::Equal)));
    }
}

/// What a texture instruction does.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TexKind {
    /// Filtered read at float coordinates (the sampler's filter and addressing; level 0).
    Sample,
    /// Unfiltered texel at integer coordinates plus a mip level (out of range: zeros).
    Fetch,
    /// `(width, height, depth or layers, levels)` of a mip level, as integers.
    Query,
    /// Component `c` (0..=3) of the four texels a linear filter at the float coordinates
    /// would blend, in the order (i0, j1), (i1, j1), (i1, j0), (i0, j0) (2-D resources).
    Gather(u8),
}

/// The dimensionality of a texture resource.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TexShape {
    /// 1-D.
    D1,
    /// 1-D array.
    D1Array,
    /// 2-D.
    D2,
    /// 2-D array.
    D2Array,
    /// 3-D.
    D3,
    /// A buffer of texels (1-D, no levels, no filtering).
    Buffer,
}

impl TexShape {
    const NAMES: [(TexShape, &'static str); 6] = [
        (TexShape::D1, "1d"),
        (TexShape::D1Array, "1darray"),
        (TexShape::D2, "2d"),
        (TexShape::D2Array, "2darray"),
        (TexShape::D3, "3d"),
        (TexShape::Buffer, "buffer"),
    ];

    /// Text name.
    pub fn name(self) -> &'static str {
        Self::NAMES
            .iter()
            .find(|(s, _)| *s == self)
            .map_or("?", |(_, n)| n)
    }

    /// Parses a name.
    pub fn from_name(n: &str) -> Option<TexShape> {
        Self::NAMES.iter().find(|(_, m)| *m == n).map(|(s, _)| *s)
    }

    /// Spatial coordinates (without the array layer).
    pub fn axes(self) -> usize {
        match self {
            TexShape::D1 | TexShape::D1Array | TexShape::Buffer => 1,
            TexShape::D2 | TexShape::D2Array => 2,
            TexShape::D3 => 3,
        }
    }

    /// Whether a layer index follows the coordinates.
    pub fn is_array(self) -> bool {
        matches!(self, TexShape::D1Array | TexShape::D2Array)
    }
}

/// The immediate part of a texture instruction: `tex.sample.2d t0 s1 x, y`,
/// `tex.fetch.2d t0 x, y, level`, `tex.query t0 level`.
///
/// Operands: `Sample`: the float coordinates, then (arrays) the layer as an integer already
/// rounded; `Fetch`: the integer coordinates, then the layer, then the level (not for
/// buffers); `Query`: the level. Results: four 32-bit channels. Textures are read-only for a
/// whole dispatch, so a texture instruction is a pure function of its operands.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct TexArg {
    /// The operation.
    pub kind: TexKind,
    /// The texture resource id.
    pub resource: u8,
    /// The sampler id (`Sample` only; 0 otherwise).
    pub sampler: u8,
    /// The resource's dimensionality.
    pub shape: TexShape,
    /// `Sample`: coordinates are in texel space (`.unnorm`), not normalized to [0, 1).
    pub unnorm: bool,
    /// Bit c set: channel c is declared with a float return format (normalized storage
    /// converts to a float; linear filtering needs all four). Printed `ffff`/`iiii`...
    pub float_mask: u8,
}

impl TexArg {
    fn mask_text(self) -> [u8; 4] {
        let mut t = [b'i'; 4];
        for (c, ch) in t.iter_mut().enumerate() {
            if self.float_mask >> c & 1 != 0 {
                *ch = b'f';
            }
        }
        t
    }

    /// Parses a `ffff`-style channel mask.
    pub fn parse_float_mask(s: &str) -> Option<u8> {
        if s.len() != 4 {
            return None;
        }
        let mut m = 0;
        for (c, ch) in s.bytes().enumerate() {
            match ch {
                b'f' => m |= 1 << c,
                b'i' => {}
                _ => return None,
            }
        }
        Some(m)
    }
}

impl TexArg {
    /// The number of value operands this texture instruction takes.
    pub fn arity(&self) -> usize {
        let layer = self.shape.is_array() as usize;
        match self.kind {
            TexKind::Sample | TexKind::Gather(_) => self.shape.axes() + layer,
            TexKind::Fetch => self.shape.axes() + layer + (self.shape != TexShape::Buffer) as usize,
            TexKind::Query => 1,
        }
    }
}

impl fmt::Display for TexArg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            TexKind::Sample => write!(
                f,
                "sample.{}.{}{} t{} s{}",
                self.shape.name(),
                String::from_utf8_lossy(&self.mask_text()),
                if self.unnorm { ".unnorm" } else { "" },
                self.resource,
                self.sampler
            ),
            TexKind::Fetch => write!(
                f,
                "fetch.{}.{} t{}",
                self.shape.name(),
                String::from_utf8_lossy(&self.mask_text()),
                self.resource
            ),
            TexKind::Query => write!(f, "query.{} t{}", self.shape.name(), self.resource),
            TexKind::Gather(c) => write!(
                f,
                "gather{}.{}.{}{} t{} s{}",
                ["r", "g", "b", "a"][c as usize & 3],
                self.shape.name(),
                String::from_utf8_lossy(&self.mask_text()),
                if self.unnorm { ".unnorm" } else { "" },
                self.resource,
                self.sampler
            ),
        }
    }
}
