//! Kernel directives of the SPA assembly syntax: every field of a cubin [`Kernel`] other than
//! its code, and the module's target, as `.name value...` lines, so an assembly listing
//! carries what [`crate::cubin::CubinWriter`] needs to write the same cubin again
//! (`ilc --emit asm | spa5-as` and `spa5-dis --syntax spa | spa5-as` give identical bytes).
//!
//! ```text
//! .target sm_50                  // module: architecture (.virtual N, .toolkit N if not default)
//! .kernel saxpy                  // starts a kernel; the fields below belong to it
//! .regs 8                        // registers per thread
//! .barriers 1                    // named barriers
//! .param 0x0 8                   // offset, size [, align LOG2] in declaration order
//! .shared 256 16                 // static shared bytes, section alignment
//! .local 16                      // stack frame bytes per thread
//! .min_stack 16 / .max_stack N / .crs_stack N
//! .block 64 1 1                  // required block size; .max_threads X Y Z
//! .max_regs 32                   // EIATTR_MAXREG_COUNT
//! .exit_offsets 0x198            // only when they differ from a scan of the code
//! .s2rctaid_offsets 0x8 0x10     // likewise
//! .const 2 0x0 0000803f...       // constant bank, byte offset, hex bytes (32 a line)
//! .info 0x23 hval 0x1            // other .nv.info records (nval|bval|hval VALUE, sval HEX)
//! .ilc_abi "param 0x0 8 uav 0"   // one line of the .ilc.abi section (.ilc_abi_hex HEX)
//! .subroutine NAME 0x40 0x20 [frame N] [local]
//! ```
//!
//! Guarantees: [`print_kernel`] then [`Directives::line`] on each line rebuilds the same
//! [`Kernel`] fields (code excepted); a malformed directive is an error naming it.

use std::fmt::Write;

use crate::cubin::{
    scan_instr_offsets, ConstBank, InfoAttr, InfoValue, Kernel, Param, Sm, Subroutine,
    DEFAULT_TOOLKIT_VERSION, PARAM_BASE,
};

/// Module-level settings of an assembly file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Module {
    /// `.target`.
    pub sm: Option<Sm>,
    /// `.virtual` (default: the real architecture).
    pub virtual_arch: Option<u32>,
    /// `.toolkit` (default [`DEFAULT_TOOLKIT_VERSION`]).
    pub toolkit_version: Option<u32>,
}

/// The module directives (`.target`, and `.virtual`/`.toolkit` when not the defaults).
pub fn print_module(sm: Sm, virtual_arch: u32, toolkit_version: u32) -> String {
    let mut s = format!(".target {sm}\n");
    if virtual_arch != sm.number() {
        let _ = writeln!(s, ".virtual {virtual_arch}");
    }
    if toolkit_version != DEFAULT_TOOLKIT_VERSION {
        let _ = writeln!(s, ".toolkit {toolkit_version}");
    }
    s
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The directives of one kernel, `.kernel NAME` first (its code is not printed).
pub fn print_kernel(k: &Kernel) -> String {
    let mut s = String::new();
    let _ = writeln!(s, ".kernel {}", k.name);
    let _ = writeln!(s, ".regs {}", k.num_regs);
    if k.num_barriers != 0 {
        let _ = writeln!(s, ".barriers {}", k.num_barriers);
    }
    for p in &k.params {
        let _ = write!(s, ".param {:#x} {}", p.offset, p.size);
        if p.log_align != 0 {
            let _ = write!(s, " align {}", p.log_align);
        }
        s.push('\n');
    }
    if k.shared_size != 0 || k.shared_align != 0 {
        let _ = writeln!(s, ".shared {} {}", k.shared_size, k.shared_align);
    }
    if k.local_size != 0 {
        let _ = writeln!(s, ".local {}", k.local_size);
    }
    for (name, v) in [
        ("min_stack", k.min_stack_size),
        ("max_stack", k.max_stack_size),
        ("crs_stack", k.crs_stack_size),
        ("max_regs", k.max_reg_count),
    ] {
        if let Some(v) = v {
            let _ = writeln!(s, ".{name} {v}");
        }
    }
    for (name, v) in [("block", k.block_size), ("max_threads", k.max_threads)] {
        if let Some([x, y, z]) = v {
            let _ = writeln!(s, ".{name} {x} {y} {z}");
        }
    }
    let (exits, ctaids) = scan_instr_offsets(&k.code);
    for (name, v, scanned) in [
        ("exit_offsets", &k.exit_offsets, exits),
        ("s2rctaid_offsets", &k.s2rctaid_offsets, ctaids),
    ] {
        if *v != scanned {
            let list: Vec<String> = v.iter().map(|o| format!("{o:#x}")).collect();
            let _ = writeln!(s, ".{name} {}", list.join(" ").trim_end());
        }
    }
    // Bank 0 past the parameters is zero-filled by the writer: trailing zeros are implied.
    let param_end = (PARAM_BASE + k.param_size()) as usize;
    let mut c0 = k.const0.as_slice();
    while c0.len() > param_end && c0.last() == Some(&0) {
        c0 = &c0[..c0.len() - 1];
    }
    if c0.iter().any(|&b| b != 0) || c0.len() > param_end {
        print_bank(&mut s, 0, c0);
    }
    for b in &k.const_banks {
        print_bank(&mut s, b.bank, &b.data);
    }
    for a in &k.extra_info {
        let (fmt, value) = match &a.value {
            InfoValue::NoValue(v) => ("nval", format!("{v:#x}")),
            InfoValue::Byte(v) => ("bval", format!("{v:#x}")),
            InfoValue::Half(v) => ("hval", format!("{v:#x}")),
            InfoValue::Sized(b) => ("sval", hex(b)),
        };
        let _ = writeln!(s, ".info {:#x} {fmt} {value}", a.attr);
    }
    if let Some(abi) = &k.ilc_abi {
        match std::str::from_utf8(abi) {
            Ok(text)
                if text.ends_with('\n')
                    && !text.contains(['"', '\\', '\r'])
                    && !text.is_empty() =>
            {
                for line in text.lines() {
                    let _ = writeln!(s, ".ilc_abi \"{line}\"");
                }
            }
            _ => {
                let _ = writeln!(s, ".ilc_abi_hex {}", hex(abi));
            }
        }
    }
    for r in &k.subroutines {
        let _ = write!(s, ".subroutine {} {:#x} {:#x}", r.name, r.offset, r.size);
        if let Some(f) = r.frame_size {
            let _ = write!(s, " frame {f}");
        }
        if r.local {
            s.push_str(" local");
        }
        s.push('\n');
    }
    s
}

fn print_bank(s: &mut String, bank: u8, data: &[u8]) {
    if data.is_empty() {
        let _ = writeln!(s, ".const {bank} 0x0");
    }
    for (i, chunk) in data.chunks(32).enumerate() {
        let _ = writeln!(s, ".const {bank} {:#x} {}", i * 32, hex(chunk));
    }
}

/// Reads directives into a module and its kernels.
#[derive(Clone, Debug, Default)]
pub struct Directives {
    /// Module settings.
    pub module: Module,
    /// Kernels in order, code empty; `(kernel, exit offsets given, s2rctaid offsets given,
    /// register count given)`.
    pub kernels: Vec<KernelDirectives>,
}

/// One kernel's directives.
#[derive(Clone, Debug, Default)]
pub struct KernelDirectives {
    /// The fields read (code empty).
    pub kernel: Kernel,
    /// `.regs` was given (else the assembler counts the registers the code names).
    pub regs_given: bool,
    /// `.exit_offsets` was given (else scanned from the code).
    pub exits_given: bool,
    /// `.s2rctaid_offsets` was given (else scanned from the code).
    pub ctaids_given: bool,
}

impl KernelDirectives {
    /// The kernel with `code`, filling what was not given from it (`count_regs` for the
    /// register count).
    pub fn finish(mut self, code: Vec<u64>, count_regs: impl Fn(&[u64]) -> u32) -> Kernel {
        let (exits, ctaids) = scan_instr_offsets(&code);
        if !self.exits_given {
            self.kernel.exit_offsets = exits;
        }
        if !self.ctaids_given {
            self.kernel.s2rctaid_offsets = ctaids;
        }
        if !self.regs_given {
            self.kernel.num_regs = count_regs(&code);
        }
        self.kernel.code = code;
        self.kernel
    }
}

fn number(s: &str) -> Result<u64, String> {
    let r = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => s.parse(),
    };
    r.map_err(|_| format!("`{s}` is not a number"))
}

fn num32(s: &str) -> Result<u32, String> {
    u32::try_from(number(s)?).map_err(|_| format!("`{s}` does not fit 32 bits"))
}

fn unhex(s: &str) -> Result<Vec<u8>, String> {
    if !s.len().is_multiple_of(2) || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("`{s}` is not hex bytes"));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).map_err(|e| e.to_string()))
        .collect()
}

impl Directives {
    /// The kernel directives apply to (`.kernel` starts one; before it, an unnamed `kernel`).
    fn current(&mut self) -> &mut KernelDirectives {
        if self.kernels.is_empty() {
            self.start("kernel");
        }
        let last = self.kernels.len() - 1;
        &mut self.kernels[last]
    }

    /// Starts a kernel named `name`.
    pub fn start(&mut self, name: &str) {
        self.kernels.push(KernelDirectives {
            kernel: Kernel {
                name: name.to_owned(),
                ..Kernel::default()
            },
            ..KernelDirectives::default()
        });
    }

    /// Reads one line: `Ok(true)` when it was a directive (comments already removed),
    /// `Ok(false)` when it is not one, an error for a malformed or unknown directive.
    pub fn line(&mut self, line: &str) -> Result<bool, String> {
        let line = line.trim();
        let Some(rest) = line.strip_prefix('.') else {
            return Ok(false);
        };
        let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let args = args.trim();
        let words: Vec<&str> = args.split_whitespace().collect();
        let one = |w: &[&str]| -> Result<u32, String> {
            match w {
                [v] => num32(v),
                _ => Err(format!("`.{name}` takes one number")),
            }
        };
        let three = |w: &[&str]| -> Result<[u32; 3], String> {
            match w {
                [x, y, z] => Ok([num32(x)?, num32(y)?, num32(z)?]),
                _ => Err(format!("`.{name}` takes three numbers")),
            }
        };
        match name {
            "target" => {
                let sm: Sm = args.parse().map_err(|e| format!("`.target`: {e}"))?;
                self.module.sm = Some(sm);
            }
            "virtual" => self.module.virtual_arch = Some(one(&words)?),
            "toolkit" => self.module.toolkit_version = Some(one(&words)?),
            "kernel" => {
                if words.len() != 1 {
                    return Err("`.kernel` takes one name".into());
                }
                self.start(words[0]);
            }
            "regs" => {
                let n = one(&words)?;
                let k = self.current();
                k.kernel.num_regs = n;
                k.regs_given = true;
            }
            "barriers" => self.current().kernel.num_barriers = one(&words)?,
            "param" => {
                let (offset, size, log_align) = match words.as_slice() {
                    [o, s] => (num32(o)?, num32(s)?, 0),
                    [o, s, "align", a] => (
                        num32(o)?,
                        num32(s)?,
                        u8::try_from(num32(a)?).map_err(|_| "alignment too large")?,
                    ),
                    _ => return Err("`.param OFFSET SIZE [align LOG2]`".into()),
                };
                self.current().kernel.params.push(Param {
                    offset,
                    size,
                    log_align,
                });
            }
            "shared" => match words.as_slice() {
                [s, a] => {
                    let (s, a) = (num32(s)?, num32(a)?);
                    let k = &mut self.current().kernel;
                    k.shared_size = s;
                    k.shared_align = a;
                }
                _ => return Err("`.shared SIZE ALIGN`".into()),
            },
            "local" => self.current().kernel.local_size = one(&words)?,
            "min_stack" => self.current().kernel.min_stack_size = Some(one(&words)?),
            "max_stack" => self.current().kernel.max_stack_size = Some(one(&words)?),
            "crs_stack" => self.current().kernel.crs_stack_size = Some(one(&words)?),
            "max_regs" => self.current().kernel.max_reg_count = Some(one(&words)?),
            "block" => self.current().kernel.block_size = Some(three(&words)?),
            "max_threads" => self.current().kernel.max_threads = Some(three(&words)?),
            "exit_offsets" | "s2rctaid_offsets" => {
                let v = words
                    .iter()
                    .map(|w| num32(w))
                    .collect::<Result<Vec<_>, _>>()?;
                let k = self.current();
                if name == "exit_offsets" {
                    k.kernel.exit_offsets = v;
                    k.exits_given = true;
                } else {
                    k.kernel.s2rctaid_offsets = v;
                    k.ctaids_given = true;
                }
            }
            "const" => {
                let (bank, offset, data) = match words.as_slice() {
                    [b, o] => (num32(b)?, number(o)?, Vec::new()),
                    [b, o, h] => (num32(b)?, number(o)?, unhex(h)?),
                    _ => return Err("`.const BANK OFFSET HEX`".into()),
                };
                let bank = u8::try_from(bank)
                    .ok()
                    .filter(|b| *b <= 17)
                    .ok_or("`.const`: banks are 0..=17")?;
                let k = &mut self.current().kernel;
                let target = if bank == 0 {
                    &mut k.const0
                } else {
                    if k.const_banks.last().is_none_or(|b| b.bank != bank) {
                        k.const_banks.push(ConstBank {
                            bank,
                            data: Vec::new(),
                        });
                    }
                    let last = k.const_banks.len() - 1;
                    &mut k.const_banks[last].data
                };
                if offset != target.len() as u64 {
                    return Err(format!(
                        "`.const {bank}`: offset {offset:#x} does not continue the bank (at {:#x})",
                        target.len()
                    ));
                }
                target.extend_from_slice(&data);
            }
            "info" => {
                let (attr, value) = match words.as_slice() {
                    [a, f, v] => {
                        let attr = u8::try_from(num32(a)?).map_err(|_| "attribute too large")?;
                        let half = || -> Result<u16, String> {
                            u16::try_from(num32(v)?).map_err(|_| "value too large".into())
                        };
                        let value = match *f {
                            "nval" => InfoValue::NoValue(half()?),
                            "bval" => InfoValue::Byte(half()?),
                            "hval" => InfoValue::Half(half()?),
                            "sval" => InfoValue::Sized(unhex(v)?),
                            _ => return Err(format!("`.info`: unknown format `{f}`")),
                        };
                        (attr, value)
                    }
                    _ => return Err("`.info ATTR nval|bval|hval|sval VALUE`".into()),
                };
                self.current()
                    .kernel
                    .extra_info
                    .push(InfoAttr { attr, value });
            }
            "ilc_abi" => {
                let text = args
                    .strip_prefix('"')
                    .and_then(|a| a.strip_suffix('"'))
                    .ok_or("`.ilc_abi \"LINE\"`")?;
                let abi = self.current().kernel.ilc_abi.get_or_insert_with(Vec::new);
                abi.extend_from_slice(text.as_bytes());
                abi.push(b'\n');
            }
            "ilc_abi_hex" => {
                let bytes = match words.as_slice() {
                    [] => Vec::new(),
                    [h] => unhex(h)?,
                    _ => return Err("`.ilc_abi_hex HEX`".into()),
                };
                self.current().kernel.ilc_abi = Some(bytes);
            }
            "subroutine" => {
                let [n, o, s, rest @ ..] = words.as_slice() else {
                    return Err("`.subroutine NAME OFFSET SIZE [frame N] [local]`".into());
                };
                let mut r = Subroutine {
                    name: (*n).to_owned(),
                    offset: number(o)?,
                    size: number(s)?,
                    ..Subroutine::default()
                };
                let mut it = rest.iter();
                while let Some(w) = it.next() {
                    match *w {
                        "frame" => {
                            r.frame_size = Some(num32(it.next().ok_or("`frame` needs a number")?)?)
                        }
                        "local" => r.local = true,
                        _ => return Err(format!("`.subroutine`: unexpected `{w}`")),
                    }
                }
                self.current().kernel.subroutines.push(r);
            }
            _ => return Err(format!("unknown directive `.{name}`")),
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_round_trips() {
        let k = Kernel {
            name: "k".into(),
            code: vec![0; 8],
            num_regs: 9,
            num_barriers: 1,
            params: vec![
                Param::new(0, 8),
                Param {
                    offset: 8,
                    size: 4,
                    log_align: 2,
                },
            ],
            shared_size: 256,
            shared_align: 16,
            local_size: 24,
            min_stack_size: Some(24),
            max_stack_size: Some(32),
            crs_stack_size: Some(8),
            block_size: Some([64, 2, 1]),
            max_threads: Some([128, 1, 1]),
            max_reg_count: Some(32),
            exit_offsets: vec![0x18],
            s2rctaid_offsets: vec![],
            const0: {
                let mut c = vec![0u8; 0x150];
                c[0x148] = 7;
                c
            },
            const_banks: vec![ConstBank {
                bank: 2,
                data: (0..70).collect(),
            }],
            extra_info: vec![
                InfoAttr {
                    attr: 0x23,
                    value: InfoValue::Half(3),
                },
                InfoAttr {
                    attr: 0x40,
                    value: InfoValue::Sized(vec![1, 2, 3, 4]),
                },
            ],
            ilc_abi: Some(b"ilc-abi 1\nparam 0x0 8 uav_address 0\n".to_vec()),
            subroutines: vec![Subroutine {
                name: "$sub".into(),
                offset: 0x20,
                size: 0x20,
                frame_size: Some(8),
                local: true,
            }],
        };
        let text = print_kernel(&k);
        let mut d = Directives::default();
        for line in print_module(Sm::Sm52, 50, 120).lines().chain(text.lines()) {
            assert!(d.line(line).unwrap(), "{line}");
        }
        assert_eq!(d.module.sm, Some(Sm::Sm52));
        assert_eq!(d.module.virtual_arch, Some(50));
        assert_eq!(d.module.toolkit_version, Some(120));
        let kd = d.kernels.pop().unwrap();
        assert!(kd.regs_given && kd.exits_given && !kd.ctaids_given);
        let back = kd.finish(k.code.clone(), |_| 0);
        // Bank 0 comes back without the implied zeros past the parameters.
        assert_eq!(back.const0.len(), 0x14c);
        assert_eq!(
            Kernel {
                const0: k.const0[..0x14c].to_vec(),
                ..k.clone()
            },
            back,
            "{text}"
        );
        // Bytes that are not ABI text use the hex form.
        let odd = Kernel {
            ilc_abi: Some(vec![0xff, 0]),
            ..Kernel::default()
        };
        assert!(print_kernel(&odd).contains(".ilc_abi_hex ff00"));
    }

    #[test]
    fn malformed_directives_are_errors() {
        let mut d = Directives::default();
        assert_eq!(d.line("MOV R0, R1 ;"), Ok(false));
        for bad in [
            ".frobnicate 1",
            ".regs",
            ".regs x",
            ".block 1 2",
            ".param 0",
            ".const 2 0x4 00",
            ".const 18 0x0 00",
            ".const 2 0x0 0",
            ".info 1 zval 0",
            ".ilc_abi unquoted",
            ".target sm_70",
            ".subroutine s 0 4 frame",
        ] {
            assert!(d.line(bad).is_err(), "{bad}");
        }
    }
}
