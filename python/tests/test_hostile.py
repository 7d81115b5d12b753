"""Hostile input through the Python package (issue 38): sizes are checked before they are
allocated or read, shapes before they are multiplied, Ctrl-C stops a launch, and messages
show no raw control characters. Where an attack aborted the process before its fix, the test
runs it in a child Python under an address-space cap (`ulimit -v`), as a shared machine caps
it, and asserts an exception instead of a crash."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import ptxemu

CAP_KIB = 4 << 20  # 4 GiB of address space


def child(code, cap_kib=CAP_KIB, timeout=120, **popen):
    """Runs `code` in a child Python under `cap_kib` of address space; returns the process."""
    script = textwrap.dedent(code)
    cmd = ["sh", "-c", f'ulimit -v {cap_kib} && exec "$0" -c "$1"', sys.executable, script]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **popen)


def test_an_array_past_the_devices_limit_raises():
    dev = ptxemu.Device(memory_limit=1 << 20)
    assert dev.memory_limit == 1 << 20
    with pytest.raises(ptxemu.DeviceMemoryError) as e:
        dev.zeros(2 << 20, np.uint8)
    assert "2097152" in str(e.value) and "1048576" in str(e.value)
    assert isinstance(e.value, MemoryError)
    assert ptxemu.Device().memory_limit > 0  # the machine's memory by default


def test_an_array_the_host_refuses_raises_instead_of_aborting():
    # 17 GiB: past ptxemu's largest allocation (16 GiB); 8 GiB: under it and under the
    # machine's memory (the default limit), but past the 4 GiB address-space cap.
    for size in (17 * 2**30, 8 * 2**30):
        r = child(f"""
            import numpy as np, ptxemu
            try:
                ptxemu.Device().zeros({size}, np.uint8)
            except ptxemu.DeviceMemoryError as e:
                print("refused:", e)
        """)
        assert r.returncode == 0, r.stderr
        assert "refused:" in r.stdout and str(size) in r.stdout, r.stdout


SCRATCH_PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p, .param .u64 scratch)
{
  ret;
}
"""


def test_triton_scratch_past_the_cap_raises_instead_of_aborting():
    r = child(f"""
        import ptxemu, ptxemu.triton
        class Compiled:
            asm = {{"ptx": {SCRATCH_PTX!r}}}
            name = "k"
            metadata = {{"name": "k", "num_warps": 1, "shared": 0,
                         "global_scratch_size": 32 * 2**30, "profile_scratch_size": 0}}
        try:
            ptxemu.triton.launch(Compiled(), 1, 0)
        except ptxemu.DeviceMemoryError as e:
            print("refused:", e)
    """)
    assert r.returncode == 0, r.stderr
    assert "refused:" in r.stdout and "34359738368" in r.stdout, r.stdout


@pytest.mark.parametrize("call", [
    "ptxemu.Module('/dev/zero')",
    "ptxemu.litmus('/dev/zero')",
    "ptxemu.explain('/dev/zero')",
])
def test_endless_files_are_refused_before_they_are_read(call):
    start = time.monotonic()
    r = child(f"""
        import ptxemu
        try:
            {call}
        except ValueError as e:
            print("refused:", e)
    """, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "refused:" in r.stdout and "134217728" in r.stdout, r.stdout
    assert time.monotonic() - start < 30


def test_a_dtype_that_does_not_divide_a_variable_is_refused():
    m = ptxemu.Module(""".version 8.0
.target sm_90
.address_size 64
.global .u8 g[6] = {1, 2, 3, 4, 5, 6};
.visible .entry k() { ret; }
""")
    with pytest.raises(ValueError, match="not a whole number"):
        m.get_global("g", np.uint32)
    with pytest.raises(ValueError, match="more than"):
        m.get_global("g", np.uint32, shape=(2,))
    assert list(m.get_global("g", np.uint16)) == [0x0201, 0x0403, 0x0605]


@pytest.mark.parametrize("shape", [(-1, -1), -5, (2**40, 2**40), (2**62, 4), (3.5,), (True,)])
def test_negative_or_overflowing_shapes_are_refused(shape):
    dev = ptxemu.Device()
    with pytest.raises(ValueError, match="shape"):
        dev.zeros(shape, np.float32)


def test_ctrl_c_stops_a_long_launch_within_a_second():
    code = """
        import sys, time, ptxemu
        m = ptxemu.Module('''.version 8.0
        .target sm_90
        .address_size 64
        .visible .entry spin()
        {
          L: bra L;
        }
        ''')
        print("started", flush=True)
        try:
            m.get_function("spin")(64, 128, (), max_steps=10**15)
        except KeyboardInterrupt:
            print("interrupted", time.monotonic(), flush=True)
            sys.exit(7)
    """
    p = subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "started"
        time.sleep(1.5)
        sent = time.monotonic()
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
    finally:
        p.kill()
    assert p.returncode == 7, err
    took = float(out.split()[-1]) - sent
    assert took < 1.0, f"KeyboardInterrupt {took:.2f} s after Ctrl-C"


def test_messages_show_control_characters_escaped():
    with pytest.raises(ptxemu.PtxError) as e:
        ptxemu.Module(".version 8.0\n.target sm_90\n.address_size 64\n"
                      ".visible .entry k() { \x1b[2J\x07 ret; }\n", name="k\x1b.ptx")
    assert not any(c in str(e.value) for c in "\x1b\x07"), repr(str(e.value))
    with pytest.raises(ptxemu.LaunchError) as e:
        ptxemu.Module(".version 8.0\n.target sm_90\n.address_size 64\n"
                      ".visible .entry k() { ret; }\n").get_function("no\x1b]0;x\x07")
    assert not any(c in str(e.value) for c in "\x1b\x07"), repr(str(e.value))
