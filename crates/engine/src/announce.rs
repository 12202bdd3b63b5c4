//! The public announcements of a phase (the morning list, a day's outs, the badge, the
//! winner): only what the rule post publishes.

use crate::ctx::Ctx;
use crate::effects::public_counters;
use crate::state::Phase;

/// The public announcements of the phase: for a night, the outs in order and the 警长; for a
/// day, every out with its public cause and the badge.
pub(crate) fn announce(cx: &Ctx) -> Vec<String> {
    let mut v = Vec::new();
    match cx.input.moment.phase {
        Phase::Day => {
            for d in &cx.report.deaths {
                v.push(format!("{} 出局（{}）", d.player, d.cause));
            }
        }
        _ if cx.input.moment.day == 0 => {}
        _ => {
            if cx.report.deaths.is_empty() {
                v.push("昨夜无人出局".to_string());
            } else {
                let names: Vec<&str> = cx.report.deaths.iter().map(|d| d.player.as_str()).collect();
                v.push(format!("昨夜出局：{}", names.join("、")));
            }
            v.extend(public_counters(cx, ""));
        }
    }
    if let Some(lw) = &cx.rules.last_words {
        let with: Vec<&str> = cx
            .report
            .deaths
            .iter()
            .filter(|d| {
                let order = cx
                    .st
                    .player(&d.player)
                    .and_then(|p| p.out.as_ref())
                    .map_or(0, |o| o.order);
                order <= lw.count && !lw.not_causes.contains(&d.cause)
            })
            .map(|d| d.player.as_str())
            .collect();
        if !with.is_empty() {
            v.push(format!("有遗言：{}", with.join("、")));
        }
    }
    if cx.input.moment.phase == Phase::Day {
        for l in &cx.report.log {
            if l.text.contains("警长移交给") {
                v.push(l.text.clone());
            }
        }
    }
    if cx.input.moment.day > 0 || cx.input.moment.phase == Phase::Day {
        match &cx.st.sheriff {
            Some(s) if cx.st.player(s).is_some_and(|p| p.alive()) => {
                v.push(format!("当日警长：{s}"))
            }
            _ => {}
        }
    }
    match &cx.st.winner {
        Some(w) if w.is_empty() => v.push("所有阵营均已判负，游戏结束（无人胜利）".to_string()),
        Some(w) => v.push(format!("{} 胜利，游戏结束", w.join("、"))),
        None => {}
    }
    v
}
