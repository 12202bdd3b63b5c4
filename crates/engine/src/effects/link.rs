//! Links between players (丘比特之箭-like), following a camp, dying with a link.

use serde::{Deserialize, Serialize};

use super::{Behaviour, OwnOut, kind};
use crate::action::Action;
use crate::ctx::{Ctx, Flow};
use crate::rules::{RoleSkill, SkillDef};
use crate::state::{self, SkillState};

/// Links the targets (丘比特之箭). See `effects::link` for the parameters' meaning.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Link {
    pub link: String,
    #[serde(default)]
    pub linker_joins: bool,
    #[serde(default)]
    pub elope_camp: Option<String>,
    #[serde(default)]
    pub lone_role_loses: Option<RoleSkill>,
    #[serde(default)]
    pub force_elope_if_skill: Option<String>,
    #[serde(default)]
    pub grant_if_no_role: Option<RoleSkill>,
    /// The clause quoted when the link elopes.
    #[serde(default)]
    pub elope_clause: Option<String>,
}

/// The actor joins the target's camp (认亲).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FollowCamp {}

/// On going out: the other members of the holder's link of this kind go out too (殉情).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DieWithLink {
    pub link: String,
}

impl Behaviour for kind::Link {
    fn act(&self, cx: &mut Ctx, _def: &SkillDef, a: &Action) -> Flow {
        link(cx, self, a)?;

        Ok(())
    }
}

impl Behaviour for kind::FollowCamp {
    fn act(&self, cx: &mut Ctx, def: &SkillDef, a: &Action) -> Flow {
        let t = &a.targets[0];
        let camp = cx.st.player(t).and_then(|p| p.camp.clone());
        if let Some(p) = cx.st.player_mut(&a.actor) {
            p.camp = camp.clone();
        }
        let camp = camp.unwrap_or_else(|| "（未定）".into());
        cx.note(
            format!("{} <{}> {}，成为{}", a.actor, a.skill, t, camp),
            &def.clause,
        );
        cx.tell(
            &a.actor,
            format!("你<{}>{}，你的阵营为【{}】。", a.skill, t, camp),
        );

        Ok(())
    }
}

impl Behaviour for kind::DieWithLink {
    fn fires_on_out(&self) -> bool {
        true
    }

    fn on_own_out(&self, cx: &mut Ctx, o: &OwnOut) -> Flow {
        let OwnOut {
            name, skill, def, ..
        } = *o;
        let kind::DieWithLink { link } = self;

        for other in cx.st.linked(name, link) {
            if cx.st.player(&other).is_some_and(|p| p.alive()) {
                cx.go_out(&other, skill, Some(name), &def.clause)?;
            }
        }

        Ok(())
    }
}

/// 丘比特之箭-like links. Parameters (all from the rule file):
/// - `linker_joins`: the actor's camp becomes the linked players' camp;
/// - `elope_camp`: linked players of different camps (and a joining linker) form this camp;
/// - `lone_role_loses`: when exactly one member holds `role`, that member loses `skill`;
/// - `force_elope_if_skill`: a member holding that skill loses it and the link elopes anyway;
/// - `grant_if_no_role`: in that forced case, when no member holds `role`, the member who
///   held the forcing skill gains `skill`.
fn link(cx: &mut Ctx, eff: &kind::Link, a: &Action) -> Flow {
    let kind::Link {
        link,
        linker_joins,
        elope_camp,
        lone_role_loses,
        force_elope_if_skill,
        grant_if_no_role,
        elope_clause,
    } = eff;
    let clause = cx.skill_clause(&a.skill);
    let members = a.targets.clone();
    cx.st.links.push(state::Link {
        kind: link.clone(),
        by: Some(a.actor.clone()),
        members: members.clone(),
    });
    cx.note(
        format!("{} 与 {} 成为{}", members[0], members[1..].join("、"), link),
        &clause,
    );
    for m in &members {
        let others: Vec<&String> = members.iter().filter(|x| *x != m).collect();
        cx.tell(
            m,
            format!(
                "你与 {} 成为{}。",
                others
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join("、"),
                link
            ),
        );
    }
    let mut forced_by: Option<String> = None;
    if let Some(skill) = force_elope_if_skill {
        for m in &members {
            if let Some(p) = cx.st.player_mut(m)
                && let Some(s) = p.skills.get_mut(skill)
                && !s.lost
            {
                s.lost = true;
                forced_by = Some(m.clone());
                cx.note(format!("{m} 成为{link}，失去<{skill}>"), &clause);
            }
        }
    }
    let camps: Vec<Option<String>> = members
        .iter()
        .map(|m| cx.st.player(m).and_then(|p| p.camp.clone()))
        .collect();
    let differ = camps.windows(2).any(|w| w[0] != w[1]) || camps.iter().any(|c| c.is_none());
    let role_count = |cx: &Ctx, role: &str| {
        members
            .iter()
            .filter(|m| cx.st.player(m).is_some_and(|p| p.role == role))
            .count()
    };
    if let Some(rs) = lone_role_loses
        && role_count(cx, &rs.role) == 1
    {
        let m = members
            .iter()
            .find(|m| cx.st.player(m).is_some_and(|p| p.role == rs.role))
            .cloned()
            .expect("one");
        if let Some(s) = cx
            .st
            .player_mut(&m)
            .and_then(|p| p.skills.get_mut(&rs.skill))
        {
            s.lost = true;
        }
        cx.note(
            format!("{m} 是情侣中唯一的{}，失去<{}>", rs.role, rs.skill),
            &rs.clause,
        );
        cx.tell(&m, format!("你失去技能<{}>。", rs.skill));
    }
    let new_camp = match elope_camp {
        Some(e) if differ || forced_by.is_some() => {
            for m in &members {
                if let Some(p) = cx.st.player_mut(m) {
                    p.camp = Some(e.clone());
                }
                cx.tell(m, format!("情侣私奔，形成【{e}】。"));
            }
            let c = elope_clause.clone().unwrap_or(clause.clone());
            cx.note(format!("{} 私奔，形成【{e}】", members.join("、")), &c);
            Some(e.clone())
        }
        _ => camps[0].clone(),
    };
    if *linker_joins {
        let c = new_camp.clone();
        if let Some(p) = cx.st.player_mut(&a.actor) {
            p.camp = c.clone();
        }
        let c = c.unwrap_or_default();
        cx.tell(
            &a.actor,
            format!("{} 成为{}，你的阵营为【{}】。", members.join("与"), link, c),
        );
    }
    if let (Some(by), Some(g)) = (forced_by, grant_if_no_role)
        && role_count(cx, &g.role) == 0
    {
        grant(cx, &by, &g.skill);
        cx.note(format!("{by} 获得<{}>", g.skill), &g.clause);
        cx.tell(&by, format!("你获得技能<{}>。", g.skill));
    }
    Ok(())
}

pub(crate) fn grant(cx: &mut Ctx, name: &str, skill: &str) {
    let uses = cx.rules.skill(skill).and_then(|d| d.uses);
    if let Some(p) = cx.st.player_mut(name) {
        p.skills.insert(
            skill.to_string(),
            SkillState {
                uses_left: uses,
                lost: false,
                granted: true,
            },
        );
    }
}
