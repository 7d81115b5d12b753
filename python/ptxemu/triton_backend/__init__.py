"""ptxemu's Triton back end, found by Triton through the ``triton.backends`` entry point
``ptxemu`` (``pip install ptxemu`` registers it).

``compiler``: NVIDIA's own compilation stages up to PTX, for the target `ptxemu.triton.target()`
names (no ptxas, no GPU). ``driver``: the active driver when no GPU is present (or with
``TRITON_DEFAULT_BACKEND=ptxemu``); its launcher runs the PTX on ptxemu. Everything else that
``kernel[grid](...)`` does (specialisation, the kernel cache, constexprs, autotuning) stays
Triton's. docs/triton.md says how to use it.
"""
