//! Built-in device functions that CUDA's runtime provides and PTX declares `.extern`:
//! `vprintf` (formatted as CUDA's `printf` formats, i.e. as C's), `malloc`/`free` on a device
//! heap, and `__assertfail` (a fault carrying the assertion's text).
//!
//! `vprintf(format, args)` receives a generic pointer to the format string and one to a
//! buffer holding the arguments, each aligned to its own size: 4-byte integers (`char` and
//! `short` are promoted), 8-byte `long`/`long long`/pointers, and 8-byte doubles (`float` is
//! promoted).
//!
//! Deliberate deviations:
//! 1. `vprintf` returns the number of characters written rather than CUDA's count of
//!    arguments (CUDA documents the return value as implementation-defined across versions).

use super::fault::{FaultKind, LaneFault};
use super::launch::CtaOutput;
use super::memory::{window_of, GlobalMemory, Window};
use super::program::Builtin;
use super::warp::Warp;
use super::Env;

mod printf;

use printf::{format_printf, ArgReader};

/// Reads bytes through a generic (or global) address for one lane.
fn read_generic(
    global: &GlobalMemory,
    warp: &Warp,
    lane: usize,
    addr: u64,
    len: usize,
) -> Result<Vec<u8>, LaneFault> {
    let bad = |addr: u64| LaneFault {
        kind: FaultKind::OutOfBounds {
            space: "generic".into(),
            size: 1,
            detail: "a built-in function read past valid memory".into(),
        },
        lane: Some(lane as u32),
        address: Some(addr),
    };
    let mut out = Vec::with_capacity(len);
    for i in 0..len as u64 {
        let a = addr.wrapping_add(i);
        let b = match window_of(a) {
            Window::Local(off) => {
                let m = &warp.local[lane].data;
                *m.get(off as usize).ok_or_else(|| bad(a))?
            }
            Window::Global(g) => {
                let r = global.find(g, 1).ok_or_else(|| bad(a))?;
                r.load(g, 1) as u8
            }
            Window::Shared(_) | Window::Const(_) | Window::Param(_) => return Err(bad(a)),
        };
        out.push(b);
    }
    Ok(out)
}

/// Reads a NUL-terminated string (at most 64 KiB) through a generic address.
fn read_cstr(
    global: &GlobalMemory,
    warp: &Warp,
    lane: usize,
    addr: u64,
) -> Result<String, LaneFault> {
    let mut bytes = Vec::new();
    for i in 0..65536u64 {
        let b = read_generic(global, warp, lane, addr.wrapping_add(i), 1)?[0];
        if b == 0 {
            break;
        }
        bytes.push(b);
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Calls a built-in for one lane with its argument values; returns its return value.
///
/// # Errors
/// Bad pointers passed to the built-in, an invalid `free`, or a failed assertion.
pub fn call(
    b: Builtin,
    args: &[u64],
    warp: &mut Warp,
    lane: usize,
    env: &Env<'_>,
    out: &mut CtaOutput,
) -> Result<u64, LaneFault> {
    let arg = |i: usize| args.get(i).copied().unwrap_or(0);
    match b {
        Builtin::Vprintf => {
            let fmt = read_cstr(env.global, warp, lane, arg(0))?;
            let argbuf = arg(1);
            let mut reader = ArgReader {
                global: env.global,
                warp,
                lane,
                addr: argbuf,
                pos: 0,
            };
            let text = format_printf(&fmt, &mut reader)?;
            out.stdout.extend_from_slice(text.as_bytes());
            Ok(text.len() as u64)
        }
        Builtin::Malloc => Ok(env.heap.malloc(arg(0))),
        Builtin::Free => {
            if env.heap.free(arg(0)) {
                Ok(0)
            } else {
                Err(LaneFault {
                    kind: FaultKind::Undefined {
                        detail: "free() of a pointer that malloc() did not return (or freed twice)"
                            .into(),
                    },
                    lane: Some(lane as u32),
                    address: Some(arg(0)),
                })
            }
        }
        Builtin::AssertFail => {
            let message = read_cstr(env.global, warp, lane, arg(0))?;
            let file = read_cstr(env.global, warp, lane, arg(1))?;
            let line = arg(2) as u32;
            let function = read_cstr(env.global, warp, lane, arg(3))?;
            let t = [
                warp.ids.tid[0][lane],
                warp.ids.tid[1][lane],
                warp.ids.tid[2][lane],
            ];
            Err(LaneFault {
                kind: FaultKind::AssertFailed {
                    message: format!(
                        "{file}:{line}: {function}: thread: [{},{},{}] Assertion `{message}` failed.",
                        t[0], t[1], t[2]
                    ),
                },
                lane: Some(lane as u32),
                address: None,
            })
        }
    }
}
