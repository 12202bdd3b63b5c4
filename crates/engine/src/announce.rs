//! The public announcements of a phase (the morning list, a day's outs, the badge, the
//! winner): only what the rule post publishes.

use crate::ctx::Ctx;
use crate::effects::public_counters;
use crate::state::Phase;

/// The public announcements of the phase: for a night, the outs in order and the 警长; for a
/// day, every out (see `day_out`) and the badge.
pub(crate) fn announce(cx: &Ctx) -> Vec<String> {
    let mut v = Vec::new();
    match cx.input.moment.phase {
        Phase::Day => {
            for d in &cx.report.deaths {
                v.push(day_out(cx, &d.player, &d.cause));
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

/// One out of a day: an out the day was given (`PhaseInput.outs`: the vote-out, a red card)
/// keeps its cause, which the day's result publishes anyway; an out the chain caused (灵散,
/// 最后一枪, 殉情…) is announced by name only, since its cause would name a role
/// (「游戏进行期间以任何方式出局的角色均不公示其身份」), unless the rule set publishes that
/// cause (`day_public_causes`).
fn day_out(cx: &Ctx, player: &str, cause: &str) -> String {
    let given = cx.input.outs.iter().any(|(p, c)| p == player && c == cause);
    if given || cx.rules.day_public_causes.iter().any(|c| c == cause) {
        format!("{player} 出局（{cause}）")
    } else {
        format!("{player} 出局")
    }
}
