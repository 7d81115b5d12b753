//! The launch shapes CUDA accepts, shared by the PTX and SASS interpreters: 1 to 1024 threads
//! per CTA, at most 1024x1024x64 per dimension, and a grid of 1 to (2^31-1)x65535x65535 CTAs
//! (all architectures since sm_30); and the CTA shape a kernel's `.reqntid` and `.maxntid`
//! directives allow (PTX ISA "Performance-Tuning Directives": `.reqntid` gives the CTA's
//! exact shape, `.maxntid` the most threads it may have).

use crate::ir::PerfDirective;

/// Why a launch of `grid` CTAs of `block` threads is refused, if it is.
pub fn launch_shape_error(grid: [u32; 3], block: [u32; 3]) -> Option<String> {
    let threads: u64 = block.iter().map(|&x| u64::from(x)).product();
    let [bx, by, bz] = block;
    let [gx, gy, gz] = grid;
    if threads == 0 || threads > 1024 {
        return Some(format!(
            "a CTA must have 1 to 1024 threads; {bx}x{by}x{bz} has {threads}"
        ));
    }
    if bx > 1024 || by > 1024 || bz > 64 {
        return Some(format!(
            "a CTA is at most 1024x1024x64 threads per dimension; {bx}x{by}x{bz} is not"
        ));
    }
    if gx == 0 || gy == 0 || gz == 0 {
        return Some(format!("the grid has no CTA ({gx}x{gy}x{gz})"));
    }
    if gx > i32::MAX as u32 || gy > 65535 || gz > 65535 {
        return Some(format!(
            "a grid is at most 2147483647x65535x65535 CTAs; {gx}x{gy}x{gz} is not"
        ));
    }
    None
}

/// The shape `v` of a directive (`x[, y[, z]]`, missing dimensions 1).
fn dims(v: &[u32]) -> [u32; 3] {
    let mut d = [1u32; 3];
    for (k, x) in v.iter().take(3).enumerate() {
        d[k] = *x;
    }
    d
}

/// Why a CTA of `block` threads is refused by `kernel`'s `.reqntid` or `.maxntid`, if it is.
pub fn ntid_error(kernel: &str, perf: &[PerfDirective], block: [u32; 3]) -> Option<String> {
    let [bx, by, bz] = block;
    for p in perf {
        match p {
            PerfDirective::Reqntid(v) => {
                let want = dims(v);
                if want != block {
                    let [x, y, z] = want;
                    return Some(format!(
                        "kernel `{kernel}` declares .reqntid {x},{y},{z}: its CTA must be exactly {x}x{y}x{z} threads, not {bx}x{by}x{bz}"
                    ));
                }
            }
            PerfDirective::Maxntid(v) => {
                let most: u64 = dims(v).iter().map(|&x| u64::from(x)).product();
                let threads: u64 = block.iter().map(|&x| u64::from(x)).product();
                if threads > most {
                    return Some(format!(
                        "kernel `{kernel}` declares .maxntid {}: a CTA of at most {most} threads, not {bx}x{by}x{bz} ({threads})",
                        v.iter().map(ToString::to_string).collect::<Vec<_>>().join(",")
                    ));
                }
            }
            PerfDirective::Minnctapersm(_)
            | PerfDirective::Maxnctapersm(_)
            | PerfDirective::Maxnreg(_)
            | PerfDirective::Maxclusterrank(_)
            | PerfDirective::Reqnctapercluster(_)
            | PerfDirective::Explicitcluster
            | PerfDirective::Pragma(_)
            | PerfDirective::Blocksareclusters => {}
        }
    }
    None
}
