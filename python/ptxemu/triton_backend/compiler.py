"""ptxemu's Triton compiler: NVIDIA's stages up to PTX.

The target is a ``GPUTarget("cuda", CC, 32)``, as a real GPU's, so ``tl.target_info.is_cuda()``,
``cuda_capability_geq`` and Triton's own target checks (native TMA, warp specialisation) fold
as they would on the GPU and the kernel takes the path it takes there. Two compilers must not
claim one target (``make_backend`` refuses that): this one claims ``cuda`` targets only while
ptxemu's driver is the active one, and NVIDIA's compiler is then withdrawn from Triton's list
(`_claim.take_cuda`). With NVIDIA's driver active, nothing changes.

Deviations from NVIDIA's compiler:

1. the ``cubin`` stage is dropped (``binary_ext = "ptx"``): the PTX is what runs;
2. ``hash()`` does not run ``ptxas --version``: it names ptxemu and the PTX version;
3. ``ptx_version`` defaults to what Triton 3.9's bundled ptxas would give (8.8 below sm_90,
   9.4 from sm_90), so the PTX is the one Triton makes on a GPU machine.
"""

from triton.backends.nvidia import compiler as _nv

from . import _claim

#: The PTX version (as Triton counts it: 88 = 8.8) by compute capability, as Triton 3.9.0's
#: bundled ptxas (12.9 for sm_80, 13.4 from sm_90) makes NVIDIA's compiler choose it.
def _default_ptx_version(capability):
    return 88 if capability < 90 else 94


class PtxemuBackend(_nv.CUDABackend):
    """NVIDIA's compiler up to PTX, for ptxemu."""

    @staticmethod
    def supports_target(target):
        return target.backend == "cuda" and _claim.cuda_is_ours()

    def __init__(self, target):
        super().__init__(target)
        self.binary_ext = "ptx"

    def hash(self):
        return f"ptxemu-ptx{_default_ptx_version(self.target.arch)}-{self.target.arch}"

    def parse_options(self, opts):
        opts = dict(opts)
        if opts.get("ptx_version") is None:
            opts["ptx_version"] = _default_ptx_version(self.target.arch)
        return super().parse_options(opts)

    def add_stages(self, stages, options, language):
        super().add_stages(stages, options, language)
        stages.pop("cubin", None)
