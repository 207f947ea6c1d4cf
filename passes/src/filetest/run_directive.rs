//! The `; run:` directive of filetests: bind buffers, dispatch the kernel in the IR
//! interpreter under every schedule, and compare memory afterwards.
//!
//! Syntax: `; run: [grid=X,Y,Z] [group=X,Y,Z] [schedule=all|lockstep|sequential|reverse|shuffled:SEED]
//! [fuel=N] [lds_check=on|off] {uavN|srvN|cbN|g}=[w, ...] ... => {uavN|g}=[w, ...] ... | trap=TEXT` (TEXT: the rest of the line,
//! a substring of the trap message).
//! A word is a decimal or `0x` hex integer (negative decimals wrap to 32 bits) or an f32
//! written with an `f` suffix (`1.5f`, `-0f`); `W*N` repeats a word N times. Expected
//! buffers compare their first words exactly. With `schedule=all` (the default) the kernel
//! must give the expected result under lock step, sequential, reverse and shuffled (seed 1)
//! schedules. LDS races (two work-items
//! touching one LDS word between barriers, one writing) trap unless `lds_check=off`.

use crate::interp::{
    bytes_to_words, run_dispatch_with_hooks, words_to_bytes, Dispatch, Hooks, InterpOptions,
    Memory, Schedule,
};
use crate::ir::Function;

/// A parsed `; run:` directive.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunDirective {
    /// Groups in the grid.
    pub grid: [u32; 3],
    /// Group size override.
    pub group: Option<[u32; 3]>,
    /// Schedules to try.
    pub schedules: Vec<Schedule>,
    /// Fuel.
    pub fuel: u64,
    /// Initial buffers: (name, words).
    pub inputs: Vec<(String, Vec<u32>)>,
    /// Expected buffers.
    pub expect: Vec<(String, Vec<u32>)>,
    /// Expected trap message fragment.
    pub trap: Option<String>,
    /// Trap on LDS races (`lds_check=on|off`, default on).
    pub lds_check: bool,
}

fn parse_word(s: &str) -> Result<u32, String> {
    let s = s.trim();
    if let Some(fl) = s.strip_suffix('f') {
        if !s.starts_with("0x") {
            return fl
                .parse::<f32>()
                .map(f32::to_bits)
                .map_err(|_| format!("bad float '{s}'"));
        }
    }
    if let Some(h) = s.strip_prefix("0x") {
        return u32::from_str_radix(h, 16).map_err(|_| format!("bad hex word '{s}'"));
    }
    if let Some(n) = s.strip_prefix('-') {
        let v: u64 = n.parse().map_err(|_| format!("bad word '{s}'"))?;
        if v > 1 << 31 {
            return Err(format!("word '{s}' out of range"));
        }
        return Ok((v as u32).wrapping_neg());
    }
    s.parse::<u32>().map_err(|_| format!("bad word '{s}'"))
}

fn parse_list(s: &str) -> Result<Vec<u32>, String> {
    let mut out = Vec::new();
    for item in s.split(',').map(str::trim).filter(|x| !x.is_empty()) {
        match item.split_once('*') {
            Some((w, n)) => {
                let n: usize = n
                    .trim()
                    .parse()
                    .map_err(|_| format!("bad repeat count in '{item}'"))?;
                if n > 1 << 24 {
                    return Err(format!("repeat count too large in '{item}'"));
                }
                out.extend(vec![parse_word(w)?; n]);
            }
            None => out.push(parse_word(item)?),
        }
    }
    Ok(out)
}

fn parse_triple(s: &str) -> Result<[u32; 3], String> {
    let v: Vec<u32> = s
        .split(',')
        .map(|x| {
            x.trim()
                .parse::<u32>()
                .map_err(|_| format!("bad size '{s}'"))
        })
        .collect::<Result<_, _>>()?;
    match v.as_slice() {
        [x] => Ok([*x, 1, 1]),
        [x, y] => Ok([*x, *y, 1]),
        [x, y, z] => Ok([*x, *y, *z]),
        _ => Err(format!("expected X[,Y[,Z]], found '{s}'")),
    }
}

/// Splits `k=v` items; values may be bracketed lists containing spaces.
fn items(s: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    let mut rest = s.trim();
    while !rest.is_empty() {
        let eq = rest
            .find('=')
            .ok_or_else(|| format!("expected key=value at '{rest}'"))?;
        let key = rest[..eq].trim().to_string();
        let after = rest[eq + 1..].trim_start();
        let (val, next) = if key == "trap" {
            // A trap message takes the rest of the line.
            (after.trim().to_string(), "")
        } else if let Some(inner) = after.strip_prefix('[') {
            let close = inner
                .find(']')
                .ok_or_else(|| format!("missing ']' after {key}="))?;
            (inner[..close].to_string(), &inner[close + 1..])
        } else {
            let end = after.find(char::is_whitespace).unwrap_or(after.len());
            (after[..end].to_string(), &after[end..])
        };
        out.push((key, val));
        rest = next.trim_start();
    }
    Ok(out)
}

impl RunDirective {
    /// Parses the text after `run:`.
    pub fn parse(text: &str) -> Result<RunDirective, String> {
        let (lhs, rhs) = text.split_once("=>").ok_or("a run directive needs '=>'")?;
        let mut d = RunDirective {
            grid: [1, 1, 1],
            group: None,
            schedules: vec![
                Schedule::LockStep,
                Schedule::Sequential,
                Schedule::Reverse,
                Schedule::Shuffled { seed: 1 },
            ],
            fuel: 10_000_000,
            inputs: Vec::new(),
            expect: Vec::new(),
            trap: None,
            lds_check: true,
        };
        for (k, v) in items(lhs)? {
            match k.as_str() {
                "grid" => d.grid = parse_triple(&v)?,
                "group" => d.group = Some(parse_triple(&v)?),
                "fuel" => d.fuel = v.parse().map_err(|_| format!("bad fuel '{v}'"))?,
                "lds_check" => {
                    d.lds_check = match v.as_str() {
                        "on" => true,
                        "off" => false,
                        _ => return Err(format!("lds_check is on or off, not '{v}'")),
                    }
                }
                "schedule" => {
                    d.schedules = match v.as_str() {
                        "all" => d.schedules.clone(),
                        "lockstep" => vec![Schedule::LockStep],
                        "sequential" => vec![Schedule::Sequential],
                        "reverse" => vec![Schedule::Reverse],
                        _ if v.starts_with("shuffled:") => {
                            let seed = v["shuffled:".len()..]
                                .parse()
                                .map_err(|_| format!("bad seed in '{v}'"))?;
                            vec![Schedule::Shuffled { seed }]
                        }
                        _ => return Err(format!("unknown schedule '{v}'")),
                    }
                }
                _ if is_buffer(&k) => d.inputs.push((k, parse_list(&v)?)),
                _ => return Err(format!("unknown run option '{k}'")),
            }
        }
        for (k, v) in items(rhs)? {
            match k.as_str() {
                "trap" => d.trap = Some(v),
                _ if is_buffer(&k) && !k.starts_with("cb") && !k.starts_with("srv") => {
                    d.expect.push((k, parse_list(&v)?))
                }
                _ => return Err(format!("cannot expect '{k}'")),
            }
        }
        if d.expect.is_empty() && d.trap.is_none() {
            return Err("a run directive must expect a buffer or a trap".into());
        }
        Ok(d)
    }

    /// Runs the directive against `func`.
    pub fn run(&self, func: &Function) -> Result<(), String> {
        for &schedule in &self.schedules {
            let mut mem = Memory::default();
            for (name, words) in &self.inputs {
                let bytes = words_to_bytes(words);
                if name == "g" {
                    mem.global = bytes;
                } else if let Some(id) = name.strip_prefix("uav") {
                    mem.uavs.insert(
                        id.parse().map_err(|_| format!("bad buffer '{name}'"))?,
                        bytes,
                    );
                } else if let Some(id) = name.strip_prefix("srv") {
                    mem.srvs.insert(
                        id.parse().map_err(|_| format!("bad buffer '{name}'"))?,
                        bytes,
                    );
                } else if let Some(id) = name.strip_prefix("cb") {
                    mem.cbs.insert(
                        id.parse().map_err(|_| format!("bad buffer '{name}'"))?,
                        bytes,
                    );
                }
            }
            let opts = InterpOptions {
                fuel: self.fuel,
                schedule,
            };
            let hooks = Hooks {
                check_lds_races: self.lds_check,
                ..Hooks::default()
            };
            let res = run_dispatch_with_hooks(
                func,
                &Dispatch {
                    grid: self.grid,
                    group_size: self.group,
                },
                &mut mem,
                &opts,
                &hooks,
            );
            match (&self.trap, res) {
                (Some(t), Err(e)) if e.to_string().contains(t.as_str()) => continue,
                (Some(t), Err(e)) => {
                    return Err(format!("{schedule:?}: expected trap '{t}', got: {e}"))
                }
                (Some(t), Ok(_)) => {
                    return Err(format!(
                        "{schedule:?}: expected trap '{t}', but the kernel finished"
                    ))
                }
                (None, Err(e)) => return Err(format!("{schedule:?}: trap: {e}")),
                (None, Ok(_)) => {}
            }
            for (name, want) in &self.expect {
                let got = if name == "g" {
                    bytes_to_words(&mem.global)
                } else {
                    let id: u8 = name[3..]
                        .parse()
                        .map_err(|_| format!("bad buffer '{name}'"))?;
                    bytes_to_words(mem.uavs.get(&id).map_or(&[][..], |v| v.as_slice()))
                };
                let got = &got[..want.len().min(got.len())];
                if got != want.as_slice() {
                    return Err(format!(
                        "{schedule:?}: {name} is {}, expected {}",
                        fmt_words(got),
                        fmt_words(want)
                    ));
                }
            }
        }
        Ok(())
    }
}

fn is_buffer(k: &str) -> bool {
    k == "g"
        || k.strip_prefix("uav")
            .or_else(|| k.strip_prefix("cb"))
            .or_else(|| k.strip_prefix("srv"))
            .is_some_and(|n| n.parse::<u8>().is_ok())
}

fn fmt_words(w: &[u32]) -> String {
    let items: Vec<String> = w.iter().map(|x| format!("{x:#x}")).collect();
    format!("[{}]", items.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_directive() {
        let d = RunDirective::parse(
            " grid=2 group=4,1 uav0=[1, -1, 1.5f, 0*3] cb1=[0x10] => uav0=[2, 3]",
        )
        .unwrap();
        assert_eq!(d.grid, [2, 1, 1]);
        assert_eq!(d.group, Some([4, 1, 1]));
        assert_eq!(d.inputs[0].1, vec![1, 0xFFFF_FFFF, 0x3FC0_0000, 0, 0, 0]);
        assert_eq!(d.inputs[1], ("cb1".to_string(), vec![16]));
        assert_eq!(d.expect, vec![("uav0".to_string(), vec![2, 3])]);
        assert!(RunDirective::parse("uav0=[1]").is_err());
        assert!(RunDirective::parse("uav0=[1] =>").is_err());
        assert!(RunDirective::parse("bogus=1 => uav0=[1]").is_err());
        assert!(RunDirective::parse("uav0=[x] => uav0=[1]").is_err());
        assert_eq!(
            RunDirective::parse("=> trap=fuel").unwrap().trap.as_deref(),
            Some("fuel")
        );
    }
}
