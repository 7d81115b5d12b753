//! `--memory-limit BYTES`: a cap on the device memory one run holds in host memory (buffer
//! arguments, module variables, the device heap, and the shared and local memory of the CTAs
//! running at once). A run past it is refused before anything is allocated, with the total and
//! its biggest part named. The default is the machine's physical memory.

use anyhow::Result;

/// Reads `BYTES` with an optional binary suffix (`K`, `M`, `G`, `T`; `KiB`… and `KB`… read
/// the same), for clap.
pub fn bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, suffix) = t.split_at(digits);
    let shift = match suffix.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        "T" | "TB" | "TIB" => 40,
        _ => {
            return Err(format!(
                "`{s}`: expected a number of bytes with an optional K, M, G or T"
            ))
        }
    };
    num.parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(1u64 << shift))
        .ok_or_else(|| format!("`{s}`: expected a number of bytes with an optional K, M, G or T"))
}

/// The buffer arguments among `specs`, as parts of a run's memory.
pub fn buffer_parts(specs: &[crate::argspec::ArgSpec]) -> Vec<(String, u64)> {
    use crate::argspec::ArgSpec;
    let size = |s: &ArgSpec| match s {
        ArgSpec::Buffer { ty, count, .. } => Some((ty.size() as u64).saturating_mul(*count as u64)),
        _ => None,
    };
    specs
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            let b = match s {
                ArgSpec::TensorMap(t) => t.data.as_deref().and_then(size),
                other => size(other),
            }?;
            Some((format!("argument {i}"), b))
        })
        .collect()
}

/// The machine's physical memory (`MemTotal` of /proc/meminfo), if known.
pub fn machine_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The limit in force: `--memory-limit`, or the machine's memory.
pub fn limit(given: Option<u64>) -> Option<u64> {
    given.or_else(machine_memory)
}

/// Refuses (kind `memory`) when the parts total more than `limit`, naming the total, the
/// limit and the biggest part.
///
/// # Errors
/// The parts total more than the limit.
pub fn check(limit: Option<u64>, parts: &[(String, u64)]) -> Result<()> {
    let Some(limit) = limit else {
        return Ok(());
    };
    let total = parts.iter().fold(0u64, |t, (_, b)| t.saturating_add(*b));
    if total <= limit {
        return Ok(());
    }
    let (name, biggest) = parts
        .iter()
        .max_by_key(|(_, b)| *b)
        .cloned()
        .unwrap_or_default();
    Err(crate::launch::refuse(
        "memory",
        format!(
            "the run needs {total} bytes of device memory, more than the limit of {limit} \
             (--memory-limit raises it); the biggest part is {name}: {biggest} bytes"
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_sizes_with_suffixes_and_refuses_the_rest() {
        assert_eq!(bytes("4096"), Ok(4096));
        assert_eq!(bytes("3K"), Ok(3 << 10));
        assert_eq!(bytes("2m"), Ok(2 << 20));
        assert_eq!(bytes("5GiB"), Ok(5 << 30));
        assert_eq!(bytes("1T"), Ok(1 << 40));
        for bad in ["", "G", "-1", "1.5G", "1X", "99999999999T"] {
            assert!(bytes(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_total_past_the_limit_names_the_figures() {
        let parts = vec![
            ("argument 0".to_string(), 600),
            ("argument 1".to_string(), 500),
        ];
        assert!(check(Some(1100), &parts).is_ok());
        assert!(check(None, &parts).is_ok());
        let e = format!("{:#}", check(Some(1000), &parts).unwrap_err());
        assert!(
            e.contains("needs 1100 bytes") && e.contains("limit of 1000"),
            "{e}"
        );
        assert!(e.contains("argument 0: 600 bytes"), "{e}");
    }
}
