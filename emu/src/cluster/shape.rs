//! A launch's clusters (PTX ISA "Cluster of Cooperative Thread Arrays"): the cluster shape of
//! a launch, checked against the kernel's directives, and each CTA's place in its cluster.
//!
//! A launch's CTAs are grouped into clusters of `dims` CTAs (1×1×1 unless `--cluster` or the
//! kernel's `.reqnctapercluster` says otherwise).

use crate::ir::PerfDirective;

/// The most CTAs a cluster may have (sm_90's non-portable maximum; 8 is portable).
pub const MAX_CLUSTER_CTAS: u32 = 16;

/// A CTA's place in its cluster: the values of the cluster special registers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClusterIds {
    /// `%cluster_nctaid`: the cluster's shape in CTAs.
    pub dims: [u32; 3],
    /// `%cluster_ctaid`: the CTA's position in its cluster.
    pub ctaid: [u32; 3],
    /// `%clusterid`: the cluster's position in the grid.
    pub clusterid: [u32; 3],
    /// `%nclusterid`: the grid's shape in clusters.
    pub nclusterid: [u32; 3],
    /// `%cluster_ctarank`: the CTA's linear rank in its cluster (x fastest).
    pub rank: u32,
    /// `%cluster_nctarank`: CTAs per cluster.
    pub size: u32,
    /// `%is_explicit_cluster`: the launch gave a cluster shape.
    pub explicit: bool,
}

impl ClusterIds {
    /// The identity of CTA `ctaid` of a grid of `grid` CTAs in clusters of `dims`.
    pub fn of(ctaid: [u32; 3], grid: [u32; 3], dims: [u32; 3], explicit: bool) -> ClusterIds {
        let d = dims.map(|x| x.max(1));
        let c: [u32; 3] = std::array::from_fn(|i| ctaid[i] % d[i]);
        ClusterIds {
            dims: d,
            ctaid: c,
            clusterid: std::array::from_fn(|i| ctaid[i] / d[i]),
            nclusterid: std::array::from_fn(|i| grid[i] / d[i]),
            rank: c[0] + c[1] * d[0] + c[2] * d[0] * d[1],
            size: d[0] * d[1] * d[2],
            explicit,
        }
    }
}

/// The cluster directives of a kernel.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Directives {
    /// `.reqnctapercluster x, y, z`
    pub required: Option<[u32; 3]>,
    /// `.explicitcluster`
    pub explicit: bool,
    /// `.maxclusterrank n`
    pub max_rank: Option<u32>,
}

impl Directives {
    /// The cluster directives among a kernel's performance directives.
    pub fn of(perf: &[PerfDirective]) -> Directives {
        let mut d = Directives::default();
        for p in perf {
            match p {
                PerfDirective::Reqnctapercluster(v) => {
                    d.required = Some(std::array::from_fn(|i| v.get(i).copied().unwrap_or(1)));
                }
                PerfDirective::Explicitcluster => d.explicit = true,
                PerfDirective::Maxclusterrank(n) => d.max_rank = Some(*n),
                _ => {}
            }
        }
        d
    }
}

/// `(x,y,z)`, as fault sites write a CTA.
pub fn triple(v: [u32; 3]) -> String {
    format!("({},{},{})", v[0], v[1], v[2])
}

fn dims_text(d: [u32; 3]) -> String {
    format!("{}x{}x{}", d[0], d[1], d[2])
}

/// The cluster shape of a launch of `kernel` over `grid` CTAs, and whether it is explicit:
/// `requested` (`--cluster`), else the kernel's `.reqnctapercluster`, else 1×1×1.
///
/// # Errors
/// A shape that contradicts the kernel's directives, exceeds [`MAX_CLUSTER_CTAS`], or does not
/// divide the grid.
pub fn launch_shape(
    kernel: &str,
    requested: Option<[u32; 3]>,
    dirs: &Directives,
    grid: [u32; 3],
) -> Result<([u32; 3], bool), String> {
    if let (Some(r), Some(q)) = (requested, dirs.required) {
        if r != q {
            return Err(format!(
                "kernel `{kernel}` declares .reqnctapercluster {} but the launch asks for clusters of {}",
                dims_text(q),
                dims_text(r)
            ));
        }
    }
    let shape = requested.or(dirs.required);
    if dirs.explicit && shape.is_none() {
        return Err(format!(
            "kernel `{kernel}` declares .explicitcluster but the launch gives no cluster shape (--cluster X,Y,Z)"
        ));
    }
    let Some(dims) = shape else {
        return Ok(([1, 1, 1], false));
    };
    if dims.contains(&0) {
        return Err(format!(
            "cluster shape {} has a zero dimension",
            dims_text(dims)
        ));
    }
    let size = u64::from(dims[0]) * u64::from(dims[1]) * u64::from(dims[2]);
    if size > u64::from(MAX_CLUSTER_CTAS) {
        return Err(format!(
            "a cluster of {} has {size} CTAs; the most a cluster may have is {MAX_CLUSTER_CTAS}",
            dims_text(dims)
        ));
    }
    if let Some(m) = dirs.max_rank {
        if size > u64::from(m) {
            return Err(format!(
                "kernel `{kernel}` declares .maxclusterrank {m} but the launch asks for clusters of {} ({size} CTAs)",
                dims_text(dims)
            ));
        }
    }
    if (0..3).any(|i| !grid[i].is_multiple_of(dims[i])) {
        return Err(format!(
            "the grid {} is not a whole number of clusters of {}: each grid dimension must be a multiple of the cluster's",
            dims_text(grid),
            dims_text(dims)
        ));
    }
    Ok((dims, true))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identities_follow_the_isa() {
        // Grid 4x2, clusters 2x2: CTA (3,1) is (1,1) of cluster (1,0), rank 3.
        let ids = ClusterIds::of([3, 1, 0], [4, 2, 1], [2, 2, 1], true);
        assert_eq!(ids.ctaid, [1, 1, 0]);
        assert_eq!(ids.clusterid, [1, 0, 0]);
        assert_eq!(ids.nclusterid, [2, 1, 1]);
        assert_eq!((ids.rank, ids.size), (3, 4));
    }

    #[test]
    fn launch_shapes_are_checked() {
        let none = Directives::default();
        assert_eq!(
            launch_shape("k", None, &none, [4, 1, 1]),
            Ok(([1, 1, 1], false))
        );
        assert_eq!(
            launch_shape("k", Some([2, 1, 1]), &none, [4, 1, 1]),
            Ok(([2, 1, 1], true))
        );
        let e = launch_shape("k", Some([2, 1, 1]), &none, [3, 1, 1]).unwrap_err();
        assert!(e.contains("3x1x1") && e.contains("2x1x1"), "{e}");
        let req = Directives {
            required: Some([4, 1, 1]),
            ..Directives::default()
        };
        assert_eq!(
            launch_shape("k", None, &req, [8, 1, 1]),
            Ok(([4, 1, 1], true))
        );
        assert!(launch_shape("k", Some([2, 1, 1]), &req, [8, 1, 1])
            .unwrap_err()
            .contains(".reqnctapercluster 4x1x1"));
        let expl = Directives {
            explicit: true,
            ..Directives::default()
        };
        assert!(launch_shape("k", None, &expl, [8, 1, 1]).is_err());
        let max = Directives {
            max_rank: Some(2),
            ..Directives::default()
        };
        assert!(launch_shape("k", Some([4, 1, 1]), &max, [8, 1, 1]).is_err());
        assert!(launch_shape("k", Some([17, 1, 1]), &none, [17, 1, 1]).is_err());
    }
}
