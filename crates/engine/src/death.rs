//! The one death path: a player goes out once (later causes join the same death), the
//! watchers of any out run, then the holder's on-out behaviours in the declared order; after
//! each chain the loss check (判负 is sticky) with the camp-lost rules. Behaviours are reached
//! only through their `Behaviour` hooks.

use crate::conditions::holds;
use crate::ctx::{Ctx, Flow};
use crate::effects::{self, OwnOut};
use crate::phase::Death;
use crate::rules::Condition;
use crate::state::Out;

impl Ctx<'_> {
    /// The one death path. A player goes out once; each on-out trigger fires once, in the
    /// rule set's trigger order, and a trigger's own deaths run their chains before the next
    /// trigger of this death (so a hunter's shot lands after the hunter's lover).
    pub fn go_out(&mut self, name: &str, cause: &str, via: Option<&str>, clause: &str) -> Flow {
        let Some(p) = self.st.player_mut(name) else {
            return Ok(());
        };
        if let Some(out) = &mut p.out {
            out.causes.push(cause.to_string());
            if let Some(d) = self.report.deaths.iter_mut().find(|d| d.player == name) {
                d.also.push(cause.to_string());
            }
            self.note(format!("{name} 已出局，{cause} 不再结算"), clause);
            return Ok(());
        }
        if effects::warded(self, name, cause) || effects::stops_out(self, name, cause) {
            return Ok(());
        }
        if let Some(by) = effects::stand_in(self, name) {
            self.note(format!("{by} 代替 {name} 出局（{cause}）"), clause);
            return self.go_out(&by, cause, None, clause);
        }
        self.st.outs += 1;
        let order = self.st.outs;
        let p = self.st.player_mut(name).expect("exists");
        p.out = Some(Out {
            at: self.input.moment,
            cause: cause.to_string(),
            causes: vec![cause.to_string()],
            order,
        });
        self.report.deaths.push(Death {
            player: name.to_string(),
            cause: cause.to_string(),
            via: via.map(str::to_string),
            step: self.at.step.clone(),
            clause: clause.to_string(),
            also: Vec::new(),
        });
        self.note(format!("{name} 出局（{cause}）"), clause);
        self.tell(name, format!("你已出局（{cause}）。"));
        self.individual_loss(name, false);
        // The cause that started a link chain (a lover's 红牌 bars the hunter's shot).
        let root = match via {
            Some(v) => self
                .report
                .deaths
                .iter()
                .find(|d| d.player == v)
                .map(|d| d.cause.clone())
                .unwrap_or_default(),
            None => cause.to_string(),
        };
        effects::grievance_on_out(self, name);
        self.at.source = None; // chains caused by this out are not the attacker's
        effects::on_any_out(self, name)?;
        for skill in self.st.on_out_skills(self.rules, name) {
            let Some(def) = self.rules.skill(&skill) else {
                continue;
            };
            // a status blocking the skill (沉默, 冰冻) also holds for a trigger on going out
            if let Some(why) = effects::blocked(self, name, &skill, def) {
                self.note(format!("{why}，不能发动<{skill}>"), &def.clause);
                continue;
            }
            if !def.forced && self.idle(name) {
                self.note(
                    format!("{name} 处于挂机状态，不能发动<{skill}>"),
                    &def.clause,
                );
                if self.rules.sheriff_skills.contains(&skill)
                    && self.st.sheriff.as_deref() == Some(name)
                {
                    self.st.sheriff = None;
                    self.note(format!("{name} 出局，警徽无人继承"), &def.clause);
                }
                continue;
            }
            let own = OwnOut {
                name,
                skill: &skill,
                def,
                cause,
                root: &root,
            };
            for eff in &def.effects {
                eff.behaviour().on_own_out(self, &own)?;
            }
        }
        Ok(())
    }

    /// A player of an individual camp loses alone: on going out, or (`at_end`) still in it
    /// when the game ends. Noted for the director, not announced (「无阵营混血除外」).
    pub(crate) fn individual_loss(&mut self, name: &str, at_end: bool) {
        let Some(il) = &self.rules.individual_lose else {
            return;
        };
        let Some(camp) = self.st.player(name).and_then(|p| p.camp.clone()) else {
            return;
        };
        if !self.rules.individual_camps.contains(&camp)
            || self.report.losers.iter().any(|l| l == name)
        {
            return;
        }
        let (why, clause) = if at_end {
            ("游戏结束时仍属于", il.at_end.clone())
        } else {
            ("出局时属于", il.out.clone())
        };
        self.report.losers.push(name.to_string());
        self.note(format!("{name} {why}{camp}，个人判负"), &clause);
    }

    /// 判负 of every camp meeting a loss condition (sticky), with the camp-lost rules.
    pub fn check_losses(&mut self) {
        for camp in &self.rules.camps {
            if self.st.camps_lost.contains(&camp.name)
                || !crate::conditions::formed(self.rules, &self.st, &camp.name)
            {
                continue;
            }
            // `every_camp_lose` is for camps whose members are judged together: an individual
            // camp (独立阵营「各自判定」) is no team, each member loses alone.
            let every: &[Condition] = if self.rules.individual_camps.contains(&camp.name) {
                &[]
            } else {
                &self.rules.every_camp_lose
            };
            if let Some(c) = camp
                .lose
                .iter()
                .chain(every)
                .find(|c| holds(self.rules, &self.st, &camp.name, c))
            {
                let clause = c.clause().to_string();
                self.st.camps_lost.push(camp.name.clone());
                self.report.camps_lost.push(camp.name.clone());
                self.note(format!("{} 判负", camp.name), &clause);
                camp_lost(self, &camp.name);
            }
        }
    }
}

/// The camp-lost rules for `camp` (狼人阵营 loses 杀人; 寡妇刀 grants it to 黑情侣).
pub(crate) fn camp_lost(cx: &mut Ctx, camp: &str) {
    let rules: Vec<_> = cx
        .rules
        .on_camp_lost
        .iter()
        .filter(|r| r.camp == camp)
        .cloned()
        .collect();
    for r in rules {
        if let Some(cause) = &r.members_out {
            let who: Vec<String> = cx
                .st
                .alive()
                .filter(|p| p.camp.as_deref() == Some(camp))
                .filter(|p| r.pool_role.as_ref() != Some(&p.role))
                .map(|p| p.name.clone())
                .collect();
            for w in who {
                if let Err(stop) = cx.go_out(&w, cause, None, &r.clause) {
                    cx.at.deferred.get_or_insert(stop);
                }
            }
        }
        if let (Some(role), Some(to)) = (&r.pool_role, &r.pool_to_camp) {
            let who: Vec<String> = cx
                .st
                .alive()
                .filter(|p| p.camp.as_deref() == Some(camp) && &p.role == role)
                .map(|p| p.name.clone())
                .collect();
            for w in who {
                cx.st.player_mut(&w).expect("exists").camp = Some(to.clone());
                cx.note(format!("{camp} 判负，{w} 变为{to}"), &r.clause);
            }
        }
        if let Some(a) = &r.announce {
            cx.report.announcements.push(a.clone());
        }
        if let Some(status) = &r.clear_status {
            for p in &mut cx.st.players {
                p.statuses.retain(|s| &s.name != status);
            }
            cx.note(
                format!("{camp} 判负，所有角色的{status}状态解除"),
                &r.clause,
            );
        }
        if let Some(skill) = &r.remove_skill {
            let who: Vec<String> = cx
                .st
                .players
                .iter()
                .filter(|p| p.camp.as_deref() == Some(camp) && p.skills.contains_key(skill))
                .map(|p| p.name.clone())
                .collect();
            for w in &who {
                if let Some(s) = cx.st.player_mut(w).and_then(|p| p.skills.get_mut(skill)) {
                    s.lost = true;
                }
                if let Some(n) = &r.notice {
                    cx.tell(w, n.clone());
                }
            }
            cx.note(format!("{camp} 判负，失去<{skill}>"), &r.clause);
        }
        if let (Some(skill), Some(link)) = (&r.grant_skill, &r.to_link) {
            let members: Vec<String> = cx
                .st
                .links
                .iter()
                .filter(|l| &l.kind == link)
                .flat_map(|l| l.members.clone())
                .filter(|m| {
                    r.if_camp
                        .as_ref()
                        .is_none_or(|c| cx.st.player(m).and_then(|p| p.camp.as_ref()) == Some(c))
                })
                .collect();
            for m in &members {
                effects::grant(cx, m, skill);
                if let Some(n) = &r.notice
                    && cx.st.player(m).is_some_and(|p| p.alive())
                {
                    cx.tell(m, n.clone());
                }
            }
            if !members.is_empty() {
                cx.note(
                    format!("{camp} 判负，{} 获得<{skill}>", members.join("、")),
                    &r.clause,
                );
            }
        }
    }
}
