//! Kernels shared by the tcgen05 interpreter tests: a kernel whose warp 0 allocates Tensor
//! Memory around a body, and the fault a body raises.

#![allow(dead_code)]

use crate::exec_common::{launch, zeros, Outcome};

pub const HEADER: &str = ".version 8.8\n.target sm_100a\n.address_size 64\n";

/// A kernel `k(out)` whose body runs after warp 0 allocated `ncols` columns, with the address
/// in `%r2`, `%r5` = tid.x, `%r6` = linear warp index, and `%rd1` = the global `out`; the
/// epilogue (run by every warp) deallocates.
pub fn kernel(ncols: u32, body: &str) -> String {
    format!(
        "{HEADER}.visible .entry k(.param .u64 out)
{{
  .reg .pred %p<8>;
  .reg .b32 %r<320>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b32 slot;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, slot;
  mov.u32 %r5, %tid.x;
  shr.u32 %r6, %r5, 5;
  setp.eq.u32 %p7, %r6, 0;
  @!%p7 bra ALLOCATED;
  tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], {ncols};
ALLOCATED:
  bar.sync 0;
  ld.shared.u32 %r2, [slot];
{body}
  bar.sync 0;
  @!%p7 bra DONE;
  tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, {ncols};
DONE:
  ret;
}}
"
    )
}

/// The vector `{%rA, %rA+1, …}` of `n` registers.
pub fn regs(first: u32, n: u32) -> String {
    let v: Vec<String> = (first..first + n).map(|r| format!("%r{r}")).collect();
    format!("{{{}}}", v.join(", "))
}

/// Runs `body` in a kernel of `threads` threads and returns the fault's text.
pub fn fault_of(threads: u32, ncols: u32, body: &str) -> (Outcome, String) {
    let o = launch(
        &kernel(ncols, body),
        "k",
        [1, 1, 1],
        [threads, 1, 1],
        vec![zeros(64)],
    );
    let text = o.fault().to_string();
    (o, text)
}
