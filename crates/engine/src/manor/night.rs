//! A night: every template's night skill in the night order, the murderer's own steps at
//! 凶手 (作案前<疾行>, <嗜血如命>, its death feedback, his template's responses, [愉悦],
//! 作案后<疾行>, [献祭]), then daybreak (<求生本能>, 【天亮了】, <密室>, <凶手行踪>, crime
//! information for whoever spent the night at a scene, [推理]/[献祭]).

use std::collections::BTreeSet;

use super::input::{ManorAction, NightInput, Plan};
use super::rules::{Attr, ManorRules, PropKind, SkillDef, SkillKind, TraitKind, clue_kind};
use super::state::{ManorState, Scene};
use super::{Ctx, ManorDeath, ManorError, ManorResult, Question, phase_seed};

pub fn night(
    rules: &ManorRules,
    state: &ManorState,
    n: u32,
    input: &NightInput,
) -> Result<ManorResult, ManorError> {
    if state.winner.is_some() {
        return Err(ManorError("the game is over".into()));
    }
    if state.after_night || n != state.day + 1 {
        return Err(ManorError(format!(
            "night {n}: the next phase is {}",
            if state.after_night {
                format!("day {}", state.day)
            } else {
                format!("night {}", state.day + 1)
            }
        )));
    }
    let seed = phase_seed(input.seed, &format!("manor:night:{n}"));
    let mut cx = Ctx::new(rules, state.clone(), seed, false);
    cx.st.used_now.clear();
    let mut nx = Night {
        n,
        plan: input.plan.clone(),
        actions: input.actions.clone(),
        overnight: String::new(),
        success: false,
        scene_place: String::new(),
        doll: false,
        sacrifice: false,
        home_clean: false,
    };
    possess(&mut cx, &nx)?;
    validate(&cx, &nx)?;
    for step in rules.night_order.clone() {
        if step == rules.murderer {
            if let Some(q) = murderer_steps(&mut cx, &mut nx)? {
                return Ok(ManorResult::Ask(q));
            }
            continue;
        }
        for (i, a) in nx.actions.clone().iter().enumerate() {
            if cx.template_of(&a.actor) == step
                && let Some(q) = run_action(&mut cx, &mut nx, i, a)?
            {
                return Ok(ManorResult::Ask(q));
            }
        }
    }
    if let Some(q) = daybreak(&mut cx, &nx)? {
        return Ok(ManorResult::Ask(q));
    }
    cx.st.day = n;
    cx.st.after_night = true;
    Ok(cx.finish())
}

struct Night {
    n: u32,
    plan: Option<Plan>,
    actions: Vec<ManorAction>,
    overnight: String,
    success: bool,
    scene_place: String,
    doll: bool,
    sacrifice: bool,
    home_clean: bool,
}

/// The skill an action names: one of the actor's template skills, or a prop they hold.
fn skill_of<'a>(cx: &Ctx<'a>, a: &ManorAction) -> Option<(&'a SkillDef, Option<PropKind>)> {
    let name = a.skill.as_deref()?;
    let t = cx.rules.template(cx.template_of(&a.actor))?;
    if let Some(s) = t.skills.iter().find(|s| s.name == name) {
        return Some((s, None));
    }
    // <降灵> itself, named by a 灵媒 who holds another template tonight
    let own = cx
        .st
        .player(&a.actor)
        .map(|p| p.template.as_str())
        .unwrap_or("");
    if let Some(s) = cx.rules.template(own).and_then(|t| {
        t.skills
            .iter()
            .find(|s| s.name == name && s.kind == SkillKind::Possess)
    }) {
        return Some((s, None));
    }
    let s = t.skills.iter().find(|s| s.kind == SkillKind::Props)?;
    let p = s.props.iter().find(|p| p.name == name)?;
    Some((s, Some(p.kind)))
}

/// <降灵> first: the 灵媒 holds the out player's template until daybreak.
fn possess(cx: &mut Ctx, nx: &Night) -> Result<(), ManorError> {
    for (i, a) in nx.actions.iter().enumerate() {
        let key = format!("action[{i}]");
        cx.check_player(&format!("{key}.actor"), &a.actor)?;
        let Some((s, _)) = skill_of(cx, a) else {
            continue;
        };
        if s.kind != SkillKind::Possess || !cx.has(&a.actor, SkillKind::Possess) {
            continue;
        }
        let t = one_target(cx, &key, a)?;
        if cx.st.is_alive(&t) {
            return Err(ManorError(format!(
                "{key}.targets: <降灵> chooses a player already out; `{t}` is alive"
            )));
        }
        cx.use_skill(&key, &a.actor, s)?;
        let tpl = cx
            .st
            .player(&t)
            .map(|p| p.template.clone())
            .unwrap_or_default();
        cx.note(format!(
            "{} 发动<降灵>：视为拥有{t}的模板（{tpl}）直到天亮",
            a.actor
        ));
        cx.possessed.insert(a.actor.clone(), tpl);
    }
    Ok(())
}

fn one_target(cx: &Ctx, key: &str, a: &ManorAction) -> Result<String, ManorError> {
    match a.targets.as_slice() {
        [t] => {
            cx.check_player(&format!("{key}.targets"), t)?;
            Ok(t.clone())
        }
        _ => Err(ManorError(format!("{key}.targets: one player"))),
    }
}

fn place_of_action(cx: &Ctx, key: &str, a: &ManorAction) -> Result<String, ManorError> {
    let Some(p) = &a.place else {
        return Err(ManorError(format!("{key}.place: missing")));
    };
    cx.check_place(&format!("{key}.place"), p)?;
    Ok(p.clone())
}

/// Every action names a living actor and a night skill of theirs.
fn validate(cx: &Ctx, nx: &Night) -> Result<(), ManorError> {
    for (i, a) in nx.actions.iter().enumerate() {
        let key = format!("action[{i}]");
        if !cx.st.is_alive(&a.actor) {
            return Err(ManorError(format!("{key}.actor: `{}` is out", a.actor)));
        }
        let Some(name) = &a.skill else {
            return Err(ManorError(format!(
                "{key}.skill: missing (a night has no free moves; moves are skills)"
            )));
        };
        let Some((s, _)) = skill_of(cx, a) else {
            return Err(ManorError(format!(
                "{key}.skill: {} ({}) has no skill or prop `{name}`",
                a.actor,
                cx.template_of(&a.actor)
            )));
        };
        if s.kind != SkillKind::Possess && cx.skill(&a.actor, s.kind).is_none() {
            return Err(ManorError(format!(
                "{key}.skill: {}'s <{name}> does not work (嫌疑人)",
                a.actor
            )));
        }
        let night_kind = matches!(
            s.kind,
            SkillKind::MoveOther
                | SkillKind::MindCheck
                | SkillKind::Invite
                | SkillKind::SafetyCheck
                | SkillKind::Possess
                | SkillKind::Props
                | SkillKind::Nightmare
                | SkillKind::Overtime
                | SkillKind::HomeClean
                | SkillKind::Survival
                | SkillKind::Genius
        );
        if !night_kind {
            return Err(ManorError(format!(
                "{key}.skill: <{name}> is not used at night"
            )));
        }
        if !cx
            .rules
            .night_order
            .iter()
            .any(|t| t == cx.template_of(&a.actor))
            && s.kind != SkillKind::Survival
        {
            return Err(ManorError(format!(
                "{key}.skill: {} is not in the night order",
                cx.template_of(&a.actor)
            )));
        }
    }
    Ok(())
}

fn run_action(
    cx: &mut Ctx,
    nx: &mut Night,
    i: usize,
    a: &ManorAction,
) -> Result<Option<Question>, ManorError> {
    let key = format!("action[{i}]");
    let Some((s, prop)) = skill_of(cx, a) else {
        return Ok(None);
    };
    let actor = a.actor.as_str();
    if !cx.st.is_alive(actor) {
        return Ok(None);
    }
    match (s.kind, prop) {
        (SkillKind::Possess | SkillKind::Survival, _) => {}
        (SkillKind::Props, Some(kind)) => {
            let name = a.skill.clone().unwrap_or_default();
            let held = cx.st.props.get(actor).cloned().unwrap_or_default();
            if !held.contains(&name) {
                return Err(ManorError(format!(
                    "{key}.skill: {actor} does not hold the prop <{name}> (or used it)"
                )));
            }
            cx.st
                .props
                .entry(actor.to_string())
                .or_default()
                .retain(|p| *p != name);
            match kind {
                PropKind::Lock => {
                    let p = place_of_action(cx, &key, a)?;
                    cx.note(format!("{actor} 使用<机关锁>：{p}"));
                    cx.locked_places.insert(p);
                }
                PropKind::ScareBox => {
                    let p = place_of_action(cx, &key, a)?;
                    if cx.capacity(&p).is_none_or(|c| c > 2) {
                        return Err(ManorError(format!(
                            "{key}.place: <惊吓盒> needs a place of capacity ≤ 2; `{p}` is not"
                        )));
                    }
                    let default = cx.rules.default_place.clone();
                    for w in cx.st.alive_at(&p) {
                        cx.move_player(&w, &default, w != actor);
                    }
                }
                PropKind::Doll => {
                    cx.note(format!("{actor} 使用<人偶>：天亮时公告凶手行踪"));
                    nx.doll = true;
                }
                PropKind::PatrolCar => {
                    return Err(ManorError(format!(
                        "{key}.skill: <玩具巡逻车> is used in the 确认死者 phase (day input `confirm`)"
                    )));
                }
            }
        }
        (SkillKind::Props, None) => {
            return Err(ManorError(format!(
                "{key}.skill: name the prop (机关锁, 惊吓盒, 人偶)"
            )));
        }
        (SkillKind::MoveOther, _) => {
            let t = one_target(cx, &key, a)?;
            let p = place_of_action(cx, &key, a)?;
            cx.use_skill(&key, actor, s)?;
            cx.move_player(&t, &p, t != actor);
        }
        (SkillKind::Invite, _) => {
            let t = one_target(cx, &key, a)?;
            if t == actor {
                return Err(ManorError(format!("{key}.targets: 除你以外的任意一名玩家")));
            }
            let p = place_of_action(cx, &key, a)?;
            cx.use_skill(&key, actor, s)?;
            cx.move_player(&t, &p, true);
            cx.move_player(actor, &p, false);
        }
        (SkillKind::MindCheck, _) => mind_check(cx, &key, a, s)?,
        (SkillKind::SafetyCheck, _) => {
            let p = place_of_action(cx, &key, a)?;
            cx.use_skill(&key, actor, s)?;
            let who = cx.st.alive_at(&p);
            list_people(cx, actor, &format!("<{}>", s.name), &p, &who);
        }
        (SkillKind::Overtime, _) => {
            if cx.st.overtime.get(actor) == Some(&(nx.n.saturating_sub(1))) && nx.n > 1 {
                return Err(ManorError(format!(
                    "{key}: {actor} used <{}> last night (不能连续两晚发动)",
                    s.name
                )));
            }
            cx.use_skill(&key, actor, s)?;
            cx.st.overtime.insert(actor.to_string(), nx.n);
            let p = cx.st.place_of(actor);
            let who = cx.st.alive_at(&p);
            list_people(cx, actor, &format!("<{}>", s.name), &p, &who);
        }
        (SkillKind::HomeClean, _) => {
            cx.use_skill(&key, actor, s)?;
            nx.home_clean = true;
        }
        (SkillKind::Nightmare, _) => nightmare(cx, &key, a, s)?,
        (SkillKind::Genius, _) => {
            if !cx.st.is_murderer(actor) {
                return Err(ManorError(format!(
                    "{key}: <犯罪天才> is the murderer's (你发动嗜血如命后)"
                )));
            }
            let p = place_of_action(cx, &key, a)?;
            let Some(c) = a.choice.as_deref().and_then(|c| cx.any_clue(c)) else {
                return Err(ManorError(format!("{key}.choice: a <痕迹> clue")));
            };
            if clue_kind(&c) != Some("痕迹") {
                return Err(ManorError(format!("{key}.choice: `{c}` is not a <痕迹>")));
            }
            cx.use_skill(&key, actor, s)?;
            cx.leave_extra(&p, &c, "<犯罪天才>②");
        }
        _ => {}
    }
    Ok(None)
}

fn list_people(cx: &mut Ctx, actor: &str, what: &str, place: &str, who: &[String]) {
    let list = if who.is_empty() {
        "无人".to_string()
    } else {
        who.join("、")
    };
    let text = format!("{what}：{place}的人员名单：{list}");
    cx.tell(actor, text.clone());
    cx.st.hold(actor, &text);
}

fn mind_check(cx: &mut Ctx, key: &str, a: &ManorAction, s: &SkillDef) -> Result<(), ManorError> {
    let actor = a.actor.as_str();
    match a.choice.as_deref() {
        Some("①") => {
            if a.targets.is_empty() || a.targets.len() > 2 {
                return Err(ManorError(format!("{key}.targets: one or two players")));
            }
            for t in &a.targets {
                cx.check_player(&format!("{key}.targets"), t)?;
            }
            cx.use_skill(key, actor, s)?;
            for t in &a.targets {
                let is = if cx.st.fools.contains(t) {
                    "是"
                } else {
                    "不是"
                };
                let text = format!("<{}>①：{t}{is}愚者", s.name);
                cx.tell(actor, text.clone());
                cx.st.hold(actor, &text);
            }
        }
        Some("②") => {
            let t = one_target(cx, key, a)?;
            cx.use_skill(key, actor, s)?;
            if cx.st.is_murderer(&t) {
                cx.note(format!("<{}>②：{t} 不是受困者，无效果", s.name));
            } else if cx.st.fools.remove(&t) {
                cx.note(format!("<{}>②：{t} 失去愚者身份", s.name));
            } else {
                cx.st.fools.insert(t.clone());
                cx.note(format!("<{}>②：{t} 获得愚者身份", s.name));
            }
        }
        _ => return Err(ManorError(format!("{key}.choice: ① or ②"))),
    }
    Ok(())
}

fn nightmare(cx: &mut Ctx, key: &str, a: &ManorAction, s: &SkillDef) -> Result<(), ManorError> {
    let actor = a.actor.clone();
    let p = place_of_action(cx, key, a)?;
    match a.choice.as_deref() {
        Some("①") => {
            cx.use_skill(key, &actor, s)?;
            let keen = cx
                .st
                .alive_at(&p)
                .iter()
                .any(|w| cx.attrs(w).contains(&Attr::Keen));
            if keen {
                cx.tell(
                    &actor,
                    format!("<{}>①：{p}存在拥有[敏锐]属性的玩家", s.name),
                );
                cx.st.day_attrs.entry(actor).or_default().insert(Attr::Keen);
            } else {
                cx.note(format!("<{}>①：{p}没有[敏锐]玩家，不通知", s.name));
            }
        }
        Some("②") => {
            cx.use_skill(key, &actor, s)?;
            cx.st.nightmare.insert(actor, p);
        }
        _ => return Err(ManorError(format!("{key}.choice: ① or ②"))),
    }
    Ok(())
}

fn ask(cx: &Ctx, who: &str, text: String, clause_key: &str) -> Option<Question> {
    Some(Question {
        player: who.to_string(),
        text,
        clause: cx
            .rules
            .clauses
            .get(clause_key)
            .cloned()
            .unwrap_or_default(),
    })
}

/// The murderer's steps, in the post's order.
fn murderer_steps(cx: &mut Ctx, nx: &mut Night) -> Result<Option<Question>, ManorError> {
    let m = cx.st.murderer.clone();
    if !cx.st.is_alive(&m) {
        return Ok(None);
    }
    let Some(plan) = nx.plan.clone() else {
        return Ok(ask(
            cx,
            &m,
            "凶手每晚必须杀人：尚未提交犯罪计划（plan）".into(),
            "嗜血如命",
        ));
    };
    if let Some(p) = &plan.dash_before {
        dash(cx, &m, p)?;
    }
    nx.overnight = cx.st.place_of(&m);
    if let Some(q) = check_plan(cx, &m, &plan, &nx.overnight)? {
        return Ok(Some(q));
    }
    if let Some(q) = super::murder::murder(cx, nx_view(nx), &plan)? {
        return Ok(Some(q));
    }
    Ok(None)
}

fn nx_view(nx: &mut Night) -> super::murder::NightView<'_> {
    super::murder::NightView {
        n: nx.n,
        overnight: &nx.overnight,
        success: &mut nx.success,
        scene_place: &mut nx.scene_place,
        sacrifice: &mut nx.sacrifice,
        home_clean: nx.home_clean,
    }
}

pub(super) fn dash(cx: &mut Ctx, m: &str, place: &str) -> Result<(), ManorError> {
    cx.check_place("plan.dash", place)?;
    if !cx.st.used_limited.insert(format!("{m}:疾行")) {
        return Err(ManorError(
            "plan.dash: <疾行> is used already (限定)".into(),
        ));
    }
    cx.note(format!("{m} 发动<疾行>①：移动到{place}"));
    cx.move_player(m, place, false);
    Ok(())
}

/// The plan against the rules: a method owned and not repeated, a victim who can be named,
/// a place that can be named, clues owned and unused, a trick. What fails goes back to the
/// murderer through the director.
fn check_plan(
    cx: &Ctx,
    m: &str,
    plan: &Plan,
    overnight: &str,
) -> Result<Option<Question>, ManorError> {
    let r = cx.rules;
    let bad = |text: String| {
        Ok(ask(
            cx,
            m,
            format!("犯罪计划无法实施：{text}，请凶手重新提交犯罪计划"),
            "无法实施",
        ))
    };
    let mut methods = cx.methods_of(m);
    if let Some(t) = r.trait_def(TraitKind::Kitchen)
        && r.has_trait(overnight, TraitKind::Kitchen)
    {
        methods.extend(t.methods.iter().cloned());
    }
    if let (Some(p), Some(t)) = (&plan.place, r.trait_def(TraitKind::RunningWater))
        && r.has_trait(p, TraitKind::RunningWater)
    {
        methods.extend(t.methods.iter().cloned());
    }
    if !methods.contains(&plan.method) {
        return bad(format!(
            "杀人手法<{}>不在可用手法（{}）之中",
            plan.method,
            methods.join("、")
        ));
    }
    if cx.st.last_method.as_deref() == Some(plan.method.as_str()) {
        return bad(format!("不能连续两天选择同一杀人手法<{}>", plan.method));
    }
    match (&plan.victim, &plan.place) {
        (Some(v), None) => {
            cx.check_player("plan.victim", v)?;
            if v == m {
                return bad("指定死者不可以选择自己".into());
            }
            if !cx.st.is_alive(v) {
                return bad(format!("{v} 已经出局"));
            }
            if cx.has(v, SkillKind::Survival) || cx.has(v, SkillKind::Halo) {
                return bad(format!("{v} 不能成为指定死者的谋杀的目标"));
            }
        }
        (None, Some(p)) => {
            cx.check_place("plan.place", p)?;
            if r.has_trait(p, TraitKind::RoughTerrain) && plan.method != r.trap_method {
                return bad(format!("凶手不能选择{p}进行指定地点的谋杀（<复杂地形>）"));
            }
        }
        _ => {
            return Err(ManorError(
                "plan: either `victim` (指定死者) or `place` (指定地点)".into(),
            ));
        }
    }
    let doll_unused = cx
        .st
        .props
        .get(m)
        .is_some_and(|p| p.iter().any(|x| prop_is(cx, x, PropKind::Doll)));
    if plan.clues.is_empty() && !doll_unused {
        return bad("遗留线索不能为空".into());
    }
    let mut seen = BTreeSet::new();
    for c in &plan.clues {
        let Some(full) = cx.own_clue(m, c) else {
            return bad(format!("线索<{c}>不是凶手扮演的角色所拥有的线索"));
        };
        if cx.st.used_clues.contains(&full) || !seen.insert(full.clone()) {
            return bad(format!("线索<{c}>已经使用过（每个线索只能使用1次）"));
        }
    }
    match (&plan.trick, cx.has(m, SkillKind::PropBox)) {
        (Some(_), true) => return bad("<道具箱>：你无法设置诡计信息".into()),
        (None, false) => return bad("缺少诡计设置（trick）".into()),
        (Some(t), false) => {
            if !r.methods.contains(&t.method) || cx.any_clue(&t.clue).is_none() {
                return bad(format!(
                    "诡计<{}>/<{}>不是规则中存在的杀人手法与线索",
                    t.method, t.clue
                ));
            }
        }
        (None, true) => {}
    }
    Ok(None)
}

pub(super) fn prop_is(cx: &Ctx, name: &str, kind: PropKind) -> bool {
    cx.rules
        .skill_def(SkillKind::Props)
        .is_some_and(|s| s.props.iter().any(|p| p.name == name && p.kind == kind))
}

/// Daybreak: the 猎人's body, 【天亮了】 with positions, <密室>, <凶手行踪>, crime
/// information for those who spent the night there, [推理] and [献祭].
fn daybreak(cx: &mut Ctx, nx: &Night) -> Result<Option<Question>, ManorError> {
    if let Some(q) = survival_bodies(cx, nx)? {
        return Ok(Some(q));
    }
    let places = cx.places();
    let deaths: Vec<String> = cx.out.deaths.iter().map(|d| d.player.clone()).collect();
    cx.announce(format!("【天亮了】{}", cx.st.positions(&places)));
    if deaths.is_empty() {
        cx.announce("昨夜平安");
    } else {
        cx.announce(format!("昨夜出局：{}", deaths.join("、")));
    }
    locked_room(cx);
    let m = cx.st.murderer.clone();
    let guests_there = cx.st.alive_at(&nx.overnight).iter().any(|w| *w != m);
    let garden = cx.rules.has_trait(&nx.overnight, TraitKind::RoughTerrain);
    if nx.doll || (cx.st.trail_active && !nx.success && guests_there && !garden) {
        cx.announce("【昨晚有人发现了凶手行踪】");
    }
    let mut scene_places: Vec<String> = cx.st.scenes.iter().map(|s| s.place.clone()).collect();
    scene_places.dedup();
    for p in scene_places {
        if cx.rules.has_trait(&p, TraitKind::RoughTerrain) {
            if cx.garden_count() < 4 {
                cx.note(format!("{p}人数不足4，无法获得犯罪信息"));
                continue;
            }
            cx.garden_reached = true;
        }
        let here = cx.st.alive_at(&p);
        cx.take_scenes_at(&here, &p);
    }
    let players: Vec<String> = cx
        .st
        .players
        .iter()
        .filter(|p| p.alive)
        .map(|p| p.name.clone())
        .collect();
    for w in players {
        let sac = w == m && nx.sacrifice;
        if cx.attrs(&w).contains(&Attr::Deduce) || sac {
            let p = cx.st.place_of(&w);
            cx.take_extra(&w, &p, None, true, false);
        }
    }
    Ok(None)
}

/// <求生本能>: the 猎人 learns of the death and chooses where the body lies at daybreak.
fn survival_bodies(cx: &mut Ctx, nx: &Night) -> Result<Option<Question>, ManorError> {
    let dead: Vec<String> = cx.out.deaths.iter().map(|d| d.player.clone()).collect();
    for d in dead {
        let Some(s) = cx
            .rules
            .template(
                &cx.st
                    .player(&d)
                    .map(|p| p.template.clone())
                    .unwrap_or_default(),
            )
            .and_then(|t| t.skills.iter().find(|s| s.kind == SkillKind::Survival))
        else {
            continue;
        };
        if cx.st.suspect.as_deref() == Some(d.as_str()) {
            continue;
        }
        let answer = nx
            .actions
            .iter()
            .enumerate()
            .find(|(_, a)| a.actor == d && a.skill.as_deref() == Some(s.name.as_str()));
        let Some((i, a)) = answer else {
            return Ok(Some(Question {
                player: d.clone(),
                text: format!(
                    "<{}>：{d} 成为死者，需选择一个地点，天亮时尸体转移至该地点",
                    s.name
                ),
                clause: s.clause.clone(),
            }));
        };
        let key = format!("action[{i}]");
        let p = place_of_action(cx, &key, a)?;
        cx.tell(
            &d,
            format!("<{}>：你已死亡，尸体将转移至你选择的地点", s.name),
        );
        move_body(cx, &d, &p);
    }
    Ok(None)
}

/// A body moves: a scene of its own at the new place with the same information.
pub(super) fn move_body(cx: &mut Ctx, who: &str, to: &str) {
    let Some(i) = cx
        .st
        .scenes
        .iter()
        .position(|s| s.victims.iter().any(|v| v == who))
    else {
        return;
    };
    let mut moved: Scene = cx.st.scenes[i].clone();
    if moved.place == to {
        return;
    }
    cx.st.scenes[i].victims.retain(|v| v != who);
    if cx.st.scenes[i].victims.is_empty() {
        cx.st.scenes.remove(i);
    }
    moved.victims = vec![who.to_string()];
    moved.place = to.to_string();
    cx.note(format!("{who} 的尸体转移至{to}"));
    if let Some(d) = cx.out.deaths.iter_mut().find(|d| d.player == who) {
        d.place = to.to_string();
    }
    cx.st.player_mut(who).place = to.to_string();
    cx.st.scenes.push(moved);
}

/// <密室>1: an empty bedroom holding one body is locked today; 【发现凶案】 if the trail was
/// not active yet.
fn locked_room(cx: &mut Ctx) {
    let Some(room) = cx.rules.place_with(TraitKind::LockedRoom) else {
        return;
    };
    let bodies: usize = cx
        .st
        .scenes
        .iter()
        .filter(|s| s.place == room)
        .map(|s| s.victims.len())
        .sum();
    cx.st.locked_room = cx.st.alive_at(room).is_empty() && bodies == 1;
    if cx.st.locked_room {
        cx.note(format!("{room}成为<密室>"));
        if !cx.st.trail_active {
            cx.st.trail_active = true;
            cx.st.case_announced = true;
            cx.announce("【发现凶案】");
        }
    }
}

impl ManorDeath {
    pub(super) fn new(player: &str, cause: &str, place: &str) -> ManorDeath {
        ManorDeath {
            player: player.into(),
            cause: cause.into(),
            place: place.into(),
        }
    }
}
