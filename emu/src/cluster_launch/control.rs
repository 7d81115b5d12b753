//! Which clusters of a launch have started, and cluster launch control's cancellations (PTX
//! ISA "clusterlaunchcontrol.try_cancel"): the launch-wide state the grid scheduler and
//! `clusterlaunchcontrol.try_cancel` share.
//!
//! Clusters start in linear order ([`LaunchControl::start_next`]). A successful try_cancel
//! takes the next cluster that has not started, so that it never runs; every cluster is
//! either started or canceled exactly once, which is the ISA's promise that no two successful
//! responses name the same cluster and that a canceled cluster does not run.
//!
//! Whether a try_cancel succeeds is a choice the ISA leaves to the hardware ([`CancelPolicy`]):
//! by default it succeeds while a cluster remains unstarted, as hardware does; `Fail` makes
//! every request fail (every cluster then runs as launched); `Random` draws success or failure
//! for each request from a seed, the requesting CTA and how many requests that CTA made before,
//! so a run is replayed by its seed whatever the host threads' timing.
//!
//! Deliberate deviation: ptxemu starts clusters as host threads become free, so far fewer
//! clusters run at once than on a GPU with 132 or 148 SMs, and a successful cancellation is
//! far more likely than on hardware under the default policy; `Fail` and `Random` give the
//! other schedules.

use std::sync::atomic::{AtomicU64, Ordering};

/// Whether `clusterlaunchcontrol.try_cancel` succeeds when a cluster remains unstarted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CancelPolicy {
    /// Every request succeeds while some cluster has not started (as hardware does).
    #[default]
    Succeed,
    /// Every request fails.
    Fail,
    /// Each request succeeds or fails by a draw from this seed (and succeeds only while some
    /// cluster has not started).
    Random(u64),
}

impl CancelPolicy {
    /// Parses `succeed`, `fail` or `random:SEED`.
    ///
    /// # Errors
    /// Any other text, named.
    pub fn parse(s: &str) -> Result<CancelPolicy, String> {
        match s {
            "succeed" => Ok(CancelPolicy::Succeed),
            "fail" => Ok(CancelPolicy::Fail),
            _ => match s.strip_prefix("random:").map(str::parse::<u64>) {
                Some(Ok(seed)) => Ok(CancelPolicy::Random(seed)),
                _ => Err(format!(
                    "`{s}`: a try_cancel policy is succeed, fail or random:SEED (a number)"
                )),
            },
        }
    }

    /// The text [`CancelPolicy::parse`] reads back.
    pub fn name(self) -> String {
        match self {
            CancelPolicy::Succeed => "succeed".into(),
            CancelPolicy::Fail => "fail".into(),
            CancelPolicy::Random(s) => format!("random:{s}"),
        }
    }
}

/// The launch's clusters: which is next to start, and how many were canceled.
#[derive(Debug)]
pub struct LaunchControl {
    /// The lowest cluster index neither started nor canceled.
    next: AtomicU64,
    /// Clusters in the grid.
    clusters: u64,
    /// Successful cancellations.
    canceled: AtomicU64,
    policy: CancelPolicy,
}

impl LaunchControl {
    /// The state of a launch of `clusters` clusters.
    pub fn new(clusters: u64, policy: CancelPolicy) -> LaunchControl {
        LaunchControl {
            next: AtomicU64::new(0),
            clusters,
            canceled: AtomicU64::new(0),
            policy,
        }
    }

    /// Takes the next cluster to start, if any below `limit` remains.
    pub fn start_next(&self, limit: u64) -> Option<u64> {
        let end = self.clusters.min(limit);
        self.next
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < end).then_some(n + 1)
            })
            .ok()
    }

    /// One `clusterlaunchcontrol.try_cancel` of the CTA with linear index `cta`, its `nth`
    /// request: the cluster it cancels, or `None` when the request fails.
    pub fn try_cancel(&self, cta: u64, nth: u64) -> Option<u64> {
        let wants = match self.policy {
            CancelPolicy::Succeed => true,
            CancelPolicy::Fail => false,
            CancelPolicy::Random(seed) => draw(seed, cta, nth),
        };
        if !wants {
            return None;
        }
        let taken = self.start_next(u64::MAX)?;
        self.canceled.fetch_add(1, Ordering::Relaxed);
        Some(taken)
    }

    /// How many requests succeeded.
    pub fn canceled(&self) -> u64 {
        self.canceled.load(Ordering::Relaxed)
    }
}

/// A fair coin from (seed, cta, nth): SplitMix64's finaliser over their mix.
fn draw(seed: u64, cta: u64, nth: u64) -> bool {
    let mut z = seed
        .wrapping_add(cta.wrapping_mul(0x9E37_79B9_7F4A_7C15))
        .wrapping_add(nth.wrapping_mul(0xD1B5_4A32_D192_ED03));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) & 1 == 1
}

/// The 16-byte response of a try_cancel, in ptxemu's encoding (the ISA calls it opaque): the
/// first CTA's `%ctaid` x, y, z as three little-endian words, then a word whose upper half is
/// [`RESPONSE_TAG`] and whose bit 0 says the request succeeded.
pub fn encode_response(first_ctaid: Option<[u32; 3]>) -> [u8; 16] {
    let mut out = [0u8; 16];
    let c = first_ctaid.unwrap_or([0; 3]);
    for (k, v) in c.iter().enumerate() {
        out[4 * k..4 * k + 4].copy_from_slice(&v.to_le_bytes());
    }
    let word = (RESPONSE_TAG << 16) | u32::from(first_ctaid.is_some());
    out[12..16].copy_from_slice(&word.to_le_bytes());
    out
}

/// The upper half of a response's last word (so that bytes no try_cancel wrote are told
/// apart).
pub const RESPONSE_TAG: u32 = 0xC1C0;

/// A response read back from its two 64-bit halves: `Ok(Some(ctaid))` for a success,
/// `Ok(None)` for a failure.
///
/// # Errors
/// The bytes are no try_cancel response (their tag is missing).
pub fn decode_response(lo: u64, hi: u64) -> Result<Option<[u32; 3]>, String> {
    let word = (hi >> 32) as u32;
    if word >> 16 != RESPONSE_TAG || word & 0xfffe != 0 {
        return Err(format!(
            "0x{hi:016x}{lo:016x} is not a response clusterlaunchcontrol.try_cancel wrote"
        ));
    }
    Ok((word & 1 == 1).then_some([lo as u32, (lo >> 32) as u32, hi as u32]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cluster_starts_or_is_canceled_once() {
        let lc = LaunchControl::new(5, CancelPolicy::Succeed);
        assert_eq!(lc.start_next(u64::MAX), Some(0));
        assert_eq!(lc.try_cancel(0, 0), Some(1));
        assert_eq!(lc.start_next(u64::MAX), Some(2));
        assert_eq!(lc.try_cancel(0, 1), Some(3));
        assert_eq!(lc.try_cancel(2, 0), Some(4));
        assert_eq!(lc.try_cancel(2, 1), None);
        assert_eq!(lc.start_next(u64::MAX), None);
        assert_eq!(lc.canceled(), 3);
        let fail = LaunchControl::new(2, CancelPolicy::Fail);
        assert_eq!(fail.try_cancel(0, 0), None);
        assert_eq!(fail.start_next(1), Some(0));
        assert_eq!(fail.start_next(1), None, "the fault limit stops starts");
    }

    #[test]
    fn random_draws_depend_on_seed_cta_and_count_only() {
        let d: Vec<bool> = (0..64).map(|n| draw(7, 3, n)).collect();
        assert_eq!(d, (0..64).map(|n| draw(7, 3, n)).collect::<Vec<_>>());
        let ones = d.iter().filter(|&&b| b).count();
        assert!((16..=48).contains(&ones), "{ones}");
        assert_ne!(d, (0..64).map(|n| draw(8, 3, n)).collect::<Vec<_>>());
    }

    #[test]
    fn responses_round_trip_and_foreign_bytes_are_refused() {
        for r in [None, Some([3, 0, 0]), Some([7, 9, 11])] {
            let b = encode_response(r);
            let lo = u64::from_le_bytes(b[..8].try_into().unwrap());
            let hi = u64::from_le_bytes(b[8..].try_into().unwrap());
            assert_eq!(decode_response(lo, hi), Ok(r));
        }
        assert!(decode_response(0, 0).is_err());
        assert!(CancelPolicy::parse("random:x").is_err());
        assert_eq!(CancelPolicy::parse("random:5"), Ok(CancelPolicy::Random(5)));
        assert_eq!(CancelPolicy::parse("fail").unwrap().name(), "fail");
    }
}
