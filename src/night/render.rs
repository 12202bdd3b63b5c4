//! What the director reads: a phase's result as notes (text), JSON (contract), or the
//! morning 公示 plus one private block per player (bbcode); the grimoire (`state`).

use bansha_engine::{EngineRules, GameState, Outcome, Prompt};
use serde::Serialize;

use crate::report::bbcode_escape as esc;

#[derive(Debug, Serialize)]
pub struct DeathJson {
    pub player: String,
    pub cause: String,
    pub via: Option<String>,
    pub step: String,
    pub clause: String,
}

#[derive(Debug, Serialize)]
pub struct FeedbackJson {
    pub player: String,
    pub text: String,
}

#[derive(Debug, Serialize)]
pub struct ReleaseJson {
    pub at: Option<String>,
    pub player: String,
    pub text: String,
}

/// `bansha night --format json` (contract keys first; more follow).
#[derive(Debug, Serialize)]
pub struct PhaseJson {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub night: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub day: Option<u32>,
    pub deaths: Vec<DeathJson>,
    pub feedback: Vec<FeedbackJson>,
    pub announcements: Vec<String>,
    pub winner: Option<String>,
    /// True once the game is over (with `winner` null: every camp was defeated).
    pub game_over: bool,
    pub camps_lost: Vec<String>,
    /// Players of an individual camp (独立阵营) who lost this phase, each alone.
    pub losers: Vec<String>,
    /// The feedback in the order it is released, with its checkpoint (关门后15分…) when the
    /// rule set has them.
    pub releases: Vec<ReleaseJson>,
    pub seed: u64,
    pub draws: Vec<String>,
    pub notes: Vec<bansha_engine::LogEntry>,
    /// Later phases this result made stale (to resolve again).
    pub stale: Vec<String>,
}

pub fn phase_json(kind: &str, number: u32, out: &Outcome, stale: Vec<String>) -> PhaseJson {
    PhaseJson {
        night: (kind == "night").then_some(number),
        day: (kind == "day").then_some(number),
        deaths: out
            .deaths
            .iter()
            .map(|d| DeathJson {
                player: d.player.clone(),
                cause: d.cause.clone(),
                via: d.via.clone(),
                step: d.step.clone(),
                clause: d.clause.clone(),
            })
            .collect(),
        feedback: merged_feedback(out)
            .into_iter()
            .map(|(player, lines)| FeedbackJson {
                player,
                text: lines.join("\n"),
            })
            .collect(),
        announcements: out.announcements.clone(),
        winner: out
            .winner
            .as_ref()
            .filter(|w| !w.is_empty())
            .map(|w| w.join("、")),
        game_over: out.winner.is_some(),
        camps_lost: out.camps_lost.clone(),
        losers: out.losers.clone(),
        releases: out
            .feedback
            .iter()
            .map(|f| ReleaseJson {
                at: f.at.clone(),
                player: f.player.clone(),
                text: f.text.clone(),
            })
            .collect(),
        seed: out.seed,
        draws: out.draws.clone(),
        notes: out.log.clone(),
        stale,
    }
}

/// Feedback grouped per player (seat order of first appearance kept), one block each.
pub fn merged_feedback(out: &Outcome) -> Vec<(String, Vec<String>)> {
    let mut v: Vec<(String, Vec<String>)> = Vec::new();
    let seat = |n: &str| out.state.player(n).map_or(u32::MAX, |p| p.seat);
    for f in &out.feedback {
        match v.iter_mut().find(|(p, _)| *p == f.player) {
            Some((_, l)) => l.push(f.text.clone()),
            None => v.push((f.player.clone(), vec![f.text.clone()])),
        }
    }
    v.sort_by_key(|(p, _)| seat(p));
    v
}

/// The director's notes.
pub fn phase_text(game: &str, label: &str, out: &Outcome, stale: &[String]) -> String {
    let mut s = format!("{label}结算 — {game}（随机种子 {}）\n", out.seed);
    s.push_str("\n步骤记录：\n");
    for l in &out.log {
        s.push_str(&format!("  [{}] {}\n", l.step, l.text));
        if bansha_engine::rules::is_reading(&l.clause) {
            s.push_str(&format!(
                "      读法（规则帖未明言，本规则文件采用）：{}\n",
                l.clause
            ));
        } else if !l.clause.is_empty() {
            s.push_str(&format!("      依据：{}\n", l.clause));
        }
    }
    s.push_str("\n出局（按顺序）：\n");
    if out.deaths.is_empty() {
        s.push_str("  无\n");
    }
    for (i, d) in out.deaths.iter().enumerate() {
        let via = d
            .via
            .as_ref()
            .map(|v| format!("，因 {v}"))
            .unwrap_or_default();
        let also = if d.also.is_empty() {
            String::new()
        } else {
            format!("；另受 {}", d.also.join("、"))
        };
        s.push_str(&format!(
            "  {}. {}（{}{via}{also}）\n",
            i + 1,
            d.player,
            d.cause
        ));
    }
    s.push_str("\n私信反馈：\n");
    let fb = merged_feedback(out);
    if fb.is_empty() {
        s.push_str("  无\n");
    }
    for (p, lines) in fb {
        s.push_str(&format!("  {p}：{}\n", lines.join(" / ")));
    }
    // the release order, by checkpoint (皇权争霸 Q2: 关门后15/30/45/60分)
    if out.feedback.iter().any(|f| f.at.is_some()) {
        s.push_str("\n按时间点发出：\n");
        let mut at: Option<Option<&str>> = None;
        for f in &out.feedback {
            if at != Some(f.at.as_deref()) {
                at = Some(f.at.as_deref());
                s.push_str(&format!("  [{}]\n", f.at.as_deref().unwrap_or("—")));
            }
            s.push_str(&format!("    {}：{}\n", f.player, f.text));
        }
    }
    s.push_str("\n公示：\n");
    for a in &out.announcements {
        s.push_str(&format!("  {a}\n"));
    }
    if !out.draws.is_empty() {
        s.push_str("\n随机抽取：\n");
        for d in &out.draws {
            s.push_str(&format!("  {d}\n"));
        }
    }
    s.push_str(&format!(
        "\n胜负：{}\n",
        match &out.winner {
            Some(w) => winner_text(w),
            None => "未分出".into(),
        }
    ));
    if !out.losers.is_empty() {
        s.push_str(&format!("个人判负（不公示）：{}\n", out.losers.join("、")));
    }
    if !stale.is_empty() {
        s.push_str(&format!(
            "\n注意：之后已结算的 {} 已过期，需要重新结算。\n",
            stale.join("、")
        ));
    }
    s
}

/// The morning 公示 (「公示前一天出局角色名单（按出局顺序排序）、遗言及当日警长」) and one
/// private block per player. `day_before`: the same day's confirmed vote outcome, whose
/// outs come first in the list.
pub fn phase_bbcode(
    rules: &EngineRules,
    kind: &str,
    number: u32,
    out: &Outcome,
    day_before: Option<&Outcome>,
) -> String {
    let mut s = phase_public_bbcode(rules, kind, number, out, day_before);
    s.push_str(&feedback_bbcode(out));
    s
}

/// The private blocks of [`phase_bbcode`]: one per player with feedback (empty when none).
pub fn feedback_bbcode(out: &Outcome) -> String {
    let mut s = String::new();
    let fb = merged_feedback(out);
    if !fb.is_empty() {
        s.push_str("\n======== 私信反馈（每人一段，分别私信） ========\n");
        for (p, lines) in fb {
            s.push_str(&feedback_block(&p, &lines));
        }
    }
    s
}

/// One player's private block (`致 X` and the lines), as [`phase_bbcode`] writes it.
pub fn feedback_block(player: &str, lines: &[String]) -> String {
    let mut s = format!("\n[b]致 {}[/b]\n", esc(player));
    for l in lines {
        s.push_str(&format!("{}\n", esc(l)));
    }
    s
}

/// The public part of [`phase_bbcode`]: the 公示 without the private blocks.
pub fn phase_public_bbcode(
    rules: &EngineRules,
    kind: &str,
    number: u32,
    out: &Outcome,
    day_before: Option<&Outcome>,
) -> String {
    let mut s = String::new();
    let title = if kind == "night" {
        if number == 0 {
            "开局".to_string()
        } else if rules.night_before_day {
            // 灵族杀: night n's deaths are announced on day n.
            format!("第{number}天公示")
        } else {
            format!("第{}天公示", number + 1)
        }
    } else {
        format!("第{number}天投票结果公示")
    };
    s.push_str(&format!("[b]{}[/b]\n", esc(&title)));
    if kind == "night" && number > 0 {
        let mut names: Vec<&str> = Vec::new();
        if let Some(d) = day_before {
            names.extend(d.deaths.iter().map(|x| x.player.as_str()));
        }
        names.extend(out.deaths.iter().map(|x| x.player.as_str()));
        let list = if names.is_empty() {
            "无".to_string()
        } else {
            names.iter().map(|n| esc(n)).collect::<Vec<_>>().join("、")
        };
        s.push_str(&format!("前一天出局角色（按出局顺序）：{list}\n"));
        if let Some(lw) = &rules.last_words {
            let with: Vec<String> = names
                .iter()
                .filter(|n| {
                    out.state
                        .player(n)
                        .and_then(|p| p.out.as_ref())
                        .is_some_and(|o| o.order <= lw.count && !lw.not_causes.contains(&o.cause))
                })
                .map(|n| format!("{}：（遗言）", esc(n)))
                .collect();
            if !with.is_empty() {
                s.push_str("遗言：\n");
                for w in with {
                    s.push_str(&format!("{w}\n"));
                }
            }
        }
        match &out.state.sheriff {
            Some(x) if out.state.player(x).is_some_and(|p| p.alive()) => {
                s.push_str(&format!("当日警长：{}\n", esc(x)))
            }
            _ => s.push_str("当日警长：无\n"),
        }
        // what a rule set's effects publish besides the list and the badge (灵族杀: 灵力,
        // 「xx玩家自爆了」)
        for a in out.announcements.iter().filter(|a| !standard_line(a)) {
            s.push_str(&format!("{}\n", esc(a)));
        }
    } else {
        for a in &out.announcements {
            s.push_str(&format!("{}\n", esc(a)));
        }
    }
    if let Some(w) = &out.winner {
        s.push_str(&format!("[b]{}[/b]\n", esc(&winner_text(w))));
    }
    s
}

/// The announcement lines the night 公示 above already renders in its own words.
fn standard_line(a: &str) -> bool {
    ["昨夜出局", "昨夜无人出局", "当日警长", "有遗言"]
        .iter()
        .any(|p| a.starts_with(p))
        || a.contains("游戏结束")
}

#[derive(Debug, Serialize)]
pub struct PromptJson<'a> {
    pub night: Option<u32>,
    pub day: Option<u32>,
    pub need_input: &'a Prompt,
}

pub fn prompt_text(label: &str, p: &Prompt) -> String {
    format!(
        "{label}结算暂停，需要导演输入：\n  {}\n  可选目标：{}\n  依据：{}\n",
        p.question,
        p.candidates.join("、"),
        p.clause
    )
}

/// The grimoire.
#[derive(Debug, Serialize)]
pub struct StateJson<'a> {
    pub as_of: String,
    pub players: Vec<PlayerJson<'a>>,
    pub sheriff: &'a Option<String>,
    pub links: &'a [bansha_engine::state::Link],
    pub counters: &'a std::collections::BTreeMap<String, i64>,
    pub camps_lost: &'a [String],
    pub winner: Option<String>,
    /// True once the game is over (with `winner` null: every camp was defeated).
    pub game_over: bool,
    pub timeline: Vec<TimelineJson>,
    pub problems: &'a [String],
    /// The card ledger (players with a card; null where the rule set keeps no cards).
    pub cards: Option<&'a CardsView>,
}

/// The card ledger as `bansha state` shows it: per player the 蓝/黄/红 counts still open,
/// the escalations with their clauses, and the 红牌 that sent them off.
#[derive(Debug, Clone, Serialize)]
pub struct CardsView {
    pub players: Vec<PlayerCards>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PlayerCards {
    pub name: String,
    pub blue: u32,
    pub yellow: u32,
    pub red: u32,
    /// 红牌罚下: the first red (given, or merged from yellows).
    pub red_carded: bool,
    pub red_carded_at: Option<String>,
    /// What the red did in this rule set: 出局, or the status it puts the player in (挂机).
    pub red_card_effect: Option<String>,
    pub escalations: Vec<Escalated>,
    pub cards: Vec<CardLine>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Escalated {
    pub at: String,
    pub from: String,
    pub to: String,
    pub clause: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct CardLine {
    pub id: i64,
    pub card: String,
    pub at: String,
    pub clause: String,
}

impl CardsView {
    /// The view of a ledger (cards not withdrawn, as of the state's moment).
    pub fn new(
        cfg: &crate::config::Config,
        m: &crate::rules::moderation::ModerationRules,
        rules: &EngineRules,
        l: &crate::moderation::ledger::Ledger,
        cards: &[crate::moderation::ledger::CardRecord],
    ) -> CardsView {
        use crate::moderation::Card;
        let effect = rules
            .status_causes
            .iter()
            .find(|s| s.cause == rules.cause(crate::roster::RED_CARD_CAUSE))
            .map_or("出局".to_string(), |s| s.status.clone());
        let players = l
            .players
            .iter()
            .filter(|p| !p.cards.is_empty())
            .map(|p| PlayerCards {
                name: p.name.clone(),
                blue: p.blue,
                yellow: p.yellow,
                red: p.red,
                red_carded: p.out,
                red_carded_at: p.out_at.map(|t| cfg.fmt_time(t)),
                red_card_effect: p.out.then(|| effect.clone()),
                escalations: p
                    .merges
                    .iter()
                    .map(|x| Escalated {
                        at: cfg.fmt_time(x.at),
                        from: x.from.chinese().to_string(),
                        to: x.to.chinese().to_string(),
                        clause: if x.to == Card::Yellow {
                            m.blue_to_yellow_clause.clone()
                        } else {
                            m.yellow_to_red_clause.clone()
                        },
                    })
                    .collect(),
                cards: p
                    .cards
                    .iter()
                    .filter_map(|id| cards.iter().find(|c| c.id == *id))
                    .map(|c| CardLine {
                        id: c.id,
                        card: c.card.chinese().to_string(),
                        at: cfg.fmt_time(c.at),
                        clause: c.clause.clone(),
                    })
                    .collect(),
            })
            .collect();
        CardsView { players }
    }

    /// The director's lines.
    pub fn text(&self) -> String {
        let mut s = String::from("\n牌（判罚记录）：\n");
        if self.players.is_empty() {
            s.push_str("  无\n");
        }
        for p in &self.players {
            let red = match (&p.red_carded_at, &p.red_card_effect) {
                (Some(at), Some(e)) => format!(" — 红牌罚下（{at}，{e}）"),
                _ => String::new(),
            };
            s.push_str(&format!(
                "  {}：蓝牌 {} / 黄牌 {} / 红牌 {}{red}\n",
                p.name, p.blue, p.yellow, p.red
            ));
            for c in &p.cards {
                s.push_str(&format!(
                    "      {} {} {}：{}\n",
                    c.id, c.at, c.card, c.clause
                ));
            }
            for x in &p.escalations {
                s.push_str(&format!(
                    "      {} {}→{}：{}\n",
                    x.at, x.from, x.to, x.clause
                ));
            }
        }
        s
    }

    /// What is public (the 判罚公示 is published): who holds which cards, who was sent off.
    pub fn bbcode(&self) -> String {
        if self.players.is_empty() {
            return String::new();
        }
        let mut s = String::from("判罚：");
        let v: Vec<String> = self
            .players
            .iter()
            .map(|p| {
                let mut parts = Vec::new();
                for (n, c) in [(p.blue, "蓝牌"), (p.yellow, "黄牌"), (p.red, "红牌")] {
                    if n > 0 {
                        parts.push(format!("{c}{n}"));
                    }
                }
                let off = if p.red_carded {
                    "（红牌罚下）"
                } else {
                    ""
                };
                format!("{} {}{off}", esc(&p.name), parts.join("、"))
            })
            .collect();
        s.push_str(&v.join("；"));
        s.push('\n');
        s
    }
}

#[derive(Debug, Serialize)]
pub struct PlayerJson<'a> {
    pub seat: u32,
    pub name: &'a str,
    pub role: &'a str,
    pub apparent_role: &'a str,
    pub camp: Option<&'a str>,
    pub apparent_camp: Option<&'a str>,
    pub alive: bool,
    pub out: Option<&'a bansha_engine::state::Out>,
    pub skills: Vec<SkillJson<'a>>,
    pub statuses: &'a [Status],
    pub counters: &'a std::collections::BTreeMap<String, i64>,
}

use bansha_engine::state::Status;

#[derive(Debug, Serialize)]
pub struct SkillJson<'a> {
    pub name: &'a str,
    pub uses_left: Option<u32>,
    pub lost: bool,
    pub granted: bool,
}

#[derive(Debug, Serialize)]
pub struct TimelineJson {
    pub phase: String,
    pub kind: String,
    pub number: u32,
    pub stale: bool,
}

pub fn state_json<'a>(
    st: &'a GameState,
    tl: &'a super::Timeline,
    as_of: String,
    cards: Option<&'a CardsView>,
) -> StateJson<'a> {
    StateJson {
        cards,
        as_of,
        players: st
            .players
            .iter()
            .map(|p| PlayerJson {
                seat: p.seat,
                name: &p.name,
                role: &p.role,
                apparent_role: p.apparent_role.as_deref().unwrap_or(&p.role),
                camp: p.camp.as_deref(),
                apparent_camp: p.apparent_camp.as_deref().or(p.camp.as_deref()),
                alive: p.alive(),
                out: p.out.as_ref(),
                skills: p
                    .skills
                    .iter()
                    .map(|(k, s)| SkillJson {
                        name: k,
                        uses_left: s.uses_left,
                        lost: s.lost,
                        granted: s.granted,
                    })
                    .collect(),
                statuses: &p.statuses,
                counters: &p.counters,
            })
            .collect(),
        sheriff: &st.sheriff,
        links: &st.links,
        counters: &st.counters,
        camps_lost: &st.camps_lost,
        winner: st
            .winner
            .as_ref()
            .filter(|w| !w.is_empty())
            .map(|w| w.join("、")),
        game_over: st.winner.is_some(),
        timeline: tl
            .entries
            .iter()
            .filter(|e| e.kind != "event")
            .map(|e| TimelineJson {
                phase: e.label.clone(),
                kind: e.kind.clone(),
                number: e.number,
                stale: e.stale,
            })
            .collect(),
        problems: &tl.problems,
    }
}

pub fn state_text(
    game: &str,
    st: &GameState,
    tl: &super::Timeline,
    as_of: &str,
    cards: Option<&CardsView>,
) -> String {
    let mut s = format!("{game} — 局势（{as_of}）\n\n");
    s.push_str("座位  玩家  身份  阵营  状态  技能\n");
    for p in &st.players {
        let role = match &p.apparent_role {
            Some(a) => format!("{}（显示为{a}）", p.role),
            None => p.role.clone(),
        };
        let camp = match (&p.camp, &p.apparent_camp) {
            (Some(c), Some(a)) if a != c => format!("{c}（显示为{a}）"),
            (Some(c), _) => c.clone(),
            (None, _) => "未定".into(),
        };
        let status = match &p.out {
            None => "存活".to_string(),
            Some(o) => format!("出局：{}，{}", o.at, o.causes.join("+")),
        };
        let skills: Vec<String> = p
            .skills
            .iter()
            .map(|(k, sk)| {
                let mut t = k.clone();
                if sk.lost {
                    t.push_str("（已失去）");
                } else if let Some(u) = sk.uses_left {
                    t.push_str(&format!("（剩{u}次）"));
                }
                if sk.granted {
                    t.push_str("（获得）");
                }
                t
            })
            .collect();
        let mut extra = Vec::new();
        for (c, v) in &p.counters {
            extra.push(format!("{c}={v}"));
        }
        for stt in &p.statuses {
            extra.push(match stt.until_day {
                Some(d) => format!("{}（至第{d}天）", stt.name),
                None => stt.name.clone(),
            });
        }
        let extra = if extra.is_empty() {
            String::new()
        } else {
            format!("  [{}]", extra.join("，"))
        };
        s.push_str(&format!(
            "{:>3}  {}  {}  {}  {}  {}{}\n",
            p.seat,
            p.name,
            role,
            camp,
            status,
            if skills.is_empty() {
                "—".into()
            } else {
                skills.join("、")
            },
            extra
        ));
    }
    s.push_str(&format!(
        "\n警长：{}\n",
        st.sheriff.as_deref().unwrap_or("无")
    ));
    for l in &st.links {
        let by =
            l.by.as_ref()
                .map(|b| format!("（{b}）"))
                .unwrap_or_default();
        s.push_str(&format!("{}：{}{by}\n", l.kind, l.members.join("—")));
    }
    if !st.counters.is_empty() {
        let c: Vec<String> = st
            .counters
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        s.push_str(&format!("计数：{}\n", c.join("，")));
    }
    if !st.camps_lost.is_empty() {
        s.push_str(&format!("已判负：{}\n", st.camps_lost.join("、")));
    }
    if let Some(w) = &st.winner {
        s.push_str(&format!("胜负：{}\n", winner_text(w)));
    }
    if let Some(c) = cards {
        s.push_str(&c.text());
    }
    s.push_str("\n时间线：\n");
    if !tl.entries.iter().any(|e| e.kind != "event") {
        s.push_str("  （尚无结算的夜晚或确认的白天：以上为配置中的初始局势）\n");
    }
    for e in tl.entries.iter().filter(|e| e.kind != "event") {
        s.push_str(&format!(
            "  {}{}\n",
            e.label,
            if e.stale {
                "（已过期，需重新结算）"
            } else {
                ""
            }
        ));
        // A red card's consequences (出局, 殉情, the badge drawn from its seed) are not in
        // any phase's notes: say them here.
        if e.kind == crate::roster::RED_CARD_CAUSE
            && let Some(o) = &e.outcome
        {
            for l in &o.log {
                s.push_str(&format!("      {}\n", l.text));
            }
            if !o.draws.is_empty() {
                s.push_str(&format!("      （随机种子 {}）\n", o.seed));
            }
        }
    }
    for p in &tl.problems {
        s.push_str(&format!("  ！{p}\n"));
    }
    s
}

/// What is public: seats, who is in the game, who is out (in order), the 警长.
pub fn state_bbcode(game: &str, st: &GameState, cards: Option<&CardsView>) -> String {
    let mut s = format!("[b]{}[/b]\n", esc(game));
    let alive: Vec<String> = st
        .alive()
        .map(|p| format!("{}. {}", p.seat, esc(&p.name)))
        .collect();
    s.push_str(&format!(
        "存活（{}人）：{}\n",
        alive.len(),
        alive.join("、")
    ));
    let mut outs: Vec<&bansha_engine::state::PlayerState> =
        st.players.iter().filter(|p| !p.alive()).collect();
    outs.sort_by_key(|p| p.out.as_ref().map_or(0, |o| o.order));
    let outs: Vec<String> = outs.iter().map(|p| esc(&p.name)).collect();
    s.push_str(&format!(
        "已出局（按出局顺序）：{}\n",
        if outs.is_empty() {
            "无".into()
        } else {
            outs.join("、")
        }
    ));
    s.push_str(&format!(
        "警长：{}\n",
        st.sheriff
            .as_ref()
            .filter(|x| st.player(x).is_some_and(|p| p.alive()))
            .map(|x| esc(x))
            .unwrap_or_else(|| "无".into())
    ));
    if let Some(c) = cards {
        s.push_str(&c.bbcode());
    }
    s
}

/// 「X 胜利，游戏结束」, or the draw when every camp was defeated.
pub fn winner_text(w: &[String]) -> String {
    if w.is_empty() {
        "所有阵营均已判负，游戏结束（无人胜利）".into()
    } else {
        format!("{} 胜利，游戏结束", w.join("、"))
    }
}
