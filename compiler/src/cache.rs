//! An optional in-memory compile cache for embedders (a driver JIT compiles the same kernels
//! again and again).
//!
//! Keyed by the source bytes and every option (the [`Options`] value itself, compared in
//! full on a hit, together with the full source, so a hash collision can never return the
//! wrong kernel). Bounded by the total size of the cached cubins and code; the least recently
//! used entries are evicted first. Thread-safe (one mutex; compilation itself runs outside
//! it, so two threads missing on the same kernel both compile it and the second insert wins,
//! which is harmless because compilation is deterministic). Counts hits, misses and
//! evictions.

use ilc_passes::FastHashMap as HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

use crate::{CompiledKernel, Compiler, Diagnostics, Options};

/// Counters of a [`CompileCache`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Lookups that found the kernel.
    pub hits: u64,
    /// Lookups that compiled it.
    pub misses: u64,
    /// Entries dropped to stay within the size bound.
    pub evictions: u64,
    /// Entries held now.
    pub entries: u64,
    /// Bytes held now (cubin + code + assembly of every entry).
    pub bytes: u64,
}

struct Entry {
    source: Vec<u8>,
    options: Options,
    kernel: Arc<CompiledKernel>,
    bytes: u64,
    last_used: u64,
}

#[derive(Default)]
struct Inner {
    entries: HashMap<u64, Vec<Entry>>,
    clock: u64,
    stats: CacheStats,
}

/// A bounded, thread-safe cache of compiled kernels.
pub struct CompileCache {
    capacity: u64,
    inner: Mutex<Inner>,
}

fn key(source: &[u8], options: &Options) -> u64 {
    // SipHash with fixed keys: deterministic across runs and processes.
    let mut h = DefaultHasher::new();
    source.hash(&mut h);
    options.hash(&mut h);
    h.finish()
}

fn size_of(k: &CompiledKernel) -> u64 {
    (k.cubin.len()
        + k.code.len() * 8
        + k.insts.len() * std::mem::size_of::<(isa_spa5::Inst, isa_spa5::Control)>()) as u64
}

impl CompileCache {
    /// A cache holding at most `capacity_bytes` of compiled output.
    pub fn new(capacity_bytes: u64) -> CompileCache {
        CompileCache {
            capacity: capacity_bytes,
            inner: Mutex::new(Inner::default()),
        }
    }

    /// The counters.
    pub fn stats(&self) -> CacheStats {
        self.lock().stats
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock cannot leave the map inconsistent (every update
        // is a single insert/remove), so a poisoned lock is still usable.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The kernel for `source` compiled by `compiler`: from the cache, or compiled and
    /// inserted. Errors are not cached.
    pub fn compile(
        &self,
        compiler: &Compiler,
        source: &[u8],
    ) -> Result<Arc<CompiledKernel>, Diagnostics> {
        let options = compiler.options();
        let k = key(source, options);
        {
            let mut g = self.lock();
            g.clock += 1;
            let now = g.clock;
            let found = g.entries.get_mut(&k).and_then(|list| {
                list.iter_mut()
                    .find(|e| e.source == source && &e.options == options)
                    .map(|e| {
                        e.last_used = now;
                        Arc::clone(&e.kernel)
                    })
            });
            if let Some(kernel) = found {
                g.stats.hits += 1;
                return Ok(kernel);
            }
            g.stats.misses += 1;
        }
        let kernel = Arc::new(compiler.compile(source)?);
        let bytes = size_of(&kernel) + source.len() as u64;
        if bytes > self.capacity {
            return Ok(kernel);
        }
        let mut g = self.lock();
        g.clock += 1;
        let now = g.clock;
        // Evict least recently used entries until the new one fits.
        while g.stats.bytes + bytes > self.capacity {
            let oldest = g
                .entries
                .iter()
                .flat_map(|(k, list)| {
                    list.iter()
                        .enumerate()
                        .map(move |(i, e)| (e.last_used, *k, i))
                })
                .min();
            let Some((_, ok, oi)) = oldest else {
                break;
            };
            if let Some(list) = g.entries.get_mut(&ok) {
                let e = list.remove(oi);
                if list.is_empty() {
                    g.entries.remove(&ok);
                }
                g.stats.bytes -= e.bytes;
                g.stats.entries -= 1;
                g.stats.evictions += 1;
            }
        }
        let list = g.entries.entry(k).or_default();
        if !list
            .iter()
            .any(|e| e.source == source && &e.options == options)
        {
            list.push(Entry {
                source: source.to_vec(),
                options: options.clone(),
                kernel: Arc::clone(&kernel),
                bytes,
                last_used: now,
            });
            g.stats.bytes += bytes;
            g.stats.entries += 1;
        }
        Ok(kernel)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::OptLevel;

    const SRC: &[u8] = include_bytes!("../../tests/examples/saxpy.il");

    #[test]
    fn hits_misses_and_options_in_the_key() {
        let cache = CompileCache::new(1 << 20);
        let c2 = Compiler::default();
        let a = cache.compile(&c2, SRC).unwrap();
        let b = cache.compile(&c2, SRC).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        let c0 = Compiler::new(Options {
            opt_level: OptLevel::O0,
            ..Options::default()
        });
        let c = cache.compile(&c0, SRC).unwrap();
        assert!(!Arc::ptr_eq(&a, &c), "different options, different entry");
        let s = cache.stats();
        assert_eq!((s.hits, s.misses, s.entries), (1, 2, 2));
        assert!(cache.compile(&c2, b"not il").is_err());
        assert_eq!(cache.stats().entries, 2, "errors are not cached");
    }

    #[test]
    fn size_bound_evicts_least_recently_used() {
        let one = size_of(&Compiler::default().compile(SRC).unwrap()) + SRC.len() as u64;
        let cache = CompileCache::new(one + one / 2);
        let levels = [OptLevel::O2, OptLevel::O1];
        for l in levels {
            let c = Compiler::new(Options {
                opt_level: l,
                ..Options::default()
            });
            cache.compile(&c, SRC).unwrap();
        }
        let s = cache.stats();
        assert_eq!(s.entries, 1);
        assert_eq!(s.evictions, 1);
        assert!(s.bytes <= one + one / 2);
    }
}
