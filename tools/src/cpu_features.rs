//! The vector instructions this binary was compiled to use (`.cargo/config.toml` builds for
//! x86-64-v3) and whether the CPU running it has them: a CPU without them would otherwise
//! stop ptxemu at its first such instruction with "Illegal instruction" and no word why.

/// The features the build assumes that this CPU lacks (empty on other architectures, and for
/// a build made with other `RUSTFLAGS`).
pub fn missing() -> Vec<&'static str> {
    let mut missing = Vec::new();
    #[cfg(target_arch = "x86_64")]
    {
        if cfg!(target_feature = "avx2") && !std::arch::is_x86_feature_detected!("avx2") {
            missing.push("avx2");
        }
        if cfg!(target_feature = "fma") && !std::arch::is_x86_feature_detected!("fma") {
            missing.push("fma");
        }
        if cfg!(target_feature = "bmi2") && !std::arch::is_x86_feature_detected!("bmi2") {
            missing.push("bmi2");
        }
    }
    missing
}
