//! `ptxemu run --trace-tmem`: each tcgen05 instruction's register ↔ Tensor Memory moves, as
//! text (after the program's output) or as `tmem_trace` in `--json`.

use emu::exec::program::{Extra, Program};
use emu::tcgen05::trace::{TmemAction, TmemEvent, TmemMove};
use serde_json::{json, Value};

/// The line, the instruction's text and its vector's register names.
fn context(prog: &Program, pc: u32) -> (u32, &str, &[String]) {
    let (line, text) = prog
        .info
        .get(pc as usize)
        .map_or((0, ""), |i| (i.span.line, i.text.as_str()));
    let names = match prog.code.get(pc as usize).map(|d| &d.extra) {
        Some(Extra::Tmem(m)) => m.names.as_slice(),
        _ => &[],
    };
    (line, text, names)
}

fn register<'a>(names: &'a [String], m: &TmemMove) -> &'a str {
    names.get(m.reg as usize).map_or("?", String::as_str)
}

fn cells(m: &TmemMove) -> String {
    m.cells
        .iter()
        .map(|(l, c)| format!("({l},{c})"))
        .collect::<Vec<_>>()
        .join("+")
}

fn action_name(a: &TmemAction) -> &'static str {
    match a {
        TmemAction::Load { redvals: None } => "ld",
        TmemAction::Load { redvals: Some(_) } => "ld.red",
        TmemAction::Store => "st",
        TmemAction::Alloc { .. } => "alloc",
        TmemAction::Dealloc { .. } => "dealloc",
        TmemAction::Relinquish => "relinquish_alloc_permit",
        TmemAction::Shift { .. } => "shift",
        TmemAction::Mma { .. } => "mma",
        TmemAction::Commit { .. } => "commit",
        TmemAction::Copy { .. } => "cp",
    }
}

/// The trace as text: one block per instruction, one line per thread.
pub fn text(prog: &Program, events: &[TmemEvent]) -> String {
    let mut out = String::new();
    for e in events {
        let (line, instr, names) = context(prog, e.pc);
        out.push_str(&format!(
            "tcgen05 trace: CTA ({},{},{}), warp {}, line {line}: {instr}\n",
            e.cta[0], e.cta[1], e.cta[2], e.warp
        ));
        if let Some(t) = e.taddr {
            out.push_str(&format!(
                "  taddr 0x{t:08x} (lane {}, column {})\n",
                t >> 16,
                t & 0xFFFF
            ));
        }
        match &e.action {
            TmemAction::Alloc { ncols, column, dst } => out.push_str(&format!(
                "  allocated {ncols} columns from column {column}; stored 0x{column:08x} at shared address 0x{dst:x}\n"
            )),
            TmemAction::Dealloc { ncols, column } => {
                out.push_str(&format!("  freed {ncols} columns from column {column}\n"))
            }
            TmemAction::Relinquish => out.push_str("  gave up the permit to allocate\n"),
            TmemAction::Shift { lane, column } => out.push_str(&format!(
                "  moved lanes {lane}-{} down one row over columns {column}-{}\n",
                lane + 30,
                column + 7
            )),
            TmemAction::Mma {
                thread,
                shape: (m, n, k, kind),
                lanes,
                columns,
                accumulate,
            } => out.push_str(&format!(
                "  thread {thread}: MMA m{m}n{n}k{k} .kind::{kind} wrote D lanes {}-{} x columns {}-{}{}\n",
                lanes.0,
                lanes.1 - 1,
                columns.0,
                columns.1 - 1,
                if *accumulate { " (accumulated)" } else { "" }
            )),
            TmemAction::Commit { thread, mbar, mmas } => out.push_str(&format!(
                "  thread {thread}: committed {mmas} MMA(s) to the mbarrier at shared offset {mbar}\n"
            )),
            TmemAction::Copy {
                thread,
                shape,
                src,
                lanes,
                columns,
                cells,
            } => out.push_str(&format!(
                "  thread {thread}: copied .{shape} from shared address 0x{src:x}: wrote {cells} cells in lanes {}-{} x columns {}-{}\n",
                lanes.0,
                lanes.1.saturating_sub(1),
                columns.0,
                columns.1.saturating_sub(1)
            )),
            TmemAction::Load { .. } | TmemAction::Store => {}
        }
        let arrow = if matches!(e.action, TmemAction::Store) {
            "->"
        } else {
            "<-"
        };
        let mut k = 0;
        while k < e.moves.len() {
            let t = e.moves[k].thread;
            let parts: Vec<String> = e.moves[k..]
                .iter()
                .take_while(|m| m.thread == t)
                .map(|m| {
                    format!(
                        "{} {arrow} {} 0x{:08x}",
                        register(names, m),
                        cells(m),
                        m.value
                    )
                })
                .collect();
            k += parts.len();
            let red = match &e.action {
                TmemAction::Load { redvals: Some(r) } => r
                    .get(t as usize)
                    .map_or(String::new(), |v| format!("; redval 0x{v:08x}")),
                _ => String::new(),
            };
            out.push_str(&format!("  thread {t}: {}{red}\n", parts.join(", ")));
        }
    }
    out
}

/// The trace as JSON: one object per instruction.
pub fn json(prog: &Program, events: &[TmemEvent]) -> Value {
    let list: Vec<Value> = events
        .iter()
        .map(|e| {
            let (line, instr, names) = context(prog, e.pc);
            let moves: Vec<Value> = e
                .moves
                .iter()
                .map(|m| {
                    json!({
                        "thread": m.thread,
                        "register": register(names, m),
                        "cells": m.cells.iter().map(|(l, c)| [*l, *c]).collect::<Vec<_>>(),
                        "value": m.value,
                    })
                })
                .collect();
            let mut o = json!({
                "cta": e.cta,
                "warp": e.warp,
                "line": line,
                "instruction": instr,
                "action": action_name(&e.action),
                "taddr": e.taddr,
                "moves": moves,
            });
            match &e.action {
                TmemAction::Load { redvals: Some(r) } => o["redvals"] = json!(r),
                TmemAction::Alloc { ncols, column, dst } => {
                    o["ncols"] = json!(ncols);
                    o["column"] = json!(column);
                    o["dst"] = json!(format!("0x{dst:x}"));
                }
                TmemAction::Dealloc { ncols, column } => {
                    o["ncols"] = json!(ncols);
                    o["column"] = json!(column);
                }
                TmemAction::Shift { lane, column } => {
                    o["lane"] = json!(lane);
                    o["column"] = json!(column);
                }
                TmemAction::Mma {
                    thread,
                    shape,
                    lanes,
                    columns,
                    accumulate,
                } => {
                    o["thread"] = json!(thread);
                    o["shape"] = json!([shape.0, shape.1, shape.2]);
                    o["kind"] = json!(shape.3);
                    o["lanes"] = json!([lanes.0, lanes.1]);
                    o["columns"] = json!([columns.0, columns.1]);
                    o["accumulate"] = json!(accumulate);
                }
                TmemAction::Commit { thread, mbar, mmas } => {
                    o["thread"] = json!(thread);
                    o["mbar"] = json!(mbar);
                    o["mmas"] = json!(mmas);
                }
                TmemAction::Copy {
                    thread,
                    shape,
                    src,
                    lanes,
                    columns,
                    cells,
                } => {
                    o["thread"] = json!(thread);
                    o["shape"] = json!(shape);
                    o["src"] = json!(format!("0x{src:x}"));
                    o["lanes"] = json!([lanes.0, lanes.1]);
                    o["columns"] = json!([columns.0, columns.1]);
                    o["cells"] = json!(cells);
                }
                TmemAction::Load { redvals: None } | TmemAction::Store | TmemAction::Relinquish => {
                }
            }
            o
        })
        .collect();
    Value::Array(list)
}
