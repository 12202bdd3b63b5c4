//! <嗜血如命> carried out: who dies (封闭空间, 无用学识, 保护, 逃命, 轻车熟路), the death
//! feedback that asks the murderer for more (善战, 香水, 流水2, 密室3, 枪杀), the scenes and
//! bodies (观景, 过劳, 心理暗示②, 特制陷阱), the extra clues left and those that do not stay
//! (不完美犯罪, 泥土, 零食, 毒杀, 犯罪天才①, 主场优势②, 逃命, 轻车熟路①), then [愉悦],
//! 作案后<疾行> and [献祭].

use super::input::Plan;
use super::rules::{Attr, MotiveKind, SkillKind, TraitKind};
use super::state::Scene;
use super::{Ctx, ManorDeath, ManorError, Question};

pub(super) struct NightView<'a> {
    pub n: u32,
    pub overnight: &'a str,
    pub success: &'a mut bool,
    pub scene_place: &'a mut String,
    pub sacrifice: &'a mut bool,
    pub home_clean: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Source {
    /// <不完美犯罪>'s left clues.
    Imperfect,
    /// A place's trait (泥土, 零食, 水迹, 密室3).
    Terrain,
    /// Any other effect (善战, 香水).
    Effect,
}

struct Left {
    place: String,
    clue: String,
    why: String,
    source: Source,
}

fn ask(cx: &Ctx, text: String, clause: &str) -> Option<Question> {
    Some(Question {
        player: cx.st.murderer.clone(),
        text,
        clause: clause.to_string(),
    })
}

pub(super) fn murder(
    cx: &mut Ctx,
    nv: NightView,
    plan: &Plan,
) -> Result<Option<Question>, ManorError> {
    let r = cx.rules;
    let m = cx.st.murderer.clone();
    let scene = match (&plan.victim, &plan.place) {
        (Some(v), _) => cx.st.place_of(v),
        (_, Some(p)) => p.clone(),
        _ => unreachable!("checked in check_plan"),
    };
    *nv.scene_place = scene.clone();
    let (dying, escapers, escape_failed) = who_dies(cx, plan, &scene);
    let success = !dying.is_empty();
    *nv.success = success;
    let mut left: Vec<Left> = Vec::new();
    let mut extra_answers = plan.extra_clues.iter();
    let mut spent = Vec::new();

    // <密室>3 and <善战>: one extra clue each from the murderer's own clues
    let room_clue = plan.victim.is_some()
        && r.has_trait(&scene, TraitKind::LockedRoom)
        && !cx.st.locked_room_clue_done;
    let fighter = plan.victim.is_some() && success && cx.attrs(&dying[0]).contains(&Attr::Fighter);
    for (needed, why, src, clause) in [
        (
            room_clue,
            "<密室>3",
            Source::Terrain,
            r.trait_clause(TraitKind::LockedRoom).to_string(),
        ),
        (
            fighter,
            "<善战>",
            Source::Effect,
            r.clauses.get("善战").cloned().unwrap_or_default(),
        ),
    ] {
        if !needed {
            continue;
        }
        let Some(c) = extra_answers.next() else {
            return Ok(ask(
                cx,
                format!("{why}：凶手需要在作案地点{scene}留下一条额外线索（plan.extra_clues）"),
                &clause,
            ));
        };
        let Some(full) = cx.own_clue(&m, c) else {
            return Ok(ask(
                cx,
                format!("{why}：<{c}>不是凶手拥有的线索，请重新选择"),
                &clause,
            ));
        };
        if cx.st.used_clues.contains(&full)
            || plan
                .clues
                .iter()
                .any(|x| cx.own_clue(&m, x).as_ref() == Some(&full))
            || spent.contains(&full)
        {
            return Ok(ask(
                cx,
                format!("{why}：线索<{c}>已经使用过，请重新选择"),
                &clause,
            ));
        }
        cx.tell(&m, format!("{why}：你需要在作案地点留下一条额外线索"));
        spent.push(full.clone());
        left.push(Left {
            place: scene.clone(),
            clue: full,
            why: why.into(),
            source: src,
        });
    }
    if room_clue {
        cx.st.locked_room_clue_done = true;
    }

    // <香水> and <流水>2: a place chosen by the murderer, and his overnight place
    let scent = dying.iter().any(|d| cx.has(d, SkillKind::Scent));
    let water = success
        && dying
            .iter()
            .any(|d| r.has_trait(&cx.st.place_of(d), TraitKind::RunningWater));
    if scent {
        let s = r.skill_def(SkillKind::Scent).expect("scent skill declared");
        let Some(p) = &plan.scent_place else {
            return Ok(ask(
                cx,
                format!("<{}>：凶手必须选择一个地点（plan.scent_place）", s.name),
                &s.clause,
            ));
        };
        cx.check_place("plan.scent_place", p)?;
        cx.tell(
            &m,
            format!("<{}>：死者带有香水，你必须选择一个地点", s.name),
        );
        let clue = s.clue.clone().unwrap_or_default();
        for place in [p.clone(), nv.overnight.to_string()] {
            left.push(Left {
                place,
                clue: clue.clone(),
                why: format!("<{}>", s.name),
                source: Source::Effect,
            });
        }
    }
    if water {
        let t = r.trait_def(TraitKind::RunningWater).expect("water trait");
        let Some(p) = &plan.water_place else {
            return Ok(ask(
                cx,
                format!("<{}>2：凶手必须选择一个地点（plan.water_place）", t.name),
                &t.clause,
            ));
        };
        cx.check_place("plan.water_place", p)?;
        cx.tell(&m, format!("<{}>2：你必须选择一个地点", t.name));
        let clue = t.clue.clone().unwrap_or_default();
        for place in [p.clone(), nv.overnight.to_string()] {
            left.push(Left {
                place,
                clue: clue.clone(),
                why: format!("<{}>2", t.name),
                source: Source::Terrain,
            });
        }
    }

    // the murderer's template responses: 枪杀's body, 心理暗示②
    let gun = plan.victim.is_some() && success && plan.method == r.gun_method;
    let body_place = if gun {
        let Some(p) = &plan.body_place else {
            return Ok(ask(
                cx,
                "[枪杀]：凶手需要选择尸体放置的地点（plan.body_place）".into(),
                r.clauses.get("枪杀").map(String::as_str).unwrap_or(""),
            ));
        };
        cx.check_place("plan.body_place", p)?;
        Some(p.clone())
    } else {
        None
    };
    let disguise = plan.victim.is_some()
        && success
        && plan.method == r.poison_method
        && cx.has(&m, SkillKind::PoisonDisguise);
    if disguise {
        let s = r.skill_def(SkillKind::PoisonDisguise).expect("declared");
        let Some(d) = &plan.disguise else {
            return Ok(ask(
                cx,
                format!(
                    "<{}>②：需选择目标模板所拥有的任意杀人手法和线索（plan.disguise）",
                    s.name
                ),
                &s.clause,
            ));
        };
        let ok = r.templates.iter().any(|t| {
            t.methods.contains(&d.method)
                && t.clues
                    .iter()
                    .any(|c| c == &d.clue || super::rules::clue_shown(c) == d.clue)
        });
        if !ok {
            return Ok(ask(
                cx,
                format!("<{}>②：<{}>/<{}>不属于同一模板", s.name, d.method, d.clue),
                &s.clause,
            ));
        }
    }

    // deaths, bodies and scenes
    let plan_clues: Vec<String> = plan
        .clues
        .iter()
        .filter_map(|c| cx.own_clue(&m, c))
        .collect();
    for d in &dying {
        let at = cx.st.place_of(d);
        let view = r
            .trait_def(TraitKind::View)
            .filter(|_| r.has_trait(&at, TraitKind::View));
        let mut cause = plan.method.clone();
        let mut clues = plan_clues.clone();
        if disguise && let Some(x) = &plan.disguise {
            cause = x.method.clone();
            clues = vec![cx.any_clue(&x.clue).unwrap_or_else(|| x.clue.clone())];
        }
        if let Some(v) = view.and_then(|v| v.cause.clone()) {
            cause = v;
        }
        let alone = dying.iter().filter(|x| cx.st.place_of(x) == at).count() == 1;
        if alone
            && cx.has(d, SkillKind::Overwork)
            && cx.st.overtime.contains_key(d)
            && let Some(c) = r
                .skill_def(SkillKind::Overwork)
                .and_then(|s| s.cause.clone())
        {
            cause = c;
        }
        let steadfast = cx.has(d, SkillKind::Steadfast) && cx.capacity(&at).is_some_and(|c| c <= 3);
        let mut body = at.clone();
        if !steadfast {
            if let Some(p) = &body_place {
                body = p.clone();
            }
            if view.is_some() {
                body = r
                    .place_with(TraitKind::RoughTerrain)
                    .unwrap_or(&at)
                    .to_string();
            }
        }
        cx.note(format!("{d} 死于{cause}（{at}），尸体在{body}"));
        let p = cx.st.player_mut(d);
        p.alive = false;
        p.out_cause = Some(cause.clone());
        p.place = body.clone();
        cx.out.deaths.push(ManorDeath::new(d, &cause, &body));
        let motive = cx.st.motives.join("、");
        let trick = plan.trick.clone().map(|mut t| {
            t.clue = cx.any_clue(&t.clue).unwrap_or(t.clue);
            t
        });
        let swapped = plan.victim.is_some()
            && plan.method == r.trap_method
            && cx.has(&m, SkillKind::SpecialTrap);
        match cx
            .st
            .scenes
            .iter_mut()
            .find(|s| s.night == nv.n && s.place == body && s.cause == cause)
        {
            Some(s) => s.victims.push(d.clone()),
            None => cx.st.scenes.push(Scene {
                place: body,
                night: nv.n,
                victims: vec![d.clone()],
                cause,
                clues,
                trick,
                swapped,
                stays_today: false,
                motive,
            }),
        }
    }
    for e in &escapers {
        let default = r.default_place.clone();
        cx.note(format!("{e} 的<逃命>：不会死于该谋杀，向{default}移动"));
        cx.move_player(e, &default, false);
    }
    if success {
        cx.st.murders += 1;
    }
    cx.st.used_clues.extend(plan_clues.iter().cloned());
    cx.st.used_clues.extend(spent);
    cx.st.last_method = Some(plan.method.clone());

    // extra clues left by the murder
    if !success {
        for c in &plan_clues {
            left.push(Left {
                place: scene.clone(),
                clue: c.clone(),
                why: "<不完美犯罪>".into(),
                source: Source::Imperfect,
            });
        }
    }
    for (k, why) in [
        (TraitKind::RoughTerrain, "<复杂地形>3"),
        (TraitKind::Kitchen, "<料理>2"),
    ] {
        if r.has_trait(nv.overnight, k)
            && let Some(c) = r.trait_clue(k)
        {
            left.push(Left {
                place: scene.clone(),
                clue: c.to_string(),
                why: why.into(),
                source: Source::Terrain,
            });
        }
    }
    let poison_place = plan.place.is_some() && plan.method == r.poison_method;
    let genius = cx.has(&m, SkillKind::Genius);
    left.retain(|l| {
        let drop = (poison_place && l.source != Source::Imperfect)
            || genius
            || (nv.home_clean && l.source == Source::Terrain)
            || escape_failed;
        !drop
    });
    if cx.has(&m, SkillKind::SureHand) && plan.victim.is_some() {
        let mut counts: Vec<(String, usize)> = Vec::new();
        for l in &left {
            match counts.iter_mut().find(|(c, _)| *c == l.clue) {
                Some((_, n)) => *n += 1,
                None => counts.push((l.clue.clone(), 1)),
            }
        }
        let list: Vec<String> = counts
            .iter()
            .map(|(c, n)| format!("{}×{n}", super::rules::clue_shown(c)))
            .collect();
        let text = if list.is_empty() {
            "无".to_string()
        } else {
            list.join("、")
        };
        cx.tell(&m, format!("<轻车熟路>①：这次谋杀产生的额外线索：{text}"));
        if plan.clear_extra {
            cx.note("<轻车熟路>①：额外线索全部清除");
            left.clear();
        }
    }
    for l in left {
        cx.leave_extra(&l.place, &l.clue, &l.why);
    }

    // [愉悦], 作案后<疾行>, [献祭]
    let has_motive = |cx: &Ctx, k: MotiveKind| {
        cx.st
            .motives
            .iter()
            .any(|x| r.motives.iter().any(|d| d.name == *x && d.kind == k))
    };
    if success && has_motive(cx, MotiveKind::Joy) {
        cx.tell(
            &m,
            format!(
                "[愉悦]：你成功杀死了{}，可以选择移动至作案地点{scene}",
                dying.join("、")
            ),
        );
        if plan.joy_move {
            cx.move_player(&m, &scene, false);
        }
    }
    if let Some(p) = &plan.dash_after {
        super::night::dash(cx, &m, p)?;
    }
    if plan.sacrifice {
        if !has_motive(cx, MotiveKind::Sacrifice) {
            return Err(ManorError(
                "plan.sacrifice: only with the motive [献祭]".into(),
            ));
        }
        *nv.sacrifice = true;
    }
    Ok(None)
}

/// Who dies: a named victim unless 封闭空间 or 无用学识 (轻车熟路 always kills; 主场优势①
/// ignores terrain); everyone at a named place but the murderer, unless 保护 stops it, and
/// 逃命 spares its holder outside the default place.
fn who_dies(cx: &mut Ctx, plan: &Plan, scene: &str) -> (Vec<String>, Vec<String>, bool) {
    let r = cx.rules;
    let m = cx.st.murderer.clone();
    if let Some(v) = &plan.victim {
        let closed =
            r.has_trait(scene, TraitKind::ClosedSpace) && !cx.has(&m, SkillKind::HomeField);
        let useless =
            cx.has(v, SkillKind::UselessKnowledge) && cx.capacity(scene).is_some_and(|c| c <= 3);
        if cx.has(&m, SkillKind::SureHand) || !(closed || useless) {
            return (vec![v.clone()], Vec::new(), false);
        }
        let why = if closed {
            "<封闭空间>"
        } else {
            "<无用学识>"
        };
        cx.note(format!("{v} 因{why}没有出局：谋杀失败"));
        return (Vec::new(), Vec::new(), false);
    }
    let here: Vec<String> = cx
        .st
        .alive_at(scene)
        .into_iter()
        .filter(|w| *w != m)
        .collect();
    let guarded = plan.method != r.poison_method
        && plan.method != r.trap_method
        && here.iter().any(|w| cx.has(w, SkillKind::Guard));
    if guarded {
        cx.note(format!("<保护>：{scene}的谋杀失败"));
        return (Vec::new(), Vec::new(), false);
    }
    let mut dying = Vec::new();
    let mut escapers = Vec::new();
    for w in here {
        if cx.has(&w, SkillKind::Escape) && scene != r.default_place {
            escapers.push(w);
        } else {
            dying.push(w);
        }
    }
    let failed = dying.is_empty() && !escapers.is_empty();
    (dying, escapers, failed)
}
