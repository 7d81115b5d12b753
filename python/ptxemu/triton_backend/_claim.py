"""Who compiles ``cuda`` targets: NVIDIA's compiler, or ptxemu's while ptxemu's driver is the
active one. Triton refuses a target two compilers claim, so activating ptxemu withdraws NVIDIA's
entry from ``triton.backends.backends`` (kept here, so that nothing else is lost)."""

_STATE = {"ours": False, "nvidia": None}


def cuda_is_ours():
    """Whether ptxemu's compiler claims ``cuda`` targets now."""
    return _STATE["ours"]


def take_cuda():
    """ptxemu's driver became active: its compiler claims ``cuda`` targets from now on."""
    import triton.backends as tb
    _STATE["ours"] = True
    nv = tb.backends.pop("nvidia", None)
    if nv is not None:
        _STATE["nvidia"] = nv
