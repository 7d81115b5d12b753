"""A multi-launch program: Rodinia bfs (tests/fixtures/public/rodinia_bfs), driven from Python
as its host loop does, checked against the numpy reference's outputs (ref.py, expected/)."""

import pathlib

import numpy as np

import ptxemu

BFS = pathlib.Path(__file__).resolve().parents[2] / "tests/fixtures/public/rodinia_bfs"


def load(name, dtype):
    return np.fromfile(BFS / name, dtype=dtype)


def test_bfs_levels():
    m = ptxemu.Module(BFS / "kernel.ptx")
    dev = ptxemu.Device()
    n = 2000
    nodes = dev.to_device(load("inputs/nodes.bin", np.int32))
    edges = dev.to_device(load("inputs/edges.bin", np.int32))
    mask = dev.to_device(load("inputs/first.bin", np.uint8))
    updating = dev.zeros(n, np.uint8)
    visited = dev.to_device(load("inputs/first.bin", np.uint8))
    cost = dev.to_device(load("inputs/cost.bin", np.int32))
    over = dev.zeros(1, np.uint8)
    k1 = m.get_function("_Z6KernelP4NodePiPbS2_S2_S1_i")
    k2 = m.get_function("_Z7Kernel2PbS_S_S_i")
    rounds = 0
    while True:
        over.copy_from_host(np.zeros(1, np.uint8))
        k1(4, 512, (nodes, edges, mask, updating, visited, cost, np.int32(n)))
        k2(4, 512, (mask, updating, visited, over, n))
        rounds += 1
        if not over.copy_to_host()[0]:
            break
        assert rounds < n
    assert rounds > 10  # many levels: memory persisted across all those launches
    assert np.array_equal(cost.copy_to_host(), load("expected/cost.bin", np.int32))
    assert np.array_equal(visited.copy_to_host(), load("expected/visited.bin", np.uint8))
