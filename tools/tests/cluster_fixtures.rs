//! Thread-block cluster kernels (`tests/fixtures/cluster/cluster.cu`, compiled by nvcc 13.5 for
//! sm_90a), run through `ptxemu run` and compared with numpy references (`ref.py`): a
//! distributed-shared-memory histogram, a cluster-wide reduction, neighbour rings over 2-D and
//! 1-D clusters, the cluster special registers, a producer/consumer pair through a peer CTA's
//! mbarrier, multicast tensor and bulk loads; and the refusals and faults (a shape that contradicts `.reqnctapercluster`, a grid
//! that is no whole number of clusters, a DSMEM access outside the peer's window, a cluster
//! barrier deadlock).

mod fixture_common;

use std::path::{Path, PathBuf};

fn dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/cluster")
        .join(name)
}

fn run(name: &str) {
    fixture_common::run_fixture_at(&dir(name), "../cluster.sm90a.ptx");
}

/// `cp.async.bulk.shared::cluster.shared::cta`: shared memory to a peer CTA's shared memory,
/// completing on the peer's mbarrier (hand-written PTX, its own `ref.py`).
#[test]
fn bulk_copy_into_a_peer_ctas_shared_memory() {
    fixture_common::run_fixture_at(&dir("bulk_peer"), "bulk_peer.ptx");
}

#[test]
fn dsmem_histogram() {
    run("hist");
}

#[test]
fn a_cluster_shape_contradicting_reqnctapercluster_is_refused() {
    run("hist_cluster_contradicts");
}

#[test]
fn a_grid_not_a_multiple_of_the_cluster_is_refused() {
    run("hist_grid_not_multiple");
}

#[test]
fn cluster_reduction_over_a_2x2_cluster() {
    run("reduce");
}

#[test]
fn neighbour_ring_2x2_clusters() {
    run("ring_2x2");
}

#[test]
fn neighbour_ring_4_cta_clusters() {
    run("ring_4");
}

#[test]
fn special_registers_2x2_clusters() {
    run("ids_2x2");
}

#[test]
fn special_registers_1x2x2_clusters() {
    run("ids_1x2x2");
}

#[test]
fn special_registers_without_a_cluster_shape() {
    run("ids_default");
}

#[test]
fn producer_consumer_through_a_peer_mbarrier() {
    run("peer_mbarrier");
}

#[test]
fn dsmem_access_outside_the_peer_window_faults() {
    run("dsmem_out_of_window");
}

#[test]
fn cluster_barrier_deadlock_names_the_ctas() {
    run("cluster_barrier_deadlock");
}

#[test]
fn multicast_tensor_and_bulk_loads_reach_every_cta_of_the_mask() {
    run("multicast");
}
