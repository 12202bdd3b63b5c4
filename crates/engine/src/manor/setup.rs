//! 游戏准备阶段: templates (each once), the murderer and the 愚者 (given or drawn), the two
//! <目标>, the motive, 预谋, props, starting places in order (a full one gives the default).

use std::collections::{BTreeMap, BTreeSet};

use super::input::SetupInput;
use super::rules::{ManorRules, MotiveKind, SkillKind};
use super::state::{ManorState, Player};
use super::{Ctx, ManorError, ManorResult, Question, phase_seed};

pub fn prepare(rules: &ManorRules, input: &SetupInput) -> Result<ManorResult, ManorError> {
    let n = input.players.len();
    if n < 2 {
        return Err(ManorError(
            "player: a game needs at least two players".into(),
        ));
    }
    let st = ManorState {
        players: Vec::new(),
        murderer: String::new(),
        fools: BTreeSet::new(),
        targets: Vec::new(),
        motives: Vec::new(),
        premeditated: None,
        day: 0,
        final_day: rules.final_day_for(n),
        after_night: false,
        trail_active: false,
        murders: 0,
        used_clues: BTreeSet::new(),
        last_method: None,
        scenes: Vec::new(),
        extra: BTreeMap::new(),
        locked_room: false,
        locked_room_clue_done: false,
        used_limited: BTreeSet::new(),
        used_now: BTreeSet::new(),
        overtime: BTreeMap::new(),
        suspect: None,
        alerted: BTreeSet::new(),
        props: BTreeMap::new(),
        day_attrs: BTreeMap::new(),
        nightmare: BTreeMap::new(),
        may_announce: BTreeSet::new(),
        case_announced: false,
        found_body: BTreeSet::new(),
        winner: None,
    };
    let seed = phase_seed(input.seed, "manor:setup");
    let mut cx = Ctx::new(rules, st, seed, false);
    templates_and_places(&mut cx, input)?;
    draw_roles(&mut cx, input)?;
    if let Some(q) = motive(&mut cx, input)? {
        return Ok(ManorResult::Ask(q));
    }
    props(&mut cx, input)?;
    cx.note(format!("最终之日：第{}日", cx.st.final_day));
    Ok(cx.finish())
}

fn templates_and_places(cx: &mut Ctx, input: &SetupInput) -> Result<(), ManorError> {
    let n = input.players.len();
    let mut chosen = BTreeSet::new();
    for (i, p) in input.players.iter().enumerate() {
        let key = format!("player[{i}]");
        if cx.st.player(&p.name).is_some() {
            return Err(ManorError(format!("{key}.name: `{}` twice", p.name)));
        }
        let Some(t) = cx.rules.template(&p.template) else {
            return Err(ManorError(format!(
                "{key}.template: unknown template `{}`",
                p.template
            )));
        };
        if n < t.min_players {
            return Err(ManorError(format!(
                "{key}.template: `{}` is used from {} players on",
                t.name, t.min_players
            )));
        }
        if !chosen.insert(t.name.clone()) {
            return Err(ManorError(format!(
                "{key}.template: `{}` chosen twice (每个角色只能被选择一次)",
                t.name
            )));
        }
        let in_play: Vec<&str> = cx
            .rules
            .places_for(n)
            .iter()
            .map(|x| x.name.as_str())
            .collect();
        if !in_play.contains(&p.place.as_str()) {
            return Err(ManorError(format!(
                "{key}.place: unknown place `{}` (in play with {n} players: {})",
                p.place,
                in_play.join("、")
            )));
        }
        let full = cx
            .capacity(&p.place)
            .is_some_and(|c| cx.st.alive_at(&p.place).len() >= c);
        let place = if full {
            cx.note(format!(
                "{} 选择的初始位置{}已满额，以默认地点为初始位置",
                p.name, p.place
            ));
            cx.rules.default_place.clone()
        } else {
            p.place.clone()
        };
        cx.st.players.push(Player {
            name: p.name.clone(),
            template: t.name.clone(),
            place,
            alive: true,
            out_cause: None,
            holds: Vec::new(),
        });
    }
    let list: Vec<String> = cx
        .st
        .players
        .iter()
        .map(|p| format!("{}：{}", p.name, p.template))
        .collect();
    cx.announce(format!("【人物模板】{}", list.join("；")));
    Ok(())
}

fn draw_roles(cx: &mut Ctx, input: &SetupInput) -> Result<(), ManorError> {
    let names: Vec<String> = cx.st.players.iter().map(|p| p.name.clone()).collect();
    let murderer = match &input.murderer {
        Some(m) => {
            cx.check_player("murderer", m)?;
            m.clone()
        }
        None => cx.rng.pick_n(&names, 1).remove(0),
    };
    let guests: Vec<String> = names.iter().filter(|n| **n != murderer).cloned().collect();
    let fool = match &input.fool {
        Some(f) if *f == murderer => {
            return Err(ManorError(format!(
                "fool: `{f}` is the murderer (愚者在受困者中抽出)"
            )));
        }
        Some(f) => {
            cx.check_player("fool", f)?;
            f.clone()
        }
        None => cx.rng.pick_n(&guests, 1).remove(0),
    };
    let targets = match &input.targets {
        Some(t) => {
            if t.len() != 2 || t[0] == t[1] {
                return Err(ManorError("targets: two different players".into()));
            }
            for x in t {
                cx.check_player("targets", x)?;
                if *x == murderer {
                    return Err(ManorError(format!(
                        "targets: `{x}` is the murderer (随机除凶手之外的两名角色)"
                    )));
                }
            }
            t.clone()
        }
        None => cx.rng.pick_n(&guests, 2),
    };
    cx.note(format!(
        "凶手：{murderer}；愚者：{fool}；<目标>：{}",
        targets.join("、")
    ));
    for n in &names {
        let text = if *n == murderer {
            "你是凶手（凶手阵营）"
        } else {
            "你是受困者（受困者阵营）"
        };
        cx.tell(n, text);
    }
    cx.st.murderer = murderer;
    cx.st.fools.insert(fool);
    cx.st.targets = targets;
    Ok(())
}

fn motive(cx: &mut Ctx, input: &SetupInput) -> Result<Option<Question>, ManorError> {
    let m = cx.st.murderer.clone();
    let all = cx.has(&m, SkillKind::AllMotives);
    let clause = cx
        .rules
        .motives
        .first()
        .map(|x| x.clause.clone())
        .unwrap_or_default();
    if input.motives.is_empty() {
        return Ok(Some(Question {
            player: m,
            text: "凶手尚未选择犯罪动机（motives）".into(),
            clause,
        }));
    }
    if input.motives.len() > 1 && !all {
        return Err(ManorError(
            "motives: one 犯罪动机 (all of them only with <刑事侦查>②)".into(),
        ));
    }
    let mut kinds = Vec::new();
    for x in &input.motives {
        let Some(d) = cx.rules.motives.iter().find(|d| d.name == *x) else {
            return Err(ManorError(format!("motives: unknown 犯罪动机 `{x}`")));
        };
        kinds.push(d.kind);
    }
    cx.st.motives = input.motives.clone();
    if kinds.contains(&MotiveKind::Premeditated) {
        let Some(p) = &input.premeditated else {
            return Ok(Some(Question {
                player: m,
                text:
                    "[预谋]：凶手需选择一条线索或<刀杀>/<钝击>/<绞杀>中的一种手法（premeditated）"
                        .into(),
                clause,
            }));
        };
        let ok = ["刀杀", "钝击", "绞杀"].contains(&p.as_str()) || cx.any_clue(p).is_some();
        if !ok {
            return Err(ManorError(format!(
                "premeditated: `{p}` is neither a clue of the rules nor 刀杀/钝击/绞杀"
            )));
        }
        cx.st.premeditated = Some(cx.any_clue(p).unwrap_or_else(|| p.clone()));
    } else if input.premeditated.is_some() {
        return Err(ManorError(
            "premeditated: only with the motive [预谋]".into(),
        ));
    }
    if kinds.contains(&MotiveKind::Dream) {
        let fools: Vec<String> = cx.st.fools.iter().cloned().collect();
        cx.tell(&m, format!("[迷梦]：愚者名单：{}", fools.join("、")));
    }
    Ok(None)
}

fn props(cx: &mut Ctx, input: &SetupInput) -> Result<(), ManorError> {
    let holders: Vec<String> = cx
        .st
        .players
        .iter()
        .map(|p| p.name.clone())
        .filter(|n| cx.has(n, SkillKind::Props))
        .collect();
    let Some(h) = holders.first() else {
        if !input.props.is_empty() {
            return Err(ManorError("props: nobody holds <演出准备>".into()));
        }
        return Ok(());
    };
    let defs = &cx
        .skill(h, SkillKind::Props)
        .map(|s| s.props.clone())
        .unwrap_or_default();
    let mut chosen = input.props.clone();
    chosen.dedup();
    if chosen.len() != 2 {
        return Err(ManorError(format!(
            "props: {h}'s <演出准备> chooses two different props (of {})",
            defs.iter()
                .map(|d| d.name.as_str())
                .collect::<Vec<_>>()
                .join("、")
        )));
    }
    for c in &chosen {
        if !defs.iter().any(|d| d.name == *c) {
            return Err(ManorError(format!("props: unknown prop `{c}`")));
        }
    }
    cx.st.props.insert(h.clone(), chosen);
    Ok(())
}
