//! What the daemon says at a day's 关门 (the result and the director's next step, read from
//! the tally it just wrote) and where the game's end comes from.

use std::path::Path;

use serde_json::Value;

use crate::config::Config;

/// The log line for a day whose reports were just written into `day_dir`: the tally's
/// result and what the director does next (confirm it into the timeline, resolve the
/// night that follows). Logs are English; names and the tally's reasons stay as written.
pub fn day_closed_message(cfg: &Config, day: u32, day_dir: &Path) -> String {
    let c = cfg.path.display();
    let tally: Option<Value> = std::fs::read(day_dir.join("tally.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    let Some(t) = tally else {
        return format!(
            "day {day} closed, but its tally was not written (see {}); fix the problem, delete DONE there and start again",
            day_dir.join("errors.txt").display()
        );
    };
    let o = &t["outcome"];
    let who = o["player"].as_str().unwrap_or("");
    let via = o["via"].as_str().unwrap_or("");
    let result = match o["kind"].as_str().unwrap_or("") {
        "eliminated" => format!("{who} is out ({via})"),
        "elected" => format!("{who} is elected 警长 ({via})"),
        _ => format!("no one is out ({via})"),
    };
    let night = next_night(cfg, day);
    format!(
        "day {day} closed: {result}; next: record it with `bansha tally --config {c} --day {day} --confirm`, then resolve night {night} with `bansha night --config {c} --night {night} --actions FILE`"
    )
}

/// The night after day `day`: the same number, or the next where nights come first
/// (`night_before_day`, 灵族杀).
fn next_night(cfg: &Config, day: u32) -> u32 {
    let before = cfg
        .rules_file()
        .ok()
        .and_then(|p| crate::rules::RuleSet::load(&p).ok())
        .and_then(|r| r.engine)
        .is_some_and(|e| e.night_before_day);
    if before { day + 1 } else { day }
}

/// The game's end in `bansha state --format json` (the engine's timeline as of the
/// writer's clock): the winner line, `None` while the game goes on.
pub fn winner_of_state(state: &Value) -> Option<String> {
    if state["game_over"].as_bool() != Some(true) {
        return None;
    }
    let winners: Vec<String> = match state["winner"].as_str() {
        Some(w) if !w.is_empty() => vec![w.to_string()],
        _ => Vec::new(),
    };
    Some(crate::night::render::winner_text(&winners))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_engine_winner_is_read_from_the_state_json() {
        let st = serde_json::json!({"game_over": true, "winner": "好人阵营"});
        assert_eq!(
            winner_of_state(&st).as_deref(),
            Some("好人阵营 胜利，游戏结束")
        );
        let draw = serde_json::json!({"game_over": true, "winner": null});
        assert!(winner_of_state(&draw).unwrap().contains("无人胜利"));
        assert_eq!(
            winner_of_state(&serde_json::json!({"game_over": false})),
            None
        );
    }
}
