//! A game day: 确认死者 (skills of that phase), 自由移动 (moves and day skills in the order
//! received; a full place sends the mover to the default place unseen; <密室>; the 阳台's
//! free move into the bedroom; crime information and [敏锐] on arrival), 【发现凶案】 on a
//! finder's request, the 公决's result, the final day, and nightfall clearing the places.

use std::collections::BTreeMap;

use super::input::{DayInput, ManorAction};
use super::moves::Moved;
use super::night::prop_is;
use super::rules::{Attr, ManorRules, PropKind, SkillDef, SkillKind, TraitKind};
use super::state::{ManorState, Side};
use super::{Ctx, ManorError, ManorResult, phase_seed};

pub fn day(
    rules: &ManorRules,
    state: &ManorState,
    n: u32,
    input: &DayInput,
) -> Result<ManorResult, ManorError> {
    if state.winner.is_some() {
        return Err(ManorError("the game is over".into()));
    }
    if !state.after_night || n != state.day {
        return Err(ManorError(format!(
            "day {n}: the next phase is {}",
            if state.after_night {
                format!("day {}", state.day)
            } else {
                format!("night {}", state.day + 1)
            }
        )));
    }
    let seed = phase_seed(input.seed, &format!("manor:day:{n}"));
    let mut cx = Ctx::new(rules, state.clone(), seed, true);
    cx.st.used_now.clear();
    for k in &input.keep {
        cx.check_player("keep", k)?;
        if !cx.has(k, SkillKind::PlainDetective) {
            return Err(ManorError(format!("keep: {k} has no <平凡侦探>")));
        }
        cx.keepers.insert(k.clone());
    }
    let nightmare = std::mem::take(&mut cx.st.nightmare);
    for p in nightmare.values() {
        for s in cx.st.scenes.iter_mut().filter(|s| s.place == *p) {
            s.stays_today = true;
        }
    }
    let mut dx = Day {
        moves: cx
            .st
            .players
            .iter()
            .filter(|p| p.alive)
            .map(|p| (p.name.clone(), 1))
            .collect(),
        nightmare,
    };
    for (i, a) in input.confirm.iter().enumerate() {
        confirm_skill(&mut cx, &format!("confirm[{i}]"), a)?;
    }
    for (i, a) in input.steps.iter().enumerate() {
        let key = format!("step[{i}]");
        cx.check_player(&format!("{key}.actor"), &a.actor)?;
        if !cx.st.is_alive(&a.actor) {
            return Err(ManorError(format!("{key}.actor: `{}` is out", a.actor)));
        }
        match (&a.skill, &a.place) {
            (None, Some(p)) => free_move(&mut cx, &mut dx, &key, &a.actor, p)?,
            (Some(_), _) => day_skill(&mut cx, &mut dx, &key, a)?,
            (None, None) => {
                return Err(ManorError(format!(
                    "{key}: a move (`place`) or a skill (`skill`)"
                )));
            }
        }
    }
    for (i, w) in input.announce_case.iter().enumerate() {
        let key = format!("announce_case[{i}]");
        cx.check_player(&key, w)?;
        if cx.st.case_announced {
            cx.note(format!("{key}：{w} 要求公告【发现凶案】，但导演已经公告过"));
            continue;
        }
        if !cx.st.may_announce.contains(w) {
            return Err(ManorError(format!(
                "{key}: {w} holds no complete crime information (死者，死因，线索)"
            )));
        }
        cx.st.case_announced = true;
        cx.st.trail_active = true;
        cx.announce("【发现凶案】");
    }
    vote_barred(&mut cx);
    if input.pending_vote {
        cx.note("公决尚未确认：胜负与天黑在 tally --confirm 之后结算");
    } else {
        verdict(&mut cx, n, input)?;
    }
    nightfall(&mut cx);
    cx.st.after_night = false;
    Ok(cx.finish())
}

struct Day {
    moves: BTreeMap<String, i32>,
    /// 旧日梦魇②: an extra move from or to this place.
    nightmare: BTreeMap<String, String>,
}

fn place_arg(cx: &Ctx, key: &str, a: &ManorAction) -> Result<String, ManorError> {
    let Some(p) = &a.place else {
        return Err(ManorError(format!("{key}.place: missing")));
    };
    cx.check_place(&format!("{key}.place"), p)?;
    Ok(p.clone())
}

fn target_arg(cx: &Ctx, key: &str, a: &ManorAction) -> Result<String, ManorError> {
    match a.targets.as_slice() {
        [t] => {
            cx.check_player(&format!("{key}.targets"), t)?;
            Ok(t.clone())
        }
        _ => Err(ManorError(format!("{key}.targets: one player"))),
    }
}

/// The actor's working skill (or prop) of that name.
fn day_skill_of<'a>(
    cx: &Ctx<'a>,
    key: &str,
    a: &ManorAction,
) -> Result<(&'a SkillDef, Option<PropKind>), ManorError> {
    let name = a.skill.clone().unwrap_or_default();
    let t = cx.rules.template(cx.template_of(&a.actor));
    let found = t.and_then(|t| {
        t.skills
            .iter()
            .find(|s| s.name == name)
            .map(|s| (s, None))
            .or_else(|| {
                let s = t.skills.iter().find(|s| s.kind == SkillKind::Props)?;
                let p = s.props.iter().find(|p| p.name == name)?;
                Some((s, Some(p.kind)))
            })
    });
    let Some((s, prop)) = found else {
        return Err(ManorError(format!(
            "{key}.skill: {} ({}) has no skill or prop `{name}`",
            a.actor,
            cx.template_of(&a.actor)
        )));
    };
    if cx.skill(&a.actor, s.kind).is_none() {
        return Err(ManorError(format!(
            "{key}.skill: {}'s <{name}> does not work now (嫌疑人 or 镇压)",
            a.actor
        )));
    }
    Ok((s, prop))
}

/// 确认死者阶段: 探险精神, 完美记忆, 玩具巡逻车, 刑侦.
fn confirm_skill(cx: &mut Ctx, key: &str, a: &ManorAction) -> Result<(), ManorError> {
    cx.check_player(&format!("{key}.actor"), &a.actor)?;
    if !cx.st.is_alive(&a.actor) {
        return Err(ManorError(format!("{key}.actor: `{}` is out", a.actor)));
    }
    let actor = a.actor.as_str();
    let (s, prop) = day_skill_of(cx, key, a)?;
    match (s.kind, prop) {
        (SkillKind::Explore, _) => {
            let p = place_arg(cx, key, a)?;
            cx.use_skill(key, actor, s)?;
            if cx.move_player(actor, &p, false) == Moved::Yes {
                cx.arrive(actor, &p);
            }
        }
        (SkillKind::Memory, _) => {
            let p = place_arg(cx, key, a)?;
            cx.use_skill(key, actor, s)?;
            cx.take_extra(actor, &p, Some("痕迹"), false, true);
        }
        (SkillKind::Props, Some(PropKind::PatrolCar)) => {
            let p = place_arg(cx, key, a)?;
            use_prop(cx, key, a)?;
            patrol_car(cx, actor, &p);
        }
        (SkillKind::Suspect, _) => {
            if a.targets.len() > 1 {
                return Err(ManorError(format!("{key}.targets: at most one player")));
            }
            for t in &a.targets {
                cx.check_player(&format!("{key}.targets"), t)?;
            }
            cx.use_skill(key, actor, s)?;
            cx.st.suspect = a.targets.first().cloned();
            cx.note(format!(
                "<{}>：嫌疑人 {}",
                s.name,
                cx.st.suspect.clone().unwrap_or_else(|| "（无）".into())
            ));
            cx.announce(format!("【{}】警察发动了<{}>", s.name, s.name));
        }
        _ => {
            return Err(ManorError(format!(
                "{key}.skill: <{}> is not a 确认死者阶段 skill (put it in `step`)",
                s.name
            )));
        }
    }
    Ok(())
}

fn use_prop(cx: &mut Ctx, key: &str, a: &ManorAction) -> Result<(), ManorError> {
    let name = a.skill.clone().unwrap_or_default();
    let held = cx.st.props.get(&a.actor).cloned().unwrap_or_default();
    if !held.contains(&name) {
        return Err(ManorError(format!(
            "{key}.skill: {} does not hold the prop <{name}> (or used it)",
            a.actor
        )));
    }
    cx.st
        .props
        .entry(a.actor.clone())
        .or_default()
        .retain(|p| *p != name);
    Ok(())
}

/// <玩具巡逻车>: the crime information of a place, seen and left (the garden's four-person
/// rule applies; it cannot announce the case).
fn patrol_car(cx: &mut Ctx, actor: &str, place: &str) {
    if cx.rules.has_trait(place, TraitKind::RoughTerrain) && cx.garden_count() < 4 {
        cx.tell(
            actor,
            format!("<玩具巡逻车>：{place}人数不足，无法得知犯罪信息"),
        );
        return;
    }
    let idx: Vec<usize> = (0..cx.st.scenes.len())
        .filter(|&i| cx.st.scenes[i].place == place)
        .collect();
    if idx.is_empty() {
        cx.tell(actor, format!("<玩具巡逻车>：{place}没有犯罪信息"));
    }
    let could = cx.st.may_announce.contains(actor);
    for i in idx {
        cx.take_scene(actor, i);
    }
    if !could {
        cx.st.may_announce.remove(actor);
    }
}

fn free_move(
    cx: &mut Ctx,
    dx: &mut Day,
    key: &str,
    who: &str,
    dest: &str,
) -> Result<(), ManorError> {
    cx.check_place(&format!("{key}.place"), dest)?;
    if cx.moves_closed {
        cx.note(format!("{key}：<警戒>之后当天不能再移动，{who} 的移动无效"));
        return Ok(());
    }
    if cx.is_suppressed(who) {
        cx.note(format!("{key}：{who} 被<镇压>，无法移动"));
        return Ok(());
    }
    let from = cx.st.place_of(who);
    let room = cx.rules.place_with(TraitKind::LockedRoom).unwrap_or("");
    let view = cx.rules.place_with(TraitKind::View).unwrap_or("");
    let nimble = cx.has(who, SkillKind::Nimble);
    // <观景>3: from the 阳台 into the bedroom, sure and free while it is not full
    if from == view && dest == room {
        let cap = cx.capacity(room);
        if cap.is_none_or(|c| cx.count_at(room, who) < c) {
            cx.note(format!(
                "{who} 从{view}移动到{room}（<观景>3：必定成功，不消耗移动次数）"
            ));
            cx.st.player_mut(who).place = room.to_string();
            cx.st.locked_room = false;
            cx.arrive(who, room);
            return Ok(());
        }
    }
    let left = dx.moves.get(who).copied().unwrap_or(0);
    if left > 0 {
        dx.moves.insert(who.to_string(), left - 1);
    } else if dx
        .nightmare
        .get(who)
        .is_some_and(|p| *p == from || *p == dest)
    {
        dx.nightmare.remove(who);
    } else {
        return Err(ManorError(format!(
            "{key}: {who} has no move left today (每位玩家每个自由移动阶段拥有1次移动位置的机会)"
        )));
    }
    if dest == room && cx.st.locked_room && !nimble {
        cx.tell(who, "【门打不开！】");
        cx.note(format!("{who} 试图进入<密室>：移动失败，回到{from}"));
        return Ok(());
    }
    if cx.move_player(who, dest, false) == Moved::Yes {
        if dest == room && cx.st.locked_room {
            cx.st.locked_room = false;
            cx.note("<密室>效果消失");
        }
        cx.arrive(who, dest);
    }
    Ok(())
}

fn day_skill(cx: &mut Ctx, dx: &mut Day, key: &str, a: &ManorAction) -> Result<(), ManorError> {
    let actor = a.actor.as_str();
    if a.skill.as_deref() == Some("疾行") && cx.st.is_murderer(actor) {
        if !cx.st.used_limited.insert(format!("{actor}:疾行")) {
            return Err(ManorError(format!("{key}: <疾行> is used already (限定)")));
        }
        *dx.moves.entry(actor.to_string()).or_default() += 1;
        cx.note(format!("{actor} 发动<疾行>②：当天白天剩余移动次数+1"));
        return Ok(());
    }
    let (s, _) = day_skill_of(cx, key, a)?;
    match s.kind {
        SkillKind::Spur => {
            let t = target_arg(cx, key, a)?;
            let part = a.choice.clone().unwrap_or_default();
            if part != "①" && part != "②" {
                return Err(ManorError(format!("{key}.choice: ① or ②")));
            }
            if !cx.st.used_now.insert(format!("{actor}:{}{part}", s.name)) {
                return Err(ManorError(format!(
                    "{key}: <{}>{part} used already today",
                    s.name
                )));
            }
            if part == "①" {
                cx.st
                    .day_attrs
                    .entry(t.clone())
                    .or_default()
                    .insert(Attr::Keen);
                cx.note(format!("<{}>①：{t} 直到天黑前获得[敏锐]", s.name));
            } else {
                *dx.moves.entry(t.clone()).or_default() += 1;
                cx.note(format!("<{}>②：{t} 当天白天剩余移动次数+1", s.name));
            }
        }
        SkillKind::Suppress => {
            let p = place_arg(cx, key, a)?;
            cx.use_skill(key, actor, s)?;
            let who = cx.st.alive_at(&p);
            cx.note(format!(
                "<{}>（不公告）：{p}的{} 直到天黑前无法移动、投票无效、非锁定技失效",
                s.name,
                if who.is_empty() {
                    "无人".into()
                } else {
                    who.join("、")
                }
            ));
            cx.suppressed.insert(p);
        }
        SkillKind::Alert => {
            cx.use_skill(key, actor, s)?;
            let places = cx.places();
            let pos = cx.st.positions(&places);
            cx.announce(format!(
                "【所有玩家当前位置】{pos}（当天白天所有玩家不能再移动位置）"
            ));
            cx.moves_closed = true;
            cx.st.alerted.insert(actor.to_string());
        }
        SkillKind::Careful => {
            cx.use_skill(key, actor, s)?;
            let p = cx.st.place_of(actor);
            cx.take_extra(actor, &p, None, true, true);
        }
        SkillKind::Seance => {
            let t = target_arg(cx, key, a)?;
            if cx.st.is_alive(&t) {
                return Err(ManorError(format!("{key}.targets: `{t}` is not out")));
            }
            cx.use_skill(key, actor, s)?;
            match &a.choice {
                Some(w) => cx.announce(format!("【{}】{t} 的遗言：{w}", s.name)),
                None => cx.note(format!(
                    "<{}>：{t} 在下个天黑前可以进行一次遗言（遗言内容写在 choice）",
                    s.name
                )),
            }
        }
        SkillKind::Explore | SkillKind::Memory | SkillKind::Suspect => {
            return Err(ManorError(format!(
                "{key}.skill: <{}> is used in the 确认死者 phase (put it in `confirm`)",
                s.name
            )));
        }
        _ => {
            if prop_is(cx, a.skill.as_deref().unwrap_or(""), PropKind::PatrolCar) {
                return Err(ManorError(format!(
                    "{key}.skill: <玩具巡逻车> is used in the 确认死者 phase (put it in `confirm`)"
                )));
            }
            return Err(ManorError(format!(
                "{key}.skill: <{}> is not used by day",
                s.name
            )));
        }
    }
    Ok(())
}

/// 镇压「投票无效」: everyone in a suppressed place when the moves are over.
fn vote_barred(cx: &mut Ctx) {
    let Some(s) = cx.rules.skill_def(SkillKind::Suppress) else {
        return;
    };
    let status = s.status.clone().unwrap_or_default();
    for p in cx.suppressed.clone() {
        for w in cx.st.alive_at(&p) {
            cx.note(format!("<{}>：{w} 今日{status}", s.name));
            cx.out.vote_barred.push(super::Line {
                player: w,
                text: status.clone(),
            });
        }
    }
}

/// 投降, the 公决, the final day.
fn verdict(cx: &mut Ctx, n: u32, input: &DayInput) -> Result<(), ManorError> {
    let m = cx.st.murderer.clone();
    if input.surrender {
        cx.announce(format!("凶手{m}投降，游戏结束"));
        return end(cx, Side::Guests);
    }
    if let Some(v) = &input.voted_out {
        cx.check_player("voted_out", v)?;
        if !cx.st.is_alive(v) {
            return Err(ManorError(format!("voted_out: `{v}` is already out")));
        }
        let p = cx.st.player_mut(v);
        p.alive = false;
        p.out_cause = Some("公决".into());
        cx.out
            .deaths
            .push(super::ManorDeath::new(v, "公决", &cx.st.place_of(v)));
        cx.announce(format!("公决成功：{v} 被公决出局，游戏结束"));
        let side = if *v == m {
            Side::Guests
        } else {
            Side::Murderer
        };
        return end(cx, side);
    }
    if n >= cx.st.final_day {
        let alive_targets = cx.st.targets.iter().filter(|t| cx.st.is_alive(t)).count();
        cx.note(format!(
            "最终之日结束：存活的<目标>数 {alive_targets}（{}）",
            cx.st.targets.join("、")
        ));
        let side = if alive_targets > 1 {
            Side::Guests
        } else if cx.st.is_alive(&m) {
            Side::Murderer
        } else {
            Side::Guests
        };
        cx.announce("最终之日结束，游戏结束");
        return end(cx, side);
    }
    Ok(())
}

fn end(cx: &mut Ctx, side: Side) -> Result<(), ManorError> {
    cx.st.winner = Some(side);
    cx.out.winner = Some(side);
    cx.out.game_over = true;
    cx.announce(format!("{}获胜", side.label()));
    Ok(())
}

/// 游戏进入夜晚，清空所有地点仍存在的犯罪信息与额外线索; today's attributes end.
fn nightfall(cx: &mut Ctx) {
    if !cx.st.scenes.is_empty() || cx.st.extra.values().any(|v| !v.is_empty()) {
        cx.note("天黑：清空所有地点仍存在的犯罪信息与额外线索");
    }
    cx.st.scenes.clear();
    cx.st.extra.clear();
    cx.st.day_attrs.clear();
    cx.st.locked_room = false;
}
