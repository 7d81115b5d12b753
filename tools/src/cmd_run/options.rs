//! The options of a run: flags refused for the other instruction set or a plan, and the
//! limits, checks and models every launch shares ([`Checks`]).

use anyhow::Result;
use emu::exec::LaunchConfig;

use super::RunArgs;
use crate::launch;

/// The flags only the other instruction set, or only a single launch, takes: given here,
/// they are refused rather than ignored.
pub(super) fn foreign_flags(a: &RunArgs) -> Result<()> {
    let o = &a.sass;
    let sass_only = [
        ("--strict", o.strict),
        ("--strict-align", o.strict_align),
        ("--check-uniform", o.check_uniform),
        ("--shared-window", o.shared_window.is_some()),
        ("--local-window", o.local_window.is_some()),
        ("--registers", o.registers.is_some()),
    ];
    let ptx_only = [
        ("--kernel", a.kernel.is_some()),
        ("--gpu", a.gpu.is_some()),
        ("--set", !a.sets.is_empty()),
        ("--dump-var", !a.dump_vars.is_empty()),
        ("--plan", a.plan.is_some()),
        ("--cluster", a.cluster.is_some()),
        ("--shared-bytes", a.shared_bytes.is_some()),
        ("--threads", a.threads.is_some()),
        ("--check-nc", a.check_nc),
        ("--cache-model", a.cache_model.is_some()),
        ("--sms", a.sms.is_some()),
        ("--l1-lines", a.l1_lines.is_some()),
        ("--trace-tmem", a.trace_tmem),
        ("--tmem-check", a.tmem_check.is_some()),
        ("--proxy-check", a.proxy_check.is_some()),
        ("--wgmma-check", a.wgmma_check.is_some()),
        ("--race", a.race.race),
        ("--max-call-depth", a.max_call_depth.is_some()),
        ("--buffer", !a.buffers.is_empty()),
        ("--try-cancel", a.try_cancel.is_some()),
        ("--resident-ctas", a.resident_ctas.is_some()),
    ];
    let single_only = [
        ("--buffer", !a.buffers.is_empty()),
        ("--kernel", a.kernel.is_some()),
        ("--grid", a.grid.is_some()),
        ("--block", a.block.is_some()),
        ("--cluster", a.cluster.is_some()),
        ("--arg", !a.args.is_empty()),
        ("--dump", !a.dumps.is_empty()),
        ("--set", !a.sets.is_empty()),
        ("--dump-var", !a.dump_vars.is_empty()),
        ("--shared-bytes", a.shared_bytes.is_some()),
    ];
    let given = |flags: &[(&'static str, bool)]| -> Vec<&'static str> {
        flags.iter().filter(|(_, g)| *g).map(|(f, _)| *f).collect()
    };
    let (foreign, why) = match a.isa.as_str() {
        "ptx" if a.plan.is_some() => (
            given(&sass_only)
                .into_iter()
                .chain(given(&single_only))
                .collect(),
            "a plan gives its launches' settings, and SASS options need --isa sass",
        ),
        "ptx" => (given(&sass_only), "SASS options need --isa sass"),
        "sass" => (given(&ptx_only), "they are options of PTX runs"),
        other => {
            return Err(launch::refuse(
                "options",
                format!("--isa `{other}`: expected ptx or sass"),
            ))
        }
    };
    if !foreign.is_empty() {
        return Err(launch::refuse(
            "options",
            format!(
                "a {} run does not take {}: {why}",
                if a.plan.is_some() {
                    "--plan".to_string()
                } else {
                    a.isa.to_uppercase()
                },
                foreign.join(", ")
            ),
        ));
    }
    Ok(())
}

/// The run options every launch of a run shares (limits, checks, models).
pub(crate) struct Checks {
    max_steps: u64,
    threads: usize,
    check_nc: bool,
    l1: Option<(u32, usize)>,
    tmem: emu::tcgen05::memory::TmemOptions,
    /// `--trace-tmem`.
    pub trace_tmem: bool,
    proxy_check: bool,
    wgmma_strict: bool,
    timeout: Option<std::time::Duration>,
    max_call_depth: Option<u32>,
    cancel: emu::cluster_launch::control::CancelPolicy,
    device: emu::exec::DeviceLimits,
}

impl Checks {
    /// The options `a` gives.
    ///
    /// # Errors
    /// An unknown cache model or Tensor Memory check setting.
    pub fn of(a: &RunArgs) -> Result<Checks> {
        let gpu_sms = a.gpu.map(crate::difftest::record::Gpu::sms);
        let sms = a.sms.or(gpu_sms);
        if sms == Some(0) {
            return Err(launch::refuse(
                "options",
                "--sms 0: a GPU has at least one SM",
            ));
        }
        if a.resident_ctas == Some(0) {
            return Err(launch::refuse(
                "options",
                "--resident-ctas 0: at least one CTA runs",
            ));
        }
        let device = emu::exec::DeviceLimits {
            sms: sms.unwrap_or(emu::exec::DeviceLimits::GENERIC.sms),
            max_shared_per_cta: a.gpu.map_or(
                emu::exec::DeviceLimits::GENERIC.max_shared_per_cta,
                crate::difftest::record::Gpu::max_shared_per_cta,
            ),
            resident_ctas: a.resident_ctas,
        };
        let cancel = match a.try_cancel.as_deref() {
            None => emu::cluster_launch::control::CancelPolicy::default(),
            Some(t) => emu::cluster_launch::control::CancelPolicy::parse(t)
                .map_err(|e| launch::refuse("options", format!("--try-cancel {e}")))?,
        };
        let l1 = match a.cache_model.as_deref().unwrap_or("coherent") {
            "coherent" => None,
            "l1" => Some((sms.unwrap_or(4).max(1), a.l1_lines.unwrap_or(256).max(1))),
            other => {
                return Err(launch::refuse(
                    "options",
                    format!("--cache-model `{other}`: expected coherent or l1"),
                ))
            }
        };
        let (checked, fence) = match a.tmem_check.as_deref().unwrap_or("on") {
            "on" => (true, false),
            "strict" => (true, true),
            "off" => (false, false),
            other => {
                return Err(launch::refuse(
                    "options",
                    format!("--tmem-check `{other}`: expected on, strict or off"),
                ))
            }
        };
        let proxy_check = match a.proxy_check.as_deref().unwrap_or("on") {
            "on" => true,
            "off" => false,
            other => {
                return Err(launch::refuse(
                    "options",
                    format!("--proxy-check `{other}`: expected on or off"),
                ))
            }
        };
        let wgmma_strict = match a.wgmma_check.as_deref().unwrap_or("on") {
            "on" => false,
            "strict" => true,
            other => {
                return Err(launch::refuse(
                    "options",
                    format!("--wgmma-check `{other}`: expected on or strict"),
                ))
            }
        };
        let tmem = emu::tcgen05::memory::TmemOptions {
            checked,
            trace: a.trace_tmem,
            fence,
        };
        Ok(Checks {
            max_steps: a.max_steps,
            threads: a.threads.unwrap_or(0),
            check_nc: a.check_nc,
            l1,
            tmem,
            trace_tmem: a.trace_tmem,
            proxy_check,
            wgmma_strict,
            timeout: crate::timeout::duration(a.timeout),
            max_call_depth: a.max_call_depth,
            cancel,
            device,
        })
    }

    /// `--timeout`.
    pub fn timeout(&self) -> Option<std::time::Duration> {
        self.timeout
    }

    /// The configuration of one launch.
    pub fn config(
        &self,
        kernel: &str,
        grid: [u32; 3],
        block: [u32; 3],
        shared: u32,
    ) -> LaunchConfig {
        let mut cfg = LaunchConfig::new(kernel, grid, block);
        cfg.dynamic_shared = shared;
        self.apply(cfg)
    }

    /// `cfg` (a launch's own kernel, shapes, cluster and shared bytes) with these checks and
    /// budgets set on it; nothing the launch itself names is replaced.
    pub fn apply(&self, mut cfg: LaunchConfig) -> LaunchConfig {
        cfg.max_steps = self.max_steps;
        cfg.threads = self.threads;
        cfg.check_nc = self.check_nc;
        cfg.l1 = self.l1;
        cfg.tmem = self.tmem;
        cfg.proxy_check = self.proxy_check;
        cfg.wgmma_strict = self.wgmma_strict;
        cfg.timeout = self.timeout;
        if let Some(d) = self.max_call_depth {
            cfg.max_call_depth = d;
        }
        cfg.try_cancel = self.cancel;
        cfg.device = self.device;
        cfg
    }
}
